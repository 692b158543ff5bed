"""Taps and seconds at the table: what a game costs the players' fingers, through the real
pages in Chromium and the real web server.

Prints
  * setup: from the host scanning the kiosk's code to the first decision on a phone, for 5
    players: the taps (buttons, selects), the names typed, the codes scanned, and the
    machine's seconds (no human thinking time: what the product adds to the table's minute);
  * the taps per player for a repair turn, a malfunction and a vote, as players meet them on
    their phones (a seat button press counts as one tap, as the phone's button does).

Players follow the demo's helpful bot (companion.simulate.choice_for), calling a vote on
three turns in ten where one is open, but act through their page: a die is a tap on its chip, Submit a tap, every other option a tap on its button.

    .venv/bin/python bench/bench_taps.py [--quick] [--pi-class]

--quick: setup and the first eight decisions only (what the test suite runs).
"""
from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "tests" / "web")]

from budget import parse  # noqa: E402
from playwright.async_api import async_playwright  # noqa: E402

from companion.room import Room  # noqa: E402
from companion.simulate import choice_for  # noqa: E402
from companion.store import EventStore  # noqa: E402
from test_browser_kit import ARGS, CHROMIUM, PHONE, Served, seat_path  # noqa: E402

NAMES = ["Ana", "Ben", "Cai", "Dee", "Eli"]
SEED = 7
QUICK_DECISIONS = 8
VOTE_SHARE = 0.3  # the helpful bot never calls a vote; a table does, now and then
MAX_DECISIONS = 600  # a guard: a game this long is a bug


class Table:
    """Five phones and a host phone in one browser, each page in its own context."""

    def __init__(self, browser, base: str):
        self.browser = browser
        self.base = base
        self.taps = 0

    async def open(self, path: str):
        context = await self.browser.new_context(**PHONE)
        page = await context.new_page()
        page.set_default_timeout(15_000)
        await page.goto(self.base + path)
        return page

    async def tap(self, page, selector: str) -> None:
        await page.click(selector)
        self.taps += 1


async def set_up(table: Table, room: Room) -> tuple[dict, list]:
    """The host scans, fills the form and creates; every player scans; the host starts."""
    began = time.perf_counter()
    host = await table.open(f"/h/{room.host_token}")
    await host.wait_for_selector("#setup #create")
    await host.select_option("#players", str(len(NAMES)))
    table.taps += 1
    for i, name in enumerate(NAMES):
        await host.fill(f"[name=name-{i}]", name)
    await table.tap(host, "#create")
    await host.wait_for_selector(f"ul.join li[data-seat='{len(NAMES) - 1}']")
    # At the Pi's 120x36 five seats share one table code: each player scans it and taps
    # their seat (the seat page claims it).
    table_code = room.kiosk_view()["table_token"]
    pages = []
    for seat in room.lobby["seats"]:
        page = await table.open(f"/j/{table_code}")
        await table.tap(page, f"a[href='/s/{seat['token']}']")
        await page.wait_for_selector(".lobby")
        # the same page kept awake: a whole game outlasts the 10 s idle veil (glance.js),
        # whose "tap to show" would otherwise be counted as a tap of the game
        await page.goto(table.base + seat_path(seat["token"]))
        pages.append(page)
    for page in pages:
        await page.wait_for_selector(".lobby")
    await host.wait_for_selector("#start:not([disabled])")
    await table.tap(host, "#start")
    await host.wait_for_selector(".board[data-state]")  # the deal is stored
    seat = room.table.state.pending.seats[0]
    await pages[seat].wait_for_selector("#decision")
    seconds = time.perf_counter() - began
    return {"taps": table.taps, "typed": len(NAMES), "scans": 1 + len(pages),
            "seconds": seconds}, pages


async def act(table: Table, room: Room, pages: list, seat: int, command: dict) -> int:
    """Make the bot's choice through the seat's page; the taps it took."""
    option = command["option"]
    page = pages[seat]
    before = table.taps
    state_id = room.table.state_id
    await page.wait_for_selector(f'body[data-state="{state_id}"]', state="attached")
    if option[0] == "submit":
        for index in option[1:]:
            await table.tap(page, f"#rolled .die[data-index='{index}']")
        await table.tap(page, "#submit-dice:not([disabled])")
    elif option[0] == "reveal":
        await table.tap(page, "#reveal-ask")   # the Status card opens; its button reveals
        await table.tap(page, "#reveal-confirm")
    else:
        selector = f"#decision [data-option='{json.dumps(option, separators=(',', ':'))}']"
        await table.tap(page, selector)
    async with asyncio.timeout(15):
        while room.table.state_id == state_id and not _chosen(room, seat):
            await asyncio.sleep(0.005)
    return table.taps - before


def _chosen(room: Room, seat: int) -> bool:
    """A vote is answered before the last voter closes it: this seat no longer waits."""
    pending = room.table.state.pending
    return pending is None or seat not in pending.seats


async def play(table: Table, room: Room, pages: list, limit: int) -> list[tuple]:
    """(seat, decision kind, chosen option, taps) for every decision of the game."""
    rng = random.Random(SEED)
    record = []
    while not room.table.over and len(record) < limit:
        state = room.table.state
        seat = state.pending.seats[0]
        command = choice_for(state, seat, rng)
        votes = [o for o in state.pending.options[seat] if o[0] == "vote"]
        if state.pending.kind == "action" and votes and rng.random() < VOTE_SHARE:
            command = {"decision": "action", "option": list(rng.choice(votes))}
        taps = await act(table, room, pages, seat, command)
        record.append((seat, state.pending.kind, command["option"][0], taps))
    return record


def per_player(record: list[tuple]) -> dict[str, list[float]]:
    """Taps per player involved, for each repair turn, malfunction and vote in the game. A
    stretch starts at an action (repair, vote) or at the first IN/OUT of a malfunction and
    runs until the next action or malfunction."""
    stretches, current = defaultdict(list), None
    for seat, kind, chosen, taps in record:
        if kind == "action" or (kind == "participation" and
                                (current is None or current[0] != "malfunction")):
            if current is not None and current[1]:
                stretches[current[0]].append(sum(current[1].values()) / len(current[1]))
            name = "malfunction" if kind == "participation" else chosen
            current = (name, defaultdict(int))
        if current is not None:
            current[1][seat] += taps
    if current is not None and current[1]:
        stretches[current[0]].append(sum(current[1].values()) / len(current[1]))
    return stretches


async def main() -> None:
    args = parse(argparse.ArgumentParser(description=__doc__.split("\n\n")[0]))
    with tempfile.TemporaryDirectory() as tmp:
        store = EventStore(Path(tmp) / "g.db")
        room = Room(store, seed=SEED, bot_delay=0)
        room.attach(asyncio.get_running_loop())
        served = Served(room)
        await served.start()
        try:
            async with async_playwright() as playwright:
                browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
                try:
                    table = Table(browser, served.base)
                    setup, pages = await set_up(table, room)
                    limit = QUICK_DECISIONS if args.quick else MAX_DECISIONS
                    began = time.perf_counter()
                    record = await play(table, room, pages, limit)
                    playing = time.perf_counter() - began
                finally:
                    await browser.close()
        finally:
            await served.stop()
            await room.close()
            store.close()
    print(f"setup, host's scan to the first decision, {len(NAMES)} players: "
          f"{setup['taps']} taps, {setup['typed']} names typed, {setup['scans']} codes scanned, "
          f"{setup['seconds']:.1f} s of the machine's time")
    print(f"played {len(record)} decisions with {sum(r[3] for r in record)} taps in "
          f"{playing:.1f} s ({'game over' if room.table.over else 'stopped there'})")
    for name in ("repair", "malfunction", "vote"):
        seen = per_player(record).get(name, [])
        if seen:
            print(f"{name}: {sum(seen) / len(seen):.1f} taps per player involved "
                  f"(mean of {len(seen)}, most {max(seen):.1f})")
        else:
            print(f"{name}: none in these {len(record)} decisions")


if __name__ == "__main__":
    asyncio.run(main())
