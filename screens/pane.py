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
            self.update(text)


def heading(text: Text, words: str) -> None:
    text.append(words.upper(), "bold cyan")
