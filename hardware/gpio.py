"""Seat buttons and LEDs wired straight to the Raspberry Pi's GPIO header, through gpiozero.

Each button goes from its pin to ground (the pin's internal pull-up holds it high), each LED
from its pin through a resistor to ground. gpiozero only reports raw levels here: debouncing,
the BLACK+RED chord and stuck buttons are hardware.pad.Pads's job, with time read from the
injected clock, so the same rules hold for the serial box and can be tested with mock pins
(whose bounce_time is ignored).

Threads: real pin callbacks arrive on lgpio's thread, mock ones synchronously on whoever
drives the pin, and a small ticker thread wakes Pads when a bounce has settled or a button
may be stuck. Pads is not thread-safe, so one lock covers it; the presses it emits are
handed to on_press while that lock is held, which keeps them in the order they happened.
A press does not wake the ticker: on a Pi's one busy core a thread woken then takes CPU from
the press's way to the table (see _tick_forever).
"""
from __future__ import annotations

import functools
import importlib.util
import logging
import math
import os
import threading
import time
import warnings
from typing import Callable, Sequence

from gpiozero import Device, DigitalInputDevice, LED

from .config import GpioSeat
from .pad import BLACK, GREY, RED, Notice, Pads, Press
from .pi import INSTALL_LGPIO, lgpio_workdir, pi_model

log = logging.getLogger(__name__)


class GpioUnavailable(Exception):
    """The GPIO buttons cannot be used on this machine; str() says why in one sentence, for
    the kiosk's line about falling back to the keyboard. `install` is the command that would
    fix it, when one package would (lgpio missing)."""

    def __init__(self, message: str, install: str | None = None):
        super().__init__(message)
        self.install = install


class GpioSource:
    """A Source (hardware/source.py) for up to 7 seats of buttons on the GPIO header.

    The pins are claimed when it is made, so a missing or busy GPIO is known (GpioUnavailable)
    before the kiosk starts; start() begins reporting. `ticker=False` leaves the timed checks
    to the caller, who calls tick(now) with its own clock (tests do; production does not).
    """

    kind = "gpio"

    def __init__(self, seats: Sequence[GpioSeat], *, clock: Callable[[], float] = time.monotonic,
                 settle: float = 0.02, stuck_after: float = 8.0, pin_factory=None,
                 ticker: bool = True):
        self.seats = len(seats)
        self._config = tuple(seats)
        self._clock = clock
        self._settle = settle
        self._stuck_after = stuck_after
        self._use_ticker = ticker
        # Reentrant: a mock pin driven from inside on_press (or show_leds called from it on
        # the same thread) must not deadlock.
        self._lock = threading.RLock()
        # The LEDs have their own lock: the loop's show_leds never waits on button traffic.
        self._led_lock = threading.Lock()
        self._pads: Pads | None = None
        self._on_press: Callable[[Press], None] | None = None
        self._starting = False
        self._closed = False
        self._wake = threading.Event()
        self._planned = math.inf  # when the ticker next ticks, on self._clock
        self._thread: threading.Thread | None = None
        self._lit: frozenset[int] | None = None  # None: not yet set, write every LED once
        factory = pin_factory if pin_factory is not None else _default_factory()
        self._buttons: list[tuple[int, str, DigitalInputDevice]] = []
        self._leds: dict[int, LED] = {}
        try:
            for seat, pins in enumerate(self._config):
                for colour, pin in ((BLACK, pins.black), (RED, pins.red), (GREY, pins.grey)):
                    if pin is not None:
                        # DigitalInputDevice rather than Button: Button starts a hold-timer
                        # thread per pin that wakes ten times a second, 140 idle wake-ups a
                        # second on a 7-seat box for a feature (when_held) Pads already has.
                        device = DigitalInputDevice(pin, pull_up=True, bounce_time=None,
                                                    pin_factory=factory)
                        self._buttons.append((seat, colour, device))
                if pins.led is not None:
                    self._leds[seat] = LED(pins.led, initial_value=False, pin_factory=factory)
        except Exception as error:
            # Each driver (lgpio, RPi.GPIO, the native one) raises its own kind of error for
            # a missing chip, a pin it cannot have or a user outside the gpio group; any of
            # them means the same at the table: no GPIO buttons, play on the keyboard.
            self._close_devices()
            raise GpioUnavailable(f"the GPIO pins cannot be opened "
                                  f"({type(error).__name__}: {error}); "
                                  "using the keyboard instead") from error

    # --- the Source protocol ---

    def start(self, on_press: Callable[[Press], None],
              on_notice: Callable[[Notice], None]) -> None:
        grey = [seat for seat, pins in enumerate(self._config) if pins.grey is not None]
        with self._lock:
            if self._closed or self._pads is not None:
                raise RuntimeError("a GpioSource starts once, before it is closed")
            self._on_press = on_press
            self._pads = Pads(self.seats, grey, self._emit, on_notice,
                              settle=self._settle, stuck_after=self._stuck_after)
            now = self._clock()
            self._starting = True
            for seat, colour, device in self._buttons:
                device.when_activated = functools.partial(self._level, seat, colour, True)
                device.when_deactivated = functools.partial(self._level, seat, colour, False)
                if device.is_active:
                    # Down before we looked (a jammed button, a wire shorted to ground, a
                    # hand on the box at boot): Pads learns it is down, so it is reported
                    # stuck in due time, but that is not a press made now (_emit drops it).
                    # On a seat without GREY its release still counts, as any release does.
                    self._pads.level(seat, colour, True, now)
            self._starting = False
        if self._use_ticker:
            self._thread = threading.Thread(target=self._tick_forever, name="gpio-buttons",
                                            daemon=True)
            self._thread.start()

    def show_leds(self, lit: frozenset[int]) -> None:
        lit = frozenset(lit)
        with self._led_lock:
            if self._closed or lit == self._lit:
                return
            for seat, led in self._leds.items():
                if self._lit is None or (seat in lit) != (seat in self._lit):
                    led.value = seat in lit
            self._lit = lit

    def close(self) -> None:
        with self._lock, self._led_lock:
            if self._closed:
                return
            self._closed = True
            for led in self._leds.values():
                led.off()
        self._wake.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=2)
        # Outside the lock: a driver may wait for its callback thread, which may be waiting
        # for the lock in _level; once _closed is set that callback does nothing.
        self._close_devices()

    # --- levels and time ---

    def tick(self, now: float | None = None) -> float | None:
        """Let Pads accept settled levels and find stuck buttons; returns when it next needs
        to be called (on this source's clock), or None."""
        with self._lock:
            if self._closed or self._pads is None:
                return None
            return self._pads.tick(self._clock() if now is None else now)

    def _emit(self, press: Press) -> None:
        if self._starting:
            log.info("buttons: seat %d %s was already down at start; not counted",
                     press.seat + 1, press.colour)
        else:
            self._on_press(press)

    def _level(self, seat: int, colour: str, pressed: bool) -> None:
        with self._lock:
            if self._closed or self._pads is None:
                return
            try:
                due = self._pads.level(seat, colour, pressed, self._clock())
            except Exception:
                # Raising here would unwind into the pin driver's own thread.
                log.exception("buttons: seat %d %s could not be read", seat + 1, colour)
                due = None
            # Only a bounce needs a tick sooner than planned: a stuck check is due
            # stuck_after from now, and the ticker never plans further ahead than that.
            sooner = due is not None and due < self._planned
        if sooner:
            self._wake.set()

    def _tick_forever(self) -> None:
        while True:
            self._wake.clear()  # before the tick: a level arriving after it wakes the wait
            if self._closed:  # read after the clear, so close()'s wake-up is never lost
                return
            with self._lock:
                now = self._clock()
                try:
                    due = self.tick(now)
                except Exception:
                    log.exception("buttons: the timed button checks failed")
                    due = None
                # At most stuck_after ahead, idle or not (one wake-up every 8 s by default):
                # then a button going down is never due before the plan, and a press wakes
                # nobody but the loop.
                horizon = now + self._stuck_after
                self._planned = horizon if due is None else min(due, horizon)
            self._wake.wait(max(0.0, self._planned - self._clock()))

    def _close_devices(self) -> None:
        for _, _, device in self._buttons:
            device.close()
        for led in self._leds.values():
            led.close()
        self._buttons.clear()
        self._leds.clear()


def _default_factory():
    """gpiozero's own choice of pin driver (lgpio on a current Pi OS). Its fallback warnings
    would go to stderr, which the kiosk draws on: they go to the log instead, and the first
    (the preferred driver's reason) into the error when no driver works.

    lgpio is imported here, first: LG_WD is set before, and the current directory, which
    lgpio's import changes to LG_WD, is put back after (./data stays the one meant)."""
    lgpio_workdir()
    try:
        here = os.getcwd()
    except OSError:
        here = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            Device.ensure_pin_factory()
        except Exception as error:
            reasons = [str(w.message).removeprefix("Falling back from ") for w in caught]
            for reason in reasons:
                log.warning("buttons: GPIO driver %s", reason)
            if (reasons and reasons[0].startswith("lgpio:") and _lgpio_missing()
                    and pi_model()):
                # a Pi, and gpiozero's first choice is not there: one package fixes it
                raise GpioUnavailable(f"no GPIO pin driver works on this machine: lgpio is "
                                      f"not installed ({INSTALL_LGPIO}); using the keyboard "
                                      "instead", install=INSTALL_LGPIO) from error
            why = reasons[0] if reasons else f"{type(error).__name__}: {error}"
            raise GpioUnavailable(f"no GPIO pin driver works on this machine ({why}); "
                                  "using the keyboard instead") from error
        finally:
            if here is not None and os.path.isdir(here):
                os.chdir(here)
    for warning in caught:
        log.info("buttons: %s", warning.message)
    if type(Device.pin_factory).__name__ == "NativeFactory" and _lgpio_missing():
        # a Pi 4 without lgpio: gpiozero's experimental driver works, but say what is better
        log.warning("buttons: lgpio is not installed (%s); using gpiozero's native driver",
                    INSTALL_LGPIO)
    return Device.pin_factory


def _lgpio_missing() -> bool:
    try:
        return importlib.util.find_spec("lgpio") is None
    except (ImportError, ValueError):
        return True
