"""Cold start and memory of the real product: `darkmoon-companion` in a pseudo-terminal.

Prints the time from spawning the process to (a) the start screen with the host's code on a
fresh data directory, and (b) the join screen with every seat's code when a game has been set
up; then the process's resident memory after a bot-played demo game has run for a while.
Targets (issue 3): start to join screen <= 2 s, resident memory <= 120 MB.
"""
import asyncio
import fcntl
import os
import pty
import select
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from companion.room import Room  # noqa: E402
from companion.store import EventStore  # noqa: E402

BIN = ROOT / ".venv" / "bin" / "darkmoon-companion"
RUNS = 5


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
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    os.close(master)


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def timed_start(data: str, needles: list[bytes]) -> float:
    proc, master = spawn(["--data-dir", data, "--port", str(free_port()),
                          "--address", "192.168.1.23"])
    try:
        return wait_for(master, needles)
    finally:
        stop(proc, master)


def main() -> None:
    start_screen, join_screen = [], []
    for _ in range(RUNS):
        with tempfile.TemporaryDirectory() as fresh:
            start_screen.append(timed_start(fresh, [b"192.168.1.23"]))
        with tempfile.TemporaryDirectory() as data:
            store = EventStore(Path(data) / "games.db")
            asyncio.run(Room(store).new_game({"names": ["Ana", "Ben", "Cai", "Dee", "Eli",
                                                        "Fay", "Gus"]}))
            store.close()
            join_screen.append(timed_start(data, [b"Gus", "▄▄▄▄▄".encode()]))
    print(f"start -> start screen (host code), {RUNS} runs: "
          f"best {min(start_screen):.2f} s, worst {max(start_screen):.2f} s")
    print(f"start -> join screen (7 seats set up), {RUNS} runs: "
          f"best {min(join_screen):.2f} s, worst {max(join_screen):.2f} s  (target <= 2 s)")
    with tempfile.TemporaryDirectory() as data:
        proc, master = spawn(["demo", "--players", "7", "--pace", "0.05", "--seed", "4",
                              "--data-dir", data, "--port", str(free_port())])
        try:
            wait_for(master, [b"Gus"])
            peak = 0.0
            for _ in range(60):  # a minute of a 7-seat demo game at 20 moves a second
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
    print(f"resident memory of the kiosk + web server during a 7-seat demo: "
          f"peak {peak:.1f} MB  (target <= 120 MB)")


if __name__ == "__main__":
    main()
