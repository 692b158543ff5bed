"""Kiosk tests: a real Room on a real EventStore in tmp_path, its table host with the given
buttons (the keyboard by default), the kiosk driven by Textual's Pilot at the Pi screen's
size. serve=False: the web server has its own tests."""
from __future__ import annotations

import pytest

from companion.core.host import TableHost
from hardware.source import KeyboardSource
from screens.app import KioskApp
from screens.capture import screen_text

BASE = "http://192.168.100.123:8080"
SIZE = (120, 36)


def table_host(room, buttons=None) -> TableHost:
    """The room's host as the command makes it, serving no phones."""
    return TableHost(room, buttons=buttons or KeyboardSource(), serve=False)


def kiosk(room, buttons=None, **kwargs) -> KioskApp:
    return KioskApp(table_host(room, buttons), base_url=BASE, **kwargs)


async def settle(app, pilot) -> str:
    """Let presses in flight land and the kiosk redraw; returns the screen's text."""
    await app.settle()
    for _ in range(3):  # the room's news crosses from the writer thread, then a redraw
        await pilot.pause()
    return screen_text(app)


@pytest.fixture
def base_url() -> str:
    return BASE


def region_text(app, selector: str) -> str:
    """What is drawn inside one widget's region of the screen."""
    region = app.query_one(selector).region
    lines = screen_text(app).splitlines()[region.y:region.bottom]
    return "\n".join(line[region.x:region.right] for line in lines)
