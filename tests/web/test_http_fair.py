"""Fair dealing over HTTP (issue 14): phones give their randomness when they claim, the
commitment is on every public payload before the deal, the secret is on no byte any endpoint
sends before the game is over, and then the record is served, verifies, and the verify page
comes as one self-contained file."""
import asyncio
import json
import random

import pytest

from companion.room import Room
from companion.store import EventStore
from companion.verify import verify
from test_http_secrecy import play_seat, watch


class Body:
    """What a poll answered, as watch() reads it."""

    def __init__(self, body: bytes):
        self.body = body

    async def read(self) -> bytes:
        return self.body

NAMES = ["Ana", "Ben", "Cai", "Dee"]
PHONES = (0, 1)  # the other seats are bots: the Pi gives their randomness


@pytest.fixture
async def room(tmp_path):
    """Unseeded, unlike the other web tests' room: its games are dealt fair."""
    store = EventStore(tmp_path / "g.db")
    room = Room(store, bot_delay=0)
    room.attach(asyncio.get_running_loop())
    yield room
    await room.close()
    store.close()


async def test_a_fair_game_over_http_keeps_its_secret_until_over_then_verifies(
        room, set_up_game, open_stream, new_phone):
    table = await set_up_game(NAMES, start=False, claim=False, bots=[2, 3])
    viewer = new_phone()
    board = await open_stream(viewer, "/api/board/events")
    before = await board.next_view()
    shown = before["room"]["fair"]
    assert shown["commitment"] and shown["game"] is None
    given = {}
    for seat in PHONES:
        phone, token = table.seats[seat]
        given[seat] = f"{seat + 1:02x}" * 32
        response = await phone.post(f"/api/seat/{token}/claim",
                                    json={"contribution": given[seat]})
        assert response.status == 200
    payload = await board.next_view(lambda p: all(p["room"]["seats"][s]["contributed"]
                                                  for s in PHONES))
    assert [s["contributed"] for s in payload["room"]["seats"]] == [True, True, False, False]
    secret = room.lobby["fair"]["secret"]
    seats = {seat: await open_stream(table.seats[seat][0], table.seat_url(seat, "/events"))
             for seat in PHONES}
    host = await open_stream(table.host, f"{table.host_url}/events")
    refused = await viewer.get("/api/fair/record")
    assert refused.status == 409 and (await refused.json())["error"]["code"] == "not_ready"
    polled: list[bytes] = []
    assert (await table.host.post(f"{table.host_url}/start")).status == 200
    during = await viewer.get("/api/fair/record")
    assert during.status == 409 and secret not in await during.text()
    rng = random.Random(5)

    async def record_poll() -> Body:
        # A poll sent just before the last move can be answered after it: then the record,
        # with its secret, is rightly given; before game over the route must refuse.
        response = await viewer.get("/api/fair/record")
        body = await response.read()
        if response.status == 200:
            assert room.table.over, "the record was given before game over"
            return Body(b"")
        return Body(body)

    await asyncio.gather(
        *(play_seat(table, seat, stream, rng) for seat, stream in seats.items()),
        watch(board, polled, record_poll),
        watch(host, polled, lambda: table.host.get(table.host_url)))
    assert room.table.over and room.table.fair.secret == secret
    # No stream ever carries the secret, not even once the game is over: only the record.
    for stream in (board, host, *seats.values()):
        raw = bytes(stream.raw)
        assert secret.encode() not in raw and secret.upper().encode() not in raw
        assert shown["commitment"].encode() in raw
    for body in polled:
        assert secret.encode() not in body

    response = await viewer.get("/api/fair/record")
    assert response.status == 200
    rec = await response.json()
    assert rec["secret"] == secret and rec["commitment"] == shown["commitment"]
    assert verify(rec) == []
    assert [c["from"] for c in rec["contributions"]] == ["phone", "phone", "pi", "pi"]
    assert [c["value"] for c in rec["contributions"][:2]] == [given[0], given[1]]


async def test_the_verify_page_is_one_file_in_the_rooms_language(room, new_phone):
    await room.set_lang("es")
    response = await new_phone().get("/fair")
    assert response.status == 200
    page = await response.text()
    assert 'src="verify.js"' not in page and "function verifyRecord" in page
    words = json.loads(page.split('id="verify-text">')[1].split("</script>")[0])
    assert words["phone.verify.title"] == "Comprobar una partida"
    assert '<html lang="es">' in page


async def test_a_phone_gives_for_the_next_game_once_this_one_is_over(
        room, set_up_game, new_phone):
    table = await set_up_game(NAMES, start=True, claim=True, bots=[1, 2, 3])
    phone, token = table.seats[0]
    bad = await phone.post(f"/api/seat/{token}/contribute", json={"contribution": "12"})
    assert bad.status == 400 and (await bad.json())["error"]["code"] == "bad_request"
    stranger = new_phone()
    refused = await stranger.post(f"/api/seat/{token}/contribute",
                                  json={"contribution": "ab" * 32})
    assert refused.status == 403
    ok = await phone.post(f"/api/seat/{token}/contribute", json={"contribution": "ab" * 32})
    assert ok.status == 200
    assert room.lobby["fair"]["contributions"][0] == "ab" * 32
    assert room.room_view()["seats"][0]["contributed"]


# What bytes.fromhex would read but the verify page would not (spaces, capitals): such a
# contribution would be published and make an honest game's record look forged on the page.
ODD = {"spaces": "ab" * 31 + "  ", "all_spaces": " " * 64, "capitals": "AB" * 32,
       "tab_newline": "ab" * 31 + "\t\n", "short": "ab" * 31, "long": "ab" * 33}


@pytest.mark.parametrize("value", ODD.values(), ids=ODD.keys())
async def test_a_contribution_that_is_not_exactly_64_lowercase_hex_digits_is_refused(
        room, set_up_game, value):
    table = await set_up_game(NAMES, start=False, claim=False)
    phone, token = table.seats[0]
    refused = await phone.post(f"/api/seat/{token}/claim", json={"contribution": value})
    assert refused.status == 400 and (await refused.json())["error"]["code"] == "bad_request"
    assert room.lobby["seats"][0]["phone"] is None  # nothing stored, nothing published
    assert room.lobby["fair"]["contributions"][0] is None
    claimed = await phone.post(f"/api/seat/{token}/claim")
    assert claimed.status == 200
    refused = await phone.post(f"/api/seat/{token}/contribute", json={"contribution": value})
    assert refused.status == 400 and room.lobby["fair"]["contributions"][0] is None
    assert not room.room_view()["seats"][0]["contributed"]
