"""The kiosk's panes keep each row as (plain, spans, style) instead of a Rich Text per line
(splitting Texts per press was a third of a redraw on a Pi). A row must draw exactly
the cells Rich's own split would have drawn, or a colour (a RED ballot, a QUARANTINED mark)
would land on the wrong letters."""
from __future__ import annotations

from hypothesis import given, settings, strategies as st
from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Text

from screens.pane import _text, cells, lines

STYLES = st.sampled_from(["", "bold", "red", "bold reverse green", "bright_black"])
CONSOLE = Console(width=80, color_system="standard", force_terminal=True)


@st.composite
def texts(draw) -> Text:
    plain = draw(st.text(alphabet="ab \n●√", max_size=40))
    spans = draw(st.lists(st.tuples(st.integers(0, len(plain)), st.integers(0, len(plain)),
                                    STYLES), max_size=6))
    text = Text(plain, style=draw(STYLES))
    for start, end, style in spans:
        text.stylize(style, min(start, end), max(start, end))
    return text


@given(texts())
@settings(max_examples=300, deadline=None)
def test_each_row_draws_the_cells_richs_split_draws(text):
    ours = [list(_text(row).render(CONSOLE)) for row in lines(text)]
    rich = [list(line.render(CONSOLE)) for line in text.split("\n", allow_blank=True)]
    assert [row[0] for row in lines(text)] == [line.plain for line in
                                                text.split("\n", allow_blank=True)]
    assert ours == rich


def per_cell(segments) -> list[tuple]:
    """(letter, style) per cell; no style and the empty style draw alike."""
    return [(char, segment.style or Style()) for segment in segments
            for char in segment.text]


@given(texts(), st.sampled_from([Style(), Style.parse("on blue"), Style.parse("white on black"),
                                 Style.parse("bold bright_white on blue")]))
@settings(max_examples=300, deadline=None)
def test_a_new_row_draws_the_cells_rich_draws_for_it(text, base):
    """Pane draws a row's cells itself (`cells`) rather than through a Rich Text per row:
    every cell, its letter and its whole style (the pane's colours under the row's), as
    Rich's rendering over the pane's style gives."""
    for row in lines(text):
        rich = Segment.apply_style(_text(row).render(CONSOLE), base)
        assert per_cell(cells(row, CONSOLE, base)) == per_cell(rich)
