"""Every refusal of the HTTP API: a JSON error with a stable code and the right status, and
nothing changed (DESIGN: "Bad input of any kind ... gets a clear refusal and changes
nothing"). A seat's and the host's requests are sealed (tests/web/phone.py): their refusals
are inside the seal, under an HTTP 200 that says nothing; a code the Pi does not know is
refused plainly at the hello."""
import asyncio
import json
import random

import pytest
from yarl import URL

from companion.darkmoon.data import OUTPOST_TOKENS
from companion.tools.simulate import choice_for
from companion.web.client import Refused

NAMES = ["Ana", "Ben", "Cai", "Dee"]
WRONG_TOKEN = "A" * 22


async def refused(response, status: int, code: str) -> str:
    """The refusal `status` `code`: inside the seal for an op, whose HTTP status is 200
    whatever it says (the Phone checks that, and the size); plain JSON otherwise."""
    assert response.status == status, await response.text()
    assert response.content_type == "application/json"
    if getattr(response, "sealed", False):
        assert response.outer_status == 200
    error = (await response.json())["error"]
    assert error["code"] == code and error["message"]
    return error["message"]


def snapshot(room) -> tuple:
    """Everything a refusal must leave as it was: the game, the store and the room."""
    table = room.table
    return (table and table.state_id, table and table.store.last_seq(table.game_id),
            table and table.public_view(), room.room_view()["seats"], room.phase)


async def test_unknown_seat_and_host_codes_are_refused(room, set_up_game, new_phone):
    """A code the kiosk never showed opens no session: its hello is refused, plainly."""
    await set_up_game(NAMES)
    phone = new_phone()
    seat = f"/api/seat/{WRONG_TOKEN}"
    host = f"/api/host/{WRONG_TOKEN}"
    for method, path in [("POST", f"{seat}/claim"), ("GET", seat), ("POST", f"{seat}/command"),
                         ("POST", f"{host}/claim"), ("GET", host), ("POST", f"{host}/start")]:
        answer = await phone.request(method, path, json={})
        await refused(answer, 404, "unknown_token")
        assert not answer.sealed  # no session: nothing was sealed
    for path in (f"{seat}/events", f"{host}/events"):
        with pytest.raises(Refused) as error:
            await phone.open_stream(path)
        assert (error.value.status, error.value.code) == (404, "unknown_token")


async def stream_refused(open_stream, phone, path: str, code: str) -> None:
    """A stream opened for a seat this phone does not hold: its one message says why."""
    stream = await open_stream(phone, path)
    event, payload = await stream.next()
    assert event == "refused" and payload["error"]["code"] == code
    assert not any("view" in m for m in stream.messages)  # no view of the seat, ever
    with pytest.raises(EOFError):
        await stream.next()


async def test_a_phone_cannot_read_or_play_another_seats_screen(room, set_up_game,
                                                                 open_stream):
    """Phone A holding another seat's code (it saw the QR code) opens a session for it, but
    the seat is not A's: A reads nothing of it and plays nothing for it."""
    table = await set_up_game(NAMES)
    phone_a = table.seats[0][0]
    before = snapshot(room)
    seat = room.table.state.pending.seats[0]
    command = choice_for(room.table.state, seat, random.Random(0))
    for other in range(1, 4):
        await refused(await phone_a.get(table.seat_url(other)), 403, "not_your_seat")
        await stream_refused(open_stream, phone_a, table.seat_url(other, "/events"),
                             "not_your_seat")
        await refused(await phone_a.post(table.seat_url(other, "/command"), json=command),
                      403, "not_your_seat")
    assert snapshot(room) == before


async def test_a_phone_that_only_knows_the_code_cannot_read_a_claimed_seat(
        room, set_up_game, new_phone, open_stream):
    """Another phone with the seat's code (a photographed QR code) is not the seat's
    phone: only the phone secret sealed inside the request is."""
    table = await set_up_game(NAMES)
    stranger = new_phone()
    await refused(await stranger.get(table.seat_url(1)), 403, "not_your_seat")
    await stream_refused(open_stream, stranger, table.seat_url(1, "/events"), "not_your_seat")


async def test_a_second_phone_on_a_claimed_seat_is_refused_and_the_kiosk_says_so(
        room, set_up_game, new_phone):
    table = await set_up_game(NAMES, start=False)
    _, token = table.seats[1]
    before = snapshot(room)
    message = await refused(await new_phone().post(f"/api/seat/{token}/claim"), 409,
                            "seat_claimed")
    assert "host" in message  # it says who can help
    assert room.room_view()["notices"][-1] == {"k": "seat_claim_refused", "seat": 1}
    assert snapshot(room) == before


async def test_a_second_phone_on_the_host_code_is_refused(room, set_up_game, new_phone):
    await set_up_game(NAMES, start=False)
    await refused(await new_phone().post(f"/api/host/{room.host_token}/claim"), 409,
                  "seat_claimed")
    assert room.room_view()["notices"][-1] == {"k": "host_claim_refused"}


async def test_host_endpoints_refuse_a_phone_that_is_not_the_host(room, set_up_game,
                                                                   open_stream):
    """A player's phone that has seen the host's code (over the host's shoulder) opens a
    session for it, but is not the host's phone: refused, nothing changed."""
    table = await set_up_game(NAMES, start=False)
    player = table.seats[0][0]
    before = snapshot(room)
    base = table.host_url
    await stream_refused(open_stream, player, f"{base}/events", "not_your_seat")
    for method, path, body in [
            ("GET", base, None),
            ("POST", f"{base}/game", {"setup": {"names": NAMES}}),
            ("POST", f"{base}/start", {}), ("POST", f"{base}/rebind", {"seat": 1}),
            ("POST", f"{base}/correct", {"option": ["shield", 1]}),
            ("POST", f"{base}/lang", {"lang": "es"})]:
        await refused(await player.request(method, path, json=body), 403, "not_your_seat")
    assert snapshot(room) == before and room.lang == "en"


async def test_the_game_starts_only_once_every_seat_is_claimed(room, set_up_game):
    table = await set_up_game(NAMES, start=False, claim=False)
    for phone, token in table.seats[:3]:
        await phone.post(f"/api/seat/{token}/claim")
    await refused(await table.host.post(f"{table.host_url}/start"), 409, "not_ready")
    assert room.table is None and room.phase == "join"
    phone, token = table.seats[3]
    await phone.post(f"/api/seat/{token}/claim")
    assert (await table.host.post(f"{table.host_url}/start")).status == 200
    await refused(await table.host.post(f"{table.host_url}/start"), 409, "game_in_progress")


async def test_start_and_corrections_before_any_game_are_not_ready(room, new_phone):
    host = new_phone()
    await host.post(f"/api/host/{room.host_token}/claim")
    await refused(await host.post(f"/api/host/{room.host_token}/start"), 409, "not_ready")
    await refused(await host.post(f"/api/host/{room.host_token}/correct",
                                  json={"option": ["shield", 1]}), 409, "not_ready")


async def test_a_command_before_the_start_is_not_ready(room, set_up_game):
    table = await set_up_game(NAMES, start=False)
    phone, _ = table.seats[0]
    await refused(await phone.post(table.seat_url(0, "/command"),
                                   json={"decision": "action", "option": ["pass"]}),
                  409, "not_ready")
    assert room.table is None


async def test_a_command_from_an_old_view_is_stale_and_changes_nothing(room, set_up_game):
    table = await set_up_game(NAMES)
    seat = room.table.state.pending.seats[0]
    command = choice_for(room.table.state, seat, random.Random(0))
    before = snapshot(room)
    message = await refused(await table.seats[seat][0].post(
        table.seat_url(seat, "/command"), json={**command, "state_id": room.table.state_id - 1}),
        409, "stale_state")
    assert "moved on" in message
    assert snapshot(room) == before


async def test_wrong_decisions_and_illegal_options_are_refused(room, set_up_game):
    table = await set_up_game(NAMES)
    g = room.table.state
    seat = g.pending.seats[0]
    idle = next(i for i in range(4) if i not in g.pending.options)
    phone = table.seats[seat][0]
    url = table.seat_url(seat, "/command")
    before = snapshot(room)
    other = "vote" if g.pending.kind != "vote" else "action"
    await refused(await phone.post(url, json={"decision": other, "option": ["strong"]}),
                  409, "wrong_decision")
    await refused(await phone.post(url, json={"decision": g.pending.kind,
                                              "option": ["no_such_option", 99]}),
                  409, "illegal_option")
    await refused(await table.seats[idle][0].post(
        table.seat_url(idle, "/command"),
        json={"decision": g.pending.kind, "option": list(g.pending.options[seat][0])}),
        409, "not_your_decision")
    assert snapshot(room) == before


@pytest.mark.parametrize("body, code", [
    (b"decision=action", "bad_request"),                  # not JSON
    (b"\xff\xfe{", "bad_request"),                         # not text
    (b"[" * 5000 + b"]" * 5000, "bad_request"),           # nested past the parser's depth
    (b'["action", "pass"]', "bad_request"),               # not an object
    (b'"action"', "bad_request"),
    (b'{"decision": 3, "option": ["pass"]}', "malformed_command"),
    (b'{"decision": "D"}', "malformed_command"),
    (b'{"decision": "D", "option": {"pass": 1}}', "malformed_command"),
    (b'{"decision": "D", "option": [{"pass": 1}]}', "malformed_command"),
    (b'{"decision": "D", "option": [true]}', "malformed_command"),
    (b'{"decision": "D", "option": [1.5]}', "malformed_command"),
    (b'{"decision": "D", "option": ["pass"], "state_id": "7"}', "malformed_command"),
    (b'{"decision": "D", "option": ["pass"], "state_id": true}', "malformed_command"),
    (b'{"decision": "D", "option": ["pass"], "seat": 2}', "malformed_command"),
])
async def test_malformed_command_bodies_are_refused(room, set_up_game, body, code):
    table = await set_up_game(NAMES)
    seat = room.table.state.pending.seats[0]
    body = body.replace(b'"D"', f'"{room.table.state.pending.kind}"'.encode())  # the real one
    before = snapshot(room)
    # the bytes as the command's body inside the seal, as they are (not JSON, say)
    await refused(await table.seats[seat][0].post(
        table.seat_url(seat, "/command"), data=body), 400, code)
    assert snapshot(room) == before


async def test_oversized_bodies_are_refused_with_or_without_a_length(room, server,
                                                                     set_up_game):
    """A sealed request past 16 KB is refused plainly before a byte is opened."""
    table = await set_up_game(NAMES)
    seat = room.table.state.pending.seats[0]
    phone, url = table.seats[seat][0], table.seat_url(seat, "/command")
    big = b'{"decision": "action", "option": ["pass"], "x": "' + b"a" * 17_000 + b'"}'
    before = snapshot(room)
    answer = await phone.post(url, data=big)
    await refused(answer, 413, "too_large")
    assert not answer.sealed
    _, sealed = await phone.envelope(table.seats[seat][1], "command", raw_body=big)

    async def chunks():  # chunked: no Content-Length for the server to look at first
        for i in range(0, len(sealed), 4096):
            yield sealed[i:i + 4096]

    await refused(await phone.http.post(server + "/api/sealed", data=chunks()), 413,
                  "too_large")
    assert snapshot(room) == before


@pytest.mark.parametrize("body, code", [
    ({}, "bad_setup"),
    ({"setup": {"names": ["Ana", "Ben"]}}, "bad_setup"),
    ({"setup": {"names": NAMES, "final_event": ["escape"]}}, "bad_setup"),
    ({"setup": {"names": NAMES, "characters": [[1], [2], [3], [4]]}}, "bad_setup"),
    ({"setup": {"names": NAMES, "variants": "deadly_events"}}, "bad_setup"),
    ({"setup": {"names": NAMES}, "bots": 2}, "bad_request"),
    ({"setup": {"names": NAMES}, "bots": [9]}, "bad_setup"),
    ({"setup": {"names": NAMES}, "bots": [True]}, "bad_request"),
    ({"setup": {"names": NAMES}, "lang": "fr"}, "bad_setup"),
])
async def test_a_bad_game_setup_is_refused(room, new_phone, body, code):
    host = new_phone()
    await host.post(f"/api/host/{room.host_token}/claim")
    await refused(await host.post(f"/api/host/{room.host_token}/game", json=body), 400, code)
    assert room.phase == "start" and room.lang == "en"


async def test_a_new_game_is_refused_while_one_is_played_unless_replaced(room, set_up_game):
    table = await set_up_game(NAMES)
    before = snapshot(room)
    await refused(await table.host.post(f"{table.host_url}/game",
                                        json={"setup": {"names": NAMES}}),
                  409, "game_in_progress")
    assert snapshot(room) == before


@pytest.mark.parametrize("option, status, code", [
    (["shield", 9], 400, "malformed_command"),
    (["suspicion"], 400, "malformed_command"),
    (["stolen_dice", 3], 400, "malformed_command"),
    (["outpost", "no_such_token", "on"], 409, "illegal_option"),
    (["commander", 9], 409, "illegal_option"),              # no such seat
    (["quarantine", 1, "sideways"], 400, "malformed_command"),
    (["lost_dice", "strong", 29], 409, "illegal_option"),   # more than the pool holds
    (["completed", "no_such_event", "on"], 400, "malformed_command"),
    (None, 400, "malformed_command"),
    ({"shield": 2}, 400, "malformed_command"),
])
async def test_corrections_with_bad_options_are_refused(room, set_up_game, option, status,
                                                         code):
    table = await set_up_game(NAMES)
    before = snapshot(room)
    await refused(await table.host.post(f"{table.host_url}/correct", json={"option": option}),
                  status, code)
    assert snapshot(room) == before


async def test_a_correction_that_changes_nothing_is_refused(room, set_up_game):
    table = await set_up_game(NAMES)
    board = room.table.public_view()["outpost"]["tokens"]
    on, off = board[0], next(t for t in OUTPOST_TOKENS if t not in board)
    before = snapshot(room)
    for token, where in ((on, "on"), (off, "off")):
        message = await refused(await table.host.post(
            f"{table.host_url}/correct", json={"option": ["outpost", token, where]}),
            409, "illegal_option")
        assert "already" in message
    assert snapshot(room) == before


async def test_a_stale_correction_is_refused(room, set_up_game):
    table = await set_up_game(NAMES)
    before = snapshot(room)
    await refused(await table.host.post(f"{table.host_url}/correct", json={
        "option": ["shield", 1], "state_id": room.table.state_id - 1}), 409, "stale_state")
    assert snapshot(room) == before


@pytest.mark.parametrize("body, status, code", [
    ({"seat": 9}, 404, "unknown_token"),
    ({"seat": "1"}, 400, "bad_request"),
    ({"seat": True}, 400, "bad_request"),
    ({}, 400, "bad_request"),
])
async def test_rebinding_a_seat_that_does_not_exist_is_refused(room, set_up_game, body, status,
                                                                code):
    table = await set_up_game(NAMES)
    before = snapshot(room)
    await refused(await table.host.post(f"{table.host_url}/rebind", json=body), status, code)
    assert snapshot(room) == before and room.room_view()["notices"] == []


async def test_a_language_the_room_does_not_speak_is_refused(room, set_up_game):
    table = await set_up_game(NAMES, start=False)
    await refused(await table.host.post(f"{table.host_url}/lang", json={"lang": "de"}), 400,
                  "bad_setup")
    await refused(await table.host.post(f"{table.host_url}/lang", json={"lang": ["es"]}), 400,
                  "bad_setup")
    assert room.lang == "en"


async def test_unknown_paths_and_wrong_methods_answer_json(room, server, new_phone):
    phone = new_phone()
    await refused(await phone.get("/api/nothing"), 404, "not_found")
    await refused(await phone.get("/lang/fr.json"), 404, "not_found")
    await refused(await phone.get("/api/sealed"), 405, "method_not_allowed")
    await refused(await phone.request("DELETE", "/api/hello"), 405, "method_not_allowed")
    await refused(await phone.post("/api/board"), 405, "method_not_allowed")
    # the old routes are gone: a code in a path opens nothing
    for path in (f"/api/seat/{WRONG_TOKEN}/command", f"/api/host/{room.host_token}",
                 f"/api/join/{WRONG_TOKEN}"):
        await refused(await phone.http.get(server + path), 404, "not_found")


async def test_an_op_the_code_has_not_is_refused_inside_the_seal(room, set_up_game):
    """A seat's session cannot do what only the host's code does, and no code has an op
    made up: `404 unknown_op`, sealed, nothing changed."""
    table = await set_up_game(NAMES)
    phone, token = table.seats[0]
    before = snapshot(room)
    for op, body in (("start", {}), ("rebind", {"seat": 1}), ("seats", {}), ("record", {}),
                     ("events", {}), ("no_such_op", {})):
        await refused(await phone.call(token, op, body), 404, "unknown_op")
    await refused(await table.host.call(room.host_token, "command",
                                        {"decision": "action", "option": ["pass"]}),
                  404, "unknown_op")
    assert snapshot(room) == before


@pytest.mark.parametrize("path", [
    "/static/%252e%252e/x", "/static/%252e%252e/%252e%252e/etc/passwd", "/static/....//x",
    "/static/....//seat.js", "/static/..\\x", "/static/..%5cseat.js", "/static/a\\b",
    "/static/nothing.js", "/static/", "/static/seat.js/", "/static/."])
async def test_odd_static_paths_answer_the_documented_json_404(server, path):
    """Sent byte for byte (a client library would tidy the path): aiohttp's static route
    answered these with an empty 404 as application/octet-stream, which no page can read."""
    url = URL(server)
    reader, writer = await asyncio.open_connection(url.host, url.port)
    try:
        writer.write(f"GET {path} HTTP/1.1\r\nHost: {url.authority}\r\n"
                     f"Connection: close\r\n\r\n".encode())
        answer = await asyncio.wait_for(reader.read(), 10)
    finally:
        writer.close()
    head, _, body = answer.partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    assert lines[0].startswith("HTTP/1.1 404"), lines[0]
    kinds = [line.split(":", 1)[1].strip() for line in lines
             if line.lower().startswith("content-type:")]
    assert kinds and kinds[0].startswith("application/json"), kinds
    assert json.loads(body)["error"]["code"] == "not_found"


async def test_the_pages_files_are_still_served_and_revalidated(new_phone):
    phone = new_phone()
    response = await phone.get("/static/seat.js")
    assert response.status == 200 and "javascript" in response.content_type
    again = await phone.get("/static/seat.js", headers={"If-None-Match": response.headers["ETag"]})
    assert again.status == 304
    for path in ("/s", "/h", "/j"):  # one page for every code: the code is in the fragment
        page = await phone.get(path)
        assert page.status == 200 and page.content_type == "text/html"
    assert (await phone.get("/s/whatever")).status == 404  # no code in a path any more
