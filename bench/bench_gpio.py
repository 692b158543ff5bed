"""GPIO seat button (mock pin) -> the Table's accepted command, 7 seats (target: p99 <= 5 ms
here, <= 10 ms on the pi-class budget: issue 12).

A real Room on a real SQLite file (the durable commit's fsync included), the GpioSource with
its ticker thread running as in production, gpiozero's MockFactory for the pins. The pins
are driven from their own thread, as lgpio calls back on its own thread; the source hands
each press to the Room on the asyncio loop with run_coroutine_threadsafe, as the kiosk does.
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
the buttons' share from the Table's (its fsync dominates on a slow disk).

Usage: .venv/bin/python bench/bench_gpio.py [presses per path] [--quick] [--pi-class]
--quick: 3 presses per path, no targets judged (what the test suite runs); --pi-class: on a
Pi-4-class CPU budget (bench/budget.py).
"""
from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
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


def timed_hand_off(room, loop, accepted: list):
    """The box's press callback, as the kiosk wires it: each press goes to room.press on the
    loop; `accepted` gets a future of (command, reached room.press, returned) per press."""
    async def to_table(press):
        reached = time.perf_counter()
        command = await room.press(press.seat, press.colour)
        return command, reached, time.perf_counter()

    def on_press(press):
        accepted.append(asyncio.run_coroutine_threadsafe(to_table(press), loop))
    return on_press


async def measure(room, factory: MockFactory, seats, samples: int, on_release: bool,
                  seed: int) -> tuple[list[float], int]:
    loop = asyncio.get_running_loop()
    pins_thread = ThreadPoolExecutor(1, thread_name_prefix="pins")  # stands in for lgpio's
    accepted: list = []
    on_press = timed_hand_off(room, loop, accepted)
    source = GpioSource(seats, pin_factory=factory)  # ticker thread on, real clock
    source.start(on_press, lambda notice: print(f"unexpected notice: {notice}"))
    latencies: list[float] = []
    handed: list[float] = []  # the part before room.press: pins, Pads, the hop to the loop
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

            def down():
                start = time.perf_counter()
                for pin in pins:
                    pin.drive_low()
                return start

            def up():
                start = time.perf_counter()
                for pin in pins:
                    pin.drive_high()
                return start

            accepted.clear()
            start = await loop.run_in_executor(pins_thread, down)
            if on_release:
                await asyncio.sleep(REST)  # the finger stays down a moment
                start = await loop.run_in_executor(pins_thread, up)
            if len(accepted) != 1:
                raise RuntimeError(f"{len(accepted)} presses counted for seat {seat} {colours}")
            command, reached, done = await asyncio.wrap_future(accepted[0])
            if command is None:
                raise RuntimeError(f"seat {seat} {colours} was not accepted: {view['waiting']}")
            latencies.append((done - start) * 1000)
            handed.append((reached - start) * 1000)
            if not on_release:
                await loop.run_in_executor(pins_thread, up)
            await asyncio.sleep(REST)
    finally:
        source.close()
        pins_thread.shutdown()
    return latencies, handed, seed


async def room_press_alone(room, samples: int, seed: int) -> tuple[list[float], list[float], int]:
    """The same kind of presses handed straight to room.press on the loop: the Table and its
    durable commit alone, to tell what a box (pins, serial line) adds. With the CPU time the
    process spent on each (every thread: the loop's and the writer's): what the pi-class
    budget turns into about five times as much wall time."""
    latencies, cpu = [], []
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
        await asyncio.sleep(REST)
    return latencies, cpu, seed


async def run(samples: int) -> dict[str, list[list[float]]]:
    with tempfile.TemporaryDirectory() as tmp:
        room = await seated_room(Path(tmp), seed=3)
        room.attach(asyncio.get_running_loop())
        factory = MockFactory()
        try:
            *down, seed = await measure(room, factory, WITH_GREY, samples, False, 0)
            *release, seed = await measure(room, factory, SHIPPED, samples, True, seed)
            *alone, _ = await room_press_alone(room, samples, seed)
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
    results = asyncio.run(run(samples))
    alone, cpu = results.pop("alone")
    for path, (latencies, handed) in results.items():
        print(f"GPIO press (mock pin) -> accepted command, 7 seats, {path}, "
              f"{len(latencies)} presses: {figures(latencies)}{target_text}")
        print(f"    of which pin -> room.press on the loop: {figures(handed)}")
    print(f"for comparison, room.press alone on the loop (Table + fsync), {len(alone)} presses: "
          f"{figures(alone)}")
    print(f"    CPU time per press, all threads: {figures(cpu)}")


if __name__ == "__main__":
    main()
