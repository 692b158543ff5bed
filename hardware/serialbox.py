"""The USB-serial button box (a Raspberry Pi Pico running hardware/firmware/) as a Source.

One reader thread owns the port: it opens it, asks the box to say hello, turns its lines
into button levels for hardware.pad.Pads (which makes presses, chords and stuck buttons
exactly as for the GPIO box), and on an unplug closes the port, tells the table, and tries
again with a growing pause until the box is back. The protocol is docs/serial-protocol.md;
its codec, hardware/firmware/dmproto.py, is the very file the box runs.

A line that is noise, cut, too long or fails its CRC is dropped, counted and logged once per
burst, and changes nothing. A box of another protocol version is refused, and its lines
ignored, until a box of this version says hello.
"""
from __future__ import annotations

import glob
import logging
import os
import threading
import time
from typing import Callable

import serial

from .firmware import dmproto
from .pad import Notice, Pads, Press

log = logging.getLogger(__name__)

BY_ID = "/dev/serial/by-id"
FALLBACK_PORT = "/dev/ttyACM0"
# how a Pico running MicroPython names itself in /dev/serial/by-id (USB vendor 2e8a is
# Raspberry Pi): usb-MicroPython_Board_in_FS_mode_<serial>-if00
_PICO_NAMES = ("micropython", "pico", "raspberry", "2e8a")

# where the reader stands with the box on the other end
_CLOSED, _WAITING, _CONNECTED, _REFUSED = "closed", "waiting", "connected", "refused"


class _Elsewhere(Exception):
    """With port "auto": no box answered on the port that was opened, and a Pico has since
    appeared under another name."""


def find_port(spec: str | None, by_id: str = BY_ID) -> str:
    """The device to open: `spec` itself, or for "auto" the first Pico in `by_id` (these
    names stay the same whichever USB socket the box is in), else /dev/ttyACM0."""
    if spec and spec != "auto":
        return spec
    for path in sorted(glob.glob(os.path.join(by_id, "*"))):
        if any(name in os.path.basename(path).lower() for name in _PICO_NAMES):
            return path
    return FALLBACK_PORT


class SerialSource:
    """A Source (hardware/source.py) for the serial button box.

    `seats` is the count from the box's last HELLO (0 before one). The box debounces in its
    firmware, so `settle` (Pads's, on the Pi's clock) can stay 0; a few milliseconds more only
    hold back a release that reached the Pi together with its press. `retry` is the first and
    the longest pause between attempts to open the port; the pause doubles after each
    failure. While connected the box is pinged every `ping_every` seconds, and a box heard
    from for none of `quiet_after` seconds (its firmware hung) counts as disconnected.
    """

    kind = "serial"

    def __init__(self, port: str | None = "auto", *, settle: float = 0.0,
                 stuck_after: float = 8.0, clock: Callable[[], float] = time.monotonic,
                 retry: tuple[float, float] = (0.2, 5.0), ping_every: float = 2.0,
                 quiet_after: float = 5.0, by_id: str = BY_ID):
        self.port = port or "auto"
        self.seats = 0
        self.grey: frozenset[int] = frozenset()
        self.firmware: str | None = None
        self.dropped = 0  # lines refused as noise since start, for the journal and the tests
        self._settle = settle
        self._stuck_after = stuck_after
        self._clock = clock
        self._retry = retry
        self._ping_every = ping_every
        self._quiet_after = quiet_after
        self._by_id = by_id
        self._on_press: Callable[[Press], None] = lambda press: None
        self._on_notice: Callable[[Notice], None] = lambda notice: None
        # Writers (show_leds on the loop's thread, the reader thread) take this lock, held
        # for one short write at most; it also guards _port, _state and _mask, so an LED
        # mask re-sent after a hello can never overtake a newer one.
        self._lock = threading.Lock()
        self._port: serial.Serial | None = None
        self._state = _CLOSED
        self._mask = 0
        self._sent: int | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        # reader thread only
        self._pads: Pads | None = None
        self._last_seq: int | None = None
        self._heard = self._opened = 0.0
        self._burst = 0
        self._path = ""
        self._told_down = False

    # --- the Source protocol ---

    def start(self, on_press: Callable[[Press], None],
              on_notice: Callable[[Notice], None]) -> None:
        self._on_press, self._on_notice = _guarded(on_press), _guarded(on_notice)
        self._thread = threading.Thread(target=self._run, name="serial-box", daemon=True)
        self._thread.start()

    def show_leds(self, lit: frozenset[int]) -> None:
        """Remember the mask and send it if a box is listening; a box that says hello later
        gets it then. Never waits longer than one short write."""
        mask = 0
        for seat in lit:
            if 0 <= seat < dmproto.MAX_SEATS:
                mask |= 1 << seat
        with self._lock:
            self._mask = mask
            if self._state == _CONNECTED and mask != self._sent:
                self._write(dmproto.led(mask))
                self._sent = mask

    def close(self) -> None:
        self._stop.set()
        with self._lock:
            port = self._port
        if port is not None:
            try:
                port.cancel_read()  # wakes the reader out of its read at once
            except OSError:
                pass
        if self._thread is not None:
            self._thread.join(5)

    # --- the reader thread ---

    def _run(self) -> None:
        pause = self._retry[0]
        while not self._stop.is_set():
            path = find_port(self.port, self._by_id)
            try:
                # DTR stays on (pyserial's default): MicroPython's USB serial only sends
                # while it is set, and a Pico, unlike Arduino-style boards, does not reset
                # when it changes. exclusive: no second program (a modem prober) shares it.
                port = serial.Serial(path, 115200, timeout=0.1, write_timeout=0.05,
                                     exclusive=True)
            except (serial.SerialException, OSError, ValueError) as error:
                self._down(f"no serial button box at {path} ({error}); retrying")
                self._stop.wait(pause)
                pause = min(pause * 2, self._retry[1])
                continue
            pause = self._retry[0]
            log.info("serial box: opened %s", path)
            error = None
            try:
                self._session(port, path)
            except (serial.SerialException, OSError) as lost:
                error = lost
            except _Elsewhere:
                continue  # (closed in the finally clause) open the new name at once
            except Exception as bug:  # keep the buttons alive; the journal has the trace
                log.exception("serial box: reader failed")
                error = bug
            finally:
                with self._lock:
                    self._state, self._port, self._sent = _CLOSED, None, None
                self._pads = None
                try:
                    port.close()
                except (serial.SerialException, OSError):
                    pass
            if not self._stop.is_set():
                self._down(f"serial button box at {path} lost ({error})")
                self._stop.wait(pause)

    def _down(self, detail: str) -> None:
        """Tell the table once per outage, however many attempts it takes to end it."""
        if not self._told_down:
            self._told_down = True
            self._notice("disconnected", detail)

    def _session(self, port: serial.Serial, path: str) -> None:
        self._path = path
        self._pads, self._last_seq, self._burst = None, None, 0
        lines = dmproto.LineBuffer()
        with self._lock:
            self._port, self._state = port, _WAITING
        now = self._clock()
        self._heard = self._opened = now
        self._send(dmproto.hi())  # the box's own hello at power-on may have gone unheard
        next_ping = now + self._ping_every
        while not self._stop.is_set():
            data = port.read(1)  # waits up to the read timeout for the first byte
            if data and port.in_waiting:
                data += port.read(port.in_waiting)
            now = self._clock()
            if data:
                for line in lines.feed(data):
                    self._line(line, now)
            if self._pads is not None:
                self._tick(port, now)
            if now >= next_ping:
                next_ping = now + self._ping_every
                self._keep_alive(now)

    def _tick(self, port: serial.Serial, now: float) -> None:
        """Let Pads accept levels that have settled and find stuck buttons. A level it holds
        back (a release that came in the same USB packet as its press) is due within
        `settle`: wait for it here rather than a whole read timeout, unless more lines are
        already in."""
        due = self._pads.tick(now)
        while due is not None and due - now <= self._settle and not port.in_waiting and \
                not self._stop.is_set():
            self._stop.wait(max(0.0, due - now))
            now = self._clock()
            due = self._pads.tick(now)

    def _keep_alive(self, now: float) -> None:
        if self._state == _CONNECTED and now - self._heard > self._quiet_after:
            with self._lock:
                self._state = _WAITING
            self._pads = None
            self._down(f"serial button box at {self._path} stopped answering for "
                       f"{self._quiet_after:g} s")
        elif self._state == _WAITING and now - self._opened > self._quiet_after:
            self._down(f"{self._path} is open but no button box says hello there; "
                       "is the firmware on it?")
        if self._state != _CONNECTED and find_port(self.port, self._by_id) != self._path:
            raise _Elsewhere()
        # a hung or refused box is asked for hello again, in case it was restarted
        self._send(dmproto.ping(int(now)) if self._state == _CONNECTED else dmproto.hi())

    def _line(self, line: bytes, now: float) -> None:
        try:
            kind, fields = dmproto.decode(line)
        except dmproto.UnknownVersion as error:
            self._refuse(error.version)
            return
        except dmproto.BadLine as error:
            self._drop(str(error), line)
            return
        if kind not in dmproto.TO_PI:
            self._drop("a line meant for the box (a MicroPython prompt echoing?)", line)
            return
        if self._burst > 1:
            log.warning("serial box: %d bad lines in a row were dropped", self._burst)
        self._burst = 0
        if kind == dmproto.HELLO:
            self._heard = now
            self._hello(*fields)
        elif self._state != _CONNECTED:
            log.debug("serial box: %s before a hello, ignored", kind)
        elif kind == dmproto.PONG:
            self._heard = now
        else:
            self._heard = now
            self._event(kind == dmproto.DN, *fields, now=now, line=line)

    def _hello(self, seats: int, grey_mask: int, firmware: str) -> None:
        grey = frozenset(s for s in range(seats) if grey_mask >> s & 1)
        # a fresh Pads: levels held before a replug or a box restart are forgotten
        self._pads = Pads(seats, grey, self._on_press, self._on_notice,
                          settle=self._settle, stuck_after=self._stuck_after)
        self._last_seq = None
        self.seats, self.grey, self.firmware = seats, grey, firmware
        with self._lock:
            was, self._state = self._state, _CONNECTED
            # the box may have restarted with its LEDs dark: always send the mask again
            self._write(dmproto.led(self._mask))
            self._sent = self._mask
        self._told_down = False
        if was != _CONNECTED:
            where = ", ".join(str(s + 1) for s in sorted(grey)) or "none"
            self._notice("connected", f"serial button box at {self._path}: {seats} seats, "
                                      f"GREY buttons on seats {where}, firmware {firmware}")

    def _event(self, down: bool, seat: int, colour: str, seq: int, *, now: float,
               line: bytes) -> None:
        if seat >= self.seats or (colour == dmproto.GREY and seat not in self.grey):
            self._drop(f"a button the box said it lacks (seat {seat + 1} {colour})", line)
        elif not dmproto.newer(seq, self._last_seq):
            log.debug("serial box: event %d repeated, counted once", seq)
        else:
            self._last_seq = seq
            self._pads.level(seat, colour, down, now)

    def _refuse(self, version: int) -> None:
        if self._state == _REFUSED:
            return
        with self._lock:
            self._state = _REFUSED
        self._pads = None
        self.seats, self.grey = 0, frozenset()
        self._notice("refused", f"box speaks protocol {version}; "
                                f"this companion speaks {dmproto.VERSION}")

    def _drop(self, why: str, line: bytes) -> None:
        self.dropped += 1
        self._burst += 1
        if self._burst == 1:
            log.warning("serial box: dropped a line (%s): %r", why, line[:dmproto.LINE_MAX])

    # --- writing ---

    def _send(self, line: bytes) -> None:
        with self._lock:
            self._write(line)

    def _write(self, line: bytes) -> None:
        """Write with the lock held. A failure is only logged: the reader finds an unplug
        on its next read, and the LED mask is sent again after the next hello."""
        port = self._port
        if port is None:
            return
        try:
            port.write(line)
        except (serial.SerialException, OSError) as error:
            self._sent = None
            log.warning("serial box: could not write to %s: %s", self._path, error)

    def _notice(self, kind: str, detail: str) -> None:
        log.info("serial box: %s: %s", kind, detail)
        self._on_notice(Notice(kind, detail=detail))


def _guarded(callback: Callable) -> Callable:
    """A callback whose failure is logged rather than ending the reader thread: the table
    keeps its buttons even if one listener breaks."""
    def call(arg) -> None:
        try:
            callback(arg)
        except Exception:
            log.exception("serial box: a listener failed on %r", arg)
    return call
