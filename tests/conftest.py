"""Fixtures shared by test folders: gpiozero's MockFactory as the pin factory for one test,
reset and closed after it, as gpiozero's own test suite does (so no pin stays claimed); and
an interrupted run (Ctrl-C, SIGTERM) that still stops every process the tests started."""
from __future__ import annotations

import os
import signal
import threading

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory


@pytest.fixture
def mock_factory():
    saved = Device.pin_factory
    Device.pin_factory = factory = MockFactory()
    try:
        yield factory
    finally:
        factory.reset()
        factory.close()
        Device.pin_factory = saved


# --- an interrupted run cleans up ---

def pytest_configure(config):
    """A SIGTERM to pytest (a CI timeout, `kill`) ends the run as a Ctrl-C does, so every
    `finally` and fixture teardown runs and stops the processes the tests started
    (tests/children.py). The xdist controller passes it on to its workers, which run the
    tests and hold those processes; Python's default would kill pytest and leave them."""
    if threading.current_thread() is not threading.main_thread() or \
            signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        return

    def interrupted(_signum, _frame):
        if config.pluginmanager.has_plugin("dsession"):  # the controller: workers are children
            for worker in _children_of(os.getpid()):
                try:
                    os.kill(worker, signal.SIGINT)
                except ProcessLookupError:
                    pass
        os.kill(os.getpid(), signal.SIGINT)  # through whatever handles Ctrl-C just now

    signal.signal(signal.SIGTERM, interrupted)


def _children_of(parent: int) -> list[int]:
    children = []
    for pid in os.listdir("/proc"):
        try:
            with open(f"/proc/{pid}/stat") as f:
                if int(f.read().rsplit(")", 1)[1].split()[1]) == parent:
                    children.append(int(pid))
        except (OSError, ValueError, IndexError):
            continue
    return children


def pytest_unconfigure(config):
    import children
    children.end_all()  # any process a test started and did not end (an interrupted run)
