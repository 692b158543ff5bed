"""Complication tasks: each asks for a choice, and the choice decides success (RB Task cards)."""
from __future__ import annotations

from .damage import ask_damage_kind, damage, short_of_a_loss, token_options
from .data import DAMAGE_KINDS, FATIGUE, OUTPOST, SHIELD
from .engine import COMPLICATIONS, Ctx, Rules, ask, push
from .state import Game
from .votes import set_commander

RULES = Rules()

AGREE, REFUSE = ("agree",), ("refuse",)


@RULES.step("complication")
def complication(g: Game, ctx: Ctx, card: str) -> None:
    ctx.fact("complication", card=card)
    COMPLICATIONS[card.removesuffix("_outpost").removesuffix("_shield")](g, ctx, card)


def succeed(g: Game, ctx: Ctx) -> None:
    g.task.success = True


def fail(g: Game, ctx: Ctx, kind: str) -> None:
    g.task.success = False
    damage(g, ctx, kind, 1)


def others(g: Game, seat: int) -> list[int]:
    return [s for s in g.players_in_game() if s != seat]


@RULES.complication("acceptable_loss")
def acceptable_loss(g: Game, ctx: Ctx, card: str) -> None:
    succeed(g, ctx)  # drawing the token is not optional, so the task always succeeds
    # A sixth token is never offered: an Infected active player would win with a card the
    # Uninfected drew. With every kind at five, nothing is drawn (facts §6c).
    kinds = short_of_a_loss(g, DAMAGE_KINDS)
    if kinds:
        ask_damage_kind(g, ctx, g.active, kinds, card)
    else:
        ctx.fact("damage_declined", seat=g.active, reason=card)


def ask_target(g: Game, ctx: Ctx, card: str, candidates: list[int], on_none,
               rule: str = "nobody_to_choose") -> None:
    if not candidates:
        ctx.fact("ruled", rule=rule, seat=g.active, card=card)
        on_none()
        return
    ask(g, ctx, "choose_player", {g.active: [("player", s) for s in candidates]},
        {"card": card})


@RULES.complication("act_of_trust")
def act_of_trust(g: Game, ctx: Ctx, card: str) -> None:
    refusal = OUTPOST if card == "act_of_trust_outpost" else SHIELD
    ask_target(g, ctx, card, others(g, g.active), lambda: fail(g, ctx, refusal))


@RULES.complication("voluntary_blood_testing")
def voluntary_blood_testing(g: Game, ctx: Ctx, card: str) -> None:
    ask_target(g, ctx, card, others(g, g.active), lambda: fail(g, ctx, OUTPOST))


@RULES.complication("failure_to_lead")
def failure_to_lead(g: Game, ctx: Ctx, card: str) -> None:
    # Anyone free and not revealed but the commander; nobody at all: the task succeeds
    # (facts §8 q2).
    nominees = [s for s in g.players_in_game()
                if s != g.commander and not g.seats[s].quarantined]
    ask_target(g, ctx, card, nominees, lambda: succeed(g, ctx), rule="nobody_to_lead")


@RULES.complication("mandatory_quarantine")
def mandatory_quarantine(g: Game, ctx: Ctx, card: str) -> None:
    push(g, ("ask_vote_target", {"seat": g.active, "purpose": card}),
         ("mandatory_quarantine_result", {}))


@RULES.step("mandatory_quarantine_result")
def mandatory_quarantine_result(g: Game, ctx: Ctx) -> None:
    target = g.last_vote["target"]
    if g.seats[target].quarantined:
        succeed(g, ctx)
    else:
        fail(g, ctx, FATIGUE)


@RULES.complication("strategic_compromise")
def strategic_compromise(g: Game, ctx: Ctx, card: str) -> None:
    succeed(g, ctx)  # the draws are not optional, so the task always succeeds
    push(g, ("compromise_remove", {}), ("compromise_draw", {"left": 2, "shield": False}))


@RULES.step("compromise_remove")
def compromise_remove(g: Game, ctx: Ctx) -> None:
    options = token_options(g)
    if options:
        ask(g, ctx, "remove_token", {g.active: options}, {})
    else:
        ctx.fact("ruled", rule="nothing_to_remove", seat=g.active, card="strategic_compromise")


@RULES.step("compromise_draw")
def compromise_draw(g: Game, ctx: Ctx, left: int, shield: bool) -> None:
    if left == 0:
        if shield:  # one shield test after both tokens (facts §8 q3)
            push(g, ("shield_test", {}))
        return
    kinds = short_of_a_loss(g, DAMAGE_KINDS)  # never a sixth token, as Acceptable Loss
    if not kinds:
        ctx.fact("damage_declined", seat=g.active, reason="strategic_compromise")
        push(g, ("compromise_draw", {"left": 0, "shield": shield}))
        return
    ask(g, ctx, "compromise_kind", {g.active: [(k,) for k in kinds]},
        {"left": left, "shield": shield})


@RULES.answer("compromise_kind")
def compromise_kind(g: Game, ctx: Ctx, seat: int, option: tuple, data: dict) -> None:
    kind = option[0]
    ctx.fact("damage_chosen", seat=seat, kind=kind, reason="strategic_compromise")
    damage(g, ctx, kind, 1, test=False)
    push(g, ("compromise_draw", {"left": data["left"] - 1,
                                 "shield": data["shield"] or kind == SHIELD}))


@RULES.answer("choose_player")
def choose_player(g: Game, ctx: Ctx, seat: int, option: tuple, data: dict) -> None:
    card, target = data["card"], option[1]
    ctx.fact("player_chosen", seat=seat, target=target, card=card)
    # Failure to Lead asks the commander; the other two ask the chosen player.
    asked = g.commander if card == "failure_to_lead" else target
    ask(g, ctx, "agree", {asked: [AGREE, REFUSE]}, {"card": card, "target": target},
        auto=False)


@RULES.answer("agree")
def agree(g: Game, ctx: Ctx, seat: int, option: tuple, data: dict) -> None:
    card, target, active = data["card"], data["target"], g.active
    ctx.fact("agreed" if option == AGREE else "refused", seat=seat, card=card)
    if option == REFUSE:
        fail(g, ctx, {"act_of_trust_outpost": OUTPOST, "act_of_trust_shield": SHIELD,
                      "voluntary_blood_testing": OUTPOST, "failure_to_lead": SHIELD}[card])
        return
    succeed(g, ctx)
    if card.startswith("act_of_trust"):
        g.seats[target].die_tokens -= 1
        g.seats[active].die_tokens += 1
        ctx.fact("die_tokens", seat=target, change=-1)
        ctx.fact("die_tokens", seat=active, change=1)
        push(g, ("discard_excess", {"seat": target}))
    elif card == "voluntary_blood_testing":
        # Only the active player sees the card (kept secret from everyone else).
        ctx.fact("status_shown", to=[active], seat=target, status=g.seats[target].status)
    else:
        set_commander(g, ctx, target)

