"""Where seat presses come from: a GPIO box, a USB-serial box or, failing both, the keyboard.

Every source emits Press(seat, colour, time) and Notice, and lights the LEDs it is told to;
none of them knows what a press means in the game. `open_source` picks one from the config
file and always returns something that works, with a sentence saying why when it had to
fall back to the keyboard: a table must be able to play even when the box is missing.
"""
from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from enum import StrEnum
from typing import Callable, Protocol

from . import config
from .pad import Notice, Press

log = logging.getLogger(__name__)


class SourceKind(StrEnum):
    """Which kind of box a Source is (the kiosk names it in the room's language)."""
    KEYBOARD = "keyboard"
    GPIO = "gpio"
    SERIAL = "serial"  # counts as connected only once the box says hello


class FallbackReason(StrEnum):
    """Why the keyboard stands in for a button box."""
    UNCONFIGURED = "unconfigured"  # no config file: a table with phones and a keyboard only
    CONFIG = "config"  # the config file has a mistake
    GPIO = "gpio"  # the GPIO pins could not be used
    NO_LGPIO = "no_lgpio"  # no GPIO driver, for want of lgpio: the detail is what to install


class Source(Protocol):
    kind: SourceKind
    seats: int  # seats it has buttons for (0 until a serial box says hello)

    def start(self, on_press: Callable[[Press], None],
              on_notice: Callable[[Notice], None]) -> None:
        """Begin reporting. Callbacks may come from any thread."""

    def show_leds(self, lit: frozenset[int]) -> None:
        """Light these seats' LEDs, darken the rest. Never blocks."""

    def close(self) -> None:
        ...


class KeyboardSource:
    """The kiosk reads the keys itself (hardware/keyboard.py); this only says so."""
    kind = SourceKind.KEYBOARD
    seats = 7

    def start(self, on_press, on_notice) -> None:
        pass

    def show_leds(self, lit: frozenset[int]) -> None:
        pass

    def close(self) -> None:
        pass


@dataclass(frozen=True)
class Fallback:
    """Why the keyboard stands in for a button box: the kiosk says it in the room's
    language from `reason`, with `detail` (a path, or the config file's mistake) as is."""
    reason: FallbackReason  # given as a FallbackReason or its word; any other is a ValueError
    detail: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "reason", FallbackReason(self.reason))


def open_source(path: str | None = None,
                default: str = config.DEFAULT_PATH) -> tuple[Source, Fallback | None]:
    """The configured source, or the keyboard and why. `path` None means the default file,
    whose absence is normal (a table with phones and a keyboard only). A file that cannot be
    used is not fatal either: the kiosk comes up on the keyboard and shows the reason."""
    path = path or default
    if not os.path.exists(path):
        return KeyboardSource(), Fallback(FallbackReason.UNCONFIGURED, path)
    try:
        settings = config.load(path)
    except config.ConfigError as error:
        log.error("buttons: %s", error.message)
        return KeyboardSource(), Fallback(FallbackReason.CONFIG, error.message)
    if settings.gpio:
        from .gpio import GpioSource, GpioUnavailable
        try:
            return GpioSource(settings.gpio, settle=settings.settle,
                              stuck_after=settings.stuck_after), None
        except GpioUnavailable as error:
            log.error("buttons: %s", error)
            if error.install:
                return KeyboardSource(), Fallback(FallbackReason.NO_LGPIO, error.install)
            return KeyboardSource(), Fallback(FallbackReason.GPIO, str(error))
    from .serialbox import SerialSource
    # The box debounces in its firmware; a second settle here would hold back a quick tap's
    # release until after a later press.
    return SerialSource(settings.serial, stuck_after=settings.stuck_after), None
