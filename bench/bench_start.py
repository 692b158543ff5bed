"""Cold start and memory of the real product: `darkmoon-companion` in a pseudo-terminal.

Prints the time from spawning the process to (a) the start screen with the host's code on a
fresh data directory, and (b) the join screen with every seat's code when a game has been set
up; then the process's resident memory after a bot-played demo game has run for a while.
Targets (issue 3): start to join screen <= 2 s, resident memory <= 120 MB.

    .venv/bin/python bench/bench_start.py [--quick] [--pi-class]

--quick: one start of each kind and 1 s of the demo, no targets judged (what the test suite
runs); --pi-class: on a Pi-4-class CPU budget (bench/budget.py), the product included.
The project is byte-compiled first, as pip does when it installs the product on the Pi.
"""
import argparse
import asyncio
import compileall
import fcntl
import os
import pty
import select
import socket
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from budget import parse, target  # noqa: E402

from companion.room import Room  # noqa: E402
from companion.store import EventStore  # noqa: E402
from systemd.throwaway_root import stop as stop_draining  # noqa: E402

BIN = ROOT / ".venv" / "bin" / "darkmoon-companion"
RUNS = 5
DEMO_SECONDS = 60  # a minute of a 7-seat demo game at 20 moves a second


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def spawn(args: list[str]) -> tuple[subprocess.Popen, int]:
    master, slave = pty.openpty()
    os.set_blocking(master, False)
    env = dict(os.environ, TERM="linux", COLUMNS="120", LINES="36")
    proc = subprocess.Popen([str(BIN), *args], stdin=slave, stdout=slave, stderr=slave,
                            env=env, close_fds=True, start_new_session=True)
    os.close(slave)
    # 120x36, the smallest screen the kiosk is made for
    fcntl.ioctl(master, termios.TIOCSWINSZ, struct.pack("HHHH", 36, 120, 0, 0))
    return proc, master


def wait_for(master: int, needles: list[bytes], timeout: float = 20.0) -> float:
    """Seconds until every needle has been drawn."""
    began, seen, buffer = time.perf_counter(), set(), b""
    while time.perf_counter() - began < timeout:
        ready, _, _ = select.select([master], [], [], 0.05)
        if ready:
            try:
                buffer += os.read(master, 65536)
            except OSError:
                break
            for n in needles:
                if n in buffer:
                    seen.add(n)
            if len(seen) == len(needles):
                return time.perf_counter() - began
    raise RuntimeError(f"not drawn within {timeout} s: {set(needles) - seen}")


def stop(proc: subprocess.Popen, master: int) -> None:
    """SIGTERM, killed after 5 s. The pty is drained meanwhile: a busy demo fills it, and a
    kiosk blocked writing its last frame never gets to exit (which cost 5 s per demo)."""
    if stop_draining(proc, master, 5) is None:
        print("(it did not exit within 5 s of SIGTERM and was killed)")


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def compile_as_installed() -> None:
    """Byte-compile the project as the Pi's pip install does. A checkout holds bytecode only
    for what was imported since its last change, and under PYTHONDONTWRITEBYTECODE (set in
    some shells) every changed module is compiled again at every start: up to a third more
    CPU than a start on the Pi, where pip compiled everything once."""
    for package in ("companion", "screens", "hardware"):
        compileall.compile_dir(ROOT / package, quiet=1)


def timed_start(data: str, needles: list[bytes]) -> float:
    proc, master = spawn(["--data-dir", data, "--port", str(free_port()),
                          "--address", "192.168.1.23"])
    try:
        return wait_for(master, needles)
    finally:
        stop(proc, master)


def main() -> None:
    args = parse(argparse.ArgumentParser(description=__doc__.splitlines()[0]))
    runs, demo_seconds = (1, 1) if args.quick else (RUNS, DEMO_SECONDS)
    targets = not args.quick
    compile_as_installed()
    start_screen, join_screen = [], []
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as fresh:
            start_screen.append(timed_start(fresh, [b"192.168.1.23"]))
        with tempfile.TemporaryDirectory() as data:
            store = EventStore(Path(data) / "games.db")
            asyncio.run(Room(store).new_game({"names": ["Ana", "Ben", "Cai", "Dee", "Eli",
                                                        "Fay", "Gus"]}))
            store.close()
            join_screen.append(timed_start(data, [b"Gus", "▄▄▄▄▄".encode()]))
    limit = target(2.0, 2.5)  # the Pi-class figure on that budget, every run
    print(f"start -> start screen (host code), {runs} runs: "
          f"best {min(start_screen):.2f} s, worst {max(start_screen):.2f} s")
    print(f"start -> join screen (7 seats set up), {runs} runs: "
          f"best {min(join_screen):.2f} s, worst {max(join_screen):.2f} s"
          + (f"  (target <= {limit:g} s: {'met' if max(join_screen) <= limit else 'MISSED'})"
             if targets else ""))
    with tempfile.TemporaryDirectory() as data:
        proc, master = spawn(["demo", "--players", "7", "--pace", "0.05", "--seed", "4",
                              "--data-dir", data, "--port", str(free_port())])
        try:
            wait_for(master, [b"Gus"])
            peak = 0.0
            for _ in range(demo_seconds):
                time.sleep(1)
                select.select([master], [], [], 0)
                try:
                    while os.read(master, 65536):
                        pass
                except OSError:
                    pass
                peak = max(peak, rss_mb(proc.pid))
        finally:
            stop(proc, master)
    print(f"resident memory of the kiosk + web server during {demo_seconds} s of a 7-seat "
          f"demo: peak {peak:.1f} MB" + ("  (target <= 120 MB)" if targets else ""))


if __name__ == "__main__":
    main()
