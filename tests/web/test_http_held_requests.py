"""A command is authorised once its whole body has arrived, against the seat's claim
and the game as they stand then. A phone that lost its seat (or one of the previous game)
used to hold a request open and act for the seat afterwards: it was checked on arrival of
the headers, and the body, sent later, was played for the seat."""
from __future__ import annotations

import asyncio
import json
import random
from urllib.parse import urlsplit

from yarl import URL

from companion.tools.simulate import choice_for

NAMES = ["Ana", "Ben", "Cai", "Dee"]
WAIT = 10  # a guard against a hang only


class HeldRequest:
    """A POST whose head and first half of the body are sent now, the rest on `finish()`,
    over a raw socket: what a phone (or a cheat) on a slow link can do."""

    def __init__(self, server: str, path: str, cookie: str, body: dict):
        self.server, self.path, self.cookie = server, path, cookie
        self.body = json.dumps(body).encode()

    async def begin(self) -> None:
        where = urlsplit(self.server)
        self.reader, self.writer = await asyncio.open_connection(where.hostname, where.port)
        head = (f"POST {self.path} HTTP/1.1\r\nHost: {where.netloc}\r\n"
                f"Cookie: dm_phone={self.cookie}\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(self.body)}\r\nConnection: close\r\n\r\n")
        self.writer.write(head.encode() + self.body[:len(self.body) // 2])
        await self.writer.drain()
        await asyncio.sleep(0.2)  # the server has the head and is reading the body

    async def finish(self) -> tuple[int, dict]:
        self.writer.write(self.body[len(self.body) // 2:])
        await self.writer.drain()
        raw = await asyncio.wait_for(self.reader.read(), WAIT)
        self.writer.close()
        head, _, body = raw.partition(b"\r\n\r\n")
        return int(head.split()[1]), json.loads(body)


def cookie_of(phone, server: str) -> str:
    return phone.cookie_jar.filter_cookies(URL(server))["dm_phone"].value


async def hold_a_legal_command(room, server, table) -> tuple[int, dict, HeldRequest]:
    """The phone of a seat the game waits for starts sending a command the rules would
    accept from it now, and holds back the end of the body."""
    g = room.table.state
    seat = g.pending.seats[0]
    command = choice_for(g, seat, random.Random(1))
    command["state_id"] = g.state_id
    phone, token = table.seats[seat]
    held = HeldRequest(server, f"/api/seat/{token}/command", cookie_of(phone, server), command)
    await held.begin()
    return seat, command, held


async def test_a_phone_rebound_while_its_request_was_held_cannot_act(room, server,
                                                                      set_up_game):
    table = await set_up_game(NAMES)
    seat, command, held = await hold_a_legal_command(room, server, table)
    state = room.table.state_id
    response = await table.host.post(f"{table.host_url}/rebind", json={"seat": seat})
    assert response.status == 200
    status, body = await held.finish()
    assert (status, body["error"]["code"]) == (404, "seat_given_away")
    assert room.table.state_id == state, "the kicked phone's command was played"


async def test_a_phone_of_the_previous_game_cannot_act_in_the_next(room, server, set_up_game,
                                                                   new_phone):
    table = await set_up_game(NAMES)
    seat, command, held = await hold_a_legal_command(room, server, table)
    response = await table.host.post(f"{table.host_url}/game",
                                     json={"setup": {"names": NAMES}, "replace": True})
    assert response.status == 200
    for i, code in enumerate(room.kiosk_view()["seat_tokens"]):  # the same phones sit again
        claimer = table.seats[seat][0] if i == seat else new_phone()
        assert (await claimer.post(f"/api/seat/{code}/claim")).status == 200
    assert (await table.host.post(f"{table.host_url}/start")).status == 200
    state = room.table.state_id
    status, body = await held.finish()
    assert (status, body["error"]["code"]) == (404, "unknown_token")
    assert room.table.state_id == state, "a command of the old game was played in the new one"


async def test_a_held_request_from_the_phone_that_still_holds_the_seat_is_played(
        room, server, set_up_game):
    """The other side: a slow phone that still holds its seat is not refused."""
    table = await set_up_game(NAMES)
    seat, command, held = await hold_a_legal_command(room, server, table)
    status, body = await held.finish()
    assert status == 200 and body["state_id"] == command["state_id"] + 1
