"""The Pi's side of the seal on a seat's traffic: the table of sessions phones opened with a
hello, and the opening and sealing of what they send and are sent
(companion/web/sealing.py holds the primitives, docs/http-api.md "Sealed traffic" the protocol).

A session belongs to one code (a seat's, the host's or the table's) and lives only while
that code does: a re-bind, a hand-over, a new game or a new host code retires the code's keys
with it, so a phone that held the old code can no longer read or send anything. Every
request and every stream ticket carries a counter that must rise, so nothing a player
recorded on the Wi-Fi can be played again or out of order; a refused request changes
nothing, not even the counter.

No route handlers here: companion/web/server.py answers `/api/hello`, `/api/sealed` and
`/api/sealed/events` with these.
"""
from __future__ import annotations

import json
import secrets
from binascii import b2a_base64
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Callable, Iterable

from aiohttp import web
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

from ..core.claims import SeatGivenAway
from ..core.refusals import BadRequest, RoomError, UnknownToken
from .sealing import (KEY_BYTES, KIND_PROOF, KIND_REQUEST, KIND_RESPONSE, KIND_STREAM,
                      KIND_TICKET, SID_BYTES, BadSeal, agree, b64url, nonce, new_keypair,
                      padded, session_keys, split_envelope, unb64url)

MAX_SESSIONS = 256     # a table has at most 7 seats, a host and a few onlookers
MAX_PHONE = 64         # a phone's secret is 22 characters; anything longer is not ours
MAX_INDEX = 1 << 24    # a stream's messages are numbered in 3 bytes of the nonce
KINDS = ("seat", "host", "table")


class UnknownSession(RoomError):
    """No session has this id: the Pi restarted, or the code's keys were retired. The phone
    says hello again (its code is still in its page's address) and sends again."""
    code, status = "unknown_session", 401


class Replayed(RoomError):
    """A counter that is not above the last one this session accepted: a recorded message
    played again, or one held back and sent late. Nothing changed."""
    code, status = "replayed", 409


class BrokenSeal(RoomError):
    """Bytes that are not sealed under this session's key: altered, cut short, or made by
    someone who does not hold the code. Nothing changed."""
    code, status = "bad_seal", 400


@dataclass
class Session:
    sid: bytes
    token: str = field(repr=False)
    kind: str
    k_up: bytes = field(repr=False)      # the phone's key: requests and tickets
    k_down: bytes = field(repr=False)    # the Pi's key: answers, stream messages, the proof
    last_request: int = 0
    last_ticket: int = 0
    # The ciphers themselves, made once: a stream may seal a whole seat view at every change.
    up: ChaCha20Poly1305 = field(init=False, repr=False, compare=False)
    down: ChaCha20Poly1305 = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        self.up = ChaCha20Poly1305(self.k_up)
        self.down = ChaCha20Poly1305(self.k_down)


def _json(obj) -> bytes:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _shape(plaintext: bytes) -> dict:
    """An opened request or ticket: {"op", "phone", "lang", "body"}, or BadRequest."""
    try:
        message = json.loads(plaintext.decode("utf-8"))
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise BadRequest("the sealed request is not JSON") from None
    if not isinstance(message, dict):
        raise BadRequest("the sealed request must be a JSON object")
    op, phone = message.get("op"), message.get("phone")
    lang, body = message.get("lang"), message.get("body", {})
    if not isinstance(op, str):
        raise BadRequest("the sealed request names no op")
    if not isinstance(phone, str) or not 1 <= len(phone) <= MAX_PHONE:
        raise BadRequest("the sealed request names no phone")
    if lang is not None and not isinstance(lang, str):
        raise BadRequest("lang must be a language's code or null")
    if not isinstance(body, dict):
        raise BadRequest("the sealed request's body must be a JSON object")
    return {"op": op, "phone": phone, "lang": lang, "body": body}


class Sessions:
    """The sessions phones opened, oldest (least recently used) first."""

    def __init__(self, limit: int = MAX_SESSIONS):
        self.limit = limit
        self._by_sid: OrderedDict[bytes, Session] = OrderedDict()

    def __len__(self) -> int:
        return len(self._by_sid)

    def __contains__(self, sid: bytes) -> bool:
        return sid in self._by_sid

    # --- the handshake ---

    def hello(self, codes: dict[str, tuple[str, str]], retired: Iterable[str],
              body: dict) -> dict:
        """A phone's hello for the code with id body["code"], with its ephemeral public key
        body["pub"]: a new session under keys only that code's holders can make.
        `codes`: every live code, id -> (token, kind); `retired`: the ids of retired seat
        codes (their old phone is told its seat was given away)."""
        self.prune(token for token, _ in codes.values())
        if not isinstance(body, dict):
            raise BadRequest("a hello is a JSON object {code, pub}")
        cid, pub_text = body.get("code"), body.get("pub")
        if not isinstance(cid, str) or not isinstance(pub_text, str):
            raise BadRequest("a hello names a code and a public key")
        try:
            phone_pub = unb64url(pub_text)
        except ValueError:
            raise BadRequest("the public key is not base64url") from None
        if len(phone_pub) != KEY_BYTES:
            raise BadRequest("the public key is not 32 bytes")
        if cid not in codes:
            if cid in set(retired):
                raise SeatGivenAway("the host gave this seat a new code for another phone; "
                                    "this phone no longer plays it")
            raise UnknownToken("no code on the kiosk has this id; scan it again")
        token, kind = codes[cid]
        if kind not in KINDS:
            raise ValueError(f"not a kind of code: {kind!r}")
        private, pi_pub = new_keypair()
        try:
            shared = agree(private, phone_pub)
        except BadSeal:  # a small-order point: a secret anyone would know
            raise BadRequest("not a usable public key") from None
        k_up, k_down = session_keys(shared, token, cid, phone_pub, pi_pub)
        sid = secrets.token_bytes(SID_BYTES)
        session = Session(sid, token, kind, k_up, k_down)
        self._by_sid[sid] = session
        while len(self._by_sid) > self.limit:
            self._by_sid.popitem(last=False)
        # The proof is the tag of nothing: only a Pi that holds the token can make it.
        proof = session.down.encrypt(nonce(KIND_PROOF, 0), b"", sid)
        return {"session": b64url(sid), "pub": b64url(pi_pub), "proof": b64url(proof)}

    # --- what phones send ---

    def _open(self, raw: bytes, kind: int) -> tuple[Session, int, dict]:
        if len(raw) < SID_BYTES:
            raise BrokenSeal("too short to be sealed")
        session = self._by_sid.get(bytes(raw[:SID_BYTES]))
        if session is None:
            raise UnknownSession("no such session: say hello again")
        try:
            sid, counter, ciphertext = split_envelope(bytes(raw))
        except BadSeal:
            raise BrokenSeal("too short to be sealed") from None
        last = session.last_request if kind == KIND_REQUEST else session.last_ticket
        if counter <= last:
            raise Replayed("this message was already sent, or sent out of order")
        cipher = session.up
        try:
            plaintext = cipher.decrypt(nonce(kind, counter), ciphertext, sid)
        except Exception:  # InvalidTag, or a ciphertext too short for its tag
            raise BrokenSeal("not sealed for this session") from None
        # The message is the phone's own: its counter is spent even if its contents are
        # refused below, so the same bytes can never be tried twice.
        if kind == KIND_REQUEST:
            session.last_request = counter
        else:
            session.last_ticket = counter
        self._by_sid.move_to_end(sid)
        try:
            return session, counter, _shape(plaintext)
        except BadRequest as error:
            error.session, error.counter = session, counter  # the route may seal its answer
            raise

    def open_request(self, raw: bytes) -> tuple[Session, int, dict]:
        """A sealed request's envelope: (its session, its counter, {"op", "phone", "lang",
        "body"}). Refused before anything changes: UnknownSession, Replayed, BrokenSeal."""
        return self._open(raw, KIND_REQUEST)

    def open_ticket(self, ticket: str) -> tuple[Session, int, dict]:
        """A stream's ticket (b64url text), counted apart from requests so opening a stream
        never races a request's counter."""
        try:
            raw = unb64url(ticket)
        except ValueError:
            raise BrokenSeal("the ticket is not base64url") from None
        return self._open(raw, KIND_TICKET)

    # --- what the Pi sends ---

    def seal_response(self, session: Session, counter: int, status: int, body) -> bytes:
        """The answer to request `counter`: its real status is only inside the seal. `body`
        as JSON bytes (a seat's view, padded already) goes in as it is."""
        if isinstance(body, (bytes, bytearray)):
            plaintext = b'{"status":%d,"body":%s}' % (status, body)
        else:
            plaintext = _json({"status": status, "body": body})
        plaintext = padded(plaintext)
        return session.down.encrypt(nonce(KIND_RESPONSE, counter), plaintext, session.sid)

    def stream_sealer(self, session: Session, n: int) -> Callable[[bytes], bytes]:
        """For the stream ticket `n` opened: seal(plaintext JSON bytes) -> the next message's
        data line (message 0, then 1, 2...): base64 with its standard alphabet, half the cost
        of base64url on the Pi for seven phones' views a command, and a line of an event
        stream needs no more."""
        cipher, sid = session.down, session.sid
        index = 0

        def seal_next(plaintext: bytes) -> bytes:
            nonlocal index
            if index >= MAX_INDEX:
                raise OverflowError("the stream has sent all it may: the phone opens another")
            sealed = cipher.encrypt(nonce(KIND_STREAM, n, index), padded(plaintext), sid)
            index += 1
            return b2a_base64(sealed, newline=False)

        return seal_next

    # --- retiring keys ---

    def retire(self, token: str) -> None:
        """The code `token` is retired: every session opened with it is gone."""
        for sid in [s for s, session in self._by_sid.items() if session.token == token]:
            del self._by_sid[sid]

    def prune(self, live_tokens: Iterable[str]) -> None:
        """Only codes still live keep their sessions."""
        live = set(live_tokens)
        for sid in [s for s, session in self._by_sid.items() if session.token not in live]:
            del self._by_sid[sid]

    def of_token(self, token: str) -> list[Session]:
        return [session for session in self._by_sid.values() if session.token == token]


SESSIONS_KEY = web.AppKey("sessions", Sessions)
