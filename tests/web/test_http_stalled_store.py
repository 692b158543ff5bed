"""A frozen SD card: the store's writes hang for as long as it is frozen. A phone used to wait
for its answer as long as the card (21 s measured), though docs/http-api.md promised an
answer within 5 s. Now a change not saved within 5 s is answered `503 store_slow`: it is
still being saved and counts once it is (every screen shows it then); a retry meanwhile is
refused at once, so nothing is done twice, and nothing is lost."""
from __future__ import annotations

import asyncio
import random
import threading
import time

import pytest

from companion.tools.simulate import choice_for

NAMES = ["Ana", "Ben", "Cai", "Dee"]
WAIT = 15  # a guard against a hang only


@pytest.fixture
def frozen(room, monkeypatch):
    """`card.clear()` freezes the card: the store's writes (a command's events, the room's
    record) then wait until `card.set()`. Thawed at the end, so the writer thread can stop."""
    thaw = threading.Event()
    thaw.set()
    store = room.store
    for name in ("append", "put_setting"):
        real = getattr(store, name)

        def stalled(*args, real=real, **kwargs):
            thaw.wait(60)
            return real(*args, **kwargs)
        monkeypatch.setattr(store, name, stalled)
    yield thaw
    thaw.set()


def legal_command(room) -> tuple[int, dict]:
    g = room.table.state
    seat = g.pending.seats[0]
    return seat, {**choice_for(g, seat, random.Random(3)), "state_id": g.state_id}


async def timed(request) -> tuple[float, object]:
    start = time.monotonic()
    response = await asyncio.wait_for(request, WAIT)
    return time.monotonic() - start, response


async def slow_answer(response) -> str:
    assert response.status == 503, await response.text()
    assert response.content_type == "application/json"
    assert response.sealed  # the op's answer, under an HTTP 200 (tests/web/phone.py)
    error = (await response.json())["error"]
    assert error["code"] == "store_slow"
    return error["message"]


async def test_a_command_on_a_frozen_card_is_answered_in_5_s_and_counts_once_saved(
        room, set_up_game, open_stream, frozen):
    table = await set_up_game(NAMES)
    seat, command = legal_command(room)
    phone, _ = table.seats[seat]
    stream = await open_stream(phone, table.seat_url(seat, "/events"))
    before = (await stream.next_view())["view"]["state_id"]
    stored = room.store.last_seq(room.table.game_id)

    frozen.clear()
    waited, response = await timed(phone.post(table.seat_url(seat, "/command"), json=command))
    message = await slow_answer(response)
    assert 4.5 <= waited < 7, waited  # the documented 5 s, not the card's freeze
    assert "still being saved" in message
    # The player taps again: refused at once, and not queued behind the first.
    waited, response = await timed(phone.post(table.seat_url(seat, "/command"), json=command))
    assert "not taken" in await slow_answer(response)
    assert waited < 2, waited
    assert room.table.state_id == before

    frozen.set()  # the card comes back: the move lands, once, and the phone sees it
    view = await stream.next_view(lambda p: p["view"]["state_id"] > before)
    assert view["view"]["state_id"] == before + 1
    assert room.store.last_seq(room.table.game_id) == stored + 1
    # and the table plays on as usual
    seat, command = legal_command(room)
    response = await table.seats[seat][0].post(table.seat_url(seat, "/command"), json=command)
    assert response.status == 200, await response.text()


async def test_changes_queued_behind_a_frozen_room_write_are_answered_too(
        room, set_up_game, frozen):
    """The host's change holds the room's lock while its record is written; a seat's command
    waits for the lock behind it. Both are answered within seconds, and both count, in their
    order, once the card thaws."""
    table = await set_up_game(NAMES)
    seat, command = legal_command(room)
    before = room.table.state_id

    frozen.clear()
    answers = await asyncio.wait_for(asyncio.gather(
        timed(table.host.post(f"{table.host_url}/lang", json={"lang": "es"})),
        timed(table.seats[seat][0].post(table.seat_url(seat, "/command"), json=command))),
        WAIT)
    for waited, response in answers:
        assert "still being saved" in await slow_answer(response)
        assert waited < 7, waited
    assert (room.lang, room.table.state_id) == ("en", before)

    frozen.set()
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT
    while (room.lang, room.table.state_id) != ("es", before + 1):
        assert loop.time() < deadline, (room.lang, room.table.state_id)
        await asyncio.sleep(0.05)
