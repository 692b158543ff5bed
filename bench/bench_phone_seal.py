"""The seal's cost on a phone: what a seat's page spends, in the page itself, to open the
sealed traffic (static/seal.js with the vendored noble code: pure JavaScript, since a page on
the Pi's plain-HTTP address has no crypto.subtle on a real phone).

A real Room behind the real web server on a loopback port; one seat's page in Debian's
Chromium, as a phone (the other seats' moves are made at the room, as their phones would);
the game is played move by move, each next move once the page shows the last one. The page's
own clock (performance.now, around each opening: base64url, ChaCha20-Poly1305, JSON) gives

  * the hello: the phone's share of the handshake (X25519 key and shared secret, HKDF, the
    proof checked), without the network: at the page's load (its code not yet warm), and
    said again on a warm page (a phone back from sleep, a Pi restarted);
  * ms per opened stream message (a whole seat view, padded to 1024-byte blocks), and the
    sealed size;
  * ms per opened answer to a request (the claim, the pledge, the reveal...);

first at this machine's speed, then with Chromium's CPU slowed down SLOW times (a phone
slower than this machine's cores: a budget phone's JavaScript runs some times slower).

    .venv/bin/python bench/bench_phone_seal.py [--quick] [--pi-class]

--quick: eight moves at each speed (what the test suite runs).
"""
from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "tests" / "web")]

from budget import parse  # noqa: E402

import companion  # noqa: E402
from companion.core.room import Room  # noqa: E402
from companion.darkmoon.errors import RulesError  # noqa: E402
from companion.tools.simulate import choice_for  # noqa: E402
from test_browser_kit import PHONE, served_with_browser  # noqa: E402

NAMES = ["Ana", "Ben", "Cai", "Dee", "Eli"]
SEED = 34
WATCHED = 0         # the seat whose page is measured
MOVES = 120         # per speed, or until the game is over
QUICK_MOVES = 8
SLOW = 4            # Chromium's CPU slowdown for the phone-speed run
GUARD = 30.0        # s: a page that never shows a move by then is a bug, not a figure

READ = """async () => {
  const { timings } = await import('/static/seal.js');
  return { hello: timings.hello.slice(), answer: timings.answer.slice(),
           message: timings.message.slice(), bytes: timings.bytes.slice() };
}"""


async def run(browser, base: str, room: Room, moves: int, slow: int) -> dict:
    """A fresh game, the watched seat's page, `moves` moves: the page's timings."""
    await room.new_game({"names": NAMES}, replace=room.table is not None and not room.table.over)
    tokens = [s["token"] for s in room.lobby["seats"]]
    for seat, token in enumerate(tokens):
        if seat != WATCHED:
            await room.claim_seat(token, f"bench-phone-{seat}")
    context = await browser.new_context(**PHONE)
    try:
        page = await context.new_page()
        page.set_default_timeout(GUARD * 1000)
        if slow > 1:
            cdp = await context.new_cdp_session(page)
            await cdp.send("Emulation.setCPUThrottlingRate", {"rate": slow})
        await page.goto(f"{base}/s?idle=3600000#{tokens[WATCHED]}")
        await page.wait_for_selector(".lobby")
        game = room.table.game_id if room.table else None
        await room.start()
        async with asyncio.timeout(GUARD):
            while room.table is None or room.table.game_id == game:
                await asyncio.sleep(0.01)
        rng = random.Random(SEED)
        made = 0
        async with asyncio.timeout(GUARD * max(1, moves)):
            while made < moves and not room.table.over:
                g = room.table.state
                seat = rng.choice(g.pending.seats)
                try:
                    await room.submit(seat, {**choice_for(g, seat, rng), "state_id": g.state_id})
                except RulesError:
                    continue
                made += 1
                await page.wait_for_selector(f'body[data-state="{room.table.state_id}"]',
                                             state="attached")
        # Said again on a warm page (a phone back from sleep, a Pi restarted): a new session.
        await page.evaluate("""async (token) => {
          const { openCode } = await import('/static/seal.js');
          for (let i = 0; i < 3; i++) await openCode(token).hello();
        }""", tokens[WATCHED])
        timings = await page.evaluate(READ)
    finally:
        await context.close()
    timings["moves"] = made
    return timings


def line(name: str, values: list[float]) -> str:
    if not values:
        return f"  {name}: none"
    values = sorted(values)
    return (f"  {name}: {statistics.mean(values):.2f} ms mean, {statistics.median(values):.2f} ms "
            f"median, {values[int(0.95 * (len(values) - 1))]:.2f} ms p95, "
            f"{values[-1]:.2f} ms most ({len(values)} opened)")


async def main() -> None:
    args = parse(argparse.ArgumentParser(description=__doc__.split("\n\n")[0]))
    print(f"code: {Path(companion.__file__).parents[1]}")
    moves = QUICK_MOVES if args.quick else MOVES
    results = []
    async with served_with_browser(SEED) as (room, served, browser):
        for slow in (1, SLOW):
            results.append((slow, await run(browser, served.base, room, moves, slow)))
    for slow, timings in results:
        speed = "this machine's CPU" if slow == 1 else f"CPU slowed {slow}x (a phone)"
        print(f"a seat's page, {speed}, {timings['moves']} moves watched:")
        print(line("hello at the page's load, the phone's share (X25519, HKDF, proof)",
                   timings["hello"][:1]))
        print(line("hello again on a warm page", timings["hello"][1:]))
        print(line("per opened stream message (a whole seat view)", timings["message"]))
        if timings["bytes"]:
            print(f"  stream messages sealed: {statistics.mean(timings['bytes']) / 1024:.1f} KiB "
                  f"mean, {max(timings['bytes']) / 1024:.1f} KiB most")
        print(line("per opened answer", timings["answer"]))


if __name__ == "__main__":
    asyncio.run(main())
