"""A test phone: one browser, translated for the tests only. The product's client is
companion/web/client.py (`SealedPhone`); this wraps one SealedPhone per code the phone opened,
all under the one phone secret a browser keeps in localStorage, so that the web tests can
still say what a player does in the words of the old routes (`POST /api/seat/{t}/claim`,
`GET /api/host/{t}`...) while every byte of it really goes through the seal: each old route
becomes its op (docs/http-api.md, "The ops"), sent sealed to POST /api/sealed, and its answer
is opened. The public paths (the board, the pages, the catalogues, the fair records) go over
plain HTTP as before.

Every sealed answer is checked on the way: HTTP 200 whatever the op's status, an
application/octet-stream body of whole 1,024-byte blocks and the 16-byte tag, kept by no
cache. The op's own status is `Reply.status`, read from inside the seal.
"""
from __future__ import annotations

import asyncio
import json
import secrets
from collections import deque
from urllib.parse import parse_qs, urlsplit

import aiohttp

from companion.web.client import Refused, SealedPhone
from companion.web.sealing import (BLOCK, KIND_REQUEST, KIND_STREAM, TAG_BYTES, envelope,
                                   nonce, open_sealed, phone_id, seal, unb64url)

WAIT = 10  # seconds: only a guard against a hang, never a measure of speed

# old route tail -> op, by the code's kind ("" is the code's own GET: its view)
SEAT_OPS = {"": "view", "claim": "claim", "leave": "leave", "host": "host", "pledge": "pledge",
            "reveal": "reveal", "command": "command"}
HOST_OPS = {"": "view", "claim": "claim", "game": "game", "start": "start", "again": "again",
            "correct": "correct", "rebind": "rebind", "handover": "handover", "lang": "lang",
            "record": "record"}


def is_sealed_path(path: str) -> bool:
    return urlsplit(path).path.startswith(("/api/seat/", "/api/host/", "/api/join/"))


def sealed_size_ok(n: int) -> bool:
    """A sealed answer: whole blocks of plaintext and the tag."""
    return n >= BLOCK + TAG_BYTES and (n - TAG_BYTES) % BLOCK == 0


class Reply:
    """What a translated request answered, shaped like an aiohttp response: `status` and
    `json()`/`text()`/`read()` are the op's (from inside the seal, `sealed=True`) or a plain
    refusal's (a hello or an envelope refused before anything was opened). `wire` is the
    body's bytes as they crossed the network, `outer_status` and `headers` the HTTP ones."""

    def __init__(self, status: int, data, *, sealed: bool, wire: bytes, outer_status: int,
                 headers, content_type: str):
        self.status, self.data, self.sealed = status, data, sealed
        self.wire, self.outer_status = wire, outer_status
        self.headers, self.content_type = headers, content_type

    async def json(self):
        return self.data

    async def text(self) -> str:
        if isinstance(self.data, dict) and set(self.data) == {"name", "text"}:
            return self.data["text"]  # the game record: its text, as the file held it
        return json.dumps(self.data, ensure_ascii=False)

    async def read(self) -> bytes:
        return (await self.text()).encode()


class Stream:
    """What a test reads of an event stream: `await next()` gives the next (event, data)
    pair (the subclass says how), `next_view(until)` the next view that satisfies `until`."""

    response: aiohttp.ClientResponse

    async def next(self) -> tuple[str, object]:
        raise NotImplementedError

    async def next_view(self, until=lambda payload: True) -> dict:
        """The next `view` event whose payload satisfies `until`, skipping older ones."""
        while True:
            event, data = await self.next()
            if event == "view" and until(data):
                return data

    async def close(self) -> None:
        self.response.close()


class SealedStream(Stream):
    """A sealed event stream as the old EventStream read it: `next()` gives ("view",
    payload), then ("notice", n) for each of that message's notices, and last ("refused",
    {"error": ...}); EOFError once the stream ended. `raw` is every byte received (sealed);
    `plain` the opened plaintexts, `messages` the opened messages, for secrecy checks."""

    def __init__(self, response: aiohttp.ClientResponse, sid: bytes, key: bytes, n: int):
        self.response = response
        self.raw = bytearray()
        self.plain = bytearray()
        self.messages: list[dict] = []
        self.sid, self.key, self.n, self._index = sid, key, n, 0  # the ticket's
        self._queue: deque = deque()

    async def _message(self) -> dict:
        event, data = "message", []
        while True:
            line = await asyncio.wait_for(self.response.content.readline(), WAIT)
            if not line:
                raise EOFError("the stream ended")
            self.raw += line
            line = line.decode("ascii").rstrip("\r\n")
            if line == "":
                if event == "m" and data:
                    return self._open("".join(data))
                event, data = "message", []
            elif line.startswith("event:"):
                event = line[6:].strip()
            elif line.startswith("data:"):
                data.append(line[5:].strip())

    def _open(self, text: str) -> dict:
        """Only the next message of this stream opens (its number is in the nonce)."""
        plaintext = open_sealed(self.key, nonce(KIND_STREAM, self.n, self._index),
                                self.sid, unb64url(text))
        self._index += 1
        assert len(plaintext) % BLOCK == 0, len(plaintext)  # whole blocks, padded
        self.plain += plaintext.rstrip(b" ") + b"\n"
        message = json.loads(plaintext)
        self.messages.append(message)
        return message

    async def next(self) -> tuple[str, object]:
        while not self._queue:
            message = await self._message()
            if "refused" in message:
                self._queue.append(("refused", {"error": message["refused"]}))
            else:
                self._queue.append(("view", message["view"]))
                self._queue.extend(("notice", n) for n in message.get("notices", []))
        return self._queue.popleft()



class Phone:
    """One phone's browser: one secret, one sealed session per code it opened."""

    def __init__(self, http: aiohttp.ClientSession, base: str, phone: str | None = None):
        self.http, self.base = http, base.rstrip("/")
        self.phone = phone if phone is not None else secrets.token_urlsafe(16)
        self._codes: dict[tuple[str, str], SealedPhone] = {}
        self._locks: dict[tuple[str, str], asyncio.Lock] = {}

    @property
    def phone_id(self) -> str:
        """The room's name for this phone (never the secret itself)."""
        return phone_id(self.phone)

    def reload(self) -> Phone:
        """The same browser after a reload: the same secret (localStorage), every code's
        session to say hello for again."""
        return Phone(self.http, self.base, self.phone)

    def _split(self, path: str) -> tuple[str, str, dict]:
        parts = urlsplit(path)
        base = f"{parts.scheme}://{parts.netloc}" if parts.scheme else self.base
        return base, parts.path, parse_qs(parts.query)

    def sealed(self, token: str, base: str | None = None) -> SealedPhone:
        """This phone's SealedPhone for `token` (made on first use; no hello yet)."""
        key = (base or self.base, token)
        if key not in self._codes:
            self._codes[key] = SealedPhone(self.http, key[0], token, phone=self.phone)
            self._locks[key] = asyncio.Lock()
        return self._codes[key]

    async def ready(self, token: str, base: str | None = None) -> SealedPhone:
        """This phone's SealedPhone for `token`, with a session (hello said)."""
        sealed = self.sealed(token, base)
        if sealed.sid is None:
            await sealed.hello()
        return sealed

    async def envelope(self, token: str, op: str, body=None, *, lang=None,
                       raw_body: bytes | None = None) -> tuple[int, bytes]:
        """(counter, envelope) of a request for `token`'s code, sealed, not sent: for the
        tests that send it their own way (slowly, in pieces, twice)."""
        return self._envelope(await self.ready(token), op, body, lang, raw_body)

    @staticmethod
    def translate(method: str, path: str) -> tuple[str, str, bool]:
        """(token, op, is the stream) for an old route path."""
        parts = path.split("/")  # "", "api", kind, token, tail...
        kind, token, tail = parts[2], parts[3], "/".join(parts[4:])
        if kind == "join":
            assert tail == "", path
            return token, "seats", False
        if tail == "events":
            return token, "events", True
        if kind == "host" and tail == "seat":
            return token, ("my_seat" if method == "GET" else "sit"), False
        ops = SEAT_OPS if kind == "seat" else HOST_OPS
        return token, ops.get(tail, tail), False  # an unknown tail: an op of that name

    # --- requests ---

    async def request(self, method: str, path: str, *, json=None, data=None, headers=None,
                      **kw):
        base, route, query = self._split(path)
        if not is_sealed_path(route):
            return await self.http.request(method, base + path if path.startswith("/")
                                           else path, json=json, data=data, headers=headers,
                                           **kw)
        assert not kw, f"no such option for a sealed op: {kw}"
        token, op, streamed = self.translate(method, route)
        assert not streamed, "open a stream with open_stream()"
        lang = query.get("lang", [None])[0]
        return await self.call(token, op, json, lang=lang, raw_body=data, headers=headers,
                               base=base)

    async def get(self, path: str, **kw):
        return await self.request("GET", path, **kw)

    async def post(self, path: str, json=None, **kw):
        return await self.request("POST", path, json=json, **kw)

    async def call(self, token: str, op: str, body=None, *, lang=None, raw_body=None,
                   headers=None, base: str | None = None) -> Reply:
        """`op` sealed for `token`'s code, its answer opened. `raw_body`: bytes spliced in as
        the request's body as they are (not JSON, say), sealed all the same."""
        base = base or self.base
        sealed = self.sealed(token, base)
        async with self._locks[(base, token)]:
            for attempt in (0, 1):
                if sealed.sid is None or attempt:
                    try:
                        await sealed.hello()
                    except Refused as refused:  # a code the Pi does not know (any more)
                        error = {"error": {"code": refused.code, "message": refused.message}}
                        return Reply(refused.status, error, sealed=False, wire=b"",
                                     outer_status=refused.status, headers={},
                                     content_type="application/json")
                counter, envelope_ = self._envelope(sealed, op, body, lang, raw_body)
                response = await self.http.post(
                    f"{base}/api/sealed", data=envelope_,
                    headers={**(headers or {}), "Content-Type": "application/octet-stream"})
                wire = await response.read()
                if response.status == 200:
                    return self._opened(sealed, counter, response, wire)
                plain = Reply(response.status, json_or_none(wire), sealed=False, wire=wire,
                              outer_status=response.status, headers=response.headers,
                              content_type=response.content_type)
                if plain.status == 401 and attempt == 0 and \
                        (plain.data or {}).get("error", {}).get("code") == "unknown_session":
                    continue  # the Pi forgot the session: hello again, send again
                return plain

    def _envelope(self, sealed: SealedPhone, op, body, lang, raw_body) -> tuple[int, bytes]:
        if isinstance(raw_body, str):
            raw_body = raw_body.encode()
        if raw_body is None:
            return sealed.sealed_request(op, body, lang=lang)
        head = json.dumps({"op": op, "phone": sealed.phone, "lang": lang})[:-1]
        plaintext = head.encode() + b', "body": ' + raw_body + b"}"
        sealed.counter += 1
        counter = sealed.counter
        return counter, envelope(sealed.sid, counter, seal(
            sealed.k_up, nonce(KIND_REQUEST, counter), sealed.sid, plaintext))

    @staticmethod
    def _opened(sealed: SealedPhone, counter: int, response, wire: bytes) -> Reply:
        # What crossed the Wi-Fi: 200 whatever the op did, whole blocks, kept by no cache.
        assert response.content_type == "application/octet-stream", response.content_type
        assert sealed_size_ok(len(wire)), len(wire)
        assert response.headers.get("Cache-Control") == "no-store"
        answer = sealed.open_answer(counter, wire)
        return Reply(answer.status, answer.data, sealed=True, wire=wire,
                     outer_status=response.status, headers=response.headers,
                     content_type="application/json")

    # --- streams ---

    async def open_stream(self, path: str, *, lang=None) -> SealedStream:
        """A seat's or the host's stream (`/api/seat/{t}/events`, `/api/host/{t}/events`):
        a ticket sealed for the code's session; Refused if refused before it opened."""
        base, route, query = self._split(path)
        token, op, streamed = self.translate("GET", route)
        assert streamed, path
        lang = lang or query.get("lang", [None])[0]
        sealed = self.sealed(token, base)
        async with self._locks[(base, token)]:
            for attempt in (0, 1):
                if sealed.sid is None or attempt:
                    await sealed.hello()
                n, ticket = sealed.sealed_ticket(lang=lang)
                response = await self.http.get(f"{base}/api/sealed/events",
                                               params={"t": ticket})
                if response.status == 200:
                    assert response.headers["Content-Type"].startswith("text/event-stream")
                    return SealedStream(response, sealed.sid, sealed.k_down, n)
                body = json_or_none(await response.read()) or {}
                response.release()
                error = body.get("error", {})
                if error.get("code") == "unknown_session" and attempt == 0:
                    continue
                raise Refused(response.status, error.get("code", "http_error"),
                              error.get("message", ""))


def json_or_none(raw: bytes):
    try:
        return json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        return None


async def sealed_game(room, server: str, http: aiohttp.ClientSession, names: list[str], *,
                      start: bool = True) -> tuple[SealedPhone, list[SealedPhone]]:
    """The host's phone claims the host code and sets up a game of `names`; a phone per seat
    claims its seat (the codes read from the kiosk, as a camera would); then (start) the game
    starts. All sealed, through the reference client."""
    host = SealedPhone(http, server, room.host_token)
    assert await host.ok("claim") == {"host": True}
    await host.ok("game", {"setup": {"names": names}})
    seats = []
    for seat, token in enumerate(room.kiosk_view()["seat_tokens"]):
        phone = SealedPhone(http, server, token)
        assert await phone.ok("claim") == {"seat": seat}
        seats.append(phone)
    if start:
        assert (await host.ok("start"))["state_id"] == room.table.state_id
    return host, seats
