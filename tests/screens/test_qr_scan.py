"""The seat codes as drawn on the kiosk scan back to the seat URLs: the drawn cells are
turned into a grey-scale image and read by zbar, as a phone's camera would."""
from __future__ import annotations

import shutil
import subprocess

import pytest

from screens.capture import screen_cells
from screens.qr import QrCode

from .conftest import BASE, SIZE, kiosk, settle
from table_play import seated_room

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


@pytest.mark.skipif(shutil.which("zbarimg") is None,
                    reason="zbarimg (Debian package zbar-tools) is not installed")
async def test_each_seat_code_on_the_join_screen_scans_to_its_url(tmp_path):
    room = await seated_room(tmp_path, players=3, start=False)
    for seat in range(3):
        await room.rebind(seat)  # free again: every code is on the screen
    tokens = room.kiosk_view()["seat_tokens"]
    app = kiosk(room)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        codes = [qr for qr in app.query(QrCode) if qr.region.area]
        assert len(codes) == 3
        for qr, token in zip(codes, tokens):
            image = tmp_path / f"code-{token[:4]}.pgm"
            image.write_bytes(code_image(app, qr))
            scanned = subprocess.run(["zbarimg", "--raw", "-q", str(image)],
                                     capture_output=True, text=True, timeout=30)
            assert scanned.stdout.strip() == f"{BASE}/s/{token}"
