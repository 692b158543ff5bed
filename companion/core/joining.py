"""One code for the whole table: where the kiosk cannot show every seat's own code at once
(seven version-3 codes need 4 x 31 columns in a row, more than the Pi screen's 120), it
shows one table code instead; the phone that opens it lists the seats in seat order and the
player taps their own, which opens that seat's usual page (`/s#<seat token>`: a code
travels only in a URL's fragment, which a browser never sends, and only sealed on the wire).

The table token is derived from every seat's token (claimed ones too), so it needs no
storage, stays the same while seats are claimed (a phone that scanned it a moment ago still
gets in) and dies with the game. Holding it shows the free seats' tokens: exactly what the
kiosk's screen shows anyone at the table, and nothing once every seat has joined. A bot's
seat is not free: no phone may take it unseen; the host hands it to a person.
"""
from __future__ import annotations

import hashlib
import secrets

from ..codes import seat_code_of
from .refusals import UnknownToken


def table_token(seat_tokens: list[str]) -> str | None:
    """A seat-sized code that only someone who knows every seat's token could compute."""
    if not seat_tokens:
        return None
    digest = hashlib.sha256("\n".join(["dark moon table", *seat_tokens]).encode()).digest()
    return seat_code_of(digest[:16])


def table_url(base_url: str, token: str) -> str:
    return f"{base_url}/j#{token}"


def table_seats(kiosk: dict, token: str) -> list[dict]:
    """Every seat in seat order, with its token while it is free (neither a phone's nor a
    bot's: Room.kiosk_view leaves both out), for the phone that holds the table code (`kiosk`
    is Room.kiosk_view()); any other token is refused."""
    expected = kiosk.get("table_token")
    if not expected or not isinstance(token, str) or not secrets.compare_digest(
            expected.encode(), token.encode("utf-8", "replace")):
        raise UnknownToken("not the code of this table's game")
    return [{"seat": s["seat"], "name": s["name"], "bot": s["bot"], "claimed": s["claimed"],
             "token": kiosk["seat_tokens"][s["seat"]]} for s in kiosk["seats"]]
