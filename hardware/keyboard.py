"""The keyboard as a seat-button box, for development and for a Pi with a keyboard.

Seat n (from 1) has its BLACK button on the digit n, RED on the letter below it on a QWERTY
keyboard and GREY on the home-row letter below that, so each seat is one column of keys.
This module knows nothing of the game: it only names which seat and which colour a key is.
"""
from __future__ import annotations

BLACK, RED, GREY = "black", "red", "grey"
SEATS = 7
_ROWS = ((BLACK, "1234567"), (RED, "qwertyu"), (GREY, "asdfghj"))

# key -> (seat index from 0, colour)
KEYMAP: dict[str, tuple[int, str]] = {
    key: (seat, colour) for colour, keys in _ROWS for seat, key in enumerate(keys)}


def button_for(key: str) -> tuple[int, str] | None:
    """The (seat, colour) a key stands for, or None. Upper-case letters count too, so caps
    lock does not silence the buttons."""
    return KEYMAP.get(key.lower()) if len(key) == 1 else None


def keys_for(seat: int) -> dict[str, str]:
    """colour -> key for one seat (index from 0)."""
    return {colour: key for key, (s, colour) in KEYMAP.items() if s == seat}


def describe(seats: int = SEATS) -> list[tuple[int, dict[str, str]]]:
    """The map for the first `seats` seats: [(seat index, {colour: key})], for a help screen."""
    return [(seat, keys_for(seat)) for seat in range(min(seats, SEATS))]
