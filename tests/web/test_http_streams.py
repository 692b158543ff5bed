"""The event streams (Server-Sent Events): a whole payload first, a new one after every change,
notices only to the seat they concern, and no more news for a phone that lost its seat. A
seat's and the host's streams are sealed message by message (tests/web/phone.py opens them as
a phone does); the board's is plain."""
import json
import random

import pytest

from companion.tools.simulate import choice_for
from companion.web.sealing import (KIND_STREAM, BadSeal, b64url, nonce, open_sealed,
                                   unb64url)
from phone import sealed_size_ok

NAMES = ["Ana", "Ben", "Cai", "Dee"]


async def all_streams(table, open_stream) -> dict:
    """One stream per seat (on that seat's phone), the board's and the host's."""
    streams = {seat: await open_stream(phone, table.seat_url(seat, "/events"))
               for seat, (phone, _) in enumerate(table.seats)}
    streams["board"] = await open_stream(table.host, "/api/board/events")
    streams["host"] = await open_stream(table.host, f"{table.host_url}/events")
    return streams


async def phone_command(room, table) -> int:
    """The waited-for seat's phone sends a legal command; the new state id."""
    seat = room.table.state.pending.seats[0]
    command = choice_for(room.table.state, seat, random.Random(0))
    response = await table.seats[seat][0].post(table.seat_url(seat, "/command"),
                                               json={**command,
                                                     "state_id": room.table.state_id})
    return (await response.json())["state_id"]


async def test_the_first_message_is_the_whole_payload(room, set_up_game, open_stream):
    table = await set_up_game(NAMES)
    streams = await all_streams(table, open_stream)
    gets = {seat: table.seat_url(seat) for seat in range(4)}
    gets.update(board="/api/board", host=table.host_url)
    for who, stream in streams.items():
        phone = table.seats[who][0] if isinstance(who, int) else table.host
        event, payload = await stream.next()
        assert event == "view"
        assert payload == await (await phone.get(gets[who])).json()
    assert streams[2].raw.startswith(b"retry: ")  # a dropped stream comes back quickly


async def test_after_a_command_every_seat_and_the_board_get_the_new_view(
        room, set_up_game, open_stream):
    table = await set_up_game(NAMES)
    streams = await all_streams(table, open_stream)
    for stream in streams.values():
        await stream.next_view()
    new = await phone_command(room, table)
    for who, stream in streams.items():
        payload = await stream.next_view(lambda p: p["view"]["state_id"] >= new)
        assert payload["view"]["state_id"] == new
        if isinstance(who, int):
            assert payload["view"]["you"]["seat"] == who
        else:
            assert "you" not in payload["view"]


async def test_the_deal_reaches_each_phone_waiting_in_the_lobby(room, set_up_game, open_stream):
    table = await set_up_game(NAMES, start=False)
    streams = {seat: await open_stream(phone, table.seat_url(seat, "/events"))
               for seat, (phone, _) in enumerate(table.seats)}
    for seat, stream in streams.items():
        lobby = await stream.next_view()
        assert lobby["room"]["phase"] == "join" and lobby["view"]["you"] == {"seat": seat}
    assert (await table.host.post(f"{table.host_url}/start")).status == 200
    for seat, stream in streams.items():
        dealt = await stream.next_view(lambda p: p["room"]["phase"] == "play")
        assert dealt["view"]["you"]["status"] == room.table.state.seats[seat].status


async def test_claims_and_a_refused_scan_reach_the_board(room, set_up_game, open_stream,
                                                          new_phone):
    table = await set_up_game(NAMES, start=False, claim=False)
    board = await open_stream(new_phone(), "/api/board/events")
    first = await board.next_view()
    assert not any(s["claimed"] for s in first["room"]["seats"])
    phone, token = table.seats[1]
    await phone.post(f"/api/seat/{token}/claim")
    claimed = await board.next_view(lambda p: p["room"]["seats"][1]["claimed"])
    assert [s["claimed"] for s in claimed["room"]["seats"]] == [False, True, False, False]
    assert (await new_phone().post(f"/api/seat/{token}/claim")).status == 409
    noticed = await board.next_view(lambda p: p["room"]["notices"])
    assert noticed["room"]["notices"] == [{"k": "seat_claim_refused", "seat": 1}]


async def advance_to_a_vote_with_a_seat_lacking_weak_dice(room) -> int:
    """Play helpful bot moves (set-up, not what is tested) until a vote where a seat that has
    not voted yet holds no weak die; that seat."""
    rng = random.Random(0)
    for _ in range(3000):
        g = room.table.state
        assert g.outcome is None, "the seeded game ended before such a vote"
        if g.pending.kind == "vote":
            lacking = [s for s in g.pending.seats
                       if g.seats[s].dice["weak"] == 0 and s not in g.pending.answers]
            if lacking and len(g.pending.seats) - len(g.pending.answers) > 1:
                return lacking[0]
        seat = rng.choice(g.pending.seats)
        await room.submit(seat, choice_for(g, seat, rng))
    pytest.fail("no such vote in the seeded game")


async def test_a_refused_button_press_is_told_to_that_seat_only(room, set_up_game, open_stream):
    # DESIGN: "A vote with a die colour the seat does not hold is refused with feedback on
    # that seat's phone only."
    table = await set_up_game(NAMES)
    seat = await advance_to_a_vote_with_a_seat_lacking_weak_dice(room)
    before = room.table.state_id
    streams = await all_streams(table, open_stream)
    for stream in streams.values():
        assert (await stream.next_view())["view"]["state_id"] == before

    assert await room.press(seat, "red") is None  # RED = the weak die, which it lacks
    assert room.table.state_id == before
    event, notice = await streams[seat].next()
    while event == "view":
        event, notice = await streams[seat].next()
    assert event == "notice"
    assert notice["refusal"]["code"] == "illegal_option"
    assert notice["refusal"]["button"] == "red" and notice["refusal"]["message"]

    # another voter votes through its phone: every stream's next message is that new view,
    # and no other stream heard anything of the refused press before it
    voter = next(s for s in room.table.state.pending.seats
                 if s != seat and s not in room.table.state.pending.answers)
    phone = table.seats[voter][0]
    option = (await (await phone.get(table.seat_url(voter))).json())["view"]["you"][
        "decision"]["options"][0]
    response = await phone.post(table.seat_url(voter, "/command"),
                                json={"decision": "vote", "option": option,
                                      "state_id": before})
    assert response.status == 200, await response.text()
    for who, stream in streams.items():
        event, payload = await stream.next()
        assert event == "view" and payload["view"]["state_id"] == before + 1, who


async def test_a_rebound_seats_old_phone_is_cut_off_its_stream(room, set_up_game, open_stream):
    table = await set_up_game(NAMES)
    old = await open_stream(table.seats[2][0], table.seat_url(2, "/events"))
    await old.next_view()
    await table.host.post(f"{table.host_url}/rebind", json={"seat": 2})
    event, payload = await old.next()
    # the seat's code was rotated: the old one names no seat any more, and says why
    assert event == "refused" and payload["error"]["code"] == "seat_given_away"
    with pytest.raises(EOFError):
        await old.next()


async def test_a_replaced_game_cuts_every_seat_stream_of_the_old_one(
        room, set_up_game, open_stream):
    table = await set_up_game(NAMES)
    streams = {seat: await open_stream(phone, table.seat_url(seat, "/events"))
               for seat, (phone, _) in enumerate(table.seats)}
    for stream in streams.values():
        await stream.next_view()
    await table.host.post(f"{table.host_url}/game",
                          json={"setup": {"names": NAMES[:3]}, "replace": True})
    for stream in streams.values():
        event, payload = await stream.next()
        assert event == "refused" and payload["error"]["code"] == "unknown_token"


async def test_a_stream_opened_without_a_language_follows_the_rooms(
        room, set_up_game, open_stream):
    """docs/http-api.md: a stream's message equals the GET. A client that asked for no
    language gets the room's, also after the host switches it mid-game."""
    table = await set_up_game(NAMES)
    board = await open_stream(table.host, "/api/board/events")
    seat = await open_stream(table.seats[1][0], table.seat_url(1, "/events"))
    assert (await board.next_view())["room"]["lang"] == "en"
    await seat.next_view()
    response = await table.host.post(f"{table.host_url}/lang", json={"lang": "es"})
    assert response.status == 200
    spanish = await board.next_view(lambda p: p["room"]["lang"] == "es")
    assert spanish == await (await table.host.get("/api/board")).json()
    seat_view = await seat.next_view(lambda p: p["room"]["lang"] == "es")
    assert seat_view == await (await table.seats[1][0].get(table.seat_url(1))).json()


async def test_a_long_games_streams_carry_exactly_what_a_request_gets(
        room, set_up_game, open_stream):
    """Each stream's log facts are encoded once and shared by every view that shows them: a
    phone must still get exactly its own view, with its own secrets, the sixty latest public
    facts, and at game over the whole log, just as a request for it returns."""
    table = await set_up_game(NAMES)
    gets = {seat: table.seat_url(seat) for seat in range(4)}
    gets.update(board="/api/board", host=table.host_url)
    rng = random.Random(1)

    async def compare() -> None:
        streams = await all_streams(table, open_stream)
        for who, stream in streams.items():
            phone = table.seats[who][0] if isinstance(who, int) else table.host
            event, payload = await stream.next()
            assert event == "view"
            assert payload == await (await phone.get(gets[who])).json()
            await stream.close()

    async def play_until(done) -> None:
        for _ in range(3000):
            if done(room.table):
                return
            g = room.table.state
            seat = rng.choice(g.pending.seats)
            await room.submit(seat, choice_for(g, seat, rng))
        pytest.fail("the seeded game never got there")

    await play_until(lambda t: sum("to" not in f for f in t.facts) > 70)
    assert all(room.table.seat_view(seat)["you"]["private_log"] for seat in range(4))
    await compare()
    await play_until(lambda t: t.over)
    await compare()


async def test_a_quiet_stream_is_pinged_and_still_gets_the_next_view(
        room, set_up_game, open_stream, monkeypatch):
    """A comment line now and then finds a phone that went away; the stream goes on waiting
    for the next change after it."""
    from companion.web import streams
    monkeypatch.setattr(streams, "PING_SECONDS", 0.05)
    table = await set_up_game(NAMES)
    stream = await open_stream(table.seats[0][0], table.seat_url(0, "/events"))
    first = await stream.next_view()
    while b": ping" not in stream.raw:
        line = await stream.response.content.readline()
        assert line, "the stream ended"
        stream.raw += line
    g = room.table.state
    seat = g.pending.seats[0]
    await room.submit(seat, choice_for(g, seat, random.Random(0)))
    later = await stream.next_view()
    assert later["view"]["state_id"] > first["view"]["state_id"]


def sealed_messages(stream) -> list[bytes]:
    """Every message's sealed bytes, as a recorder on the Wi-Fi has them."""
    return [unb64url(line[5:].strip().decode()) for line in bytes(stream.raw).split(b"\n")
            if line.startswith(b"data:")]


async def test_a_seats_stream_is_noise_on_the_wire_and_opens_only_in_order(
        room, set_up_game, open_stream):
    """What a player recording the Wi-Fi gets of another seat's stream: whole sealed blocks,
    no word of the view. (Before, the stream was JSON in the clear: the seat's status and
    dice for anyone who knew the Wi-Fi password.) Each message opens only as the next one of
    its own stream: one replayed or reordered does not."""
    table = await set_up_game(NAMES)
    stream = await open_stream(table.seats[1][0], table.seat_url(1, "/events"))
    await stream.next_view()
    new = await phone_command(room, table)
    seen = await stream.next_view(lambda p: p["view"]["state_id"] >= new)
    sealed = sealed_messages(stream)
    assert len(sealed) >= 2 and all(sealed_size_ok(len(m)) for m in sealed)
    status = seen["view"]["you"]["status"]
    assert status == room.table.state.seats[1].status
    assert json.dumps(status).encode() in stream.plain  # what the phone reads...
    for word in (json.dumps(status).encode(), b"state_id", b'"you"', b"view"):
        assert word not in stream.raw  # ...and the Wi-Fi does not
    for index, message in ((0, sealed[1]), (1, sealed[0]), (5, sealed[1])):
        with pytest.raises(BadSeal):
            open_sealed(stream.key, nonce(KIND_STREAM, stream.n, index), stream.sid, message)
    with pytest.raises(BadSeal):  # nor under another stream's ticket
        open_sealed(stream.key, nonce(KIND_STREAM, stream.n + 1, 1), stream.sid, sealed[1])


async def test_a_stream_ticket_played_again_or_altered_opens_nothing(
        room, server, set_up_game, client_session):
    """A ticket copied off the Wi-Fi and sent again is refused plainly (`409 replayed`), as
    is one altered (`400 bad_seal`): no second stream of the seat. (Before, the seat's
    stream URL and a copied cookie opened it for anyone.)"""
    table = await set_up_game(NAMES)
    phone, token = table.seats[1]
    session = await phone.ready(token)
    _, ticket = session.sealed_ticket()
    url = server + "/api/sealed/events"
    first = await phone.http.get(url, params={"t": ticket})
    assert first.status == 200
    recorder = client_session()
    again = await recorder.get(url, params={"t": ticket})
    assert again.status == 409 and (await again.json())["error"]["code"] == "replayed"
    _, fresh = session.sealed_ticket()
    raw = bytearray(unb64url(fresh))
    raw[40] ^= 1  # one bit of the sealed part
    for sent in (b64url(bytes(raw)), fresh[:30]):
        again = await recorder.get(url, params={"t": sent})
        assert again.status == 400 and (await again.json())["error"]["code"] == "bad_seal"
    # refused before anything changed: the genuine ticket with that counter still opens
    second = await phone.http.get(url, params={"t": fresh})
    assert second.status == 200
    second.close()
    first.close()
