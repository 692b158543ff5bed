"""A phone in Python: the reference client of the sealed seat traffic, as static/seal.js is
the phones' (the tests, the benches and the headless table use it; docs/http-api.md
"Sealed traffic" describes the protocol for another client).

It holds one code's token (what the kiosk's QR code gives a camera) and the phone's secret,
says hello (with one of the Pi's fresh values and the proof that it holds the code), and
sends one sealed request at a time with a rising counter, as a phone's page does: if the Pi
forgot the session (it restarted, or the code's keys were retired), or the session's counter
reached its top, it says hello once more and sends again.
"""
from __future__ import annotations

import asyncio
import json
import secrets
from base64 import b64decode
from dataclasses import dataclass
from typing import AsyncIterator, Callable

import aiohttp

from .sealing import (KEY_BYTES, KIND_PROOF, KIND_REQUEST, KIND_RESPONSE, KIND_STREAM,
                      KIND_TICKET, SID_BYTES, TAG_BYTES, BadSeal, agree, b64url, code_id,
                      envelope, hello_proof, new_keypair, nonce, open_sealed, seal,
                      session_keys, unb64url)
from .sessions import COUNTER_TOP


class Refused(Exception):
    """The Pi said no: a plain refusal (hello, an unknown session, a replay) or one inside
    the seal (the room's or the rules')."""

    def __init__(self, status: int, code: str, message: str = ""):
        super().__init__(f"{status} {code}: {message}")
        self.status, self.code, self.message = status, code, message


@dataclass
class Answer:
    status: int     # the status the op had (only ever inside the seal)
    data: object    # the answer's JSON: {"error": {...}} for a refusal


def _json(obj) -> bytes:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


async def _refusal(response: aiohttp.ClientResponse) -> Refused:
    try:
        error = (await response.json(content_type=None))["error"]
        return Refused(response.status, error["code"], error.get("message", ""))
    except (ValueError, KeyError, TypeError, aiohttp.ContentTypeError):
        return Refused(response.status, "http_error", response.reason or "")


class SealedPhone:
    """One phone holding one code: `await phone.ok("claim")`, `async for m in phone.events()`."""

    def __init__(self, http: aiohttp.ClientSession | None, base: str, token: str, *,
                 phone: str | None = None):
        self.http, self.base, self.token = http, base.rstrip("/"), token
        self.phone = phone if phone is not None else secrets.token_urlsafe(16)
        self.code = code_id(token)
        self.sid: bytes | None = None
        self.k_up = self.k_down = b""
        self.counter = 0          # the last request's
        self.ticket_counter = 0   # the last stream ticket's
        self._private = None
        self._pub = b""
        self._lock = asyncio.Lock()  # one request at a time, as a phone's page queues them

    # --- the handshake ---

    def hello_body(self, fresh: str) -> dict:
        """A fresh ephemeral key, and the proof that this phone holds the code: the body of
        POST /api/hello, for the Pi's fresh value `fresh` (GET /api/hello)."""
        self._private, self._pub = new_keypair()
        proof = hello_proof(self.token, self.code, self._pub, unb64url(fresh))
        return {"code": self.code, "pub": b64url(self._pub), "fresh": fresh,
                "proof": b64url(proof)}

    def accept_hello(self, answer: dict) -> None:
        """The Pi's answer to hello_body(): the session keys, once its proof shows the Pi
        knows the token (a Pi that does not is told nothing)."""
        try:
            sid, pi_pub = unb64url(answer["session"]), unb64url(answer["pub"])
            proof = unb64url(answer["proof"])
        except (KeyError, TypeError, ValueError) as error:
            raise BadSeal("not an answer to a hello") from error
        if len(sid) != SID_BYTES or len(pi_pub) != KEY_BYTES or len(proof) != TAG_BYTES:
            raise BadSeal("not an answer to a hello")
        k_up, k_down = session_keys(agree(self._private, pi_pub), self.token, self.code,
                                    self._pub, pi_pub)
        if open_sealed(k_down, nonce(KIND_PROOF, 0), sid, proof) != b"":
            raise BadSeal("the proof is not of nothing")
        self.sid, self.k_up, self.k_down = sid, k_up, k_down
        self.counter = self.ticket_counter = 0

    async def fresh(self) -> str:
        async with self.http.get(f"{self.base}/api/hello") as response:
            if response.status != 200:
                raise await _refusal(response)
            return (await response.json())["fresh"]

    async def hello(self, *, waits: int = 3) -> None:
        """A new session. Told to wait (too many hellos from this address), it waits as long
        as the Pi says, `waits` times at most."""
        for attempt in range(waits + 1):
            body = self.hello_body(await self.fresh())
            async with self.http.post(f"{self.base}/api/hello", json=body) as response:
                if response.status == 200:
                    self.accept_hello(await response.json())
                    return
                refused = await _refusal(response)
                wait = response.headers.get("Retry-After", "")
            if refused.code != "too_many_hellos" or attempt == waits or not wait.isdigit():
                raise refused
            await asyncio.sleep(int(wait))

    def spent(self) -> bool:
        """Whether this session's counters are at their top: the next message says hello
        first and goes under a new session."""
        return max(self.counter, self.ticket_counter) >= COUNTER_TOP

    # --- requests ---

    def _sealed(self, kind: int, counter: int, plaintext: dict) -> bytes:
        if self.sid is None:
            raise RuntimeError("say hello first")
        return envelope(self.sid, counter,
                        seal(self.k_up, nonce(kind, counter), self.sid, _json(plaintext)))

    def sealed_request(self, op: str, body=None, *, lang=None) -> tuple[int, bytes]:
        """(counter, envelope) of the next request, not sent: for tests of what a recorder
        on the Wi-Fi could do with it."""
        self.counter += 1
        message = {"op": op, "phone": self.phone, "lang": lang,
                   "body": {} if body is None else body}
        return self.counter, self._sealed(KIND_REQUEST, self.counter, message)

    async def post_sealed(self, sealed: bytes) -> tuple[int, bytes]:
        """POST an envelope as it is: (HTTP status, body bytes)."""
        async with self.http.post(f"{self.base}/api/sealed", data=sealed,
                                  headers={"Content-Type": "application/octet-stream"}) as r:
            return r.status, await r.read()

    def open_answer(self, counter: int, raw: bytes) -> Answer:
        plaintext = open_sealed(self.k_down, nonce(KIND_RESPONSE, counter), self.sid, raw)
        message = json.loads(plaintext.decode("utf-8"))
        return Answer(message["status"], message["body"])

    async def call(self, op: str, body=None, *, lang=None) -> Answer:
        """Send op sealed and open its answer (a refusal inside the seal is an Answer with
        its status; a plain refusal raises Refused)."""
        async with self._lock:
            if self.sid is None or self.spent():
                await self.hello()
            for attempt in (0, 1):
                counter, sealed = self.sealed_request(op, body, lang=lang)
                status, raw = await self.post_sealed(sealed)
                if status == 200:
                    return self.open_answer(counter, raw)
                refused = _refusal_of(status, raw)
                if refused.code == "unknown_session" and attempt == 0:
                    await self.hello()  # the Pi forgot us: a new session, a fresh counter
                    continue
                raise refused

    async def ok(self, op: str, body=None, *, lang=None) -> object:
        """The answer's data, or Refused if the op was refused."""
        answer = await self.call(op, body, lang=lang)
        if answer.status >= 400:
            error = answer.data.get("error", {}) if isinstance(answer.data, dict) else {}
            raise Refused(answer.status, error.get("code", "http_error"),
                          error.get("message", ""))
        return answer.data

    # --- the stream ---

    def sealed_ticket(self, *, lang=None) -> tuple[int, str]:
        """(n, ticket) for the next stream, not sent."""
        self.ticket_counter += 1
        message = {"op": "events", "phone": self.phone, "lang": lang}
        return self.ticket_counter, b64url(self._sealed(KIND_TICKET, self.ticket_counter,
                                                        message))

    def stream_opener(self, n: int) -> Callable[[str], dict]:
        """open(data line's text) -> the plaintext of the stream's next message: only
        message 0, then 1, 2... open; a replayed, reordered or altered one raises BadSeal."""
        sid, key = self.sid, self.k_down
        index = 0

        def open_next(text: str) -> dict:
            nonlocal index
            try:
                data = b64decode(text, validate=True)
            except ValueError as error:
                raise BadSeal("not a sealed message") from error
            plaintext = open_sealed(key, nonce(KIND_STREAM, n, index), sid, data)
            index += 1
            return json.loads(plaintext.decode("utf-8"))

        return open_next

    async def _open_stream(self, lang) -> tuple[aiohttp.ClientResponse, int]:
        async with self._lock:
            if self.sid is None or self.spent():
                await self.hello()
            for attempt in (0, 1):
                n, ticket = self.sealed_ticket(lang=lang)
                response = await self.http.get(f"{self.base}/api/sealed/events",
                                               params={"t": ticket})
                if response.status == 200:
                    return response, n
                refused = await _refusal(response)
                response.release()
                if refused.code == "unknown_session" and attempt == 0:
                    await self.hello()
                    continue
                raise refused

    async def events(self, *, lang=None) -> AsyncIterator[dict]:
        """The stream's messages, opened, in order ({"view", "notices"}, or last
        {"refused"}); BadSeal if one is not the next message of this stream."""
        response, n = await self._open_stream(lang)
        open_next = self.stream_opener(n)
        try:
            event, data = "message", []
            async for line in response.content:
                line = line.decode("utf-8").rstrip("\r\n")
                if line == "":
                    if event == "m" and data:
                        yield open_next("".join(data))
                    event, data = "message", []
                elif line.startswith(":") or line.startswith("retry:"):
                    continue  # a ping or the reconnection hint
                elif line.startswith("event:"):
                    event = line[6:].strip()
                elif line.startswith("data:"):
                    data.append(line[5:].strip())
        finally:
            response.close()


def _refusal_of(status: int, raw: bytes) -> Refused:
    try:
        error = json.loads(raw.decode("utf-8"))["error"]
        return Refused(status, error["code"], error.get("message", ""))
    except (ValueError, KeyError, TypeError, UnicodeDecodeError):
        return Refused(status, "http_error", "")
