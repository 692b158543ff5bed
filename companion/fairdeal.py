"""The room's side of fair dealing (the procedure is companion/fair.py): the secret a lobby
commits to before any seat is claimed, the contributions the seats' phones give, the Fair a
game is dealt with, what everyone may see of it, and its record once the game is over.

A lobby's "fair" is {"secret": hex, "contributions": [hex or None per seat]}; it lives in the
room's stored record (secret, like the seat tokens) and is never shown: only its commitment.
"""
from __future__ import annotations

from .fair import (PHONE, PI, Fair, commitment, contribution, draw_contribution, draw_secret,
                   is_hex_32_bytes)
from .fair import fingerprint as short
from .refusals import BadRequest


def fair_view(table, lobby: dict | None, games_dealt: int) -> dict:
    """The commitment everyone sees (never the secret): the game's once dealt, before that
    the one the seats are giving to; `next`: the one the game after this will be dealt from."""
    pending = commitment(lobby["fair"]["secret"]) if lobby else None
    if table is not None:
        commit = table.fair.commitment if table.fair else None  # a seeded game: none
        upcoming = pending
    else:
        commit, upcoming = pending, None
    return {"commitment": commit, "fingerprint": commit and short(commit),
            "verifiable": commit is not None, "next": upcoming and short(upcoming),
            "game": table.game_id if table else None, "games_dealt": games_dealt}


def record_of(table) -> dict:
    """The record of a game over (on the writer thread: it reads the store)."""
    from .verify import record  # plays the whole game again: loaded when first asked for
    events = [e for records in table.store.load(table.game_id) for e in records]
    return record(table.game_id, table.store.meta(table.game_id), events)


def fresh_fair(players: int) -> dict:
    """A new secret to commit to, before any seat has given anything."""
    return {"secret": draw_secret(), "contributions": [None] * players}


def checked_contribution(given) -> str | None:
    """A phone's contribution as sent, or None if it sent none; BadRequest if malformed."""
    if given is None:
        return None
    try:
        return contribution(given)
    except ValueError as error:
        raise BadRequest(str(error)) from None


def add_contribution(lobby: dict, seat: int, given: str | None) -> None:
    """Into a new lobby (save, then change): a seat's first contribution stands."""
    pending = lobby["fair"]
    if given is not None and pending["contributions"][seat] is None:
        pending["contributions"][seat] = given


def kept_contributions(lobby: dict) -> dict:
    """A stored lobby's contributions as a claim takes them today: one given before they were
    held to 64 lowercase hex digits is dropped (the Pi gives for that seat), so no game is
    dealt from randomness its record could not be checked with."""
    given = lobby["fair"]["contributions"]
    if all(g is None or is_hex_32_bytes(g) for g in given):
        return lobby
    kept = [g if is_hex_32_bytes(g) else None for g in given]
    return {**lobby, "fair": {**lobby["fair"], "contributions": kept}}


def dealt_fair(lobby: dict) -> Fair:
    """What the lobby's game is dealt from: the Pi gives for every seat that gave nothing."""
    given = lobby["fair"]["contributions"]
    return Fair(lobby["fair"]["secret"], [g or draw_contribution() for g in given],
                [PHONE if g else PI for g in given])
