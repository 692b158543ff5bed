"""Provably fair chance: the procedure every die face, card and shuffle of a game comes from.

Before anything is dealt the Pi draws a secret and shows its commitment, SHA-256(secret).
Every seat then adds 32 bytes of its own (a phone's `crypto.getRandomValues`; the Pi adds
them for a bot or a phone that sent none). Every outcome is then derived, with no other
randomness, from HMAC-SHA256 keyed with secret || contributions, in counter mode, separately
for each event of the log. At game over the secret is revealed with the record, and anyone can
derive the outcomes again (companion/verify.py, the verify page, docs/fair.md).

The rules never see this module: a `Stream` is the `rng` they take (`choice` and `shuffle`).
Pure standard library and no IO, so a verifier runs the same code the Pi dealt with.
"""
from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import struct

FORMAT = "darkmoon-fair/1"
SECRET_BYTES = 32
CONTRIBUTION_BYTES = 32
WORD = 1 << 32  # outcomes are drawn from 32-bit words
PHONE, PI = "phone", "pi"  # who gave a seat's contribution


def draw_secret() -> str:
    return secrets.token_hex(SECRET_BYTES)


def draw_contribution() -> str:
    """The Pi's contribution for a seat with no phone's (a bot, a phone that sent none)."""
    return secrets.token_hex(CONTRIBUTION_BYTES)


def commitment(secret: str) -> str:
    """What is shown before the deal: SHA-256 of the secret's bytes, in hex."""
    return hashlib.sha256(bytes.fromhex(secret)).hexdigest()


def fingerprint(commit: str) -> str:
    """The short form the kiosk and phones show: the commitment's first 8 hex digits."""
    return f"{commit[:4]} {commit[4:8]}".upper()


# A secret or a contribution as the record holds it and the verify page reads it: exactly 64
# lowercase hex digits. bytes.fromhex alone also skips spaces and takes capitals, which the
# page does not: one record would be Verified by the command and damaged on the page.
HEX_32_BYTES = re.compile(r"[0-9a-f]{64}")


def is_hex_32_bytes(value) -> bool:
    return isinstance(value, str) and HEX_32_BYTES.fullmatch(value) is not None


def contribution(value) -> str:
    """A contribution as sent, checked: exactly 64 lowercase hex digits; ValueError if not."""
    if not is_hex_32_bytes(value):
        raise ValueError(f"a contribution is exactly {2 * CONTRIBUTION_BYTES} lowercase hex "
                         "digits")
    return value


def _key_part(value: str) -> str:
    """A stored game's contribution for its key, as it was dealt. A game dealt before
    contributions were held to 64 lowercase hex digits goes on after a restart as it was
    dealt; its record is refused by `verify` and by the page alike."""
    if not isinstance(value, str) or len(value) != 2 * CONTRIBUTION_BYTES:
        raise ValueError(f"a contribution is {2 * CONTRIBUTION_BYTES} hex digits")
    bytes.fromhex(value)  # ValueError if it is not hex at all
    return value.lower()


class Fair:
    """One game's secret and every seat's contribution, in seat order."""

    def __init__(self, secret: str, contributions: list[str], sources: list[str] | None = None):
        if len(bytes.fromhex(secret)) != SECRET_BYTES:
            raise ValueError(f"the secret is {SECRET_BYTES} bytes")
        self.secret = secret
        self.contributions = [_key_part(c) for c in contributions]
        self.sources = list(sources) if sources is not None else [PI] * len(contributions)
        key = bytes.fromhex(secret) + b"".join(bytes.fromhex(c) for c in self.contributions)
        # HMAC's own key handling (a key over 64 bytes is hashed first) is done once here;
        # each block then copies the keyed state.
        self._mac = hmac.new(key, digestmod=hashlib.sha256)

    @classmethod
    def draw(cls, players: int) -> "Fair":
        """A secret and the Pi's contributions for every seat (a game no phone joined)."""
        return cls(draw_secret(), [draw_contribution() for _ in range(players)])

    @property
    def commitment(self) -> str:
        return commitment(self.secret)

    def stream(self, position: int, tap: list | None = None) -> "Stream":
        """The randomness of the event at `position` in the log (0: the deal)."""
        return Stream(self._mac, position, tap)

    def to_json(self) -> dict:
        return {"secret": self.secret, "contributions": list(self.contributions),
                "sources": list(self.sources)}

    @classmethod
    def from_json(cls, data: dict) -> "Fair":
        return cls(data["secret"], data["contributions"], data.get("sources"))


class Stream:
    """HMAC-SHA256(key, position as 8 bytes || counter as 8 bytes, both big-endian), for
    counter 0, 1, 2...; each 32-byte block read as eight big-endian 32-bit words, in order.
    `tap`, when given, collects what each draw was made from (the record's "draws")."""

    def __init__(self, mac, position: int, tap: list | None = None):
        self._mac = mac
        self._position = struct.pack(">Q", position)
        self._counter = 0
        self._words: tuple = ()
        self._next = 0
        self.tap = tap

    def word(self) -> int:
        if self._next == len(self._words):
            block = self._mac.copy()
            block.update(self._position + struct.pack(">Q", self._counter))
            self._counter += 1
            self._words = struct.unpack(">8I", block.digest())
            self._next = 0
        w = self._words[self._next]
        self._next += 1
        return w

    def below(self, n: int) -> int:
        """A uniform whole number in [0, n): rejection sampling, so no outcome is favoured.
        Words at or above the largest multiple of n under 2**32 are thrown away."""
        if n < 1:
            raise ValueError("nothing to draw from")
        limit = WORD - WORD % n
        while True:
            w = self.word()
            if w < limit:
                return w % n

    # --- the two calls the rules' Chance makes ---

    def choice(self, items):
        if self.tap is not None:
            self.tap.append({"op": "pick", "from": list(items)})
        return items[self.below(len(items))]

    def shuffle(self, items: list) -> None:
        """Fisher-Yates in place: for i from the last index down to 1, swap item i with
        item below(i + 1)."""
        if self.tap is not None:
            self.tap.append({"op": "shuffle", "from": list(items)})
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]
