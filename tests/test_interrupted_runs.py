"""An interrupted test run stops what it started (interrupting ./run-tests left a
kiosk process holding its port and ignoring SIGTERM), and the kiosk itself stops on SIGTERM
even when nobody reads its terminal."""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

import children
from interrupted_kiosk import read_pid, until_serving
from systemd.throwaway_root import free_port

ROOT = Path(__file__).resolve().parents[1]
COMMAND = Path(sys.executable).with_name("darkmoon-companion")
GUARD = 90  # seconds: a guard against a hang, never a measure of speed


def port_free(port: int) -> bool:
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


@pytest.mark.parametrize("sig, workers", [(signal.SIGINT, "0"), (signal.SIGTERM, "0"),
                                          (signal.SIGTERM, "1")],
                         ids=["ctrl-c", "sigterm", "sigterm-xdist"])
def test_an_interrupted_run_leaves_no_kiosk_behind(tmp_path, sig, workers):
    port, pidfile = free_port(), tmp_path / "kiosk.pid"
    run = children.spawn(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", workers,
         str(ROOT / "tests" / "interrupted_kiosk.py")],
        cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        env={**os.environ, "DARKMOON_KIOSK_PORT": str(port),
             "DARKMOON_KIOSK_PIDFILE": str(pidfile)})
    kiosk = None
    try:
        deadline = time.monotonic() + GUARD
        # the pid once it is there whole: a file read between its creation and its write
        # was empty, and int("") ended this test before it interrupted anything
        while ((kiosk := read_pid(pidfile)) is None and run.poll() is None
               and time.monotonic() < deadline):
            time.sleep(0.05)
        assert kiosk is not None, run.communicate()[0].decode(errors="replace")[-3000:]
        assert children.group_alive(kiosk) and not port_free(port), "the kiosk is up"

        os.kill(run.pid, sig)  # Ctrl-C, or a CI timeout's SIGTERM, to pytest itself
        try:
            out, _ = run.communicate(timeout=GUARD)
        except subprocess.TimeoutExpired as stuck:
            pytest.fail(f"the interrupted run did not end: {where(run.pid)}; kiosk "
                        f"{where(kiosk)}; its output: "
                        f"{(stuck.output or b'').decode(errors='replace')[-3000:]}")
        assert children.wait_gone(kiosk, GUARD), \
            "a process of the kiosk's group outlived the interrupted run"
        assert port_free(port), "the kiosk's port is still held"
        assert run.returncode != 0, out.decode(errors="replace")  # interrupted, not passed
    finally:
        children.end(run, signal.SIGKILL, 0)
        if kiosk is not None and children.group_alive(kiosk):
            os.killpg(kiosk, signal.SIGKILL)


# A writer in a process of its own, as the interrupted run's is: it says where a kiosk is,
# again and again, with pids of two lengths (a half-written long one would read as a short one)
PID_WRITER = """
import sys
from pathlib import Path
from interrupted_kiosk import write_pid
path = Path(sys.argv[1])
for i in range(int(sys.argv[2])):
    write_pid(path, (7, 4194303)[i % 2])
"""


def test_the_kiosks_pid_is_never_read_empty_or_half_written(tmp_path):
    """The interrupted-run test polls for the pidfile while the child run writes it: a file
    written where it lies was read empty before its pid was written (int("") failed the test
    now and then). Read as fast as it is rewritten, it is always one whole pid, and the
    writer's files in the making are all gone."""
    pidfile = tmp_path / "kiosk.pid"
    path = os.pathsep.join(filter(None, [str(ROOT / "tests"), os.environ.get("PYTHONPATH")]))
    writer = children.spawn([sys.executable, "-c", PID_WRITER, str(pidfile), "2000"],
                            cwd=ROOT, env={**os.environ, "PYTHONPATH": path})
    seen: dict[str, int] = {}
    try:
        deadline = time.monotonic() + GUARD
        while writer.poll() is None and time.monotonic() < deadline:
            try:
                text = pidfile.read_text()
            except FileNotFoundError:  # not written yet: there is nothing to read, not a pid
                continue
            seen[text] = seen.get(text, 0) + 1
        assert writer.wait(GUARD) == 0
    finally:
        children.end(writer, signal.SIGKILL, 0)
    assert set(seen) <= {"7\n", "4194303\n"}, {text: n for text, n in seen.items()
                                                 if text not in ("7\n", "4194303\n")}
    assert sum(seen.values()) >= 1000, f"read only {seen} while it was written"
    assert [p.name for p in tmp_path.iterdir()] == ["kiosk.pid"]
    assert read_pid(pidfile) == 4194303  # its last write
    # and the reader takes nothing less than a whole line for a pid
    for partial in ("", "41943", "4194303", "\n", "41x\n"):
        pidfile.write_text(partial)
        assert read_pid(pidfile) is None, partial


def test_the_kiosk_stops_on_sigterm_even_when_nobody_reads_its_terminal(tmp_path):
    """Textual's exit waits for its last writes to the terminal; once nobody read it (a
    stopped test runner, a stalled console) the kiosk ignored SIGTERM for ever. Within
    systemd's TimeoutStopSec (15 s) it is gone, and its port free."""
    import fcntl
    import pty
    import struct
    import termios
    port = free_port()
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 36, 120, 0, 0))
    os.set_blocking(master, False)
    proc = children.spawn(
        [str(COMMAND), "--data-dir", str(tmp_path), "--port", str(port), "--listen",
         "127.0.0.1", "--address", "127.0.0.1", "demo", "--pace", "0"],
        stdin=slave, stdout=slave, stderr=slave, env={**os.environ, "TERM": "linux"})
    os.close(slave)
    try:
        until_serving(master, port)
        deadline = time.monotonic() + GUARD  # the demo draws until the terminal is full
        while not writing_blocked(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert writing_blocked(proc.pid), "the kiosk's terminal never filled up"
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            pytest.fail("the kiosk ignored SIGTERM: systemd would SIGKILL it")
        assert port_free(port)
    finally:
        children.end(proc, signal.SIGKILL, 0)
        os.close(master)


def where(pid: int) -> str:
    """What a process is doing: its state, its signals and each thread's wait."""
    try:
        status = Path(f"/proc/{pid}/status").read_text().splitlines()
        threads = [(tid, Path(f"/proc/{pid}/task/{tid}/wchan").read_text(),
                    Path(f"/proc/{pid}/task/{tid}/comm").read_text().strip())
                   for tid in os.listdir(f"/proc/{pid}/task")]
    except OSError as error:
        return f"{pid}: {error}"
    keep = ("State", "SigPnd", "ShdPnd", "SigBlk", "SigIgn", "SigCgt")
    return f"{pid}: {[line for line in status if line.startswith(keep)]} threads {threads}"


def writing_blocked(pid: int) -> bool:
    """Whether a thread of `pid` sits in write(2) (number 1 on x86-64, 64 on arm64) on a
    terminal nobody reads."""
    calls = {"1", "64"}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/syscall") as f:
                call = f.read().split(" ", 1)[0]
            with open(f"/proc/{pid}/task/{tid}/wchan") as f:
                wchan = f.read()
        except OSError:
            continue
        if call in calls and wchan in ("wait_woken", "n_tty_write"):
            return True
    return False
