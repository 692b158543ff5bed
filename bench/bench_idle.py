"""The kiosk's CPU while nobody touches it: a game in play, waiting for a seat.

The real product (`darkmoon-companion`, kiosk and web server in one process) starts on a
120x36 TERM=linux pseudo-terminal, as the unit runs it on tty1, with a seven-seat game dealt
and in play; no --address, so its network check runs every few seconds as it does on the Pi.
Once the board is drawn and has settled, the process's CPU time (user + system, with any
child it ran and waited for) is read over 30 s of idling, the pty drained all the while so a
redraw never blocks. Printed as a share of one core of the budget it ran on, and of a
Raspberry Pi 4 core, which runs pure Python about a fifth as fast as one core of this machine
(the pi-class budget: 20% of a core). An idle kiosk should cost next to nothing: it is on all
evening beside the board.

    .venv/bin/python bench/bench_idle.py [--seconds 30] [--quick] [--pi-class]

--quick: 3 s of idling (what the test suite runs); the clock ticks in 10 ms steps, so the
figure is coarse. --pi-class: on a Pi-4-class CPU budget (bench/budget.py), the kiosk
included.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import select
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from bench_start import free_port, installed_like_the_pi, spawn, stop  # noqa: E402
from bench_web import cpu_seconds  # noqa: E402
from budget import parse  # noqa: E402

from screens.words import say  # noqa: E402
from tests.table_play import seated_room  # noqa: E402

PI_CORE = 0.2  # a Pi 4 core, as a share of one core of this machine (what pi-class grants)
SETTLE = 3.0   # s after the board is drawn: the first frames and the first network check


async def game_in_play(data: Path) -> None:
    """Seven seats claimed by phones and the game dealt, stored in data/games.db."""
    room = await seated_room(data, seed=3)
    await room.close()
    room.store.close()


def wait_for_board(master: int, timeout: float = 30.0) -> None:
    """Until the board is drawn (not the join screen): its shields heading, read from the
    catalogue the kiosk draws it from, as a literal here would rot; in any case, since the
    pane draws its headings in capitals."""
    heading, drawn = say("en", "board.shield").lower().encode(), b""
    until = time.monotonic() + timeout
    while heading not in drawn.lower():
        if time.monotonic() > until:
            raise RuntimeError(f"no board drawn within {timeout} s: {drawn[-400:]!r}")
        if select.select([master], [], [], 0.1)[0]:
            drawn += os.read(master, 65536)


def drain_for(master: int, seconds: float) -> None:
    """Read whatever the kiosk draws for `seconds`, so a full pty never blocks it."""
    until = time.monotonic() + seconds
    while (left := until - time.monotonic()) > 0:
        if select.select([master], [], [], min(left, 0.5))[0]:
            try:
                os.read(master, 65536)
            except OSError:
                return


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=None,
                        help="idle time measured (default 30, 3 with --quick)")
    args = parse(parser)
    seconds = args.seconds or (3.0 if args.quick else 30.0)
    with tempfile.TemporaryDirectory() as data, tempfile.TemporaryDirectory() as install:
        asyncio.run(game_in_play(Path(data)))
        _, command = installed_like_the_pi(install)
        proc, master = spawn(["--data-dir", data, "--port", str(free_port())], [command])
        try:
            wait_for_board(master)
            drain_for(master, SETTLE)
            began_cpu, began = cpu_seconds(proc.pid, children=True), time.monotonic()
            drain_for(master, seconds)
            used = cpu_seconds(proc.pid, children=True) - began_cpu
            wall = time.monotonic() - began
            alive = proc.poll() is None
        finally:
            stop(proc, master)
    if not alive:
        sys.exit("the kiosk exited while idling: no figure")
    share = used / wall
    print(f"kiosk idle, a 7-seat game in play, {wall:.1f} s: {used:.2f} s of CPU = "
          f"{share:.2%} of one core of this machine, about {share / PI_CORE:.1%} of a Pi 4 core "
          f"(CPU clock in {1000 / os.sysconf('SC_CLK_TCK'):.0f} ms ticks)")


if __name__ == "__main__":
    main()
