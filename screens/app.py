"""The kiosk: the public board on the Pi's screen, and the keyboard as seat buttons.

It holds no rules and owns no hardware. It listens to the room, draws room.kiosk_view() and
turns seat keys into host.press(seat, colour): the table host (companion/core/host.py) owns
the buttons, their LEDs and the phones' web server, and runs them on the kiosk's loop while
the kiosk is up. Redraws go through Pane.show, which repaints a pane only when its text
changed, so a button press costs a few cells, not a new screen.
"""
from __future__ import annotations

import asyncio
import importlib
import logging
import time

from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.css.query import NoMatches
from textual.widget import MountError
from textual.widgets import ContentSwitcher

from companion.appliance import net
from companion.core.host import collect_rarely
from companion.core.refusals import StorageFailed
from companion.core.table import PUBLIC
from hardware import keyboard
from hardware.pad import Notice, Press

from .buttons import ButtonState, ButtonTestScreen
from .network import NetworkWatch
from .stopping import Stopping
from .pane import Pane
from . import textual_seam

log = logging.getLogger(__name__)
# Each phase's view by module and class, imported as it is first made: a start draws one of
# them. The board and game-over views, the help screen and the damage notice were 1.5% of
# the CPU of a join screen's start (15 of 1,026 million instructions, valgrind).
PHASES = {"start": ("screens.join", "StartView"), "join": ("screens.join", "JoinView"),
          "play": ("screens.board", "BoardView"), "over": ("screens.over", "OverView")}


def phase_view_class(phase: str) -> type:
    module, name = PHASES[phase]
    return getattr(importlib.import_module(module), name)


class KioskApp(NetworkWatch, Stopping, App):
    CSS_PATH = "kiosk.tcss"
    # Nobody at the table needs a command palette; in kiosk mode it would be a way out.
    ENABLE_COMMAND_PALETTE = False
    BINDINGS = [
        Binding("f1,question_mark", "help", show=False),
        Binding("f2", "toggle_lang", show=False),
        Binding("f3", "toggle_join", show=False),
        Binding("f4", "button_test", show=False),
        Binding("f5", "new_host_code", show=False),
        Binding("f6", "switch_voice", show=False),
        Binding("f7", "say_again", show=False),
        Binding("escape", "dismiss_notice", show=False),
    ]

    def __init__(self, host, *, base_url: str | None = None, kiosk: bool = False,
                 buttons_fallback=None, salvage=None):
        textual_seam.install()  # Textual's private parts, only on the tested Textual
        # 16 colours: the Linux console shows nothing else. Chosen here, before the first
        # stylesheet is built, as App._watch_theme would: setting App.theme once mounted
        # re-styles every widget, a quarter of the CPU spent before the first frame.
        super().__init__(ansi_color=True)  # ANSI colours as they are, never as truecolour
        self.set_reactive(App.theme, "ansi-dark")
        self.set_class(True, "-theme-ansi-dark", update=False)
        self.host = host  # companion.core.host.TableHost: started once mounted, stopped after
        self.base_url = base_url or net.base_url(host.port)
        self.kiosk = kiosk
        self.salvage = salvage  # companion.appliance.salvage.Salvage: the store was set aside
        self.button_state = ButtonState(host.buttons, buttons_fallback)
        self.show_join = False  # the join codes during play, for a re-bound seat
        self.show_host = False  # a new host code (F5), shown until a phone opens it
        # Set once the kiosk is up: its first frame drawn, every phase's view made and the
        # phones served (when the host serves).
        self.serving = asyncio.Event()
        self._unlisten: list = []
        self._pending = False
        self._making: set[str] = set()  # the phases' views being mounted
        self._help = None  # the help screen (F1) last opened

    @property
    def room(self):
        """The host's room: what the kiosk draws."""
        return self.host.room

    @property
    def port(self) -> int:
        """The phones' web port, for the join codes."""
        return self.host.port

    def compose(self) -> ComposeResult:
        if self.salvage is not None:
            from .notice import DamagedNotice
            yield DamagedNotice(self.salvage, id="damaged")
        # Only the phase on the screen is made before the first frame; the other phases'
        # views are made once it is shown (on_ready), or when first needed if that is
        # sooner. The board alone is a third of the kiosk's widgets, each styled twice.
        first = self.phase_shown(self.room.phase, self.room.table is not None)
        with ContentSwitcher(initial=first, id="phases"):
            yield phase_view_class(first)(id=first)
        yield Pane(id="buttons-line")

    def phase_shown(self, phase: str, has_game: bool) -> str:
        """The view that shows the room's phase: the join codes until the game is dealt
        (and on F3), the start screen while a new host code is up (F5)."""
        if phase == "play" and (self.show_join or not has_game):
            phase = "join"
        return "start" if self.show_host else phase

    def phase_view(self, phase: str):
        """The view of `phase`, or None while it is still being made: it is drawn once
        made (make_phases syncs)."""
        try:
            return self.query_one("#phases", ContentSwitcher).get_child_by_id(phase)
        except NoMatches:
            self.call_later(self.make_phases)
            return None

    async def make_phases(self) -> None:
        """Mount the views of the phases not made yet, then draw the room."""
        switcher = self.query_one("#phases", ContentSwitcher)
        made = {child.id for child in switcher.children} | self._making
        wanted = [phase for phase in PHASES if phase not in made]
        if not wanted:
            return
        self._making.update(wanted)
        try:
            for phase in wanted:
                await switcher.add_content(phase_view_class(phase)(id=phase))
        except MountError:
            return  # the kiosk is closing (SIGTERM soon after the start)
        self.sync()

    async def on_mount(self) -> None:
        loop = asyncio.get_running_loop()
        # The buttons and the LEDs now; the phones once the first frame is up (on_ready).
        await self.host.start(web=False)
        self.heed_stopping(loop)  # systemd's SIGTERM, a terminal gone (screens/stopping.py)
        self._unlisten = [self.room.listen("presses", self._press_refused),
                          self.room.listen("room", self._heard),
                          self.room.listen(PUBLIC, self._heard),
                          self.host.on_notice(self._box_notice)]
        self.sync()
        self.follow_network()  # the join codes follow the Pi's address

    async def on_ready(self) -> None:
        """The first frame is on the screen: now the host serves the phones (its start_web
        says what that costs). The join screen need not wait for it: the port was checked
        free before the kiosk started, and nobody scans a code in the second after it
        appears."""
        await self.host.start_web()
        await self.make_phases()
        collect_rarely()  # the collector's policy once the table is up (companion/core/host.py)
        self.serving.set()

    async def on_unmount(self) -> None:
        for unlisten in self._unlisten:
            unlisten()
        self.stop_watching()
        await self.host.stop()

    # --- drawing ---

    def _heard(self, _audience, payload) -> None:
        """Called on the loop after a change; payload None means "build the view again".
        A burst of changes is drawn once."""
        if payload is None and not self._pending:
            self._pending = True
            self.host.pacing.then(self._sync_later)  # a phone's command: phones first

    def _sync_later(self) -> None:
        self.call_later(self.sync)

    PRESS_NOTE_SECONDS = 5.0  # how long the bottom line says why a press meant nothing

    def _press_refused(self, _audience, refusal: dict) -> None:
        """A press that meant nothing, for a reason anyone may know: said on the bottom line
        for a few seconds (the seat's phone says it too)."""
        self.button_state.press_refused(refusal, time.monotonic() + self.PRESS_NOTE_SECONDS)
        self.sync()
        self.set_timer(self.PRESS_NOTE_SECONDS, self.sync)

    def sync(self) -> None:
        self._pending = False
        kiosk = self.room.kiosk_view()
        lang = self.room.lang
        if self.salvage is not None and not self.query_one("#damaged").follow(
                kiosk["phase"], lang):
            self.action_dismiss_notice()
        if self.show_host and kiosk["host_token"] is None:
            self.show_host = False  # a phone opened the new host code
        phase = self.phase_shown(kiosk["phase"], kiosk["game"] is not None)
        if self.show_host:
            kiosk = dict(kiosk, replacing_host=True)
        view = self.phase_view(phase)
        if view is not None:
            if phase in ("start", "join"):
                view.show(kiosk, lang, self.base_url)
            else:
                view.show(kiosk, lang)
            switcher = self.query_one("#phases", ContentSwitcher)
            if switcher.current != phase:
                switcher.current = phase
        if self.screen is self._help:
            self._help.show(self.seat_names(kiosk), lang, not self.kiosk)
        self.query_one("#buttons-line", Pane).show(self.button_state.line(
            lang, self.seat_names(kiosk), time.monotonic()))

    def seat_names(self, kiosk: dict) -> list[str]:
        return [s["name"] for s in kiosk["seats"]]

    # --- keys ---

    async def on_event(self, event: events.Event) -> None:
        # A seat key is a button press whatever has the focus: taken as it arrives, rather
        # than after Textual has passed it to the screen and on up to the app again, two
        # more turns of the loop and of Textual's message queues for every press.
        if isinstance(event, events.Key) and not event.is_forwarded and event.character:
            button = keyboard.button_for(event.character)
            if button is not None:
                self.host.press(button[0], button[1])  # one more button source
                return
        await super().on_event(event)

    def _box_notice(self, notice: Notice) -> None:
        """The box's news (logged by the host): said on the bottom line."""
        self.button_state.heard(notice)
        self.sync()

    async def settle(self) -> None:
        """Wait for the presses in flight (tests and the benchmark)."""
        await self.host.settle()

    def action_help(self) -> None:
        if self.screen is self._help:
            self.pop_screen()
            return
        from .help import HelpScreen
        self._help = HelpScreen(self.seat_names(self.room.room_view()), self.room.lang,
                                not self.kiosk, self.button_state.fallback)
        self.push_screen(self._help)

    def action_button_test(self) -> None:
        if isinstance(self.screen, ButtonTestScreen):
            self.pop_screen()
            return
        test = ButtonTestScreen(self.seat_names(self.room.room_view()), self.room.lang,
                                self.button_state, on_close=self._after_test)
        # While it is up every press is shown there and never played, and the LEDs are its.
        self.host.testing = lambda seat, colour: test.pressed(
            Press(seat, colour, time.monotonic()))
        self.push_screen(test)

    def _after_test(self) -> None:
        self.host.testing = None
        self.call_later(self.host.relight)  # the test lit the pressed seats: the game's again

    async def action_toggle_lang(self) -> None:
        await self._room_change(self.room.set_lang("es" if self.room.lang == "en" else "en"))

    async def action_new_host_code(self) -> None:
        """A lost host phone: whoever stands at the Pi makes a new host code. F5 again hides
        it; the code stays valid until a phone opens it."""
        if self.show_host:
            self.show_host = False
            self.sync()
            return
        self.show_host = True
        if not await self._room_change(self.room.new_host_code(), "host_code_failed"):
            self.show_host = False  # no new code was made: the old one still works
        self.sync()

    async def action_switch_voice(self) -> None:
        """The narrator's voice on or off; kept with the room."""
        if self.host.narrator is not None:
            await self._room_change(self.host.narrator.switch())

    def action_say_again(self) -> None:
        if self.host.narrator is not None:
            self.host.narrator.repeat()

    FAILED_NOTE_SECONDS = 30.0  # how long the bottom line says a key's change was not saved

    async def _room_change(self, change, failed: str = "store_failed") -> bool:
        """A room change from a key: saved on the writer thread (the room tells us when it
        is shown). A store that cannot be written (a full or failing card) is said on the
        screen, in the kiosk's language (`failed`: what to say), and in the log; anything
        else in the log. Never a crash of the kiosk. True once the change is saved."""
        try:
            await change
        except StorageFailed:
            log.error("a room change from the kiosk could not be saved: %s", failed)
            self.button_state.change_failed(failed,
                                            time.monotonic() + self.FAILED_NOTE_SECONDS)
            self.sync()
            self.set_timer(self.FAILED_NOTE_SECONDS, self.sync)
            return False
        except Exception:
            log.exception("a room change from the kiosk failed")
            return False
        self.button_state.change_saved()
        return True

    def action_dismiss_notice(self) -> None:
        if self.salvage is not None:
            self.salvage = None
            self.query_one("#damaged").remove()

    def action_toggle_join(self) -> None:
        self.show_join = not self.show_join
        self.sync()

    # --- no way out in kiosk mode ---

    async def action_quit(self) -> None:
        if not self.kiosk:
            await super().action_quit()

    def action_help_quit(self) -> None:
        pass  # Ctrl+C: Textual would suggest Ctrl+Q; at the table neither quits

