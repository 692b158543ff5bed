"""The phones', host's and board page's event streams (Server-Sent Events): a whole payload
at once and after every change the stream's audiences hear, a ping now and then, and an end
for all of them at shutdown. The payloads are built by the caller (companion/web/server.py).

The board's stream is plain: it is public. A seat's and the host's are sealed under the
session of the phone's code (companion/web/sessions.py): each message is one `m` event whose
data is the sealed {"view", "notices"}, or last the sealed {"refused"}; only pings are plain,
and they say nothing but that the stream is open."""
from __future__ import annotations

import asyncio
import json
from typing import Callable

from aiohttp import web

from ..core.room import Room, RoomError
from .requests import PACING_KEY

PING_SECONDS = 15     # a comment line now and then finds dead connections
RETRY_MS = 2000       # how soon a browser's EventSource reconnects after a drop


class Streams:
    """The open event streams' wake-up events, so a shutdown can end them all at once; and
    one timer for all of them that wakes each every PING_SECONDS to send a ping, rather than a
    timer per stream made and cancelled at every wake-up (27 of them per command)."""

    def __init__(self) -> None:
        self.wakes: set[asyncio.Event] = set()
        self.closing = False
        self._timer: asyncio.TimerHandle | None = None

    def add(self, wake: asyncio.Event) -> None:
        self.wakes.add(wake)
        if self._timer is None and not self.closing:
            self._timer = asyncio.get_running_loop().call_later(PING_SECONDS, self._ping)

    def _ping(self) -> None:
        self._timer = None
        for wake in self.wakes:
            wake.set()
        if self.wakes and not self.closing:
            self._timer = asyncio.get_running_loop().call_later(PING_SECONDS, self._ping)

    def close(self) -> None:
        self.closing = True
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        for wake in list(self.wakes):
            wake.set()


STREAMS_KEY = web.AppKey("streams", Streams)


async def stream(request: web.Request, room: Room, audiences: tuple,
                 build: Callable[[], bytes],
                 allowed: Callable[[], object] = lambda: None,
                 seal: Callable[[bytes], bytes] | None = None) -> web.StreamResponse:
    """Server-Sent Events: a whole payload now and after every change to `audiences`;
    one-off messages for those audiences (a refused button press) as `notice` events.
    `build()` gives the payload's JSON, built for every message: in the language asked for
    then, since a stream opened without ?lang= follows the room's language when the host
    changes it.
    Woken with no change since its last message (the shared ping timer), it sends a ping.

    `allowed` is asked again before every message: a seat re-bound to another phone, or a
    game replaced by a new one, must stop reaching the phone that held it. The stream then
    ends with a `refused` event carrying the same JSON error a request would get.

    `seal` (a session's stream_sealer): every message sealed as one `m` event instead, the
    payload and its notices together, and the refusal as {"refused": {"code", "message"}}."""
    response = web.StreamResponse(headers={"Content-Type": "text/event-stream",
                                           "Cache-Control": "no-store",
                                           "X-Accel-Buffering": "no"})
    await response.prepare(request)
    wake = asyncio.Event()
    notices: list[dict] = []
    changed = True  # the first message is a whole payload
    counted, owed = False, 0  # this change counted; the writes the kiosk waits for
    streams = request.app[STREAMS_KEY]
    pacing = request.app[PACING_KEY]  # a kiosk redraws a phone's command after these writes

    def heard(_audience, payload: dict | None) -> None:
        nonlocal changed, counted, owed
        if payload is not None:
            notices.append(payload)
        if not counted:  # the kiosk's redraw of this change waits for its write
            counted = True
            owed += 1
            pacing.woken()
        changed = True
        wake.set()

    stops = [room.listen(audience, heard) for audience in audiences]
    together = any(isinstance(audience, int) for audience in audiences)  # a seat's phone
    streams.add(wake)
    try:
        await response.write(f"retry: {RETRY_MS}\n\n".encode())
        wake.set()
        while True:
            await wake.wait()
            wake.clear()
            if streams.closing:
                break
            if not changed:
                await response.write(b": ping\n\n")
                continue
            changed = False
            sending, counted = counted, False  # a change heard from here on is the next's
            try:
                allowed()
            except RoomError as error:
                await response.write(_refused(error, seal))
                break
            chunks = _message(build(), notices, seal)
            notices.clear()
            # Every phone woken by the same change builds its payload first and writes it
            # only after this yield, when all of them are built: the seven phones get a vote's
            # reveal within a few sends of each other, not seven payload builds apart. The
            # board and host pages hide no ballot: they write at once, a loop turn less each.
            if together:
                await asyncio.sleep(0)
            if sending:  # just before the write: its bytes go out in this very turn
                owed -= 1
                pacing.sent()
            await response.write(b"".join(chunks))
    except ConnectionResetError:
        pass  # the phone went away; it reconnects and gets a whole payload again
    finally:
        for _ in range(owed):
            pacing.sent()
        streams.wakes.discard(wake)
        for stop in stops:
            stop()
    return response


def _json(obj) -> bytes:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode()


def _refused(error: RoomError, seal: Callable[[bytes], bytes] | None) -> bytes:
    refusal = {"code": error.code, "message": error.message}
    if seal is None:
        return b"event: refused\ndata: " + _json({"error": refusal}) + b"\n\n"
    return b"event: m\ndata: " + seal(_json({"refused": refusal})) + b"\n\n"


def _message(view: bytes, notices: list[dict], seal: Callable[[bytes], bytes] | None) -> list:
    """One wake's events: the payload (as built: a seat's is padded already), then its
    notices; sealed, both in one message, so nothing tells apart a wake with notices."""
    if seal is not None:
        told = _json(notices) if notices else b"[]"
        return [b"event: m\ndata: " + seal(b'{"view":' + view + b',"notices":' + told + b"}")
                + b"\n\n"]
    return [b"event: view\ndata: " + view + b"\n\n",
            *(b"event: notice\ndata: " + _json(notice) + b"\n\n" for notice in notices)]


async def close_streams(app: web.Application) -> None:
    """On shutdown, end every event stream now rather than after the shutdown timeout."""
    app[STREAMS_KEY].close()
