"""Exact situations for rules tests: a real game, then the board set by hand.

`Table` deals a seeded game with chosen characters and final event, then resets the board to
a plain, known state (2 shield tokens, no outpost or fatigue tokens, everyone 2 strong + 2
weak, nobody infected unless asked). A test then sets what its rule needs on `t.g` and runs
steps (`t.go`) or turns (`t.turn`), answering decisions with `t.do`.

Dice and draws are fixed with `t.fix(...)`: `Chance` takes every roll and every token draw
from `rng.choice`, so a `random.Random` whose `choice` returns queued values decides them.
Rolls of one seat come in colour order: strong dice, then weak, then the commander die.
"""
from __future__ import annotations

import random
from collections import deque

from companion.darkmoon import Chance, Ctx, Setup, play, replay, start
from companion.darkmoon.data import (COMMANDER, DICE_IN_BOX, FATIGUE_TOKENS, OUTPOST,
                                     OUTPOST_TOKENS, STRONG, TASKS, UNINFECTED, WEAK)
from companion.darkmoon.engine import push, run
from companion.darkmoon.state import TaskInPlay


class Scripted(random.Random):
    """A seeded rng whose `choice` first returns the queued values, checking each one is
    among the choices offered (a die face, a token in the pile). Shuffles stay seeded."""

    def __init__(self, seed: int = 0):
        super().__init__(seed)
        self.queue: deque = deque()

    def choice(self, seq):
        if self.queue:
            value = self.queue.popleft()
            if value not in seq:
                raise AssertionError(f"scripted {value!r} is not among {list(seq)!r}")
            return value
        return super().choice(seq)


NAMES = ("Ann", "Ben", "Cat", "Dan", "Eve", "Fay", "Gus")


class Table:
    def __init__(self, characters=("jon", "luba", "michihiro"), *, names=None,
                 final_event="await_rescue", variants=(), seed=1, infected=None,
                 commander=0, event="tactical_prep"):
        names = tuple(names or NAMES[:len(characters)])
        self.rng = Scripted(seed)
        self.events = start(Setup(names, tuple(characters), final_event, tuple(variants)),
                            random.Random(seed))
        self.g = g = replay(self.events)
        self.facts: list = []
        # A plain board: the tests add exactly what they need.
        g.pending, g.stack = None, []
        g.shield_tokens, g.sabotage, g.suspicion = 2, None, 1
        g.outpost_board, g.outpost_pile = [], list(OUTPOST_TOKENS)
        g.fatigue_board, g.fatigue_pile = [], list(FATIGUE_TOKENS)
        g.event, g.event_cubes, g.event_drawn = event, 0, []
        g.completed_events, g.final_cubes, g.final_active = [], 0, False
        for i, s in enumerate(g.seats):
            s.status = (infected or {}).get(i, UNINFECTED)
            s.dice = {STRONG: 2, WEAK: 2, COMMANDER: 0}
            s.rolled, s.die_tokens, s.quarantined, s.revealed = [], 0, False, False
        g.commander = commander
        g.seats[commander].dice[COMMANDER] = 1
        g.active = commander
        if g.has("shadow_corporation"):  # the evacuation boards as set up, nobody cleared
            g.outpost_pile.append("evac_ship")
            g.evacuation, g.clearances, g.refuelled, g.corporation = 1, [], False, []
        self.balance_pool()

    # --- setting the board ---

    def seat(self, name_or_character):
        for i, s in enumerate(self.g.seats):
            if name_or_character in (s.name, s.character):
                return i
        raise KeyError(name_or_character)

    def dice(self, seat: int, strong: int, weak: int, commander: int = 0) -> None:
        self.g.seats[seat].dice = {STRONG: strong, WEAK: weak, COMMANDER: commander}
        self.balance_pool()

    def balance_pool(self) -> None:
        """The available pool is whatever the seats and Spent Resources do not hold."""
        g = self.g
        g.pool = {c: DICE_IN_BOX[c] - g.spent[c] - sum(s.dice[c] for s in g.seats)
                  for c in DICE_IN_BOX}
        assert min(g.pool.values()) >= 0, g.pool

    def stack_tasks(self, *cards: str) -> None:
        """Put cards on top of the task deck: cards[0] is drawn first."""
        deck = [c for c in self.g.task_deck if c not in cards]
        self.g.task_deck = deck + list(reversed(cards))

    # --- chance ---

    def fix(self, *values) -> None:
        """Queue die faces and token draws, in the order the rules take them."""
        self.rng.queue.extend(values)

    @property
    def unused(self) -> list:
        return list(self.rng.queue)

    # --- running ---

    def ctx(self) -> Ctx:
        ctx = Ctx(Chance(rng=self.rng))
        ctx.facts = self.facts
        return ctx

    def go(self, *frames) -> None:
        """Run steps from here, e.g. ("turn_start", {"seat": 1})."""
        g = self.g
        g.pending = None
        push(g, *frames)
        run(g, self.ctx())

    def turn(self, seat: int) -> None:
        """Begin `seat`'s turn afresh (whatever was under way is dropped): retrieve dice,
        then wait for the action."""
        self.g.stack = []
        self.go(("turn_start", {"seat": seat}))

    def task(self, card: str, active: int | None = None) -> None:
        """Resolve a task card as if `active` had just chosen it (whatever was under way is
        dropped), then play on into the next turn."""
        g = self.g
        if active is not None:
            g.active = active
        g.task, g.stack = TaskInPlay(card, str(TASKS[card].kind)), []
        self.go((TASKS[card].kind, {"card": card}), ("after_task", {}),
                ("turn_start", {"seat": g.left_of(g.active)}))

    def do(self, seat: int, decision: str, *option):
        return play(self.g, seat, {"decision": decision, "option": list(option)}, self.ctx())

    # --- decisions ---

    @property
    def pending(self):
        return self.g.pending

    def waits(self, decision: str, seat: int | None = None) -> list:
        """Assert the game waits for `decision` (of `seat`); return that seat's options."""
        p = self.g.pending
        assert p is not None, "the game waits for nothing"
        assert p.kind == decision, f"waiting for {p.kind!r} of {p.seats}, not {decision!r}"
        if seat is None:
            (seat,) = p.seats
        assert seat in p.seats, f"{decision!r} waits for {p.seats}, not seat {seat}"
        return list(p.options[seat])

    def roll(self, seat: int, strong: int, weak: int, commander: int = 0) -> None:
        self.do(seat, "roll_dice", "roll", strong, weak, commander)

    def rolled(self, seat: int) -> list[int]:
        return [face for _, face in self.g.seats[seat].rolled]

    def submit(self, seat: int, *faces) -> None:
        """Submit the rolled dice showing `faces` (a face, or a (colour, face) pair)."""
        rolled = self.g.seats[seat].rolled
        by_colour = isinstance(faces[0], tuple)
        want = sorted(tuple(f) if by_colour else ("", f) for f in faces)
        for option in self.waits("submit", seat):
            if option[0] != "submit":
                continue
            got = sorted(rolled[i] if by_colour else ("", rolled[i][1]) for i in option[1:])
            if got == want:
                self.do(seat, "submit", *option)
                return
        raise AssertionError(f"cannot submit {faces} from the roll {rolled}")

    def vote(self, ballots: dict) -> None:
        """Answer a pending vote: seat -> "strong", "weak" or "abstain"."""
        for seat, ballot in ballots.items():
            self.do(seat, "vote", ballot)

    def facts_of(self, kind: str) -> list[dict]:
        return [f for f in self.facts if f["k"] == kind]


def put(t, kind, *tokens):
    """Place named outpost or fatigue tokens on the board."""
    board, pile = ((t.g.outpost_board, t.g.outpost_pile) if kind == OUTPOST
                   else (t.g.fatigue_board, t.g.fatigue_pile))
    for token in tokens:
        pile.remove(token)
        board.append(token)


def held(t, seat):
    """A seat's dice behind its screen: (strong, weak, commander)."""
    d = t.g.seats[seat].dice
    return d[STRONG], d[WEAK], d[COMMANDER]
