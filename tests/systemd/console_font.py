"""What a Linux console font (PSF 1 or 2, gzipped or not) can draw: its cell size and the
Unicode characters its table maps to glyphs. The console draws any other character as the
font's replacement glyph, which is how QR codes end up as rows of diamonds."""
from __future__ import annotations

import gzip
import struct
from dataclasses import dataclass
from pathlib import Path

PSF1_MAGIC = b"\x36\x04"
PSF1_512 = 0x01           # mode bits: 512 glyphs instead of 256
PSF1_HAS_TABLE = 0x02 | 0x04
PSF1_SEPARATOR, PSF1_SEQUENCE = 0xFFFF, 0xFFFE
PSF2_MAGIC = b"\x72\xb5\x4a\x86"
PSF2_HAS_TABLE = 0x01
PSF2_SEPARATOR, PSF2_SEQUENCE = 0xFF, 0xFE


@dataclass(frozen=True)
class ConsoleFont:
    height: int              # cell height in pixels
    width: int               # cell width in pixels
    glyphs: int              # 256 or 512 for the console
    characters: frozenset    # code points with a glyph of their own


def read_font(path: Path) -> ConsoleFont:
    data = path.read_bytes()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    if data[:2] == PSF1_MAGIC:
        mode, height = data[2], data[3]
        glyphs = 512 if mode & PSF1_512 else 256
        table = data[4 + glyphs * height:] if mode & PSF1_HAS_TABLE else b""
        values = struct.unpack(f"<{len(table) // 2}H", table[:len(table) // 2 * 2])
        return ConsoleFont(height, 8, glyphs, frozenset(_singles(values, PSF1_SEPARATOR,
                                                                 PSF1_SEQUENCE)))
    if data[:4] == PSF2_MAGIC:
        _version, header, flags, glyphs, size, height, width = struct.unpack_from("<7I", data, 4)
        chars: set[int] = set()
        if flags & PSF2_HAS_TABLE:
            for entry in data[header + glyphs * size:].split(bytes([PSF2_SEPARATOR])):
                single = entry.split(bytes([PSF2_SEQUENCE]))[0]
                chars.update(ord(c) for c in single.decode("utf-8", "ignore"))
        return ConsoleFont(height, width, glyphs, frozenset(chars))
    raise ValueError(f"{path} is not a PSF font")


def _singles(values, separator: int, sequence: int):
    """Code points mapped one to a glyph; a glyph's combining sequences come after the
    sequence marker and are skipped."""
    in_sequences = False
    for value in values:
        if value == separator:
            in_sequences = False
        elif value == sequence:
            in_sequences = True
        elif not in_sequences:
            yield value
