"""Fair dealing in the room (issue 14): the commitment is shown before any seat is claimed,
each phone's randomness goes into the deal, the Pi gives for bots, the record (with the
secret) is out only once the game is over, "play again" deals from a commitment made before
the phones gave for it, and the games this box dealt are counted across restarts."""
import json
import random

import pytest

from companion.fair import commitment, fingerprint
from companion.refusals import BadRequest, NotReady
from companion.room import Room
from companion.simulate import choice_for
from companion.store import EventStore
from companion.verify import verify

NAMES = ["Ana", "Ben", "Cai", "Dee"]


def given(i: int) -> str:
    return f"{i:02x}" * 32


async def finish(room: Room, rng=None) -> None:
    rng = rng or random.Random(0)
    while not room.table.over:
        g = room.table.state
        seat = rng.choice(g.pending.seats)
        await room.submit(seat, choice_for(g, seat, rng))


async def fair_room(tmp_path, bots=()) -> Room:
    room = Room(EventStore(tmp_path / "games.db"), bot_delay=0)  # no seed: a fair deal
    await room.new_game({"names": NAMES}, bots=list(bots))
    return room


async def test_the_commitment_is_shown_before_any_seat_is_claimed_and_the_deal_keeps_it(
        tmp_path):
    room = await fair_room(tmp_path)
    shown = room.room_view()["fair"]
    assert shown["commitment"] == commitment(room.lobby["fair"]["secret"])
    assert shown["fingerprint"] == fingerprint(shown["commitment"]) and shown["game"] is None
    for i, seat in enumerate(room.lobby["seats"]):
        assert not room.room_view()["seats"][i]["contributed"]
        await room.claim_seat(seat["token"], f"phone-{i}", given(i))
        assert room.room_view()["seats"][i]["contributed"]
    await room.start()
    assert room.room_view()["fair"]["commitment"] == shown["commitment"]
    assert room.table.fair.contributions == [given(i) for i in range(4)]
    assert room.table.fair.sources == ["phone"] * 4
    # the next game's commitment is made at once, before any phone could give for it
    assert room.room_view()["fair"]["next"] not in (None, shown["fingerprint"])


async def test_the_pi_gives_for_bots_and_for_phones_that_gave_nothing(tmp_path):
    room = await fair_room(tmp_path, bots=[3])
    seats = room.lobby["seats"]
    await room.claim_seat(seats[0]["token"], "phone-0", given(1))
    await room.claim_seat(seats[1]["token"], "phone-1")  # an old page: claimed, gave nothing
    await room.claim_seat(seats[1]["token"], "phone-1", given(2))  # its reload gives
    await room.claim_seat(seats[2]["token"], "phone-2")
    await room.start()
    fair = room.table.fair
    assert fair.sources == ["phone", "phone", "pi", "pi"]
    assert fair.contributions[:2] == [given(1), given(2)]
    assert len(set(fair.contributions)) == 4


async def test_a_contribution_that_is_not_32_bytes_of_hex_is_refused(tmp_path):
    room = await fair_room(tmp_path)
    token = room.lobby["seats"][0]["token"]
    for bad in ("ab" * 31, "zz" * 32, 42):
        with pytest.raises(BadRequest):
            await room.claim_seat(token, "phone-0", bad)
    assert room.lobby["seats"][0]["phone"] is None  # nothing changed
    await room.claim_seat(token, "phone-0", given(9))
    await room.contribute(token, "phone-0", given(8))  # the first one stands
    assert room.lobby["fair"]["contributions"][0] == given(9)


async def test_the_secret_and_the_record_stay_hidden_until_the_game_is_over(tmp_path):
    room = await fair_room(tmp_path)
    for i, seat in enumerate(room.lobby["seats"]):
        await room.claim_seat(seat["token"], f"phone-{i}", given(i + 1))
    secret = room.lobby["fair"]["secret"]
    await room.start()
    with pytest.raises(NotReady):
        await room.fair_record()
    views = [room.room_view(), room.kiosk_view(), room.public_view()]
    views += [room.seat_view(s) for s in range(4)]
    assert not any(secret in json.dumps(v) for v in views)
    await finish(room)
    rec = json.loads(json.dumps(await room.fair_record()))
    assert rec["secret"] == secret and verify(rec) == []
    assert [c["value"] for c in rec["contributions"]] == [given(i + 1) for i in range(4)]


async def test_play_again_deals_from_the_next_commitment_and_what_the_phones_gave_after_it(
        tmp_path):
    room = await fair_room(tmp_path)
    for i, seat in enumerate(room.lobby["seats"]):
        await room.claim_seat(seat["token"], f"phone-{i}", given(i + 1))
    await room.start()
    await finish(room)
    first = room.table.game_id
    upcoming = room.room_view()["fair"]["next"]
    secret = room.lobby["fair"]["secret"]
    for i, seat in enumerate(room.lobby["seats"][:3]):  # the fourth phone was put away
        await room.contribute(seat["token"], f"phone-{i}", given(i + 20))
    await room.play_again()
    assert room.table.game_id == first + 1
    assert room.room_view()["fair"]["fingerprint"] == upcoming
    assert room.table.fair.secret == secret
    assert room.table.fair.contributions[:3] == [given(i + 20) for i in range(3)]
    assert room.table.fair.sources == ["phone", "phone", "phone", "pi"]


async def test_the_games_dealt_on_this_box_are_counted_across_restarts(tmp_path):
    room = await fair_room(tmp_path, bots=[0, 1, 2, 3])
    assert room.room_view()["fair"]["games_dealt"] == 0
    await room.start()
    await finish(room)
    await room.play_again()
    await room.close()
    again = Room(EventStore(tmp_path / "games.db"), bot_delay=0)
    assert again.room_view()["fair"]["games_dealt"] == 2
    assert again.room_view()["fair"]["game"] == 2
    assert again.table.fair is not None  # resumed with its secret: the same stream goes on
    await again.close()


async def test_a_seeded_room_says_its_game_is_not_verifiable(tmp_path):
    room = Room(EventStore(tmp_path / "games.db"), seed=3, bot_delay=0)
    await room.new_game({"names": NAMES}, bots=[0, 1, 2, 3])
    await room.start()
    assert room.room_view()["fair"]["verifiable"] is False
    await finish(room)
    with pytest.raises(NotReady):
        await room.fair_record()
    await room.close()


async def test_a_room_stored_before_fair_dealing_still_opens_and_deals_fair(tmp_path):
    store = EventStore(tmp_path / "games.db")
    room = Room(store, bot_delay=0)
    await room.new_game({"names": NAMES}, bots=[0, 1, 2, 3])
    await room.close()
    old = store.setting("room")
    del old["lobby"]["fair"]  # as an earlier version stored it
    store.put_setting("room", old)
    again = Room(store, bot_delay=0)
    assert again.room_view()["fair"]["commitment"]  # committed now, before the deal
    assert store.setting("room")["lobby"]["fair"]["secret"] == again.lobby["fair"]["secret"]
    await again.start()
    await finish(again)
    assert verify(json.loads(json.dumps(await again.fair_record()))) == []
    await again.close()


async def test_a_contribution_stored_before_the_strict_check_is_dropped_and_the_pi_gives(
        tmp_path):
    """A lobby stored when a contribution with spaces was still taken: the room drops it at
    start (the Pi gives for that seat), so the game's record verifies on the page and with
    the command alike."""
    store = EventStore(tmp_path / "games.db")
    room = Room(store, bot_delay=0)
    await room.new_game({"names": NAMES}, bots=[2, 3])
    await room.close()
    old = store.setting("room")
    old["lobby"]["fair"]["contributions"][:2] = ["ab" * 31 + "  ", given(5)]
    store.put_setting("room", old)
    again = Room(store, bot_delay=0)
    assert again.lobby["fair"]["contributions"] == [None, given(5), None, None]
    for i in (0, 1):
        await again.claim_seat(again.lobby["seats"][i]["token"], f"phone-{i}")
    await again.start()
    await finish(again)
    rec = json.loads(json.dumps(await again.fair_record()))
    assert [c["from"] for c in rec["contributions"]] == ["pi", "phone", "pi", "pi"]
    assert verify(rec) == []
    await again.close()
