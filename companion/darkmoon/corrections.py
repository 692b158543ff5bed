"""Host corrections: when the physical board and the app disagree, the host sets a public
counter or token to what the table shows. Each correction is a logged command."""
from __future__ import annotations

from .damage import check_loss
from .data import (AREAS, EVENTS, FATIGUE, FATIGUE_TOKENS, FINAL_EVENTS, OUTPOST,
                   OUTPOST_TOKENS, SHIELD, SUSPICION_VOTE, TOKENS_TO_LOSE)
from .engine import Ctx
from .errors import IllegalOption, MalformedCommand
from .state import Game

HOST = "host"
# Decisions whose options name damage tokens where they are now.
TOKEN_DECISIONS = ("remove_token", "bonus", "power_token")


def check_correction(g: Game, option: tuple) -> None:
    """Refuse a correction that names no public counter or an impossible value."""
    what = option[0] if option else None
    args = option[1:]
    if what in (SHIELD, OUTPOST, FATIGUE) and g.pending is not None \
            and g.pending.kind in TOKEN_DECISIONS:
        # Its options name tokens on the board (or in a pile): moving them now would leave
        # an option that removes a token that is not there.
        raise IllegalOption(f"answer the pending '{g.pending.kind}' decision first: it is "
                            "about the damage tokens")
    if what == SHIELD and len(args) == 1 and args[0] in range(TOKENS_TO_LOSE + 1):
        return
    if what in (OUTPOST, FATIGUE) and len(args) == 2 and args[1] in ("on", "off"):
        tokens = OUTPOST_TOKENS if what == OUTPOST else FATIGUE_TOKENS
        board = g.outpost_board if what == OUTPOST else g.fatigue_board
        if args[0] not in tokens:
            raise IllegalOption(f"there is no {what} token {args[0]!r}")
        if (args[1] == "on") == (args[0] in board):
            raise IllegalOption(f"{args[0]} is already {'on' if args[1] == 'on' else 'off'} "
                                "the board")
        return
    if what == "sabotage" and len(args) == 1 and args[0] in AREAS + ("none",):
        return
    if what == "suspicion" and len(args) == 1:
        if g.suspicion is None:
            raise IllegalOption("the suspicion cube has left the game")
        if args[0] in range(1, SUSPICION_VOTE):
            return
    if what == "event_cubes" and len(args) == 1 and g.event and not g.final_active:
        if args[0] in range(EVENTS[g.event].cubes):
            return
    if what == "final_cubes" and len(args) == 1:
        if args[0] in range(FINAL_EVENTS[g.final_event].cubes):
            return
    raise MalformedCommand(
        "a correction is one of: [shield, 0-6], [outpost|fatigue, TOKEN, on|off], "
        "[sabotage, AREA|none], [suspicion, 1-3], [event_cubes, N], [final_cubes, N]")


def apply_correction(g: Game, ctx: Ctx, option: tuple) -> None:
    what, *args = option
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
    ctx.fact("corrected", what=what, to_value=list(args))
    if what in (SHIELD, OUTPOST, FATIGUE):
        check_loss(g, ctx, what)
