"""A pane of text that draws its own lines (Textual's line API): a button press changes a
line or two of a pane, and only those lines are made into cells again and sent to the
terminal. Textual's Static would lay out and style its whole text on every change: on a
Pi-class CPU that was most of the time between a press and the screen showing it."""
from __future__ import annotations

import re
from bisect import bisect_right
from functools import lru_cache
from typing import ClassVar

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from rich.text import Span, Text
from textual import events
from textual.geometry import Region, Size
from textual.message import Message
from textual.scrollbar import ScrollBar, ScrollBarRender
from textual.strip import Strip
from textual.widget import Widget


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


class ConsoleScrollBar(ScrollBarRender):
    """Scroll bars in glyphs the Pi's console font has: Textual ends a thumb with eighth
    blocks (▅ ▆ among them) that Terminus lacks and would draw as diamonds; a thumb's ends
    here stop at a half or a whole cell."""
    VERTICAL_BARS: ClassVar[list[str]] = ["▄", "▄", "▄", "▄", " ", " ", " ", " "]
    HORIZONTAL_BARS: ClassVar[list[str]] = ["█", "█", "█", "▌", "▌", " ", " ", " "]


ScrollBar.renderer = ConsoleScrollBar  # Textual's hook for the renderer every bar uses


class Pane(Widget):
    """Rows of text, each a Strip made once and kept while the row stays the same. Lines are
    laid out by the screens (`flow`) to fit; one wider than the pane still wraps, at spaces.
    `text-align` and `content-align` centre or right-align rows as for a Static.

    A row is held as (plain text, spans, style), not as a Rich Text: telling which rows
    changed needs no Text per line, and only a row drawn anew is made into one."""

    DEFAULT_CSS = "Pane { height: auto; }"

    class Resized(Message):
        """The pane's width changed: a screen that laid its lines out (with `flow`) for the
        old width lays them out again (it bubbles up to that screen)."""

    def on_resize(self, event: events.Resize) -> None:
        if self._resized != event.size.width:
            self._resized = event.size.width
            self.post_message(self.Resized())

    _resized = 0

    @property
    def inner(self) -> Size:
        """The size inside the border and padding, from the size Textual gave the pane at its
        last layout (Textual's content_size looks the pane up in the screen's map each time,
        three times as long). A press reads it some 35 times (for each row drawn, and as the
        board lays its text out): about 0.07 ms of this machine's CPU, too little to tell
        apart in bench_kiosk's figures, here or on the Pi-class budget."""
        size, gutter = self.outer_size, self.styles.gutter
        return Size(max(size.width - gutter.width, 0), max(size.height - gutter.height, 0))

    def __init__(self, *, title: str = "", **kwargs):
        super().__init__(**kwargs)
        self._shown: Text | None = None
        self._lines: list[tuple] = []       # the text's lines, made harmless
        self._rows: list[tuple] = []        # those lines laid out for `_width` columns
        self._width = 0
        self._strips: list[Strip | None] = []   # each row's cells, made when first drawn
        self._style = None                  # the widget's style the strips were made with
        if title:
            self.border_title = title

    def show(self, text: Text, title: str | None = None) -> None:
        if title is not None and title != self.border_title:
            self.border_title = title
        if text == self._shown:
            return
        self._shown = text
        before, widest = self._rows, self._widest()
        self._lines = lines(harmless(text))
        self._lay_out(self.inner.width)
        styles = self.styles
        # A pane that fits its text takes a layout pass when its size changes; every other
        # change repaints only the rows that differ.
        if ((styles.height is None or styles.height.is_auto) and len(self._rows) != len(before)) \
                or ((styles.width is None or styles.width.is_auto) and self._widest() != widest):
            self.refresh(layout=True)
            return
        if len(self._rows) != len(before) and styles.content_align_vertical != "top":
            self.refresh()  # the rows moved up or down as a whole
            return
        width, rows = self.inner.width, self._rows
        changed = [row for row in range(max(len(before), len(rows)))
                   if row >= len(before) or row >= len(rows) or before[row] != rows[row]]
        if changed:
            self.refresh(*(Region(0, row, width, 1) for row in changed))

    def words(self) -> str:
        """The words the pane holds to draw, rows joined by a space (bench_kiosk reads them
        at each repaint: cheaper than reading the screen back)."""
        return " ".join(" ".join(row[0] for row in self._rows).split())

    def _widest(self) -> int:
        return max((cell_len(line[0]) for line in self._lines), default=0)

    def _lay_out(self, width: int) -> None:
        """Rows for `width` columns; the strips of rows that did not change are kept."""
        old = dict(zip(self._rows, self._strips))
        rows: list[tuple] = []
        for line in self._lines:
            if width and cell_len(line[0]) > width:
                rows.extend(_row(part) for part in _text(line).wrap(self.app.console, width))
            else:
                rows.append(line)
        self._rows, self._width = rows, width
        self._strips = [old.get(row) for row in rows]

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return self._widest()

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        if width != self._width:
            self._lay_out(width)
        return len(self._rows)

    def render_line(self, y: int) -> Strip:
        width, height = self.inner
        if width != self._width:
            self._lay_out(width)
        style = self.visual_style.rich_style
        if style != self._style:  # new colours (a theme, a class): every row again
            self._style, self._strips = style, [None] * len(self._rows)
        top = _offset(self.styles.content_align_vertical, height - len(self._rows))
        row = y - top
        if not 0 <= row < len(self._rows):
            return Strip.blank(width, style)
        strip = self._strips[row]
        if strip is None:
            strip = self._strips[row] = self._strip(self._rows[row], width, style)
        return strip

    def _strip(self, row: tuple, width: int, style) -> Strip:
        segments = cells(row, self.app.console, style)
        length = cell_len(row[0])
        align = self.styles.text_align if self.styles.text_align != "start" \
            else self.styles.content_align_horizontal
        left = _offset(align, width - length)
        if left:
            segments.insert(0, Segment(" " * left, style))
        return Strip(segments, left + length).adjust_cell_length(width, style)


def lines(text: Text) -> list[tuple]:
    """`text`'s lines as (plain, spans, style), spans cut to each line: what Rich's
    Text.split gives, without making a Text (and cleaning its characters) per line."""
    plain, style = text.plain, text.style
    parts = plain.split("\n")
    if len(parts) == 1:
        return [(plain, tuple((s.start, s.end, s.style) for s in text.spans), style)]
    starts, at = [], 0
    for part in parts:
        starts.append(at)
        at += len(part) + 1
    spans: list[list] = [[] for _ in parts]
    for begin, end, span_style in text.spans:
        i = max(bisect_right(starts, begin) - 1, 0)
        while i < len(parts) and starts[i] < end:
            first, last = starts[i], starts[i] + len(parts[i])
            if max(begin, first) < min(end, last):
                spans[i].append((max(begin, first) - first, min(end, last) - first,
                                 span_style))
            i += 1
    return [(part, tuple(cut), style) for part, cut in zip(parts, spans)]


def cells(row: tuple, console, base: Style) -> list[Segment]:
    """A row as the segments `base` + Rich's rendering of it would give (a Text made and
    rendered per row was most of a new row's cost): the row's own style and its spans'
    over it in order, each stretch of letters under the same spans one segment."""
    plain, spans, style = row
    if not plain:
        return []
    if not spans:  # as Rich: a Text without spans is drawn without its own style
        return [Segment(plain, base)]
    cuts = sorted({0, len(plain), *(span[0] for span in spans), *(span[1] for span in spans)})
    return [Segment(plain[begin:end], _combined(console, base, (style, *(
                span[2] for span in spans if span[0] <= begin and end <= span[1]))))
            for begin, end in zip(cuts, cuts[1:])]


@lru_cache(maxsize=4096)
def _combined(console, base: Style, styles: tuple) -> Style:
    for style in styles:
        base = base + console.get_style(style, default=Style.null())
    return base


def _text(row: tuple) -> Text:
    plain, spans, style = row
    return Text(plain, style=style, spans=[Span(*span) for span in spans])


def _row(text: Text) -> tuple:
    return text.plain, tuple((s.start, s.end, s.style) for s in text.spans), text.style


def _offset(align: str, room: int) -> int:
    """Where a row (or the rows) of `room` cells less than the space starts, aligned so."""
    if room <= 0:
        return 0
    if align in ("center", "middle"):
        return room // 2
    return room if align in ("right", "end", "bottom") else 0


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
    plain = text.plain
    line = plain[plain.rfind("\n") + 1:]
    column, fresh = cell_len(line), not line.strip()
    tokens: list[tuple[str, str | None]] = []  # appended together: one append per unit
    for i, (words, style) in enumerate(units):   # was most of a redraw's CPU
        gap = sep if i else lead
        size = cell_len(words.plain if isinstance(words, Text) else words)
        if not fresh and column + cell_len(gap) + size > width:
            tokens.append((gap.rstrip() + "\n" + " " * indent, None))
            column = indent
        elif gap:
            tokens.append((gap, None))
            column += cell_len(gap)
        if isinstance(words, Text):  # a unit of several styles
            text.append_tokens(tokens)
            tokens = []
            text.append_text(words)
        else:
            tokens.append((words, style or None))
        column, fresh = column + size, False
    text.append_tokens(tokens)


def rows(text: Text) -> int:
    """The rows `text` takes in a pane, its lines laid out to fit (by `flow`)."""
    return text.plain.count("\n") + 1


def rows_in(text: Text, width: int, console) -> int:
    """The rows `text` takes in a pane `width` columns wide (as Pane lays it out): a line
    that fits is one row; only a wider one is wrapped to be counted."""
    return sum(1 if cell_len(line) <= width else len(Text(line).wrap(console, width))
               for line in text.plain.split("\n"))


def pad_rows(text: Text, reserved: int) -> Text:
    """`text` with blank rows under it up to `reserved`: a pane that keeps its height while
    a malfunction or a vote goes on is repainted row by row at each press, never laid out."""
    short = reserved - rows(text)
    if short > 0:
        text.append("\n" * short)
    return text


def flow_reserved(text: Text, units: list[tuple[str | Text, str]], width: int, widest: int,
                  sep: str = " ", indent: int = 2) -> None:
    """`flow` units after what the current line holds, keeping room there for one unit of
    `widest` cells (what may stand there at other times, such as "deciding"): the text
    takes as many rows whether or not, and whichever, unit stands there."""
    plain = text.plain
    column, breaks = cell_len(plain[plain.rfind("\n") + 1:]), plain.count("\n")
    flow(text, units, width, sep=sep, indent=indent, lead=sep)
    if column + cell_len(sep) + widest > width and text.plain.count("\n") == breaks:
        text.append("\n")


def paragraphs(items: list[str], width: int, empty: str, rows: int | None = None,
               gap: int = 0) -> Text:
    """One item a paragraph, its later lines indented under its first word, `gap` blank
    rows between two; with `rows`, only the items that begin within that many lines (a
    pane shows no more)."""
    if not items:
        return Text(empty)
    laid, lines = [], 0
    for item in items:
        if laid and rows is not None and lines >= rows:
            break
        laid.append(_paragraph(item, width))
        lines += laid[-1].count("\n") + 1 + gap
    return Text(("\n" * (1 + gap)).join(laid))


@lru_cache(maxsize=1024)
def _paragraph(item: str, width: int) -> str:
    """An unstyled item laid out as `flow` lays out its words: a log's sixty sentences are
    the same from one press to the next, and only the new one is laid out."""
    out, column = [], 0
    for i, word in enumerate(item.split(" ")):
        size = cell_len(word)
        if i and column + 1 + size > width:
            out.append("\n  ")
            column = 2
        elif i:
            out.append(" ")
            column += 1
        out.append(word)
        column += size
    return "".join(out)


def reflow(text: Text, width: int) -> Text:
    """`text` laid out again word by word for `width` columns, styles kept: for lines drawn
    elsewhere that share a pane with lines laid out here."""
    return _reflowed(tuple(lines(text)), width).copy()


@lru_cache(maxsize=64)  # the lines it lays out (the fair-play lines) change once a game
def _reflowed(rows: tuple, width: int) -> Text:
    out = Text()
    for i, row in enumerate(rows):
        if i:
            out.append("\n")
        line = _text(row)
        flow(out, [(word, "") for word in line.split(" ") if word.plain], width, sep=" ")
    return out


def spread(free: int, gaps: int, most: int) -> tuple[int, ...]:
    """`free` blank rows shared among `gaps` gaps between sections of a pane, as evenly as
    may be and at most `most` a gap: a big screen's rows spread over what a pane says."""
    if gaps <= 0 or free <= 0:
        return ()
    each, extra = divmod(min(free, gaps * most), gaps)
    return tuple(each + (i < extra) for i in range(gaps))


def listed(names: list[str], style: str = "") -> list[tuple[str, str]]:
    """Items of a list as units for `flow`, the comma kept with the item before it."""
    return [(n + ("," if i < len(names) - 1 else ""), style) for i, n in enumerate(names)]
