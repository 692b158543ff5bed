"""The room around the table: who hosts, which phone holds which seat, seat buttons, bots,
and a restart that keeps all of it (DESIGN "Seats, phones, buttons")."""
import asyncio
import copy
import json
import random
import time

import pytest

from companion.codes import ALPHABET, SEAT_SYMBOLS
from companion.darkmoon import IllegalOption
from companion.core.room import (BadRequest, GameInProgress, NotReady, NotYourSeat, OneSeatPerPhone,
                            Room, RoomError, SeatClaimed, StorageFailed, UnknownToken)
from companion.core.dealing import Phase
from companion.core.joining import table_seats
from companion.tools.simulate import choice_for
from companion.core.store import EventStore
from companion.core.table import PUBLIC, Table

NAMES = ["Ana", "Ben", "Cai", "Dee"]


def open_room(tmp_path, **kw) -> Room:
    return Room(EventStore(tmp_path / "games.db"), **kw)


async def claimed_room(tmp_path, seed=5, names=NAMES) -> Room:
    room = open_room(tmp_path, seed=seed)
    await room.new_game({"names": list(names)})
    for i, seat in enumerate(room.lobby["seats"]):
        await room.claim_seat(seat["token"], f"phone-{i}")
    await room.start()
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


async def test_the_first_phone_to_open_the_host_code_is_the_host(tmp_path):
    room = open_room(tmp_path)
    await room.claim_host(room.host_token, "phone-a")
    await room.claim_host(room.host_token, "phone-a")  # a reload of the same phone is fine
    room.check_host(room.host_token, "phone-a")
    with pytest.raises(SeatClaimed):
        await room.claim_host(room.host_token, "phone-b")
    with pytest.raises(NotYourSeat):
        room.check_host(room.host_token, "phone-b")
    with pytest.raises(UnknownToken):
        await room.claim_host("x" * 22, "phone-a")
    assert room.room_view()["notices"][-1] == {"k": "host_claim_refused"}


async def test_a_second_phone_on_a_claimed_seat_is_refused_and_the_kiosk_says_so(tmp_path):
    room = open_room(tmp_path)
    await room.new_game({"names": NAMES})
    token = room.lobby["seats"][2]["token"]
    assert await room.claim_seat(token, "phone-a") == 2
    assert await room.claim_seat(token, "phone-a") == 2
    with pytest.raises(SeatClaimed):
        await room.claim_seat(token, "phone-b")
    assert room.room_view()["notices"][-1] == {"k": "seat_claim_refused", "seat": 2}
    assert room.check_seat(token, "phone-a") == 2
    with pytest.raises(NotYourSeat):
        room.check_seat(token, "phone-b")


async def test_seat_tokens_are_long_random_and_never_in_the_room_view(tmp_path):
    room = open_room(tmp_path)
    await room.new_game({"names": NAMES})
    tokens = [s["token"] for s in room.lobby["seats"]]
    # 20 symbols of 31 (99 bits): nobody finds a seat's code by trying
    assert len(set(tokens)) == 4 and all(len(t) == SEAT_SYMBOLS and set(t) <= set(ALPHABET)
                                         for t in tokens)
    text = repr(room.room_view())
    assert not any(t in text for t in tokens) and room.host_token not in text


async def test_status_cards_are_dealt_only_once_every_seat_is_claimed(tmp_path):
    room = open_room(tmp_path, seed=1)
    await room.new_game({"names": NAMES})
    for seat in room.lobby["seats"][:3]:
        await room.claim_seat(seat["token"], seat["token"][:5])
    with pytest.raises(NotReady):
        await room.start()
    assert room.table is None and room.phase == "join"
    await room.claim_seat(room.lobby["seats"][3]["token"], "last-phone")
    await room.start()
    assert room.phase == "play"
    assert {s.status for s in room.table.state.seats} >= {"uninfected"}


async def test_rebinding_gives_the_seat_a_new_code_and_the_old_one_is_dead_for_good(tmp_path):
    """The kicked phone used to watch the board and claim the seat back at once with
    its old code. A re-bind rotates the seat's code: the old code opens nothing, for the old
    phone or any other; the new code is on the kiosk; the re-bind is announced."""
    room = await claimed_room(tmp_path)
    old = room.lobby["seats"][1]["token"]
    await room.rebind(1)
    assert room.room_view()["notices"][-1] == {"k": "seat_rebound", "seat": 1}
    for phone in ("phone-1", "new-phone"):
        with pytest.raises(UnknownToken):
            await room.claim_seat(old, phone)
        with pytest.raises(UnknownToken):
            room.check_seat(old, phone)
    new = room.kiosk_view()["seat_tokens"][1]
    assert new and new != old and len(new) == SEAT_SYMBOLS
    assert await room.claim_seat(new, "new-phone") == 1
    assert room.check_seat(new, "new-phone") == 1
    assert room.kiosk_view()["seat_tokens"][1] is None  # taken: its code leaves the kiosk
    room.store.close()
    again = open_room(tmp_path)  # the rotation is on disk: a restart does not revive it
    with pytest.raises(UnknownToken):
        again.check_seat(old, "phone-1")
    assert again.check_seat(new, "new-phone") == 1


async def test_a_phone_that_holds_a_seat_cannot_take_a_second_one(tmp_path):
    """A host who also plays re-bound another seat and claimed it with their own
    phone, then read its status. One phone holds one seat."""
    room = await claimed_room(tmp_path)
    await room.claim_host(room.host_token, "phone-0")  # the host plays seat 0
    await room.rebind(2, host=(room.host_token, "phone-0"))
    new = room.kiosk_view()["seat_tokens"][2]
    with pytest.raises(OneSeatPerPhone):
        await room.claim_seat(new, "phone-0")
    assert room.lobby["seats"][2]["phone"] is None
    assert room.room_view()["notices"][-1] == {"k": "seat_claim_refused", "seat": 2}


async def test_a_new_host_code_at_the_pi_replaces_a_lost_host_phone_mid_game(tmp_path):
    """A lost host phone can be replaced without losing the game in play; the old
    host code and phone stop working at once, and the kiosk announces it."""
    room = await claimed_room(tmp_path)
    await room.claim_host(room.host_token, "phone-0")
    old, state = room.host_token, room.table.state_id
    await room.new_host_code()
    with pytest.raises(UnknownToken):
        room.check_host(old, "phone-0")
    with pytest.raises(UnknownToken):
        await room.set_lang("es", host=(old, "phone-0"))
    assert room.lang == "en"
    assert room.kiosk_view()["host_token"] == room.host_token != old  # the kiosk shows it
    assert room.room_view()["notices"][-1] == {"k": "host_replaced"}
    await room.claim_host(room.host_token, "phone-5")
    await room.set_lang("es", host=(room.host_token, "phone-5"))
    assert room.lang == "es" and room.phase == "play" and room.table.state_id == state
    assert room.kiosk_view()["host_token"] is None


def hold_write_lock(path):
    """Another connection holding SQLite's write lock: every write of the room waits for it,
    as it would for a stalled card, and fails once the store's busy timeout runs out."""
    import sqlite3
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    return other


async def test_a_change_the_store_refuses_changes_nothing_in_memory_or_on_disk(tmp_path):
    """Save first: with the store refusing writes, a claim answered an error yet
    took effect, and was gone after a restart. Now every room change is written first; a
    refused write is a StorageFailed and the room is exactly as before, then and after a
    restart."""
    path = tmp_path / "games.db"
    room = Room(EventStore(path, busy_ms=100), seed=5)
    await room.new_game({"names": NAMES})
    tokens = [s["token"] for s in room.lobby["seats"]]
    await room.claim_seat(tokens[0], "phone-0")
    before = (room.host_token, room.host_phone, room.lang, room.lobby, room.room_view())
    other = hold_write_lock(path)
    try:
        for change in (room.claim_seat(tokens[1], "phone-1"),
                       room.claim_host(room.host_token, "phone-0"),
                       room.set_lang("es"), room.rebind(0), room.new_host_code(),
                       room.new_game({"names": NAMES[:3]})):
            with pytest.raises(StorageFailed):
                await change
        notices = [n for n in room.room_view()["notices"] if n["k"] != "seat_claim_refused"]
        assert (room.host_token, room.host_phone, room.lang, room.lobby,
                dict(room.room_view(), notices=notices)) == before
    finally:
        other.rollback()
        other.close()
    # the same claim, retried once the store writes again, is taken; a restart keeps it
    await room.claim_seat(tokens[1], "phone-1")
    room.store.close()
    again = open_room(tmp_path)
    assert again.check_seat(tokens[1], "phone-1") == 1
    assert again.check_seat(tokens[0], "phone-0") == 0 and again.host_phone is None


async def test_a_stalled_store_never_stalls_the_loop(tmp_path):
    """A language change with the SD card stalled froze the kiosk and every phone.
    Room writes run on the writer thread: the loop keeps running while one waits."""
    path = tmp_path / "games.db"
    room = Room(EventStore(path), seed=5)
    await room.new_game({"names": NAMES})
    other = hold_write_lock(path)
    change = asyncio.ensure_future(room.set_lang("es"))
    ticks = 0
    try:
        for _ in range(20):  # about a second of a stalled card
            await asyncio.sleep(0.05)
            ticks += 1
            assert room.room_view()["lang"] == "en"  # still shown as it was, never half-done
        assert not change.done(), "the write did not wait for the stalled store"
    finally:
        other.rollback()
        other.close()
    await change
    assert ticks == 20 and room.lang == "es"


async def test_a_restart_keeps_the_host_the_seats_their_phones_and_the_game(tmp_path):
    room = await claimed_room(tmp_path)
    await advance(room, lambda g: g.state_id >= 6)
    before = (room.host_token, room.lobby, room.table.state_id, room.table.public_view())
    room.store.close()
    again = open_room(tmp_path)
    assert (again.host_token, again.lobby, again.table.state_id,
            again.table.public_view()) == before
    assert again.check_seat(again.lobby["seats"][3]["token"], "phone-3") == 3


async def test_a_new_game_is_refused_while_one_is_played_unless_replaced(tmp_path):
    room = await claimed_room(tmp_path)
    with pytest.raises(GameInProgress):
        await room.new_game({"names": NAMES})
    await room.new_game({"names": NAMES[:3]}, replace=True)
    assert room.phase == "join" and len(room.room_view()["seats"]) == 3


async def test_black_is_in_and_red_is_out_for_the_seat_whose_turn_it_is(tmp_path):
    # RB "Malfunction": each player, in clockwise order, chooses IN or OUT.
    room = await claimed_room(tmp_path, seed=11)
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
    room = await claimed_room(tmp_path, seed=11)
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
        room = await claimed_room(tmp_path / str(seed), seed=seed)
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
    room = await claimed_room(tmp_path)
    room.attach(asyncio.get_running_loop())
    stored_when_told = []
    room.listen(PUBLIC, lambda a, p: stored_when_told.append(
        room.store.last_seq(room.table.game_id)))
    g = room.table.state
    seat = g.pending.seats[0]
    await room.submit(seat, choice_for(g, seat, random.Random(1)))
    await asyncio.sleep(0.05)  # the writer thread hands the news back to the loop
    assert stored_when_told == [room.table.state_id + 1]


async def test_a_command_is_answered_before_anyone_told_of_it_runs(tmp_path):
    """A phone's command is acknowledged before the 27 streams build their views of it (on a
    Pi those took 100 ms): the streams wait on an event the room's news sets, and must run
    only after the command's caller has its answer. The answer still waits for the disk."""
    room = await claimed_room(tmp_path)
    room.attach(asyncio.get_running_loop())
    order = []
    news = asyncio.Event()

    async def stream():  # as a web stream waits: woken by the news, then builds its view
        await news.wait()
        order.append(("stream", room.store.last_seq(room.table.game_id)))

    waiting = asyncio.create_task(stream())
    room.listen(PUBLIC, lambda _audience, _payload: news.set())
    await asyncio.sleep(0)
    g = room.table.state
    seat = g.pending.seats[0]
    answer = await room.submit(seat, choice_for(g, seat, random.Random(1)))
    order.append(("answer", room.store.last_seq(room.table.game_id)))
    await waiting
    assert order == [("answer", answer["state_id"] + 1), ("stream", answer["state_id"] + 1)]


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


async def test_demo_bots_play_a_whole_game_and_the_host_hands_a_seat_to_a_person(tmp_path):
    room = open_room(tmp_path, seed=3, bot_delay=0, demo=True)
    await room.new_game({"names": NAMES}, bots=[0, 1, 2, 3])
    await room.start()
    await room.hand_over(0)  # the host's act; the seat's new code is on the kiosk (F3)
    await room.claim_seat(room.kiosk_view()["seat_tokens"][0], "newcomer")
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


async def test_a_game_stored_under_older_rules_is_kept_but_not_resumed(tmp_path):
    """A Pi updated between evenings: its last game was stored under other rules and may not
    replay under these. It is no damage: the room starts afresh (same host code), and the
    game stays in the store."""
    room = await claimed_room(tmp_path)
    game, host = room.table.game_id, room.host_token
    path = room.store
    path.close()
    import sqlite3
    raw = sqlite3.connect(tmp_path / "games.db")
    with raw:
        raw.execute("UPDATE games SET meta = json_set(meta, '$.rules_version', 1)")
    raw.close()
    again = open_room(tmp_path)
    assert again.phase == "start" and again.table is None and again.host_token == host
    assert again.store.latest_game() == game and again.store.load(game)


async def test_every_press_that_means_nothing_gets_an_answer_that_reveals_nothing(tmp_path):
    """A press out of turn, any colour on a decision made on the phone, GREY on a
    malfunction or a second vote used to be ignored in silence: a player could not tell a
    dead button from a refused press. Each is answered on that seat's phone and, since the
    reason is only what the board shows (whose turn it is), on the kiosk too."""
    room = await claimed_room(tmp_path, seed=11)
    room.attach(asyncio.get_running_loop())
    heard: dict = {}
    for audience in (0, 1, 2, 3, "presses"):
        room.listen(audience, lambda who, p: heard.setdefault(who, []).append(p) if p else None)
    g = room.table.state
    assert g.pending.kind not in ("participation", "vote")
    waited, other = g.pending.seats[0], next(s for s in range(4) if s not in g.pending.seats)
    before = room.table.public_view()
    assert await room.press(other, "black") is None
    assert await room.press(waited, "red") is None
    assert room.table.public_view() == before
    assert heard[other] == [{"refusal": {"code": "not_your_turn", "button": "black",
                                         "message": "the game is not waiting for this seat"}}]
    assert heard[waited][0]["refusal"]["code"] == "phone_decision"
    assert heard["presses"] == [{"seat": other, "colour": "black", "code": "not_your_turn"},
                                {"seat": waited, "colour": "red", "code": "phone_decision"}]
    assert set(heard) == {other, waited, "presses"}, "nobody else was told anything"


async def test_in_without_dice_is_answered_on_that_phone_only(tmp_path):
    """Whether a seat holds dice is its secret: the refusal reaches its phone alone."""
    room = await claimed_room(tmp_path, seed=11)
    room.attach(asyncio.get_running_loop())
    await advance(room, lambda g: g.pending.kind == "participation"
                  and not g.seats[g.pending.seats[0]].all_dice)  # it spent every die
    seat = room.table.state.pending.seats[0]
    heard: dict = {}
    for audience in (0, 1, 2, 3, "presses"):
        room.listen(audience, lambda who, p: heard.setdefault(who, []).append(p) if p else None)
    state = room.table.state_id
    assert await room.press(seat, "black") is None
    assert room.table.state_id == state
    assert [p["refusal"]["code"] for p in heard[seat]] == ["in_without_dice"]
    assert set(heard) == {seat}
    assert await room.press(seat, "grey") is None  # GREY is no choice on a malfunction
    assert heard["presses"] == [{"seat": seat, "colour": "grey", "code": "not_this_colour"}]


def holding_both(g) -> list[int]:
    return [s for s in g.pending.seats if g.seats[s].dice["strong"] and g.seats[s].dice["weak"]]


async def test_a_seat_that_has_voted_may_press_again_to_change_its_vote(tmp_path):
    """RB Call a vote: "All players then hold out a closed fist and simultaneously reveal":
    until the last vote is in, a seat's fist is closed and its player may change the die in
    it, with the buttons as on the phone. Its light stays out (it is lit only while its vote
    is missing), and nobody else hears what it pressed."""
    room = await room_at_a_vote(tmp_path, lambda g: len(g.pending.seats) >= 3 and holding_both(g))
    g = room.table.state
    voter = holding_both(g)[0]
    heard: dict = {}
    for audience in [PUBLIC, "presses", *range(g.players)]:
        room.listen(audience, lambda who, p: heard.setdefault(who, []).append(p) if p else None)
    assert await room.press(voter, "black") == {"decision": "vote", "option": ["strong"]}
    assert voter not in room.lit_seats()
    board = room.table.public_view()
    board.pop("log"), board.pop("state_id")
    assert await room.press(voter, "red") == {"decision": "vote", "option": ["weak"]}
    assert room.table.state.pending.answers[voter] == ("weak",)
    assert room.table.seat_view(voter)["you"]["decision"]["chosen"] == ["weak"]
    assert voter not in room.lit_seats()
    again = room.table.public_view()
    assert again.pop("log")[-1] == {"seq": again["state_id"], "k": "chosen", "seat": voter,
                                    "decision": "vote"}
    again.pop("state_id")
    assert again == board  # the board shows only that the seat has voted, as before
    assert await room.press(voter, "red") is not None  # the same colour again: no error
    assert heard == {}, "a change of vote is no refusal, and nobody is told what it was"
    for seat in list(room.table.state.pending.seats):
        await room.press(seat, "grey")
    (shown,) = [f for f in room.table.public_view()["log"] if f["k"] == "vote_revealed"]
    assert shown["ballots"][voter] == "weak"  # the latest press is the vote revealed


async def test_play_again_keeps_the_phones_on_their_seats_and_deals_anew(tmp_path):
    """"Play again" keeps the same phones on the same seats and deals a new game;
    only once the game is over, and only by the host."""
    room = await claimed_room(tmp_path)
    await room.claim_host(room.host_token, "phone-0")
    host = (room.host_token, "phone-0")
    with pytest.raises(GameInProgress):
        await room.play_again(host=host)
    await advance(room, lambda g: g.outcome is not None)
    first, seats = room.table.game_id, copy.deepcopy(room.lobby["seats"])
    with pytest.raises(NotYourSeat):
        await room.play_again(host=(room.host_token, "phone-1"))
    await room.play_again(host=host)
    assert room.phase == "play" and room.table.game_id != first and room.table.state_id == 0
    assert room.lobby["seats"] == seats  # same codes, same phones
    for i, seat in enumerate(seats):
        assert room.check_seat(seat["token"], f"phone-{i}") == i
    first_deal = Table.resume(room.store, first).state.seats
    assert [s.character for s in room.table.state.seats] != [s.character for s in first_deal] \
        or [s.status for s in room.table.state.seats] != [s.status for s in first_deal], \
        "a seeded room dealt the very same game again"


async def test_play_again_refuses_what_start_refuses_a_seat_nobody_holds(tmp_path):
    """A seat re-bound after the game waits for its new phone: "play again" deals no status
    to a seat nobody holds (whoever scanned its code first would get it), as start would
    not; once the new phone has claimed it, the game is dealt."""
    room = await claimed_room(tmp_path)
    await room.claim_host(room.host_token, "phone-0")
    host = (room.host_token, "phone-0")
    await advance(room, lambda g: g.outcome is not None)
    first = room.table.game_id
    await room.rebind(2, host=host)
    with pytest.raises(NotReady, match="every seat is claimed"):
        await room.play_again(host=host)
    assert room.phase == "over" and room.table.game_id == first  # nothing dealt
    await room.claim_seat(room.lobby["seats"][2]["token"], "phone-new")
    await room.play_again(host=host)
    assert room.phase == "play" and room.table.game_id != first
    assert room.check_seat(room.lobby["seats"][2]["token"], "phone-new") == 2


async def test_a_bots_seat_is_not_claimable_and_the_host_hands_it_to_a_person_in_public(
        tmp_path):
    """A bot's seat code is listed nowhere a phone can read it and a claim with it is refused
    (a phone could otherwise read its status and dice and play it, unannounced). The host
    hands it over: the bot stops, the seat gets a new code, and everyone is told."""
    room = open_room(tmp_path, seed=4, bot_delay=0, demo=True)
    room.attach(asyncio.get_running_loop())
    await room.claim_host(room.host_token, "host-phone")
    host = (room.host_token, "host-phone")
    await room.new_game({"names": NAMES}, bots=[2, 3], host=host)
    kiosk = room.kiosk_view()
    assert kiosk["seat_tokens"][2:] == [None, None]  # no code on the kiosk nor the table page
    assert table_seats(kiosk, kiosk["table_token"])[2]["token"] is None
    bot_token = room.lobby["seats"][2]["token"]
    with pytest.raises(RoomError) as refused:
        await room.claim_seat(bot_token, "sneaky")
    assert refused.value.code == "bot_seat" and refused.value.status == 409
    assert room.lobby["seats"][2] == {"token": bot_token, "phone": None, "bot": True}
    assert room.room_view()["notices"][-1] == {"k": "bot_claim_refused", "seat": 2}
    for i in (0, 1):
        await room.claim_seat(room.lobby["seats"][i]["token"], f"phone-{i}")
    await room.start(host=host)
    with pytest.raises(RoomError, match="host can hand it to a person"):
        await room.claim_seat(bot_token, "sneaky")
    with pytest.raises(NotYourSeat):
        await room.hand_over(2, host=(room.host_token, "phone-0"))  # the host's act only
    with pytest.raises(BadRequest):
        await room.hand_over(0, host=host)  # a phone's seat: that is a re-bind
    await room.hand_over(2, host=host)
    assert room.room_view()["notices"][-1] == {"k": "seat_handed_over", "seat": 2}
    assert room.bot_seats() == [3] and not room.room_view()["seats"][2]["bot"]
    fresh = room.kiosk_view()["seat_tokens"][2]
    assert fresh and fresh != bot_token and room.lobby["seats"][2]["token"] == fresh
    with pytest.raises(UnknownToken):
        await room.claim_seat(bot_token, "sneaky")  # the old code is dead for good
    with pytest.raises(NotYourSeat):  # a bot's move on its way once handed over: refused
        await room.bot_submit(2, {"decision": "action", "option": ["lone_wolf"]})
    assert await room.claim_seat(fresh, "person") == 2
    assert room.check_seat(fresh, "person") == 2



async def test_the_phase_is_the_same_word_for_the_code_the_json_and_every_page(tmp_path):
    room = open_room(tmp_path)
    assert room.phase is Phase.START
    await room.new_game({"names": NAMES})
    assert room.phase is Phase.JOIN and room.phase == "join"
    assert json.loads(json.dumps(room.room_view()))["phase"] == "join"
    assert f"{room.phase}" == "join"  # as a page's words and the kiosk's view ids use it


def test_the_rooms_parts_use_the_room_only_through_its_named_methods():
    """The claims, the deals, the commands and the bots are objects given the room: none
    reaches into what the room keeps to itself (its writer, its listeners), so the room can
    change those without its parts, and a reader finds a part's whole use of the room in
    the names Room documents for its parts."""
    import ast
    import inspect

    import companion.core.claims
    import companion.core.commands
    import companion.core.dealing
    import companion.tools.bots
    for module in (companion.core.claims, companion.core.commands, companion.core.dealing,
                   companion.tools.bots):
        tree = ast.parse(inspect.getsource(module))
        reached = {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)
                   and (isinstance(node.value, ast.Name) and node.value.id == "room"
                        or isinstance(node.value, ast.Attribute) and node.value.attr == "room")}
        assert reached, module.__name__
        assert not {name for name in reached if name.startswith("_")}, module.__name__
        room = Room.__init__.__code__.co_names + tuple(vars(Room))
        assert reached <= set(room), (module.__name__, reached - set(room))
