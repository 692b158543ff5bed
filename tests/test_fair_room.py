"""Fair dealing in the room (darkmoon-fair/2, docs/fair.md): the commitment is made under the
game's number before any seat is claimed; phones pledge a hash of their bytes and reveal them
only once every pledge is public; seats with no revealed bytes get the filler the secret fixes;
the game is dealt at the last reveal or after `reveal_wait`; re-bound seats lose what their
old phone gave; a replaced game's record is revealed at once. Each attack below is run against
the real room and its real store, and each says how it worked before."""
import asyncio
import json
import random
import shutil
import sqlite3

import pytest

from companion.darkmoon import Setup, start
from companion.chance.fair import Fair, code, commitment, draw_value, filler, pledge
from companion.core.refusals import (BadRequest, CommitmentChanged, GameInProgress, NotReady,
                                StorageFailed, UnknownGame)
from companion.core.room import Room
from companion.tools.simulate import choice_for
from companion.core.store import EventStore
from companion.chance.verify import check

NAMES = ["Ana", "Ben", "Cai", "Dee"]


async def finish(room: Room, rng=None) -> None:
    rng = rng or random.Random(0)
    while not room.table.over:
        g = room.table.state
        seat = rng.choice(g.pending.seats)
        await room.submit(seat, choice_for(g, seat, rng))


def open_room(path, **kw) -> Room:
    kw.setdefault("bot_delay", 0)
    return Room(EventStore(path), **kw)  # no seed: a fair deal


async def fair_room(tmp_path, bots=(), **kw) -> Room:
    room = open_room(tmp_path / "games.db", **kw)
    room.attach(asyncio.get_running_loop())
    await room.new_game({"names": NAMES}, bots=list(bots))
    return room


def pending(room: Room) -> dict:
    return room.room_view()["fair"]["pending"]


def token(room: Room, seat: int) -> str:
    return room.lobby["seats"][seat]["token"]


async def claim_pledged(room: Room, seats, values: dict) -> None:
    """Each seat's phone claims with its pledge to the commitment it was shown."""
    commit = pending(room)["commitment"]
    for seat in seats:
        values.setdefault(seat, draw_value())
        await room.claim_seat(token(room, seat), f"phone-{seat}", commit,
                              pledge(commit, values[seat]))


async def reveal_all(room: Room, values: dict) -> None:
    commit = pending(room)["commitment"]
    for seat, value in values.items():
        await room.reveal(token(room, seat), f"phone-{seat}", commit, value)


def record(rec) -> dict:
    return json.loads(json.dumps(rec))  # as a phone receives it


async def test_the_commitment_binds_the_box_and_the_number_and_the_deal_keeps_it(tmp_path):
    room = await fair_room(tmp_path)
    shown = pending(room)
    assert shown["game"] == 1 and not shown["revealing"] and shown["pledges"] == [None] * 4
    assert shown["commitment"] == commitment(room.store.box(), 1, room.lobby["fair"]["secret"])
    assert shown["code"] == code(shown["commitment"]) and len(shown["code"]) == 19
    assert room.room_view()["fair"]["game"] is None
    values: dict = {}
    await claim_pledged(room, range(4), values)
    assert [s["pledged"] for s in room.room_view()["seats"]] == [True] * 4
    await room.start()
    assert room.phase == "join" and pending(room)["revealing"]  # the phones reveal first
    await reveal_all(room, values)  # the last reveal deals at once
    view = room.room_view()["fair"]
    assert room.phase == "play" and view["game"] == 1 == room.table.game_id
    assert view["commitment"] == shown["commitment"] and view["code"] == shown["code"]
    assert room.table.fair.contributions == [values[s] for s in range(4)]
    assert room.table.fair.sources == ["phone"] * 4
    # the next game's whole commitment is published at once, under the next number
    assert view["pending"]["game"] == 2 and view["pending"]["commitment"] != shown["commitment"]
    assert not view["pending"]["revealing"]
    await finish(room)
    verdict = check(record(await room.fair_record()), shown["commitment"])
    assert verdict.problems == [] and verdict.over and verdict.phones == 4
    await room.close()


async def test_the_fillers_are_fixed_by_the_committed_secret_whatever_the_pis_randomness(
        tmp_path, monkeypatch):
    """A modified Pi re-deals one committed lobby as often as it likes (here: copies of the
    data file taken before the deal, each dealt with other randomness from the Pi). Before,
    the bytes of bots and of silent phones were drawn at the deal, after every phone's were
    in: each try dealt another game, and the Pi kept the one that suited it (a 1-in-60 target
    took 15-73 tries), its record still verifying. Now every try deals the same game, and the
    record shows each filler as the one the secret gives."""
    room = await fair_room(tmp_path, bots=[2, 3])
    values: dict = {}
    await claim_pledged(room, [0], values)
    await room.claim_seat(token(room, 1), "phone-1")  # claimed, never pledged
    await room.close()
    room.store.close()  # the whole file, as a copy of it holds it
    secret = room.lobby["fair"]["secret"]
    deals = []
    for attempt in range(4):
        copy = tmp_path / f"try-{attempt}.db"
        shutil.copy(tmp_path / "games.db", copy)
        # the Pi's own randomness differs on every try
        monkeypatch.setattr("secrets.token_bytes", random.Random(attempt).randbytes)
        again = open_room(copy)
        again.attach(asyncio.get_running_loop())
        await again.start()
        await again.reveal(token(again, 0), "phone-0", pending(again)["commitment"], values[0])
        assert again.table.fair.contributions[1:] == [filler(secret, s) for s in (1, 2, 3)]
        deals.append(again.store.load(again.table.game_id)[0][0]["chance"])
        await again.close()
    assert all(deal == deals[0] for deal in deals)
    monkeypatch.undo()
    again = open_room(tmp_path / "try-0.db")
    await finish(again)
    rec = record(await again.fair_record())
    assert [(c["from"], c["pledge"] is not None) for c in rec["contributions"]] == [
        ("phone", True), ("filler", False), ("filler", False), ("filler", False)]
    assert [c["value"] for c in rec["contributions"][1:]] == [filler(secret, s)
                                                              for s in (1, 2, 3)]
    verdict = check(rec)
    assert verdict.problems == [] and verdict.fillers == 3
    # a record whose filler was swapped for bytes of the Pi's choosing does not verify
    rec["contributions"][2]["value"] = "ab" * 32
    assert check(rec).problems
    await again.close()


async def test_the_last_claimer_reading_the_store_cannot_compute_the_deal(tmp_path):
    """The host reads the data file and claims last, trying values until the deal suits him.
    Before, the secret and every phone's bytes sat in the store in plain text during joining:
    he computed the deal for each candidate and took the one he liked (1-6 tries), every seat
    marked "phone". Now the store holds only the others' pledges until the reveal, which
    opens after his pledge is fixed: his prediction for each candidate is not the deal."""
    room = await fair_room(tmp_path)
    values: dict = {}
    await claim_pledged(room, [0, 1, 2], values)
    stored = room.store.setting("room")["lobby"]["fair"]  # what the data file says
    assert stored["values"] == [None] * 4 and None not in stored["pledges"][:3]
    assert not any(v in json.dumps(room.store.setting("room")) for v in values.values())
    setup = Setup.from_json(room.lobby["setup"])

    def predicted(candidate: str) -> list:
        # the best he can do: the others' bytes are not in the store, so he takes the
        # fillers (the bytes every silent seat gets) for them
        secret = stored["secret"]
        fair = Fair(room.store.box(), stored["game"], secret,
                    [filler(secret, s) for s in range(3)] + [candidate],
                    ["filler"] * 3 + ["phone"], [None] * 3 + [pledge(stored["commitment"],
                                                                     candidate)])
        return start(setup, fair.stream(0))[0]["chance"]

    candidates = [draw_value() for _ in range(6)]
    predictions = [predicted(c) for c in candidates]
    chosen = 3
    values[3] = candidates[chosen]
    await claim_pledged(room, [3], values)
    await room.start()
    # once the reveal is open no pledge is taken: nobody pledges knowing the others'
    late = draw_value()
    commit = pending(room)["commitment"]
    with pytest.raises(NotReady):
        await room.pledge(token(room, 3), "phone-3", commit, pledge(commit, late))
    assert room.lobby["fair"]["pledges"][3] == pledge(commit, values[3])
    await reveal_all(room, values)
    dealt = room.store.load(room.table.game_id)[0][0]["chance"]
    assert all(prediction != dealt for prediction in predictions)
    assert room.table.fair.sources == ["phone"] * 4
    await room.close()


async def test_a_pledge_to_another_commitment_is_refused_and_nothing_is_stored(tmp_path):
    """Before, a phone gave its bytes with no commitment at all (the kiosk showed 8 hex
    digits, 32 bits: two secrets sharing them took seconds to find), so the Pi could swap
    the secret after the phones gave. Now a phone echoes the whole commitment it saw, and
    one that is not the pending one is refused: nothing stored."""
    room = await fair_room(tmp_path)
    shown = pending(room)["commitment"]
    other = commitment(room.store.box(), 1, draw_value())  # a second secret, same code or not
    before = (room.lobby, room.store.setting("room"))
    value = draw_value()
    for commit in (other, shown[:-1] + ("1" if shown[-1] == "0" else "0")):
        with pytest.raises(CommitmentChanged) as refused:
            await room.claim_seat(token(room, 0), "phone-0", commit, pledge(commit, value))
        assert refused.value.code == "commitment_changed" and refused.value.status == 409
    assert (room.lobby, room.store.setting("room")) == before
    await room.claim_seat(token(room, 0), "phone-0")
    with pytest.raises(CommitmentChanged):
        await room.pledge(token(room, 0), "phone-0", other, pledge(other, value))
    assert room.lobby["fair"]["pledges"] == [None] * 4
    # malformed: refused as a bad request before anything is looked at
    for commit, promised in ((shown, "ab" * 31), (shown.upper(), pledge(shown, value)),
                             (None, pledge(shown, value)), (shown, None)):
        with pytest.raises(BadRequest):
            await room.pledge(token(room, 0), "phone-0", commit, promised)
    await room.pledge(token(room, 0), "phone-0", shown, pledge(shown, value))
    assert room.room_view()["seats"][0]["pledged"]
    await room.close()


async def test_a_seats_first_pledge_stands(tmp_path):
    """Retries must not reroll: the same pledge again is taken unchanged, another refused."""
    room = await fair_room(tmp_path)
    commit, value = pending(room)["commitment"], draw_value()
    await room.claim_seat(token(room, 0), "phone-0", commit, pledge(commit, value))
    await room.claim_seat(token(room, 0), "phone-0", commit, pledge(commit, value))
    await room.pledge(token(room, 0), "phone-0", commit, pledge(commit, value))
    for again in (room.claim_seat(token(room, 0), "phone-0", commit,
                                  pledge(commit, draw_value())),
                  room.pledge(token(room, 0), "phone-0", commit, pledge(commit, draw_value()))):
        with pytest.raises(BadRequest):
            await again
    assert room.lobby["fair"]["pledges"][0] == pledge(commit, value)
    await room.close()


async def test_a_reveal_that_never_comes_gets_the_filler_after_the_wait_visibly(tmp_path):
    room = await fair_room(tmp_path, bots=[3], reveal_wait=0.3)
    values: dict = {}
    await claim_pledged(room, [0, 1, 2], values)
    commit = pending(room)["commitment"]
    secret = room.lobby["fair"]["secret"]
    await room.start()
    assert 0 < pending(room)["deal_in"] <= 0.3
    await room.reveal(token(room, 0), "phone-0", commit, values[0])
    await room.reveal(token(room, 1), "phone-1", commit, values[1])
    assert room.phase == "join" and [s["revealed"] for s in room.room_view()["seats"]] == [
        True, True, False, False]
    for _ in range(50):  # seat 2 never reveals: the room deals on its own
        if room.table is not None:
            break
        await asyncio.sleep(0.05)
    assert room.phase == "play"
    assert room.table.fair.sources == ["phone", "phone", "filler", "filler"]
    assert room.table.fair.contributions[2] == filler(secret, 2)
    await finish(room)
    rec = record(await room.fair_record())
    seat2 = rec["contributions"][2]
    assert seat2["from"] == "filler" and seat2["pledge"] == pledge(commit, values[2])
    verdict = check(rec)
    assert verdict.problems == [] and verdict.unrevealed == [2]
    await room.close()


async def test_a_wrong_reveal_is_refused_and_changes_nothing(tmp_path):
    room = await fair_room(tmp_path, bots=[2, 3])
    values: dict = {}
    await claim_pledged(room, [0, 1], values)
    commit = pending(room)["commitment"]
    with pytest.raises(NotReady):  # the reveal opens at start, when every pledge is in
        await room.reveal(token(room, 0), "phone-0", commit, values[0])
    await room.start()
    before = (room.lobby, room.store.setting("room"))
    for seat, commit_sent, value in ((0, commit, values[1]),       # another seat's bytes
                                     (0, commit, draw_value()),    # bytes never pledged
                                     (0, commit, values[0].upper())):
        with pytest.raises(BadRequest):
            await room.reveal(token(room, seat), f"phone-{seat}", commit_sent, value)
    with pytest.raises(CommitmentChanged):
        other = commitment(room.store.box(), 1, draw_value())
        await room.reveal(token(room, 0), "phone-0", other, values[0])
    assert (room.lobby, room.store.setting("room")) == before and room.table is None
    assert not await room.reveal(token(room, 0), "phone-0", commit, values[0])
    assert not await room.reveal(token(room, 0), "phone-0", commit, values[0])  # again: fine
    assert await room.reveal(token(room, 1), "phone-1", commit, values[1])  # the last: dealt
    assert room.table.fair.contributions[:2] == [values[0], values[1]]
    await room.close()


async def test_a_rebound_seat_loses_its_old_phones_pledge_and_after_the_reveal_its_value(
        tmp_path):
    """Before, a re-bound seat kept the kicked phone's bytes, still marked "phone"."""
    room = await fair_room(tmp_path, reveal_wait=30)
    values: dict = {}
    await claim_pledged(room, range(4), values)
    await room.rebind(1)  # before the reveal: the pledge goes, the new phone pledges its own
    assert room.lobby["fair"]["pledges"][1] is None and not room.room_view()["seats"][1][
        "pledged"]
    values[1] = draw_value()
    commit = pending(room)["commitment"]
    await room.claim_seat(token(room, 1), "phone-1b", commit, pledge(commit, values[1]))
    await room.leave_seat(token(room, 2), "phone-2")  # a seat left: its pledge goes too
    assert room.lobby["fair"]["pledges"][2] is None
    await room.claim_seat(token(room, 2), "phone-2", commit, pledge(commit, values[2]))
    await room.start()
    await room.reveal(token(room, 0), "phone-0", commit, values[0])
    await room.reveal(token(room, 3), "phone-3", commit, values[3])
    # after the reveal opened: the value goes, the pledge stays (every phone has seen it)
    await room.rebind(0)
    fair = room.lobby["fair"]
    assert fair["values"][0] is None and fair["pledges"][0] == pledge(commit, values[0])
    assert room.table is None  # seats 1 and 2 have not revealed yet
    await room.reveal(token(room, 2), "phone-2", commit, values[2])
    await room.reveal(token(room, 1), "phone-1b", commit, values[1])
    assert room.table.fair.sources == ["filler", "phone", "phone", "phone"]
    assert room.table.fair.contributions[1] == values[1]
    assert room.table.fair.pledges[0] == pledge(commit, values[0])
    await room.close()


async def test_once_the_reveal_is_open_a_seat_is_moved_only_by_the_host(tmp_path):
    room = await fair_room(tmp_path, bots=[2, 3], reveal_wait=30)
    values: dict = {}
    await claim_pledged(room, [0, 1], values)
    commit = pending(room)["commitment"]
    await room.start()
    await room.reveal(token(room, 0), "phone-0", commit, values[0])
    with pytest.raises(GameInProgress):  # the host started the game: no leaving now
        await room.leave_seat(token(room, 1), "phone-1")
    await room.rebind(1)  # the last awaited: the deal follows at once, seat 1 its filler
    assert room.phase == "play"
    assert room.table.fair.sources == ["phone", "filler", "filler", "filler"]
    assert room.table.fair.pledges[1] == pledge(commit, values[1])
    await room.close()


async def test_a_room_restarted_while_revealing_waits_again_and_deals(tmp_path):
    room = await fair_room(tmp_path, bots=[3], reveal_wait=30)
    values: dict = {}
    await claim_pledged(room, [0, 1, 2], values)
    commit = pending(room)["commitment"]
    await room.start()
    await room.reveal(token(room, 0), "phone-0", commit, values[0])
    await room.close()  # the power goes
    again = open_room(tmp_path / "games.db", reveal_wait=0.2)
    assert again.phase == "join" and pending(again)["revealing"]
    assert again.lobby["fair"]["values"][0] == values[0]
    again.attach(asyncio.get_running_loop())
    await again.reveal(token(again, 1), "phone-1", commit, values[1])
    for _ in range(50):
        if again.table is not None:
            break
        await asyncio.sleep(0.05)
    assert again.table.fair.sources == ["phone", "phone", "filler", "filler"]
    assert again.table.game_id == 1 and pending(again)["game"] == 2
    await again.close()


async def test_a_deal_whose_room_record_the_card_refused_is_that_game_when_retried(
        tmp_path):
    """The game is stored under its number, then the card refuses the room's record of the
    deal: the phone is told it failed, the lobby is still revealing. Its retry finds the game
    already stored under that number with that secret, and goes on with it: one game, dealt
    once (a fresh deal under the same number would be refused by the store for good)."""
    room = await fair_room(tmp_path, bots=[1, 2, 3], reveal_wait=30)
    values: dict = {}
    await claim_pledged(room, [0], values)
    commit = pending(room)["commitment"]
    await room.start()
    card = sqlite3.connect(tmp_path / "games.db", isolation_level=None)
    card.execute("CREATE TRIGGER failing BEFORE INSERT ON settings WHEN NEW.key = 'room' AND "
                 "json_extract(NEW.value, '$.lobby.game_id') IS NOT NULL "
                 "BEGIN SELECT RAISE(ABORT, 'the card failed'); END")
    with pytest.raises(StorageFailed):
        await room.reveal(token(room, 0), "phone-0", commit, values[0])
    assert room.table is None and room.revealing and room.store.latest_game() == 1
    stored = room.store.load(1)
    card.execute("DROP TRIGGER failing")
    card.close()
    assert await room.reveal(token(room, 0), "phone-0", commit, values[0])
    assert room.table.game_id == 1 and room.store.load(1) == stored
    assert room.table.fair.contributions[0] == values[0] and pending(room)["game"] == 2
    await room.close()


async def test_play_again_opens_the_reveal_for_the_next_commitment(tmp_path):
    room = await fair_room(tmp_path, bots=[3])
    await room.claim_seat(token(room, 0), "phone-0")
    await room.claim_seat(token(room, 1), "phone-1")
    await room.claim_seat(token(room, 2), "phone-2")
    await room.start()  # no pledge: dealt at once, as always
    assert room.phase == "play" and room.table.fair.sources == ["filler"] * 4
    upcoming = pending(room)
    values: dict = {}
    for seat in (0, 1):  # pledged during the game, for the next one
        values[seat] = draw_value()
        await room.pledge(token(room, seat), f"phone-{seat}", upcoming["commitment"],
                          pledge(upcoming["commitment"], values[seat]))
    await finish(room)
    await room.play_again()
    assert room.phase == "over" and pending(room)["revealing"]  # returns once it is open
    await room.play_again()  # a second tap changes nothing
    await reveal_all(room, values)
    assert room.table.game_id == upcoming["game"] == 2
    assert room.room_view()["fair"]["commitment"] == upcoming["commitment"]
    assert room.table.fair.sources == ["phone", "phone", "filler", "filler"]
    await room.close()


async def test_numbers_are_reserved_and_a_discarded_commitments_number_is_never_reused(
        tmp_path):
    room = await fair_room(tmp_path, bots=[0, 1, 2, 3])
    assert pending(room)["game"] == 1
    await room.new_game({"names": NAMES}, bots=[0, 1, 2, 3])  # the first lobby discarded
    assert pending(room)["game"] == 2
    await room.close()
    again = open_room(tmp_path / "games.db")
    assert pending(again)["game"] == 2
    await again.new_game({"names": NAMES}, bots=[0, 1, 2, 3])
    assert pending(again)["game"] == 3  # number 2 spent too, after a restart
    await again.start()
    assert again.table.game_id == 3 and pending(again)["game"] == 4
    # game 3, and one game dealt: the kiosk's "Game 3 · 1 game dealt" shows the two thrown away
    assert again.room_view()["fair"]["games_dealt"] == 1
    with pytest.raises(UnknownGame):
        await again.fair_record(2)  # never dealt: nothing to reveal
    await again.close()


async def test_a_replaced_game_is_revealed_at_once_and_the_game_in_play_never(tmp_path):
    """Before, a replaced game was never revealed: its deal could never be audited."""
    room = await fair_room(tmp_path, bots=[0, 1, 2, 3])
    await room.start()
    first = room.table.game_id
    for game in (None, first):
        with pytest.raises(NotReady):
            await room.fair_record(game)
    await room.new_game({"names": NAMES}, bots=[0, 1, 2, 3], replace=True)
    assert room.notices[-1] == {"k": "game_revealed", "game": first}
    assert room.room_view()["fair"]["revealed_games"] == [first]
    verdict = check(record(await room.fair_record(first)))
    assert verdict.problems == [] and not verdict.over and verdict.events >= 1
    await room.close()


async def test_a_lobby_stored_under_the_first_procedure_is_committed_afresh(tmp_path):
    store = EventStore(tmp_path / "games.db")
    room = Room(store, bot_delay=0)
    await room.new_game({"names": NAMES}, bots=[2, 3])
    await room.close()
    old = store.setting("room")
    old["lobby"]["fair"] = {"secret": "ab" * 32, "contributions": ["cd" * 32, None, None, None]}
    store.put_setting("room", old)
    again = Room(store, bot_delay=0)
    fair = again.lobby["fair"]
    assert fair["format"] == 2 and fair["secret"] != "ab" * 32 and fair["game"] == 2
    assert fair["pledges"] == [None] * 4 and store.setting("room")["lobby"]["fair"] == fair
    await again.close()


async def test_a_game_dealt_under_the_first_procedure_is_not_resumed(tmp_path):
    store = EventStore(tmp_path / "games.db")
    room = Room(store, bot_delay=0)
    await room.new_game({"names": NAMES}, bots=[0, 1, 2, 3])
    await room.start()
    game = room.table.game_id
    await room.close()
    meta = store.meta(game)
    meta["fair"] = {"secret": "ab" * 32, "contributions": ["cd" * 32] * 4,
                    "sources": ["pi"] * 4}  # as darkmoon-fair/1 stored it
    store._conn.execute("UPDATE games SET meta = ? WHERE game_id = ?", (json.dumps(meta), game))
    again = Room(store, bot_delay=0)
    assert again.table is None and again.phase == "start"
    assert store.latest_game() == game  # it stays in the store
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
