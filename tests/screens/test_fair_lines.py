"""The kiosk on fair dealing, in table words: before statuses are dealt it shows the code
the deal is sealed under and how many phones have added their part to the shuffle (the Pi
adds it for bots); during the game that code and the games this Pi has dealt; at game over
where to check the deal."""
from __future__ import annotations

import random

from companion.room import Room
from companion.simulate import choice_for
from companion.store import EventStore

from .conftest import BASE, SIZE, kiosk, settle
from table_play import NAMES


async def test_the_kiosk_shows_the_commitment_and_who_gave_before_the_deal(tmp_path):
    room = Room(EventStore(str(tmp_path / "games.db")), bot_delay=0)  # no seed: dealt fair
    await room.new_game({"names": NAMES[:3]})
    tokens = room.kiosk_view()["seat_tokens"]
    fingerprint = room.room_view()["fair"]["fingerprint"]
    app = kiosk(room)
    async with app.run_test(size=SIZE) as pilot:
        text = await settle(app, pilot)
        assert f"Fair deal sealed: {fingerprint}" in text
        assert "0 of 3 phones added to the shuffle" in text and "0 games dealt by this Pi" in text
        assert "The Pi adds the part of bots" in text
        await room.claim_seat(tokens[0], "phone-ana", "ab" * 32)
        await room.claim_seat(tokens[1], "phone-ben", "cd" * 32)
        text = await settle(app, pilot)
        assert "2 of 3 phones added to the shuffle" in text
        await room.claim_seat(tokens[2], "phone-cai", "ef" * 32)
        text = await settle(app, pilot)
        assert "3 of 3 phones added to the shuffle" in text
        await room.start()
        text = await settle(app, pilot)
        assert f"Fair deal sealed: {fingerprint}" in text  # the deal kept it
        assert "Game 1 of 1 dealt by this Pi" in text
        rng = random.Random(2)
        while not room.table.over:
            g = room.table.state
            seat = rng.choice(g.pending.seats)
            await room.submit(seat, choice_for(g, seat, rng))
        text = await settle(app, pilot)
        assert f"Check this game: {BASE}/fair" in text
        assert f"Next game sealed: {room.room_view()['fair']['next']}" in text
    await room.close()


async def test_a_seeded_game_is_said_to_be_a_practice_game(tmp_path):
    room = Room(EventStore(str(tmp_path / "games.db")), seed=4, bot_delay=0)
    await room.new_game({"names": NAMES[:3]}, bots=[0, 1, 2])
    await room.start()
    app = kiosk(room)
    async with app.run_test(size=SIZE) as pilot:
        text = await settle(app, pilot)
        assert "Practice game: no deal to check" in text
    await room.close()
