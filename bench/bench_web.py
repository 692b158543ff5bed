"""The web server under a full table: 7 seats, each with its phone's event stream, and 20 board
pages watching, on loopback. The Room and the server run in a child process (the Pi; with
--kiosk the kiosk too), so the clients' memory and parsing do not count against it.

Phones play whole games by sending their seat's commands over HTTP, chosen from their own
screens (no bots). Each command is sent only once every stream has shown the previous one.
The phones are sealed sessions (companion/web/client.py, as a phone's page): every request,
answer and stream message is sealed, padded to whole blocks, and opened by the phone.

Prints:
  * command -> update: from a phone sending a command (sealing it included) to each phone
    receiving and opening the sealed view that shows it, and each board viewer receiving the
    plain one; p50 / p99 / max   (target p99 <= 50 ms)
  * reveal spread: at each vote's last ballot, from the first phone to the last phone
    receiving the view with the revealed votes; p50 / p99 / max   (target p99 <= 20 ms)
  * command acknowledged: the POST's round trip, its fsync included  (target p99 <= 40 ms)
  * the server process's resident memory, now and at its peak (target <= 120 MB)
  * with --kiosk (the whole Pi as it runs at the table): the kiosk drawn in the server's
    process, and each command's time from its arrival to the kiosk's repaint (reported, not
    judged: the phones are written first and the kiosk redraws after them, by design; the
    kiosk's 50 ms target is a seat button's press, bench_kiosk)

Usage: .venv/bin/python bench/bench_web.py [--games N] [--seed S] [--data-dir DIR] [--quick]
                                            [--kiosk] [--pace SECONDS] [--pi-class] [--flood]
--pace: a player's time to tap once every screen shows the last command (0.3 s with --kiosk:
the whole Pi as at a table; 0 without: the server alone, commands back to back);
--quick: the first 12 commands of one game, no targets judged (what the test suite runs);
--flood: a stranger's laptop on the Wi-Fi (another loopback address) replays the seats'
recorded hellos and forged ones on four connections all game long (off the budget, as the
phones are);
--pi-class: the server (and with --kiosk the kiosk: the Pi) on a Pi-4-class CPU budget
(bench/budget.py); the phones and viewers are other devices: they run on this machine's other
core, off the budget.
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
from budget import add_options, describe, pi_class_prefix

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the phones' client is the product's own (bench/ is run as is)
from companion.web.client import SealedPhone  # noqa: E402
from companion.web.sealing import KIND_STREAM, nonce, open_sealed, unb64url  # noqa: E402

PYTHON = sys.executable
NAMES = ["Ana", "Ben", "Cai", "Dee", "Eli", "Fay", "Gus"]
VIEWERS = 20
QUICK_COMMANDS = 12
DEAL_READING = 1.0  # seconds between the deal and the first command
# A player sees the last command on their phone, then taps: a human's reaction to what a
# screen shows takes a quarter of a second at the very least. The whole Pi (--kiosk) is
# measured at that pace, as at a table; commands sent back to back are the server's stress
# test, where the kiosk's repaint of one command delays the next.
TABLE_PACE = 0.3
WAIT = 10.0  # seconds: a stream that shows nothing for this long is a failure, not a figure
STATE_ID = re.compile(rb'"view":\{"state_id":(\d+)')

# The child: Room + web server on a free port, a game set up as the kiosk would have it; it
# prints the port and the codes the kiosk would show, then serves until stdin closes. With a
# third argument "kiosk" it is the whole Pi: the kiosk drawn (headless, 120x36) on the same
# loop, and it prints, as it ends, how long each change took to reach the kiosk's screen.
SERVER = """
import asyncio, json, statistics, sys, time
from companion.core.room import Room, PUBLIC
from companion.core.store import EventStore
from companion.web.server import start_server

async def serve(room, pacing=None):
    runner = await start_server(room, "127.0.0.1", 0, pacing=pacing)
    print(json.dumps({"port": runner.addresses[0][1], "host": room.host_token,
                      "seats": room.kiosk_view()["seat_tokens"]}), flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
    await runner.cleanup()

async def main():
    room = Room(EventStore(sys.argv[1]), seed=int(sys.argv[2]), bot_delay=0)
    room.attach(asyncio.get_running_loop())
    await room.new_game({"names": json.loads(sys.argv[3])})
    if sys.argv[4:] != ["kiosk"]:
        await serve(room)
    else:
        from companion.core.host import TableHost
        from hardware.source import KeyboardSource
        from screens.app import KioskApp
        from screens.capture import record_frames
        app = KioskApp(TableHost(room, buttons=KeyboardSource(), serve=False),
                       base_url="http://192.168.100.123:8080")
        # each change timed from its command's arrival (the phones send one at a time)
        began, changed, latencies = [], [], []
        submit = room.seat_submit
        async def timed(*args, **kwargs):
            began.append(time.perf_counter())
            return await submit(*args, **kwargs)
        room.seat_submit = timed
        def heard(_audience, _payload):
            if began:  # a phone's command (the host's deal is not timed)
                changed.append(began.pop())
        room.listen(PUBLIC, heard)
        async with app.run_test(size=(120, 36)):
            def sent(update):
                if update is not None and changed:
                    update.render_segments(app.console)  # the bytes a terminal is sent
                    now = time.perf_counter()
                    latencies.extend(now - t for t in changed)
                    changed.clear()
            record_frames(app, on_update=sent)
            await serve(room, app.host.pacing)  # the kiosk redraws after the phones
        ms = sorted(s * 1000 for s in latencies)
        print(json.dumps({"kiosk_ms": ms}), flush=True)
    await room.close()

asyncio.run(main())
"""


# A stranger's laptop on the Wi-Fi (--flood): replays the hellos it recorded and sends forged
# ones, on four connections from its own address, as fast as the Pi answers, until stdin
# closes; then prints how many it sent and what it was answered.
FLOODER = """
import asyncio, collections, json, sys, time
import aiohttp

async def main():
    base, bodies = sys.argv[1], json.loads(sys.argv[2])
    answers, began = collections.Counter(), time.monotonic()
    done = asyncio.Event()
    async def one():
        connector = aiohttp.TCPConnector(limit=1, local_addr=("127.0.0.2", 0))
        async with aiohttp.ClientSession(connector=connector) as http:
            i = 0
            while not done.is_set():
                async with http.post(base + "/api/hello", json=bodies[i % len(bodies)]) as r:
                    await r.read()
                    answers[r.status] += 1
                i += 1
    tasks = [asyncio.create_task(one()) for _ in range(4)]
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
    done.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    print(json.dumps({"answers": answers, "seconds": time.monotonic() - began}), flush=True)

asyncio.run(main())
"""


async def hellos_to_flood(base: str, tokens: list[str]) -> list[dict]:
    """What a recorder on the Wi-Fi holds: a genuine hello of every seat's (each opened a
    session when it was sent), and hellos forged for every seat's code id."""
    bodies = []
    async with aiohttp.ClientSession() as http:
        for token in tokens:
            phone = SealedPhone(http, base, token)
            body = phone.hello_body(await phone.fresh())
            async with http.post(base + "/api/hello", json=body) as response:
                assert response.status == 200
            forged = phone.hello_body(body["fresh"])
            bodies += [body, {**forged, "proof": body["proof"]}]
    return bodies


def cpu_seconds(pid: int, children: bool = False) -> float:
    """User + system CPU time the process has used (fields 14 and 15 of /proc/PID/stat), and
    with `children` that of the children it ran and waited for (fields 16 and 17)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = int(fields[11]) + int(fields[12])
    if children:
        ticks += int(fields[13]) + int(fields[14])
    return ticks / os.sysconf("SC_CLK_TCK")


def server_pid(pid: int) -> int:
    """The Python server itself: under pi-class the child is the script, which starts it."""
    for _ in range(100):
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        if not children:
            return pid
        pid = int(children[0])
    return pid


def memory_mb(pid: int) -> tuple[float, float]:
    """(VmRSS, VmHWM): resident memory now and its peak, in MB."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        fields[key] = value
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024


class Stream:
    """One open event stream: when each state id first arrived, and (for a phone) the latest
    message, which its player reads to choose. A phone's stream is sealed: each message is
    opened as it arrives (its arrival is timed once opened, as a phone's page can show it
    only then); a board viewer's is plain."""

    def __init__(self, phone: SealedPhone | None = None):
        self.phone = phone
        self.arrived: dict[int, float] = {}
        self.raw_latest = b""
        self.newest = -1
        self.changed = asyncio.Event()

    async def read(self, session: aiohttp.ClientSession, url: str) -> None:
        phone, params = self.phone, None
        if phone is not None:  # a ticket sealed for the seat's session
            n, ticket = phone.sealed_ticket()
            params, index, sid, key = {"t": ticket}, 0, phone.sid, phone.k_down
        async with session.get(url, params=params,
                               timeout=aiohttp.ClientTimeout(total=None)) as response:
            assert response.status == 200, await response.text()
            async for line in response.content:
                if not line.startswith(b"data: "):
                    continue
                if phone is not None:
                    line = open_sealed(key, nonce(KIND_STREAM, n, index), sid,
                                       unb64url(line[6:].strip().decode()))
                    index += 1
                now = time.perf_counter()
                match = STATE_ID.search(line)
                if match is None:
                    continue  # the lobby, or a notice
                state_id = int(match.group(1))
                self.arrived.setdefault(state_id, now)
                if phone is not None:
                    # parsed only when the player looks, so that parsing one phone's payload
                    # does not delay the clock of the streams read after it
                    self.raw_latest = line
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
                    most: int | None = None, pace: float = 0.0, flood: dict | None = None) -> int:
    """Play one game (or its first `most` commands); returns the commands sent. `flood`: a
    flood of hellos runs from the deal to the end, its answers counted in it."""
    base = f"http://127.0.0.1:{port}"
    flooder = None
    connector = aiohttp.TCPConnector(limit=0)
    http = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0))
    phones = [SealedPhone(http, base, token) for token in codes["seats"]]
    host = SealedPhone(http, base, codes["host"])
    board = aiohttp.ClientSession(base, connector=connector)
    tasks = []
    try:
        assert await host.ok("claim") == {"host": True}
        for seat, phone in enumerate(phones):
            assert await phone.ok("claim") == {"seat": seat}
        seats = [Stream(phone) for phone in phones]
        viewers = [Stream() for _ in range(VIEWERS)]
        for seat in seats:
            tasks.append(asyncio.create_task(seat.read(http, f"{base}/api/sealed/events")))
        for viewer in viewers:
            tasks.append(asyncio.create_task(viewer.read(board, "/api/board/events")))
        await asyncio.sleep(0.5)  # every stream open before the deal
        state_id = (await host.ok("start"))["state_id"]
        if flood is not None:
            flooder = subprocess.Popen(
                [PYTHON, "-c", FLOODER, base, json.dumps(await hellos_to_flood(
                    base, codes["seats"]))], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        # Players read the deal before anyone acts; the room readies the store's log for the
        # game meanwhile (EventStore.prepare_log), which no first command at a table waits for.
        await asyncio.sleep(DEAL_READING)
        commands = 0
        while True:
            for stream in seats + viewers:
                await stream.reached(state_id)
            views = [json.loads(s.raw_latest)["view"]["view"] for s in seats]
            if views[0]["outcome"] is not None or commands == most:
                return commands
            await asyncio.sleep(pace)  # the player reads the screen, then taps
            moves = [(seat, choose(view, rng)) for seat, view in enumerate(views)]
            moves = [(seat, option) for seat, option in moves if option is not None]
            seat, option = rng.choice(moves)
            waiting = views[seat]["waiting"]
            last_ballot = waiting["decision"] == "vote" and \
                len(waiting["voters"]) - len(waiting["chosen"]) == 1
            sent = time.perf_counter()
            answer = await phones[seat].call(
                "command", {"decision": views[seat]["you"]["decision"]["decision"],
                            "option": option, "state_id": state_id})
            figures["ack"].append(time.perf_counter() - sent)
            assert answer.status == 200, answer.data
            state_id = answer.data["state_id"]
            commands += 1
            for stream in seats + viewers:
                await stream.reached(state_id)
                key = "phone" if stream in seats else "viewer"
                figures[key].append(stream.arrived[state_id] - sent)
            if last_ballot:
                times = [s.arrived[state_id] for s in seats]
                figures["spread"].append(max(times) - min(times))
    finally:
        if flooder is not None:
            flooder.stdin.close()
            heard = json.loads(flooder.stdout.readline() or "{}")
            flooder.wait(10)
            for status, n in heard.get("answers", {}).items():
                flood[status] = flood.get(status, 0) + n
            flood["seconds"] = flood.get("seconds", 0.0) + heard.get("seconds", 0.0)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for session in (http, board):
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
    parser.add_argument("--kiosk", action="store_true",
                        help="the whole Pi: the kiosk drawn in the server's process too")
    parser.add_argument("--pace", type=float, default=None,
                        help="seconds a player takes to tap once their phone shows the last "
                             f"command (default {TABLE_PACE} with --kiosk, as at a table; "
                             "0 without: commands back to back, the server's stress test)")
    parser.add_argument("--flood", action="store_true",
                        help="a stranger's laptop replays and forges hellos on four "
                             "connections, from its own address, all game long")
    # --pi-class puts the server (the Pi) on the budget; the phones are other devices and
    # read their streams on the rest of this machine, on a core of their own.
    args = add_options(parser).parse_args()
    prefix = pi_class_prefix() if args.pi_class else []
    if args.pi_class:
        os.sched_setaffinity(0, set(range(os.cpu_count() - 1)) or {0})
        print("budget: server on pi-class (1 core at 20%); phones on this machine's other core",
              flush=True)
    else:
        print(describe(), flush=True)
    most = QUICK_COMMANDS if args.quick else None
    pace = args.pace if args.pace is not None else (TABLE_PACE if args.kiosk else 0.0)
    if args.quick:
        args.games = 1
    figures: dict[str, list[float]] = {"ack": [], "phone": [], "viewer": [], "spread": []}
    memory, commands, cpu, kiosk = [], 0, 0.0, []
    flood = {} if args.flood else None
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory(dir=args.data_dir) as data:
        for game in range(args.games):
            # -u, whatever the shell exports: with --kiosk the first line is printed inside
            # the kiosk's Textual app, whose print capture does not pass a flush on to the
            # pipe, so a buffered child kept it and this read waited for ever
            child = subprocess.Popen(
                [*prefix, PYTHON, "-u", "-c", SERVER, str(Path(data) / f"g{game}.db"),
                 str(args.seed + game), json.dumps(NAMES), *(["kiosk"] if args.kiosk else [])],
                cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
            try:
                codes = json.loads(child.stdout.readline())
                server = server_pid(child.pid)
                began = cpu_seconds(server)
                commands += asyncio.run(play_game(codes["port"], codes, rng, figures, most,
                                                  pace, flood))
                cpu += cpu_seconds(server) - began
                memory.append(memory_mb(server))
            finally:
                child.stdin.close()
                if args.kiosk:
                    kiosk += json.loads(child.stdout.readline())["kiosk_ms"]
                try:
                    child.wait(10)
                except subprocess.TimeoutExpired:
                    child.kill()
                    child.wait()
    judged = not args.quick
    print(f"{args.games} games{' (cut short: --quick)' if args.quick else ''}, {len(NAMES)} seats (one phone stream each), {VIEWERS} board "
          f"viewers, {commands} commands sent by phones over HTTP, loopback, "
          f"each {pace:g} s after the last one showed on every screen")
    if flood is not None:
        seconds = flood.pop("seconds", 0.0) or 1.0
        sent = sum(flood.values())
        print(f"hello flood from another address, all game long: {sent} hellos, "
              f"{sent / seconds:.0f} a second; answered "
              + ", ".join(f"{n} x {status}" for status, n in sorted(flood.items())))
    print(summary("command -> every phone's update", figures["phone"]))
    print(summary("command -> every viewer's update", figures["viewer"]))
    print(summary("command -> every update (phones and viewers)",
                  figures["phone"] + figures["viewer"], 50, judged))
    print(summary("command acknowledged (POST round trip, fsync included)", figures["ack"],
                  40, judged))
    if args.kiosk:
        print(summary("command -> kiosk repaint (same process as the server), after the "
                      "phones", [ms / 1000 for ms in kiosk]))
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
