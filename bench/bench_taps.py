"""Taps and seconds at the table: what a game costs the players' fingers, through the real
pages in Chromium and the real web server, played as people play it.

Prints
  * setup: from the host scanning the kiosk's code to the first decision on a phone, for 5
    players, the host playing a seat too: the taps by the host and by each other player, the
    names typed, the codes scanned, and the machine's seconds (no human thinking time: what
    the product adds to the table's minute);
  * the taps per decision, by kind (action, repair/roll, submit, malfunction IN/OUT, vote),
    for each player and in all, and how many of them only lifted the idle veil;
  * the taps per player for a repair turn, a malfunction and a vote, as players meet them.

What counts as a tap, as a person's finger makes it:
  * a scan is the camera pointed at a code, then a tap on the link the camera app opens;
  * a name is typed after a tap into its field; the players' number is a native select,
    a tap to open it and a tap on the number;
  * a tab switch on the host's phone (the host page in one tab, the host's seat in another)
    is two taps: the tabs button, then the tab;
  * a die, an option, Submit, the veil's "tap to show": each one tap; a seat button press
    counts as one tap, as the phone's button does.
The bench taps what the page shows, found by stable hooks (#decision, [data-option] holding
the option's JSON, #rolled .die, #submit-dice, #unveil, #setup, #create): the option's
button wherever it is (on the decision panel or on the veil), else the veil first, else the
dice picker (or the steppers of dice chosen by count). Every tap it makes is counted, and
only those.

The idle veil (glance.js: a phone untouched for 10 s hides everything private) at its real
timeout, without sleeping 10 s: the bench keeps a table clock. Each decision takes its player
THINK seconds of table time (4 to 12 s by kind), each turn begins with BOARD seconds (20) of
moving pieces on the physical board and talk, and the voters of one vote decide together. A
phone is veiled when its player is asked to decide IDLE seconds or more after their last touch;
the bench then makes the page's own timer fire at once (data-idle lowered, a wheel event
re-arms it), so the page shows its real veil, and the player taps through it. Between decisions
the pages' own timer is held off (an hour, from the first moment of every page load), so a slow
machine cannot veil a page the table clock says was just touched. Players touch their phone
only to act: peeking at the status card or the board between turns would lift the veil sooner
and is not modelled, so a table that handles its phones more often meets fewer veils.

A choice made on the veil (IN/OUT, a ballot, an action: one tap, the dice never shown) leaves
the veil up: that tap did not ask to see the seat's secrets. When the same seat's next decision
shows them (the dice to take after going OUT, the dice to roll after "Repair"), the phone still
stands veiled although its player just touched it, and the player lifts the veil first. Such a
decision counts as met veiled too: the report's "met veiled" is every decision the page showed
veiled, and the line "played ..." says how many of them were on a veil kept up that way.

Players choose as the demo's bots do (companion.tools.bots.seat_choice: the sensible bot, from
each seat's own view and the public log: as many dice as allowed, strong ones first, the weak
ones discarded, votes on whoever looks suspicious, sabotage by the Infected), but act through
their page. The figures before and after a change to the pages come from this same bench on
both versions.

    .venv/bin/python bench/bench_taps.py [--quick] [--pi-class]

--quick: setup and the first eight decisions only (what the test suite runs).
"""
from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "tests" / "web")]

from budget import parse  # noqa: E402

import companion  # noqa: E402
from companion.core.room import Room  # noqa: E402
from companion.tools.bots import seat_choice  # noqa: E402
from test_browser_kit import PHONE, served_with_browser  # noqa: E402

NAMES = ["Ana", "Ben", "Cai", "Dee", "Eli"]
HOST = 0            # the host plays Ana's seat
SEED = 7
QUICK_DECISIONS = 8
MAX_DECISIONS = 600  # a guard: a game this long is a bug
COUNTED = ("roll", "take", "discard")  # options naming dice by count per colour
STEP_GUARD = 15.0   # s: a page that shows no way to make the choice by then is a bug

IDLE = 10.0         # s: glance.js's idle veil
HELD_OFF = 3_600_000  # ms: the page's own idle timer between the table clock's veils
# Every page a phone loads (a scanned link, a seat taken on the host page, a reload) starts
# with its idle timer held off, as `?idle=` would: glance.js reads <body data-idle> at each
# arming, so it is set as soon as the body exists.
HOLD_VEIL_OFF = """new MutationObserver((_, watch) => {
  if (!document.body) return;
  if (!document.body.dataset.idle) document.body.dataset.idle = "%d";
  watch.disconnect();
}).observe(document, { childList: true, subtree: true });"""
# Table time, in seconds, a player takes over a decision (reading it, thinking, tapping),
# and what the table spends on the physical board at each turn's start.
THINK = {"action": 12, "task": 8, "participation": 4, "vote": 6, "tie_break": 6,
         "vote_target": 6, "submit": 6, "roll_dice": 4, "take_dice": 4, "discard": 4,
         "continue": 4}
THINK_OTHER = 5
BOARD = 20
# The decision kinds reported, by the kind the game asks
REPORTED = {"action": "action", "vote_target": "action",
            "roll_dice": "repair/roll", "take_dice": "repair/roll", "discard": "repair/roll",
            "continue": "repair/roll", "submit": "submit",
            "participation": "malfunction IN/OUT", "vote": "vote", "tie_break": "vote"}
# "other": drawing events, choosing tasks, bonuses and the like
ORDER = ("action", "repair/roll", "submit", "malfunction IN/OUT", "vote", "other")


class Phone:
    """One person's phone: the page it shows now, and its other tab (the host's page, when
    the host's seat is a second tab)."""

    def __init__(self, page, other=None):
        self.page, self.other = page, other
        self.last = page


class Table:
    """Five phones in one browser, each in its own context; the taps each person made."""

    def __init__(self, browser, base: str):
        self.browser = browser
        self.base = base
        self.taps = defaultdict(int)     # by person (seat)
        self.veil_taps = 0

    async def open(self, path: str):
        context = await self.browser.new_context(**PHONE)
        await context.add_init_script(HOLD_VEIL_OFF % HELD_OFF)
        page = await context.new_page()
        page.set_default_timeout(15_000)
        await page.goto(self.base + path)
        return page

    async def tap(self, who: int, page, selector: str) -> None:
        await page.locator(selector).filter(visible=True).first.click()
        self.taps[who] += 1

    async def scan(self, who: int, path: str, page=None):
        """The camera reads the code, the player taps the link it opens: one tap. A phone
        already holding a page opens the link in a new tab of the same browser."""
        self.taps[who] += 1
        if page is None:
            return await self.open(path)
        tab = await page.context.new_page()
        tab.set_default_timeout(15_000)
        await tab.goto(self.base + path)
        return tab


async def let_veil_fall(page) -> None:
    """The page's own idle veil, now: its timer fired at once, then held off again."""
    await page.evaluate("""() => { document.body.dataset.idle = "1";
        document.dispatchEvent(new WheelEvent("wheel")); }""")
    await page.wait_for_selector("#unveil")
    await page.evaluate("(ms) => { document.body.dataset.idle = String(ms); }", HELD_OFF)


async def visible(page, selector: str) -> bool:
    return await page.locator(selector).filter(visible=True).count() > 0


async def set_up(table: Table, room: Room) -> tuple[dict, list[Phone]]:
    """The host scans, fills the form and creates; takes their own seat; every other player
    scans the table code and taps their seat; the host starts."""
    began = time.perf_counter()
    host = await table.scan(HOST, f"/h#{room.host_token}")
    await host.wait_for_selector("#setup #create")
    await host.select_option("#players", str(len(NAMES)))
    table.taps[HOST] += 2  # a native select: open it, tap the number
    for i, name in enumerate(NAMES):
        await table.tap(HOST, host, f"[name=name-{i}]")
        await host.fill(f"[name=name-{i}]", name)
    await table.tap(HOST, host, "#create")
    await host.wait_for_selector(f"ul.join li[data-seat='{len(NAMES) - 1}']")
    # At the Pi's 120x36 five seats share one table code: each player scans it and taps
    # their seat (the seat page claims it).
    table_code = room.kiosk_view()["table_token"]
    seats = room.lobby["seats"]
    phones: list[Phone | None] = [None] * len(NAMES)
    if await visible(host, f"[data-sit='{HOST}']"):
        # the host page takes a seat for the host's phone, and becomes that seat's page
        await table.tap(HOST, host, f"[data-sit='{HOST}']")
        await host.wait_for_url(f"**/s#{seats[HOST]['token']}")
        phones[HOST] = Phone(host)
    else:  # the host scans the table code too: their seat in a second tab
        tab = await table.scan(HOST, f"/j#{table_code}", page=host)
        await table.tap(HOST, tab, f"a[href='/s#{seats[HOST]['token']}']")
        phones[HOST] = Phone(tab, other=host)
        phones[HOST].last = tab
    for seat in range(len(NAMES)):
        if seat != HOST:
            page = await table.scan(seat, f"/j#{table_code}")
            await table.tap(seat, page, f"a[href='/s#{seats[seat]['token']}']")
            phones[seat] = Phone(page)
    for phone in phones:
        await phone.page.wait_for_selector(".lobby")
    await start(table, phones[HOST])
    seat = room.table.state.pending.seats[0]
    await phones[seat].page.wait_for_selector("#decision")
    seconds = time.perf_counter() - began
    return {"taps": dict(table.taps), "typed": len(NAMES), "scans": len(NAMES) + 1
            + (phones[HOST].other is not None), "seconds": seconds}, phones


async def start(table: Table, phone: Phone) -> None:
    """The host's Start: on the page in front of them, else in their other tab; behind the
    host's drawer on a seat page."""
    for page in (phone.page, phone.other):
        if page is None:
            continue
        if not await visible(page, "#start") and await visible(page, "#host-toggle"):
            await table.tap(HOST, page, "#host-toggle")
        if await visible(page, "#start"):
            await page.wait_for_selector("#start:not([disabled])")
            if page is not phone.last:
                table.taps[HOST] += 2  # the tabs button, then the tab
                phone.last = page
            await table.tap(HOST, page, "#start")
            await page.wait_for_selector(".board[data-state]")  # the deal is stored
            return
    raise RuntimeError("the host's phone shows no Start button")


async def act(table: Table, room: Room, phone: Phone, seat: int, command: dict,
              veiled: bool) -> tuple[int, int, bool]:
    """Make the choice through the seat's page; the taps it took, how many of them lifted
    the veil, and whether the page stood veiled already though the table clock says its player
    touched it just now (the veil kept up by a choice made on it)."""
    option = command["option"]
    page = phone.page
    before, veil_before = table.taps[seat], table.veil_taps
    if phone.last is not page:  # the host comes back to their seat's tab
        table.taps[seat] += 2
        phone.last = page
    state_id = room.table.state_id
    await page.wait_for_selector(f'body[data-state="{state_id}"]', state="attached")
    kept = not veiled and await visible(page, "#unveil")
    if veiled:
        await let_veil_fall(page)
    done = lambda: room.table.state_id != state_id or _chosen(room, seat)  # noqa: E731
    try:
        await make_choice(table, seat, page, option, done)
    except TimeoutError:
        raise RuntimeError(f"{NAMES[seat]}'s page showed no way to choose {option} in "
                           f"{STEP_GUARD:.0f} s") from None
    return table.taps[seat] - before, table.veil_taps - veil_before, kept


async def make_choice(table: Table, seat: int, page, option: list, done) -> None:
    """The option's button wherever the page shows it, else the veil first, else a picker."""
    wanted = f"[data-option='{json.dumps(option, separators=(',', ':'))}']:not([disabled])"
    async with asyncio.timeout(STEP_GUARD):
        while not done():
            if option[0] == "reveal" and await visible(page, "#reveal-ask"):
                await table.tap(seat, page, "#reveal-ask")  # the Status card; its button reveals
                await table.tap(seat, page, "#reveal-confirm")
            elif await visible(page, wanted):
                await table.tap(seat, page, wanted)
            elif await visible(page, "#unveil"):
                await table.tap(seat, page, "#unveil")
                table.veil_taps += 1
                continue
            elif option[0] == "submit" and await visible(page, "#rolled .die"):
                await pick_dice(table, seat, page, option[1:], done)
            elif option[0] in COUNTED and await visible(page, "#decision [data-step]"):
                await set_counts(table, seat, page, option[1:])
                continue
            else:
                await asyncio.sleep(0.02)  # the page is still drawing this decision
                continue
            for _ in range(1000):  # the command's way to the room (5 s, then look again)
                if done():
                    break
                await asyncio.sleep(0.005)


async def pick_dice(table: Table, seat: int, page, indices, done) -> None:
    """Tap the chosen dice (a die already picked stays picked, unless a die's tap is the
    choice: no Submit button), then Submit unless a die's tap already sent them."""
    for index in indices:
        die = f"#rolled .die[data-index='{index}']"
        picked = await page.locator(die).first.get_attribute("aria-pressed") == "true"
        if not picked or not await visible(page, "#submit-dice"):
            await table.tap(seat, page, die)
        for _ in range(20):
            if done():
                return
            await asyncio.sleep(0.005)
    if await visible(page, "#submit-dice:not([disabled])"):
        await table.tap(seat, page, "#submit-dice:not([disabled])")


async def set_counts(table: Table, seat: int, page, counts) -> None:
    """Dice chosen by count, one stepper per colour (+ and -): tap each to the option's count,
    in the order strong, weak, commander, reading each count when its turn comes (with a fixed
    number of dice a step swaps a die with the next colour, which then needs fewer taps or
    none); the button holding the option is then tapped as any other."""
    for colour, wanted in zip(("strong", "weak", "commander"), counts):
        shown = page.locator(f"#decision [data-count='{colour}']")
        if not await shown.count():
            continue
        have = int((await shown.first.text_content()).strip())
        step = f"#decision [data-step='{colour}{'+' if wanted > have else '-'}']"
        for _ in range(abs(wanted - have)):
            await table.tap(seat, page, step)


def _chosen(room: Room, seat: int) -> bool:
    """A vote is answered before the last voter closes it: this seat no longer waits."""
    pending = room.table.state.pending
    return pending is None or seat not in pending.seats


async def play(table: Table, room: Room, phones: list[Phone], limit: int) -> list[tuple]:
    """(seat, decision kind, chosen option, taps, veil taps, met veiled, on a veil kept up)
    for every decision of the game, on the table clock (see the module's docstring)."""
    rng = random.Random(SEED)
    record = []
    clock = 0.0
    touched = {seat: 0.0 for seat in range(len(phones))}  # each player's last touch
    asked: dict[int, float] = {}                          # since when a seat is asked
    last_kind, turn = None, None
    while not room.table.over and len(record) < limit:
        state = room.table.state
        pending = state.pending
        kind = pending.kind
        if state.active != turn:  # a new player's turn: pieces moved, the table talks
            clock += BOARD if turn is not None else 0
            turn = state.active
        for waiting in pending.seats:
            asked.setdefault(waiting, clock)
        seat = pending.seats[0]
        command = seat_choice(room.table, seat, rng)
        veiled = asked.pop(seat) - touched[seat] >= IDLE
        taps, veil, kept = await act(table, room, phones[seat], seat, command, veiled)
        # voters decide together: the round takes one voter's time
        clock += 1 if kind == "vote" and last_kind == "vote" else THINK.get(kind, THINK_OTHER)
        touched[seat] = clock
        last_kind = kind
        record.append((seat, kind, command["option"][0], taps, veil, veiled or kept, kept))
    return record


def per_player(record: list[tuple]) -> dict[str, list[float]]:
    """Taps per player involved, for each repair turn, malfunction and vote in the game. A
    stretch starts at an action (repair, vote) or at the first IN/OUT of a malfunction and
    runs until the next action or malfunction."""
    stretches, current = defaultdict(list), None
    for seat, kind, chosen, taps, *_ in record:
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


def by_kind(record: list[tuple]) -> dict[str, dict]:
    """For each reported kind: decisions, those met on a veiled phone, taps and veil taps,
    in all and by seat."""
    kinds: dict[str, dict] = {}
    for seat, kind, _, taps, veil, veiled, _ in record:
        row = kinds.setdefault(REPORTED.get(kind, "other"), {"n": 0, "veiled": 0, "taps": 0,
                                                             "veil": 0,
                                                             "seats": defaultdict(list)})
        row["n"] += 1
        row["veiled"] += veiled
        row["taps"] += taps
        row["veil"] += veil
        row["seats"][seat].append(taps)
    return kinds


async def main() -> None:
    args = parse(argparse.ArgumentParser(description=__doc__.split("\n\n")[0]))
    print(f"code: {Path(companion.__file__).parents[1]}")
    async with served_with_browser(SEED) as (room, served, browser):
        table = Table(browser, served.base)
        setup, phones = await set_up(table, room)
        limit = QUICK_DECISIONS if args.quick else MAX_DECISIONS
        began = time.perf_counter()
        record = await play(table, room, phones, limit)
        playing = time.perf_counter() - began
    report(setup, record, playing, room.table.over)


def report(setup: dict, record: list[tuple], playing: float, over: bool) -> None:
    taps = setup["taps"]
    others = [taps.get(seat, 0) for seat in range(len(NAMES)) if seat != HOST]
    print(f"setup, host's scan to the first decision, {len(NAMES)} players (the host plays "
          f"{NAMES[HOST]}): {sum(taps.values())} taps ({taps.get(HOST, 0)} by the host, "
          f"{sum(others) / len(others):.1f} by each other player), {setup['typed']} names "
          f"typed, {setup['scans']} codes scanned, {setup['seconds']:.1f} s of the machine's "
          "time")
    print(f"played {len(record)} decisions with {sum(r[3] for r in record)} taps "
          f"({sum(r[4] for r in record)} on the veil, {sum(r[5] for r in record)} decisions "
          f"met veiled, {sum(r[6] for r in record)} of them on a veil kept up by a choice made "
          f"on it) in {playing:.1f} s "
          f"({'game over' if over else 'stopped there'}); veil after {IDLE:.0f} s idle on "
          f"the table clock")
    kinds = by_kind(record)
    print("taps per decision, by kind: all players (decisions, met veiled, taps on the "
          "veil) | "
          + " ".join(f"{name:>5}" for name in NAMES))
    for name in ORDER:
        row = kinds.get(name)
        if row is None:
            print(f"  {name:<19} none in these {len(record)} decisions")
            continue
        seats = " ".join(f"{sum(row['seats'][s]) / len(row['seats'][s]):5.2f}"
                         if row["seats"].get(s) else "    -" for s in range(len(NAMES)))
        print(f"  {name:<19} {row['taps'] / row['n']:5.2f} ({row['n']}, {row['veiled']}, "
              f"{row['veil']}) | "
              + seats)
    for name in ("repair", "malfunction", "vote"):
        seen = per_player(record).get(name, [])
        if seen:
            print(f"{name}: {sum(seen) / len(seen):.1f} taps per player involved "
                  f"(mean of {len(seen)}, most {max(seen):.1f})")
        else:
            print(f"{name}: none in these {len(record)} decisions")


if __name__ == "__main__":
    asyncio.run(main())
