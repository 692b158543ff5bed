"""The seal's attacks on the real server on a real port, against a real game: a player who
knows the Wi-Fi password records, replays, reorders and alters a seat's packets, copies the
old cookie, or knows a seat's code but not its phone; each is refused and changes nothing.
(test_sealing.py checks both ends of the seal without a server.)

Before the seal, a seat's requests were plain JSON over plain HTTP with the token in the
path and a `dm_phone` cookie: a recorder read them and could send them again as they were."""
from __future__ import annotations

import asyncio
import json
import random
import secrets

import aiohttp
import pytest

from companion.tools.simulate import choice_for
from companion.web import sealing
from companion.web.client import Refused, SealedPhone
from companion.web.sealing import BLOCK, BadSeal, code_id, unb64url
from phone import sealed_game

SID, COUNTER = sealing.SID_BYTES, sealing.SID_BYTES + sealing.COUNTER_BYTES


def altered(sealed: bytes, at: int) -> bytes:
    raw = bytearray(sealed)
    raw[at] ^= 0x80  # a bit flipped where the test says
    return bytes(raw)

NAMES = ["Ana", "Ben", "Cai", "Dee"]


def snapshot(room) -> tuple:
    """Everything a refused request must leave as it was: the game, the store, the seats."""
    table = room.table
    return (table and table.state_id, table and table.store.last_seq(table.game_id),
            room.room_view()["seats"], room.phase)


def next_command(room) -> tuple[int, dict]:
    seat = room.table.state.pending.seats[0]
    return seat, choice_for(room.table.state, seat, random.Random(0))


async def plain_refusal(status_raw: tuple[int, bytes], status: int, code: str) -> None:
    got, raw = status_raw
    assert (got, json.loads(raw)["error"]["code"]) == (status, code), raw


async def test_a_recorded_command_played_again_changes_nothing(room, server, http):
    # Before, a command was a plain POST with the token in its path and the phone's cookie
    # in its headers: a recorder could send it again, or any command of their own.
    _, seats = await sealed_game(room, server, http, NAMES)
    seat, command = next_command(room)
    counter, sealed = seats[seat].sealed_request("command", command)
    status, raw = await seats[seat].post_sealed(sealed)
    assert status == 200 and seats[seat].open_answer(counter, raw).status == 200
    before = snapshot(room)
    await plain_refusal(await seats[seat].post_sealed(sealed), 409, "replayed")
    assert snapshot(room) == before


async def test_a_recorded_claim_played_after_the_phone_left_changes_nothing(room, server, http):
    _, seats = await sealed_game(room, server, http, NAMES, start=False)
    await seats[1].ok("leave")
    phone = SealedPhone(http, server, seats[1].token)
    await phone.hello()
    counter, claim = phone.sealed_request("claim")
    assert phone.open_answer(counter, (await phone.post_sealed(claim))[1]).data == {"seat": 1}
    await phone.ok("leave")
    before = snapshot(room)
    await plain_refusal(await phone.post_sealed(claim), 409, "replayed")
    assert snapshot(room) == before and room.lobby["seats"][1]["phone"] is None


async def test_a_command_held_back_and_sent_late_changes_nothing(room, server, http):
    _, seats = await sealed_game(room, server, http, NAMES)
    seat, command = next_command(room)
    _, held = seats[seat].sealed_request("command", command)
    counter, look = seats[seat].sealed_request("view")
    status, raw = await seats[seat].post_sealed(look)
    assert status == 200 and seats[seat].open_answer(counter, raw).status == 200
    before = snapshot(room)
    await plain_refusal(await seats[seat].post_sealed(held), 409, "replayed")
    assert snapshot(room) == before
    assert "state_id" in await seats[seat].ok("command", command)  # the phone's own still counts
    assert room.table.state_id != before[0]


async def test_a_recorded_stream_ticket_opens_no_second_stream(room, server, http):
    _, seats = await sealed_game(room, server, http, NAMES)
    phone = seats[0]
    _, ticket = phone.sealed_ticket()
    url = f"{server}/api/sealed/events"
    async with http.get(url, params={"t": ticket}) as first:
        assert first.status == 200
        async with http.get(url, params={"t": ticket}) as again:
            assert again.status == 409 and (await again.json())["error"]["code"] == "replayed"
            assert again.headers["Content-Type"].startswith("application/json")


async def data_lines(response, count: int) -> list[str]:
    """The next `count` sealed messages' data, as they crossed the Wi-Fi (pings skipped)."""
    lines = []
    while len(lines) < count:
        line = (await asyncio.wait_for(response.content.readline(), 10)).decode().strip()
        if line.startswith("data:"):
            lines.append(line[5:].strip())
    return lines


async def test_a_real_streams_messages_open_only_in_the_order_they_were_sent(room, server, http):
    _, seats = await sealed_game(room, server, http, NAMES)
    watcher = seats[0]
    n, ticket = watcher.sealed_ticket()
    async with http.get(f"{server}/api/sealed/events", params={"t": ticket}) as response:
        assert response.status == 200
        first = await data_lines(response, 1)
        seat, command = next_command(room)
        await seats[seat].ok("command", command)  # the game moves: a second message
        second = await data_lines(response, 1)
    open_next = watcher.stream_opener(n)
    assert [open_next(line)["view"] is not None for line in first + second] == [True, True]
    with pytest.raises(BadSeal):  # the second held back and sent first
        watcher.stream_opener(n)(second[0])
    open_next = watcher.stream_opener(n)
    open_next(first[0])
    with pytest.raises(BadSeal):  # the first played again in its place
        open_next(first[0])
    for line in first + second:  # whole blocks (what decides how many is public)
        assert (len(unb64url(line)) - sealing.TAG_BYTES) % BLOCK == 0


@pytest.mark.parametrize("at, status, code", [
    (0, 401, "unknown_session"), (COUNTER - 1, 400, "bad_seal"), (COUNTER + 3, 400, "bad_seal"),
    (-1, 400, "bad_seal")])
async def test_a_command_altered_anywhere_changes_nothing(room, server, http, at, status, code):
    _, seats = await sealed_game(room, server, http, NAMES)
    seat, command = next_command(room)
    counter, sealed = seats[seat].sealed_request("command", command)
    before = snapshot(room)
    await plain_refusal(await seats[seat].post_sealed(altered(sealed, at)), status, code)
    assert snapshot(room) == before
    status, raw = await seats[seat].post_sealed(sealed)  # the true one still goes through
    assert seats[seat].open_answer(counter, raw).status == 200
    assert room.table.state_id != before[0]


async def test_another_phones_sealed_request_gets_nothing(room, server, http):
    _, seats = await sealed_game(room, server, http, NAMES)
    seat, command = next_command(room)
    mine, other = seats[seat], seats[(seat + 1) % len(seats)]
    _, sealed = mine.sealed_request("command", command)
    before = snapshot(room)
    # Sent in the other phone's session: it was sealed under keys that session has not.
    await plain_refusal(await other.post_sealed(other.sid + sealed[SID:]), 400, "bad_seal")
    # Sent first, as it is, by the recorder: it is the seat phone's own command and the
    # answer is sealed to that phone alone.
    counter = int.from_bytes(sealed[SID:COUNTER], "big")
    status, raw = await other.post_sealed(sealed)
    assert status == 200
    with pytest.raises(BadSeal):
        other.open_answer(counter, raw)
    assert b"state_id" not in raw
    await plain_refusal(await mine.post_sealed(sealed), 409, "replayed")
    assert room.table.state_id != before[0]


async def test_a_phone_that_knows_the_code_but_not_the_seats_phone_gets_nothing(
        room, server, http):
    # Someone who photographed the seat's code after it was claimed: their own session,
    # but another phone's name, so the seat's screen and commands stay its phone's.
    _, seats = await sealed_game(room, server, http, NAMES)
    seat, command = next_command(room)
    intruder = SealedPhone(http, server, seats[seat].token)
    before = snapshot(room)
    for op, body in (("view", None), ("command", command)):
        answer = await intruder.call(op, body)
        assert (answer.status, answer.data["error"]["code"]) == (403, "not_your_seat")
    async for message in intruder.events():
        assert message["refused"]["code"] == "not_your_seat" and "view" not in message
        break
    assert snapshot(room) == before
    # The seat's own phone after a reload (the same secret, a new session) is still it.
    again = SealedPhone(http, server, seats[seat].token, phone=seats[seat].phone)
    assert "state_id" in await again.ok("command", command)


async def test_no_cookie_is_set_and_a_copied_one_opens_nothing(room, server, http):
    # Before, the dm_phone cookie was the phone: a recorder who copied it (and the token
    # from the request's path) played the seat from their own phone.
    _, seats = await sealed_game(room, server, http, NAMES)
    assert len(http.cookie_jar) == 0
    token = seats[1].token
    async with aiohttp.ClientSession(cookies={"dm_phone": seats[1].phone}) as copier:
        for path in (f"/api/seat/{token}", f"/api/seat/{token}/events", f"/s/{token}"):
            async with copier.get(server + path) as response:
                assert response.status == 404
        async with copier.post(server + "/api/sealed", data=b"x" * 100) as response:
            assert response.status == 401
        # The code's id crossed the Wi-Fi in the phone's hello: a hello naming it without the
        # token proves nothing, so the Pi opens no session for it at all.
        guesser = SealedPhone(copier, server, "A" * 22)
        guesser.code = code_id(token)
        with pytest.raises(Refused) as refused:
            await guesser.hello()
        assert (refused.value.status, refused.value.code) == (404, "unknown_token")


async def test_a_phone_the_pi_forgot_says_hello_again_and_its_request_goes_through(
        room, server, http):
    _, seats = await sealed_game(room, server, http, NAMES)
    phone = seats[0]
    phone.sid = secrets.token_bytes(16)  # as after a restart of the Pi
    assert (await phone.call("view")).status == 200
    async for message in phone.events(lang="es"):
        assert message["view"] and "notices" in message
        break


async def test_a_rebound_seats_old_phone_can_no_longer_send_or_read(room, server, http):
    host, seats = await sealed_game(room, server, http, NAMES)
    old = seats[2]
    _, recorded = old.sealed_request("view")  # sealed before the re-bind, sent after it
    await host.ok("rebind", {"seat": 2})
    # the re-bind retired the old code's keys at once: nothing sealed with them opens
    await plain_refusal(await old.post_sealed(recorded), 401, "unknown_session")
    with pytest.raises(Refused) as error:  # and a new hello with it is refused
        await old.call("view")
    assert (error.value.status, error.value.code) == (404, "seat_given_away")


@pytest.mark.parametrize("change", ["new game", "new host code", "hand-over"])
async def test_a_code_the_table_stopped_using_loses_its_keys_at_once(room, server, http, change):
    """A new game (every seat's code new), a new host code made at the Pi (a lost host phone)
    and a bot's seat handed to a person: what was sealed under the old code opens no more,
    and the codes still in use keep working."""
    bots = [3] if change == "hand-over" else []
    host = SealedPhone(http, server, room.host_token)
    await host.ok("claim")
    await host.ok("game", {"setup": {"names": NAMES}, "bots": bots})
    tokens = [seat["token"] for seat in room.lobby["seats"]]
    seat = SealedPhone(http, server, tokens[0])
    await seat.ok("claim")
    bot = SealedPhone(http, server, tokens[3])
    await bot.hello()  # someone who saw the bot seat's code holds a session on it
    victim = {"new game": seat, "new host code": host, "hand-over": bot}[change]
    _, recorded = victim.sealed_request("view")
    if change == "new game":
        await host.ok("game", {"setup": {"names": NAMES}, "replace": True})
    elif change == "new host code":
        await room.new_host_code()
    else:
        await host.ok("handover", {"seat": 3})
    await plain_refusal(await victim.post_sealed(recorded), 401, "unknown_session")
    for other in {seat, host} - {victim}:
        assert (await other.call("view")).status == 200  # a code still in use still opens
