"""Every word the kiosk draws, in the room's language.

The kiosk's own words live in companion/lang/*/kiosk.json (keys `kiosk.*`). Names of game
things (characters, cards, tokens, areas, statuses) belong to the game catalogue
(`game.<kind>.<id>`); until a name is there the kiosk shows the id in plain words, so a
missing translation is visible but never fatal.
"""
from __future__ import annotations

from companion.lang import catalogue, text


def say(lang: str, key: str, **values) -> str:
    """A kiosk sentence: `say("en", "board.shield")` reads `kiosk.board.shield`."""
    return text(lang, f"kiosk.{key}", **values)


def name_of(lang: str, kind: str, ident) -> str:
    """The printed name of a game thing: kind is character, card, token, action, area,
    status, winner or condition."""
    if ident is None:
        return "—"
    key = f"game.{kind}.{ident}"
    found = catalogue(lang).get(key)
    return found if found is not None else str(ident).replace("_", " ").capitalize()


def seat_label(view: dict, seat: int) -> str:
    """ "3 Cai": seat numbers are shown from 1, as printed on the button box."""
    seats = view.get("seats") or []
    name = seats[seat]["name"] if 0 <= seat < len(seats) else "?"
    return f"{seat + 1} {name}"


def signed(value: int) -> str:
    return f"{value:+d}"
