"""Kiosk mode: no key leaves the kiosk; outside it Ctrl+Q quits; SIGTERM always ends it."""
from __future__ import annotations

import os
import signal
import threading

from .conftest import SIZE, kiosk, settle
from table_play import seated_room


async def test_in_kiosk_mode_ctrl_q_and_ctrl_c_do_not_quit(tmp_path):
    room = await seated_room(tmp_path, players=3)
    app = kiosk(room, kiosk=True)
    async with app.run_test(size=SIZE) as pilot:
        before = await settle(app, pilot)
        for key in ("ctrl+q", "ctrl+c", "ctrl+p", "escape"):
            await pilot.press(key)
        assert app.is_running and not app._exit
        assert await settle(app, pilot) == before  # no palette, no "how to quit" toast


async def test_outside_kiosk_mode_ctrl_q_quits(tmp_path):
    room = await seated_room(tmp_path, players=3)
    app = kiosk(room)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+q")
        await pilot.pause()
        assert app._exit


async def test_sigterm_ends_the_kiosk_cleanly(tmp_path):
    room = await seated_room(tmp_path, players=3)
    app = kiosk(room, kiosk=True)
    before = signal.getsignal(signal.SIGTERM)
    async with app.run_test(size=SIZE) as pilot:
        os.kill(os.getpid(), signal.SIGTERM)
        await pilot.pause()
        assert app._exit
    assert app.return_code in (0, None)
    # whoever ran the kiosk gets its own SIGTERM handling back, and goes on living: the
    # kiosk's watchdog (for a terminal nobody reads) once ended this test run 5 s later
    assert signal.getsignal(signal.SIGTERM) is before
    assert not [t for t in threading.enumerate() if isinstance(t, threading.Timer)]
