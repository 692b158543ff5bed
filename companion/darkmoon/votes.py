"""Votes, quarantine and the commander card."""
from __future__ import annotations

from .data import STRONG, WEAK
from .dice import move_to_pool
from .engine import Ctx, answer, ask, push, step
from .state import Game

QUARANTINE, FREE = "quarantine", "free"


def ballot_options(g: Game, seat: int) -> list[tuple]:
    """A closed fist holds a strong die, a weak die or nothing; never the commander die."""
    d = g.seats[seat].dice
    return [(c,) for c in (STRONG, WEAK) if d[c]] + [("abstain",)]


@step("vote")
def vote(g: Game, ctx: Ctx, target: int, caller: int | None) -> None:
    ctx.fact("vote_called", target=target, caller=caller)
    voters = g.players_in_game()  # revealed Infected no longer vote (RB)
    ask(g, ctx, "vote", {v: ballot_options(g, v) for v in voters},
        {"target": target, "caller": caller}, simultaneous=True)


@answer("vote")
def count_ballots(g: Game, ctx: Ctx, ballots: dict, data: dict) -> None:
    shown = {seat: option[0] for seat, option in sorted(ballots.items())}
    strong = sum(1 for c in shown.values() if c == STRONG)
    weak = sum(1 for c in shown.values() if c == WEAK)
    ctx.fact("vote_revealed", target=data["target"], ballots=shown,
             release=strong, quarantine=weak)
    if g.has("expensive_voting"):
        for seat, colour in shown.items():
            if colour in (STRONG, WEAK):
                move_to_pool(g, seat, colour, 1)
    if strong == weak:
        ask(g, ctx, "tie_break", {g.commander: [(QUARANTINE,), (FREE,)]}, data)
    else:
        settle(g, ctx, data["target"], data["caller"], QUARANTINE if weak > strong else FREE)


@answer("tie_break")
def tie_break(g: Game, ctx: Ctx, seat: int, option: tuple, data: dict) -> None:
    ctx.fact("tie_broken", seat=seat, result=option[0])
    settle(g, ctx, data["target"], data["caller"], option[0])


def settle(g: Game, ctx: Ctx, target: int, caller: int | None, result: str) -> None:
    g.last_vote = {"target": target, "result": result}
    ctx.fact("vote_result", target=target, result=result)
    quarantined = g.seats[target].quarantined
    if result == QUARANTINE and not quarantined:
        quarantine(g, ctx, target, caller)
    elif result == FREE and quarantined:
        release(g, ctx, target)


def quarantine(g: Game, ctx: Ctx, target: int, caller: int | None) -> None:
    g.seats[target].quarantined = True
    ctx.fact("quarantined", seat=target)
    if target == g.commander:
        # The card goes to the caller, unless the caller is quarantined or is the commander
        # (RB Changing commanders); then to the first free player on the left.
        if caller is not None and caller != target and not g.seats[caller].quarantined:
            set_commander(g, ctx, caller)
        else:
            heir = first_left(g, target, free_only=True)
            if heir is not None:  # nobody free: the last quarantined keeps it (RB)
                set_commander(g, ctx, heir)
    push(g, ("discard_excess", {"seat": target}))


def release(g: Game, ctx: Ctx, target: int) -> None:
    g.seats[target].quarantined = False
    ctx.fact("released", seat=target)
    if g.seats[g.commander].quarantined:
        set_commander(g, ctx, target)  # the first released takes command (RB Quarantine)


def first_left(g: Game, seat: int, free_only: bool) -> int | None:
    for other in g.clockwise_from(seat)[1:]:
        s = g.seats[other]
        if not s.revealed and not (free_only and s.quarantined):
            return other
    return None


def set_commander(g: Game, ctx: Ctx, seat: int) -> None:
    old = g.commander
    if seat == old:
        return
    if g.seats[old].dice["commander"]:
        move_to_pool(g, old, "commander", 1)  # the die goes back when the card moves (RB)
    g.commander = seat
    ctx.fact("commander", seat=seat, previous=old)


@step("ask_vote_target")
def ask_vote_target(g: Game, ctx: Ctx, seat: int, purpose: str) -> None:
    """Forced votes (suspicion, Mandatory Quarantine) may target anyone not revealed,
    including the caller and players already in quarantine."""
    targets = [("target", t) for t in g.players_in_game()]
    ask(g, ctx, "vote_target", {seat: targets}, {"purpose": purpose})


@answer("vote_target")
def vote_target(g: Game, ctx: Ctx, seat: int, option: tuple, data: dict) -> None:
    push(g, ("vote", {"target": option[1], "caller": seat}))


