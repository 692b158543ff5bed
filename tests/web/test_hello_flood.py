"""A stranger on the table's Wi-Fi with no code and no key, against the real server on a
loopback port: replaying a phone's recorded hello, or forging hellos, as fast as four
connections go, cuts no phone off the table.

Before, the Pi kept one table of 256 sessions, least recently used out, and a hello proved
nothing: a recorded hello played 256 times pushed a real phone's session out, and under a
flood a phone whose hello came 0.3 s before its request (a slow phone on ordinary Wi-Fi)
failed every request. Now a hello proves its sender holds the code, for one of the Pi's fresh
values; a replay opens nothing; and each code keeps its own sessions. Each flood here is a
bounded loop that stops by itself.
"""
from __future__ import annotations

import asyncio
import secrets
import time

import aiohttp
import pytest

from companion.web import guard
from companion.web.client import Refused, SealedPhone
from companion.web.sealing import b64url, code_id
from companion.web.server import start_server
from companion.web.sessions import COUNTER_TOP, SESSIONS_KEY
from phone import sealed_game

NAMES = ["Ana", "Ben", "Cai", "Dee", "Eli"]
# The flood's own pace is not slowed by the per-address limit here: what holds is the design,
# not the limit (test_a_flood_from_one_address_is_slowed_to_a_few_hellos_a_second has that).
UNLIMITED = guard.Limits(hello_burst=1_000_000, hellos_per_second=1_000_000.0)
GAP = 0.3  # seconds between a slow phone's hello and its request


@pytest.fixture
async def open_server(room):
    """open_server(limits) -> (base URL, the app's Sessions); every server is cleaned up."""
    runners = []

    async def start(limits: guard.Limits):
        runner = await start_server(room, "127.0.0.1", 0, limits)
        runners.append(runner)
        host, port = runner.addresses[0][:2]
        return f"http://{host}:{port}", runner.app[SESSIONS_KEY]

    yield start
    for runner in runners:
        await runner.cleanup()


@pytest.fixture
async def http():
    async with aiohttp.ClientSession() as session:
        yield session


async def post_hello(http: aiohttp.ClientSession, base: str, body: dict) -> tuple[int, bytes]:
    async with http.post(base + "/api/hello", json=body) as response:
        return response.status, await response.read()


async def flood(http: aiohttp.ClientSession, base: str, bodies: list[dict], *,
                connections: int = 4, most: int = 2000, seconds: float = 8.0,
                until: asyncio.Event | None = None) -> list[tuple[int, bytes]]:
    """`bodies` posted round and round on `connections` connections: `most` hellos at most,
    for `seconds` at most, or until `until` is set. Every answer, in no order."""
    answers: list[tuple[int, bytes]] = []
    deadline = time.monotonic() + seconds
    sent = 0

    async def one_connection() -> None:
        nonlocal sent
        connector = aiohttp.TCPConnector(limit=1)
        async with aiohttp.ClientSession(connector=connector) as own:
            while sent < most and time.monotonic() < deadline and not (until and until.is_set()):
                body = bodies[sent % len(bodies)]
                sent += 1
                answers.append(await post_hello(own, base, body))

    await asyncio.gather(*(one_connection() for _ in range(connections)))
    return answers


async def recorded_hello(http, base: str, token: str) -> dict:
    """A phone's genuine hello, as a recorder on the Wi-Fi captured it: it opened the phone's
    session when it was sent."""
    phone = SealedPhone(http, base, token)
    body = phone.hello_body(await phone.fresh())
    status, _ = await post_hello(http, base, body)
    assert status == 200
    return body


async def test_a_flood_of_replayed_and_forged_hellos_cuts_no_phone_off(room, open_server, http):
    base, sessions = await open_server(UNLIMITED)
    host, seats = await sealed_game(room, base, http, NAMES)
    fresh = await seats[0].fresh()
    forged = [{"code": code_id(seat.token), "pub": b64url(secrets.token_bytes(32)),
               "fresh": fresh, "proof": b64url(secrets.token_bytes(16))} for seat in seats]
    bodies = [await recorded_hello(http, base, seat.token) for seat in seats] + forged
    done = asyncio.Event()
    flooding = asyncio.create_task(flood(http, base, bodies, until=done))

    async def slow_phone(phone: SealedPhone) -> list[int]:
        statuses = []
        for _ in range(4):
            await phone.hello()
            sid = phone.sid
            await asyncio.sleep(GAP)
            counter, sealed = phone.sealed_request("view")
            status, raw = await phone.post_sealed(sealed)
            # the session the hello opened still stands: no silent second hello hid a loss
            statuses.append(status if phone.sid == sid else -1)
            if status == 200:
                assert phone.open_answer(counter, raw).status == 200
        return statuses

    try:
        results = await asyncio.gather(*(slow_phone(phone) for phone in seats))
    finally:
        done.set()
        answers = await flooding
    assert results == [[200] * 4] * len(seats)
    assert len(answers) > 100  # the flood really ran alongside
    assert {status for status, _ in answers} == {404}
    assert {raw for _, raw in answers} == {await unknown_answer(http, base)}
    for phone in seats:  # each code holds only what its own phone opened
        assert len(sessions.of_token(phone.token)) <= 4
        assert (await phone.call("view")).status == 200
    assert (await host.call("view")).status == 200


async def unknown_answer(http, base: str) -> bytes:
    phone = SealedPhone(http, base, secrets.token_urlsafe(16))
    status, raw = await post_hello(http, base, phone.hello_body(await phone.fresh()))
    assert status == 404
    return raw


async def test_a_replayed_hello_is_answered_byte_for_byte_as_an_unknown_code(
        room, open_server, http):
    """So a recorder cannot even tell, by replaying a phone's hello, that its code is live,
    nor that a seat's code was retired."""
    base, sessions = await open_server(UNLIMITED)
    _, seats = await sealed_game(room, base, http, NAMES, start=False)
    replayed = await recorded_hello(http, base, seats[2].token)
    before = len(sessions)
    answers = {await post_hello(http, base, replayed) for _ in range(20)}
    assert answers == {(404, await unknown_answer(http, base))}
    assert len(sessions) == before


async def test_a_flood_from_one_address_is_slowed_to_a_few_hellos_a_second(
        room, open_server, http):
    """Past a burst, one address's hellos are refused with a typed answer that says how long
    to wait; another address (another phone on the Wi-Fi) is not slowed at all, and the
    refused hellos changed nothing."""
    limits = guard.Limits(hello_burst=10, hellos_per_second=2.0)
    base, sessions = await open_server(limits)
    _, seats = await sealed_game(room, base, http, NAMES, start=False)
    before = len(sessions)
    body = await recorded_hello(http, base, seats[0].token)  # one of the ten
    statuses = []
    for _ in range(20):
        async with http.post(base + "/api/hello", json=body) as response:
            statuses.append(response.status)
            if response.status == 429:
                error = (await response.json())["error"]
                assert error["code"] == "too_many_hellos" and "too often" in error["message"]
                assert int(response.headers["Retry-After"]) >= 1
    assert statuses.count(404) <= 9 and statuses[-5:] == [429] * 5
    assert len(sessions) == before + 1  # the recorded one's, when it was genuine
    connector = aiohttp.TCPConnector(local_addr=("127.0.0.2", 0))
    async with aiohttp.ClientSession(connector=connector) as elsewhere:
        phone = SealedPhone(elsewhere, base, seats[1].token, phone=seats[1].phone)
        assert (await phone.call("view")).status == 200


async def test_a_phone_told_to_wait_waits_and_then_gets_in(room, open_server, http):
    base, _ = await open_server(guard.Limits(hello_burst=2, hellos_per_second=1.0))
    _, seats = await sealed_game(room, base, http, ["Ana", "Ben", "Cai"], start=False)
    phone = SealedPhone(http, base, seats[0].token, phone=seats[0].phone)
    began = time.monotonic()
    assert (await phone.call("view")).status == 200  # its hello was told to wait, then went
    assert time.monotonic() - began >= 0.5
    with pytest.raises(Refused) as refused:  # and one that will not wait is told why
        for _ in range(3):
            await SealedPhone(http, base, seats[1].token).hello(waits=0)
    assert (refused.value.status, refused.value.code) == (429, "too_many_hellos")


async def test_a_phone_whose_counter_reaches_its_top_goes_on_under_a_new_session(
        room, open_server, http):
    base, sessions = await open_server(UNLIMITED)
    _, seats = await sealed_game(room, base, http, NAMES)
    phone = seats[3]
    await phone.call("view")
    old = phone.sid
    phone.counter = COUNTER_TOP - 1
    assert (await phone.call("view")).status == 200  # the top itself: the last it sends
    assert phone.sid == old
    assert (await phone.call("view")).status == 200  # a new hello first, by itself
    assert phone.sid != old and phone.counter == 1
    # a phone that does not know the top is refused above it and recovers the same way
    phone.counter = COUNTER_TOP
    counter, sealed = phone.sealed_request("view")
    status, raw = await phone.post_sealed(sealed)
    assert status == 401 and b"unknown_session" in raw
    phone.ticket_counter = COUNTER_TOP
    async for message in phone.events():
        assert message["view"]
        break
    assert phone.ticket_counter == 1
