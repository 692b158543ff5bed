"""Codes a person reads off the kiosk and may type back: a seat's, the host's and the table's
codes (in the addresses a phone that cannot scan types), the seal's code on the kiosk and
every phone. Written in letters and digits with no look-alikes (no 0/O, no 1/I/L), so a
code read across a table is typed right or not at all; shown in groups of four.

A seat code is 20 symbols (99 random bits: nobody finds one by trying, online or offline
against a recorded hello), written ungrouped in a code's address (a smaller QR code than
the 22 characters it replaces) and grouped with dashes where a person reads it."""
from __future__ import annotations

import re
import secrets

ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
GROUP = 4
SEAT_SYMBOLS = 20


def spelled(number: int, length: int) -> str:
    """`number` modulo 31**length as `length` symbols, most significant first."""
    base = len(ALPHABET)
    number %= base ** length
    symbols = []
    for _ in range(length):
        number, symbol = divmod(number, base)
        symbols.append(ALPHABET[symbol])
    return "".join(reversed(symbols))


def grouped(symbols: str, sep: str = " ") -> str:
    return sep.join(symbols[i:i + GROUP] for i in range(0, len(symbols), GROUP))


def typed(text: str, length: int) -> str | None:
    """The symbols of a code as someone typed it (spaces, dashes and case ignored); None if
    it is not `length` symbols of the alphabet."""
    symbols = re.sub(r"[\s-]+", "", text).upper()
    if len(symbols) != length or any(s not in ALPHABET for s in symbols):
        return None
    return symbols


def new_seat_code() -> str:
    """A fresh code for a seat or the host: SEAT_SYMBOLS symbols, ungrouped."""
    return spelled(secrets.randbelow(len(ALPHABET) ** SEAT_SYMBOLS), SEAT_SYMBOLS)


def seat_code_of(digest: bytes) -> str:
    """A seat-sized code that a hash fixes (the table's code, from every seat's)."""
    return spelled(int.from_bytes(digest, "big"), SEAT_SYMBOLS)


def readable(token: str) -> str:
    """A code as a person reads it: a seat-sized code in groups of four joined by dashes (the
    page takes it back with or without them, in either case); any other code as it is."""
    if len(token) == SEAT_SYMBOLS and all(s in ALPHABET for s in token):
        return grouped(token, "-")
    return token
