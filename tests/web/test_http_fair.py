"""Fair dealing over HTTP (darkmoon-fair/2): phones pledge a hash of their bytes with the whole
commitment they saw, reveal the bytes once the host starts, and the game is dealt at the last
reveal; the secret and the bytes are on no byte any endpoint sends before the game is over;
then the record is served and verifies against the commitment each phone kept. A retried
pledge is the same pledge, a pledge to another commitment is refused, and a replaced game's
record is public at once. The seats' and the host's traffic is sealed (tests/web/phone.py):
what their pages read is checked opened, and what crossed the Wi-Fi sealed."""
import asyncio
import json
import random
import sqlite3

import pytest

from companion.chance.fair import code, draw_value, pledge
from companion.core.room import Room
from companion.core.store import EventStore
from companion.chance.verify import check
from leaks import check_fair_secrets
from test_http_secrecy import play_seat, watch


class Body:
    """What a poll answered, as watch() reads it."""

    def __init__(self, body: bytes):
        self.body = body

    async def read(self) -> bytes:
        return self.body


NAMES = ["Ana", "Ben", "Cai", "Dee"]
PHONES = (0, 1)  # the other seats are bots: they get their fillers


@pytest.fixture
async def room(tmp_path):
    """Unseeded, unlike the other web tests' room: its games are dealt fair. A store that
    gives up on a locked file at once: a refused write is quick to show."""
    store = EventStore(tmp_path / "g.db", busy_ms=100)
    room = Room(store, bot_delay=0)
    room.attach(asyncio.get_running_loop())
    yield room
    await room.close()
    store.close()


async def error_code(response) -> str:
    return (await response.json())["error"]["code"]


async def test_a_fair_game_over_http_pledged_revealed_and_verified_by_the_phones(
        room, set_up_game, open_stream, new_phone):
    table = await set_up_game(NAMES, start=False, claim=False, bots=[2, 3])
    viewer = new_phone()
    board = await open_stream(viewer, "/api/board/events")
    shown = (await board.next_view())["room"]["fair"]["pending"]
    commit = shown["commitment"]
    assert shown["code"] == code(commit)  # what the kiosk shows and the phones read back
    values = {seat: draw_value() for seat in PHONES}
    # a phone that saw another commitment (the Pi swapped the secret) is refused, unseated
    phone, token = table.seats[0]
    stale = await phone.post(f"/api/seat/{token}/claim", json={
        "commitment": "0" * 64, "pledge": pledge("0" * 64, values[0])})
    assert stale.status == 409 and await error_code(stale) == "commitment_changed"
    assert room.lobby["seats"][0]["phone"] is None
    for seat in PHONES:
        phone, token = table.seats[seat]
        response = await phone.post(f"/api/seat/{token}/claim", json={
            "commitment": commit, "pledge": pledge(commit, values[seat])})
        assert response.status == 200
    payload = await board.next_view(lambda p: all(p["room"]["seats"][s]["pledged"]
                                                  for s in PHONES))
    assert payload["room"]["fair"]["pending"]["pledges"] == [
        pledge(commit, values[0]), pledge(commit, values[1]), None, None]
    secret = room.lobby["fair"]["secret"]
    hidden = [secret, *values.values()]
    seats = {seat: await open_stream(table.seats[seat][0], table.seat_url(seat, "/events"))
             for seat in PHONES}
    host = await open_stream(table.host, f"{table.host_url}/events")
    started = await table.host.post(f"{table.host_url}/start")
    assert await started.json() == {"state_id": None, "revealing": True}
    # each phone is shown every pledge before it reveals
    view = await seats[0].next_view(lambda p: p["room"]["fair"]["pending"]["revealing"])
    assert view["room"]["fair"]["pending"]["pledges"] == payload["room"]["fair"]["pending"][
        "pledges"]
    # the pledges closed when the reveal opened: a late one is refused
    phone, token = table.seats[1]
    late = await phone.post(f"/api/seat/{token}/pledge", json={
        "commitment": commit, "pledge": pledge(commit, draw_value())})
    assert late.status == 409 and await error_code(late) == "not_ready"
    refused = await viewer.get("/api/fair/record")
    assert refused.status == 409 and await error_code(refused) == "not_ready"
    wrong = await phone.post(f"/api/seat/{token}/reveal",
                             json={"commitment": commit, "value": values[0]})
    assert wrong.status == 400 and room.lobby["fair"]["values"] == [None] * 4
    for seat in PHONES:
        phone, token = table.seats[seat]
        revealed = await phone.post(f"/api/seat/{token}/reveal",
                                    json={"commitment": commit, "value": values[seat]})
        assert await revealed.json() == {"revealed": True, "dealt": seat == PHONES[-1]}
    assert room.phase == "play" and room.table.fair.secret == secret
    during = await viewer.get(f"/api/fair/record?game={room.table.game_id}")
    assert during.status == 409 and secret not in await during.text()
    rng = random.Random(5)
    polled: list[bytes] = []

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
    assert room.table.over
    # No stream ever carries the secret or a phone's bytes, not even once the game is over:
    # only the record. The whole commitment went out on every stream: readable on the board's,
    # to its phone only on a sealed one (what the page read), never on the Wi-Fi.
    for stream in (board, host, *seats.values()):
        read = bytes(getattr(stream, "plain", stream.raw))
        check_fair_secrets(read.decode(), hidden)
        check_fair_secrets(bytes(stream.raw).decode(), hidden)
        assert commit.encode() in read
        assert (commit.encode() in bytes(stream.raw)) == (stream is board)
    for body in polled:
        check_fair_secrets(body.decode(), hidden)

    # each phone checks the record against what it kept: the commitment, its own bytes
    for seat in PHONES:
        response = await table.seats[seat][0].get(f"/api/fair/record?game={shown['game']}")
        assert response.status == 200
        rec = await response.json()
        assert rec["commitment"] == commit and rec["game"] == shown["game"]
        mine = rec["contributions"][seat]
        assert mine == {"seat": seat, "from": "phone", "pledge": pledge(commit, values[seat]),
                        "value": values[seat]}
        verdict = check(rec, commit)
        assert verdict.problems == [] and verdict.over and verdict.phones == 2
    assert [c["from"] for c in rec["contributions"]] == ["phone", "phone", "filler", "filler"]


async def test_a_retried_pledge_is_the_same_pledge_and_another_one_is_refused(
        room, set_up_game, tmp_path):
    """A phone keeps one value per commitment and re-sends its pledge unchanged. Before, the
    seat page drew fresh bytes on every retry or reload, so a Pi that answered 503 to bytes
    it disliked got new ones (and a second, different contribution was answered 200, as if
    taken). Now a pledge refused by a failing store changes nothing, the same pledge re-sent
    is taken as it was, and a different one is refused."""
    table = await set_up_game(NAMES, start=False, claim=True)
    phone, token = table.seats[0]
    commit = room.lobby["fair"]["commitment"]
    body = {"commitment": commit, "pledge": pledge(commit, draw_value())}
    other = sqlite3.connect(tmp_path / "g.db", isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # the card stalls: the room cannot write
    try:
        failed = await phone.post(f"/api/seat/{token}/pledge", json=body)
        assert failed.status == 503 and await error_code(failed) == "storage_failed"
        assert room.lobby["fair"]["pledges"][0] is None
    finally:
        other.rollback()
        other.close()
    for _ in range(2):  # re-sent, twice: taken once, unchanged
        again = await phone.post(f"/api/seat/{token}/pledge", json=body)
        assert await again.json() == {"pledged": True}
        assert room.lobby["fair"]["pledges"][0] == body["pledge"]
    claimed = await phone.post(f"/api/seat/{token}/claim", json=body)  # a reloaded claim
    assert claimed.status == 200
    reroll = await phone.post(f"/api/seat/{token}/pledge", json={
        "commitment": commit, "pledge": pledge(commit, draw_value())})
    assert reroll.status == 400 and await error_code(reroll) == "bad_request"
    assert room.store.setting("room")["lobby"]["fair"]["pledges"][0] == body["pledge"]


async def test_a_replaced_game_is_revealed_at_once_and_the_kiosk_says_so(
        room, set_up_game, open_stream, new_phone):
    """Before, a game replaced in play was never revealed: its deal could never be
    audited. Now its record is public the moment it is replaced, and every screen is told."""
    table = await set_up_game(NAMES, start=True, claim=True)
    game = room.table.game_id
    viewer = new_phone()
    refused = await viewer.get(f"/api/fair/record?game={game}")  # in play: never
    assert refused.status == 409 and await error_code(refused) == "not_ready"
    board = await open_stream(viewer, "/api/board/events")
    await board.next_view()
    replaced = await table.host.post(f"{table.host_url}/game", json={
        "setup": {"names": NAMES}, "replace": True})
    assert replaced.status == 200
    payload = await board.next_view(lambda p: p["room"]["notices"])
    assert {"k": "game_revealed", "game": game} in payload["room"]["notices"]
    assert payload["room"]["fair"]["revealed_games"] == [game]
    response = await viewer.get(f"/api/fair/record?game={game}")
    assert response.status == 200
    verdict = check(await response.json())
    assert verdict.problems == [] and not verdict.over and verdict.events >= 1
    for query, status, code in (("game=abc", 400, "bad_request"), ("game=-1", 400,
                                "bad_request"), (f"game={game + 5}", 404, "unknown_game")):
        answer = await viewer.get(f"/api/fair/record?{query}")
        assert answer.status == status and await error_code(answer) == code


async def test_the_verify_page_is_one_file_in_the_rooms_language(room, new_phone):
    await room.set_lang("es")
    response = await new_phone().get("/fair")
    assert response.status == 200
    page = await response.text()
    assert 'src="verify.js"' not in page
    words = json.loads(page.split('id="verify-text">')[1].split("</script>")[0])
    assert words["phone.verify.title"] == "Comprobar una partida"
    assert '<html lang="es">' in page


async def test_a_phone_pledges_for_the_next_game_once_this_one_is_dealt(
        room, set_up_game, new_phone):
    table = await set_up_game(NAMES, start=True, claim=True, bots=[1, 2, 3])
    phone, token = table.seats[0]
    commit = room.room_view()["fair"]["pending"]["commitment"]  # the next game's
    assert commit != room.room_view()["fair"]["commitment"]
    bad = await phone.post(f"/api/seat/{token}/pledge", json={"commitment": commit,
                                                              "pledge": "12"})
    assert bad.status == 400 and await error_code(bad) == "bad_request"
    body = {"commitment": commit, "pledge": "ab" * 32}
    stranger = await new_phone().post(f"/api/seat/{token}/pledge", json=body)
    assert stranger.status == 403
    old = await phone.post(f"/api/seat/{token}/contribute", json={"contribution": "ab" * 32})
    assert old.status == 404 and await error_code(old) == "unknown_op"  # no bytes in the clear
    ok = await phone.post(f"/api/seat/{token}/pledge", json=body)
    assert ok.status == 200
    assert room.lobby["fair"]["pledges"][0] == "ab" * 32
    assert room.room_view()["seats"][0]["pledged"]


# What bytes.fromhex would read but the verify page would not (spaces, capitals).
ODD = {"spaces": "ab" * 31 + "  ", "all_spaces": " " * 64, "capitals": "AB" * 32,
       "tab_newline": "ab" * 31 + "\t\n", "short": "ab" * 31, "long": "ab" * 33}


@pytest.mark.parametrize("value", ODD.values(), ids=ODD.keys())
async def test_a_pledge_that_is_not_exactly_64_lowercase_hex_digits_is_refused(
        room, set_up_game, value):
    table = await set_up_game(NAMES, start=False, claim=False)
    phone, token = table.seats[0]
    commit = room.lobby["fair"]["commitment"]
    for body in ({"commitment": commit, "pledge": value}, {"commitment": value,
                                                          "pledge": "ab" * 32}):
        refused = await phone.post(f"/api/seat/{token}/claim", json=body)
        assert refused.status == 400 and await error_code(refused) == "bad_request"
    assert room.lobby["seats"][0]["phone"] is None  # nothing stored, nothing published
    claimed = await phone.post(f"/api/seat/{token}/claim")
    assert claimed.status == 200
    refused = await phone.post(f"/api/seat/{token}/pledge",
                               json={"commitment": commit, "pledge": value})
    assert refused.status == 400 and room.lobby["fair"]["pledges"][0] is None
    assert not room.room_view()["seats"][0]["pledged"]
