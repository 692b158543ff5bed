"""Letters several rows tall, for what the game waits for, read from a chair across the table.

A small bitmap font of our own: each letter 3 to 5 dots wide and 5 dots tall, with a row of
dots above it for the Spanish accents and the tilde (an accented capital is a dot shorter, so
the accent stands apart from it). Dots are drawn with the half and full blocks the Linux
console font has (the same as the QR codes: █ ▀ ▄): at 120x36 a dot is one column and half a
row, so a line of letters takes 3 rows; on a big screen a dot is two or three columns and as
many half rows, 6 or 9 rows. A sentence with a character the font lacks, or too wide for the
screen, is not drawn big: the caller says it in ordinary letters instead.
"""
from __future__ import annotations

from functools import lru_cache

ROWS = 6  # dot rows: one for accents, five for the letter
GAP = 1   # blank dot columns between two letters
FULL, TOP, BOTTOM, NONE = "█", "▀", "▄", " "

# Five rows a letter, top first; "#" a dot. Accented capitals are made below.
_LETTERS = {
    "A": (".#.", "#.#", "###", "#.#", "#.#"),
    "B": ("##.", "#.#", "##.", "#.#", "##."),
    "C": (".##", "#..", "#..", "#..", ".##"),
    "D": ("##.", "#.#", "#.#", "#.#", "##."),
    "E": ("###", "#..", "##.", "#..", "###"),
    "F": ("###", "#..", "##.", "#..", "#.."),
    "G": (".##", "#..", "#.#", "#.#", ".##"),
    "H": ("#.#", "#.#", "###", "#.#", "#.#"),
    "I": ("###", ".#.", ".#.", ".#.", "###"),
    "J": ("..#", "..#", "..#", "#.#", ".#."),
    "K": ("#.#", "#.#", "##.", "#.#", "#.#"),
    "L": ("#..", "#..", "#..", "#..", "###"),
    "M": ("#...#", "##.##", "#.#.#", "#...#", "#...#"),
    "N": ("#..#", "##.#", "#.##", "#..#", "#..#"),
    "O": (".#.", "#.#", "#.#", "#.#", ".#."),
    "P": ("##.", "#.#", "##.", "#..", "#.."),
    "Q": (".##.", "#..#", "#..#", "#.#.", ".#.#"),
    "R": ("##.", "#.#", "##.", "#.#", "#.#"),
    "S": (".##", "#..", ".#.", "..#", "##."),
    "T": ("###", ".#.", ".#.", ".#.", ".#."),
    "U": ("#.#", "#.#", "#.#", "#.#", "###"),
    "V": ("#.#", "#.#", "#.#", "#.#", ".#."),
    "W": ("#...#", "#...#", "#.#.#", "##.##", "#...#"),
    "X": ("#.#", "#.#", ".#.", "#.#", "#.#"),
    "Y": ("#.#", "#.#", ".#.", ".#.", ".#."),
    "Z": ("###", "..#", ".#.", "#..", "###"),
    "0": ("###", "#.#", "#.#", "#.#", "###"),
    "1": (".#.", "##.", ".#.", ".#.", "###"),
    "2": ("##.", "..#", ".#.", "#..", "###"),
    "3": ("##.", "..#", ".#.", "..#", "##."),
    "4": ("#.#", "#.#", "###", "..#", "..#"),
    "5": ("###", "#..", "##.", "..#", "##."),
    "6": (".##", "#..", "##.", "#.#", ".#."),
    "7": ("###", "..#", ".#.", ".#.", ".#."),
    "8": (".#.", "#.#", ".#.", "#.#", ".#."),
    "9": (".#.", "#.#", ".##", "..#", "##."),
    ":": (".", "#", ".", "#", "."),
    ".": (".", ".", ".", ".", "#"),
    ",": ("..", "..", "..", ".#", "#."),
    "!": ("#", "#", "#", ".", "#"),
    "¡": ("#", ".", "#", "#", "#"),
    "?": ("##.", "..#", ".#.", "...", ".#."),
    "¿": (".#.", "...", ".#.", "#..", ".##"),
    "-": ("...", "...", "###", "...", "..."),
    "+": ("...", ".#.", "###", ".#.", "..."),
    "/": ("..#", "..#", ".#.", "#..", "#.."),
    "(": (".#", "#.", "#.", "#.", ".#"),
    ")": ("#.", ".#", ".#", ".#", "#."),
    "'": ("#", "#", ".", ".", "."),
    "&": (".#.", "#.#", ".#.", "#.#", ".##"),
}
# Accented capitals: the accent in the top row, a blank row, the letter four dots tall.
_SHORT = {
    "A": (".#.", "#.#", "###", "#.#"),
    "E": ("###", "##.", "#..", "###"),
    "I": ("###", ".#.", ".#.", "###"),
    "O": (".#.", "#.#", "#.#", ".#."),
    "U": ("#.#", "#.#", "#.#", "###"),
    "N": ("#..#", "##.#", "#.##", "#..#"),
}
_ACCENTS = {"Á": ("A", "..#"), "É": ("E", "..#"), "Í": ("I", "..#"), "Ó": ("O", "..#"),
            "Ú": ("U", "..#"), "Ü": ("U", "#.#"), "Ñ": ("N", "####")}


def _font() -> dict[str, tuple[str, ...]]:
    """Every character as six rows of dots, the accent row first."""
    font = {ch: ("." * len(rows[0]),) + rows for ch, rows in _LETTERS.items()}
    for ch, (base, accent) in _ACCENTS.items():
        short = _SHORT[base]
        font[ch] = (accent, "." * len(short[0])) + short
    font[" "] = ("..",) * ROWS
    return font


FONT = _font()


def can_draw(words: str) -> bool:
    return all(ch in FONT for ch in words)


def dot_width(words: str) -> int:
    """The dot columns `words` takes (letters and the gaps between them)."""
    return sum(len(FONT[ch][0]) for ch in words) + GAP * max(len(words) - 1, 0)


def width(words: str, scale: int) -> int:
    """The screen columns `words` takes drawn at `scale` (1: 3 rows, 2: 6, 3: 9)."""
    return dot_width(words) * scale


def dots(words: str) -> list[str]:
    """The dots of `words`, row by row ("#" a dot, "." none)."""
    rows = ["" for _ in range(ROWS)]
    for i, ch in enumerate(words):
        for r in range(ROWS):
            rows[r] += ("." * GAP if i else "") + FONT[ch][r]
    return rows


@lru_cache(maxsize=256)
def draw(words: str, scale: int = 1) -> tuple[str, ...]:
    """`words` in big letters, as lines of block characters: a dot is `scale` columns wide
    and `scale` half rows tall (square on a console's cells), so the letters take 3 lines
    at scale 1, 6 at scale 2 and 9 at scale 3."""
    rows = dots(words)
    lines = []
    for line in range(ROWS * scale // 2):
        upper, lower = rows[2 * line // scale], rows[(2 * line + 1) // scale]
        lines.append("".join(_half(top, bottom) * scale for top, bottom in zip(upper, lower)))
    return tuple(lines)


def _half(top: str, bottom: str) -> str:
    if top == "#":
        return FULL if bottom == "#" else TOP
    return BOTTOM if bottom == "#" else NONE


def fits(words: str, columns: int, scale: int) -> bool:
    return bool(words) and can_draw(words) and width(words, scale) <= columns
