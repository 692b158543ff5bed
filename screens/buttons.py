"""The seat buttons on the kiosk: the line that says which box is in use (or why the keyboard
stands in), its troubles (unplugged, a stuck button), and the button self-test screen.

The self-test is for the evening's set-up: press any button and see its seat and colour,
and its LED lights. Presses there never reach the game.
"""
from __future__ import annotations

import asyncio
import logging

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.screen import ModalScreen

from hardware import keyboard
from hardware.pad import Notice, NoticeKind, Press
from hardware.source import FallbackReason, SourceKind

from .pane import Pane
from .words import say

COLOUR_STYLE = {"black": "bold bright_white", "red": "bold red", "grey": "white"}
FALLBACK_KEYS = {FallbackReason.UNCONFIGURED: "buttons.unconfigured",
                 FallbackReason.CONFIG: "buttons.config",
                 FallbackReason.GPIO: "buttons.gpio_failed",
                 FallbackReason.NO_LGPIO: "buttons.no_lgpio"}
SHOWN_PRESSES = 12
log = logging.getLogger(__name__)


def _styled(words: str, style: str) -> Text:
    text = Text()
    text.append(words, style)  # a span: a Text's base style would be parsed as CSS colours
    return text


def colour_word(lang: str, colour: str) -> str:
    return say(lang, f"help.{colour}")


class ButtonState:
    """What the table should read about its buttons: which box, and what is wrong with it.
    Fed with the source's notices on the loop; troubles clear when the box says so."""

    def __init__(self, source, fallback=None):
        self.source = source
        self.fallback = fallback
        if fallback is not None:  # the screen says the keyboard stands in; the log says why
            log.warning("seat buttons: the keyboard stands in for the box (%s): %s",
                        fallback.reason, fallback.detail)
        self.connected = source.kind != SourceKind.SERIAL  # a USB box counts once it says hello
        self.troubles: dict[tuple, Notice] = {}
        self.refused: tuple[dict, float] | None = None  # the latest refused press, and until
        self.failed: tuple[str, float] | None = None  # a key's change the store refused, until

    def press_refused(self, refusal: dict, until: float) -> None:
        """A seat's press that meant nothing (Room "presses": seat, colour, public reason)."""
        self.refused = (refusal, until)

    def change_failed(self, key: str, until: float) -> None:
        """A change made at the Pi's keys (F5's new host code) that the store could not
        write: said on this line, for whoever pressed the key, not only in the log."""
        self.failed = (key, until)

    def change_saved(self) -> None:
        """A change at the keys was saved: the store writes again, the note is stale."""
        self.failed = None

    def heard(self, notice: Notice) -> None:
        self.refused = None  # news of the box itself replaces an older refused press
        kind = notice.kind
        if kind == NoticeKind.STUCK:
            self.troubles[("stuck", notice.seat, notice.colour)] = notice
        elif kind == NoticeKind.FREED:
            self.troubles.pop(("stuck", notice.seat, notice.colour), None)
        elif kind == NoticeKind.CONNECTED:
            self.connected = True
            self.troubles.pop(("box",), None)
        else:  # disconnected or refused
            self.connected = False
            self.troubles[("box",)] = notice
        if kind.whole_box:  # a box that is replugged or refused forgets its held buttons
            for key in [k for k in self.troubles if k[0] == "stuck"]:
                del self.troubles[key]

    def line(self, lang: str, names: list[str] = (), now: float = 0.0) -> Text:
        """One line for the bottom of the kiosk; a trouble, in yellow, comes first, then a
        press refused a moment ago (until its time is up), then which buttons are in use.
        Before all of them, a change at the Pi's keys that could not be saved: nothing else
        on the screen says that the key did nothing."""
        if self.failed and now < self.failed[1]:
            return _styled(say(lang, self.failed[0]), "bold yellow")
        if not self.troubles and self.refused and now < self.refused[1]:
            refusal = self.refused[0]
            seat = refusal["seat"]
            return _styled(say(lang, "press.refused", n=seat + 1,
                               name=names[seat] if seat < len(names) else "",
                               colour=colour_word(lang, refusal["colour"]),
                               reason=say(lang, f"press.{refusal['code']}")), "bold yellow")
        if self.troubles:
            notice = list(self.troubles.values())[-1]  # the latest
            if notice.kind == NoticeKind.STUCK:
                return _styled(say(lang, "buttons.stuck", n=notice.seat + 1,
                                   colour=colour_word(lang, notice.colour)), "bold yellow")
            if notice.kind == NoticeKind.REFUSED:
                return _styled(say(lang, "buttons.refused", detail=notice.detail), "bold yellow")
            return _styled(say(lang, "buttons.disconnected"), "bold yellow")
        kind = self.source.kind
        if kind == SourceKind.KEYBOARD and self.fallback is None:
            return _styled(say(lang, "buttons.keyboard"), "white")
        if kind == SourceKind.KEYBOARD:
            return _styled(say(lang, FALLBACK_KEYS[self.fallback.reason],
                               detail=self.fallback.detail), "white")
        if kind == SourceKind.SERIAL and not self.connected:
            return _styled(say(lang, "buttons.serial_waiting"), "yellow")
        return _styled(say(lang, f"buttons.{kind}", n=self.source.seats), "white")


def test_text(presses: list[Press], names: list[str], lang: str) -> Text:
    t = Text()
    t.append(say(lang, "buttons.test_hint") + "\n\n")
    if not presses:
        t.append(say(lang, "buttons.test_none"), "bright_black")
    for press in reversed(presses[-SHOWN_PRESSES:]):
        name = names[press.seat] if press.seat < len(names) else ""
        t.append(f"{say(lang, 'join.seat', n=press.seat + 1)} {name:<12.12} ", "bold")
        t.append(f" {colour_word(lang, press.colour)} ", f"reverse {COLOUR_STYLE[press.colour]}")
        t.append("\n")
    return t


class ButtonTestScreen(ModalScreen):
    """Shows every press; the app routes presses here instead of to the game while it is up."""
    BINDINGS = [Binding("escape,f4", "app.pop_screen", show=False)]

    def __init__(self, names: list[str], lang: str, state: ButtonState, on_close=None):
        super().__init__()
        self.names, self.lang, self.state, self.on_close = names, lang, state, on_close
        self.source = state.source
        self.presses: list[Press] = []

    def compose(self) -> ComposeResult:
        yield Pane(id="help")
        yield Pane(id="test-line")

    def on_mount(self) -> None:
        self.draw()

    def on_unmount(self) -> None:
        self.source.show_leds(frozenset())
        if self.on_close is not None:
            self.on_close()

    def pressed(self, press: Press) -> None:
        self.presses = (self.presses + [press])[-SHOWN_PRESSES:]
        self.source.show_leds(frozenset({press.seat}))  # the press lights its seat's LED
        self.draw()

    def draw(self) -> None:
        if self.is_mounted:
            self.query_one("#help", Pane).show(test_text(self.presses, self.names, self.lang),
                                               say(self.lang, "buttons.test_title"))
            self.query_one("#test-line", Pane).show(self.state.line(self.lang))


class ButtonTestApp(App):
    """`darkmoon-companion buttons --test`: the self-test alone, with the configured box and
    the keyboard, for wiring a box before any game. Esc, F4 or Ctrl+Q quits."""
    CSS_PATH = "kiosk.tcss"
    ENABLE_COMMAND_PALETTE = False

    def __init__(self, source, fallback=None, lang: str = "en"):
        super().__init__()
        self.source = source
        self.state = ButtonState(source, fallback)
        self.test = ButtonTestScreen([], lang, self.state)

    async def on_mount(self) -> None:
        self.theme = "ansi-dark"
        loop = asyncio.get_running_loop()
        self.source.start(lambda p: loop.call_soon_threadsafe(self.test.pressed, p),
                          lambda n: loop.call_soon_threadsafe(self.heard, n))
        await self.push_screen(self.test)

    def heard(self, notice: Notice) -> None:
        self.state.heard(notice)
        self.test.draw()

    def on_key(self, event) -> None:
        button = keyboard.button_for(event.character or "") if event.character else None
        if button is not None:
            self.test.pressed(Press(button[0], button[1], 0.0))

    async def action_pop_screen(self) -> None:
        self.exit()  # the test is the whole app: Esc or F4 (as its hint says) ends it

    def on_unmount(self) -> None:
        self.source.close()
