"""Serial button box line (pty) -> the Table's accepted command, 7 seats (target: p99 <= 5 ms;
on the pi-class budget <= 10 ms, as for the GPIO buttons).

A real Room on a real SQLite file (the durable commit's fsync included), the SerialSource
reader thread as in production (pyserial on a real pty pair), and the simulated box
(hardware/simbox.py: the Pico's own firmware logic on virtual pins). Every seat has a GREY
button, so a press counts the moment its DN line arrives. The box's fingers move on their own
thread; the source hands each press to the loop with call_soon_threadsafe, where a task
takes it to the Room, as the kiosk does (bench_gpio.Hand). Bots play the game on to each
moment where a button means something: a malfunction's IN/OUT (the seat whose turn it is) or
a vote (a seat that has not voted yet).

The clock starts just before the box writes its DN line to the pty and stops when
room.press() returns the accepted command on the loop. Also printed: the part up to
room.press (pty, reader thread, Pads, the hop to the loop), the same presses handed
straight to room.press, to tell the serial line's share from the Table's (its fsync dominates
on a slow disk), and the floor under the serial part: a bare line written into a pty and
read by a thread waiting in select(), with no Python in between (the kernel hands pty data
over on a worker thread, which a busy machine can delay by milliseconds).

Usage: .venv/bin/python bench/bench_serial.py [--presses N] [--data-dir DIR] [--quick] [--pi-class]
--quick: 3 presses, no targets judged (what the test suite runs); --pi-class: on a Pi-4-class
CPU budget (bench/budget.py).
"""
from __future__ import annotations

import argparse
import asyncio
import os
import select
import sys
import tempfile
import threading
import time
import tty
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from budget import parse, target  # noqa: E402
from bench_gpio import (REST, Commits, Hand, button_for, figures, next_moment,  # noqa: E402
                        room_press_alone)

from hardware.serialbox import SerialSource  # noqa: E402
from hardware.simbox import SimBox  # noqa: E402
from tests.table_play import seated_room  # noqa: E402

SAMPLES = 300
QUICK_SAMPLES = 3
SEATS = 7
WAIT = 10.0  # s: a press not accepted by then is a failure, not a figure


async def measure(room, samples: int, seed: int) -> tuple[list[float], list[float], int]:
    loop = asyncio.get_running_loop()
    fingers = ThreadPoolExecutor(1, thread_name_prefix="fingers")
    sim = SimBox(seats=SEATS, grey=range(SEATS))
    hand = Hand(room, loop)
    connected = asyncio.Event()

    def on_notice(notice):
        if notice.kind == "connected":
            loop.call_soon_threadsafe(connected.set)
        else:
            print(f"unexpected notice: {notice}")

    # the config file's default settle, as the kiosk passes it
    source = SerialSource(sim.path, settle=0.02)
    source.start(hand.on_press, on_notice)
    latencies: list[float] = []
    handed: list[float] = []
    try:
        await asyncio.wait_for(connected.wait(), WAIT)
        while len(latencies) < samples:
            seed += 1
            view = await next_moment(room, seed)
            seat, colours = button_for(room, view["waiting"], True)
            colour = colours[0]

            def down():
                sim.press(seat, colour)
                return sim.last_write  # just before the DN line went into the pty

            hand.counted, hand.landed = 0, loop.create_future()
            start = await loop.run_in_executor(fingers, down)
            try:
                command, reached, done = await asyncio.wait_for(hand.landed, WAIT)
            except asyncio.TimeoutError:
                raise RuntimeError(f"no press counted for seat {seat} {colour}") from None
            if command is None:
                raise RuntimeError(f"seat {seat} {colour} was not accepted: {view['waiting']}")
            latencies.append((done - start) * 1000)
            handed.append((reached - start) * 1000)
            await loop.run_in_executor(fingers, sim.release, seat, colour)
            await asyncio.sleep(REST)
            if hand.counted != 1:
                raise RuntimeError(f"{hand.counted} presses counted for seat {seat} {colour}")
        dropped = source.dropped
    finally:
        source.close()
        sim.close()
        fingers.shutdown()
    if dropped:
        raise RuntimeError(f"{dropped} lines dropped on a clean line")
    return latencies, handed, seed


def pty_floor(samples: int) -> list[float]:
    """A line written into a pty's master -> a thread blocked in select() on the slave has it."""
    master, slave = os.openpty()
    tty.setraw(slave)
    arrived = threading.Event()
    when: list[float] = []

    def reader():
        while True:
            select.select([slave], [], [])
            data = os.read(slave, 64)
            when.append(time.perf_counter())
            arrived.set()
            if data == b"stop\n":
                return

    thread = threading.Thread(target=reader)
    thread.start()
    latencies = []
    try:
        for _ in range(samples):
            arrived.clear()
            start = time.perf_counter()
            os.write(master, b"DM1 DN 1 G 5 *69\n")
            if not arrived.wait(WAIT):
                raise RuntimeError("a line written into a pty never arrived")
            latencies.append((when[-1] - start) * 1000)
            time.sleep(REST)
    finally:
        os.write(master, b"stop\n")
        thread.join()
        os.close(master)
        os.close(slave)
    return latencies


async def run(samples: int, data_dir: str | None):
    with tempfile.TemporaryDirectory(dir=data_dir) as tmp:
        room = await seated_room(Path(tmp), seed=3)
        room.attach(asyncio.get_running_loop())
        try:
            latencies, handed, seed = await measure(room, samples, 0)
            (alone, _cpu, _commit), _ = await room_press_alone(room, Commits(room.store),
                                                               samples, seed)
        finally:
            await room.close()
            room.store.close()
    return latencies, handed, alone


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--presses", type=int, default=None,
                        help=f"default {SAMPLES}, {QUICK_SAMPLES} with --quick")
    parser.add_argument("--data-dir", default=None,
                        help="where the game's SQLite file goes (default: a temporary folder "
                             "on the disk; /dev/shm takes the disk's fsync out of the figures)")
    args = parse(parser)
    presses = args.presses or (QUICK_SAMPLES if args.quick else SAMPLES)
    latencies, handed, alone = asyncio.run(run(presses, args.data_dir))
    floor = pty_floor(presses)
    print(f"serial DN line (pty) -> accepted command, {SEATS} seats with GREY buttons, "
          f"{len(latencies)} presses: {figures(latencies)}"
          + ("" if args.quick else f" (target p99 <= {target(5, 10):g} ms)"))
    print(f"    of which line -> room.press on the loop: {figures(handed)}")
    print(f"for comparison, room.press alone on the loop (Table + fsync), {len(alone)} presses: "
          f"{figures(alone)}")
    print(f"the floor: a bare line through a pty to a waiting thread, {len(floor)} lines: "
          f"{figures(floor)}")
    print(f"load average at the end: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores "
          "(other work on the machine shows in the latencies)")


if __name__ == "__main__":
    main()
