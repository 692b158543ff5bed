"""Not collected by the suite (no test_ prefix): tests/test_interrupted_runs.py runs it in a
child pytest and interrupts it mid-test. It starts the kiosk as the kiosk tests do, says
where (the kiosk's process group, in DARKMOON_KIOSK_PIDFILE) and waits to be interrupted.

The kiosk's terminal outlives the test process here (the kiosk holds a copy of its master
end, as a terminal emulator or a leaked descriptor would keep it open), so nothing but the
test run's own clean-up ends it: the case where an interrupted run left a kiosk holding its
port."""
from __future__ import annotations

import contextlib
import os
import select
import socket
import sys
import tempfile
import time
from pathlib import Path

import children
from systemd.throwaway_root import stop

COMMAND = Path(sys.executable).with_name("darkmoon-companion")
START_GUARD = 60  # seconds: a guard against a hang, never a measure of speed


def until_serving(master: int, port: int) -> None:
    """Read the kiosk's terminal until its web server takes connections."""
    deadline = time.monotonic() + START_GUARD
    while time.monotonic() < deadline:
        if select.select([master], [], [], 0.05)[0]:
            try:
                os.read(master, 65536)
            except OSError:
                break
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
    raise TimeoutError(f"the kiosk did not serve on port {port}")


def write_pid(path: Path, pid: int) -> None:
    """Say where the kiosk is, all at once: written whole to a file of its own in the same
    folder, then put in place by a rename. The parent polls for the file, and a file written
    where it lies is there, empty or half written, before its pid is."""
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(f"{pid}\n")
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def read_pid(path: Path) -> int | None:
    """The pid in `path` once it is there whole (a line, newline and all), None before."""
    try:
        text = path.read_text()
    except FileNotFoundError:
        return None
    line = text.removesuffix("\n")
    if not text.endswith("\n") or not line.isdigit():
        return None
    return int(line)


def test_a_kiosk_waits_to_be_interrupted(tmp_path):
    import fcntl
    import pty
    import struct
    import termios
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 36, 120, 0, 0))
    os.set_blocking(master, False)
    proc = children.spawn(
        [str(COMMAND), "--data-dir", str(tmp_path), "--port", os.environ["DARKMOON_KIOSK_PORT"],
         "--listen", "127.0.0.1", "--address", "127.0.0.1", "demo", "--pace", "0"],
        stdin=slave, stdout=slave, stderr=slave, pass_fds=(master,),
        env={**os.environ, "TERM": "linux"})
    os.close(slave)
    try:
        until_serving(master, int(os.environ["DARKMOON_KIOSK_PORT"]))
        write_pid(Path(os.environ["DARKMOON_KIOSK_PIDFILE"]), proc.pid)
        time.sleep(600)  # nobody reads the terminal now; the interruption comes first
    finally:
        stop(proc, master, 15)
