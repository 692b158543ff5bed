"""On the Pi one CPU draws the kiosk and feeds the phones. A phone's command reaches every
open stream before the kiosk redraws it (the player tapping watches their phone); a seat
button's press is redrawn on the kiosk at once; a stream that never writes holds the kiosk up
for MOST_WAIT at most. Real server, started by the real table host, real streams on loopback
(the seats' and the host's sealed, as the phones open them: sealing each message is part of
the write the kiosk waits for): the streams report to the host's pacing, which the kiosk
asks."""
from __future__ import annotations

import asyncio
import random

import pytest

from companion.core import pacing
from companion.core.host import TableHost
from companion.core.room import PUBLIC
from companion.tools.simulate import choice_for
from hardware.source import KeyboardSource

from test_http_streams import NAMES, all_streams, phone_command


@pytest.fixture
async def host(room):
    """The table host serving the phones on a loopback port the system picks."""
    host = TableHost(room, buttons=KeyboardSource(), port=0, listen_host="127.0.0.1")
    await host.start()
    yield host
    await host.stop()


@pytest.fixture
def server(host) -> str:
    """The phones' server (here the host's, in place of the web tests' own)."""
    address, port = host.address
    return f"http://{address}:{port}"


def kiosk_like(host, seen: list) -> None:
    """What the kiosk does when the table changes: redraw once the phones have it. It
    listens first, as the kiosk does (it is up before any phone connects)."""
    room = host.room
    room.listen(PUBLIC, lambda _audience, payload: payload is None and host.pacing.then(
        lambda: seen.append((room.table.state_id, host.pacing.busy))))


async def watched_game(host, set_up_game, open_stream) -> tuple[list, object, dict]:
    """A game with the kiosk-like listener (what it saw), every stream open and read."""
    seen: list = []
    kiosk_like(host, seen)
    table = await set_up_game(NAMES)
    streams = await all_streams(table, open_stream)
    for stream in streams.values():
        await stream.next_view()
    return seen, table, streams


async def test_a_phones_command_is_written_to_every_stream_before_the_kiosk_redraws(
        room, host, set_up_game, open_stream):
    seen, table, streams = await watched_game(host, set_up_game, open_stream)
    writes = []
    sent = host.pacing.sent
    host.pacing.sent = lambda: (writes.append(room.table.state_id), sent())
    new = await phone_command(room, table)
    for stream in streams.values():
        await stream.next_view(lambda p: p["view"]["state_id"] >= new)
    for _ in range(5):
        await asyncio.sleep(0)
    # the kiosk redrew the command once, when no stream still had it to write, and after
    # all six streams (four seats, the board, the host) had written it
    assert seen[-1] == (new, 0)
    assert writes.count(new) == len(streams)


async def test_a_seat_buttons_press_is_redrawn_at_once(room, host, set_up_game, open_stream):
    seen, _, _ = await watched_game(host, set_up_game, open_stream)
    seat = room.table.state.pending.seats[0]
    await room.submit(seat, choice_for(room.table.state, seat, random.Random(0)))
    for _ in range(3):
        await asyncio.sleep(0)
    # told while the streams were still to write it: the kiosk did not wait for them
    assert seen[-1][0] == room.table.state_id and seen[-1][1] > 0


async def test_a_stream_that_never_writes_holds_the_kiosk_up_no_longer_than_the_most_wait(
        room, host, set_up_game):
    table = await set_up_game(NAMES)
    await phone_command(room, table)  # the latest command is a phone's: the kiosk would wait
    assert room.from_phone
    host.pacing.woken()  # a stream woken that will never write (a phone gone quiet)
    redrawn = asyncio.Event()
    began = asyncio.get_running_loop().time()
    host.pacing.then(redrawn.set)
    await asyncio.wait_for(redrawn.wait(), 5)
    assert asyncio.get_running_loop().time() - began >= pacing.MOST_WAIT * 0.9


async def test_a_stream_cut_off_instead_of_written_to_does_not_hold_the_kiosk_up(
        room, host, set_up_game, open_stream):
    """A seat re-bound to another phone: its old phone's stream, woken by the change, ends
    with a refusal instead of the view; the kiosk waits for no write from it."""
    table = await set_up_game(NAMES)
    old = await open_stream(table.seats[2][0], table.seat_url(2, "/events"))
    await old.next_view()
    await table.host.post(f"{table.host_url}/rebind", json={"seat": 2})
    event, _ = await old.next()
    assert event == "refused"
    for _ in range(3):
        await asyncio.sleep(0)
    assert host.pacing.busy == 0
