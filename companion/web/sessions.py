"""The Pi's side of the seal on a seat's traffic: the sessions phones opened with a hello, and
the opening and sealing of what they send and are sent (companion/web/sealing.py holds the
primitives, docs/http-api.md "Sealed traffic" the protocol).

A hello counts only if it proves that its sender holds the code, for one of this Pi's fresh
values (`Fresh`): one recorded on the Wi-Fi and played again, or made up without the code,
opens nothing, pushes nobody out, and is told exactly what a code nobody showed is told.
Sessions are kept per code, each code its own few, so no traffic for one code (or for none)
can take another code's away.

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

import hmac
import json
import secrets
import time
from binascii import b2a_base64
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Callable, Iterable

from aiohttp import web
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

from ..core.claims import SeatGivenAway
from ..core.refusals import BadRequest, RoomError, UnknownToken
from .sealing import (FRESH_BYTES, HELLO_PROOF_BYTES, KEY_BYTES, KIND_PROOF, KIND_REQUEST,
                      KIND_RESPONSE, KIND_STREAM, KIND_TICKET, SID_BYTES, BadSeal, agree,
                      b64url, hello_proof, nonce, new_keypair, padded, session_keys,
                      split_envelope, unb64url)

# A code's own few most recent sessions: a seat's phone with a tab or two, the host's pages,
# every phone at the table choosing its seat from the table code. No traffic for one code, or
# for none, can push out a session of another.
PER_CODE = {"seat": 4, "host": 4, "table": 16}
MAX_PHONE = 64         # a phone's secret is 22 characters; anything longer is not ours
MAX_INDEX = 1 << 24    # a stream's messages are numbered in 3 bytes of the nonce
# The highest request or ticket counter a session takes: a phone that gets there (years of
# play) says hello again and goes on under a new session, as after the Pi forgot it.
COUNTER_TOP = (1 << 32) - 1
FRESH_SECONDS = 60.0   # how long a fresh value opens a hello: a slow phone's load and more
KINDS = tuple(PER_CODE)
UNKNOWN = "no code on the kiosk has this id; scan it again"


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


def _hello_parts(body) -> tuple[str, bytes, bytes, bytes]:
    """A hello's (code id, phone key, fresh value, tag), or BadRequest: its shape alone,
    refused before anything tells whether the code is live."""
    if not isinstance(body, dict):
        raise BadRequest("a hello is a JSON object {code, pub, fresh, proof}")
    fields = [body.get(name) for name in ("code", "pub", "fresh", "proof")]
    if not all(isinstance(value, str) for value in fields):
        raise BadRequest("a hello names a code, a public key, a fresh value and a proof")
    try:
        phone_pub, fresh, proof = (unb64url(value) for value in fields[1:])
    except ValueError:
        raise BadRequest("the hello's key, fresh value and proof are base64url") from None
    if len(phone_pub) != KEY_BYTES:
        raise BadRequest("the public key is not 32 bytes")
    if len(proof) != HELLO_PROOF_BYTES:
        raise BadRequest(f"the proof is {HELLO_PROOF_BYTES} bytes")
    return fields[0], phone_pub, fresh, proof


class Fresh:
    """The Pi's fresh values: what a hello must carry, so that a recorded hello goes stale.
    A value is the Pi's clock in milliseconds and a tag of it under a key drawn at start: only
    this Pi, since it started, can make one, and it says by itself how old it is."""

    def __init__(self, clock: Callable[[], float] = time.monotonic):
        self.clock = clock
        self._key = secrets.token_bytes(KEY_BYTES)

    def _tag(self, stamp: bytes) -> bytes:
        return hmac.digest(self._key, b"darkmoon fresh\0" + stamp, "sha256")[:FRESH_BYTES - 8]

    def issue(self) -> str:
        stamp = int(self.clock() * 1000).to_bytes(8, "big")
        return b64url(stamp + self._tag(stamp))

    def check(self, raw: bytes) -> bool:
        """Whether `raw` is one of this Pi's values, made at most FRESH_SECONDS ago."""
        if len(raw) != FRESH_BYTES:
            return False
        stamp, tag = raw[:8], raw[8:]
        if not hmac.compare_digest(tag, self._tag(stamp)):
            return False
        age = self.clock() - int.from_bytes(stamp, "big") / 1000
        return 0 <= age <= FRESH_SECONDS


class Sessions:
    """The sessions phones opened, kept per code: each code's own few, least recently used
    first, so nothing done with one code (or with none) can push out another code's."""

    def __init__(self, clock: Callable[[], float] = time.monotonic):
        self.fresh = Fresh(clock)
        self._by_sid: dict[bytes, Session] = {}
        self._by_token: dict[str, OrderedDict[bytes, None]] = {}
        # The phone keys of the hellos accepted lately, per code, until their fresh value
        # goes stale: a hello played again opens nothing. Only hellos whose proof held are
        # kept, so nobody without a code can grow it.
        self._heard: dict[str, dict[bytes, float]] = {}

    def __len__(self) -> int:
        return len(self._by_sid)

    def __contains__(self, sid: bytes) -> bool:
        return sid in self._by_sid

    # --- the handshake ---

    def hello(self, codes: dict[str, tuple[str, str]], retired: dict[str, str],
              body: dict) -> dict:
        """A phone's hello for the code with id body["code"], with its ephemeral public key
        body["pub"], one of this Pi's fresh values body["fresh"] and body["proof"], the hello's
        tag under the code (sealing.hello_proof): a new session under keys only that code's
        holders can make. `codes`: every live code, id -> (token, kind); `retired`: retired
        seat codes, id -> token (their old phone is told its seat was given away).

        A hello that proves nothing (an unknown id, a wrong tag, a stale or foreign fresh
        value, or one heard already) opens nothing, pushes out nothing, and is refused in
        the very words an unknown code is: it tells nobody whether a code is live."""
        self.prune(token for token, _ in codes.values())
        cid, phone_pub, fresh, proof = _hello_parts(body)
        token, kind = codes.get(cid) or (retired.get(cid), "retired")
        # The tag is worked out for an unknown id too, so how long a refusal takes says
        # nothing of which ids are live.
        expected = hello_proof(token or UNKNOWN, cid, phone_pub, fresh)
        if (not self.fresh.check(fresh) or token is None
                or not hmac.compare_digest(expected, proof)):
            raise UnknownToken(UNKNOWN)
        heard = self._heard.setdefault(token, {})
        now = self.fresh.clock()
        for key in [k for k, until in heard.items() if until < now]:
            del heard[key]
        if phone_pub in heard:
            raise UnknownToken(UNKNOWN)
        if kind == "retired":
            raise SeatGivenAway("the host gave this seat a new code for another phone; "
                                "this phone no longer plays it")
        if kind not in KINDS:
            raise ValueError(f"not a kind of code: {kind!r}")
        private, pi_pub = new_keypair()
        try:
            shared = agree(private, phone_pub)
        except BadSeal:  # a small-order point: a secret anyone would know
            raise BadRequest("not a usable public key") from None
        heard[phone_pub] = now + FRESH_SECONDS
        k_up, k_down = session_keys(shared, token, cid, phone_pub, pi_pub)
        sid = secrets.token_bytes(SID_BYTES)
        session = Session(sid, token, kind, k_up, k_down)
        self._by_sid[sid] = session
        own = self._by_token.setdefault(token, OrderedDict())
        own[sid] = None
        while len(own) > PER_CODE[kind]:
            del self._by_sid[own.popitem(last=False)[0]]
        # The proof is the tag of nothing: only a Pi that holds the token can make it.
        answer = session.down.encrypt(nonce(KIND_PROOF, 0), b"", sid)
        return {"session": b64url(sid), "pub": b64url(pi_pub), "proof": b64url(answer)}

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
        if counter > COUNTER_TOP:
            raise UnknownSession("this session has sent all it may: say hello again")
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
        self._by_token[session.token].move_to_end(sid)
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
        for sid in self._by_token.pop(token, ()):
            del self._by_sid[sid]
        self._heard.pop(token, None)

    def prune(self, live_tokens: Iterable[str]) -> None:
        """Only codes still live keep their sessions."""
        live = set(live_tokens)
        for token in [t for t in self._by_token.keys() | self._heard.keys() if t not in live]:
            self.retire(token)

    def of_token(self, token: str) -> list[Session]:
        return [self._by_sid[sid] for sid in self._by_token.get(token, ())]


SESSIONS_KEY = web.AppKey("sessions", Sessions)
