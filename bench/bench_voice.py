"""What the narrator costs a table: bots play a demo game at a table's pace with the narrator
on (each line rendered by espeak-ng into a WAV file, as --voice-out does) and then with it off.

Prints: a moment → its first sample (espeak-ng's first sound out of its pipe: when a
player starts to hear it, as aplay plays the pipe) and → its whole WAV written, p50 and p99, with how many were said and how many were
dropped for a newer moment; and the event loop's stalls (how late a 5 ms tick came, p99 and
the longest) with the voice on and off: speech must never hold up an acknowledgement or a
phone's update. Target: p99 of a moment's first sample within 200 ms, on pi-class.

Usage: .venv/bin/python bench/bench_voice.py [--quick] [--pi-class] [--pace S] [--players N]
"""
from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from budget import parse

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the product as it is in this checkout (bench/ is run as is)
from companion.cli import demo_game  # noqa: E402
from companion.core.room import Room  # noqa: E402
from companion.core.store import EventStore  # noqa: E402
from companion.voice.narrator import Narrator  # noqa: E402
from companion.voice.speech import Voice  # noqa: E402

TARGET_MS = 200
TICK = 0.005


def p99(values: list[float]) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[98] if len(values) > 1 \
        else values[0]


async def play(folder: Path, *, voice: bool, pace: float, players: int, moves: int) -> dict:
    store = EventStore(folder / "demo.db")
    room = Room(store, seed=7, bot_delay=pace, demo=True)
    room.attach(asyncio.get_running_loop())
    out = folder / "voice"
    out.mkdir()
    narrator = Narrator(room, Voice(str(out))) if voice else None
    if narrator:
        narrator.start()
    late: list[float] = []
    stop = asyncio.Event()

    async def ticker() -> None:
        while not stop.is_set():
            began = time.perf_counter()
            await asyncio.sleep(TICK)
            late.append((time.perf_counter() - began - TICK) * 1000)
    tick = asyncio.create_task(ticker())
    await demo_game(room, players)
    while not room.table.over and room.table.game_id is not None and \
            len(store.load(room.table.game_id)) < moves:
        await asyncio.sleep(0.05)
    if narrator:
        await narrator.voice.idle()
        dropped = narrator.voice.dropped
        await narrator.stop()
    stop.set()
    await tick
    await room.close()
    store.close()
    said = [json.loads(line) for line in (out / "voice.jsonl").read_text().splitlines()] \
        if voice else []
    return {"late": late, "said": said, "dropped": dropped if voice else 0}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pace", type=float, default=1.0,
                        help="seconds a bot waits before it moves (a table's pace)")
    parser.add_argument("--players", type=int, default=5)
    parser.add_argument("--moves", type=int, default=80, help="commands played, at most")
    args = parse(parser)
    if shutil.which("espeak-ng") is None:
        sys.exit("bench_voice needs espeak-ng (sudo apt install espeak-ng)")
    pace, moves = (0.05, 12) if args.quick else (args.pace, args.moves)
    with tempfile.TemporaryDirectory() as tmp:
        runs = {}
        for voice in (True, False):
            folder = Path(tmp) / ("on" if voice else "off")
            folder.mkdir()
            runs[voice] = asyncio.run(play(folder, voice=voice, pace=pace,
                                           players=args.players, moves=moves))
    said = runs[True]["said"]
    first = sorted(s["first_sample_ms"] - s["event_ms"] for s in said)
    ready = sorted(s["ready_ms"] - s["event_ms"] for s in said)
    print(f"a moment -> its first sample: n={len(first)}  p50 "
          f"{statistics.median(first):.0f} ms  p99 {p99(first):.0f} ms"
          f"{'' if args.quick else f'  (target {TARGET_MS} ms)'}"
          f"{'' if args.quick or p99(first) <= TARGET_MS else '  MISSED'}")
    print(f"a moment -> its whole sound written: p50 {statistics.median(ready):.0f} ms  "
          f"p99 {p99(ready):.0f} ms")
    print(f"lines said {sum(len(s['lines']) for s in said)} in {len(said)} utterances (a "
          f"moment's lines are one), dropped for a newer moment {runs[True]['dropped']}")
    for voice in (True, False):
        late = runs[voice]["late"]
        print(f"event loop stalls, voice {'on' if voice else 'off'}: p99 {p99(late):.1f} ms  "
              f"longest {max(late):.1f} ms  ({len(late)} ticks of {TICK * 1000:.0f} ms)")


if __name__ == "__main__":
    main()
