"""The help screen: which key is which seat button, and the kiosk's own keys."""
from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import ModalScreen

from hardware import keyboard

from .pane import Pane, heading
from .words import say

KIOSK_KEYS = (("F1 / ?", "help.key_help"), ("F2", "help.key_lang"),
              ("F3", "help.key_join"), ("F4", "help.key_buttons"),
              ("F5", "help.key_host"), ("F6", "help.key_voice"),
              ("F7", "help.key_say_again"), ("Esc", "help.key_notice"))


def key_map(names: list[str], lang: str, quits: bool, fallback=None) -> Text:
    """The seat keys and the kiosk's keys; with `fallback` (hardware.source.Fallback), why
    the keyboard stands in for a button box, with the file or the error the set-up gave,
    for whoever sets the table up: the bottom line says only that it does."""
    t = Text()
    heading(t, say(lang, "help.buttons"))
    t.append("\n" + say(lang, "help.buttons_hint") + "\n\n")
    for seat, keys in keyboard.describe(len(names) or keyboard.SEATS):
        name = names[seat] if seat < len(names) else ""
        t.append(f"{say(lang, 'join.seat', n=seat + 1)} {name:<12.12} ", "bold")
        for colour, style in (("black", "bold bright_white"), ("red", "bold red"),
                              ("grey", "white")):
            t.append(f"{say(lang, 'help.' + colour)} ", style)
            t.append(f"[{keys[colour]}]   ", "reverse")
        t.append("\n")
    t.append("\n")
    heading(t, say(lang, "help.kiosk_keys"))
    for key, words in KIOSK_KEYS + ((("Ctrl+Q", "help.key_quit"),) if quits else ()):
        t.append(f"\n{key:<12} ", "bold")
        t.append(say(lang, words))
    if fallback is not None:
        t.append("\n\n" + say(lang, f"help.box.{fallback.reason}", detail=fallback.detail),
                 "bright_black")
    return t


class HelpScreen(ModalScreen):
    BINDINGS = [Binding("escape,f1,question_mark", "app.pop_screen", show=False)]

    def __init__(self, names: list[str], lang: str, quits: bool, fallback=None):
        super().__init__()
        self.shown = (names, lang, quits)
        self.fallback = fallback

    def compose(self) -> ComposeResult:
        yield Pane(id="help")

    def on_mount(self) -> None:
        self.show(*self.shown)

    def show(self, names: list[str], lang: str, quits: bool) -> None:
        self.query_one("#help", Pane).show(key_map(names, lang, quits, self.fallback),
                                           say(lang, "help.title"))
