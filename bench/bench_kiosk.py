"""Seat key press -> kiosk repaint latency with 7 seats (target on a Pi-class budget: p99 <= 50 ms).

A real Room on a real SQLite store, the kiosk headless at 120x36 under Textual's Pilot.
Each sample hands the app the deciding seat's key, as the terminal's driver does, during a
malfunction's participation (BLACK: IN) or a vote (GREY: abstain). The clock starts as the key is handed to the app and stops when
Textual sends the first repaint whose cells show the change (the seat's token turning IN, or
one more "has chosen"); that repaint is also encoded to terminal bytes, as a real terminal
would get it. The time includes the command's durable SQLite commit (fsync) on the writer
thread, since the kiosk shows nothing before the table has stored it.

    .venv/bin/python bench/bench_kiosk.py [presses] [--quick] [--pi-class]

--quick: 3 presses and at least one of each kind (IN/OUT, vote), no target judged (what the
test suite runs); --pi-class: on a Pi-4-class CPU budget (bench/budget.py).
"""
from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from budget import parse  # noqa: E402
from textual import events  # noqa: E402

from companion.core.host import TableHost  # noqa: E402
from hardware.source import KeyboardSource  # noqa: E402
from screens.app import KioskApp  # noqa: E402
from screens.capture import record_frames  # noqa: E402
from screens.pane import Pane  # noqa: E402
from screens.words import say  # noqa: E402
from tests.screens.conftest import region_text  # noqa: E402
from tests.table_play import advance, call_votes, seated_room  # noqa: E402

SAMPLES = 300
QUICK_SAMPLES = 3
BLACK_KEYS, RED_KEYS, GREY_KEYS = "1234567", "qwertyu", "asdfghj"


def live(app) -> str:
    """The live panel's words as the screen shows them, wrapping undone."""
    return " ".join(region_text(app, "#live").replace("│", " ").split())


def held(app) -> str:
    """The live panel's words as the pane holds them to draw: read at each repaint, as
    reading the whole screen back (a full render) would add its own time to the figure."""
    return app.query_one("#live", Pane).words()


def pressable(kinds):
    """A moment to press at: a malfunction's IN/OUT or a vote, of the kinds in `kinds`."""
    return lambda view: (view["waiting"] or {}).get("decision") in kinds


async def measure(samples: int) -> dict[str, list[float]]:
    """Press latencies in ms by kind of press; at least one of each kind, however few the
    samples, so that both ways of seeing a press are exercised."""
    with tempfile.TemporaryDirectory() as tmp:
        room = await seated_room(Path(tmp), seed=3)
        app = KioskApp(TableHost(room, buttons=KeyboardSource(), serve=False),
                       base_url="http://192.168.100.123:8080")
        latencies: dict[str, list[float]] = {"participation": [], "vote": []}
        async with app.run_test(size=(120, 36)) as pilot:
            await app.serving.wait()  # up, every screen made: the table starts playing
            done: dict = {}

            drawn = [0.0]  # when the kiosk last sent the terminal anything
            shown = asyncio.Event()  # the repaint showing the press was sent

            def sent(update):
                drawn[0] = time.perf_counter()
                if update is None or "check" not in done or "at" in done:
                    return
                update.render_segments(app.console)  # what a terminal would be sent
                shown_at = time.perf_counter()
                if done["check"](held(app)):
                    done["at"] = shown_at
                    shown.set()

            record_frames(app, on_update=sent)
            seed = 0
            while sum(map(len, latencies.values())) < samples \
                    or not all(latencies.values()):
                seed += 1
                try:
                    # once the samples are in, only the kind still missing (votes come late)
                    kinds = [k for k, done_ in latencies.items()
                             if not done_ or sum(map(len, latencies.values())) < samples]
                    view = await advance(room, pressable(kinds), seed=seed,
                                         prefer=call_votes)
                except AssertionError:  # the game ended: deal another
                    room.table = None
                    room.lobby = dict(room.lobby, game_id=None)
                    await room.start()
                    continue
                # A player presses once the screen has shown the last move, its log included
                # (the bots' moves just before would otherwise still be drawing), and a human
                # is slower than 50 ms: the kiosk is idle as it would be at the table.
                await pilot.pause()
                await pilot.pause()
                while time.perf_counter() - drawn[0] < 0.05:
                    await asyncio.sleep(0.01)
                waiting = view["waiting"]
                if waiting["decision"] == "participation":
                    seat = waiting["seats"][0]
                    going_in = ("in",) in room.table.state.pending.options[seat]
                    key = (BLACK_KEYS if going_in else RED_KEYS)[seat]
                    mark = f"{seat + 1} {view['seats'][seat]['name']} " \
                        f"[{'IN' if going_in else 'OUT'}]"
                    done.clear()
                    done["check"] = lambda words: mark in words
                else:
                    seat = next(s for s in waiting["voters"] if s not in waiting["chosen"])
                    key = GREY_KEYS[seat]
                    # the words the vote pane draws for a ballot cast, from the catalogue the
                    # kiosk reads them from: a literal here once rotted when "✓" became "√"
                    # (or, for the last ballot, the revealed votes' "abstained")
                    cast = say(room.lang, "vote.has_chosen")
                    revealed = say(room.lang, "vote.ballot_abstain")
                    before = held(app).count(cast)
                    done.clear()
                    done["check"] = lambda words: words.count(cast) > before \
                        or revealed in words
                # The key handed to the app as the terminal's driver hands it over (Pilot's
                # press also walks every widget to wait for it: work no kiosk does).
                event = events.Key(key, key)
                event.set_sender(app)
                shown.clear()
                start = time.perf_counter()
                app._driver.send_message(event)
                # waited for without polling: a poll every millisecond was CPU of its own
                # on the kiosk's budget, in the middle of the press it measured
                try:
                    await asyncio.wait_for(shown.wait(), 10)
                except asyncio.TimeoutError:
                    raise RuntimeError(f"no repaint showed the press of {key!r}: "
                                       f"{live(app)} {room.public_view()['waiting']}") from None
                latencies[waiting["decision"]].append((done["at"] - start) * 1000)
                # ... and what the pane held then is what the screen shows
                if not done["check"](live(app)):
                    raise RuntimeError(f"the screen does not show the press of {key!r}: "
                                       f"{live(app)}; the pane holds {held(app)}")
                await app.settle()
        await room.close()
    return latencies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("presses", nargs="?", type=int, default=None,
                        help=f"default {SAMPLES}, {QUICK_SAMPLES} with --quick")
    args = parse(parser)
    samples = args.presses or (QUICK_SAMPLES if args.quick else SAMPLES)
    by_kind = asyncio.run(measure(samples))
    latencies = sorted(sum(by_kind.values(), []))
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]
    print(f"kiosk key press -> repaint, 7 seats, {len(latencies)} presses "
          f"({len(by_kind['participation'])} IN/OUT, {len(by_kind['vote'])} votes): "
          f"p50 {statistics.median(latencies):.1f} ms, p99 {p99:.1f} ms, "
          f"max {latencies[-1]:.1f} ms" + ("" if args.quick else
                                             f" (target p99 <= 50 ms: "
                                             f"{'met' if p99 <= 50 else 'MISSED'})"))


if __name__ == "__main__":
    main()
