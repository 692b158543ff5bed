"""MicroPython on a Raspberry Pi Pico: the Dark Moon seat-button box.

Copy this file, box.py and dmproto.py to the Pico (hardware/WIRING.md says how). It talks to
the Pi over the USB cable's serial port (USB CDC) in the protocol of docs/serial-protocol.md.
Everything but the pins and the USB port is in box.py, which the Pi's tests run too.

Ctrl-C is left working on purpose: the Pi only ever sends printable ASCII lines, and
mpremote needs Ctrl-C to stop this program when new firmware is copied in.
"""
import select
import sys
import time

from machine import Pin

from box import Box

# Pico GP numbers per seat: (BLACK, RED, GREY or None, LED). Buttons go from the pin to GND
# (internal pull-up); each LED from its pin through 330 ohm to GND. A seat without a GREY
# button abstains with BLACK and RED held together. GP21, GP22, GP26, GP27 and GP28 are free
# for GREY buttons on seats 1 to 5: put the number in the third place of that seat.
PINS = (
    (0, 1, None, 2),  # seat 1
    (3, 4, None, 5),  # seat 2
    (6, 7, None, 8),  # seat 3
    (9, 10, None, 11),  # seat 4
    (12, 13, None, 14),  # seat 5
    (15, 16, None, 17),  # seat 6
    (18, 19, None, 20),  # seat 7
)


def _button(gp):
    return None if gp is None else Pin(gp, Pin.IN, Pin.PULL_UP)


def _led(gp):
    return None if gp is None else Pin(gp, Pin.OUT, value=0)


def run():
    seats = [(_button(black), _button(red), _button(grey), _led(led))
             for black, red, grey, led in PINS]
    # bytes as they are: the text streams may turn "\n" into "\r\n" (the Pi accepts both)
    out = getattr(sys.stdout, "buffer", sys.stdout)
    inp = getattr(sys.stdin, "buffer", None)

    def write(line):
        if out is sys.stdout:
            out.write(line.decode())
        else:
            out.write(line)

    box = Box(seats, write, diff=time.ticks_diff)
    try:
        Pin("LED", Pin.OUT).value(1)  # the board's own LED: the firmware is running
    except (TypeError, ValueError):
        pass
    poller = select.poll()
    poller.register(sys.stdin, select.POLLIN)
    box.hello()  # the Pi may be listening already; if not, it asks with HI
    while True:
        box.scan(time.ticks_ms())
        for _ in range(64):  # at most one line's worth per pass, so scanning goes on
            if not poller.poll(0):
                break
            box.feed(inp.read(1) if inp is not None else sys.stdin.read(1).encode())
        time.sleep_ms(1)


run()
