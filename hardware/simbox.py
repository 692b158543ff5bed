"""A button box with no hardware: the Pico's own logic (hardware/firmware/box.py) on virtual
pins, talking through a real pseudo-terminal, for the tests, the benchmark and trying the
serial backend on a laptop.

The backend opens `sim.path`, a symlink to the pty's device, just as it opens a name in
/dev/serial/by-id. unplug() closes the box's end (the backend's next read fails as on a real
unplug) and removes the name; replug() makes a new pty, points the name at it and boots a
fresh box, as a Pico powered from the cable does.

    sim = SimBox(seats=5, grey={0})
    source = SerialSource(sim.path)
    sim.press(2, "black"); sim.release(2, "black")

Run it alone (python -m hardware.simbox) to get a box to try by hand: it prints its path,
then reads commands such as "press 3 black" from stdin.
"""
from __future__ import annotations

import fcntl
import os
import select
import shutil
import tempfile
import threading
import time
import tty
from typing import Callable, Collection

from .firmware import dmproto
from .firmware.box import Box

SETTLE_MS = 20


class VirtualPin:
    """A pin as box.py sees it: .value() reads, .value(v) sets. Buttons idle high (pulled
    up) and read 0 while pressed; LEDs start dark."""

    def __init__(self, level: int = 1):
        self.level = level

    def value(self, level: int | None = None) -> int | None:
        if level is None:
            return self.level
        self.level = level
        return None


class SimBox:
    """A box of `seats` seats, GREY buttons on the seats in `grey`. `speaks` is the protocol
    version its lines carry (a box with newer firmware speaks 2)."""

    def __init__(self, seats: int = 7, grey: Collection[int] = (), *, speaks: int = 1,
                 firmware: str = "sim-1.0"):
        self.speaks = speaks
        self.firmware = firmware
        self.dir = tempfile.mkdtemp(prefix="simbox-")
        self.path = os.path.join(self.dir, "usb-DarkMoon_SimBox-if00")
        self.pins = [(VirtualPin(), VirtualPin(), VirtualPin() if s in grey else None,
                      VirtualPin(0)) for s in range(seats)]
        self.leds_seen: list[int] = []  # each LED mask sent to the box since it booted
        self.last_write = 0.0  # time.perf_counter() just before the box's latest line went out
        self.muted = False  # a hung firmware: hears nothing, says nothing
        self._now = 0  # the box's clock, in milliseconds, moved on by press() and release()
        self._changed = threading.Condition(threading.RLock())
        self._master: int | None = None
        self._slave: int | None = None
        self._reader: threading.Thread | None = None
        self._wake_r, self._wake_w = os.pipe()
        self.box: Box | None = None
        self.replug()

    # --- the cable ---

    @property
    def plugged(self) -> bool:
        return self._master is not None

    def replug(self) -> None:
        """Plug the box in: a new pty under the same name, and the box boots and says hello."""
        if self.plugged:
            self.unplug()
        master, slave = os.openpty()
        tty.setraw(slave)
        # the box's end never blocks: a Pico drops what the Pi does not read
        fcntl.fcntl(master, fcntl.F_SETFL, fcntl.fcntl(master, fcntl.F_GETFL) | os.O_NONBLOCK)
        with self._changed:
            self._master, self._slave = master, slave  # the slave stays open: the device exists
        link = self.path + ".new"
        os.symlink(os.ttyname(slave), link)
        os.replace(link, self.path)
        self._reader = threading.Thread(target=self._read, name="simbox", daemon=True)
        self._reader.start()
        self.restart()

    def restart(self) -> None:
        """The box starts afresh (power-on, a brown-out, new firmware): LEDs dark, event
        numbers from 0, and a hello, heard only if the Pi has the port open."""
        with self._changed:
            self.leds_seen = []
            for pins in self.pins:
                pins[3].value(0)
            self.box = Box(self.pins, self._write, settle_ms=SETTLE_MS, firmware=self.firmware)
            self.box.show = self._recording(self.box.show)
            self.box.hello()

    def unplug(self) -> None:
        """Pull the cable: the name goes away and the backend's port fails."""
        if not self.plugged:
            return
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            pass
        os.write(self._wake_w, b"x")
        self._reader.join(5)
        os.read(self._wake_r, 64)
        with self._changed:
            os.close(self._master)
            os.close(self._slave)
            self._master = self._slave = None
            self._changed.notify_all()

    def close(self) -> None:
        self.unplug()
        os.close(self._wake_r)
        os.close(self._wake_w)
        shutil.rmtree(self.dir, ignore_errors=True)

    # --- fingers on the buttons ---

    def press(self, seat: int, colour: str, bounces: int = 0) -> None:
        """Push a button down, chattering `bounces` times first; returns once the box has
        sent its line (or decided not to)."""
        self._set(seat, colour, True, bounces)

    def release(self, seat: int, colour: str, bounces: int = 0) -> None:
        self._set(seat, colour, False, bounces)

    def tap(self, seat: int, colour: str) -> None:
        self.press(seat, colour)
        self.release(seat, colour)

    def _set(self, seat: int, colour: str, down: bool, bounces: int) -> None:
        if not 0 <= seat < len(self.pins) or colour not in dmproto.COLOURS:
            raise ValueError(f"no seat index {seat} with a {colour} button on this box")
        pin = self.pins[seat][dmproto.COLOURS.index(colour)]
        if pin is None:
            raise ValueError(f"seat index {seat} has no {colour} button")
        with self._changed:
            for i in range(bounces * 2):
                pin.value(0 if down == (i % 2 == 0) else 1)
                self._scan(1)
            pin.value(0 if down else 1)
            self._scan(0)
            self._scan(SETTLE_MS)

    def _scan(self, after_ms: int) -> None:
        self._now += after_ms
        if self.box is not None and not self.muted:
            self.box.scan(self._now)

    # --- what the box hears and says ---

    def lit(self) -> frozenset[int]:
        """The seats whose LED is on, as players see them."""
        return frozenset(s for s, pins in enumerate(self.pins) if pins[3].level)

    def wait_leds(self, check: Callable[[list[int]], bool], timeout: float = 10.0) -> bool:
        """Wait until check(leds_seen) holds; False after `timeout` seconds."""
        with self._changed:
            return self._changed.wait_for(lambda: check(self.leds_seen), timeout)

    def send_raw(self, data: bytes) -> None:
        """Put bytes on the wire as they are: noise, half lines, lines of another version."""
        with self._changed:
            if self._master is not None:
                self._put(data)

    def _recording(self, show: Callable[[int], None]) -> Callable[[int], None]:
        def recorded(mask: int) -> None:
            show(mask)
            self.leds_seen.append(mask)
            self._changed.notify_all()
        return recorded

    def _write(self, line: bytes) -> None:
        """box.py's write(): always called with the lock held."""
        if self._master is None:
            return
        if self.speaks != dmproto.VERSION:
            body = line.decode()[:line.rfind(b" *")]
            line = dmproto.frame(f"DM{self.speaks}" + body[len(dmproto.PREFIX):])
        self.last_write = time.perf_counter()
        self._put(line)

    def _put(self, data: bytes) -> None:
        try:
            os.write(self._master, data)
        except BlockingIOError:
            pass  # nobody reads the port: dropped, as the Pico's USB serial drops it
        except OSError:
            pass  # the backend's end went away between its reads

    def _read(self) -> None:
        master = self._master
        while True:
            ready, _, _ = select.select([master, self._wake_r], [], [])
            if self._wake_r in ready:
                return
            try:
                data = os.read(master, 1024)
            except BlockingIOError:
                continue
            except OSError:
                time.sleep(0.01)  # no one has the port open right now
                continue
            with self._changed:
                if not self.muted and self.box is not None:
                    self.box.feed(data)


def _main() -> None:  # pragma: no cover - a tool for trying the backend by hand
    import sys
    sim = SimBox(seats=int(sys.argv[1]) if len(sys.argv) > 1 else 7)
    sys.stdout.write(f"box at {sim.path}\n"
                     "commands: press|release|tap SEAT(1-7) black|red|grey, unplug, replug, "
                     "leds, quit\n")
    sys.stdout.flush()
    for line in sys.stdin:
        words = line.split()
        try:
            if words[:1] in (["press"], ["release"], ["tap"]):
                getattr(sim, words[0])(int(words[1]) - 1, words[2])
            elif words == ["unplug"]:
                sim.unplug()
            elif words == ["replug"]:
                sim.replug()
            elif words == ["leds"]:
                sys.stdout.write(f"lit: {sorted(s + 1 for s in sim.lit())}\n")
            elif words == ["quit"]:
                break
        except (IndexError, ValueError) as error:
            sys.stdout.write(f"? {error or 'press SEAT COLOUR'}\n")
        sys.stdout.flush()
    sim.close()


if __name__ == "__main__":  # pragma: no cover
    _main()
