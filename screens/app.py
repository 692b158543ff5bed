"""The kiosk: the public board on the Pi's screen, and the keyboard as seat buttons.

It holds no rules. It listens to the room, draws room.kiosk_view() and turns seat keys into
room.press(seat, colour). Redraws go through Pane.show, which repaints a pane only when its
text changed, so a button press costs a few cells, not a new screen.
"""
from __future__ import annotations

import asyncio
import gc
import logging
import signal

from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.widgets import ContentSwitcher

from companion import net
from companion.table import PUBLIC
from hardware import keyboard

from .board import BoardView
from .help import HelpScreen
from .join import JoinView, StartView
from .over import OverView

log = logging.getLogger(__name__)


class KioskApp(App):
    CSS_PATH = "kiosk.tcss"
    # Nobody at the table needs a command palette; in kiosk mode it would be a way out.
    ENABLE_COMMAND_PALETTE = False
    BINDINGS = [
        Binding("f1,question_mark", "help", show=False),
        Binding("f2", "toggle_lang", show=False),
        Binding("f3", "toggle_join", show=False),
        Binding("pagedown,pageup", "next_codes", show=False),
    ]

    def __init__(self, room, *, port: int = 8080, listen_host: str = "0.0.0.0",
                 base_url: str | None = None, kiosk: bool = False, serve: bool = True):
        super().__init__()
        self.room = room
        self.port = port
        self.listen_host = listen_host
        self.base_url = base_url or net.base_url(port)
        self.kiosk = kiosk
        self.serve = serve
        self.show_join = False  # the join codes during play, for a re-bound seat
        self.presses: set[asyncio.Task] = set()
        self._runner = None
        self._unlisten: list = []
        self._pending = False
        self._sigterm = False

    def compose(self) -> ComposeResult:
        with ContentSwitcher(initial="start", id="phases"):
            yield StartView(id="start")
            yield JoinView(id="join")
            yield BoardView(id="play")
            yield OverView(id="over")

    async def on_mount(self) -> None:
        self.theme = "ansi-dark"  # 16 colours: the Linux console shows nothing else
        loop = asyncio.get_running_loop()
        self.room.attach(loop)
        try:  # Textual ignores SIGTERM; systemd stops the kiosk with it
            loop.add_signal_handler(signal.SIGTERM, self.exit)
            self._sigterm = True
        except (NotImplementedError, RuntimeError, ValueError):
            pass  # not the main thread: whoever runs us handles signals
        if self.serve:
            from companion.web.server import start_server
            self._runner = await start_server(self.room, self.listen_host, self.port)
        self._unlisten = [self.room.listen("room", self._heard),
                          self.room.listen(PUBLIC, self._heard)]
        self.sync()
        # A full garbage collection walks every object of Textual and of the game: measured
        # here as 60-90 ms pauses, the kiosk's slowest repaints. What exists once the kiosk is
        # up lives as long as it does, so take it out of the collector's sight.
        gc.collect()
        gc.freeze()

    async def on_unmount(self) -> None:
        for unlisten in self._unlisten:
            unlisten()
        if self._sigterm:
            asyncio.get_running_loop().remove_signal_handler(signal.SIGTERM)
        if self._runner is not None:
            await self._runner.cleanup()

    # --- drawing ---

    def _heard(self, _audience, payload) -> None:
        """Called on the loop after a change; payload None means "build the view again".
        A burst of changes is drawn once."""
        if payload is None and not self._pending:
            self._pending = True
            self.call_later(self.sync)

    def sync(self) -> None:
        self._pending = False
        kiosk = self.room.kiosk_view()
        lang = self.room.lang
        phase = kiosk["phase"]
        if phase == "play" and (self.show_join or kiosk["game"] is None):
            phase = "join"
        switcher = self.query_one("#phases", ContentSwitcher)
        view = switcher.get_child_by_id(phase)
        if phase in ("start", "join"):
            view.show(kiosk, lang, self.base_url)
        else:
            view.show(kiosk, lang)
        if switcher.current != phase:
            switcher.current = phase
        if isinstance(self.screen, HelpScreen):
            self.screen.show(self.seat_names(kiosk), lang, not self.kiosk)

    def seat_names(self, kiosk: dict) -> list[str]:
        return [s["name"] for s in kiosk["seats"]]

    # --- keys ---

    def on_key(self, event: events.Key) -> None:
        button = keyboard.button_for(event.character or "") if event.character else None
        if button is None:
            return
        seat, colour = button
        event.stop()
        task = asyncio.get_running_loop().create_task(self._press(seat, colour))
        self.presses.add(task)
        task.add_done_callback(self.presses.discard)

    async def _press(self, seat: int, colour: str) -> None:
        try:
            await self.room.press(seat, colour)
        except Exception:  # a button must never take the kiosk down
            log.exception("button %s %s", seat, colour)

    async def settle(self) -> None:
        """Wait for the presses in flight (tests and the benchmark)."""
        while self.presses:
            await asyncio.gather(*list(self.presses))

    def action_help(self) -> None:
        if isinstance(self.screen, HelpScreen):
            self.pop_screen()
            return
        self.push_screen(HelpScreen(self.seat_names(self.room.room_view()), self.room.lang,
                                    not self.kiosk))

    def action_toggle_lang(self) -> None:
        self.room.set_lang("es" if self.room.lang == "en" else "en")  # the room tells us

    def action_toggle_join(self) -> None:
        self.show_join = not self.show_join
        self.sync()

    def action_next_codes(self) -> None:
        self.query_one(JoinView).page += 1
        self.sync()

    # --- no way out in kiosk mode ---

    async def action_quit(self) -> None:
        if not self.kiosk:
            await super().action_quit()

    def action_help_quit(self) -> None:
        pass  # Ctrl+C: Textual would suggest Ctrl+Q; at the table neither quits
