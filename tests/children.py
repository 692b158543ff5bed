"""Processes the tests start, and how they end, even when the run is interrupted.

Each child starts in a session (and process group) of its own: a Ctrl-C at the terminal does
not reach it half-way through a test, and one signal to its group reaches everything it
started. It ends with its whole group: SIGTERM (or the signal asked for), then SIGKILL after
a short wait, in the test's `finally` or fixture teardown. If the test process itself dies
(killed by pytest-xdist at the end of an interrupted run), the kernel signals the child
(PR_SET_PDEATHSIG); and every group still alive when the run ends is killed then.

A SIGTERM to pytest becomes a Ctrl-C (tests/conftest.py), so teardowns run in that case too.
"""
from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import subprocess
import time

PR_SET_PDEATHSIG = 1
GRACE = 3.0  # seconds between the polite signal and SIGKILL
_alive: set[int] = set()  # process groups started and not yet ended


def _die_with_parent(sig: int, then=None):
    def child_setup():  # runs in the child between fork and exec
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, int(sig))
        # Ctrl-C as at a terminal: a run started in the background by a shell without job
        # control ignores SIGINT, and a child would inherit that and never stop on one
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        if then is not None:
            then()
    return child_setup


def spawn(argv, *, parent_death: int = signal.SIGKILL, **options) -> subprocess.Popen:
    """subprocess.Popen in a session of its own; `parent_death` is what it gets if this
    process dies first (SIGINT for a child that must clean up after itself)."""
    options["preexec_fn"] = _die_with_parent(parent_death, options.get("preexec_fn"))
    proc = subprocess.Popen(argv, start_new_session=True, **options)
    _alive.add(proc.pid)
    return proc


def end(proc: subprocess.Popen, first: int = signal.SIGTERM, grace: float = GRACE) -> None:
    """End the child's whole process group: `first`, then SIGKILL for whatever is left."""
    group = proc.pid
    with contextlib.suppress(ProcessLookupError):
        os.killpg(group, first)
    try:
        proc.wait(grace)
    except subprocess.TimeoutExpired:
        pass
    with contextlib.suppress(ProcessLookupError):
        os.killpg(group, signal.SIGKILL)  # the child, and any grandchild it left behind
    proc.wait()
    _alive.discard(group)


@contextlib.contextmanager
def running(argv, *, first: int = signal.SIGTERM, **options):
    """A child for the length of a `with` block, ended with its group however it is left."""
    proc = spawn(argv, **options)
    try:
        yield proc
    finally:
        end(proc, first)


def run(argv, *, timeout: float | None = None, input=None, check: bool = False,
        capture_output: bool = False, **options) -> subprocess.CompletedProcess:
    """subprocess.run, with the child in its own session and its group ended on any way
    out (a timeout, a Ctrl-C)."""
    if capture_output:
        options.setdefault("stdout", subprocess.PIPE)
        options.setdefault("stderr", subprocess.PIPE)
    if input is not None:
        options.setdefault("stdin", subprocess.PIPE)
    proc = spawn(argv, **options)
    try:
        out, err = proc.communicate(input, timeout=timeout)
    except BaseException:
        end(proc, signal.SIGKILL, 0)
        raise
    finally:
        with contextlib.suppress(ProcessLookupError):  # a grandchild left behind
            os.killpg(proc.pid, signal.SIGKILL)
        _alive.discard(proc.pid)
    done = subprocess.CompletedProcess(proc.args, proc.returncode, out, err)
    if check:
        done.check_returncode()
    return done


def end_all() -> None:
    """At the end of the run: every group a test started and did not end."""
    for group in list(_alive):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(group, signal.SIGKILL)
        _alive.discard(group)


def group_alive(group: int) -> bool:
    """Whether any process of the process group `group` still runs (zombies do not)."""
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == group and fields[0] != "Z":  # fields: state, ppid, pgrp
            return True
    return False


def wait_gone(group: int, timeout: float = 30.0) -> bool:
    """True once no process of the group remains; a guard against a hang, not a measure."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not group_alive(group):
            return True
        time.sleep(0.05)
    return False
