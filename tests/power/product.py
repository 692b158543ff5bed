"""The running product for the power-cut test: the installed `darkmoon-companion --kiosk`
(the kiosk and the phones' web server in one process, as the systemd unit runs it) in a
pseudo-terminal of 120x36 with TERM=linux, on a data directory and port that outlive it.

Textual draws on the terminal, so the pty is drained by a thread all the time: a full pty
would stall the kiosk's loop and with it the web server. The last screenful of bytes is
kept for failure messages.
"""
from __future__ import annotations

import asyncio
import fcntl
import json
import os
import platform
import pty
import re
import select
import shutil
import signal
import socket
import sqlite3
import struct
import subprocess
import sys
import termios
import threading
import time
from pathlib import Path

import aiohttp

import children

# The entry point pip installed next to the interpreter running the tests (.venv/bin).
BIN = Path(sys.executable).parent / "darkmoon-companion"
STORE = "games.db"          # the file cli.py keeps games in, inside --data-dir
SCREEN_TAIL = 32 * 1024     # bytes of terminal output kept for failure messages
START_TIMEOUT = 30.0        # seconds: a guard against a hang, never a measure of speed
# fsync and fdatasync in /proc/<pid>/task/<tid>/syscall, per machine (SQLite syncs its WAL
# with one of them at every commit); elsewhere the test cannot see a sync in progress.
SYNC_CALLS = {"x86_64": {"74", "75"}, "aarch64": {"82", "83"},
              "armv7l": {"118", "148"}, "armv6l": {"118", "148"}}.get(platform.machine(), set())
ANSI = re.compile(rb"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][0-9A-Za-z]|\x1b[=>]")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class ProductDied(AssertionError):
    """The product exited by itself, or never answered."""


class Product:
    """`command`: what follows the options (`--kiosk` as the unit runs it, or `demo`);
    `umask`: the one the product is started with (the test's own if None)."""

    def __init__(self, data_dir: Path, port: int, command: tuple[str, ...] = ("--kiosk",),
                 umask: int | None = None):
        self.data_dir = data_dir
        self.port = port
        self.command = command
        self.umask = umask
        self.proc: subprocess.Popen | None = None
        self._master: int | None = None
        self._drainer: threading.Thread | None = None
        self._screen = bytearray()
        self.starts = 0
        self.start_seconds: list[float] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def store_path(self) -> Path:
        return self.data_dir / STORE

    def screen(self) -> str:
        """The latest terminal output as text, escape sequences removed (for failures)."""
        return ANSI.sub(b"", bytes(self._screen)).decode(errors="replace")[-3000:]

    # --- life and death ---

    def _spawn(self) -> None:
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 36, 120, 0, 0))
        env = dict(os.environ, TERM="linux", COLUMNS="120", LINES="36")
        self.proc = children.spawn(
            [str(BIN), "--data-dir", str(self.data_dir), "--port", str(self.port),
             "--listen", "127.0.0.1", "--address", "127.0.0.1", *self.command],
            stdin=slave, stdout=slave, stderr=slave, env=env,
            umask=-1 if self.umask is None else self.umask,
            close_fds=True)  # its own process group: the kill takes all of it
        os.close(slave)
        self._master = master
        self._screen.clear()
        self._drainer = threading.Thread(target=self._drain, args=(master,), daemon=True)
        self._drainer.start()

    def _drain(self, master: int) -> None:
        while True:
            try:
                ready, _, _ = select.select([master], [], [], 0.5)
                chunk = os.read(master, 65536) if ready else b""
            except OSError:  # EIO: every end of the slave is closed, the product is gone
                return
            if ready and not chunk:
                return
            self._screen += chunk
            del self._screen[:-SCREEN_TAIL]

    async def start(self) -> None:
        """Spawn the product and return once its web server answers."""
        began = time.perf_counter()
        for attempt in range(3):
            self._spawn()
            if await self._answers():
                self.starts += 1
                self.start_seconds.append(time.perf_counter() - began)
                return
            # The port can be taken for a moment by another program's outgoing connection
            # while the product is down: the product refuses it in a sentence; try again.
            if self.proc.poll() is None:
                break
            self._reap()  # reads the screen to its end
            if "cannot serve the phones" not in self.screen():
                break
            await asyncio.sleep(0.2 * (attempt + 1))
        self.cut()
        raise ProductDied(f"the product did not come up; its screen:\n{self.screen()}")

    async def _answers(self) -> bool:
        deadline = time.monotonic() + START_TIMEOUT
        connector = aiohttp.TCPConnector(force_close=True)
        async with aiohttp.ClientSession(connector=connector) as probe:
            while time.monotonic() < deadline and self.proc.poll() is None:
                try:
                    async with probe.get(f"{self.url}/api/board",
                                         timeout=aiohttp.ClientTimeout(total=5)) as response:
                        if response.status == 200:
                            return True
                except (aiohttp.ClientError, asyncio.TimeoutError):
                    pass
                await asyncio.sleep(0.02)
        return False

    def cut(self) -> None:
        """The power cut: SIGKILL to the whole process group, no warning, no cleanup."""
        if self.proc is not None:
            children.end(self.proc, signal.SIGKILL, 0)
        self._reap()

    def stop(self) -> int:
        """A clean stop, as systemd does it (SIGTERM); returns the exit code."""
        self.proc.send_signal(signal.SIGTERM)
        try:
            code = self.proc.wait(15)
        except subprocess.TimeoutExpired:
            self.cut()
            raise ProductDied(f"the product ignored SIGTERM; its screen:\n{self.screen()}")
        self._reap()
        return code

    def _reap(self) -> None:
        if self.proc is not None:
            self.proc.wait()
        if self._drainer is not None:
            self._drainer.join(5)
            self._drainer = None
        if self._master is not None:
            os.close(self._master)
            self._master = None

    def syncing(self) -> bool:
        """Whether a thread of the product is inside fsync or fdatasync right now."""
        for tid in os.listdir(f"/proc/{self.proc.pid}/task"):
            try:
                with open(f"/proc/{self.proc.pid}/task/{tid}/syscall") as f:
                    if f.read().split(" ", 1)[0] in SYNC_CALLS:
                        return True
            except OSError:  # the thread ended, or the kernel does not say
                pass
        return False

    # --- what is on the disk ---

    def room_setting(self) -> dict:
        """The room as the running product last stored it (seat codes, claims, game id): the
        test reads the seat codes here, as a phone's camera reads them off the kiosk.
        A read-only connection: the product's own stays the only writer."""
        conn = sqlite3.connect(f"file:{self.store_path}?mode=ro", uri=True)
        try:
            row = conn.execute("SELECT value FROM settings WHERE key = 'room'").fetchone()
        finally:
            conn.close()
        return json.loads(row[0])

    def copy_store(self, into: Path) -> Path:
        """The store's files exactly as the dead product left them (the database, its WAL
        and shared-memory index), copied before a restart recovers them."""
        if into.exists():
            shutil.rmtree(into)
        into.mkdir(parents=True)
        for suffix in ("", "-wal", "-shm"):
            source = Path(f"{self.store_path}{suffix}")
            if source.exists():
                shutil.copyfile(source, into / f"{STORE}{suffix}")
        return into / STORE
