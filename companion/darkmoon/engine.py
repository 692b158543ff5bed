"""The rules machine: a stack of steps that runs until the game needs a decision.

Every command answers the pending decision; the engine then runs steps until it needs the
next one. Chance outcomes (rolls, draws, shuffles) are taken from a `Chance`, which records
them when deciding and plays them back when evolving, so replay needs no randomness.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Callable

from .data import FACES
from .errors import (GameOver, IllegalOption, MalformedCommand, NotYourDecision,
                     ReplayMismatch, StaleState, UnknownSeat, WrongDecision)
from .state import Frame, Game, Pending


# The engine's own registry: every table the turn looks names up in. Modules add to it only
# through `Rules.install`, which rules.register_all calls once for every module, in one place:
# importing a module registers nothing.
STEPS: dict[str, Callable] = {}    # step name -> fn(g, ctx, **args)
ANSWERS: dict[str, Callable] = {}  # decision -> fn(g, ctx, seat, option, data)
ACTIONS: dict[str, Callable] = {}  # action name -> fn(g, ctx, seat, option, ordered)
SUBMITTED: dict[str, Callable] = {}  # roll purpose -> fn(g, ctx, seat, faces, data)
SETTLE: dict[str, Callable] = {}   # a kind of vote besides quarantine -> fn(g, ctx, target, result)
POWERS: dict[str, Callable] = {}   # a status card whose power is no damage token -> fn(g, ctx, seat)
COMPLICATIONS: dict[str, Callable] = {}  # complication (less _outpost/_shield) -> fn(g, ctx, card)

# The base turn's seams: where the expansion and its modules act in a base turn, each hook
# called in the order registered (rules.register_all). The base game never imports them.
SEAMS = {
    "turn_start": "fn(g, ctx): the active player token has moved; a new turn begins",
    "action_options": "fn(g, seat, ordered, exposed, offer, legal): more actions to offer",
    "recall_drawn": "fn(g, ctx, seat): a task card of kind RECALL was drawn",
    "forced_vote_due": "fn(g, ctx, card) -> bool: after a task, True calls the evacuation vote",
    "ballots_shown": "fn(g, ctx, data, shown): a vote's ballots are shown, before its result",
    "faces_counted": "fn(g, faces) -> faces: the worth of dice submitted to a malfunction",
    "malfunction_submitted": "fn(g, ctx, seat): a seat has submitted to a malfunction",
    "final_completed": "fn(g, ctx): the final event is complete; ending the game wins it",
    "public_view": "fn(g, view, over): sections the table sees besides the base game's",
    "position_built": "fn(g, ctx, position): a described position's board is set",
}
HOOKS: dict[str, list[Callable]] = {seam: [] for seam in SEAMS}


def on(seam: str, fn: Callable) -> None:
    """Hook `fn` into one of the base turn's seams (once, however often registered)."""
    if fn not in HOOKS[seam]:
        HOOKS[seam].append(fn)


class Rules:
    """What one module adds to the engine's registry: its decorators note each function,
    and `install` puts them in the engine's tables (rules.register_all, once)."""

    __slots__ = ("entries",)

    def __init__(self):
        self.entries: list[tuple[dict, str, Callable]] = []

    def _into(self, table: dict, name: str):
        def register(fn):
            self.entries.append((table, name, fn))
            return fn
        return register

    def step(self, name: str):
        return self._into(STEPS, name)

    def answer(self, decision: str):
        return self._into(ANSWERS, decision)

    def action(self, name: str):
        return self._into(ACTIONS, name)

    def on_submitted(self, purpose: str):
        return self._into(SUBMITTED, purpose)

    def event(self, card: str):
        """An event card's effect: the step that runs when it completes."""
        return self.step(f"event:{card}")

    def settle(self, kind: str):
        return self._into(SETTLE, kind)

    def power(self, status: str):
        return self._into(POWERS, status)

    def complication(self, card: str):
        return self._into(COMPLICATIONS, card)

    def install(self) -> None:
        for table, name, fn in self.entries:
            if table.setdefault(name, fn) is not fn:
                raise AssertionError(f"two rules registered under the name {name!r}")


class Chance:
    """Randomness in, recorded outcomes out; or recorded outcomes played back."""

    def __init__(self, rng: random.Random | None = None, recorded: list | None = None):
        self.rng = rng
        self.recorded = recorded
        self.position = 0
        self.outcomes: list = []

    def _next(self, make):
        if self.recorded is None:
            value = make()
            self.outcomes.append(value)
            return value
        if self.position >= len(self.recorded):
            raise ReplayMismatch("the log has fewer chance outcomes than the rules draw")
        value = self.recorded[self.position]
        self.position += 1
        return value

    def roll(self, colour: str) -> int:
        face = self._next(lambda: self.rng.choice(FACES[colour]))
        if face not in FACES[colour]:
            raise ReplayMismatch(f"{face} is not a face of the {colour} die")
        return face

    def pick(self, items: list):
        item = self._next(lambda: self.rng.choice(items))
        if item not in items:
            raise ReplayMismatch(f"{item!r} was drawn but is not among {items!r}")
        return item

    def shuffle(self, items: list) -> list:
        def make():
            shuffled = list(items)
            self.rng.shuffle(shuffled)
            return shuffled
        result = list(self._next(make))
        if sorted(result) != sorted(items):
            raise ReplayMismatch("a recorded shuffle holds other cards than the pile")
        return result


@dataclass
class Ctx:
    chance: Chance
    facts: list = field(default_factory=list)
    keep_facts: bool = True
    # A decision the rules answered themselves (one seat, one option): played once the step
    # or answer that asked it has returned, as a seat's answer would be. What that step
    # scheduled after asking (a result that needs the vote the answer calls) then runs after
    # whatever the answer schedules, asked or not.
    ruled: tuple | None = None

    def fact(self, name: str, /, to: list[int] | None = None, **data: Any) -> None:
        """Record what happened; `to` names the only seats that may see it before game over."""
        if self.keep_facts:
            data["k"] = name
            if to is not None:
                data["to"] = sorted(set(to))
            self.facts.append(data)


def push(g: Game, *frames: tuple[str, dict]) -> None:
    """Schedule steps to run in the order given, before anything already scheduled."""
    for name, args in reversed(frames):
        g.stack.append(Frame(name, args))


# Decisions whose options are the seat's secret (its own dice or drawn cards): the fact that
# the rules answered one for it goes to that seat alone.
SECRET_CHOICES = ("roll_dice", "task", "event", "corporation")


def ask(g: Game, ctx: Ctx, kind: str, options: dict[int, list], data: dict | None = None,
        blocked: dict | None = None, simultaneous: bool = False, auto: bool = True,
        rule: str = "only_choice") -> None:
    """Wait for a decision. A single seat with a single option and nothing blocked is not
    asked: it would be a step the physical game does not have. The log says so (a `ruled`
    fact naming `rule`), so nobody wonders why the game did not wait for them. That answer
    is played where a seat's would be, once the asking step has returned (`run`): a step it
    schedules after asking (a card's result after the vote the answer calls) runs after
    whatever the answer schedules, whether the seat was asked or not."""
    data = data or {}
    for seat, opts in options.items():
        if not opts:
            raise AssertionError(f"{kind}: seat {seat} would have no legal option")
    if g.pending is not None or ctx.ruled is not None:
        raise AssertionError(f"{kind}: asked while another decision waits for its answer")
    if auto and not simultaneous and len(options) == 1 and not blocked:
        (seat, opts), = options.items()
        if len(opts) == 1:
            ctx.ruled = (kind, seat, opts[0], data, rule)
            return
    g.pending = Pending(kind, options, data, blocked or {}, simultaneous=simultaneous)


def answer_ruled(g: Game, ctx: Ctx) -> None:
    """Play the answer the rules gave (see `ask`), with the `ruled` fact that says so."""
    kind, seat, option, data, rule = ctx.ruled
    ctx.ruled = None
    ctx.fact("ruled", to=[seat] if kind in SECRET_CHOICES else None, rule=rule, seat=seat,
             decision=kind)
    ANSWERS[kind](g, ctx, seat, option, data)


def run(g: Game, ctx: Ctx) -> None:
    """Run steps until a decision waits or the game is over. A decision the rules answered
    is played before the next step, exactly where a seat's answer would have come."""
    while g.outcome is None:
        if ctx.ruled is not None:
            answer_ruled(g, ctx)
            continue
        if g.pending is not None:
            break
        if not g.stack:
            raise AssertionError("the rules ran out of steps without a decision or an end")
        frame = g.stack.pop()
        STEPS[frame.step](g, ctx, **frame.args)
    if g.outcome is not None:
        g.pending, ctx.ruled = None, None
        g.stack.clear()


def as_option(value) -> tuple:
    """Commands arrive as JSON: lists become the tuples the options are made of."""
    if isinstance(value, (list, tuple)):
        # Every item is checked too: 2.0 or True would equal a legal 2 or 1 and slip floats
        # and bools into the state, and a dict would make the option unhashable.
        return tuple(as_option(v) if isinstance(v, (list, tuple)) else as_option(v)[0]
                     for v in value)
    if isinstance(value, (str, int)) and not isinstance(value, bool):
        return (value,)
    raise MalformedCommand("an option is a list of strings and whole numbers")


def parse_command(command) -> tuple[str, tuple, int | None]:
    if not isinstance(command, dict):
        raise MalformedCommand("a command is an object with 'decision' and 'option'")
    decision, option = command.get("decision"), command.get("option")
    state_id = command.get("state_id")
    if not isinstance(decision, str) or option is None:
        raise MalformedCommand("a command needs a 'decision' name and an 'option'")
    if state_id is not None and (not isinstance(state_id, int) or isinstance(state_id, bool)):
        raise MalformedCommand("'state_id' must be a whole number")
    unknown = set(command) - {"decision", "option", "state_id"}
    if unknown:
        raise MalformedCommand(f"unknown fields: {', '.join(sorted(unknown))}")
    return decision, as_option(option), state_id


def check_seat(g: Game, actor) -> int:
    if not isinstance(actor, int) or isinstance(actor, bool) or not 0 <= actor < g.players:
        raise UnknownSeat(f"there is no seat {actor!r} at this table")
    return actor


def apply_command(g: Game, ctx: Ctx, actor, decision: str, option: tuple,
                  state_id: int | None) -> None:
    """Check a seat's command against the pending decision, then play it. All checks come
    before the first change, so a refused command changes nothing."""
    if g.outcome is not None:
        raise GameOver("the game is over")
    if state_id is not None and state_id != g.state_id:
        raise StaleState(f"the game has moved on (state {g.state_id}, you saw {state_id})")
    seat = check_seat(g, actor)
    pending = g.pending
    if pending is None or seat not in pending.answerable:
        waiting = ", ".join(str(s) for s in pending.seats) if pending else "nobody"
        raise NotYourDecision(f"the game is not waiting for seat {seat} (waiting for {waiting})")
    if decision != pending.kind:
        raise WrongDecision(f"the game waits for '{pending.kind}', not '{decision}'")
    if option not in pending.options[seat]:
        reasons = dict(pending.blocked.get(seat, []))
        why = reasons.get(option)
        raise IllegalOption(f"{list(option)} is not allowed now" + (f": {why}" if why else ""))
    g.state_id += 1
    if pending.simultaneous:
        # A seat's latest answer replaces any earlier one; the answers are read together
        # when the last seat is in. Every answer, first or again, changed or the same, is
        # the same public `chosen` fact: the table learns that the seat answered, never
        # what, nor whether it changed its mind (a phone repeating itself is no tell).
        pending.answers[seat] = option
        ctx.fact("chosen", seat=seat, decision=decision)
        if pending.seats:
            return
        g.pending = None
        ANSWERS[pending.kind](g, ctx, pending.answers, pending.data)
    else:
        g.pending = None
        ANSWERS[pending.kind](g, ctx, seat, option, pending.data)
    run(g, ctx)


def legal_options(g: Game, seat: int) -> list[tuple]:
    if g.pending is None or seat not in g.pending.answerable:
        return []
    return list(g.pending.options[seat])
