"""The web server under a full table: 7 seats, each with its phone's event stream, and 20 board
pages watching, on loopback. The Room and the server run in a child process (as on the Pi,
without the kiosk), so the clients' memory and parsing do not count against it.

Phones play whole games by sending their seat's commands over HTTP, chosen from their own
screens (no bots). Each command is sent only once every stream has shown the previous one.

Prints:
  * command -> update: from a phone sending a command to each phone and each board viewer
    receiving the view that shows it; p50 / p99 / max   (target p99 <= 50 ms)
  * reveal spread: at each vote's last ballot, from the first phone to the last phone
    receiving the view with the revealed votes; p50 / p99 / max   (target p99 <= 20 ms)
  * the server process's resident memory, now and at its peak (target <= 120 MB)

Usage: .venv/bin/python bench/bench_web.py [--games N] [--seed S] [--data-dir DIR] [--quick]
                                            [--pi-class]
--quick: the first 12 commands of one game, no targets judged (what the test suite runs);
--pi-class: on a Pi-4-class CPU budget (bench/budget.py), server and clients alike.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import aiohttp
from budget import parse

ROOT = Path(__file__).resolve().parents[1]
PYTHON = sys.executable
NAMES = ["Ana", "Ben", "Cai", "Dee", "Eli", "Fay", "Gus"]
VIEWERS = 20
QUICK_COMMANDS = 12
WAIT = 10.0  # seconds: a stream that shows nothing for this long is a failure, not a figure
STATE_ID = re.compile(rb'"view":\{"state_id":(\d+)')

# The child: Room + web server on a free port, a game set up as the kiosk would have it; it
# prints the port and the codes the kiosk would show, then serves until stdin closes.
SERVER = """
import asyncio, json, sys
from companion.room import Room
from companion.store import EventStore
from companion.web.server import start_server

async def main():
    room = Room(EventStore(sys.argv[1]), seed=int(sys.argv[2]), bot_delay=0)
    room.attach(asyncio.get_running_loop())
    await room.new_game({"names": json.loads(sys.argv[3])})
    runner = await start_server(room, "127.0.0.1", 0)
    print(json.dumps({"port": runner.addresses[0][1], "host": room.host_token,
                      "seats": room.kiosk_view()["seat_tokens"]}), flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
    await runner.cleanup()
    await room.close()

asyncio.run(main())
"""


def cpu_seconds(pid: int, children: bool = False) -> float:
    """User + system CPU time the process has used (fields 14 and 15 of /proc/PID/stat), and
    with `children` that of the children it ran and waited for (fields 16 and 17)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = int(fields[11]) + int(fields[12])
    if children:
        ticks += int(fields[13]) + int(fields[14])
    return ticks / os.sysconf("SC_CLK_TCK")


def memory_mb(pid: int) -> tuple[float, float]:
    """(VmRSS, VmHWM): resident memory now and its peak, in MB."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        fields[key] = value
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024


class Stream:
    """One open event stream: when each state id first arrived, and (for a phone) the latest
    payload, which its player reads to choose."""

    def __init__(self, parse: bool):
        self.parse = parse
        self.arrived: dict[int, float] = {}
        self.raw_latest = b""
        self.newest = -1
        self.changed = asyncio.Event()

    async def read(self, session: aiohttp.ClientSession, url: str) -> None:
        async with session.get(url, timeout=aiohttp.ClientTimeout(total=None)) as response:
            assert response.status == 200, await response.text()
            async for line in response.content:
                if not line.startswith(b"data: "):
                    continue
                now = time.perf_counter()
                match = STATE_ID.search(line)
                if match is None:
                    continue  # the lobby, or a notice
                state_id = int(match.group(1))
                self.arrived.setdefault(state_id, now)
                if self.parse:
                    # parsed only when the player looks, so that parsing one phone's payload
                    # does not delay the clock of the streams read after it
                    self.raw_latest = line[6:]
                self.newest = max(self.newest, state_id)
                self.changed.set()

    async def reached(self, state_id: int) -> None:
        while self.newest < state_id:
            self.changed.clear()
            await asyncio.wait_for(self.changed.wait(), WAIT)


def choose(view: dict, rng: random.Random) -> list | None:
    """A player who answers their own screen: often calls a vote (votes are what the reveal
    spread needs), always goes IN on malfunctions, otherwise takes any legal option."""
    decision = view["you"]["decision"]
    if not decision or not decision["options"] or decision["chosen"] is not None:
        return None
    options = decision["options"]
    if decision["decision"] == "action" and rng.random() < 0.6:
        votes = [o for o in options if o[0] == "vote"]
        if votes:
            return rng.choice(votes)
    if decision["decision"] == "participation":
        return ["in"] if ["in"] in options else options[0]
    return rng.choice(options)


async def play_game(port: int, codes: dict, rng: random.Random, figures: dict,
                    most: int | None = None) -> int:
    """Play one game (or its first `most` commands); returns the commands sent."""
    base = f"http://127.0.0.1:{port}"
    connector = aiohttp.TCPConnector(limit=0)
    phones = [aiohttp.ClientSession(base, cookie_jar=aiohttp.CookieJar(unsafe=True))
              for _ in NAMES]
    host = aiohttp.ClientSession(base, cookie_jar=aiohttp.CookieJar(unsafe=True))
    board = aiohttp.ClientSession(base, connector=connector)
    tasks = []
    try:
        assert (await host.post(f"/api/host/{codes['host']}/claim")).status == 200
        for phone, token in zip(phones, codes["seats"]):
            assert (await phone.post(f"/api/seat/{token}/claim")).status == 200
        seats = [Stream(parse=True) for _ in NAMES]
        viewers = [Stream(parse=False) for _ in range(VIEWERS)]
        for seat, (phone, token) in enumerate(zip(phones, codes["seats"])):
            tasks.append(asyncio.create_task(seats[seat].read(phone,
                                                              f"/api/seat/{token}/events")))
        for viewer in viewers:
            tasks.append(asyncio.create_task(viewer.read(board, "/api/board/events")))
        await asyncio.sleep(0.5)  # every stream open before the deal
        response = await host.post(f"/api/host/{codes['host']}/start")
        state_id = (await response.json())["state_id"]
        commands = 0
        while True:
            for stream in seats + viewers:
                await stream.reached(state_id)
            views = [json.loads(s.raw_latest)["view"] for s in seats]
            if views[0]["outcome"] is not None or commands == most:
                return commands
            moves = [(seat, choose(view, rng)) for seat, view in enumerate(views)]
            moves = [(seat, option) for seat, option in moves if option is not None]
            seat, option = rng.choice(moves)
            waiting = views[seat]["waiting"]
            last_ballot = waiting["decision"] == "vote" and \
                len(waiting["voters"]) - len(waiting["chosen"]) == 1
            sent = time.perf_counter()
            response = await phones[seat].post(
                f"/api/seat/{codes['seats'][seat]}/command",
                json={"decision": views[seat]["you"]["decision"]["decision"],
                      "option": option, "state_id": state_id})
            figures["ack"].append(time.perf_counter() - sent)
            assert response.status == 200, await response.text()
            state_id = (await response.json())["state_id"]
            commands += 1
            for stream in seats + viewers:
                await stream.reached(state_id)
                key = "phone" if stream in seats else "viewer"
                figures[key].append(stream.arrived[state_id] - sent)
            if last_ballot:
                times = [s.arrived[state_id] for s in seats]
                figures["spread"].append(max(times) - min(times))
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for session in phones + [host, board]:
            await session.close()


def summary(name: str, seconds: list[float], target: float | None = None,
            judged: bool = True) -> str:
    ms = sorted(s * 1000 for s in seconds)
    if not ms:
        return f"{name}: no samples"
    p99 = statistics.quantiles(ms, n=100, method="inclusive")[98] if len(ms) > 1 else ms[0]
    line = (f"{name}: n={len(ms)}  p50 {statistics.median(ms):.1f} ms  p99 {p99:.1f} ms  "
            f"max {ms[-1]:.1f} ms")
    if target is not None and judged:
        line += f"  (target p99 <= {target:.0f} ms: {'met' if p99 <= target else 'MISSED'})"
    return line


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--data-dir", default=None,
                        help="where the games' SQLite files go (default: a temporary folder "
                             "on the disk; /dev/shm takes the disk's fsync out of the figures)")
    args = parse(parser)
    most = QUICK_COMMANDS if args.quick else None
    if args.quick:
        args.games = 1
    figures: dict[str, list[float]] = {"ack": [], "phone": [], "viewer": [], "spread": []}
    memory, commands, cpu = [], 0, 0.0
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory(dir=args.data_dir) as data:
        for game in range(args.games):
            child = subprocess.Popen(
                [PYTHON, "-c", SERVER, str(Path(data) / f"g{game}.db"), str(args.seed + game),
                 json.dumps(NAMES)], cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
            try:
                codes = json.loads(child.stdout.readline())
                began = cpu_seconds(child.pid)
                commands += asyncio.run(play_game(codes["port"], codes, rng, figures, most))
                cpu += cpu_seconds(child.pid) - began
                memory.append(memory_mb(child.pid))
            finally:
                child.stdin.close()
                try:
                    child.wait(10)
                except subprocess.TimeoutExpired:
                    child.kill()
                    child.wait()
    judged = not args.quick
    print(f"{args.games} games{' (cut short: --quick)' if args.quick else ''}, {len(NAMES)} seats (one phone stream each), {VIEWERS} board "
          f"viewers, {commands} commands sent by phones over HTTP, loopback")
    print(summary("command -> every phone's update", figures["phone"]))
    print(summary("command -> every viewer's update", figures["viewer"]))
    print(summary("command -> every update (phones and viewers)",
                  figures["phone"] + figures["viewer"], 50, judged))
    print(summary("command acknowledged (POST round trip, fsync included)", figures["ack"]))
    print(summary(f"vote reveal spread across the 7 phones ({len(figures['spread'])} votes)",
                  figures["spread"], 20, judged))
    print(f"server CPU time per command (its 27 updates included): "
          f"{cpu / commands * 1000:.1f} ms  (independent of other load on the machine)")
    print(f"load average at the end: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores "
          "(other work on the machine shows in the latencies)")
    rss = max(m[0] for m in memory)
    peak = max(m[1] for m in memory)
    print(f"server process resident memory: {rss:.1f} MB at the end of a game, peak "
          f"{peak:.1f} MB"
          + (f"  (target <= 120 MB: {'met' if peak <= 120 else 'MISSED'})" if judged else ""))


if __name__ == "__main__":
    main()
