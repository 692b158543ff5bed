"""QR codes drawn with half blocks: two modules per character cell, dark modules on a light
background with the 4-module quiet zone, because many phone scanners cannot read inverted
codes. qrcode's own terminal printer uses 256 colours that the Linux console cannot show."""
from __future__ import annotations

from functools import lru_cache

import qrcode
from qrcode.constants import ERROR_CORRECT_L
from rich.text import Text
from textual.widgets import Static

LIGHT = "bright_white"
DARK = "black"
QUIET_ZONE = 4
# (top module light, bottom module light) -> glyph drawn in LIGHT on DARK
GLYPHS = {(True, True): "█", (True, False): "▀", (False, True): "▄", (False, False): " "}


@lru_cache(maxsize=64)
def matrix(data: str) -> tuple[tuple[bool, ...], ...]:
    """The code's modules (True = dark), quiet zone included. Low error correction keeps
    a seat URL (22 characters of token after the address) at version 3, 37 x 19 cells: the
    smallest a 128-bit token allows, since version 2 holds 272 bits and the address takes
    over 140. Twelve fit at 240x67 but three at 120x36, where a table code stands in."""
    code = qrcode.QRCode(error_correction=ERROR_CORRECT_L, border=QUIET_ZONE)
    code.add_data(data)
    code.make()  # fits the version, then tries the eight masks and keeps the best
    return tuple(tuple(row) for row in code.get_matrix())


@lru_cache(maxsize=64)
def half_block_lines(data: str) -> tuple[str, ...]:
    rows = matrix(data)
    if len(rows) % 2:  # an odd last row pairs with more quiet zone
        rows = rows + (tuple(False for _ in rows[0]),)
    return tuple("".join(GLYPHS[(not top, not bottom)] for top, bottom in zip(upper, lower))
                 for upper, lower in zip(rows[::2], rows[1::2]))


@lru_cache(maxsize=64)
def size(data: str) -> tuple[int, int]:
    """(columns, lines) the code takes on screen, from its version alone: the join screen
    sizes its grid for codes it may never draw, and trying the eight masks is most of the
    cost of making a code (tens of milliseconds on a Pi)."""
    code = qrcode.QRCode(error_correction=ERROR_CORRECT_L, border=QUIET_ZONE)
    code.add_data(data)
    modules = code.best_fit() * 4 + 17 + 2 * QUIET_ZONE
    return modules, (modules + 1) // 2  # two modules a line, an odd last row padded


class QrCode(Static):
    """One code; set `data` to redraw (an address change redraws every code)."""

    DEFAULT_CSS = "QrCode { width: auto; height: auto; }"

    def __init__(self, data: str = "", **kwargs):
        super().__init__(**kwargs)
        self.data = ""
        if data:
            self.show(data)

    def show(self, data: str) -> None:
        if data == self.data:
            return
        self.data = data
        self.update(Text.styled("\n".join(half_block_lines(data)), f"{LIGHT} on {DARK}"))
