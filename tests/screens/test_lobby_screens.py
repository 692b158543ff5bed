"""Start and join screens: the host's code, each seat's code, who has joined, notices."""
from __future__ import annotations

import pytest

from companion.room import Room, SeatClaimed
from companion.store import EventStore
from screens.capture import screen_text
from screens.qr import QrCode

from .conftest import BASE, SIZE, kiosk, settle
from table_play import NAMES


def shown_codes(app) -> list[str]:
    return [qr.data for qr in app.query(QrCode) if qr.display and qr.parent.display
            and qr.region.area]


@pytest.fixture
def room(tmp_path):
    return Room(EventStore(str(tmp_path / "games.db")), seed=5, bot_delay=0)


async def test_start_screen_shows_the_hosts_code_until_the_host_claims(room):
    app = kiosk(room)
    async with app.run_test(size=SIZE) as pilot:
        text = await settle(app, pilot)
        url = f"{BASE}/h/{room.host_token}"
        assert "Scan to host" in text and url in text
        assert shown_codes(app) == [url]
        room.claim_host(room.host_token, "phone-host")
        text = await settle(app, pilot)
        assert "setting up the game on their phone" in text
        assert url not in text and shown_codes(app) == []


async def test_join_screen_shows_seat_codes_and_claims_as_they_happen(room):
    room.new_game({"names": NAMES[:3]}, bots=[2])
    tokens = room.kiosk_view()["seat_tokens"]
    app = kiosk(room)
    async with app.run_test(size=SIZE) as pilot:
        text = await settle(app, pilot)
        assert shown_codes(app) == [f"{BASE}/s/{t}" for t in tokens]
        for name in NAMES[:3]:
            assert name in text
        assert "Seat 3 Cai (bot)" in text  # a bot's seat is marked, and still scannable
        room.claim_seat(tokens[1], "phone-ben")
        text = await settle(app, pilot)
        assert "2 Ben          √ joined" in text
        assert shown_codes(app) == [f"{BASE}/s/{tokens[0]}", f"{BASE}/s/{tokens[2]}"]
        with pytest.raises(SeatClaimed):
            room.claim_seat(tokens[1], "phone-intruder")
        text = await settle(app, pilot)
        assert "Seat 2 (Ben) was scanned by a second phone: refused" in text


async def test_more_seats_than_fit_page_through_their_codes(room):
    room.new_game({"names": NAMES})
    tokens = room.kiosk_view()["seat_tokens"]
    app = kiosk(room)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        first = shown_codes(app)
        assert first == [f"{BASE}/s/{t}" for t in tokens[:3]]  # three fit at 120x36
        await pilot.press("pagedown")
        assert shown_codes(app) == [f"{BASE}/s/{t}" for t in tokens[3:6]]


async def test_a_rebound_seat_gets_its_code_back_during_play(tmp_path):
    from table_play import seated_room
    room = seated_room(tmp_path, players=4)
    app = kiosk(room)
    async with app.run_test(size=SIZE) as pilot:
        text = await settle(app, pilot)
        assert "SHIELDS" in text and shown_codes(app) == []
        room.rebind(2)
        text = await settle(app, pilot)
        assert "no phone: seat 3 (F3)" in text
        await pilot.press("f3")
        text = await settle(app, pilot)
        assert shown_codes(app) == [f"{BASE}/s/{room.kiosk_view()['seat_tokens'][2]}"]
        assert "Seat 3 (Cai) was freed by the host for a new phone" in text
        await pilot.press("f3")
        assert "SHIELDS" in screen_text(app)
