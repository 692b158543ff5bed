"""Damage tokens, shield tests and the Infected's three ways to win."""
from __future__ import annotations

from .data import COMPANY_MAN, EXTRA_DAMAGE, FATIGUE, OUTPOST, SHIELD, TOKENS_TO_LOSE
from .dice import any_die_face
from .engine import Ctx, Rules, ask, push
from .state import Game, Outcome, Side

RULES = Rules()


def count(g: Game, kind: str) -> int:
    if kind == SHIELD:
        return g.shield_tokens
    return len(g.outpost_board if kind == OUTPOST else g.fatigue_board)


def damage(g: Game, ctx: Ctx, kind: str, n: int, capped: bool = False,
           test: bool = True) -> None:
    """Place n tokens of a kind; shield damage is followed by a shield test (RB Testing the
    shield). `capped`: a completed Event stops just before a token would end the game."""
    n += extra_damage(g, kind)
    for _ in range(n):
        if g.outcome is not None:
            return
        if capped and count(g, kind) == TOKENS_TO_LOSE - 1:
            ctx.fact("damage_withheld", kind=kind)
            continue
        place_one(g, ctx, kind)
    if test and kind == SHIELD and n and g.outcome is None:
        push(g, ("shield_test", {}))


def short_of_a_loss(g: Game, kinds) -> list[str]:
    """The kinds whose next token would not be the sixth: the only ones a card may let a
    player choose when it must not hand the Infected the game (facts §6c)."""
    return [k for k in kinds if count(g, k) < TOKENS_TO_LOSE - 1]


def place_one(g: Game, ctx: Ctx, kind: str) -> None:
    if kind == SHIELD:
        g.shield_tokens += 1
        ctx.fact("shield_placed", total=g.shield_tokens)
        check_loss(g, ctx, kind)
    else:
        place_token(g, ctx, kind, ctx.chance.pick(pile_of(g, kind)))


def pile_of(g: Game, kind: str) -> list:
    return g.outpost_pile if kind == OUTPOST else g.fatigue_pile


def board_of(g: Game, kind: str) -> list:
    return g.outpost_board if kind == OUTPOST else g.fatigue_board


def place_token(g: Game, ctx: Ctx, kind: str, token: str) -> None:
    """Put a named outpost or fatigue token from its pile onto the board."""
    pile_of(g, kind).remove(token)
    board = board_of(g, kind)
    board.append(token)
    fatigued = (next((i for i, s in enumerate(g.seats)
                      if s.character == token and not s.revealed), None)
                if kind == FATIGUE else None)
    ctx.fact(f"{kind}_placed", token=token, total=len(board), seat=fatigued)
    check_loss(g, ctx, kind)


def extra_damage(g: Game, kind: str) -> int:
    """Await Rescue, Escape and Find Cure make every damage of one kind one token worse."""
    return 1 if g.final_active and EXTRA_DAMAGE.get(g.final_event) == kind else 0


def check_loss(g: Game, ctx: Ctx, kind: str) -> None:
    if count(g, kind) >= TOKENS_TO_LOSE:
        end_game(g, ctx, Side.INFECTED, kind)


def remove_token(g: Game, ctx: Ctx, kind: str, token: str | None = None) -> None:
    """Repairs take the farthest shield token, or a named outpost or fatigue token, which is
    shuffled back into its pile."""
    if kind == SHIELD:
        g.shield_tokens -= 1
        ctx.fact("shield_removed", total=g.shield_tokens)
        return
    board_of(g, kind).remove(token)
    pile_of(g, kind).append(token)
    ctx.fact(f"{kind}_removed", token=token, total=len(board_of(g, kind)))


def token_options(g: Game, kinds=(SHIELD, OUTPOST, FATIGUE)) -> list[tuple]:
    options = []
    for kind in kinds:
        if kind == SHIELD and g.shield_tokens:
            options.append((SHIELD,))
        elif kind == OUTPOST:
            options += [(OUTPOST, t) for t in sorted(g.outpost_board)]
        elif kind == FATIGUE:
            options += [(FATIGUE, t) for t in sorted(g.fatigue_board)]
    return options


def company_man_in_play(g: Game) -> bool:
    return any(s.status == COMPANY_MAN for s in g.seats)


def end_game(g: Game, ctx: Ctx, winner: Side, condition: str) -> None:
    if g.outcome is None:
        g.outcome = Outcome(str(winner), condition)
        ctx.fact("game_over", winner=g.outcome.winner, condition=condition)


def shield_fails(tokens: int, face: int) -> bool:
    """The failure condition is the first symbol the tokens leave visible (facts §2)."""
    if tokens == 2:
        return face == -1
    if tokens == 3:
        return face > 0
    if tokens == 4:
        return face == -2
    if tokens == 5:
        return face < 0
    return False  # 0 or 1 tokens: nothing to fail


@RULES.step("shield_test")
def shield_test(g: Game, ctx: Ctx) -> None:
    tokens = g.shield_tokens
    face = any_die_face(g, ctx, g.active) if tokens >= 2 else None
    failed = face is not None and shield_fails(tokens, face)
    ctx.fact("shield_test", tokens=tokens, face=face, failed=failed)
    if failed:
        ask_damage_kind(g, ctx, g.active, (OUTPOST, FATIGUE), "shield_test")


def ask_damage_kind(g: Game, ctx: Ctx, seat: int, kinds, reason: str, capped=False,
                    optional=False) -> None:
    options = [(k,) for k in kinds if count(g, k) < TOKENS_TO_LOSE]
    options += [("none",)] if optional else []
    ask(g, ctx, "damage_kind", {seat: options}, {"reason": reason, "capped": capped})


@RULES.answer("damage_kind")
def damage_kind(g: Game, ctx: Ctx, seat: int, option: tuple, data: dict) -> None:
    if option == ("none",):
        ctx.fact("damage_declined", seat=seat, reason=data["reason"])
        return
    ctx.fact("damage_chosen", seat=seat, kind=option[0], reason=data["reason"])
    damage(g, ctx, option[0], 1, capped=data["capped"])
