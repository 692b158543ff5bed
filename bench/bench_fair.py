"""The cost of provably fair chance (companion/chance/fair.py) against the operating system's
randomness the Table used before:

  (a) a command as Table.submit runs it (rules.step), with SystemRandom and with the event's
      HMAC-SHA256 stream, on the same states and commands: the added cost per command
  (b) the deal (rules.start) with each
  (c) at game over: building the record (the whole game played again to list its draws) and
      checking it, as `darkmoon-companion verify` does
  (d) one die roll alone, with each

Run: .venv/bin/python bench/bench_fair.py [--games 40] [--quick] [--pi-class]
--quick: 3 games, no targets judged (what the test suite runs). --pi-class: on a Pi-4-class
CPU budget (bench/budget.py).
"""
from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from budget import parse  # noqa: E402

from companion.darkmoon import Setup, start  # noqa: E402
from companion.darkmoon.api import apply_event, step  # noqa: E402
from companion.chance.fair import Fair, draw_box  # noqa: E402
from companion.tools.simulate import helpful_choice  # noqa: E402
from companion.chance.verify import check, record  # noqa: E402

NAMES5 = tuple(f"Player {i + 1}" for i in range(5))
REPEATS = 5  # each command timed this many times with each source, best kept
BOX = draw_box()  # this run's box: every game below is one of its numbered games


def best_ms(fn, repeats: int = REPEATS) -> float:
    best = float("inf")
    for _ in range(repeats):
        began = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - began)
    return best * 1000


def bench_commands(games: int) -> dict:
    """Every command of `games` helpful-bot games, timed with both sources of chance."""
    system, fair_ms, draws, logs = [], [], 0, []
    for seed in range(games):
        rng = random.Random(seed)
        fair = Fair.draw(len(NAMES5), BOX, seed + 1)
        events = start(Setup(NAMES5), fair.stream(0))
        g = apply_event(None, events[0])
        while g.outcome is None:
            seat, command = helpful_choice(g, rng)
            position = len(events)
            system.append(best_ms(lambda: step(g, seat, command, random.SystemRandom())))
            fair_ms.append(best_ms(lambda: step(g, seat, command, fair.stream(position))))
            new, g = step(g, seat, command, fair.stream(position))
            draws += len(new[0]["chance"])
            events += new
        logs.append((fair, json.loads(json.dumps(events))))
    return {"commands": len(system), "draws": draws, "system": statistics.mean(system),
            "fair": statistics.mean(fair_ms), "system_p99": sorted(system)[len(system) * 99 // 100],
            "fair_p99": sorted(fair_ms)[len(fair_ms) * 99 // 100], "logs": logs}


def bench_draws(n: int) -> tuple[float, float, float]:
    """us per die roll: SystemRandom, a fair stream, and a fresh stream for each roll (the
    worst case: one roll in a command)."""
    faces = (-2, -2, -2, -1, 2, 4)
    system, fair = random.SystemRandom(), Fair.draw(5, BOX, 1)
    stream = fair.stream(1)
    a = best_ms(lambda: [system.choice(faces) for _ in range(n)]) * 1000 / n
    b = best_ms(lambda: [stream.choice(faces) for _ in range(n)]) * 1000 / n
    c = best_ms(lambda: [fair.stream(k).choice(faces) for k in range(n)]) * 1000 / n
    return a, b, c


def bench_deal(rounds: int) -> tuple[float, float]:
    setup = Setup(NAMES5)
    fair = Fair.draw(5, BOX, 1)
    return (best_ms(lambda: start(setup, random.SystemRandom()), rounds),
            best_ms(lambda: start(setup, fair.stream(0)), rounds))


def bench_record(logs: list) -> tuple[float, float, int]:
    """The longest game's record: built, then checked."""
    fair, events = max(logs, key=lambda log: len(log[1]))
    made = best_ms(lambda: record(fair.game, {"fair": fair.to_json()}, events), 3)
    rec = json.loads(json.dumps(record(fair.game, {"fair": fair.to_json()}, events)))
    checked = best_ms(lambda: check(rec), 3)
    verdict = check(rec)
    assert verdict.problems == [] and verdict.over
    return made, checked, len(events)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40, help="games for (a)")
    args = parse(parser)
    games = 3 if args.quick else args.games
    c = bench_commands(games)
    print(f"(a) per command, mean of {c['commands']} commands ({c['draws']} draws): "
          f"SystemRandom {c['system']:.3f} ms, fair stream {c['fair']:.3f} ms "
          f"(+{c['fair'] - c['system']:.3f} ms); p99 {c['system_p99']:.3f} ms vs "
          f"{c['fair_p99']:.3f} ms")
    system, fair = bench_deal(5 if args.quick else 50)
    print(f"(b) the deal: SystemRandom {system:.3f} ms, fair stream {fair:.3f} ms")
    made, checked, events = bench_record(c["logs"])
    print(f"(c) a {events}-event game at its end: record built in {made:.1f} ms, "
          f"checked in {checked:.1f} ms")
    a, b, fresh = bench_draws(1000 if args.quick else 20_000)
    print(f"(d) one die roll: SystemRandom {a:.2f} us/draw, fair stream {b:.2f} us/draw, "
          f"{fresh:.2f} us/draw on a fresh stream (one HMAC block each)")


if __name__ == "__main__":
    main()
