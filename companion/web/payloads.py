"""What each audience's page is sent: the seat, host and board payloads, each made of parts.

A payload is a JSON object made of named parts, and each part is built by one function: the
room (Room.room_view), the public board (darkmoon's public_view), the log every audience
shares (Table.shared_log) and its sentences, the banner and the mirror; a seat's `you`
(darkmoon's you_view), its private facts (Table.own_facts), its log with them put in among the
shared facts in order, and the words of its choices. Both forms of a payload come from the same
parts, put together as one declared `Shape` says (SEAT, PUBLIC and the lobby's): the dict (the
host's and board's GET routes, the tests) is the parts' values, and the JSON as sent (the
streams, a seat's GET) is the shape's text with the parts' JSON put in.

After a command the seven phones, the host and the board each get a payload, and most of it is
the same for all of them. Building and encoding that nine times over was most of a command's
work on a Pi, so the streams (`Payloads`) build one room version's parts once per language and
each part keeps its JSON once made: nine payloads cost one encoding of the board and the log,
and nine of their audiences' own small parts.

A seat's JSON is padded while the game is on, so that its length tells none of the seat's
secrets (companion/web/padding.py).
"""
from __future__ import annotations

from collections.abc import Callable
from functools import cached_property

from ..darkmoon.views import public_view, you_view
from ..lang.mirror import mirror
from ..lang.options import banner
from ..lang.screen import choices_text, sentences
from ..lang.words import Words
from ..core.room import Room
from ..core.table import merged, own_places
from .encode import dumps, facts_json, sentences_json, string_json
from .padding import TOLD_TO_A_SECRET_SET, padded, seat_room


# --- the payloads as dicts ---

def seat_payload(room: Room, seat: int, lang: str) -> dict:
    return Parts(room, lang).seat(seat).value


def host_payload(room: Room, lang: str) -> dict:
    return Parts(room, lang).public(room.can_start).value


def board_payload(room: Room, lang: str) -> dict:
    return Parts(room, lang).public(None).value


# --- how each payload is made of parts ---

class Shape:
    """How a payload is made of named parts, declared once: `{key: part's name}`, `{key:
    {...}}` for an object within, and `{"**": part's name}` for an object part whose members
    are taken in at that place (a seat's view is the public board's members, its `you` and its
    log). The dict form and the JSON both follow it; the JSON is the shape's own text with each
    part's JSON put in."""

    def __init__(self, members: dict):
        self.members = members
        template: list = []
        _template(members, template)
        self.template = _joined(template)  # text between the parts, and (name, spread)

    def value(self, parts: dict) -> dict:
        return _value(self.members, parts)

    def json(self, parts: dict) -> bytes:
        return _filled(self.template, parts)

    def filled(self, parts: dict) -> list:
        """The template with these parts' JSON put in: the text every payload of this shape
        made with them shares (a seat's: the room, the board, the banner and the mirror)."""
        return _joined([_json(piece, parts) if type(piece) is tuple and piece[0] in parts
                        else piece for piece in self.template])


def _filled(template: list, parts: dict) -> bytes:
    """A template's text with each part's JSON put in (_json, written out: this runs for
    every seat at every command)."""
    return b"".join([piece if type(piece) is bytes
                    else parts[piece[0]].members_json if piece[1] else parts[piece[0]].json
                    for piece in template])


def _json(piece: tuple, parts: dict) -> bytes:
    name, spread = piece
    return parts[name].members_json if spread else parts[name].json


def _template(members: dict, out: list) -> None:
    out.append(b"{")
    for place, (key, member) in enumerate(members.items()):
        if place:
            out.append(b",")
        if key == "**":
            out.append((member, True))
            continue
        out.append(string_json(key) + b":")
        if type(member) is dict:
            _template(member, out)
        else:
            out.append((member, False))
    out.append(b"}")


def _joined(template: list) -> list:
    """The template with each run of text joined into one piece."""
    joined: list = []
    for piece in template:
        if type(piece) is bytes and joined and type(joined[-1]) is bytes:
            joined[-1] += piece
        else:
            joined.append(piece)
    return joined


def _value(members: dict, parts: dict) -> dict:
    made = {}
    for key, member in members.items():
        if key == "**":
            made.update(parts[member].value)
        elif type(member) is dict:
            made[key] = _value(member, parts)
        else:
            made[key] = parts[member].value
    return made


# The words of a view (lang.view_text's): the banner, the log's sentences, the mirror, and the
# options, blocked options and question of its choices.
TEXT = {"banner": "banner", "log": "said", "mirror": "mirror", "**": "choices"}
SEAT = Shape({"room": "room",
              "view": {"**": "board", "you": {"**": "you", "private_log": "own"}, "log": "log"},
              "text": TEXT})
PUBLIC = Shape({"room": "room", "view": {"**": "board", "log": "log"}, "text": TEXT,
                "can_start": "can_start"})
LOBBY_SEAT = Shape({"room": "room", "view": {"lobby": "room", "you": "you"}, "text": "text"})
LOBBY_PUBLIC = Shape({"room": "room", "view": "view", "text": "text",
                      "can_start": "can_start"})


class Payload:
    """One audience's payload: its shape and its parts, as a dict or as JSON."""
    __slots__ = ("shape", "parts")

    def __init__(self, shape: Shape, parts: dict):
        self.shape, self.parts = shape, parts

    @property
    def value(self) -> dict:
        return self.shape.value(self.parts)

    @property
    def json(self) -> bytes:
        return self.shape.json(self.parts)


class Part:
    """One part of a payload: its value, and its JSON as sent (UTF-8), made once when first
    asked for."""
    __slots__ = ("value", "_json", "_members")

    def __init__(self, value, json: bytes | None = None):
        self.value = value
        self._json = json
        self._members = None

    @property
    def json(self) -> bytes:
        if self._json is None:
            self._json = dumps(self.value).encode()
        return self._json

    @property
    def members_json(self) -> bytes:
        """An object part's members: its JSON within the braces."""
        if self._members is None:
            if not self.value:  # taken into an object, it would leave a stray comma
                raise ValueError("an empty object cannot lend its members")
            self._members = self.json[1:-1]
        return self._members


NOTHING = Part(None, b"null")


class Items(Part):
    """A list part whose items' JSON is kept one by one (a log's facts, their sentences): a
    seat's log is the shared one with the seat's own items put in, nothing encoded twice."""
    __slots__ = ("_value", "_encode", "_items")

    def __init__(self, value: list | None, encode: Callable[[list], list[bytes]], items=None):
        self._value = value
        self._json = self._members = None
        self._encode = encode
        self._items = items  # the items' JSON; or (shared, at, own) to put together from theirs

    @property
    def value(self) -> list:
        if self._value is None:  # a seat's log as a list: only the dict form asks
            shared, at, own = self._items
            self._value = merged(shared.value, at, own.value)
        return self._value

    @property
    def json(self) -> bytes:
        if self._json is None:
            if type(self._items) is tuple:  # a seat's log: written once, its items not kept
                shared, at, own = self._items
                items = merged(shared.items_json, at, own.items_json)
            else:
                items = self.items_json
            self._json = b"[" + b",".join(items) + b"]"
        return self._json

    @property
    def items_json(self) -> list[bytes]:
        if self._items is None:
            self._items = self._encode(self._value)
        return self._items

    def merged(self, at: list[int], own: Items) -> Items:
        """These items with each of `own`'s put in at its place in `at`."""
        return Items(None, self._encode, (self, at, own))


# --- one room version's parts ---

class Parts:
    """One room version's parts in one language: those every audience shares, built once, and
    each seat's own. Each part is built here, by one function, whichever form it is sent in."""

    def __init__(self, room: Room, lang: str, scanned: Callable | None = None):
        """`scanned(table, count)`: the facts told to a secret set of seats, kept as the log
        grows (Payloads); without it they are looked for in the whole log."""
        self.table = table = room.table
        self._scanned = scanned
        self.shared = {"room": Part(room.room_view())}
        self.g = None
        if table is None:  # the lobby: no game yet
            return
        self.g, self.count = table.snapshot()  # every part is read from this one state
        board = public_view(self.g)
        self.words = Words(lang, board)
        self.places = table.shared_log(self.g, self.count)
        facts = [table.facts[i] for i in self.places]
        self.log = Items(facts, facts_json)
        self.said = Items(sentences(self.words, facts), sentences_json)
        self.shared.update(  # the parts every seat's payload holds alike
            board=Part(board), banner=Part(banner(self.words, board)),
            # Only public facts are mirrored, and none of their lines reads a private fact:
            # the mirror is the same for every seat.
            mirror=Part(mirror(self.words, facts)))

    def seat(self, seat: int) -> Payload:
        """A seat's payload: the room, its view (the board, its own `you`, its log) and the
        words for it; in the lobby, the room and which seat it is."""
        if self.g is None:
            return Payload(LOBBY_SEAT, {**self.shared, "you": Part({"seat": seat}),
                                        "text": NOTHING})
        return Payload(SEAT, self._own(seat))

    def _own(self, seat: int) -> dict:
        """A seat's parts: the shared ones, its `you`, its private facts, its log and the log's
        sentences (the shared ones with its private facts put in, in order, while the game is
        on), and the words of its choices."""
        own = self.table.own_facts(seat, self.count)
        facts = Items([f for _, f in own], facts_json)
        log, said = self.log, self.said
        if own and self.g.outcome is None:  # after the game the shared log already holds them
            # where each goes among the shared facts (own is in order: k of them before it)
            at = own_places(self.places, own)
            log = log.merged(at, facts)
            said = said.merged(at, Items(sentences(self.words, facts.value), sentences_json))
        you = you_view(self.g, seat)
        return {**self.shared, "you": Part(you), "own": facts, "log": log, "said": said,
                "choices": Part(choices_text(self.words, you))}

    def public(self, can_start: bool | None) -> Payload:
        """The host's payload (the board's: can_start None): the room, the public board and
        its log, and their words."""
        if self.g is None:
            return Payload(LOBBY_PUBLIC, {**self.shared, "view": NOTHING, "text": NOTHING,
                                          "can_start": Part(can_start)})
        return Payload(PUBLIC, {**self.shared, "log": self.log, "said": self.said,
                                "choices": self.public_choices, "can_start": Part(can_start)})

    @cached_property
    def public_choices(self) -> Part:
        return Part(choices_text(self.words, {}))

    # --- a seat's JSON, as long as its public parts decide ---

    def seat_json(self, seat: int) -> bytes:
        """A seat's payload as its stream and its GET send it: while the game is on, padded to
        a length no secret of the seat's decides (companion/web/padding.py)."""
        payload = self.seat(seat)
        g = self.g
        if g is None:
            return payload.json
        sent = _filled(self._seat_template, payload.parts)
        if g.outcome is not None:  # every secret is out: nothing left to hide
            return sent
        decision = g.pending.kind if g.pending is not None else None
        return padded(sent, self.public_bytes + seat_room(
            decision, payload.parts["own"].value, self.told_to_a_secret_set))

    @cached_property
    def _seat_template(self) -> list:
        """A seat's template with the parts every seat shares put in, once for all seats."""
        return SEAT.filled(self.shared)

    @cached_property
    def public_bytes(self) -> int:
        """What every seat's payload holds alike: the room, the board (but the brace that
        closes a seat's view), the shared log, its sentences, the banner and the mirror (the
        rooms of padding.py were measured beyond these)."""
        shared = self.shared
        return sum(map(len, (
            shared["room"].json, shared["board"].json[:-1], self.log.json, self.said.json,
            shared["banner"].json, shared["mirror"].json)))

    @cached_property
    def told_to_a_secret_set(self) -> list[dict]:
        """The facts of TOLD_TO_A_SECRET_SET in the game so far: every seat has room for them."""
        found = (self._scanned(self.table, self.count) if self._scanned is not None
                 else told_to_a_secret_set(self.table.facts, 0, self.count))
        return [fact for _, fact in found]


def told_to_a_secret_set(facts: list, start: int, end: int) -> list[tuple[int, dict]]:
    """The facts of TOLD_TO_A_SECRET_SET among facts[start:end], with their places."""
    return [(place, facts[place]) for place in range(start, end)
            if facts[place]["k"] in TOLD_TO_A_SECRET_SET]


class Payloads:
    """The streams' payload bytes for the room as it stands: each audience's built once per
    room version and language (twenty board viewers cost one), all from one Parts."""

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

    def _parts(self, lang: str) -> Parts:
        return self._cached(("parts", lang),
                            lambda: Parts(self.room, lang, self._told_to_a_secret_set))

    def _told_to_a_secret_set(self, table, count: int) -> list:
        known, scanned, found = self._scanned
        if known is not table:
            scanned, found = 0, []
        found = found + told_to_a_secret_set(table.facts, scanned, count)
        self._scanned = (table, max(scanned, count), found)
        return [(place, fact) for place, fact in found if place < count]

    def seat(self, seat: int, lang: str) -> bytes:
        """A seat's payload as its stream and its GET send it."""
        return self._cached(("seat", seat, lang), lambda: self._parts(lang).seat_json(seat))

    def host(self, lang: str) -> bytes:
        return self._public(lang, True)

    def board(self, lang: str) -> bytes:
        return self._public(lang, False)

    def _public(self, lang: str, host: bool) -> bytes:
        def build() -> bytes:
            can_start = self.room.can_start if host else None
            return self._parts(lang).public(can_start).json
        return self._cached(("host" if host else "board", lang), build)
