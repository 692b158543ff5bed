"""The deal's receipt (docs/fair.md, "At the table", 5, and "Checking a record", 3): just
before the deal the Pi fixes which pledges it uses, stores that receipt and shows it to every
phone, then deals from exactly it; the record carries it, and `verify` calls a deal that
used fewer pledges than its receipt not fair. A game no phone's bytes went into is dealt by
the box alone and never called fair (exit status 4).

Before, a modified box could take every phone's bytes and deal as if some had never come,
choosing among 2^k deals for k phones, and its record still verified: a seat given its
filler with its pledge "never revealed" looked like a phone that was late. Each modified box
here is a Dealer handed to a real Room on a real store (tests/dealers.py)."""
from __future__ import annotations

import asyncio
import json
import random
import sqlite3

import pytest

from companion.chance.fair import draw_value, filler, pledge
from companion.chance.verify import check
from companion.cli import main
from companion.core.refusals import NotReady, StorageFailed
from companion.core.room import Room
from companion.core.store import EventStore
from companion.tools.simulate import choice_for

from dealers import LeavesOutAShownPledge, ReceiptWithout, Watching

NAMES = ["Ana", "Ben", "Cai", "Dee"]


async def fair_room(tmp_path, bots=(), **kw) -> Room:
    kw.setdefault("bot_delay", 0)
    room = Room(EventStore(tmp_path / "games.db"), **kw)  # no seed: a fair deal
    room.attach(asyncio.get_running_loop())
    await room.new_game({"names": NAMES}, bots=list(bots))
    return room


def token(room: Room, seat: int) -> str:
    return room.lobby["seats"][seat]["token"]


async def pledged(room: Room, seats) -> dict:
    """Each seat's phone claims with its pledge to the commitment it was shown."""
    commit, values = room.lobby["fair"]["commitment"], {}
    for seat in seats:
        values[seat] = draw_value()
        await room.claim_seat(token(room, seat), f"phone-{seat}", commit,
                              pledge(commit, values[seat]))
    return values


async def reveal(room: Room, seat: int, value: str) -> bool:
    return await room.reveal(token(room, seat), f"phone-{seat}",
                             room.lobby["fair"]["commitment"], value)


async def dealt(room: Room) -> None:
    async with asyncio.timeout(10):
        while room.table is None:
            await asyncio.sleep(0.02)


async def finish(room: Room) -> dict:
    """The game played to its end by the simulator's helpful player; its record as a phone
    receives it."""
    rng = random.Random(0)
    while not room.table.over:
        g = room.table.state
        seat = rng.choice(g.pending.seats)
        await room.submit(seat, choice_for(g, seat, rng))
    return json.loads(json.dumps(await room.fair_record()))


@pytest.fixture
def verify_cmd(tmp_path, capsys):
    """`darkmoon-companion verify` on a record saved to a file: (exit status, its words)."""
    def go(rec):
        path = tmp_path / "record.json"
        path.write_text(json.dumps(rec))
        status = main(["verify", str(path)])
        return status, capsys.readouterr().out
    return go


async def test_the_receipt_is_stored_and_shown_before_the_deal_and_the_deal_keeps_to_it(
        tmp_path, verify_cmd):
    watching = Watching()
    room = await fair_room(tmp_path, bots=[3], reveal_wait=0.3, dealer=watching)
    watching.room = room
    values = await pledged(room, [0, 1, 2])
    pledges = list(room.lobby["fair"]["pledges"])
    await room.start()
    assert room.room_view()["fair"]["pending"]["receipt"] is None  # not fixed while revealing
    await reveal(room, 0, values[0])
    await reveal(room, 1, values[1])  # seat 2 never reveals: the wait deals without it
    await dealt(room)
    receipt = [pledges[0], pledges[1], None, None]
    # as the deal was made, the receipt was already in the store and in every phone's view
    assert watching.seen == [(receipt, receipt, receipt)]
    shown = room.room_view()["fair"]
    assert shown["receipt"] == receipt and shown["box_alone"] is False
    assert room.table.fair.sources == ["phone", "phone", "filler", "filler"]
    rec = await finish(room)
    assert rec["receipt"] == receipt and rec["box_alone"] is False
    status, said = verify_cmd(rec)
    assert status == 0 and said.startswith("Verified:"), said
    assert "as the receipt shown before the deal names them" in said
    assert "(seats 2 pledged and never revealed)" in said
    await room.close()


async def test_a_deal_that_leaves_out_a_pledge_its_receipt_names_is_not_verified(
        tmp_path, verify_cmd):
    room = await fair_room(tmp_path, bots=[3], dealer=LeavesOutAShownPledge(1))
    values = await pledged(room, [0, 1, 2])
    await room.start()
    for seat in (0, 1, 2):
        await reveal(room, seat, values[seat])
    await dealt(room)
    secret = room.table.fair.secret
    shown = room.room_view()["fair"]["receipt"]
    assert shown[1] == pledge(room.table.fair.commitment, values[1])  # named, as shown
    assert room.table.fair.contributions[1] == filler(secret, 1)  # and left out of the deal
    rec = await finish(room)
    assert rec["receipt"] == shown
    status, said = verify_cmd(rec)
    assert (status, said) == (1, "NOT verified: the deal left out seat 1's bytes: the receipt "
                                 "shown before the deal says it uses that seat's pledge, but "
                                 "the seat got its filler\n")
    await room.close()


async def test_a_receipt_without_a_reveal_the_pi_answered_reads_as_a_late_phone_on_paper(
        tmp_path, verify_cmd):
    """The record alone cannot tell a reveal the Pi took and left out from one that never
    came (docs/fair.md, "Honest limit"): `verify` says the seat never revealed, in words; the
    phone that was answered says the rest (tests/web/test_browser_receipt.py)."""
    room = await fair_room(tmp_path, bots=[3], dealer=ReceiptWithout(1))
    values = await pledged(room, [0, 1, 2])
    await room.start()
    assert not await reveal(room, 1, values[1])  # answered: the Pi has its bytes
    assert room.lobby["fair"]["values"][1] == values[1]
    await reveal(room, 0, values[0])
    assert await reveal(room, 2, values[2])  # the last: dealt
    assert room.room_view()["fair"]["receipt"][1] is None  # every phone is shown it
    rec = await finish(room)
    status, said = verify_cmd(rec)
    assert status == 0 and "(seats 1 pledged and never revealed)" in said
    await room.close()


@pytest.mark.parametrize("how", ["bots only", "every phone silent"])
async def test_a_game_no_phones_bytes_went_into_is_dealt_by_the_box_alone(tmp_path,
                                                                          verify_cmd, how):
    if how == "bots only":
        room = await fair_room(tmp_path, bots=[0, 1, 2, 3])
        await room.start()  # nothing to wait for: dealt at once
    else:  # every phone pledged, none showed its bytes in time
        room = await fair_room(tmp_path, reveal_wait=0.2)
        await pledged(room, range(4))
        await room.start()
        await dealt(room)
    view = room.room_view()["fair"]
    assert view["box_alone"] is True and view["receipt"] == [None] * 4
    rec = await finish(room)
    assert rec["box_alone"] is True and rec["receipt"] == [None] * 4
    verdict = check(rec)
    assert verdict.problems == [] and verdict.box_alone and verdict.over
    status, said = verify_cmd(rec)
    assert status == 4 and "Verified" not in said and said.count("\n") == 1
    assert said.startswith("Dealt by the box alone, so NOT shown fair: no phone's bytes went "
                           f"into game {rec['game']}'s deal")
    assert ("pledged and never revealed" in said) == (how == "every phone silent")
    # a record that calls such a deal the phones' is refused
    status, said = verify_cmd({**rec, "box_alone": False})
    assert status == 1 and '"box_alone" says the opposite of its receipt' in said
    await room.close()


async def test_once_the_receipt_is_fixed_a_late_reveal_is_refused_and_the_deal_keeps_to_it(
        tmp_path):
    """The card refuses the game's first write after the receipt was stored: the receipt
    stands (every phone has seen it). A reveal that comes then is refused, so no phone is
    told its bytes were taken by a deal that leaves them out; the retried deal, and a room
    restarted meanwhile, deal from the stored receipt."""
    room = await fair_room(tmp_path, bots=[3], reveal_wait=0.2)
    values = await pledged(room, [0, 1, 2])
    pledges = list(room.lobby["fair"]["pledges"])
    card = sqlite3.connect(tmp_path / "games.db", isolation_level=None)
    card.execute("CREATE TRIGGER failing BEFORE INSERT ON games "
                 "BEGIN SELECT RAISE(ABORT, 'the card failed'); END")
    await room.start()
    await reveal(room, 0, values[0])
    async with asyncio.timeout(10):  # the wait ends: the receipt is stored, the deal fails
        while room.lobby["fair"].get("receipt") is None:
            await asyncio.sleep(0.02)
    receipt = [pledges[0], None, None, None]
    assert room.store.setting("room")["lobby"]["fair"]["receipt"] == receipt
    assert room.room_view()["fair"]["pending"]["receipt"] == receipt
    assert room.table is None
    with pytest.raises(NotReady):  # too late now: refused, nothing taken
        await reveal(room, 1, values[1])
    assert room.lobby["fair"]["values"][1] is None
    await room.close()  # the power goes before the deal could be stored
    card.execute("DROP TRIGGER failing")
    card.close()
    again = Room(EventStore(tmp_path / "games.db"), bot_delay=0, reveal_wait=0.2)
    with pytest.raises(NotReady):
        await again.reveal(token(again, 2), "phone-2", again.lobby["fair"]["commitment"],
                           values[2])
    again.attach(asyncio.get_running_loop())
    await dealt(again)
    assert again.table.fair.receipt == receipt
    assert again.table.fair.sources == ["phone", "filler", "filler", "filler"]
    await again.close()


async def test_a_deal_whose_game_the_card_refused_is_told_and_changes_nothing_shown(tmp_path):
    """A failed deal after the receipt is a refusal like any other: the phone that revealed
    last is told it failed (StorageFailed), and nothing but the receipt was kept."""
    room = await fair_room(tmp_path, bots=[1, 2, 3], reveal_wait=30)
    values = await pledged(room, [0])
    await room.start()
    card = sqlite3.connect(tmp_path / "games.db", isolation_level=None)
    card.execute("CREATE TRIGGER failing BEFORE INSERT ON games "
                 "BEGIN SELECT RAISE(ABORT, 'the card failed'); END")
    with pytest.raises(StorageFailed):
        await reveal(room, 0, values[0])
    assert room.table is None and room.revealing
    assert room.store.setting("room")["lobby"]["fair"]["receipt"] == [
        room.lobby["fair"]["pledges"][0], None, None, None]
    card.execute("DROP TRIGGER failing")
    card.close()
    assert await reveal(room, 0, values[0])  # the same reveal again: taken, and dealt
    assert room.table.fair.sources == ["phone", "filler", "filler", "filler"]
    await room.close()
