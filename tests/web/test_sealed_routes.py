"""The three sealed routes end to end, through the reference client (companion/web/client.py)
against the real server and a real room: a seat is claimed, looked at, played and streamed
sealed; an op of another code's kind is refused inside the seal; the old routes that carried
a code in their path are gone; and no answer sets a cookie any more (the phone is named by a
secret it sends only sealed)."""
from __future__ import annotations

import asyncio
import json

import pytest

from companion.web.client import Refused, SealedPhone
from companion.web.sealing import phone_id
from phone import sealed_game

NAMES = ["Ana", "Ben", "Cai"]
WAIT = 10  # seconds: only a guard against a hang, never a measure of speed


async def next_message(messages, until=lambda m: True) -> dict:
    while True:
        message = await asyncio.wait_for(anext(messages), WAIT)
        if until(message):
            return message


async def test_a_seat_claims_looks_plays_and_hears_its_stream_all_sealed(room, server, http):
    host, seats = await sealed_game(room, server, http, NAMES)
    seat = room.table.state.pending.seats[0]
    phone = seats[seat]
    messages = phone.events()
    first = await next_message(messages)
    assert first["notices"] == [] and first["view"]["view"]["you"]["seat"] == seat
    payload = await phone.ok("view")
    assert payload == first["view"]  # the same payload, asked or streamed
    view = payload["view"]
    decision = view["you"]["decision"]
    answer = await phone.ok("command", {"decision": decision["decision"],
                                        "option": decision["options"][0],
                                        "state_id": view["state_id"]})
    assert answer["state_id"] > view["state_id"] and answer["state_id"] == room.table.state_id
    moved = await next_message(
        messages, lambda m: m["view"]["view"]["state_id"] == answer["state_id"])
    assert moved["view"]["view"]["you"]["seat"] == seat
    await messages.aclose()
    # The room knows the phone by the name of its secret, which crossed the network sealed.
    assert room.lobby["seats"][seat]["phone"] == phone_id(phone.phone)
    # The host's page reads its payload and its own seat sealed too.
    assert (await host.ok("view"))["room"]["phase"] == "play"
    assert await host.ok("my_seat") == {"seat": None, "token": None}
    assert len(http.cookie_jar) == 0  # no answer set a cookie


async def test_a_seat_stream_ends_sealed_when_its_seat_is_rebound(room, server, http):
    host, seats = await sealed_game(room, server, http, NAMES)
    messages = seats[1].events()
    await next_message(messages)
    await host.ok("rebind", {"seat": 1})
    last = await next_message(messages, lambda m: "refused" in m)
    assert last["refused"]["code"] == "seat_given_away"
    # The old code's keys are retired: its phone's next request must say hello again, and
    # that hello is refused plainly, as a given-away seat.
    with pytest.raises(Refused) as refused:
        await seats[1].ok("view")
    assert refused.value.code == "seat_given_away"


async def test_an_op_of_another_code_kind_is_refused_inside_the_seal(room, server, http):
    host, seats = await sealed_game(room, server, http, NAMES, start=False)
    answer = await seats[0].call("start")  # a seat's code cannot start the game
    assert (answer.status, answer.data["error"]["code"]) == (404, "unknown_op")
    assert room.table is None  # nothing started
    table = SealedPhone(http, server, room.kiosk_view()["table_token"])
    answer = await table.call("claim")
    assert (answer.status, answer.data["error"]["code"]) == (404, "unknown_op")
    listed = await table.ok("seats")
    assert [s["seat"] for s in listed["seats"]] == [0, 1, 2]
    answer = await host.call("command", {"decision": "x"})
    assert (answer.status, answer.data["error"]["code"]) == (404, "unknown_op")
    # A refusal the old routes gave comes back with their status and code, sealed.
    other = SealedPhone(http, server, room.lobby["seats"][0]["token"])
    answer = await other.call("claim")
    assert (answer.status, answer.data["error"]["code"]) == (409, "seat_claimed")
    assert room.lobby["seats"][0]["phone"] == phone_id(seats[0].phone)
    # A stream the code has not, or of a seat this phone does not hold: its one message is
    # the sealed refusal, and then it ends.
    for phone, code in [(table, "unknown_op"), (other, "not_your_seat")]:
        opened = [message async for message in phone.events()]
        assert opened == [{"refused": {"code": code, "message": opened[0]["refused"]["message"]}}]


async def test_the_routes_that_named_a_code_in_their_path_are_gone(room, server, http):
    await sealed_game(room, server, http, NAMES, start=False)
    token = room.lobby["seats"][0]["token"]
    for method, path in [("POST", f"/api/seat/{token}/claim"), ("GET", f"/api/seat/{token}"),
                         ("GET", f"/api/seat/{token}/events"),
                         ("GET", f"/api/host/{room.host_token}"),
                         ("POST", f"/api/host/{room.host_token}/start"),
                         ("GET", f"/api/join/{room.kiosk_view()['table_token']}"),
                         ("GET", f"/s/{token}"), ("GET", f"/h/{room.host_token}")]:
        async with http.request(method, server + path) as response:
            assert response.status == 404, path
            assert (await response.json())["error"]["code"] == "not_found"
    assert room.table is None
    for page in ("/s", "/h", "/j"):  # one page per kind of code: the code is never sent
        async with http.get(server + page) as response:
            assert response.status == 200 and response.content_type == "text/html"
    assert len(http.cookie_jar) == 0


async def test_a_sealed_answer_says_nothing_plainly(room, server, http):
    """Every sealed answer is 200 octets whatever the op's status; only an envelope that does
    not open is refused plainly, and it changes nothing."""
    host, seats = await sealed_game(room, server, http, NAMES, start=False)
    counter, sealed = seats[0].sealed_request("start")
    status, raw = await seats[0].post_sealed(sealed)
    assert status == 200 and seats[0].open_answer(counter, raw).status == 404
    status, raw = await seats[0].post_sealed(sealed)  # the same bytes again
    assert (status, json.loads(raw)["error"]["code"]) == (409, "replayed")
    counter, sealed = seats[0].sealed_request("leave")
    status, raw = await seats[0].post_sealed(sealed[:-1] + bytes([sealed[-1] ^ 1]))
    assert (status, json.loads(raw)["error"]["code"]) == (400, "bad_seal")
    assert room.lobby["seats"][0]["phone"] == phone_id(seats[0].phone)  # not left
    status, raw = await seats[0].post_sealed(sealed)  # the genuine one still counts
    assert seats[0].open_answer(counter, raw).data == {
        "seat": 0, "table": room.kiosk_view()["table_token"]}
    assert room.lobby["seats"][0]["phone"] is None
