"""Dice: taking from the pool, discarding, private rolls and public submissions."""
from __future__ import annotations

from itertools import combinations

from .data import COMMANDER, STRONG, WEAK
from .engine import Ctx, Rules, ask
from .state import Game

RULES = Rules()

COLOURS = (STRONG, WEAK, COMMANDER)


def strong_takeable(g: Game, seat: int) -> int:
    """Food Rationing: strong dice stay in the pool unless more than one per player are
    there; revealed Infected are exempt (RB card notes)."""
    if g.current_event_is("food_rationing") and not g.seats[seat].revealed:
        return max(0, g.pool[STRONG] - g.players)
    return g.pool[STRONG]


def take_options(g: Game, seat: int, want: int, exact: bool) -> list[tuple]:
    room = max(0, g.die_limit(seat) - g.seats[seat].held)
    strong, weak = strong_takeable(g, seat), g.pool[WEAK]
    most = min(want, room, strong + weak)
    sizes = [most] if exact else range(most + 1)
    return [("take", s, n - s) for n in sizes for s in range(n + 1)
            if s <= strong and n - s <= weak]


# The retrievals the rulebook lists (RB Die Limits: "at the beginning of their turn, when
# passing during a Malfunction Task, when issued an order by another player, or when a
# completed Event card allows them to"); each brings the commander die to a commander who
# lacks it (facts §7). A character's one-die ability is not among them.
COMMANDER_DIE_COMES_WITH = ("turn", "pass", "order", "restore_comm")


@RULES.step("retrieve")
def retrieve(g: Game, ctx: Ctx, seat: int, want: int, exact: bool, reason: str) -> None:
    """Take dice from the available pool, never past the die limit."""
    if reason in COMMANDER_DIE_COMES_WITH:
        take_commander_die(g, ctx, seat)
    options = take_options(g, seat, want, exact)
    # When there is nothing to take, the log names why (RB Die Limits), not just "one choice".
    rule = ("only_choice" if options != [("take", 0, 0)]
            else "at_die_limit" if want == 0 or g.seats[seat].held >= g.die_limit(seat)
            else "pool_empty")
    ask(g, ctx, "take_dice", {seat: options}, {"reason": reason}, rule=rule)


@RULES.answer("take_dice")
def take_dice(g: Game, ctx: Ctx, seat: int, option: tuple, data: dict) -> None:
    _, strong, weak = option
    move_to_seat(g, seat, STRONG, strong)
    move_to_seat(g, seat, WEAK, weak)
    ctx.fact("took_dice", seat=seat, strong=strong, weak=weak, reason=data["reason"])


def take_commander_die(g: Game, ctx: Ctx, seat: int) -> None:
    """Only the commander may retrieve the commander die, and it is outside the die limit."""
    if seat == g.commander and g.pool[COMMANDER]:
        move_to_seat(g, seat, COMMANDER, 1)
        ctx.fact("took_commander_die", seat=seat)


def move_to_seat(g: Game, seat: int, colour: str, n: int) -> None:
    g.pool[colour] -= n
    g.seats[seat].dice[colour] += n
    assert g.pool[colour] >= 0


def move_to_pool(g: Game, seat: int, colour: str, n: int) -> None:
    s = g.seats[seat]
    s.dice[colour] -= n
    g.pool[colour] += n
    assert s.dice[colour] >= 0
    if n:  # a discarded die is no longer part of any roll in progress
        s.rolled = []


def discard_options(g: Game, seat: int, n: int, commander_die: bool) -> list[tuple]:
    d = g.seats[seat].dice
    c_max = d[COMMANDER] if commander_die else 0
    n = min(n, d[STRONG] + d[WEAK] + c_max)
    return [("discard", s, w, c) for c in range(c_max + 1) for s in range(n - c + 1)
            for w in [n - c - s] if s <= d[STRONG] and 0 <= w <= d[WEAK]]


@RULES.step("discard_excess")
def discard_excess(g: Game, ctx: Ctx, seat: int) -> None:
    """A lowered die limit sends the excess dice to the pool, the owner choosing which."""
    excess = g.seats[seat].held - g.die_limit(seat)
    if excess > 0:
        ask(g, ctx, "discard", {seat: discard_options(g, seat, excess, False)},
            {"reason": "die_limit"})


@RULES.step("discard_dice")
def discard_dice(g: Game, ctx: Ctx, seat: int, count: int, reason: str) -> None:
    options = discard_options(g, seat, count, True)
    if options and options[0] != ("discard", 0, 0, 0):
        ask(g, ctx, "discard", {seat: options}, {"reason": reason})
    else:
        ctx.fact("ruled", rule="no_dice_to_discard", seat=seat)


@RULES.answer("discard")
def discard(g: Game, ctx: Ctx, seat: int, option: tuple, data: dict) -> None:
    _, strong, weak, commander = option
    for colour, n in ((STRONG, strong), (WEAK, weak), (COMMANDER, commander)):
        move_to_pool(g, seat, colour, n)
    ctx.fact("discarded_dice", seat=seat, strong=strong, weak=weak, commander=commander,
             reason=data["reason"])


def discard_all(g: Game, ctx: Ctx, seat: int, reason: str) -> None:
    d = g.seats[seat].dice
    counts = {c: d[c] for c in COLOURS}
    for colour, n in counts.items():
        move_to_pool(g, seat, colour, n)
    ctx.fact("discarded_dice", seat=seat, reason=reason, **counts)


def roll(g: Game, ctx: Ctx, seat: int, counts: dict) -> None:
    """A private roll: only the owner sees the faces until they submit some."""
    s = g.seats[seat]
    s.rolled = [(colour, ctx.chance.roll(colour))
                for colour in COLOURS for _ in range(counts.get(colour, 0))]
    ctx.fact("rolled", to=[seat], seat=seat, dice=[list(d) for d in s.rolled])


def roll_all(g: Game, ctx: Ctx, seat: int) -> None:
    roll(g, ctx, seat, dict(g.seats[seat].dice))


def roll_choice_options(g: Game, seat: int, least: int, most: int = 3,
                        weak_only: bool = False) -> list[tuple]:
    """Which dice to roll when an action says "roll up to three"."""
    d = g.seats[seat].dice
    options = []
    for c in range((0 if weak_only else min(1, d[COMMANDER])) + 1):
        for s in range((0 if weak_only else min(most, d[STRONG])) + 1):
            for w in range(min(most, d[WEAK]) + 1):
                if least <= s + w + c <= most:
                    options.append(("roll", s, w, c))
    return options


def submit_options(rolled: list, least: int, most: int) -> list[tuple]:
    """Subsets of the roll to submit. Identical dice give one option, not several: the first
    subset (in combinations' order) with those dice."""
    n = len(rolled)
    sizes = range(least, min(most, n) + 1)
    kinds = sorted(set(rolled))
    if len(kinds) == n:  # no two dice alike: every subset is an option
        return [("submit",) + idx for size in sizes for idx in combinations(range(n), size)]
    # Each kind of die is a digit in base n + 1, so a subset's sum of weights counts how many
    # of each kind it holds: the same dice give the same sum, without sorting every subset
    # (this ran on every roll, and was most of the slowest commands).
    place = {kind: (n + 1) ** i for i, kind in enumerate(kinds)}
    weight = [place[die] for die in rolled]
    seen, options = set(), []
    for size in sizes:
        for idx in combinations(range(n), size):
            key = sum([weight[i] for i in idx])
            if key not in seen:
                seen.add(key)
                options.append(("submit",) + idx)
    return options


def submit(g: Game, ctx: Ctx, seat: int, indices: tuple, reason: str) -> list[int]:
    """Move the chosen rolled dice to Spent Resources, in public; the rest go back behind
    the screen unseen."""
    s = g.seats[seat]
    chosen = [s.rolled[i] for i in indices]
    for colour, _ in chosen:
        s.dice[colour] -= 1
        g.spent[colour] += 1
    s.rolled = []
    ctx.fact("submitted", seat=seat, dice=[list(d) for d in chosen], reason=reason)
    return [face for _, face in chosen]


def spent_to_pool(g: Game) -> None:
    """After an action or task resolves, spent dice become available again (RB)."""
    for colour in COLOURS:
        g.pool[colour] += g.spent[colour]
        g.spent[colour] = 0


def any_die_face(g: Game, ctx: Ctx, seat: int) -> int | None:
    """Roll "any die": one from the board if there is one, else one of `seat`'s own, which
    is not submitted (RB Testing the shield). Every colour has the same negative faces."""
    for colour in COLOURS:
        if g.pool[colour] or g.spent[colour]:
            return ctx.chance.roll(colour)
    for s in [g.seats[seat]] + g.seats:
        for colour in COLOURS:
            if s.dice[colour]:
                return ctx.chance.roll(colour)
    return None
