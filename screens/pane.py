"""A Static that redraws only when its text changed: a button press repaints the few cells
that moved, which keeps key-to-screen latency low with seven seats."""
from __future__ import annotations

import re

from rich.cells import cell_len
from rich.text import Text
from textual.geometry import Region
from textual.widgets import Static


# What must never reach the terminal as it is: C0 and C1 controls but the newline (escape
# sequences start with ESC or CSI), invisible and bidirectional marks, line and paragraph
# separators, lone surrogates. Names are refused at the boundary (Setup); this is the last
# guard for anything that got in before, such as a game stored by an older version.
UNSAFE = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u200b\u200c\u200e\u200f"
                    "\u202a-\u202e\u2028\u2029\u2060-\u206f\ud800-\udfff]")


def harmless(text: Text) -> Text:
    """`text` with every unsafe character shown as U+FFFD; spans keep their places."""
    plain = text.plain
    if UNSAFE.search(plain) is None:
        return text
    text = text.copy()
    text.plain = UNSAFE.sub("\ufffd", plain)  # same length: the styles stay where they were
    return text


class Pane(Static):
    def __init__(self, *, title: str = "", **kwargs):
        super().__init__(**kwargs)
        self._shown: Text | None = None
        if title:
            self.border_title = title

    def show(self, text: Text, title: str | None = None) -> None:
        if title is not None and title != self.border_title:
            self.border_title = title
        if text == self._shown:
            return
        before, self._shown = self._shown, text
        # A pane of fixed size repaints its own cells only; a whole-screen layout pass
        # per button press would cost more than everything else together. A pane that
        # grows to fit its text needs one only when its number of rows changes.
        styles = self.styles
        fixed = not (styles.height is None or styles.height.is_auto or
                     styles.width is None or styles.width.is_auto)
        same = self._same_rows(before, text)
        # Rows kept, only those whose line changed are repainted: a press changes a line
        # or two of a pane, and every repainted row costs as much as a changed one.
        self._repaint_rows = self._changed_rows(before, text) if same else None
        try:
            self.update(harmless(text), layout=not (fixed or same))
        finally:
            self._repaint_rows = None

    _repaint_rows: list[int] | None = None  # set only while show() updates the pane

    def refresh(self, *regions, **kwargs):
        if self._repaint_rows and not regions:
            width = self.content_size.width
            regions = tuple(Region(0, row, width, 1) for row in self._repaint_rows)
        return super().refresh(*regions, **kwargs)

    def _same_rows(self, before: Text | None, text: Text) -> bool:
        """True when `text` takes as many rows as `before` did: as many lines, each fitting
        the pane's width (so the terminal wraps none), in a pane whose width is its own."""
        width = self.content_size.width
        if before is None or not width or self.styles.width is None \
                or self.styles.width.is_auto:
            return False
        old, new = before.plain.split("\n"), text.plain.split("\n")
        return len(old) == len(new) and all(cell_len(line) <= width for line in old + new)

    @staticmethod
    def _changed_rows(before: Text, text: Text) -> list[int]:
        """The rows whose line differs, words or styles, between two texts of as many lines
        that the terminal wraps not."""
        old, new = before.split("\n", allow_blank=True), text.split("\n", allow_blank=True)
        return [row for row, (was, now) in enumerate(zip(old, new)) if was != now]


def heading(text: Text, words: str) -> None:
    text.append(words.upper(), "bold cyan")

# A Text's own base style is parsed by Textual as CSS, where "red" is #ff0000 (and
# "bright_white" is unknown): always colour through spans (Text.styled, append), which Rich
# parses as the 16 ANSI colours.


def flow(text: Text, units: list[tuple[str | Text, str]], width: int, sep: str = "  ",
         indent: int = 2, lead: str = "") -> None:
    """Append `units` (words, style) on the current line after `lead`, starting a new,
    indented line only between two units: "3 Cai [OUT]" or "repair life support" is never
    split in two, as Rich's own wrapping would do at the pane's edge. A unit wider than a
    line still wraps."""
    if "\n" in lead:  # a new line first: nothing to break before its first unit
        text.append(lead)
        lead = ""
    line = text.plain[text.plain.rfind("\n") + 1:]
    column, fresh = cell_len(line), not line.strip()
    for i, (words, style) in enumerate(units):
        gap = sep if i else lead
        size = cell_len(words.plain if isinstance(words, Text) else words)
        if not fresh and column + cell_len(gap) + size > width:
            text.append(gap.rstrip() + "\n" + " " * indent)
            column = indent
        elif gap:
            text.append(gap)
            column += cell_len(gap)
        if isinstance(words, Text):  # a unit of several styles
            text.append_text(words)
        else:
            text.append(words, style)
        column, fresh = column + size, False


def paragraphs(items: list[str], width: int, empty: str, rows: int | None = None) -> Text:
    """One item a paragraph, its later lines indented under its first word; with `rows`,
    only the items that begin within that many lines (a pane shows no more)."""
    t = Text()
    for i, item in enumerate(items):
        if i:
            if rows is not None and t.plain.count("\n") + 1 >= rows:
                break
            t.append("\n")
        flow(t, [(w, "") for w in item.split(" ")], width, sep=" ")
    return t if items else Text(empty)


def reflow(text: Text, width: int) -> Text:
    """`text` laid out again word by word for `width` columns, styles kept: for lines drawn
    elsewhere that share a pane with lines laid out here."""
    out = Text()
    for i, line in enumerate(text.split("\n", allow_blank=True)):
        if i:
            out.append("\n")
        flow(out, [(word, "") for word in line.split(" ") if word.plain], width, sep=" ")
    return out


def listed(names: list[str], style: str = "") -> list[tuple[str, str]]:
    """Items of a list as units for `flow`, the comma kept with the item before it."""
    return [(n + ("," if i < len(names) - 1 else ""), style) for i, n in enumerate(names)]
