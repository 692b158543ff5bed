"""What the button box does, with its pins, clock and USB writes handed in: scan the buttons
with a debounce, report each settled change as a DN or UP line, answer HI with HELLO and
PING with PONG, light the LEDs an LED line names.

main.py wires this to the Pico's pins; hardware/simbox.py wires it to virtual pins and a pty,
so the tests on the Pi's side run the very logic the box runs. MicroPython and CPython both
run this file (see dmproto.py for the subset).
"""
try:
    from . import dmproto  # CPython: hardware.firmware.box
except (ImportError, ValueError):
    import dmproto  # the Pico: a flat file beside main.py

FIRMWARE = "1.0"
SETTLE_MS = 20  # a level must hold this long to count; tactile and arcade switches bounce < 10 ms

# one entry per button: [seat, colour, pin, settled level, last raw level, when raw changed]
_SEAT, _COLOUR, _PIN, _STABLE, _RAW, _SINCE = 0, 1, 2, 3, 4, 5


def _plain_diff(a, b):
    return a - b


class Box:
    """`seats`: one (black, red, grey, led) tuple per seat. Buttons are input pins read with
    .value(), 0 when pressed (button to ground, internal pull-up); grey may be None. `led` is
    an output pin set with .value(0 or 1), or None. `write(bytes)` sends a line to the Pi.
    `diff(a, b)` is a - b for the clock's milliseconds (time.ticks_diff on the Pico, whose
    ticks wrap)."""

    def __init__(self, seats, write, settle_ms=SETTLE_MS, firmware=FIRMWARE, diff=None):
        if not 1 <= len(seats) <= dmproto.MAX_SEATS:
            raise ValueError("a box has 1 to %d seats" % dmproto.MAX_SEATS)
        self.write = write
        self.settle_ms = settle_ms
        self.firmware = firmware
        self._diff = diff or _plain_diff
        self.seats = len(seats)
        self.grey_mask = 0
        self._buttons = []
        self._leds = []
        for seat in range(len(seats)):
            black, red, grey, led = seats[seat]
            for colour, pin in ((dmproto.BLACK, black), (dmproto.RED, red),
                                (dmproto.GREY, grey)):
                if pin is not None:
                    # a button already down at power-on is taken as it is, not as a press:
                    # only changes are reported
                    down = pin.value() == 0
                    self._buttons.append([seat, colour, pin, down, down, 0])
            if grey is not None:
                self.grey_mask |= 1 << seat
            self._leds.append(led)
        self.seq = 0
        self.lit = 0
        self.refused = 0  # lines from the Pi that were noise, or not meant for a box
        self._lines = dmproto.LineBuffer()
        self.show(0)

    def hello(self):
        self.write(dmproto.hello(self.seats, self.grey_mask, self.firmware))

    def scan(self, now):
        """Read every button once; `now` in milliseconds. Call it every millisecond or so."""
        for button in self._buttons:
            down = button[_PIN].value() == 0
            if down != button[_RAW]:
                button[_RAW] = down
                button[_SINCE] = now
            if button[_RAW] != button[_STABLE] and \
                    self._diff(now, button[_SINCE]) >= self.settle_ms:
                button[_STABLE] = down
                self.write(dmproto.event(down, button[_SEAT], button[_COLOUR], self.seq))
                self.seq = (self.seq + 1) % dmproto.SEQ_MOD

    def feed(self, data):
        """Bytes that came from the Pi."""
        for line in self._lines.feed(data):
            try:
                kind, fields = dmproto.decode(line)
            except dmproto.ProtocolError:
                self.refused += 1
                continue
            if kind == dmproto.HI:
                self.hello()
            elif kind == dmproto.LED:
                self.show(fields[0])
            elif kind == dmproto.PING:
                self.write(dmproto.pong(fields[0]))
            else:
                self.refused += 1

    def show(self, mask):
        self.lit = mask & ((1 << self.seats) - 1)
        for seat in range(self.seats):
            led = self._leds[seat]
            if led is not None:
                led.value((self.lit >> seat) & 1)
