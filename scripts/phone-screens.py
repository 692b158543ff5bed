#!/usr/bin/env python3
"""Pictures of the phone's decisions, as a player sees them on a 390x844 phone.

Runs a real room and web server on a loopback port, opens every seat's page in Debian's
Chromium, lets the helpful bots' moves play a seeded game (and a Shadow Corporation one), and
saves one PNG of each kind of decision the first time it comes up:

    docs/screens/phone-<kind>.png

Usage: .venv/bin/python scripts/phone-screens.py [--out docs/screens]
"""
from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
from pathlib import Path

from playwright.async_api import async_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from companion.core.room import Room  # noqa: E402
from companion.tools.simulate import choice_for  # noqa: E402
from companion.core.store import EventStore  # noqa: E402
from companion.web.server import start_server  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
NAMES = ["Ana", "Ben", "Cai", "Dee", "Eli"]
LONG = 3_600_000  # ms: the veil only where the script asks for it


async def showing(page, state_id: int) -> None:
    await page.wait_for_selector(f'body[data-state="{state_id}"]', state="attached")


async def play(browser, out: Path, variants: list, seed: int, wanted: dict) -> None:
    """One game; `wanted` maps a picture's name to a test of (state, seat) for its moment."""
    with tempfile.TemporaryDirectory() as tmp:
        store = EventStore(Path(tmp) / "g.db")
        room = Room(store, seed=seed, bot_delay=0)
        room.attach(asyncio.get_running_loop())
        runner = await start_server(room, "127.0.0.1", 0)
        base = "http://127.0.0.1:%d" % runner.addresses[0][1]
        await room.new_game({"names": NAMES, "variants": variants})
        pages = []
        for seat in room.lobby["seats"]:
            context = await browser.new_context(**PHONE)
            page = await context.new_page()
            await page.goto(f"{base}/s?idle={LONG}&shut={LONG}#{seat['token']}")
            await page.wait_for_selector(".lobby")
            pages.append(page)
        await room.start()
        rng = random.Random(seed)
        left = dict(wanted)
        try:
            for _ in range(3000):
                g = room.table.state
                if g.outcome is not None:
                    break
                seat = g.pending.seats[0]
                for name, moment in list(left.items()):
                    if moment is not None and moment(g, seat):
                        await shoot(room, pages[seat], out, name)
                        del left[name]
                command = choice_for(g, seat, rng)
                await room.submit(seat, command)
                if g.pending is None or command["decision"] != "vote":
                    continue
                # A ballot cast while others have yet to vote: the seat may change it.
                after = room.table.state
                if "vote-cast" in left and after.pending is not None \
                        and after.pending.kind == "vote" and seat in after.pending.answers:
                    await shoot(room, pages[seat], out, "vote-cast")
                    del left["vote-cast"]
            if "over" in left and room.table.state.outcome is not None:
                await shoot(room, pages[0], out, "over")
                del left["over"]
            for name in left:
                print(f"not reached in this game: {name}", file=sys.stderr)
        finally:
            await runner.cleanup()
            await room.close()
            store.close()


async def shoot(room, page, out: Path, name: str) -> None:
    await showing(page, room.table.state_id)
    if name.startswith("veil"):
        await page.evaluate("document.body.dataset.idle = '100'")
        await page.keyboard.press("Shift")
        await page.wait_for_selector("body.veiled")
    await page.wait_for_timeout(1600)  # the turn's flash is over
    path = out / f"phone-{name}.png"
    await page.screenshot(path=str(path))
    if name.startswith("veil"):
        await page.evaluate(f"document.body.dataset.idle = '{LONG}'")
        await page.click("#unveil")
    print(path)


def asked(kind, test=lambda g, seat: True):
    return lambda g, seat: g.pending.kind == kind and bool(g.pending.options.get(seat)) \
        and test(g, seat)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "docs" / "screens"))
    out = Path(parser.parse_args().out)
    out.mkdir(parents=True, exist_ok=True)
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        await play(browser, out, [], 34, {
            "action": asked("action"),
            "roll": asked("roll_dice"),
            "take": asked("take_dice", lambda g, seat: len(g.pending.options[seat]) > 2),
            "submit": asked("submit", lambda g, seat: len(g.seats[seat].rolled) > 1
                            and g.pending.data.get("purpose") == "malfunction"),
            "submit-one": asked("submit", lambda g, seat: g.pending.data.get("most") == 1),
            "in-out": asked("participation"),
            "veil-in-out": asked("participation"),
            "veil": asked("submit"),
            "vote": asked("vote"),
            "veil-vote": asked("vote"),
            "vote-cast": None,
            "over": None,
        })
        await play(browser, out, ["shadow_corporation"], 5, {
            "action-shadow": asked("action", lambda g, seat: len(g.pending.blocked.get(seat, []))
                                   + len(g.pending.options[seat]) > 20),
            "vote-shadow": asked("vote", lambda g, seat: bool(g.pending.data.get("kind"))),
        })
        await browser.close()


if __name__ == "__main__":
    asyncio.run(main())
