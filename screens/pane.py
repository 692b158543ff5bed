"""A Static that redraws only when its text changed: a button press repaints the few cells
that moved, which keeps key-to-screen latency low with seven seats."""
from __future__ import annotations

from rich.text import Text
from textual.widgets import Static


class Pane(Static):
    def __init__(self, *, title: str = "", **kwargs):
        super().__init__(**kwargs)
        self._shown: Text | None = None
        if title:
            self.border_title = title

    def show(self, text: Text, title: str | None = None) -> None:
        if title is not None and title != self.border_title:
            self.border_title = title
        if text != self._shown:
            self._shown = text
            # A pane of fixed size repaints its own cells only; a whole-screen layout pass
            # per button press would cost more than everything else together.
            styles = self.styles
            fixed = not (styles.height is None or styles.height.is_auto or
                         styles.width is None or styles.width.is_auto)
            self.update(text, layout=not fixed)


def heading(text: Text, words: str) -> None:
    text.append(words.upper(), "bold cyan")

# A Text's own base style is parsed by Textual as CSS, where "red" is #ff0000 (and
# "bright_white" is unknown): always colour through spans (Text.styled, append), which Rich
# parses as the 16 ANSI colours.
