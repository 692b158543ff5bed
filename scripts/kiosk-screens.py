#!/usr/bin/env python3
"""Pictures of the kiosk for the docs: the join screen, the board during a malfunction and
during a vote, and game over, each at the Pi console's 120x36 and a big screen's 240x67,
saved as SVG by Textual's own screenshot export into docs/screens/kiosk-<what>-<size>.svg
(the pictures the README shows). Two more moments are taken only when named, to look at
before a change to the board's layout: seven players as the game begins ("start"), and a
Shadow Corporation game of seven ("expansion").

    .venv/bin/python scripts/kiosk-screens.py [--out docs/screens] [--lang en] [what ...]

Seeded games played by the helpful bots, no web server, nothing written outside a temporary
folder and the output folder.
"""
from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from companion.core.room import Room  # noqa: E402
from companion.tools.simulate import choice_for  # noqa: E402
from companion.core.store import EventStore  # noqa: E402
from companion.core.host import TableHost  # noqa: E402
from hardware.source import KeyboardSource  # noqa: E402
from screens.app import KioskApp  # noqa: E402

NAMES = ["Ana", "Ben", "Cai", "Dee", "Eli", "Fay", "Gus"]
SIZES = [(120, 36), (240, 67)]
BASE = "http://192.168.100.123:8080"  # an address as a home network gives


def waiting_for(decision: str):
    return lambda view: (view["waiting"] or {}).get("decision") == decision


def calling_votes(seat, options):
    return next((o for o in options if o[0] == "vote"), None)


def started(view) -> bool:
    return True


MOMENTS = {  # what -> (players, seed, the moment, the option the bots prefer, variants)
    "join": (3, 7, None, None, ()),
    "start": (7, 7, started, None, ()),
    "malfunction": (5, 7, waiting_for("participation"), None, ()),
    "vote": (5, 7, waiting_for("vote"), calling_votes, ()),
    "expansion": (7, 5, waiting_for("participation"), None, ("shadow_corporation",)),
    "over": (5, 11, lambda view: view["outcome"] is not None, None, ()),
}
SHOWN = ("join", "malfunction", "vote", "over")  # the pictures the README shows


async def room_at(folder: Path, what: str, lang: str) -> Room:
    players, seed, until, prefer, variants = MOMENTS[what]
    room = Room(EventStore(str(folder / "games.db")), seed=seed, bot_delay=0)
    await room.new_game({"names": NAMES[:players], "variants": list(variants)}, lang=lang)
    if until is None:
        return room  # the join screen: every seat's code still up
    for token in room.kiosk_view()["seat_tokens"]:
        await room.claim_seat(token, f"phone-{token[:4]}")
    await room.start()
    rng = random.Random(1)
    for _ in range(3000):
        if until(room.public_view()):
            return room
        pending = room.table.state.pending
        seat = pending.seats[0]
        option = prefer(seat, pending.options[seat]) if prefer else None
        await room.submit(seat, {"decision": pending.kind, "option": list(option)} if option
                          else choice_for(room.table.state, seat, rng))
    raise SystemExit(f"{what}: the moment never came")


async def shoot(what: str, size: tuple[int, int], out: Path, lang: str) -> Path:
    with tempfile.TemporaryDirectory() as folder:
        room = await room_at(Path(folder), what, lang)
        app = KioskApp(TableHost(room, buttons=KeyboardSource(), serve=False), base_url=BASE)
        name = f"kiosk-{what}-{size[0]}x{size[1]}.svg"
        async with app.run_test(size=size) as pilot:
            await app.settle()
            for _ in range(4):  # the room's news, the redraw, the log drawn a frame later
                await pilot.pause()
            app.save_screenshot(filename=name, path=str(out))
        await room.close()
    return out / name


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "docs" / "screens"))
    parser.add_argument("--lang", default="en", choices=("en", "es"))
    parser.add_argument("what", nargs="*", help=f"the moments to picture, of {', '.join(MOMENTS)}"
                        f" (when none is named: {', '.join(SHOWN)})")
    args = parser.parse_args()
    unknown = [what for what in args.what if what not in MOMENTS]
    if unknown:
        parser.error(f"no such moment: {', '.join(unknown)}")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for what in args.what or SHOWN:
        for size in SIZES:
            print(await shoot(what, size, out, args.lang))
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
