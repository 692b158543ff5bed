"""The kiosk on fair dealing (issue 14): before statuses are dealt it shows the commitment
and how many phones have given their randomness (the Pi gives for bots); during the game the
commitment and the games this box has dealt; at game over where to check the deal."""
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
        assert f"Fair deal · commitment {fingerprint}" in text
        assert "Randomness given: 0 of 3 phones" in text and "0 games dealt on this box" in text
        assert "The Pi gives the randomness of bots" in text
        await room.claim_seat(tokens[0], "phone-ana", "ab" * 32)
        await room.claim_seat(tokens[1], "phone-ben", "cd" * 32)
        text = await settle(app, pilot)
        assert "Randomness given: 2 of 3 phones" in text
        await room.claim_seat(tokens[2], "phone-cai", "ef" * 32)
        text = await settle(app, pilot)
        assert "Randomness given: 3 of 3 phones" in text
        await room.start()
        text = await settle(app, pilot)
        assert f"Fair deal · commitment {fingerprint}" in text  # the deal kept it
        assert "Game 1 · 1 dealt on this box" in text
        rng = random.Random(2)
        while not room.table.over:
            g = room.table.state
            seat = rng.choice(g.pending.seats)
            await room.submit(seat, choice_for(g, seat, rng))
        text = await settle(app, pilot)
        assert f"Check this game: {BASE}/fair" in text
        assert f"Next game's commitment {room.room_view()['fair']['next']}" in text
    await room.close()


async def test_a_seeded_game_is_said_to_be_not_verifiable(tmp_path):
    room = Room(EventStore(str(tmp_path / "games.db")), seed=4, bot_delay=0)
    await room.new_game({"names": NAMES[:3]}, bots=[0, 1, 2])
    await room.start()
    app = kiosk(room)
    async with app.run_test(size=SIZE) as pilot:
        text = await settle(app, pilot)
        assert "Seeded game: not verifiable" in text
    await room.close()
