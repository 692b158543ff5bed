"""The table host: the room, the seat buttons, their LEDs and the phones' web server wired
together on one asyncio loop, with or without a kiosk.

A press from any box (from whichever thread it reports on) or from the kiosk's keys becomes
room.press on the loop; the LEDs follow the room (lit_seats) from a room listener; the web
server runs inside the same loop. The kiosk (screens/app.py) only listens and draws: it
starts the host once mounted and asks it to serve once its first frame is up. Headless
(`darkmoon-companion --headless`), the host is the whole table and serves at once.

The button source is passed in and used duck-typed (hardware/source.py's Source: start,
show_leds, close, kind, seats): the core knows nothing of GPIO or serial lines.
"""
from __future__ import annotations

import asyncio
import gc
import logging
from typing import Callable

from .pacing import PhonesFirst
from .table import PUBLIC

log = logging.getLogger(__name__)
TROUBLES = ("stuck", "disconnected", "refused")  # box notices worth a warning in the log
QUIET_SECONDS = 3.0  # no change for this long: a full collection costs no one a wait
FULL_COLLECTION_RARELY = 1000  # else one every 1000 middle ones (the default is 10)


class TableHost:
    """One table: `room`, its `buttons` (a Source), its web server on `listen_host:port`
    (only when `serve`) and the pacing between the phones and a kiosk (`pacing`)."""

    def __init__(self, room, *, buttons, port: int = 8080, listen_host: str = "0.0.0.0",
                 serve: bool = True, narrator=None):
        self.room = room
        self.narrator = narrator  # companion/voice/narrator.py: what the table hears
        self.buttons = buttons
        self.port = port
        self.listen_host = listen_host
        self.serve = serve
        self.pacing = PhonesFirst(room)  # a phone's command reaches the phones first
        self.presses: set[asyncio.Task] = set()
        self.serving = asyncio.Event()  # set once the phones' web server answers
        # A press while the kiosk's button self-test is up goes here, (seat, colour), and
        # never to the game; the LEDs are the self-test's meanwhile.
        self.testing: Callable[[int, str], None] | None = None
        self._notices: list[Callable] = []
        self._lit: frozenset[int] | None = None  # what the LEDs show now
        self._unlisten: list[Callable[[], None]] = []
        self._runner = None
        self._quiet: asyncio.TimerHandle | None = None
        self._started = False
        self._stopped = False

    # --- starting and stopping ---

    async def start(self, *, web: bool = True) -> None:
        """Attach the room to the running loop, start the buttons and the LEDs, and serve the
        phones (when `serve`; `web=False` leaves that to start_web, as the kiosk does after
        its first frame)."""
        if self._started:
            return
        self._started = True
        loop = asyncio.get_running_loop()
        self.room.attach(loop)
        self._unlisten = [self.room.listen("room", self._heard),
                          self.room.listen(PUBLIC, self._heard)]
        # A box reports from its own thread (lgpio's, the serial reader's), or from ours
        # (gpiozero's mock pins): either way the press is handled on the loop.
        self.buttons.start(lambda press: loop.call_soon_threadsafe(self._box_press, press),
                           lambda notice: loop.call_soon_threadsafe(self._box_notice, notice))
        self.show_leds()
        if self.narrator is not None:
            self.narrator.start()
        if web:
            await self.start_web()

    async def start_web(self) -> None:
        """Serve the phones, once. Importing aiohttp and building the server is a quarter of
        the CPU of a start on a Pi: a kiosk calls this after its first frame."""
        if self.serve and self._runner is None and not self._stopped:
            from ..web.server import start_server
            runner = await start_server(self.room, self.listen_host, self.port,
                                        pacing=self.pacing)
            if self._stopped:  # stopped while it started (a SIGTERM just after the start)
                await runner.cleanup()
                return
            self._runner = runner
            self.serving.set()

    @property
    def address(self) -> tuple[str, int] | None:
        """Where the web server listens (the port the system chose for port 0), or None."""
        if self._runner is None or not self._runner.addresses:
            return None
        return self._runner.addresses[0][:2]

    async def stop(self) -> None:
        """Listeners off, buttons closed (their LEDs dark), the web server cleaned up; the
        presses in flight are left to finish or fail on their own. Idempotent."""
        if self._stopped:
            return
        self._stopped = True
        for unlisten in self._unlisten:
            unlisten()
        self._unlisten = []
        if self._quiet is not None:
            self._quiet.cancel()
            self._quiet = None
        self.buttons.close()
        if self.narrator is not None:
            await self.narrator.stop()
        if self._runner is not None:
            runner, self._runner = self._runner, None
            await runner.cleanup()

    # --- presses ---

    def press(self, seat: int, colour: str) -> asyncio.Task | None:
        """A seat button, from any box or the kiosk's keys, on the loop: played through the
        room (None while the self-test takes it)."""
        if self.testing is not None:
            self.testing(seat, colour)  # testing the buttons never plays
            return None
        task = asyncio.get_running_loop().create_task(self._press(seat, colour))
        self.presses.add(task)
        task.add_done_callback(self.presses.discard)
        return task

    def _box_press(self, press) -> None:
        self.press(press.seat, press.colour)

    async def _press(self, seat: int, colour: str) -> None:
        try:
            await self.room.press(seat, colour)
        except Exception:  # a button must never take the table down
            log.exception("button %s %s", seat, colour)

    async def settle(self) -> None:
        """Wait for the presses in flight (tests and the benchmarks)."""
        while self.presses:
            await asyncio.gather(*list(self.presses))

    # --- the box's news ---

    def on_notice(self, callback: Callable) -> Callable[[], None]:
        """callback(notice) on the loop for every notice of the box (connected, stuck, ...),
        after the host has logged it; returns how to stop listening."""
        self._notices.append(callback)
        return lambda: self._notices.remove(callback) if callback in self._notices else None

    def _box_notice(self, notice) -> None:
        (log.warning if notice.kind in TROUBLES else log.info)(
            "buttons: %s %s", notice.kind, notice.detail)
        if notice.kind == "connected":
            self.relight()  # a replugged box has dark LEDs: tell it again
        for callback in list(self._notices):
            callback(notice)

    # --- the LEDs ---

    def show_leds(self) -> None:
        """Light the seats the game waits for at a button decision; done on every change,
        not in a coalesced redraw, so a LED goes out as soon as its seat has answered."""
        if self.testing is not None or self._stopped:
            return  # the self-test lights the seat that was pressed
        lit = self.room.lit_seats()
        if lit != self._lit:
            self._lit = lit
            self.buttons.show_leds(lit)

    def relight(self) -> None:
        """Show the game's LEDs again, whatever the box shows now (a replugged box, the end
        of the self-test)."""
        self._lit = None
        self.show_leds()

    def _heard(self, _audience, _payload) -> None:
        self.show_leds()
        self._quiet_later()

    # --- the garbage collector ---

    def _quiet_later(self) -> None:
        if self._quiet is not None:
            self._quiet.cancel()
        self._quiet = asyncio.get_running_loop().call_later(QUIET_SECONDS, self._collect)

    def _collect(self) -> None:
        self._quiet = None
        gc.collect()


def collect_rarely() -> None:
    """The collector's policy once the table is up (the kiosk's first frame, or a headless
    host serving). A full garbage collection walks every object of Textual, aiohttp and the
    game: measured as 60-90 ms pauses, the kiosk's slowest repaints. What exists once the
    table is up and serving lives as long as it does: out of the collector's sight. The
    composition root (companion.cli) holds the collector off until here: the start allocates
    little garbage, and collections walking the ever larger heap of modules were a twentieth
    of the CPU before the first frame.
    A full collection still walks every object made since (a game's states, rows, caches):
    measured as 9-40 ms, 50-200 ms on a Pi-class CPU, and it came in the middle of a press.
    The youngest generations are collected as ever; the whole heap once the table has been
    quiet for a moment (the host's QUIET_SECONDS), and by itself only rarely."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*gc.get_threshold()[:2], FULL_COLLECTION_RARELY)
    gc.enable()
