"""What a hello costs the Pi: its own work for a phone's genuine hello (the proof checked, an
X25519 key drawn and agreed, the session's keys derived and its proof sealed), and for each
hello a stranger can send without a code (played again, forged, for an unknown code, from an
address told to wait), so the price of a flood is known. The web server's own handling of a
request (aiohttp, JSON) comes on top: bench_web --flood measures a flood's effect on a table.

Prints, per kind: the microseconds one hello takes, p50, p99 and mean over many. On the
pi-class budget (a share of a core) the mean is the one to read: it counts the stalls the
quota puts between calls, as a Pi's slower core would spread the same work.

Usage: .venv/bin/python bench/bench_hello.py [--quick] [--pi-class] [--rounds N]
"""
from __future__ import annotations

import argparse
import secrets
import statistics
import sys
import time
from pathlib import Path

from budget import parse

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the product as it is in this checkout (bench/ is run as is)
from companion.core.refusals import RoomError  # noqa: E402
from companion.web.client import SealedPhone  # noqa: E402
from companion.web.ratelimit import PerAddress, TooManyHellos  # noqa: E402
from companion.web.sealing import b64url, code_id  # noqa: E402
from companion.web.sessions import Sessions  # noqa: E402

SEATS = 7


def timed(work, rounds: int) -> list[float]:
    """Microseconds of each of `rounds` calls of work(i)."""
    out = []
    for i in range(rounds):
        began = time.perf_counter()
        work(i)
        out.append((time.perf_counter() - began) * 1e6)
    return out


def refused(call) -> None:
    try:
        call()
    except (RoomError, TooManyHellos):
        return
    raise AssertionError("a hello that proves nothing was taken")


def line(name: str, us: list[float]) -> str:
    us = sorted(us)
    p99 = statistics.quantiles(us, n=100, method="inclusive")[98] if len(us) > 1 else us[0]
    return (f"{name}: n={len(us)}  p50 {statistics.median(us):.0f} us  p99 {p99:.0f} us  "
            f"mean {statistics.fmean(us):.0f} us")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=2000)
    args = parse(parser)
    rounds = 50 if args.quick else args.rounds
    sessions = Sessions()
    tokens = [secrets.token_urlsafe(16) for _ in range(SEATS)] + [secrets.token_urlsafe(16)]
    codes = {code_id(t): (t, "seat") for t in tokens[:SEATS]}
    codes[code_id(tokens[-1])] = (tokens[-1], "host")
    phones = [SealedPhone(None, "http://pi", t) for t in tokens]

    def genuine(i: int) -> None:
        phone = phones[i % len(phones)]
        phone.accept_hello(sessions.hello(codes, {}, phone.hello_body(sessions.fresh.issue())))

    recorded = phones[0].hello_body(sessions.fresh.issue())
    sessions.hello(codes, {}, recorded)
    forged = {**phones[1].hello_body(recorded["fresh"]), "proof": b64url(secrets.token_bytes(16))}
    unknown = SealedPhone(None, "http://pi", secrets.token_urlsafe(16)).hello_body(
        recorded["fresh"])
    limiter = PerAddress(0.001, 40)  # emptied below, and not refilled while it is timed
    for _ in range(40):
        limiter.take("10.0.0.66")
    print(line("a phone's hello (proof checked, keys agreed, session made)",
               timed(genuine, rounds)))
    print(line("fresh value made (GET /api/hello)", timed(lambda i: sessions.fresh.issue(),
                                                          rounds)))
    for name, body in (("a recorded hello played again", recorded),
                       ("a hello forged for a live code", forged),
                       ("a hello for a code nobody showed", unknown)):
        print(line(f"refused: {name}",
                   timed(lambda i, b=body: refused(lambda: sessions.hello(codes, {}, b)),
                         rounds)))
    print(line("refused: an address told to wait (before the body is read)",
               timed(lambda i: refused(lambda: limiter.take("10.0.0.66")), rounds)))
    print(f"sessions held after {rounds} genuine hellos for {len(tokens)} codes: {len(sessions)}"
          f" (at most 4 a code)")


if __name__ == "__main__":
    main()
