"""Seat key press -> kiosk repaint latency with 7 seats (target: p99 <= 30 ms).

A real Room on a real SQLite store, the kiosk headless at 120x36 under Textual's Pilot.
Each sample presses the deciding seat's key during a malfunction's participation (BLACK: IN)
or a vote (GREY: abstain). The clock starts as the key is handed to the app and stops when
Textual sends the first repaint whose cells show the change (the seat's token turning IN, or
one more "has chosen"); that repaint is also encoded to terminal bytes, as a real terminal
would get it. The time includes the command's durable SQLite commit (fsync) on the writer
thread, since the kiosk shows nothing before the table has stored it.
"""
from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from screens.app import KioskApp  # noqa: E402
from tests.screens.conftest import region_text  # noqa: E402
from tests.table_play import advance, call_votes, seated_room  # noqa: E402

SAMPLES = 300
BLACK_KEYS, RED_KEYS, GREY_KEYS = "1234567", "qwertyu", "asdfghj"


def live(app) -> str:
    """The live panel's words, wrapping undone."""
    return " ".join(region_text(app, "#live").replace("│", " ").split())


def pressable(view) -> bool:
    waiting = view["waiting"] or {}
    return waiting.get("decision") in ("participation", "vote")


async def measure(samples: int) -> list[float]:
    with tempfile.TemporaryDirectory() as tmp:
        room = await seated_room(Path(tmp), seed=3)
        app = KioskApp(room, serve=False, base_url="http://192.168.100.123:8080")
        latencies: list[float] = []
        async with app.run_test(size=(120, 36)) as pilot:
            done: dict = {}
            display = app._display

            def displayed(screen, renderable):
                display(screen, renderable)
                if renderable is None or "check" not in done or "at" in done:
                    return
                renderable.render_segments(app.console)  # what a terminal would be sent
                shown_at = time.perf_counter()  # reading the screen back is not the kiosk's
                if done["check"]():
                    done["at"] = shown_at

            app._display = displayed
            seed = 0
            while len(latencies) < samples:
                seed += 1
                try:
                    view = await advance(room, pressable, seed=seed, prefer=call_votes)
                except AssertionError:  # the game ended: deal another
                    room.table = None
                    room.lobby = dict(room.lobby, game_id=None)
                    await room.start()
                    continue
                await pilot.pause()
                waiting = view["waiting"]
                if waiting["decision"] == "participation":
                    seat = waiting["seats"][0]
                    going_in = ("in",) in room.table.state.pending.options[seat]
                    key = (BLACK_KEYS if going_in else RED_KEYS)[seat]
                    mark = f"{seat + 1} {view['seats'][seat]['name']} " \
                        f"[{'IN' if going_in else 'OUT'}]"
                    done.clear()
                    done["check"] = lambda: mark in live(app)
                else:
                    seat = next(s for s in waiting["voters"] if s not in waiting["chosen"])
                    key = GREY_KEYS[seat]
                    before = live(app).count("✓")
                    done.clear()
                    done["check"] = lambda: live(app).count("✓") > before \
                        or "abstained" in live(app)
                start = time.perf_counter()
                await pilot.press(key)
                for _ in range(200):
                    if "at" in done:
                        break
                    await asyncio.sleep(0.001)
                else:
                    raise RuntimeError(f"no repaint showed the press of {key!r}: "
                                       f"{live(app)} {room.public_view()['waiting']}")
                latencies.append((done["at"] - start) * 1000)
                await app.settle()
        await room.close()
    return latencies


def main() -> None:
    samples = int(sys.argv[1]) if len(sys.argv) > 1 else SAMPLES
    latencies = sorted(asyncio.run(measure(samples)))
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]
    print(f"kiosk key press -> repaint, 7 seats, {len(latencies)} presses: "
          f"p50 {statistics.median(latencies):.1f} ms, p99 {p99:.1f} ms, "
          f"max {latencies[-1]:.1f} ms (target p99 <= 30 ms)")


if __name__ == "__main__":
    main()
