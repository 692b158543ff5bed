"""Host corrections: when the physical board and the app disagree, the host sets a public fact
to what the table shows. Each correction is a logged command with a public "corrected" fact.

A correction sets one fact and only the effects the rules tie to it (a lower die limit sends
the excess dice back; a new commander's predecessor returns the commander die). It never
plays an effect the table has already played (setting Recovery as the current event draws no
fatigue token). Whatever the game waits for must stay answerable: a correction that would make
an offered option impossible (or the options computed from the old fact wrong) is refused
until that decision is answered. Refusals never depend on a secret (the deck's order, a hand).
"""
from __future__ import annotations

from .damage import check_loss
from .data import (AREAS, CLEARANCE_SEATS, DICE_IN_BOX, EVACUATION_VOTE, EVENTS,
                   EVENTS_BEFORE_FINAL, FATIGUE, FINAL_EVENTS, OUTPOST, SHADOW_CORPORATION,
                   SHIELD, SUSPICION_VOTE, TOKENS_TO_LOSE)
from .engine import Ctx, push
from .events import cubes_needed
from .errors import IllegalOption, MalformedCommand
from .state import Game
from .votes import set_commander, unclear

HOST = "host"
DIE_TOKENS_IN_BOX = 14
# Decisions whose options name damage tokens where they are now.
TOKEN_DECISIONS = ("remove_token", "bonus", "power_token")
# Decisions whose options were counted from a seat's die limit (take up to it, discard down
# to it) or, for a quarantine, that a quarantined player does not get (a task to choose).
LIMIT_DECISIONS = ("take_dice", "discard")
# A fatigued seat submits one die per malfunction and loses Luba's reroll: a submission, a
# "roll again" or a corporation choice (her reroll) already offered would outlive the change.
FATIGUE_DECISIONS = ("submit", "continue", "corporation")
# What the old or the new commander may be asked while the card changes hands: nothing here
# depends on who holds the card or on the commander die (the action is offered afresh).
COMMANDER_SAFE = ("action", "vote", "vote_target", "order_response", "task",
                  "malfunction_type", "damage_kind")
# Food Rationing and Repair Tools change which dice may be taken or rolled.
EVENT_DECISIONS = ("take_dice", "roll_dice")

SHAPES = ("a correction is one of: [shield, 0-6], [outpost|fatigue, TOKEN, on|off], "
          "[sabotage, AREA|none], [suspicion, 1-3], [event_cubes, N], [final_cubes, N], "
          "[commander, SEAT], [quarantine, SEAT, on|off], [die_tokens, SEAT, N], "
          "[lost_dice, COLOUR, N], [event, CARD], [completed, CARD, on|off]; with Shadow "
          "Corporation [clearance, SEAT, on|off], [amputation, SEAT, on|off], "
          "[evacuation, 1-3]")
# Shadow Corporation: decisions whose options were counted from the clearances, or from
# who may still be amputated.
CLEARANCE_DECISIONS = ("evacuation_vote", "trial", "grant_clearance", "clearance_power")
AMPUTATION_DECISIONS = ("accident", "trial")


def malformed() -> MalformedCommand:
    return MalformedCommand(SHAPES)


def whole(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def shape(args: tuple, *kinds) -> None:
    """`args` are as many as `kinds`, each a whole number ("int"), a string ("str") or one of
    a tuple of words."""
    if len(args) != len(kinds):
        raise malformed()
    for value, kind in zip(args, kinds):
        ok = (whole(value) if kind == "int" else isinstance(value, str) if kind == "str"
              else value in kind)
        if not ok:
            raise malformed()


def refuse_while(g: Game, kinds, seats=None, why: str = "") -> None:
    """Refuse while a decision of one of `kinds` is pending (of one of `seats`, if given)."""
    p = g.pending
    if p is None or p.kind not in kinds:
        return
    if seats is not None and not set(seats) & set(p.options):
        return
    raise IllegalOption(f"answer the pending '{p.kind}' decision first: {why}")


def seat_of(g: Game, seat) -> int:
    if seat not in range(g.players):
        raise IllegalOption(f"there is no seat {seat} at this table")
    if g.seats[seat].revealed:
        raise IllegalOption(f"seat {seat} has revealed as Infected")
    return seat


def completing(g: Game) -> bool:
    """An event's completion is under way (its effect asks a decision before it is filed)."""
    return any(f.step == "next_event" for f in g.stack)


def event_card_guard(g: Game) -> None:
    if g.final_active:
        raise IllegalOption("the Final Event is in play")
    # The commander's hand is secret: refusing by where a card is would tell the host.
    refuse_while(g, ("event",), why="the commander holds event cards")
    if completing(g):
        raise IllegalOption("the current event is being completed: answer its effect first")


# --- the checks: each raises if the correction cannot be made now ---

def check_shield(g: Game, args: tuple) -> None:
    shape(args, "int")
    if args[0] not in range(TOKENS_TO_LOSE + 1):
        raise malformed()
    refuse_while(g, TOKEN_DECISIONS, why="it is about the damage tokens")


def check_token(g: Game, what: str, args: tuple) -> None:
    shape(args, "str", ("on", "off"))
    refuse_while(g, TOKEN_DECISIONS, why="it is about the damage tokens")
    token, where = args
    # The game's own tokens: Shadow Corporation adds the Evac Ship and builds its fatigue pool.
    board = g.outpost_board if what == OUTPOST else g.fatigue_board
    tokens = board + (g.outpost_pile if what == OUTPOST else g.fatigue_pile)
    if token not in tokens:
        raise IllegalOption(f"there is no {what} token {token!r}")
    if (where == "on") == (token in board):
        raise IllegalOption(f"{token} is already {where} the board")
    if what == FATIGUE:
        owners = [i for i, s in enumerate(g.seats) if s.character == token]
        refuse_while(g, FATIGUE_DECISIONS, owners,
                     "a fatigued player submits a single die and uses no ability")


def check_sabotage(g: Game, args: tuple) -> None:
    shape(args, AREAS + ("none",))


def check_suspicion(g: Game, args: tuple) -> None:
    shape(args, "int")
    if g.suspicion is None:
        raise IllegalOption("the suspicion cube has left the game")
    if args[0] not in range(1, SUSPICION_VOTE):
        raise malformed()


def check_event_cubes(g: Game, args: tuple) -> None:
    shape(args, "int")
    # Below what completes the event: after Risk Assessment one more than its card's.
    if not g.event or g.final_active or args[0] not in range(cubes_needed(g)):
        raise malformed()
    if completing(g):
        raise IllegalOption("the current event is being completed: answer its effect first")


def check_final_cubes(g: Game, args: tuple) -> None:
    shape(args, "int")
    # Risk Assessment as the third event adds a cube to the final event once it is in play.
    extra = g.extra_cubes if g.final_active else 0
    if args[0] not in range(FINAL_EVENTS[g.final_event].cubes + extra):
        raise malformed()


def check_commander(g: Game, args: tuple) -> None:
    shape(args, "int")
    seat = seat_of(g, args[0])
    if seat == g.commander:
        raise IllegalOption(f"seat {seat} is already the commander")
    p = g.pending
    if p is not None and p.kind not in COMMANDER_SAFE \
            and {seat, g.commander} & set(p.options):
        raise IllegalOption(f"answer the pending '{p.kind}' decision first: it is asked of "
                            "the commander or of the new one")


def check_quarantine(g: Game, args: tuple) -> None:
    shape(args, "int", ("on", "off"))
    seat, where = seat_of(g, args[0]), args[1]
    if (where == "on") == g.seats[seat].quarantined:
        raise IllegalOption(f"seat {seat} is already {'in' if where == 'on' else 'out of'} "
                            "quarantine")
    refuse_while(g, LIMIT_DECISIONS + ("task",), [seat], "quarantine changes the die limit "
                 "and the task draw")
    if where == "on":  # a quarantine takes the clearance away (ESOG)
        refuse_emptying_the_ship(g, seat)


def check_die_tokens(g: Game, args: tuple) -> None:
    shape(args, "int", "int")
    seat, n = seat_of(g, args[0]), args[1]
    if abs(n) > DIE_TOKENS_IN_BOX:
        raise malformed()
    others = sum(abs(s.die_tokens) for i, s in enumerate(g.seats) if i != seat)
    if abs(n) > abs(g.seats[seat].die_tokens) and others + abs(n) > DIE_TOKENS_IN_BOX:
        raise IllegalOption(f"the box holds {DIE_TOKENS_IN_BOX} die tokens")
    refuse_while(g, LIMIT_DECISIONS, [seat], "die tokens change the die limit")


def check_lost_dice(g: Game, args: tuple) -> None:
    shape(args, tuple(DICE_IN_BOX), "int")
    colour, n = args
    if n < 0:
        raise malformed()
    if n > g.pool[colour] + g.lost[colour]:
        raise IllegalOption(f"only dice in the available pool can be lost: "
                            f"{g.pool[colour]} {colour} there, {g.lost[colour]} lost")
    refuse_while(g, ("take_dice",), why="it offers dice from the pool")


def check_event(g: Game, args: tuple) -> None:
    shape(args, tuple(EVENTS))
    event_card_guard(g)
    card = args[0]
    if card == g.event:
        raise IllegalOption(f"{card} is already the current event")
    if card in g.completed_events:
        raise IllegalOption(f"{card} is completed")
    refuse_while(g, EVENT_DECISIONS, why="the current event may change which dice it offers")


def check_completed(g: Game, args: tuple) -> None:
    shape(args, tuple(EVENTS), ("on", "off"))
    event_card_guard(g)
    card, where = args
    if where == "off":
        if card not in g.completed_events:
            raise IllegalOption(f"{card} is not completed")
        return
    if card in g.completed_events or card == g.event:
        raise IllegalOption(f"{card} is {'completed' if card != g.event else 'the current event'}")
    if len(g.completed_events) + 1 >= EVENTS_BEFORE_FINAL:
        # The third completion begins the Final Event: that is play, not a correction.
        raise IllegalOption(f"a completed event number {EVENTS_BEFORE_FINAL} begins the Final "
                            "Event: let the game complete it")


def shadow_game(g: Game) -> None:
    if not g.has(SHADOW_CORPORATION):
        raise IllegalOption("this is not a Shadow Corporation game")


def refuse_targeted_vote(g: Game, kind: str) -> None:
    """A Shadow Corporation complication's vote target, chosen among who may be cleared or
    amputated."""
    p = g.pending
    if p is not None and p.kind == "vote_target" and p.data.get("kind") == kind:
        raise IllegalOption("answer the pending 'vote_target' decision first: its players "
                            f"were chosen by who may have the {kind}")


def takeoff_vote_open(g: Game) -> bool:
    """A take-off vote called and not yet settled: on the stack, its ballots or its tie."""
    p = g.pending
    return ((p is not None and p.kind in ("vote", "tie_break")
             and p.data.get("kind") == "takeoff")
            or any(f.step == "vote" and f.args.get("kind") == "takeoff" for f in g.stack))


def refuse_emptying_the_ship(g: Game, seat: int) -> None:
    """The ship takes off only with the clearance board full (ESOG Vote to take off): while
    its vote is open, no correction takes a cleared player off the board."""
    if seat in g.clearances and takeoff_vote_open(g):
        raise IllegalOption("a take-off vote is open: it was called with the clearance board "
                            "full, and nobody leaves the board before its result")


def check_clearance(g: Game, args: tuple) -> None:
    shape(args, "int", ("on", "off"))
    shadow_game(g)
    seat, where = seat_of(g, args[0]), args[1]
    if not g.evacuating():
        raise IllegalOption("the evacuation ship was recalled: nobody is cleared any more")
    if (where == "on") == (seat in g.clearances):
        raise IllegalOption(f"seat {seat} is already {'cleared' if where == 'on' else 'not cleared'}")
    if where == "on" and g.seats[seat].quarantined:
        raise IllegalOption(f"seat {seat} is in quarantine: no clearance (ESOG)")
    if where == "on" and len(g.clearances) >= CLEARANCE_SEATS[g.players]:
        raise IllegalOption("the clearance board is full")
    if where == "off":
        refuse_emptying_the_ship(g, seat)
    refuse_while(g, CLEARANCE_DECISIONS, why="its options were counted from the clearances")
    refuse_targeted_vote(g, "clearance")


def check_amputation(g: Game, args: tuple) -> None:
    shape(args, "int", ("on", "off"))
    shadow_game(g)
    seat, where = seat_of(g, args[0]), args[1]
    if (where == "on") == g.seats[seat].amputated:
        raise IllegalOption(f"seat {seat} is already {'amputated' if where == 'on' else 'whole'}")
    refuse_while(g, LIMIT_DECISIONS, [seat], "an amputation changes the die limit")
    refuse_while(g, AMPUTATION_DECISIONS, why="its options were counted from the amputations")
    refuse_targeted_vote(g, "amputation")


def check_evacuation(g: Game, args: tuple) -> None:
    shape(args, "int")
    shadow_game(g)
    if not g.evacuating():
        raise IllegalOption("the evacuation ship was recalled: the track left the game")
    if args[0] not in range(1, EVACUATION_VOTE):
        raise malformed()


CHECKS = {
    SHIELD: check_shield,
    OUTPOST: lambda g, args: check_token(g, OUTPOST, args),
    FATIGUE: lambda g, args: check_token(g, FATIGUE, args),
    "sabotage": check_sabotage, "suspicion": check_suspicion,
    "event_cubes": check_event_cubes, "final_cubes": check_final_cubes,
    "commander": check_commander, "quarantine": check_quarantine,
    "die_tokens": check_die_tokens, "lost_dice": check_lost_dice,
    "event": check_event, "completed": check_completed,
    "clearance": check_clearance, "amputation": check_amputation,
    "evacuation": check_evacuation,
}


def check_correction(g: Game, option: tuple) -> None:
    """Refuse a correction that names no public fact, an impossible value, or one that the
    pending decision does not allow yet. Changes nothing."""
    what = option[0] if option else None
    if not isinstance(what, str) or what not in CHECKS:
        raise malformed()
    CHECKS[what](g, option[1:])


# --- applying a checked correction ---

def over_limit(g: Game, seat: int) -> None:
    """A lowered die limit: the owner chooses which dice go back, as soon as the decision
    pending now is answered (the engine's own quarantines do the same)."""
    if g.seats[seat].held > g.die_limit(seat):
        push(g, ("discard_excess", {"seat": seat}))


def take_event_card(g: Game, card: str) -> None:
    """Out of the event deck, or else from the cards the commander discarded face down: which
    of the two is a secret, so nothing here (not a refusal, not a fact) depends on it."""
    if card in g.event_deck:
        g.event_deck.remove(card)


def apply_correction(g: Game, ctx: Ctx, option: tuple) -> None:
    what, *args = option
    ctx.fact("corrected", what=what, to_value=list(args))
    if what == SHIELD:
        g.shield_tokens = args[0]
    elif what in (OUTPOST, FATIGUE):
        board, pile = ((g.outpost_board, g.outpost_pile) if what == OUTPOST
                       else (g.fatigue_board, g.fatigue_pile))
        token, where = args
        (pile, board)[where == "off"].remove(token)
        (board, pile)[where == "off"].append(token)
    elif what == "sabotage":
        g.sabotage = None if args[0] == "none" else args[0]
    elif what == "suspicion":
        g.suspicion = args[0]
    elif what == "event_cubes":
        g.event_cubes = args[0]
    elif what == "final_cubes":
        g.final_cubes = args[0]
    elif what == "commander":
        set_commander(g, ctx, args[0])  # the old commander's die goes back to the pool
    elif what == "quarantine":
        g.seats[args[0]].quarantined = args[1] == "on"
        if args[1] == "on":
            unclear(g, ctx, args[0], "quarantined")  # Shadow Corporation (ESOG)
        over_limit(g, args[0])
    elif what == "die_tokens":
        g.seats[args[0]].die_tokens = args[1]
        over_limit(g, args[0])
    elif what == "lost_dice":
        colour, n = args
        g.pool[colour] -= n - g.lost[colour]
        g.lost[colour] = n
    elif what == "event":
        take_event_card(g, args[0])
        if g.event:
            g.event_deck.insert(0, g.event)  # the card it replaces goes to the bottom
        g.event, g.event_cubes = args[0], 0
    elif what == "clearance":
        (g.clearances.append if args[1] == "on" else g.clearances.remove)(args[0])
    elif what == "amputation":
        g.seats[args[0]].amputated = args[1] == "on"
        over_limit(g, args[0])
    elif what == "evacuation":
        g.evacuation = args[0]
    elif what == "completed":
        if args[1] == "on":
            take_event_card(g, args[0])
            g.completed_events.append(args[0])
        else:
            g.completed_events.remove(args[0])
            g.event_deck.insert(0, args[0])
    if what in (SHIELD, OUTPOST, FATIGUE):
        check_loss(g, ctx, what)

