"""A mis-tap at joining is not final: before the game starts a phone gives back the seat it
took, which is free again under the same code (the table code and every other seat's code
stay as they were: nobody scans again). Once the game is dealt only the host moves a seat.
A phone whose seat the host gave to another phone is told so, plainly. The host who plays
takes a seat from the host's page. All of it survives a restart."""
import sqlite3

import pytest

from companion.core.claims import SeatGivenAway
from companion.core.joining import table_seats
from companion.core.room import (BadRequest, BotSeat, GameInProgress, NotYourSeat, OneSeatPerPhone,
                            Room, SeatClaimed, StorageFailed, UnknownToken)
from companion.core.store import EventStore

NAMES = ["Ana", "Ben", "Cai", "Dee"]
GIVEN = ["a" * 64, "b" * 64, "c" * 64]  # pledges: a hash of each phone's bytes


def pledged(room: Room, given: str) -> tuple[str, str]:
    """The commitment the phone was shown, and its pledge for that deal."""
    return room.lobby["fair"]["commitment"], given


def open_room(tmp_path, **kw) -> Room:
    return Room(EventStore(tmp_path / "games.db"), **kw)


async def lobby_room(tmp_path) -> Room:
    room = open_room(tmp_path, seed=5)
    await room.claim_host(room.host_token, "host-phone")
    await room.new_game({"names": NAMES})
    return room


def tokens(room: Room) -> list[str]:
    return [s["token"] for s in room.lobby["seats"]]


async def test_a_wrong_tap_is_given_back_and_the_right_phone_takes_the_seat_with_its_code(
        tmp_path):
    room = await lobby_room(tmp_path)
    codes, table = tokens(room), room.kiosk_view()["table_token"]
    await room.claim_seat(codes[2], "cai-phone", *pledged(room, GIVEN[2]))  # Cai sits, stays
    await room.claim_seat(codes[1], "ana-phone", *pledged(room, GIVEN[0]))  # Ana: Ben's seat
    assert await room.leave_seat(codes[1], "ana-phone") == 1
    # Free again, under the same code: the kiosk shows it again, the table code is the same
    assert tokens(room) == codes and room.kiosk_view()["table_token"] == table
    assert room.kiosk_view()["seat_tokens"][1] == codes[1]
    assert [s["claimed"] for s in room.room_view()["seats"]] == [False, False, True, False]
    assert table_seats(room.kiosk_view(), table)[1]["token"] == codes[1]
    # Ana's pledge went with her: Ben's phone pledges its own
    assert room.lobby["fair"]["pledges"][1] is None
    # the phone that left cannot act for the seat any more
    with pytest.raises(NotYourSeat):
        room.check_seat(codes[1], "ana-phone")
    with pytest.raises(NotYourSeat):
        await room.pledge(codes[1], "ana-phone", *pledged(room, GIVEN[0]))
    with pytest.raises(NotYourSeat):
        await room.leave_seat(codes[1], "ana-phone")
    # Ana takes her own seat, Ben his, with the codes they had: Cai never noticed
    assert await room.claim_seat(codes[0], "ana-phone", *pledged(room, GIVEN[0])) == 0
    assert await room.claim_seat(codes[1], "ben-phone", *pledged(room, GIVEN[1])) == 1
    assert room.lobby["fair"]["pledges"][:3] == GIVEN
    assert room.check_seat(codes[2], "cai-phone") == 2
    await room.claim_seat(codes[3], "dee-phone")
    await room.start()  # the game starts: the phones that pledged reveal their bytes first
    assert room.revealing and room.room_view()["fair"]["pending"]["pledges"][:3] == GIVEN


async def test_only_the_seats_own_phone_leaves_it_and_a_refusal_changes_nothing(tmp_path):
    room = await lobby_room(tmp_path)
    codes = tokens(room)
    await room.claim_seat(codes[0], "ana-phone")
    before = (room.lobby, room.room_view())
    for token, phone, refusal in ((codes[0], "ben-phone", NotYourSeat),
                                  (codes[0], None, NotYourSeat),
                                  (codes[1], "ana-phone", NotYourSeat),  # a free seat
                                  ("x" * 22, "ana-phone", UnknownToken),
                                  (None, "ana-phone", UnknownToken)):
        with pytest.raises(refusal):
            await room.leave_seat(token, phone)
    assert (room.lobby, room.room_view()) == before


async def test_once_the_game_is_dealt_a_seat_is_left_only_by_the_hosts_rebind(tmp_path):
    room = await lobby_room(tmp_path)
    codes = tokens(room)
    for i, code in enumerate(codes):
        await room.claim_seat(code, f"phone-{i}")
    await room.start()
    before = (room.lobby, room.room_view(), room.table.state_id)
    with pytest.raises(GameInProgress):
        await room.leave_seat(codes[1], "phone-1")
    assert (room.lobby, room.room_view(), room.table.state_id) == before
    assert room.check_seat(codes[1], "phone-1") == 1


async def test_a_leave_the_store_refuses_changes_nothing(tmp_path):
    path = tmp_path / "games.db"
    room = Room(EventStore(path, busy_ms=100), seed=5)
    await room.new_game({"names": NAMES})
    codes = tokens(room)
    await room.claim_seat(codes[0], "ana-phone", *pledged(room, GIVEN[0]))
    before = (room.lobby, room.room_view())
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(StorageFailed):
            await room.leave_seat(codes[0], "ana-phone")
        assert (room.lobby, room.room_view()) == before
    finally:
        other.rollback()
        other.close()
    room.store.close()
    assert open_room(tmp_path).check_seat(codes[0], "ana-phone") == 0


async def test_a_seat_left_stays_free_after_a_restart_and_its_code_still_works(tmp_path):
    room = await lobby_room(tmp_path)
    codes = tokens(room)
    await room.claim_seat(codes[0], "ana-phone")
    await room.claim_seat(codes[1], "ana-phone-2")
    await room.leave_seat(codes[1], "ana-phone-2")
    room.store.close()
    again = open_room(tmp_path, seed=5)
    assert tokens(again) == codes
    assert [s["claimed"] for s in again.room_view()["seats"]] == [True, False, False, False]
    with pytest.raises(NotYourSeat):
        again.check_seat(codes[1], "ana-phone-2")
    assert await again.claim_seat(codes[1], "ben-phone") == 1


async def test_a_phone_whose_seat_went_to_another_phone_is_told_so_even_after_a_restart(
        tmp_path):
    room = await lobby_room(tmp_path)
    codes = tokens(room)
    await room.claim_seat(codes[1], "wrong-phone")
    await room.rebind(1)
    with pytest.raises(SeatGivenAway) as refused:
        room.check_seat(codes[1], "wrong-phone")
    assert refused.value.code == "seat_given_away" and refused.value.status == 404
    with pytest.raises(SeatGivenAway):
        await room.claim_seat(codes[1], "another-phone")
    assert isinstance(refused.value, UnknownToken)  # still a dead code, for anyone
    # a code nobody ever had is only unknown
    with pytest.raises(UnknownToken) as unknown:
        room.seat_of("y" * 22)
    assert unknown.value.code == "unknown_token"
    room.store.close()
    again = open_room(tmp_path)
    with pytest.raises(SeatGivenAway):
        again.check_seat(codes[1], "wrong-phone")
    # a new game's codes are all new: the old ones are then only unknown
    await again.claim_host(again.host_token, "host-phone")
    await again.new_game({"names": NAMES})
    with pytest.raises(UnknownToken) as unknown:
        again.seat_of(codes[1])
    assert unknown.value.code == "unknown_token"


async def test_the_host_who_plays_takes_a_seat_from_the_hosts_page(tmp_path):
    room = await lobby_room(tmp_path)
    host = (room.host_token, "host-phone")
    codes = tokens(room)
    assert room.host_seat("host-phone", host=host) == (None, None)
    assert await room.host_sits(2, "host-phone", *pledged(room, GIVEN[2]),
                                host=host) == (2, codes[2])
    assert room.host_seat("host-phone", host=host) == (2, codes[2])
    assert room.lobby["fair"]["pledges"][2] == GIVEN[2]
    assert room.check_seat(codes[2], "host-phone") == 2
    # its seat page, and only its, is told the host's code (its host controls live there)
    assert room.host_of_seat(codes[2], "host-phone") == room.host_token
    await room.claim_seat(codes[0], "ana-phone")
    assert room.host_of_seat(codes[0], "ana-phone") is None
    with pytest.raises(NotYourSeat):
        room.host_of_seat(codes[2], "ana-phone")
    # the same refusals as a scan, and nothing changes
    before = room.lobby
    for seat, refusal in ((0, SeatClaimed), (1, OneSeatPerPhone), (9, UnknownToken),
                          (-1, UnknownToken), ("1", BadRequest), (True, BadRequest)):
        with pytest.raises(refusal):
            await room.host_sits(seat, "host-phone", host=host)
    assert room.lobby == before
    # only the host's phone, with the host's code
    with pytest.raises(NotYourSeat):
        await room.host_sits(3, "ana-phone", host=(room.host_token, "ana-phone"))
    with pytest.raises(UnknownToken):
        await room.host_sits(3, "host-phone", host=("z" * 22, "host-phone"))
    with pytest.raises(NotYourSeat):
        room.host_seat("ana-phone", host=(room.host_token, "ana-phone"))
    assert room.lobby == before
    # a host code made anew at the Pi: the old host phone's seat page hosts no more
    await room.new_host_code()
    assert room.host_of_seat(codes[2], "host-phone") is None


async def test_a_bots_seat_is_not_the_hosts_to_sit_in_either(tmp_path):
    room = open_room(tmp_path, seed=5)
    await room.claim_host(room.host_token, "host-phone")
    await room.new_game({"names": NAMES}, bots=[3])
    with pytest.raises(BotSeat):
        await room.host_sits(3, "host-phone", host=(room.host_token, "host-phone"))
    assert room.lobby["seats"][3]["phone"] is None
