"""Shared fixtures for the web tests: a real Room on a real SQLite file, the real aiohttp server
on a free loopback port, and phones: each a `Phone` (tests/web/phone.py), one browser with its
own phone secret, whose seat and host traffic goes sealed through the real protocol.

`unsafe=True` on the cookie jars of `client_session`: aiohttp's client refuses cookies from
an IP-address host otherwise (the Pi sets none now; a test that copies an old one needs it).
"""
from __future__ import annotations

import asyncio
import json

import aiohttp
import pytest

from companion.core.room import Room
from companion.core.store import EventStore
from companion.web.server import start_server
from phone import Phone, Stream

WAIT = 10  # seconds: only a guard against a hang, never a measure of speed


@pytest.fixture
async def room(tmp_path):
    """A seeded room with no bot delay, attached to the test's loop."""
    store = EventStore(tmp_path / "g.db")
    room = Room(store, seed=7, bot_delay=0)
    room.attach(asyncio.get_running_loop())
    yield room
    await room.close()
    store.close()


@pytest.fixture
async def server(room):
    """The web server for `room` on 127.0.0.1 and a port the system picked; its base URL."""
    runner = await start_server(room, "127.0.0.1", 0)
    host, port = runner.addresses[0][:2]
    yield f"http://{host}:{port}"
    await runner.cleanup()


@pytest.fixture
async def client_session():
    """client_session(**options) -> an aiohttp client session with its own cookie jar (a
    browser's own; the Pi sets no cookie now); every one is closed after the test."""
    sessions: list[aiohttp.ClientSession] = []

    def make(**options) -> aiohttp.ClientSession:
        session = aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True), **options)
        sessions.append(session)
        return session

    yield make
    for session in sessions:
        await session.close()


@pytest.fixture
async def new_phone(server, client_session):
    """new_phone(phone=None) -> a Phone: one browser with its own phone secret (or the given
    one: the same browser again)."""
    return lambda phone=None: Phone(client_session(), server, phone)


class EventStream(Stream):
    """A Server-Sent Events reader over one open response: `await next()` gives the next
    (event, data) pair, with data parsed as JSON."""

    def __init__(self, response: aiohttp.ClientResponse):
        self.response = response
        self.raw = bytearray()  # every byte received, for secrecy checks

    async def next(self) -> tuple[str, object]:
        event, data = "message", []
        while True:
            line = await asyncio.wait_for(self.response.content.readline(), WAIT)
            if not line:
                raise EOFError("the stream ended")
            self.raw += line
            line = line.decode().rstrip("\r\n")
            if line == "":
                if data:
                    return event, json.loads("\n".join(data))
                event = "message"  # a comment or a retry hint: no message
            elif line.startswith("event:"):
                event = line[6:].strip()
            elif line.startswith("data:"):
                data.append(line[5:].lstrip(" "))



@pytest.fixture
async def open_stream():
    """open_stream(phone, path) -> the stream: a seat's or the host's (`/api/seat/{t}/events`,
    `/api/host/{t}/events`) sealed, opened by the Phone (a SealedStream); any other (the
    board's) plain, an EventStream, which must answer 200 with an event stream. Every stream
    is closed after the test."""
    streams: list = []

    async def opener(phone, path: str):
        if isinstance(phone, Phone) and path.rstrip("/").endswith("/events") and \
                ("/api/seat/" in path or "/api/host/" in path):
            stream = await phone.open_stream(path)
        else:
            http = phone.http if isinstance(phone, Phone) else phone
            if isinstance(phone, Phone) and path.startswith("/"):
                path = phone.base + path
            response = await http.get(path)
            assert response.status == 200, await response.text()
            assert response.headers["Content-Type"].startswith("text/event-stream")
            stream = EventStream(response)
        streams.append(stream)
        return stream

    yield opener
    for stream in streams:
        await stream.close()


class Seating:
    """A game set up through the host's phone, with one phone per seat (the QR codes read
    from the kiosk's view, as a phone's camera would)."""

    def __init__(self, room: Room, host: Phone, seats: list):
        self.room = room
        self.host = host
        self.seats = seats  # [(phone, token)]

    def seat_url(self, seat: int, tail: str = "") -> str:
        return f"/api/seat/{self.seats[seat][1]}{tail}"

    @property
    def host_url(self) -> str:
        return f"/api/host/{self.room.host_token}"


@pytest.fixture
async def set_up_game(room, new_phone):
    """set_up_game(names, start=True, claim=True) -> Seating: the host claims the host code,
    sets up a game and (claim) every seat is claimed by a phone of its own (a bot's seat by
    none: no phone may claim it), then (start) the game starts."""

    async def setup(names, start: bool = True, claim: bool = True, **game) -> Seating:
        host = new_phone()
        response = await host.post(f"/api/host/{room.host_token}/claim")
        assert response.status == 200, await response.text()
        response = await host.post(f"/api/host/{room.host_token}/game",
                                   json={"setup": {"names": list(names)}, **game})
        assert response.status == 200, await response.text()
        seats = []
        for seat, token in enumerate(room.kiosk_view()["seat_tokens"]):
            phone = new_phone()
            if token is None:  # a bot's seat: no code on the kiosk, no phone may claim it
                token = room.lobby["seats"][seat]["token"]
            elif claim:
                response = await phone.post(f"/api/seat/{token}/claim")
                assert (await response.json()) == {"seat": seat}
            seats.append((phone, token))
        table = Seating(room, host, seats)
        if start:
            response = await host.post(f"{table.host_url}/start")
            assert response.status == 200, await response.text()
        return table

    return setup


@pytest.fixture
async def http():
    """One HTTP client for sealed phones (companion/web/client.py), with a jar that would keep
    any cookie, even from an IP address: a test can check it stays empty."""
    async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as session:
        yield session
