"""What each audience's page is sent: the seat, host and board payloads.

After a command the seven phones, the host and the board each get a payload, and most of it is
the same for all of them: the room, the public board, the public log, its sentences, the banner
and the mirror. Building and encoding those nine times over was most of a command's work on a
Pi, so `Shared` builds and encodes them once per room version and language, and each payload is
spliced from those pieces and the audience's own small part (a seat's `you`, its private facts
merged into the log in order, its options and question).

The plain builders (seat_payload, host_payload, board_payload) make the same payloads as dicts:
the host's and board's GET routes answer with them, and the spliced bytes must parse to exactly
what they give (tests/web/test_payloads.py holds the two together). A seat's GET answers with
its stream's bytes: while the game is on they are padded so that their length tells none of the
seat's secrets (companion/web/padding.py).
"""
from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable

from ..darkmoon.views import public_view, you_view
from ..lang import view_text
from ..lang.mirror import mirror
from ..lang.options import banner
from ..lang.screen import choices_text, sentences
from ..lang.words import Words
from ..core.room import Room
from .encode import dumps, fact_json, string_json
from .padding import TOLD_TO_A_SECRET_SET, padded, seat_room


# --- the plain payloads ---

def seat_payload(room: Room, seat: int, lang: str) -> dict:
    view = room.seat_view(seat)
    return {"room": room.room_view(), "view": view,
            "text": view_text(view, lang) if room.table else None}


def host_payload(room: Room, lang: str) -> dict:
    view = room.public_view()
    return {"room": room.room_view(), "view": view,
            "text": view_text(view, lang) if view else None,
            "can_start": room.can_start}


def board_payload(room: Room, lang: str) -> dict:
    return host_payload(room, lang) | {"can_start": None}


# --- the same payloads, spliced from shared pieces ---

class Shared:
    """One room version's pieces in one language, the same for every audience, encoded."""

    def __init__(self, room: Room, lang: str, scanned: Callable | None = None):
        """`scanned(table, count)`: the facts told to a secret set of seats, kept as the log
        grows (Payloads); without it they are looked for in the whole log."""
        table = self.table = room.table
        self.g, self.count = table.snapshot()  # every seat's part is read from this state
        found = (scanned(table, self.count) if scanned is not None
                 else told_to_a_secret_set(table.facts, 0, self.count))
        self.told_to_a_secret_set = [fact for _, fact in found]
        board = public_view(self.g)
        self.words = Words(lang, board)
        self.places = table.shared_log(self.g, self.count)
        facts = [table.facts[i] for i in self.places]
        self.fact_json = list(map(fact_json, facts))
        self.said_json = list(map(string_json, sentences(self.words, facts)))
        self.room = dumps(room.room_view())
        self.board = dumps(board)[:-1]  # left open: a seat adds "you", everyone the log
        self.log = "[" + ",".join(self.fact_json) + "]"
        self.said = "[" + ",".join(self.said_json) + "]"
        self.banner = string_json(banner(self.words, board))
        # Only public facts are mirrored, and none of their lines reads a private fact: the
        # mirror is the same for every seat (the test holds it to each seat's plain payload)
        self.mirror = dumps(mirror(self.words, facts))
        self.public_text = self.text(self.said, {})
        # What every seat's payload holds alike: a seat's length is this and its room.
        self.public_bytes = sum(len(piece.encode()) for piece in (
            self.room, self.board, self.log, self.said, self.banner, self.mirror))
        self.decision = self.g.pending.kind if self.g.pending is not None else None

    def text(self, said: str, you: dict) -> str:
        """view_text's JSON: the shared banner and mirror, these sentences, `you`'s choices."""
        return ('{"banner":' + self.banner + ',"log":' + said + ',"mirror":' + self.mirror
                + "," + dumps(choices_text(self.words, you))[1:])

    def seat(self, seat: int) -> bytes:
        """seat_payload's JSON, from the shared pieces and the seat's own; while the game is
        on, padded to a length no secret of the seat's decides (companion/web/padding.py)."""
        g, words = self.g, self.words
        you = you_view(g, seat)
        own = self.table.own_facts(seat, self.count)
        facts = [f for _, f in own]
        own_json = list(map(fact_json, facts))
        log, said = self.log, self.said
        if facts and g.outcome is None:  # after the game the shared log already holds them
            # where each goes among the shared facts (own is in order: k of them before it)
            at = [bisect_left(self.places, i) + k for k, (i, _) in enumerate(own)]
            log = "[" + ",".join(_merged(self.fact_json, at, own_json)) + "]"
            said = "[" + ",".join(_merged(self.said_json, at, map(
                string_json, sentences(words, facts)))) + "]"
        view = (self.board + ',"you":' + dumps(you)[:-1] + ',"private_log":['
                + ",".join(own_json) + ']},"log":' + log + "}")
        payload = ('{"room":' + self.room + ',"view":' + view + ',"text":'
                   + self.text(said, you) + "}").encode()
        if g.outcome is not None:  # every secret is out: nothing left to hide
            return payload
        return padded(payload, self.public_bytes + seat_room(
            self.decision, facts, self.told_to_a_secret_set))

    def public(self, can_start: bool | None) -> str:
        """host_payload's JSON (the board's: can_start None)."""
        return ('{"room":' + self.room + ',"view":' + self.board + ',"log":' + self.log
                + '},"text":' + self.public_text + ',"can_start":' + dumps(can_start) + "}")


def told_to_a_secret_set(facts: list, start: int, end: int) -> list[tuple[int, dict]]:
    """The facts of TOLD_TO_A_SECRET_SET among facts[start:end], with their places."""
    return [(place, facts[place]) for place in range(start, end)
            if facts[place]["k"] in TOLD_TO_A_SECRET_SET]


def _merged(shared: list, at: list[int], own) -> list:
    """`shared` with each of `own` put in at its place in `at` (places in the result)."""
    merged = shared[:]
    for place, item in zip(at, own):
        merged.insert(place, item)
    return merged


class Payloads:
    """The streams' payload bytes for the room as it stands: each audience's built once per
    room version and language (twenty board viewers cost one), all from one Shared."""

    def __init__(self, room: Room):
        self.room = room
        self._version = None
        self._built: dict = {}
        # The facts told to a secret set of seats, found once as the log grows.
        self._scanned: tuple = (None, 0, [])  # (table, facts scanned, [(place, fact)])

    def _cached(self, key: tuple, build) -> bytes:
        if self._version != self.room.version:
            self._built.clear()
            self._version = self.room.version
        hit = self._built.get(key)
        if hit is None:
            hit = self._built[key] = build()
        return hit

    def _shared(self, lang: str) -> Shared:
        return self._cached(("shared", lang),
                            lambda: Shared(self.room, lang, self._told_to_a_secret_set))

    def _told_to_a_secret_set(self, table, count: int) -> list:
        known, scanned, found = self._scanned
        if known is not table:
            scanned, found = 0, []
        found = found + told_to_a_secret_set(table.facts, scanned, count)
        self._scanned = (table, max(scanned, count), found)
        return [(place, fact) for place, fact in found if place < count]

    def seat(self, seat: int, lang: str) -> bytes:
        """A seat's payload as its stream and its GET send it."""
        if self.room.table is None:
            return self._cached(("seat", seat, lang),
                                lambda: dumps(seat_payload(self.room, seat, lang)).encode())
        return self._cached(("seat", seat, lang), lambda: self._shared(lang).seat(seat))

    def host(self, lang: str) -> bytes:
        return self._public(lang, True)

    def board(self, lang: str) -> bytes:
        return self._public(lang, False)

    def _public(self, lang: str, host: bool) -> bytes:
        def build() -> bytes:
            can_start = self.room.can_start if host else None
            if self.room.table is None:
                payload = host_payload(self.room, lang) | {"can_start": can_start}
                return dumps(payload).encode()
            return self._shared(lang).public(can_start).encode()
        return self._cached(("host" if host else "board", lang), build)
