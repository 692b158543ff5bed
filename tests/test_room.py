"""The room around the table: who hosts, which phone holds which seat, seat buttons, bots,
and a restart that keeps all of it (DESIGN "Seats, phones, buttons")."""
import asyncio
import random
import time

import pytest

from companion.darkmoon import IllegalOption
from companion.room import GameInProgress, NotReady, NotYourSeat, Room, SeatClaimed, UnknownToken
from companion.simulate import choice_for
from companion.store import EventStore
from companion.table import PUBLIC

NAMES = ["Ana", "Ben", "Cai", "Dee"]


def open_room(tmp_path, **kw) -> Room:
    return Room(EventStore(tmp_path / "games.db"), **kw)


def claimed_room(tmp_path, seed=5, names=NAMES) -> Room:
    room = open_room(tmp_path, seed=seed)
    room.new_game({"names": list(names)})
    for i, seat in enumerate(room.lobby["seats"]):
        room.claim_seat(seat["token"], f"phone-{i}")
    room.start()
    return room


async def advance(room: Room, until, rng=None, limit=3000) -> None:
    """Play helpful bot moves for whoever is waited for, until `until(game)` holds."""
    rng = rng or random.Random(0)
    for _ in range(limit):
        g = room.table.state
        if until(g):
            return
        assert g.outcome is None, "the game ended before the position was reached"
        seat = rng.choice(g.pending.seats)
        await room.submit(seat, choice_for(g, seat, rng))
    raise AssertionError("position not reached")


def test_the_first_phone_to_open_the_host_code_is_the_host(tmp_path):
    room = open_room(tmp_path)
    room.claim_host(room.host_token, "phone-a")
    room.claim_host(room.host_token, "phone-a")  # a reload of the same phone is fine
    room.check_host(room.host_token, "phone-a")
    with pytest.raises(SeatClaimed):
        room.claim_host(room.host_token, "phone-b")
    with pytest.raises(NotYourSeat):
        room.check_host(room.host_token, "phone-b")
    with pytest.raises(UnknownToken):
        room.claim_host("x" * 22, "phone-a")
    assert room.room_view()["notices"][-1] == {"k": "host_claim_refused"}


def test_a_second_phone_on_a_claimed_seat_is_refused_and_the_kiosk_says_so(tmp_path):
    room = open_room(tmp_path)
    room.new_game({"names": NAMES})
    token = room.lobby["seats"][2]["token"]
    assert room.claim_seat(token, "phone-a") == 2
    assert room.claim_seat(token, "phone-a") == 2
    with pytest.raises(SeatClaimed):
        room.claim_seat(token, "phone-b")
    assert room.room_view()["notices"][-1] == {"k": "seat_claim_refused", "seat": 2}
    assert room.check_seat(token, "phone-a") == 2
    with pytest.raises(NotYourSeat):
        room.check_seat(token, "phone-b")


def test_seat_tokens_are_long_random_and_never_in_the_room_view(tmp_path):
    room = open_room(tmp_path)
    room.new_game({"names": NAMES})
    tokens = [s["token"] for s in room.lobby["seats"]]
    assert len(set(tokens)) == 4 and all(len(t) >= 22 for t in tokens)  # 128 bits
    text = repr(room.room_view())
    assert not any(t in text for t in tokens) and room.host_token not in text


def test_status_cards_are_dealt_only_once_every_seat_is_claimed(tmp_path):
    room = open_room(tmp_path, seed=1)
    room.new_game({"names": NAMES})
    for seat in room.lobby["seats"][:3]:
        room.claim_seat(seat["token"], seat["token"][:5])
    with pytest.raises(NotReady):
        room.start()
    assert room.table is None and room.phase == "join"
    room.claim_seat(room.lobby["seats"][3]["token"], "last-phone")
    room.start()
    assert room.phase == "play"
    assert {s.status for s in room.table.state.seats} >= {"uninfected"}


def test_rebinding_frees_a_seat_for_a_new_phone_in_public(tmp_path):
    room = claimed_room(tmp_path)
    token = room.lobby["seats"][1]["token"]
    room.rebind(1)
    assert room.room_view()["notices"][-1] == {"k": "seat_rebound", "seat": 1}
    with pytest.raises(NotYourSeat):
        room.check_seat(token, "phone-1")  # the lost phone no longer sees the seat
    room.claim_seat(token, "new-phone")
    assert room.check_seat(token, "new-phone") == 1


def test_a_restart_keeps_the_host_the_seats_their_phones_and_the_game(tmp_path):
    room = claimed_room(tmp_path)
    asyncio.run(advance(room, lambda g: g.state_id >= 6))
    before = (room.host_token, room.lobby, room.table.state_id, room.table.public_view())
    room.store.close()
    again = open_room(tmp_path)
    assert (again.host_token, again.lobby, again.table.state_id,
            again.table.public_view()) == before
    assert again.check_seat(again.lobby["seats"][3]["token"], "phone-3") == 3


def test_a_new_game_is_refused_while_one_is_played_unless_replaced(tmp_path):
    room = claimed_room(tmp_path)
    with pytest.raises(GameInProgress):
        room.new_game({"names": NAMES})
    room.new_game({"names": NAMES[:3]}, replace=True)
    assert room.phase == "join" and len(room.room_view()["seats"]) == 3


async def test_black_is_in_and_red_is_out_for_the_seat_whose_turn_it_is(tmp_path):
    # RB "Malfunction": each player, in clockwise order, chooses IN or OUT.
    room = claimed_room(tmp_path, seed=11)
    room.attach(asyncio.get_running_loop())
    await advance(room, lambda g: g.pending.kind == "participation")
    seat = room.table.state.pending.seats[0]
    others = [i for i in range(4) if i != seat]
    before = room.table.state_id
    assert await room.press(others[0], "black") is None  # not this seat's turn: ignored
    assert room.table.state_id == before
    assert await room.press(seat, "black") == {"decision": "participation", "option": ["in"]}
    assert room.table.state.task.participation[seat] == "in"


async def test_a_press_that_means_nothing_now_changes_nothing(tmp_path):
    room = claimed_room(tmp_path, seed=11)
    room.attach(asyncio.get_running_loop())
    g = room.table.state
    assert g.pending.kind not in ("participation", "vote")
    before = room.table.public_view()
    for seat in range(4):
        for colour in ("black", "red", "grey", "purple"):
            assert await room.press(seat, colour) is None
    assert room.table.public_view() == before


async def room_at_a_vote(tmp_path, wanted=lambda g: True) -> Room:
    """The first seeded game (its own folder under tmp_path) that reaches a vote where
    `wanted(game)` holds; rooms tried and passed over are closed."""
    for seed in range(40):
        (tmp_path / str(seed)).mkdir()
        room = claimed_room(tmp_path / str(seed), seed=seed)
        room.attach(asyncio.get_running_loop())
        try:
            await advance(room, lambda g: g.pending.kind == "vote" or g.outcome is not None)
        except AssertionError:
            pass
        g = room.table.state
        if g.outcome is None and g.pending.kind == "vote" and wanted(g):
            return room
        await room.close()
        room.store.close()
    pytest.fail("no seeded game reached such a vote")


def voters_lacking(g, colour: str) -> list[int]:
    return [seat for seat in g.pending.seats if g.seats[seat].dice[colour] == 0]


async def vote_with_a_seat_lacking(colour: str, tmp_path):
    room = await room_at_a_vote(tmp_path, lambda g: voters_lacking(g, colour))
    return room, voters_lacking(room.table.state, colour)[0]


async def test_a_vote_with_a_colour_the_seat_lacks_is_refused_on_that_phone_only(tmp_path):
    # DESIGN: "A vote with a die colour the seat does not hold is refused with feedback on
    # that seat's phone only."
    room, seat = await vote_with_a_seat_lacking("weak", tmp_path)
    heard: dict = {}
    for audience in [PUBLIC, "room", *range(4)]:
        room.listen(audience, lambda a, payload: heard.setdefault(a, []).append(payload))
    before = room.table.state_id
    assert await room.press(seat, "red") is None
    assert room.table.state_id == before
    assert heard == {seat: [{"refusal": {"code": IllegalOption.code,
                                         "message": heard[seat][0]["refusal"]["message"],
                                         "button": "red"}}]}
    assert await room.press(seat, "grey") == {"decision": "vote", "option": ["abstain"]}
    assert seat in room.table.public_view()["waiting"].get("chosen", [seat])


async def test_listeners_hear_of_a_command_only_after_it_is_on_disk(tmp_path):
    room = claimed_room(tmp_path)
    room.attach(asyncio.get_running_loop())
    stored_when_told = []
    room.listen(PUBLIC, lambda a, p: stored_when_told.append(
        room.store.last_seq(room.table.game_id)))
    g = room.table.state
    seat = g.pending.seats[0]
    await room.submit(seat, choice_for(g, seat, random.Random(1)))
    await asyncio.sleep(0.05)  # the writer thread hands the news back to the loop
    assert stored_when_told == [room.table.state_id + 1]


async def test_each_vote_is_acknowledged_with_the_state_that_holds_it(tmp_path):
    """Voters answer at once (DESIGN: a phone's 200 carries the state its command made). The
    writer may store the next vote before the first voter's answer is sent; the answer must
    still name the first vote's own state, not a later one the phone has not seen."""
    room = await room_at_a_vote(tmp_path)
    g = room.table.state
    votes = [(seat, {"decision": "vote", "option": list(g.pending.options[seat][0])})
             for seat in g.pending.seats]
    sent = [asyncio.create_task(room.submit(seat, command)) for seat, command in votes]
    await asyncio.sleep(0)  # every vote is handed to the writer thread
    time.sleep(0.3)  # the loop is busy (a kiosk redraw) while the writer stores them all
    answers = await asyncio.gather(*sent)
    stored = room.store.load(room.table.game_id)
    told = {seat: answer["state_id"] for (seat, _), answer in zip(votes, answers)}
    assert {seat: stored[state][0]["actor"] for seat, state in told.items()} == \
        {seat: seat for seat, _ in votes}
    assert sorted(told.values()) == list(range(g.state_id + 1, g.state_id + 1 + len(votes)))


async def test_demo_bots_play_a_whole_game_and_a_phone_can_take_a_seat_over(tmp_path):
    room = open_room(tmp_path, seed=3, bot_delay=0, demo=True)
    room.new_game({"names": NAMES}, bots=[0, 1, 2, 3])
    room.start()
    room.claim_seat(room.lobby["seats"][0]["token"], "newcomer")
    assert room.bot_seats() == [1, 2, 3]
    room.attach(asyncio.get_running_loop())
    rng = random.Random(2)
    for _ in range(5000):  # the human plays seat 0 whenever asked; bots play the rest
        g = room.table.state
        if g.outcome is not None:
            break
        if 0 in g.pending.seats:
            await room.submit(0, choice_for(g, 0, rng))
        else:
            await asyncio.sleep(0.001)
    assert room.phase == "over"
    actors = {e["actor"] for records in room.store.load(room.table.game_id) for e in records
              if e["type"] == "command"}
    assert actors == {0, 1, 2, 3}  # the newcomer played seat 0, the bots the others
