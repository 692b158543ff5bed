"""A Static that redraws only when its text changed: a button press repaints the few cells
that moved, which keeps key-to-screen latency low with seven seats."""
from __future__ import annotations

import re

from rich.text import Text
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
        if text != self._shown:
            self._shown = text
            # A pane of fixed size repaints its own cells only; a whole-screen layout pass
            # per button press would cost more than everything else together.
            styles = self.styles
            fixed = not (styles.height is None or styles.height.is_auto or
                         styles.width is None or styles.width.is_auto)
            self.update(harmless(text), layout=not fixed)


def heading(text: Text, words: str) -> None:
    text.append(words.upper(), "bold cyan")

# A Text's own base style is parsed by Textual as CSS, where "red" is #ff0000 (and
# "bright_white" is unknown): always colour through spans (Text.styled, append), which Rich
# parses as the 16 ANSI colours.
