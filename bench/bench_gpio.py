"""GPIO seat button (mock pin) -> the Table's accepted command, 7 seats (target: p99 <= 5 ms
here, <= 10 ms on the pi-class budget).

A real Room on a real SQLite file (the durable commit's fsync included), the GpioSource with
its ticker thread running as in production, gpiozero's MockFactory for the pins. The pins
are driven from their own thread, as lgpio calls back on its own thread, which tells the
loop nothing else; the source hands each press to the loop with call_soon_threadsafe, where
a task takes it to the Room, as the kiosk does.
Bots play the game on to each moment where a button means something: a malfunction's IN/OUT
(the seat whose turn it is) or a vote (a seat that has not voted yet).

Two paths, since a seat's wiring decides when its press counts:
  * down: every seat has a GREY button, so a press counts as the pin goes low; the clock
    starts just before drive_low();
  * release: the shipped map (BLACK and RED only), so a press counts as the pin goes high;
    the clock starts just before drive_high() (the time the finger was down is not counted).
Each press comes REST after the game began waiting for it, as a player's does (they see the
game wait first), so the bots' moves that led there are not counted in it: on the pi-class
budget they used up the CPU quota and the press waited out the budget's stall.
The clock stops when room.press() returns the accepted command on the loop. The part before
room.press is printed too, and the same kind of press handed straight to room.press, to tell
the buttons' share from the Table's, and the store's commit, to tell the disk's.

Everything is measured twice: with the store in the system's temporary folder (this
machine's disk, whose fsync now and then stalls for 50-500 ms under other tenants' I/O), and
in RAM (/dev/shm), where the commit's fsync returns at once: the CPU's share alone, which is
what the pi-class budget models (a Pi's SD card has latencies of its own, which no budget
here reproduces).

Usage: .venv/bin/python bench/bench_gpio.py [presses per path] [--quick] [--pi-class]
--quick: 3 presses per path, no targets judged (what the test suite runs); --pi-class: on a
Pi-4-class CPU budget (bench/budget.py).
"""
from __future__ import annotations

import argparse
import asyncio
import functools
import os
import queue
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from budget import parse, target  # noqa: E402
from gpiozero.pins.mock import MockFactory  # noqa: E402

from hardware.config import GpioSeat, load  # noqa: E402
from hardware.gpio import GpioSource  # noqa: E402
from hardware.pad import BLACK, GREY, RED  # noqa: E402
from tests.table_play import advance, call_votes, seated_room  # noqa: E402

SAMPLES = 300
QUICK_SAMPLES = 3
ROOT = Path(__file__).resolve().parents[1]
SHIPPED = load(ROOT / "hardware" / "buttons.example.toml").gpio
# The shipped map plus a GREY button per seat on the seven pins it leaves free (fine on
# mock pins; a real box would move some of them off I2C and the console UART).
WITH_GREY = tuple(GpioSeat(s.black, s.red, grey=g, led=s.led)
                  for s, g in zip(SHIPPED, (0, 1, 2, 3, 11, 14, 15)))
REST = 0.05  # s between presses: longer than the 20 ms settle, so no press looks like a bounce
HANG_GUARD = 10  # s: a press that never lands is an error, not a figure
RAM = "/dev/shm"  # a tmpfs on Debian and Raspberry Pi OS


def pressable(view) -> bool:
    return (view["waiting"] or {}).get("decision") in ("participation", "vote")


async def next_moment(room, seed: int) -> dict:
    """The next view where a button press means something, dealing a new game if one ends."""
    while True:
        try:
            return await advance(room, pressable, seed=seed, prefer=call_votes)
        except AssertionError:  # the game ended: deal another
            room.table = None
            room.lobby = dict(room.lobby, game_id=None)
            await room.start()


def button_for(room, waiting: dict, grey_buttons: bool) -> tuple[int, list[str] | None]:
    """(seat, the buttons to hold down for a press the Table will accept, or None)."""
    if waiting["decision"] == "participation":
        seat = waiting["seats"][0]
        going_in = ("in",) in room.table.state.pending.options[seat]
        return seat, [BLACK if going_in else RED]
    seat = next(s for s in waiting["seats"] if s not in waiting.get("chosen", ()))
    if grey_buttons:
        return seat, [GREY]
    dice = room.table.state.seats[seat].dice
    if dice["strong"]:
        return seat, [BLACK]
    if dice["weak"]:
        return seat, [RED]
    return seat, None  # only the BLACK+RED chord (GREY) would do, and it counts going down


class Hand:
    """The box's press callback, as the kiosk wires it (screens/app.py): each press is
    handed to the loop with call_soon_threadsafe, where a task takes it to room.press. The
    task notes when it reached room.press and when the command came back."""

    def __init__(self, room, loop):
        self.room, self.loop = room, loop
        self.counted = 0
        self.landed: asyncio.Future | None = None  # (command, reached, returned)

    def on_press(self, press) -> None:  # on the pins' thread
        self.counted += 1
        self.loop.call_soon_threadsafe(self._take, press)

    def _take(self, press) -> None:
        task = self.loop.create_task(self._to_table(press))
        task.add_done_callback(functools.partial(_settle, self.landed))

    async def _to_table(self, press):
        reached = time.perf_counter()
        command = await self.room.press(press.seat, press.colour)
        return command, reached, time.perf_counter()


def _settle(landed: asyncio.Future, done: asyncio.Task) -> None:
    """The press's outcome to whoever waits for it: its figures, or what went wrong (a
    failed press is an error at once, not a hang until HANG_GUARD)."""
    if landed.done():
        return
    if done.exception() is not None:
        landed.set_exception(done.exception())
    else:
        landed.set_result(done.result())


class Commits:
    """The wall time of each of the store's appends (its SQLite transaction and the disk's
    fsync), timed on the writer thread: how much of a slow press was the disk's."""

    def __init__(self, store):
        self.times: list[float] = []
        append = store.append

        def timed(*args):
            start = time.perf_counter()
            try:
                return append(*args)
            finally:
                self.times.append((time.perf_counter() - start) * 1000)
        store.append = timed

    def last(self) -> float:
        return self.times[-1]


class Fingers:
    """The pins' own thread, standing in for lgpio's: it drives pins and notes when, and
    tells the loop nothing itself (lgpio's thread only runs the press callback), so the
    loop is woken once per press, as at the table."""

    def __init__(self):
        self._jobs: queue.SimpleQueue = queue.SimpleQueue()
        self.started: list[float] = []  # when each drive began, on the benchmark's clock
        self._thread = threading.Thread(target=self._run, name="pins", daemon=True)
        self._thread.start()

    def drive(self, pins, low: bool) -> None:
        self._jobs.put((pins, low))

    def _run(self) -> None:
        while (job := self._jobs.get()) is not None:
            pins, low = job
            self.started.append(time.perf_counter())
            for pin in pins:
                pin.drive_low() if low else pin.drive_high()

    def close(self) -> None:
        self._jobs.put(None)
        self._thread.join()


async def measure(room, commits: Commits, factory: MockFactory, seats, samples: int,
                  on_release: bool, seed: int) -> tuple[list[list[float]], int]:
    loop = asyncio.get_running_loop()
    hand = Hand(room, loop)
    source = GpioSource(seats, pin_factory=factory)  # ticker thread on, real clock
    source.start(hand.on_press, lambda notice: print(f"unexpected notice: {notice}"))
    fingers = Fingers()
    latencies: list[float] = []
    handed: list[float] = []  # the part before room.press: pins, Pads, the hop to the loop
    cpu: list[float] = []  # every thread's, from the finger to the command's return
    commit: list[float] = []  # the press's own append
    try:
        while len(latencies) < samples:
            seed += 1
            view = await next_moment(room, seed)
            seat, colours = button_for(room, view["waiting"], not on_release)
            if colours is None:
                await room.submit(seat, {"decision": "vote", "option": ["abstain"]})
                continue
            pins = [factory.pin(getattr(seats[seat], colour)) for colour in colours]
            await asyncio.sleep(REST)  # the player sees the game wait, then presses
            hand.counted, hand.landed = 0, loop.create_future()
            if on_release:
                fingers.drive(pins, low=True)
                await asyncio.sleep(REST)  # the finger stays down a moment
            used = time.process_time()
            fingers.drive(pins, low=not on_release)
            command, reached, done = await asyncio.wait_for(hand.landed, HANG_GUARD)
            cpu.append((time.process_time() - used) * 1000)
            commit.append(commits.last())
            start = fingers.started[-1]
            if hand.counted != 1:
                raise RuntimeError(f"{hand.counted} presses counted for seat {seat} {colours}")
            if command is None:
                raise RuntimeError(f"seat {seat} {colours} was not accepted: {view['waiting']}")
            latencies.append((done - start) * 1000)
            handed.append((reached - start) * 1000)
            if not on_release:
                fingers.drive(pins, low=False)
            await asyncio.sleep(REST)
    finally:
        fingers.close()
        source.close()
    return [latencies, handed, cpu, commit], seed


async def room_press_alone(room, commits: Commits, samples: int,
                           seed: int) -> tuple[list[list[float]], int]:
    """The same kind of presses handed straight to room.press on the loop: the Table and its
    durable commit alone, to tell what a box (pins, serial line) adds. With the CPU time the
    process spent on each (every thread: the loop's and the writer's): what the pi-class
    budget turns into about five times as much wall time."""
    latencies, cpu, commit = [], [], []
    while len(latencies) < samples:
        seed += 1
        view = await next_moment(room, seed)
        seat, colours = button_for(room, view["waiting"], True)
        await asyncio.sleep(REST)
        start, used = time.perf_counter(), time.process_time()
        if await room.press(seat, colours[0]) is None:
            raise RuntimeError(f"seat {seat} {colours} was not accepted: {view['waiting']}")
        latencies.append((time.perf_counter() - start) * 1000)
        cpu.append((time.process_time() - used) * 1000)
        commit.append(commits.last())
        await asyncio.sleep(REST)
    return [latencies, cpu, commit], seed


async def run(samples: int, folder: str | None) -> dict[str, list[list[float]]]:
    with tempfile.TemporaryDirectory(dir=folder) as tmp:
        room = await seated_room(Path(tmp), seed=3)
        room.attach(asyncio.get_running_loop())
        commits = Commits(room.store)
        factory = MockFactory()
        try:
            down, seed = await measure(room, commits, factory, WITH_GREY, samples, False, 0)
            release, seed = await measure(room, commits, factory, SHIPPED, samples, True, seed)
            alone, _ = await room_press_alone(room, commits, samples, seed)
        finally:
            factory.close()
            await room.close()
            room.store.close()
    return {"down (seats with GREY)": down, "release (BLACK/RED only)": release,
            "alone": alone}


def figures(latencies: list[float]) -> str:
    latencies = sorted(latencies)
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]
    return (f"p50 {statistics.median(latencies):.2f} ms, p99 {p99:.2f} ms, "
            f"max {latencies[-1]:.2f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("presses", nargs="?", type=int, default=None,
                        help=f"presses per path (default {SAMPLES}, {QUICK_SAMPLES} with --quick)")
    args = parse(parser)
    samples = args.presses or (QUICK_SAMPLES if args.quick else SAMPLES)
    target_text = "" if args.quick else f" (target p99 <= {target(5, 10):g} ms)"
    places = [(None, "the system's temporary folder")]
    if os.path.isdir(RAM) and os.access(RAM, os.W_OK):
        places.append((RAM, "RAM: the CPU's share"))
    for folder, what in places:
        where = folder or tempfile.gettempdir()
        print(f"store in {where} ({filesystem(where)}), {what}:")
        report(asyncio.run(run(samples, folder)), target_text)


def report(results: dict[str, list[list[float]]], target_text: str) -> None:
    alone, alone_cpu, alone_commit = results.pop("alone")
    for path, (latencies, handed, cpu, commit) in results.items():
        print(f"  GPIO press (mock pin) -> accepted command, 7 seats, {path}, "
              f"{len(latencies)} presses: {figures(latencies)}{target_text}")
        print(f"      of which pin -> room.press on the loop: {figures(handed)}")
        print(f"      of which the store's commit (SQLite, fsync): {figures(commit)}")
        print(f"      CPU time per press, all threads: {figures(cpu)}")
    print(f"  for comparison, room.press alone on the loop (Table + fsync), {len(alone)} "
          f"presses: {figures(alone)}")
    print(f"      of which the store's commit: {figures(alone_commit)}")
    print(f"      CPU time per press, all threads: {figures(alone_cpu)}")


def filesystem(path: str) -> str:
    """The type of the filesystem that holds `path` (ext4, tmpfs...), from /proc/mounts."""
    path, best, kind = os.path.realpath(path), "", "unknown filesystem"
    try:
        mounts = Path("/proc/mounts").read_text().splitlines()
    except OSError:
        return kind
    for line in mounts:
        _, point, fs_type, *_ = line.split()
        if (path == point or path.startswith(point.rstrip("/") + "/")) and len(point) > len(best):
            best, kind = point, fs_type
    return kind


if __name__ == "__main__":
    main()
