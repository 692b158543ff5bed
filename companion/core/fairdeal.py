"""The room's side of fair dealing (the procedure is companion/chance/fair.py): the secret a lobby
commits to before any seat is claimed, under the game's number on this box; the pledges the
seats' phones make to their values, and the values revealed once every pledge is public; the
Fair a game is dealt with; what everyone may see of it; and the records that may be revealed.

A lobby's "fair", in the room's stored record (secret, like the seat tokens):
{"format": 2, "game": N, "secret": hex, "commitment": hex, "pledges": [hex|None per seat],
 "values": [hex|None per seat], "revealing": bool}, and once a seat's phone was replaced
while revealing, "dropped": [seats] (their pledges stand, no reveal is awaited from them).
Only the commitment and the pledges are ever shown before the deal: never the secret, nor a
value.
"""
from __future__ import annotations

from ..chance.fair import (FILLER, PHONE, Fair, code, commitment, draw_secret, filler,
                   is_hex_32_bytes, pledge)
from .refusals import BadRequest, CommitmentChanged, NotReady, UnknownGame
from .store import UnknownGame as NoSuchGame

FORMAT = 2  # a lobby's fair as this version stores it


def fresh_fair(players: int, box: str, game: int) -> dict:
    """A new secret committed to under game number `game` of this box, before any pledge."""
    secret = draw_secret()
    return {"format": FORMAT, "game": game, "secret": secret,
            "commitment": commitment(box, game, secret), "pledges": [None] * players,
            "values": [None] * players, "revealing": False}


def is_current(fair: dict | None) -> bool:
    """A stored lobby's fair this version deals from: one of darkmoon-fair/1 (its phones'
    bytes were sent in the clear, its number bound to nothing) is drawn afresh."""
    return (isinstance(fair, dict) and fair.get("format") == FORMAT
            and "contributions" not in fair)


def hex32(value, name: str) -> str:
    if not is_hex_32_bytes(value):
        raise BadRequest(f"'{name}' is exactly 64 lowercase hex digits")
    return value


def checked_pledge(commit, promised) -> tuple[str, str] | None:
    """A claim's or a pledge's (commitment, pledge) as sent, or None when it sent neither;
    BadRequest if malformed (checked before the lock: nothing changes)."""
    if commit is None and promised is None:
        return None
    return hex32(commit, "commitment"), hex32(promised, "pledge")


def same_commitment(fair: dict, commit: str) -> None:
    """A phone pledges or reveals only to the commitment it saw: if another one is pending
    now (a new game was set up, a game was dealt meanwhile), it must look again."""
    if commit != fair["commitment"]:
        raise CommitmentChanged("the deal's commitment has changed: fetch the room again "
                                "and pledge to the new one")


def pledge_accepted(fair: dict, seat: int, promised: str) -> bool:
    """Whether the seat's pledge is new (True) or already the one it made (False). A seat's
    first pledge stands: a different one is refused, so a phone cannot be made to give new
    bytes by a refused answer. Pledges close when the reveal opens: every phone has seen
    them then, and a late one could be chosen knowing the others."""
    held = fair["pledges"][seat]
    if held == promised:
        return False
    if fair["revealing"]:
        raise NotReady("the pledges closed when the reveal opened: this seat gets its filler")
    if held is not None:
        raise BadRequest("this seat has already pledged other bytes for this deal: its first "
                         "pledge stands")
    return True


def with_pledge(fair: dict, seat: int, promised: str | None) -> dict:
    """A copy of `fair` with the seat's pledge (none added once the reveal is open)."""
    new = {**fair, "pledges": list(fair["pledges"])}
    if promised is not None and not fair["revealing"] and fair["pledges"][seat] is None:
        new["pledges"][seat] = promised
    return new


def cleared(fair: dict, seat: int) -> dict:
    """A copy of `fair` without what the seat's phone gave: a seat re-bound, handed over or
    left belongs to another phone now. Once the reveal is open every phone has seen the
    pledges: the pledge stays (the record shows it never revealed), the value goes, and the
    deal waits for no reveal from that seat ("dropped": no phone there knows its bytes)."""
    new = {**fair, "pledges": list(fair["pledges"]), "values": list(fair["values"])}
    new["values"][seat] = None
    if not fair["revealing"]:
        new["pledges"][seat] = None
    elif new["pledges"][seat] is not None:
        new["dropped"] = sorted(set(fair.get("dropped", [])) | {seat})
    return new


def revealed_value(fair: dict, seat: int, commit: str, value: str) -> bool:
    """Whether the seat's value is new (True) or already revealed (False); refused (nothing
    changed) before the reveal, for a seat that pledged nothing, or a value its pledge is
    not of."""
    same_commitment(fair, commit)
    if not fair["revealing"]:
        raise NotReady("the reveal opens when the host starts the game")
    promised = fair["pledges"][seat]
    if promised is None or seat in fair.get("dropped", ()):
        raise BadRequest("this seat pledged nothing for this deal: it gets its filler")
    if pledge(commit, value) != promised:
        raise BadRequest("these bytes are not the ones this seat pledged")
    return fair["values"][seat] is None


def all_revealed(fair: dict) -> bool:
    """Every seat the deal waits for has revealed (not a seat whose phone was replaced)."""
    dropped = fair.get("dropped", ())
    return all(v is not None for seat, (p, v) in enumerate(zip(fair["pledges"], fair["values"]))
               if p is not None and seat not in dropped)


def any_pledged(fair: dict) -> bool:
    return any(p is not None for p in fair["pledges"])


def dealt_fair(box: str, fair: dict) -> Fair:
    """What the lobby's game is dealt from: each seat's revealed value, else its filler (a
    bot, a phone that never pledged or never revealed: its pledge stays in the record)."""
    values, sources = [], []
    for seat, value in enumerate(fair["values"]):
        values.append(value if value is not None else filler(fair["secret"], seat))
        sources.append(PHONE if value is not None else FILLER)
    return Fair(box, fair["game"], fair["secret"], values, sources, list(fair["pledges"]))


def fair_view(table, lobby: dict | None, games_dealt: int, revealed: list[int],
              deal_in: float | None) -> dict:
    """What everyone sees (never the secret nor a value): the dealt game's commitment, and
    the pending one (the game being joined, or after the deal the next game's) with every
    seat's pledge."""
    dealt = table.fair if table is not None else None
    pending = None
    if lobby is not None:
        fair = lobby["fair"]
        pending = {"game": fair["game"], "commitment": fair["commitment"],
                   "code": code(fair["commitment"]), "revealing": fair["revealing"],
                   "deal_in": deal_in if fair["revealing"] else None,
                   "pledges": list(fair["pledges"])}
    return {"game": table.game_id if table is not None else None, "games_dealt": games_dealt,
            "verifiable": dealt is not None, "commitment": dealt and dealt.commitment,
            "code": dealt and code(dealt.commitment), "pending": pending,
            "revealed_games": list(revealed)}


def record_of(store, game_id: int) -> dict:
    """A stored game's record, secret included (on the writer thread: it reads the store and
    plays the whole game again). NotReady for a game with nothing to check."""
    from ..chance.verify import NotVerifiable, record  # loaded when first asked for
    try:
        meta = store.meta(game_id)
    except NoSuchGame:
        raise UnknownGame(f"no game {game_id} on this box") from None
    if not meta.get("fair"):
        raise NotReady("this game was dealt from a seed (a test or a demo): "
                       "it cannot be verified")
    events = [e for records in store.load(game_id) for e in records]
    try:
        return record(game_id, meta, events)
    except NotVerifiable as error:
        raise NotReady(str(error)) from None
    except ValueError:  # darkmoon-fair/1: its record is not one this version gives
        raise NotReady(f"game {game_id} was dealt under an earlier fair procedure "
                       "(darkmoon-fair/1): this version gives records of darkmoon-fair/2")
