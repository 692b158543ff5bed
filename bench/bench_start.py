"""Cold start and memory of the real product: `darkmoon-companion` in a pseudo-terminal.

Prints the time from spawning the process to (a) the start screen with the host's code on a
fresh data directory, and (b) the join screen with every seat's code when a game has been set
up: its first start, then restarts (a pulled plug, a reboot), each of which does all the work
of a start again (nothing a start works out is kept for the next: only Python's byte code,
compiled at install time); then the process's resident memory after a bot-played demo game
has run for a while. For comparison it also times a bare Textual app (one line of
text) to its first frame: the part of any start that is Textual's and Python's alone.
Targets: start to join screen <= 2 s, resident memory <= 120 MB; on the Pi-class
budget <= 2.5 s.

    .venv/bin/python bench/bench_start.py [--quick] [--pi-class]

--quick: one start of each kind and 1 s of the demo, no targets judged (what the test suite
runs); --pi-class: on a Pi-4-class CPU budget (bench/budget.py), the product included.
The product runs as the Pi's install runs it (`installed_like_the_pi`): byte-compiled, as
pip compiles what it installs, and without the finder of the checkout's editable install.
"""
import argparse
import asyncio
import compileall
import fcntl
import os
import pty
import random
import select
import socket
import struct
import subprocess
import sys
import sysconfig
import tempfile
import termios
import time
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from budget import parse, target  # noqa: E402

from companion.core.room import Room  # noqa: E402
from companion.core.store import EventStore  # noqa: E402
from systemd.throwaway_root import stop as stop_draining  # noqa: E402

# The entry point pip writes for [project.scripts]
ENTRY = "#!{python}\nimport sys\nfrom companion.cli import main\nsys.exit(main())\n"
RUNS = 5
DEMO_SECONDS = 60  # a minute of a 7-seat demo game at 20 moves a second


def free_port() -> int:
    """A port the kiosk can listen on (all interfaces, as it does), below the range the kernel
    hands out to outgoing connections: a port from that range was, one start in a few on a
    busy machine, taken by a connection before the kiosk bound it, and it refused to start."""
    while True:
        with socket.socket() as s:
            port = random.randrange(20000, 32000)
            try:
                s.bind(("0.0.0.0", port))
            except OSError:
                continue
            return port


def installed_like_the_pi(folder: str) -> tuple[str, str]:
    """A Python in `folder` that finds the product and its dependencies as the Pi's install
    (systemd/install.sh: a plain `pip install`) does, on sys.path: (its path, the product's
    command in it).

    The checkout's .venv holds an editable install (scripts/bootstrap.sh, for development):
    setuptools puts a finder in it that every start of that Python imports, with pathlib,
    urllib and importlib.util, before the product's first line: 15-25 ms of this machine's
    CPU (perf stat), 0.1-0.3 s of a start on the Pi-class budget, that the Pi never spends.
    The same folders on sys.path by a .pth file (whose own .pth files, the finder's among
    them, are not run) give the Pi's start."""
    venv.EnvBuilder(with_pip=False, symlinks=True).create(folder)
    python = Path(folder) / "bin" / "python"
    where = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
    site = subprocess.run([str(python), "-c", where], check=True, capture_output=True,
                          text=True).stdout.strip()
    Path(site, "darkmoon-companion.pth").write_text(
        f"{ROOT}\n{sysconfig.get_paths()['purelib']}\n")
    command = Path(folder) / "bin" / "darkmoon-companion"
    command.write_text(ENTRY.format(python=python))
    command.chmod(0o755)
    return str(python), str(command)


def spawn(args: list[str], program: list[str]) -> tuple[subprocess.Popen, int]:
    """`program` with `args`, in a 120x36 pseudo-terminal."""
    master, slave = pty.openpty()
    os.set_blocking(master, False)
    env = dict(os.environ, TERM="linux", COLUMNS="120", LINES="36")
    proc = subprocess.Popen([*program, *args], stdin=slave, stdout=slave, stderr=slave,
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


def drain(master: int) -> None:
    """Read whatever the kiosk drew, so that it never blocks writing to a full pty."""
    try:
        while os.read(master, 65536):
            pass
    except OSError:  # nothing more to read now (non-blocking), or the kiosk has gone
        pass


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


def timed_start(command: str, data: str, needles: list[bytes],
                port: int | None = None) -> float:
    """Seconds to draw the needles. Restarts pass the same `port`, as a Pi's kiosk restarts
    on its own (8080): the port is in every code's address."""
    proc, master = spawn(["--data-dir", data, "--port", str(port or free_port()),
                          "--address", "192.168.1.23"], [command])
    try:
        return wait_for(master, needles)
    finally:
        stop(proc, master)


BARE_APP = """
from textual.app import App
from textual.widgets import Static
class Bare(App):
    def compose(self):
        yield Static("Gus")
Bare(ansi_color=True).run()
"""


def timed_bare_start(python: str) -> float:
    proc, master = spawn([], [python, "-c", BARE_APP])
    try:
        return wait_for(master, [b"Gus"])
    finally:
        stop(proc, master)


def figures(times: list[float]) -> str:
    return (f"best {min(times):.2f} s, worst {max(times):.2f} s "
            f"({' '.join(f'{t:.2f}' for t in times)})")


def main() -> None:
    args = parse(argparse.ArgumentParser(description=__doc__.splitlines()[0]))
    runs, demo_seconds = (1, 1) if args.quick else (RUNS, DEMO_SECONDS)
    targets = not args.quick
    compile_as_installed()
    with tempfile.TemporaryDirectory() as folder:
        measure(*installed_like_the_pi(folder), runs, demo_seconds, targets)


def measure(python: str, command: str, runs: int, demo_seconds: int, targets: bool) -> None:
    start_screen, bare = [], []
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as fresh:  # a new install: nothing kept yet
            start_screen.append(timed_start(command, fresh, [b"192.168.1.23"]))
        bare.append(timed_bare_start(python))
    join = [b"Gus", "▄▄▄▄▄".encode()]
    with tempfile.TemporaryDirectory() as data:
        store = EventStore(Path(data) / "games.db")
        asyncio.run(Room(store).new_game({"names": ["Ana", "Ben", "Cai", "Dee", "Eli",
                                                    "Fay", "Gus"]}))
        store.close()
        port = free_port()
        first_join = timed_start(command, data, join, port=port)
        join_screen = [timed_start(command, data, join, port=port) for _ in range(runs)]
    limit = target(2.0, 2.5)  # the Pi-class figure on that budget, every run
    print(f"start -> start screen (host code, a new install), {runs} runs: "
          f"{figures(start_screen)}")
    print(f"start -> join screen (7 seats set up), its first start: {first_join:.2f} s")
    print(f"start -> join screen, restarts, {runs} runs: {figures(join_screen)}"
          + (f"  (target <= {limit:g} s: {'met' if max(join_screen) <= limit else 'MISSED'})"
             if targets else ""))
    print(f"for comparison, a bare Textual app's first frame, {runs} runs: {figures(bare)}")
    with tempfile.TemporaryDirectory() as data:
        proc, master = spawn(["demo", "--players", "7", "--pace", "0.05", "--seed", "4",
                              "--data-dir", data, "--port", str(free_port())],
                             [command])
        try:
            wait_for(master, [b"Gus"])
            peak = 0.0
            for _ in range(demo_seconds):
                time.sleep(1)
                drain(master)
                peak = max(peak, rss_mb(proc.pid))
        finally:
            stop(proc, master)
    print(f"resident memory of the kiosk + web server during {demo_seconds} s of a 7-seat "
          f"demo: peak {peak:.1f} MB" + ("  (target <= 120 MB)" if targets else ""))


if __name__ == "__main__":
    main()
