"""Votes, quarantine and the commander card."""
from __future__ import annotations

from .data import STRONG, WEAK
from .dice import move_to_pool
from .engine import HOOKS, SETTLE, Ctx, Rules, ask, push
from .state import Game

RULES = Rules()

QUARANTINE, FREE = "quarantine", "free"
# Each kind of vote (Shadow Corporation adds three): what a majority of red weak dice
# decides, then what a majority of black strong dice decides (ESOG Call a vote).
RESULTS = {QUARANTINE: (QUARANTINE, FREE), "amputation": ("amputate", "spare"),
           "clearance": ("deny", "clear"), "takeoff": ("stay", "take_off")}
# What the expansion's votes do is the engine's SETTLE table (shadow.py registers it).


def ballot_options(g: Game, seat: int) -> list[tuple]:
    """A closed fist holds a strong die, a weak die or nothing; never the commander die."""
    d = g.seats[seat].dice
    return [(c,) for c in (STRONG, WEAK) if d[c]] + [("abstain",)]


@RULES.step("vote")
def vote(g: Game, ctx: Ctx, target: int | None, caller: int | None,
         kind: str = QUARANTINE) -> None:
    # A quarantine vote's facts and data keep the base game's shape; the others say their kind.
    if kind == QUARANTINE:
        named = {}
        ctx.fact("vote_called", target=target, caller=caller)
    else:
        named = {"kind": kind}
        ctx.fact("vote_called", target=target, caller=caller, kind=kind)
    lincoln = lincoln_decides(g) if kind == "clearance" else None
    if lincoln is not None:
        ask(g, ctx, "lincoln", {lincoln: [("decide", "clear"), ("decide", "deny"), ("count",)]},
            {"target": target, "caller": caller, "kind": kind})
        return
    ballots(g, ctx, {"target": target, "caller": caller, **named})


def lincoln_decides(g: Game) -> int | None:
    """The seat of a Lincoln who may still decide a clearance vote himself (facts §4)."""
    if g.lincoln_used:
        return None
    return next((i for i, s in enumerate(g.seats) if g.ability(i, "lincoln")), None)


@RULES.answer("lincoln")
def lincoln(g: Game, ctx: Ctx, seat: int, option: tuple, data: dict) -> None:
    if option == ("count",):
        ballots(g, ctx, data)
        return
    g.lincoln_used = True
    ctx.fact("lincoln_decided", seat=seat, target=data["target"], result=option[1])
    settle(g, ctx, data["target"], data["caller"], option[1], data["kind"])


def ballots(g: Game, ctx: Ctx, data: dict) -> None:
    voters = g.players_in_game()  # revealed Infected no longer vote (RB)
    # Every voter is asked, one with no die to show too (its only option: abstain): what a
    # seat holds is its own (RB Rolling & submitting dice), and an empty fist is held out
    # like the others. A seat that has voted may vote again until the last vote is in (the
    # closed fist: engine.apply_command).
    ask(g, ctx, "vote", {v: ballot_options(g, v) for v in voters}, data, simultaneous=True)


def spends_ballots(g: Game) -> bool:
    """Expensive Voting (every kind of vote, facts §8b.9) and Vote Tampering send the dice
    shown to the pool."""
    return g.has("expensive_voting") or g.current_event_is("vote_tampering")


@RULES.answer("vote")
def count_ballots(g: Game, ctx: Ctx, ballots: dict, data: dict) -> None:
    shown = {seat: option[0] for seat, option in sorted(ballots.items())}
    strong = sum(1 for c in shown.values() if c == STRONG)
    weak = sum(1 for c in shown.values() if c == WEAK)
    kind = data.get("kind", QUARANTINE)
    if kind == QUARANTINE:
        ctx.fact("vote_revealed", target=data["target"], ballots=shown,
                 release=strong, quarantine=weak)
    else:
        ctx.fact("vote_revealed", target=data["target"], ballots=shown, kind=kind,
                 strong=strong, weak=weak)
    for hook in HOOKS["ballots_shown"]:  # the Threats: a vote that meets a threat card
        hook(g, ctx, data, shown)
    if spends_ballots(g):
        for seat, colour in shown.items():
            if colour in (STRONG, WEAK):
                move_to_pool(g, seat, colour, 1)
    on_weak, on_strong = RESULTS[kind]
    if strong == weak:
        ask(g, ctx, "tie_break", {g.commander: [(on_weak,), (on_strong,)]}, data)
    else:
        settle(g, ctx, data["target"], data["caller"], on_weak if weak > strong else on_strong,
               kind)


@RULES.answer("tie_break")
def tie_break(g: Game, ctx: Ctx, seat: int, option: tuple, data: dict) -> None:
    ctx.fact("tie_broken", seat=seat, result=option[0])
    settle(g, ctx, data["target"], data["caller"], option[0], data.get("kind", QUARANTINE))


def settle(g: Game, ctx: Ctx, target: int | None, caller: int | None, result: str,
           kind: str = QUARANTINE) -> None:
    g.last_vote = {"target": target, "result": result}
    ctx.fact("vote_result", target=target, result=result)
    if kind != QUARANTINE:
        SETTLE[kind](g, ctx, target, result)
        return
    quarantined = g.seats[target].quarantined
    if result == QUARANTINE and not quarantined:
        quarantine(g, ctx, target, caller)
    elif result == FREE and quarantined:
        release(g, ctx, target)


def quarantine(g: Game, ctx: Ctx, target: int, caller: int | None) -> None:
    g.seats[target].quarantined = True
    ctx.fact("quarantined", seat=target)
    unclear(g, ctx, target, "quarantined")
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


@RULES.step("ask_vote_target")
def ask_vote_target(g: Game, ctx: Ctx, seat: int, purpose: str) -> None:
    """Forced votes (suspicion, Mandatory Quarantine) may target anyone not revealed,
    including the caller and players already in quarantine."""
    targets = [("target", t) for t in g.players_in_game()]
    ask(g, ctx, "vote_target", {seat: targets}, {"purpose": purpose})


@RULES.answer("vote_target")
def vote_target(g: Game, ctx: Ctx, seat: int, option: tuple, data: dict) -> None:
    kind = {"kind": data["kind"]} if "kind" in data else {}  # Shadow Corporation's cards
    push(g, ("vote", {"target": option[1], "caller": seat, **kind}))




def unclear(g: Game, ctx: Ctx, seat: int, reason: str) -> None:
    """A quarantined or revealed player's clearance token goes back to the pool (ESOG Vote
    for clearance; facts §8b.6)."""
    if seat in g.clearances:
        g.clearances.remove(seat)
        ctx.fact("clearance_lost", seat=seat, reason=reason)
