"""The room's side of fair dealing (the procedure is companion/chance/fair.py): the secret a lobby
commits to before any seat is claimed, under the game's number on this box; the pledges the
seats' phones make to their values, and the values revealed once every pledge is public; the
Fair a game is dealt with; what everyone may see of it; and the records that may be revealed.

A lobby's "fair", in the room's stored record (secret, like the seat tokens):
{"format": 2, "game": N, "secret": hex, "commitment": hex, "pledges": [hex|None per seat],
 "values": [hex|None per seat], "revealing": bool}, and once a seat's phone was replaced
while revealing, "dropped": [seats] (their pledges stand, no reveal is awaited from them);
at the deal, "receipt": [hex|None per seat], the pledges whose bytes the deal uses, stored
and shown to every phone before the deal is made from exactly it (a phone whose bytes the Pi
took and left out sees so at once). Only the commitment, the pledges and the receipt are ever
shown before the deal: never the secret, nor a value.
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
    if fair.get("receipt") is not None:
        return new  # every phone was shown what the deal uses: it is made from exactly that
    new["values"][seat] = None
    if not fair["revealing"]:
        new["pledges"][seat] = None
    elif new["pledges"][seat] is not None:
        new["dropped"] = sorted(set(fair.get("dropped", [])) | {seat})
    return new


def revealed_value(fair: dict, seat: int, commit: str, value: str) -> bool:
    """Whether the seat's value is new (True) or already revealed (False); refused (nothing
    changed) before the reveal, for a seat that pledged nothing, or a value its pledge is
    not of, and once the receipt is fixed: a phone told its bytes were taken would be left
    out of a deal it believes it is in."""
    same_commitment(fair, commit)
    if not fair["revealing"]:
        raise NotReady("the reveal opens when the host starts the game")
    promised = fair["pledges"][seat]
    if promised is None or seat in fair.get("dropped", ()):
        raise BadRequest("this seat pledged nothing for this deal: it gets its filler")
    if pledge(commit, value) != promised:
        raise BadRequest("these bytes are not the ones this seat pledged")
    if fair["values"][seat] is not None:
        return False
    if fair.get("receipt") is not None:
        raise NotReady("the deal is being made from the parts already shown: this seat gets "
                       "its filler")
    return True


def all_revealed(fair: dict) -> bool:
    """Every seat the deal waits for has revealed (not a seat whose phone was replaced), or
    the receipt is fixed: the deal waits for nobody then."""
    if fair.get("receipt") is not None:
        return True
    dropped = fair.get("dropped", ())
    return all(v is not None for seat, (p, v) in enumerate(zip(fair["pledges"], fair["values"]))
               if p is not None and seat not in dropped)


def any_pledged(fair: dict) -> bool:
    return any(p is not None for p in fair["pledges"])


def receipt_of(fair: dict) -> list:
    """The pledges the deal will use, by seat: each seat's whose bytes were revealed (a
    re-bound seat's are gone by then), None for a seat that gets its filler. Public, as the
    pledges are; its length is the seats' and which seats revealed, both public already."""
    return [promised if value is not None else None
            for promised, value in zip(fair["pledges"], fair["values"])]


def dealt_fair(box: str, fair: dict) -> Fair:
    """What the lobby's game is dealt from, by its receipt: the revealed value of each seat
    it names, the filler of every other seat (a bot, a phone that never pledged or never
    revealed: its pledge stays in the record)."""
    values, sources = [], []
    for seat, (named, value) in enumerate(zip(fair["receipt"], fair["values"])):
        if named is not None and value is None:
            raise ValueError(f"the receipt names seat {seat}, whose bytes are not here")
        values.append(value if named is not None else filler(fair["secret"], seat))
        sources.append(PHONE if named is not None else FILLER)
    return Fair(box, fair["game"], fair["secret"], values, sources, list(fair["pledges"]),
                list(fair["receipt"]))


class Dealer:
    """How the room turns a lobby's fair into its deal, in the two steps it takes in order:
    the receipt (which pledges the deal uses), stored and shown to every phone; then the Fair
    dealt from the lobby's fair with that receipt in it. The room is handed one (a test
    hands it a modified box's)."""

    def receipt(self, fair: dict) -> list:
        return receipt_of(fair)

    def fair(self, box: str, fair: dict) -> Fair:
        return dealt_fair(box, fair)


def fair_view(table, lobby: dict | None, games_dealt: int, revealed: list[int],
              deal_in: float | None) -> dict:
    """What everyone sees (never the secret nor a value): the dealt game's commitment, and
    the pending one (the game being joined, or after the deal the next game's) with every
    seat's pledge."""
    dealt = table.fair if table is not None else None
    pending = None
    if lobby is not None:
        fair = lobby["fair"]
        receipt = fair.get("receipt")
        pending = {"game": fair["game"], "commitment": fair["commitment"],
                   "code": code(fair["commitment"]), "revealing": fair["revealing"],
                   "deal_in": deal_in if fair["revealing"] else None,
                   "pledges": list(fair["pledges"]),
                   "receipt": list(receipt) if receipt is not None else None}
    return {"game": table.game_id if table is not None else None, "games_dealt": games_dealt,
            "verifiable": dealt is not None, "commitment": dealt and dealt.commitment,
            "code": dealt and code(dealt.commitment),
            "receipt": dealt and list(dealt.receipt), "box_alone": dealt and dealt.box_alone,
            "pending": pending, "revealed_games": list(revealed)}


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
