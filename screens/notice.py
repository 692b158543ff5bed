"""The notice after a damaged games file was set aside (companion/appliance/salvage.py): what happened
and what was kept, on top of whatever the kiosk shows, until the next game is set up or Esc.

It is written in both languages, the room's first: when the room's record was lost with the
damage, the room's language went with it, and the table must still be able to read it.
"""
from __future__ import annotations

from rich.text import Text

from .pane import Pane
from .words import say


class DamagedNotice(Pane):
    DEFAULT_CSS = """
    DamagedNotice {
        dock: top; height: auto; width: 100%;
        border: heavy ansi_yellow; border-title-color: ansi_bright_yellow;
    }
    """

    def __init__(self, report, **kwargs):
        super().__init__(**kwargs)
        self.report = report  # a companion.appliance.salvage.Salvage
        self._phase: str | None = None

    def follow(self, phase: str, lang: str) -> bool:
        """Draw the notice for the room's phase and language; False once a new game has been
        set up since it first showed (the notice is about the start, not that game)."""
        if phase == "join" and self._phase not in (None, "join"):
            return False
        self._phase = phase
        other = "es" if lang == "en" else "en"
        text = Text()
        text.append(self.report.sentence(lang), "bold")
        text.append("\n")
        text.append(self.report.sentence(other))
        text.append("\n")
        text.append(say(lang, "damaged.dismiss"), "yellow")
        self.show(text, say(lang, "damaged.title"))
        return True
