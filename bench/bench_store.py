"""Append latency of the event store: 2,000 commands of 3 small records each, synced to disk.

    .venv/bin/python bench/bench_store.py [--quick] [--pi-class]

--quick appends 50 commands (what the test suite runs); --pi-class runs it on a Pi-4-class
CPU budget (see bench/budget.py).
"""

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from budget import parse  # noqa: E402

from companion.core.store import EventStore  # noqa: E402

COMMANDS = 2_000
QUICK_COMMANDS = 50


def records(seq: int) -> list[dict]:
    return [
        {"type": "DieRolled", "seat": seq % 5, "faces": ["1", "2", "-"]},
        {"type": "FatigueChanged", "station": "Comms", "delta": -1},
        {"type": "TurnPassed", "to": (seq + 1) % 5},
    ]


def main() -> None:
    args = parse(argparse.ArgumentParser(description=__doc__.splitlines()[0]))
    commands = QUICK_COMMANDS if args.quick else COMMANDS
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.sqlite"
        store = EventStore(path)
        game = store.new_game({"players": 5, "seed": 1})
        store.prepare_log()  # as the room does once a game is dealt
        latencies_ms = []
        for seq in range(1, commands + 1):
            batch = records(seq)
            start = time.perf_counter()
            store.append(game, seq, batch)
            latencies_ms.append((time.perf_counter() - start) * 1000)
        wal = path.with_name(path.name + "-wal")
        size_open = path.stat().st_size + (wal.stat().st_size if wal.exists() else 0)
        store.close()  # the last close checkpoints the WAL into the main file
        size_closed = path.stat().st_size

    # inclusive: with few samples (--quick) the default method puts p99 above the max
    p99 = statistics.quantiles(latencies_ms, n=100, method="inclusive")[98]
    print(f"appends: {commands} commands x 3 records")
    print(f"append latency ms: p50 {statistics.median(latencies_ms):.3f}  p99 {p99:.3f}  max {max(latencies_ms):.3f}")
    print(f"file size: {size_open / 1024:.0f} KiB open (db + wal), {size_closed / 1024:.0f} KiB after close")


if __name__ == "__main__":
    main()
