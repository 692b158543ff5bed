"""Provably fair chance (darkmoon-fair/2): the procedure every die face, card and shuffle of a
game comes from.

Each box (data file) has an identity of 32 random bytes, and each game a number on that box.
Before anything is dealt the Pi draws a secret and shows its commitment,
SHA-256(LABEL || box || game || secret): the secret is bound to this game of this box, so a
revealed record cannot be played again as another game or on another box. Each phone then
pledges SHA-256(commitment || value) for 32 bytes of its own, and reveals the value only once
every pledge is in. A seat with no revealed value (a bot, a phone that never pledged or never
revealed) gets a filler derived from the secret alone: fixed when the secret was committed to,
so nobody chooses it after seeing the others'. Every outcome is then derived, with no other
randomness, from HMAC-SHA256 keyed with secret || contributions, in counter mode, separately
for each event of the log. At game over the secret is revealed with the record, and anyone can
derive the outcomes again (companion/chance/verify.py, the verify page, docs/fair.md).

The rules never see this module: a `Stream` is the `rng` they take (`choice` and `shuffle`).
Pure standard library and no IO, so a verifier runs the same code the Pi dealt with.
"""
from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import struct

from .. import codes

FORMAT = "darkmoon-fair/2"
LABEL = b"darkmoon-fair/2"
STORED_FORMAT = 2  # the "format" of a stored fair (Fair.to_json)
SECRET_BYTES = 32
CONTRIBUTION_BYTES = 32
WORD = 1 << 32  # outcomes are drawn from 32-bit words
PHONE, FILLER = "phone", "filler"  # who gave a seat's bytes
FILLER_LABEL = b"darkmoon-fair/2 filler"
# What people read of a hash and type back (the commitment's code on the kiosk, a phone's own
# bytes' code): 16 symbols of the look-alike-free alphabet (companion/codes.py) in four groups
# of four. 31 symbols, so 16 carry 79 bits: far too many to find a second secret for.
CODE_LENGTH = 16
CODE_BYTES = 10  # the hash's first 80 bits are written as the code's 16 symbols


class EarlierFormat(ValueError):
    """A stored fair of an earlier format (darkmoon-fair/1): its game cannot go on under
    these rules, and its record is not one this version checks."""


# A secret, a box, a value or a pledge as the record holds it and the verify page reads it:
# exactly 64 lowercase hex digits. bytes.fromhex alone also skips spaces and takes capitals,
# which the page does not: one record would be Verified by the command and damaged on the page.
HEX_32_BYTES = re.compile(r"[0-9a-f]{64}")


def is_hex_32_bytes(value) -> bool:
    return isinstance(value, str) and HEX_32_BYTES.fullmatch(value) is not None


def _hex32(value, what: str) -> str:
    if not is_hex_32_bytes(value):
        raise ValueError(f"{what} is exactly {2 * SECRET_BYTES} lowercase hex digits")
    return value


def contribution(value) -> str:
    """A phone's value or pledge as sent, checked: exactly 64 lowercase hex digits;
    ValueError if not."""
    return _hex32(value, "a contribution")


def draw_box() -> str:
    return secrets.token_hex(SECRET_BYTES)


def draw_secret() -> str:
    return secrets.token_hex(SECRET_BYTES)


def draw_value() -> str:
    """32 random bytes as a phone gives them (tests and simulated phones)."""
    return secrets.token_hex(CONTRIBUTION_BYTES)


def _game_number(game) -> int:
    # bool is an int to Python, never a game number
    if isinstance(game, bool) or not isinstance(game, int) or not 1 <= game < 1 << 64:
        raise ValueError("the game's number is a whole number from 1")
    return game


def commitment(box: str, game: int, secret: str) -> str:
    """What is shown before the deal: SHA-256(LABEL || box || game as 8 bytes || secret)."""
    message = (LABEL + bytes.fromhex(_hex32(box, "the box"))
               + struct.pack(">Q", _game_number(game))
               + bytes.fromhex(_hex32(secret, "the secret")))
    return hashlib.sha256(message).hexdigest()


def code(hex_str: str) -> str:
    """What people read of a hash: its first 10 bytes as a big-endian number, taken modulo
    31**16 and written as 16 symbols (most significant first), in groups of four:
    "EMVZ WGN6 WZUJ P58T"."""
    return codes.grouped(codes.spelled(int(hex_str[:2 * CODE_BYTES], 16), CODE_LENGTH))


def typed_code(text: str) -> str | None:
    """A code as someone typed it, spaces and case ignored, in the form code() writes it; None
    if it is not 16 symbols of the code's alphabet."""
    symbols = codes.typed(text, CODE_LENGTH)
    return None if symbols is None else codes.grouped(symbols)


def pledge(commit: str, value: str) -> str:
    """A phone's pledge to its value for this commitment: SHA-256(commitment || value)."""
    return hashlib.sha256(bytes.fromhex(_hex32(commit, "the commitment"))
                          + bytes.fromhex(_hex32(value, "a value"))).hexdigest()


def filler(secret: str, seat: int) -> str:
    """The bytes of a seat no phone gave any to: fixed by the secret, before anyone's."""
    if isinstance(seat, bool) or not isinstance(seat, int) or seat < 0:
        raise ValueError("a seat is a whole number from 0")
    return hmac.new(bytes.fromhex(_hex32(secret, "the secret")),
                    FILLER_LABEL + struct.pack(">Q", seat), hashlib.sha256).hexdigest()


class Fair:
    """One game's secret and every seat's contribution, in seat order, bound to the game's
    number on this box. Refuses (ValueError) a filler seat whose bytes are not the filler and
    a phone seat whose value does not match its pledge: such a deal would never verify.

    `receipt`: the pledges the deal was said to use, by seat (None where a seat got its
    filler), as every phone was shown it before the deal; by default the pledges of the
    seats whose bytes it uses. It is kept as given, not checked here: the record carries it,
    and the checkers compare it with the contributions."""

    def __init__(self, box: str, game: int, secret: str, contributions: list,
                 sources: list[str], pledges: list | None = None,
                 receipt: list | None = None):
        self.box = _hex32(box, "the box")
        self.game = _game_number(game)
        self.secret = _hex32(secret, "the secret")
        seats = len(contributions)
        if len(sources) != seats or (pledges is not None and len(pledges) != seats):
            raise ValueError("one contribution, source and pledge per seat")
        self.sources = list(sources)
        self.pledges = list(pledges) if pledges is not None else [None] * seats
        self.commitment = commitment(self.box, self.game, self.secret)
        self.contributions = []
        for seat, (value, source, promised) in enumerate(
                zip(contributions, self.sources, self.pledges)):
            if promised is not None:
                _hex32(promised, "a pledge")
            if source == FILLER:
                fill = filler(self.secret, seat)
                if value is not None and value != fill:
                    raise ValueError(f"seat {seat}'s filler is not the one its secret gives")
                value = fill
            elif source == PHONE:
                _hex32(value, "a value")
                if promised is None or pledge(self.commitment, value) != promised:
                    raise ValueError(f"seat {seat}'s value does not match its pledge")
            else:
                raise ValueError(f"a seat's bytes come from {PHONE!r} or {FILLER!r}")
            self.contributions.append(value)
        if receipt is None:
            receipt = [p if source == PHONE else None
                       for source, p in zip(self.sources, self.pledges)]
        if len(receipt) != seats:
            raise ValueError("one receipt entry per seat")
        self.receipt = [None if p is None else _hex32(p, "a receipt's pledge") for p in receipt]
        key = bytes.fromhex(self.secret) + b"".join(bytes.fromhex(c)
                                                     for c in self.contributions)
        # HMAC's own key handling (a key over 64 bytes is hashed first) is done once here;
        # each block then copies the keyed state.
        self._mac = hmac.new(key, digestmod=hashlib.sha256)
        self._bound = bytes.fromhex(self.box) + struct.pack(">Q", self.game)

    @classmethod
    def draw(cls, players: int, box: str, game: int) -> "Fair":
        """A fresh secret and every seat's filler (a game no phone joined)."""
        return cls(box, game, draw_secret(), [None] * players, [FILLER] * players)

    @property
    def box_alone(self) -> bool:
        """No phone's bytes were to go into this deal (bots only, or every phone silent):
        the box chose its secret knowing the seats, so nothing shows the deal was not
        chosen."""
        return all(p is None for p in self.receipt)

    def stream(self, position: int, tap: list | None = None) -> "Stream":
        """The randomness of the event at `position` in the log (0: the deal)."""
        return Stream(self._mac, self._bound + struct.pack(">Q", position), tap)

    def to_json(self) -> dict:
        return {"format": STORED_FORMAT, "box": self.box, "game": self.game,
                "secret": self.secret, "contributions": list(self.contributions),
                "sources": list(self.sources), "pledges": list(self.pledges),
                "receipt": list(self.receipt)}

    @classmethod
    def from_json(cls, data: dict) -> "Fair":
        """A stored fair. EarlierFormat (a ValueError) for one stored before
        darkmoon-fair/2, ValueError for anything else that is not one."""
        if not isinstance(data, dict):
            raise ValueError("a stored fair is an object")
        if data.get("format") != STORED_FORMAT:
            raise EarlierFormat("this game was dealt under darkmoon-fair/1")
        try:  # a game stored before receipts were shown: the pledges it was dealt from
            return cls(data["box"], data["game"], data["secret"], data["contributions"],
                       data["sources"], data.get("pledges"), data.get("receipt"))
        except (KeyError, TypeError) as error:
            raise ValueError(f"a damaged stored fair ({error!r})") from None


class Stream:
    """HMAC-SHA256(key, box || game as 8 bytes || position as 8 bytes || counter as 8 bytes,
    all big-endian), for counter 0, 1, 2...; each 32-byte block read as eight big-endian
    32-bit words, in order. `tap`, when given, collects what each draw was made from (the
    record's "draws")."""

    def __init__(self, mac, prefix: bytes, tap: list | None = None):
        self._mac = mac
        self._prefix = prefix  # box || game || position
        self._counter = 0
        self._words: tuple = ()
        self._next = 0
        self.tap = tap

    def word(self) -> int:
        if self._next == len(self._words):
            block = self._mac.copy()
            block.update(self._prefix + struct.pack(">Q", self._counter))
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
