"""Shadow Corporation's cards: its events, final events, two complications and the Clearance
infection power (facts §5, §6a-6c; their rulings in §8b)."""
from __future__ import annotations

from .complications import fail, succeed
from .data import FATIGUE, OUTPOST
from .engine import Ctx, Rules, ask, push
from .shadow import amputate, amputation_targets, board_full, clear, clearance_targets
from .state import Game
from .votes import unclear

RULES = Rules()


def eligible_for_clearance(g: Game) -> list[int]:
    """Who may be given a clearance token now: not cleared yet, not in quarantine, not
    revealed, with a free seat on the board."""
    if not g.evacuating() or board_full(g):
        return []
    return [s for s in clearance_targets(g) if s not in g.clearances]


# --- events ---

@RULES.event("accelerated_evac")
def accelerated_evac(g: Game, ctx: Ctx) -> None:
    """The commander grants clearance to one eligible player."""
    options = [("player", s) for s in eligible_for_clearance(g)]
    if options:
        ask(g, ctx, "grant_clearance", {g.commander: options}, {"card": "accelerated_evac"})
    else:
        ctx.fact("ruled", rule="nobody_to_clear", seat=g.commander)


@RULES.answer("grant_clearance")
def grant_clearance(g: Game, ctx: Ctx, seat: int, option: tuple, data: dict) -> None:
    clear(g, ctx, option[1], data["card"])


@RULES.event("accident")
def accident(g: Game, ctx: Ctx) -> None:
    """The commander amputates a player who still has both arms."""
    options = [("player", s) for s in amputation_targets(g, None)]
    if options:
        ask(g, ctx, "accident", {g.commander: options}, {})
    else:
        ctx.fact("ruled", rule="nobody_to_amputate", seat=g.commander)


@RULES.answer("accident")
def accident_victim(g: Game, ctx: Ctx, seat: int, option: tuple, data: dict) -> None:
    amputate(g, ctx, option[1], "accident")


@RULES.event("electrical_fire")
def electrical_fire(g: Game, ctx: Ctx) -> None:
    amputate(g, ctx, g.active, "electrical_fire")


@RULES.step("explosion")
def explosion(g: Game, ctx: Ctx, seat: int) -> None:
    amputate(g, ctx, seat, "explosions")


@RULES.event("evac_lottery")
def evac_lottery(g: Game, ctx: Ctx) -> None:
    """Every clearance is removed, then as many are given again at random."""
    if not g.evacuating():
        ctx.fact("ruled", rule="evacuation_recalled", seat=g.commander)
        return
    n = len(g.clearances)
    for seat in list(g.clearances):
        unclear(g, ctx, seat, "evac_lottery")
    for seat in ctx.chance.shuffle(eligible_for_clearance(g))[:n]:
        clear(g, ctx, seat, "evac_lottery")


@RULES.event("hold_trials")
def hold_trials(g: Game, ctx: Ctx) -> None:
    push(g, ("trial", {"left": ["amputation", "quarantine", "clearance"]}))


TRIAL_OPTION = {"amputation": "amputate", "quarantine": "vote", "clearance": "clearance"}


@RULES.step("trial")
def trial(g: Game, ctx: Ctx, left: list) -> None:
    """The commander holds an amputation, a quarantine and a clearance vote, in the order
    they choose; a vote with nobody to vote on is skipped."""
    targets = {"amputation": amputation_targets(g, g.commander),
               "quarantine": g.players_in_game(), "clearance": clearance_targets(g)}
    options = [(TRIAL_OPTION[kind], t) for kind in left for t in targets[kind]]
    if options:
        ask(g, ctx, "trial", {g.commander: options}, {"left": left})
    elif left:
        ctx.fact("ruled", rule="no_trial_left", seat=g.commander)


@RULES.answer("trial")
def trial_chosen(g: Game, ctx: Ctx, seat: int, option: tuple, data: dict) -> None:
    kind = next(k for k, o in TRIAL_OPTION.items() if o == option[0])
    push(g, ("vote", {"target": option[1], "caller": seat, "kind": kind}),
         ("trial", {"left": [k for k in data["left"] if k != kind]}))


@RULES.event("corporate_bribery")
@RULES.event("corporate_raid")
@RULES.event("electrical_storm")
@RULES.event("vote_tampering")
@RULES.event("risk_assessment")  # the next event's extra cube: events.next_event
@RULES.event("explosions")
@RULES.event("toxic_gas")  # at the final event's start: events.start_final
def while_current(g: Game, ctx: Ctx) -> None:
    """These act while they are the current event, at its start or through the next one."""


# --- complications ---

# Each complication's vote and its penalty: Cut It Off! "Hold an amputation vote. If the
# player is not amputated, draw 1 outpost token and the task fails."; Vote for Clearance
# "Hold a clearance vote. Denial draws 1 fatigue token and the task fails." (facts §6c)
VOTED = {"cut_it_off": ("amputation", OUTPOST), "vote_for_clearance": ("clearance", FATIGUE)}


@RULES.complication("cut_it_off")
@RULES.complication("vote_for_clearance")
def voted_complication(g: Game, ctx: Ctx, card: str) -> None:
    kind, penalty = VOTED[card]
    amputation = kind == "amputation"
    targets = amputation_targets(g, g.active) if amputation else clearance_targets(g)
    if not targets:  # nobody amputated, nobody cleared: the failure the card names
        ctx.fact("ruled", rule="nobody_to_amputate" if amputation else "nobody_to_clear",
                 seat=g.active, card=card)
        fail(g, ctx, penalty)
        return
    ask(g, ctx, "vote_target", {g.active: [("target", t) for t in targets]},
        {"purpose": card, "kind": kind})
    # Runs after the vote the target's answer calls, asked or named by the rules (engine.ask).
    push(g, ("voted_complication_result", {"card": card}))


@RULES.step("voted_complication_result")
def voted_complication_result(g: Game, ctx: Ctx, card: str) -> None:
    kind, penalty = VOTED[card]
    vote = g.last_vote
    passed = (g.seats[vote["target"]].amputated if kind == "amputation"
              else vote["result"] == "clear")
    if passed:
        succeed(g, ctx)
    else:
        fail(g, ctx, penalty)


# --- the Clearance infection power (facts §5) ---

@RULES.power("infected_clearance")
def clearance_power(g: Game, ctx: Ctx, seat: int) -> None:
    """Grant clearance to one uncleared player not in quarantine, or revoke one; nothing
    once the ship has been recalled."""
    options = [("grant", s) for s in eligible_for_clearance(g)]
    options += [("revoke", s) for s in g.clearances]
    if not options:
        ctx.fact("ruled", rule="clearance_power_void", seat=seat)
        return
    ask(g, ctx, "clearance_power", {seat: options}, {})


@RULES.answer("clearance_power")
def clearance_power_used(g: Game, ctx: Ctx, seat: int, option: tuple, data: dict) -> None:
    if option[0] == "grant":
        clear(g, ctx, option[1], "infection_power")
    else:
        unclear(g, ctx, option[1], "infection_power")

