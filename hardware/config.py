"""The button box's config file (TOML): which box, and for GPIO which pin is which button.

A wrong pin map makes a seat vote for its neighbour, so everything is checked when the file
is read, and a mistake is refused with the file and the key it is in, never guessed at.
See hardware/buttons.example.toml and hardware/WIRING.md.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, fields

DEFAULT_PATH = "/etc/darkmoon-companion/buttons.toml"
# The documented 7-seat GPIO map (hardware/WIRING.md), shipped with the package.
EXAMPLE_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "buttons.example.toml")
MAX_SEATS = 7
BCM_PINS = range(0, 28)  # the 40-pin header's GPIO0..GPIO27


class ConfigError(Exception):
    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class GpioSeat:
    """One seat's pins, as BCM GPIO numbers. Buttons go to ground; the LED is active high."""
    black: int
    red: int
    grey: int | None = None
    led: int | None = None

    def pins(self) -> dict[str, int]:
        return {f.name: getattr(self, f.name) for f in fields(self)
                if getattr(self, f.name) is not None}


@dataclass(frozen=True)
class ButtonConfig:
    gpio: tuple[GpioSeat, ...] = ()
    serial: str | None = None  # a port path, or "auto" (the first Pico in /dev/serial/by-id)
    settle: float = 0.02  # seconds a level must hold before it counts (debounce)
    stuck_after: float = 8.0  # seconds down before a button is called stuck
    path: str | None = None  # where it was read from, for messages


def load(path) -> ButtonConfig:
    """Read and check a config file. Raises ConfigError naming the file and the key."""
    import tomllib  # only a table with a box has the file: the others start without it
    path = str(path)
    try:
        with open(path, "rb") as handle:
            data = tomllib.load(handle)
    except OSError as error:
        raise ConfigError(f"cannot read {path}: {error.strerror}") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path} is not valid TOML: {error}") from None
    return parse(data, path)


def parse(data: dict, path: str = "<config>") -> ButtonConfig:
    def fail(message: str):
        raise ConfigError(f"{path}: {message}")

    unknown = set(data) - {"gpio", "serial", "buttons"}
    if unknown:
        fail(f"unknown table [{sorted(unknown)[0]}]; expected [gpio], [serial] or [buttons]")
    if "gpio" in data and "serial" in data:
        fail("both [gpio] and [serial]: choose the one box that is connected")
    settle, stuck_after = _timing(data.get("buttons", {}), fail)
    if "serial" in data:
        port = _table(data["serial"], "serial", {"port"}, fail).get("port", "auto")
        if not isinstance(port, str) or not port:
            fail("[serial] port must be a device path such as /dev/ttyACM0, or \"auto\"")
        return ButtonConfig(serial=port, settle=settle, stuck_after=stuck_after, path=path)
    if "gpio" in data:
        seats = _table(data["gpio"], "gpio", {"seats"}, fail).get("seats")
        return ButtonConfig(gpio=_gpio_seats(seats, fail), settle=settle,
                            stuck_after=stuck_after, path=path)
    fail("no [gpio] or [serial] table: which box is connected?")


def _table(value, name: str, keys: set[str], fail) -> dict:
    if not isinstance(value, dict):
        fail(f"[{name}] must be a table")
    unknown = set(value) - keys
    if unknown:
        fail(f"unknown key {sorted(unknown)[0]!r} in [{name}]; expected {', '.join(sorted(keys))}")
    return value


def _timing(buttons, fail) -> tuple[float, float]:
    buttons = _table(buttons, "buttons", {"settle_ms", "stuck_seconds"}, fail)
    settle = buttons.get("settle_ms", 20)
    stuck = buttons.get("stuck_seconds", 8)
    if isinstance(settle, bool) or not isinstance(settle, (int, float)) or not 0 <= settle <= 200:
        fail("[buttons] settle_ms must be a number from 0 to 200")
    if isinstance(stuck, bool) or not isinstance(stuck, (int, float)) or not 1 <= stuck <= 600:
        fail("[buttons] stuck_seconds must be a number from 1 to 600")
    return settle / 1000, float(stuck)


def _gpio_seats(seats, fail) -> tuple[GpioSeat, ...]:
    if not isinstance(seats, list) or not 1 <= len(seats) <= MAX_SEATS:
        fail(f"[gpio] seats must be a list of 1 to {MAX_SEATS} seats, "
             "each like { black = 4, red = 17, led = 18 }")
    result, used = [], {}
    for number, seat in enumerate(seats, 1):
        where = f"[gpio] seat {number}"
        if not isinstance(seat, dict):
            fail(f"{where} must be a table like {{ black = 4, red = 17 }}")
        unknown = set(seat) - {"black", "red", "grey", "led"}
        if unknown:
            fail(f"{where}: unknown key {sorted(unknown)[0]!r}; "
                 "expected black, red, grey or led")
        for key in ("black", "red"):
            if key not in seat:
                fail(f"{where} has no {key} pin")
        for key, pin in seat.items():
            if isinstance(pin, bool) or not isinstance(pin, int) or pin not in BCM_PINS:
                fail(f"{where} {key} = {pin!r}: a pin is a BCM GPIO number from 0 to 27")
            if pin in used:
                fail(f"{where} {key} = {pin} is already {used[pin]}")
            used[pin] = f"seat {number} {key}"
        result.append(GpioSeat(**seat))
    return tuple(result)
