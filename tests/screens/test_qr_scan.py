"""The seat codes as drawn on the kiosk scan back to the seat URLs: the drawn cells are
turned into a grey-scale image and read by zbar, as a phone's camera would."""
from __future__ import annotations

import shutil
import subprocess

import pytest

from companion.core.room import Room
from companion.core.store import EventStore
from screens.capture import screen_cells
from screens.qr import QrCode

from .conftest import BASE, SIZE, kiosk, settle
from table_play import NAMES, seated_room

SCALE = 4  # pixels per module
# The top and bottom module of a half-block cell, True where drawn in the light colour.
CELLS = {"█": (True, True), "▀": (True, False), "▄": (False, True), " ": (False, False)}


def code_image(app, qr: QrCode) -> bytes:
    """A PGM of what is drawn in the code's region, light where the light colour shows."""
    region = qr.region
    rows = screen_cells(app)[region.y:region.bottom]
    modules: list[list[bool]] = []
    for row in rows:
        top, bottom = [], []
        for char, fg, bg in row[region.x:region.right]:
            up, down = CELLS[char]
            light = fg == "bright_white"
            dark_bg = bg == "black"
            assert light and dark_bg, "a code must be light modules drawn on black"
            top.append(up)
            bottom.append(down)
        modules += [top, bottom]
    width, height = len(modules[0]) * SCALE, len(modules) * SCALE
    pixels = bytearray()
    for line in modules:
        row = b"".join((b"\xff" if light else b"\x00") * SCALE for light in line)
        pixels += row * SCALE
    return f"P5 {width} {height} 255\n".encode() + bytes(pixels)


def scan(app, qr: QrCode, tmp_path) -> str:
    """What zbar reads from the code as drawn on the screen."""
    image = tmp_path / f"code-{qr.region.x}-{qr.region.y}.pgm"
    image.write_bytes(code_image(app, qr))
    scanned = subprocess.run(["zbarimg", "--raw", "-q", str(image)],
                             capture_output=True, text=True, timeout=30)
    return scanned.stdout.strip()


def drawn(app) -> list[QrCode]:
    """The codes on the screen, in reading order (left to right, then the next row)."""
    codes = [qr for qr in app.query(QrCode) if qr.region.area]
    return sorted(codes, key=lambda qr: (qr.region.y, qr.region.x))


needs_zbar = pytest.mark.skipif(shutil.which("zbarimg") is None,
                                reason="zbarimg (Debian package zbar-tools) is not installed")


@needs_zbar
async def test_each_seat_code_on_the_join_screen_scans_to_its_url(tmp_path):
    room = await seated_room(tmp_path, players=3, start=False)
    for seat in range(3):
        await room.rebind(seat)  # free again: every code is on the screen
    tokens = room.kiosk_view()["seat_tokens"]
    app = kiosk(room)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        codes = drawn(app)
        assert len(codes) == 3
        assert [scan(app, qr, tmp_path) for qr in codes] == [f"{BASE}/s#{t}" for t in tokens]


@needs_zbar
@pytest.mark.parametrize("players", [5, 7])
async def test_the_table_code_at_120x36_scans_to_the_page_listing_every_seat(
        tmp_path, players):
    """At 120x36 every seat joins from one code with nothing paged; the phone that
    opens it lists the seats (tests/web/test_browser_join.py)."""
    room = Room(EventStore(str(tmp_path / "games.db")), seed=5, bot_delay=0)
    await room.new_game({"names": NAMES[:players]})
    app = kiosk(room)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        codes = drawn(app)
        assert [scan(app, qr, tmp_path) for qr in codes] == \
            [f"{BASE}/j#{room.kiosk_view()['table_token']}"]


@needs_zbar
@pytest.mark.parametrize("players", [5, 7])
async def test_at_240x67_every_seat_code_scans_to_its_seat_in_seat_order(tmp_path, players):
    room = Room(EventStore(str(tmp_path / "games.db")), seed=5, bot_delay=0)
    await room.new_game({"names": NAMES[:players]})
    tokens = room.kiosk_view()["seat_tokens"]
    app = kiosk(room)
    async with app.run_test(size=(240, 67)) as pilot:
        await settle(app, pilot)
        codes = drawn(app)
        assert [scan(app, qr, tmp_path) for qr in codes] == [f"{BASE}/s#{t}" for t in tokens]
