"""How the kiosk stops when nobody is left to quit it: systemd's SIGTERM, and a terminal that
went away. Part of the kiosk app (screens/app.py)."""
from __future__ import annotations

import logging
import os
import select
import signal
import sys
import threading

log = logging.getLogger(__name__)


class Stopping:
    """Mixed into the kiosk app: `heed_stopping(loop)` once mounted, `stop_watching()` when
    unmounted. Reads Textual's is_headless and calls its exit. (Not `watch_*`: Textual
    calls methods named so as watchers of reactive attributes.)"""

    STOP_GRACE = 5.0  # seconds a SIGTERM'd kiosk has to exit cleanly (systemd allows 15)
    TERMINAL_EVERY = 2.0  # seconds; a check is one poll() of the input
    _sigterm = False  # our handler is installed (only the main thread can install one)
    _sigterm_before = None

    _stopping_loop = None  # the kiosk's loop, for a SIGTERM heard on the main thread

    def heed_stopping(self, loop) -> None:
        try:  # Textual ignores SIGTERM; systemd stops the kiosk with it. A plain handler,
            # not the loop's: it runs even while the loop is stuck on a terminal nobody reads.
            self._stopping_loop = loop  # never App._loop: Textual keeps its own there
            self._sigterm_before = signal.signal(signal.SIGTERM, self._terminated)
            self._sigterm = True
        except (NotImplementedError, RuntimeError, ValueError):
            pass  # not the main thread: whoever runs us handles signals
        if not self.is_headless:
            self.set_interval(self.TERMINAL_EVERY, self.check_terminal)

    def stop_watching(self) -> None:
        if self._sigterm:
            signal.signal(signal.SIGTERM, self._sigterm_before or signal.SIG_DFL)

    def _terminated(self, _signum=None, _frame=None) -> None:
        """SIGTERM: exit cleanly; and if the exit cannot finish, end the process anyway.
        Textual's exit waits for its last writes to the terminal, which block for ever once
        nobody reads the terminal (a test runner interrupted, a stalled console): the kiosk
        would hold its port and ignore SIGTERM. Everything acknowledged is already on disk."""
        log.info("SIGTERM: the kiosk stops")
        if not self.is_headless:  # a terminal to block on; headless (tests) never blocks,
            # and a process that goes on after the kiosk (a test run) must not be ended
            watchdog = threading.Timer(self.STOP_GRACE, os._exit, (0,))
            watchdog.daemon = True
            watchdog.start()
        self._stopping_loop.call_soon_threadsafe(self.exit)

    def check_terminal(self) -> None:
        """Exit once the terminal is gone (a terminal emulator or test harness that closed
        its end of our pseudo-terminal without a hang-up signal): Textual's input thread
        would otherwise read end-of-file in a loop at full CPU for as long as we run."""
        if terminal_gone(sys.__stdin__.fileno()):
            log.warning("the terminal has gone away: the kiosk stops")
            self.exit()


def terminal_gone(fd: int) -> bool:
    """True when `fd` has hung up: poll() always reports POLLHUP, asked for or not. A
    console (tty1) never hangs up; a pseudo-terminal does when its other end is closed."""
    poller = select.poll()
    poller.register(fd, 0)
    return any(mask & select.POLLHUP for _fd, mask in poller.poll(0))
