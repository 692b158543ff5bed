"""Every word the kiosk draws, in the room's language.

The kiosk's own words live in companion/lang/*/kiosk.json (keys `kiosk.*`). Names of game
things (characters, cards, tokens, areas, statuses) belong to the game catalogue
(`game.<kind>.<id>`); until a name is there the kiosk shows the id in plain words, so a
missing translation is visible but never fatal.
"""
from __future__ import annotations

import logging
from functools import lru_cache

from companion.lang import catalogue, text, view_text

log = logging.getLogger(__name__)
CARD_KINDS = ("event", "final", "task")  # the game catalogue names cards by deck


def say(lang: str, key: str, **values) -> str:
    """A kiosk sentence: `say("en", "board.shield")` reads `kiosk.board.shield`."""
    return text(lang, f"kiosk.{key}", **values)


def has_word(lang: str, key: str) -> bool:
    """Whether the kiosk's catalogue has `key` (say's key, without "kiosk.")."""
    return f"kiosk.{key}" in catalogue(lang)


@lru_cache(maxsize=4096)  # the catalogues never change while the kiosk runs
def name_of(lang: str, kind: str, ident) -> str:
    """The printed name of a game thing. Kinds from the game catalogue: character, card,
    token, area, status, decision; the kiosk's own: action (blocked by an outpost token),
    winner, condition."""
    if ident is None:
        return "—"
    words = catalogue(lang)
    kinds = CARD_KINDS if kind == "card" else (kind,)
    for key in [f"game.{k}.{ident}" for k in kinds] + [f"kiosk.{kind}.{ident}"]:
        if key in words:
            return words[key]
    return str(ident).replace("_", " ").capitalize()


def sentences(view: dict, lang: str) -> dict:
    """The game catalogue's sentences for the view (banner, log, mirror). A missing or
    broken sentence must not blank the kiosk in front of the table: it is logged and the
    kiosk draws its own plainer words instead."""
    try:
        return view_text(view, lang)
    except Exception:
        log.exception("view_text failed; drawing without the game's sentences")
        return {}


def seat_label(view: dict, seat: int) -> str:
    """ "3 Cai": seat numbers are shown from 1, as printed on the button box."""
    seats = view.get("seats") or []
    return labelled(seat, seats[seat]["name"] if 0 <= seat < len(seats) else "?")


def labelled(seat: int, name: str) -> str:
    return f"{seat + 1} {name}"


def signed(value: int) -> str:
    return f"{value:+d}"


def counted(lang: str, key: str, n: int) -> str:
    """A kiosk count in the singular or the plural: "1 card", "2 cards"."""
    return say(lang, f"{key}.{'one' if n == 1 else 'many'}", n=n)


def dice(lang: str, colour: str, n: int) -> str:
    """"1 strong die", "2 weak dice", "the commander die": the game catalogue's own words."""
    return text(lang, f"game.dice.{colour}.{'one' if n == 1 else 'many'}", n=n)
