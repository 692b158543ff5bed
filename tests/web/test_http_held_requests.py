"""A command is authorised once its whole body has arrived, against the seat's claim
and the game as they stand then. A phone that lost its seat (or one of the previous game)
used to hold a request open and act for the seat afterwards: it was checked on arrival of
the headers, and the body, sent later, was played for the seat. Here the request is sealed,
as every seat's is: the seal is opened, and the phone known, only once the whole envelope is
here. A request held back and sent after a later one, or sent again, is a replay: refused."""
from __future__ import annotations

import asyncio
import json
import random
from urllib.parse import urlsplit

from companion.tools.simulate import choice_for
from phone import sealed_size_ok

NAMES = ["Ana", "Ben", "Cai", "Dee"]
WAIT = 10  # a guard against a hang only


class HeldRequest:
    """A sealed POST whose head and first half of the envelope are sent now, the rest on
    `finish()`, over a raw socket: what a phone (or a cheat) on a slow link can do."""

    def __init__(self, server: str, session, counter: int, sealed: bytes):
        self.server, self.session = server, session
        self.counter, self.body = counter, sealed

    async def begin(self) -> None:
        where = urlsplit(self.server)
        self.reader, self.writer = await asyncio.open_connection(where.hostname, where.port)
        head = (f"POST /api/sealed HTTP/1.1\r\nHost: {where.netloc}\r\n"
                f"Content-Type: application/octet-stream\r\n"
                f"Content-Length: {len(self.body)}\r\nConnection: close\r\n\r\n")
        self.writer.write(head.encode() + self.body[:len(self.body) // 2])
        await self.writer.drain()
        await asyncio.sleep(0.2)  # the server has the head and is reading the body

    async def finish(self) -> tuple[int, dict]:
        """(the op's status, its answer): opened from the seal, or a plain refusal's."""
        self.writer.write(self.body[len(self.body) // 2:])
        await self.writer.drain()
        raw = await asyncio.wait_for(self.reader.read(), WAIT)
        self.writer.close()
        head, _, body = raw.partition(b"\r\n\r\n")
        status = int(head.split()[1])
        if status != 200:
            return status, json.loads(body)
        assert sealed_size_ok(len(body)), len(body)
        answer = self.session.open_answer(self.counter, body)
        return answer.status, answer.data


async def hold_a_legal_command(room, server, table) -> tuple[int, dict, HeldRequest]:
    """The phone of a seat the game waits for starts sending a command the rules would
    accept from it now, and holds back the end of the body."""
    g = room.table.state
    seat = g.pending.seats[0]
    command = choice_for(g, seat, random.Random(1))
    command["state_id"] = g.state_id
    phone, token = table.seats[seat]
    counter, sealed = await phone.envelope(token, "command", command)
    held = HeldRequest(server, phone.sealed(token), counter, sealed)
    await held.begin()
    return seat, command, held


# A held request whose code died meanwhile is refused either way: its session is gone with
# the code (401, before anything is opened), or the op is refused inside the seal.
GONE = {(401, "unknown_session")}


async def test_a_phone_rebound_while_its_request_was_held_cannot_act(room, server,
                                                                      set_up_game):
    table = await set_up_game(NAMES)
    seat, command, held = await hold_a_legal_command(room, server, table)
    state = room.table.state_id
    response = await table.host.post(f"{table.host_url}/rebind", json={"seat": seat})
    assert response.status == 200
    status, body = await held.finish()
    assert (status, body["error"]["code"]) in GONE | {(404, "seat_given_away")}
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
    assert (status, body["error"]["code"]) in GONE | {(404, "unknown_token")}
    assert room.table.state_id == state, "a command of the old game was played in the new one"


async def test_a_held_request_from_the_phone_that_still_holds_the_seat_is_played(
        room, server, set_up_game):
    """The other side: a slow phone that still holds its seat is not refused."""
    table = await set_up_game(NAMES)
    seat, command, held = await hold_a_legal_command(room, server, table)
    status, body = await held.finish()
    assert status == 200 and body["state_id"] == command["state_id"] + 1


async def refused_plainly(response, status: int, code: str) -> None:
    """Refused before anything was opened: a plain JSON refusal."""
    assert response.status == status, await response.text()
    assert response.content_type == "application/json"
    assert (await response.json())["error"]["code"] == code


async def test_a_request_recorded_off_the_wifi_is_refused_if_sent_again_or_altered(
        room, server, set_up_game, client_session):
    """A seat's sealed command, copied off the Wi-Fi and sent again, late or out of order,
    is refused plainly before anything is opened (`409 replayed`); altered, `400 bad_seal`.
    Played once, and nothing else changed. (Before, a copied cookie and a plain JSON
    command were all it took to play for the seat.)"""
    table = await set_up_game(NAMES)
    seat = room.table.state.pending.seats[0]
    phone, token = table.seats[seat]
    command = {**choice_for(room.table.state, seat, random.Random(0)),
               "state_id": room.table.state_id}
    counter, sealed = await phone.envelope(token, "command", command)
    _, earlier = await phone.envelope(token, "view")
    ahead = await phone.envelope(token, "view")  # its counter is above the command's
    recorder = client_session()
    url = server + "/api/sealed"
    tampered = bytearray(sealed)
    tampered[-20] ^= 1
    await refused_plainly(await recorder.post(url, data=bytes(tampered)), 400, "bad_seal")
    played = await recorder.post(url, data=sealed)  # the genuine one, once: played
    assert played.status == 200
    opened = phone.sealed(token).open_answer(counter, await played.read())
    assert opened.status == 200 and opened.data["state_id"] == command["state_id"] + 1
    before = room.table.state_id, room.store.last_seq(room.table.game_id)
    status, _ = await phone.sealed(token).post_sealed(ahead[1])
    assert status == 200
    for again in (sealed, earlier):  # replayed; sent after a later one
        await refused_plainly(await recorder.post(url, data=again), 409, "replayed")
    await refused_plainly(await recorder.post(url, data=sealed[:30]), 400, "bad_seal")
    assert (room.table.state_id, room.store.last_seq(room.table.game_id)) == before
