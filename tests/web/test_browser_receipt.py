"""The deal's receipt on the phones, in Chromium (docs/fair.md, "At the table", 5 and 9): every
phone keeps the receipt it is shown before the deal (the pledges the deal uses, by seat); a
phone whose bytes the Pi took and the receipt leaves out says so at once; at game over each
phone holds the record's deal to that receipt and to its own answered reveal. A game no
phone's bytes went into is said, on every page, to be dealt by the Pi alone.

Before, a modified box could take every phone's bytes and deal as if some had never come,
choosing among 2^k deals, and every phone and `verify` passed it: a seat dealt its filler
with its pledge "never revealed" looked like a phone that was late. Each modified box is a
Dealer handed to the room (tests/dealers.py)."""
from __future__ import annotations

import json
from contextlib import asynccontextmanager

from companion.cli import main
from companion.lang import catalogue

from dealers import LeavesOutAShownPledge, ReceiptWithout
from served_by import served_by
from test_browser_fair import checked, play_to_the_end, sealed_table
from test_browser_kit import browser, dealt, served, showing  # noqa: F401

EN = catalogue("en")


def line(key: str, **values) -> str:
    sentence = EN[key]
    for name, value in values.items():
        sentence = sentence.replace("{" + name + "}", str(value))
    return sentence


async def record_of(page, game: int) -> dict:
    """The game's record as the phone fetches it at game over."""
    return await page.evaluate(
        "async (game) => (await fetch(`/api/fair/record?game=${game}`)).json()", game)


def verify(tmp_path, capsys, rec: dict) -> tuple[int, str]:
    """`darkmoon-companion verify` on the record, saved as a player downloads it."""
    path = tmp_path / "record.json"
    path.write_text(json.dumps(rec))
    status = main(["verify", str(path)])
    return status, capsys.readouterr().out


@asynccontextmanager
async def dealt_without_seat_1(tmp_path, browser, dealer):
    """Three phones, each with its bytes pledged, dealt by `dealer`, a modified box whose
    deal leaves seat 1's bytes out: (room, phones, pages) once the game is dealt."""
    async with served_by(tmp_path, dealer) as served:
        room, phones, pages = await sealed_table(served, browser)
        await room.start()
        await dealt(room)
        assert room.table.fair.sources == ["phone", "filler", "phone"]
        yield room, phones, pages


async def test_every_phone_and_verify_say_a_deal_that_left_out_a_receipts_pledge_is_not_fair(
        tmp_path, browser, capsys):
    async with dealt_without_seat_1(tmp_path, browser, LeavesOutAShownPledge(1)) as (
            room, phones, pages):
        receipt = room.room_view()["fair"]["receipt"]
        assert receipt[1] is not None and receipt[1] == room.table.fair.pledges[1]  # named
        await play_to_the_end(room, [0, 1, 2], pages)
        left_out = line("phone.verify.problem.left_out", seat=2)
        for page in pages:
            verdict, said = await checked(page)
            assert verdict == "failed" and said.startswith(EN["phone.fair.result.failed"])
            assert line("phone.fair.problem.record", why=left_out) in said, said
        rec = await record_of(pages[0], room.table.game_id)
        assert rec["receipt"] == receipt
        status, said = verify(tmp_path, capsys, rec)
        assert status == 1 and said.startswith("NOT verified: the deal left out seat 1's "
                                               "bytes"), said
        assert not phones.errors


async def test_a_phone_the_receipt_leaves_out_says_so_before_play_and_at_game_over(
        tmp_path, browser, capsys):
    async with dealt_without_seat_1(tmp_path, browser, ReceiptWithout(1)) as (
            room, phones, pages):
        # The Pi answered seat 1's reveal (it holds its bytes), and its receipt leaves them
        # out: that phone says so on its screen before anyone plays, and keeps it.
        warning = pages[1].locator("#fair .fair-left-out")
        await warning.wait_for()
        assert await warning.inner_text() == EN["phone.fair.left_out"]
        commit = room.table.fair.commitment
        kept = await pages[1].evaluate(
            "(seal) => JSON.parse(localStorage.getItem(`darkmoon-fair:${seal}`))", commit)
        assert kept["opened"] and kept["leftOut"]
        assert kept["receipt"] == room.room_view()["fair"]["receipt"]
        assert kept["receipt"][1] is None
        await showing(pages, room.table.state_id)
        for page in (pages[0], pages[2]):  # their own bytes are in: nothing to say
            assert await page.locator("#fair .fair-left-out").count() == 0
        await play_to_the_end(room, [0, 1, 2], pages)
        verdict, said = await checked(pages[1])
        assert verdict == "failed" and EN["phone.fair.problem.left_out"] in said, said
        assert await pages[1].locator("#fair-result [data-problem=left_out]").count() == 1
        # The record alone holds together: seat 1 reads as a phone that never showed its
        # bytes (docs/fair.md, "Honest limit"); only the phone that was answered can tell.
        status, said = verify(tmp_path, capsys, await record_of(pages[0],
                                                                 room.table.game_id))
        assert status == 0 and "(seats 1 pledged and never revealed)" in said
        assert not phones.errors


async def test_phones_whose_bytes_never_went_in_say_the_pi_dealt_alone(served, browser):
    """Every phone pledged and none could show its bytes (all out of the Wi-Fi while the
    deal waited): no phone's bytes are in the deal, so no page calls it fair."""
    room, phones, pages = await sealed_table(served, browser)
    room.reveal_wait = 1.0
    for page in pages:
        await page.route("**/api/sealed", lambda route: route.abort())
    await room.start()
    await dealt(room)
    assert room.room_view()["fair"]["box_alone"] is True
    board = await phones.open("/board")
    for page in [*pages, board]:
        alone = page.locator("#fair .fair-alone")
        await alone.wait_for()
        assert await alone.inner_text() == EN["phone.fair.box_alone"]
    await play_to_the_end(room, [0, 1, 2], pages)
    for page in pages:
        verdict, said = await checked(page)
        assert verdict == "alone" and EN["phone.fair.result.alone"] in said, said
        assert "fair." not in said.split(":")[0]  # never "checked the deal: fair"
    assert not phones.errors
