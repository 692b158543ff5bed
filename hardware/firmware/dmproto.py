"""The button box's line protocol, version 1: one codec for both ends of the USB cable.

This file is copied to the Raspberry Pi Pico beside main.py and imported by
hardware/serialbox.py on the Pi, so it is written in what MicroPython and CPython both run:
no dataclasses, typing, f-strings or str methods MicroPython may lack. docs/serial-protocol.md
describes the protocol; in short, a line is

    DM1 <TYPE> <fields...> *<CRC-8 of everything before " *", two hex digits>\\n

at most LINE_MAX bytes with the newline. Anything else is refused with BadLine (noise, a
cut or overlong line, a wrong CRC, unknown fields) or UnknownVersion (a well-framed line of
another protocol version), and the caller changes nothing.
"""

VERSION = 1
PREFIX = "DM1"
LINE_MAX = 64  # bytes, newline included: a USB full-speed packet, and a small buffer on the box
MAX_SEATS = 7
SEQ_MOD = 65536

BLACK, RED, GREY = "black", "red", "grey"
COLOURS = (BLACK, RED, GREY)
_LETTER = {BLACK: "B", RED: "R", GREY: "G"}
_COLOUR = {"B": BLACK, "R": RED, "G": GREY}

# Types of line. Box -> Pi: HELLO, DN, UP, PONG. Pi -> box: HI, LED, PING.
HELLO, DN, UP, PONG = "HELLO", "DN", "UP", "PONG"
HI, LED, PING = "HI", "LED", "PING"
TO_PI = (HELLO, DN, UP, PONG)
TO_BOX = (HI, LED, PING)

_DIGITS = "0123456789"
_HEX = "0123456789ABCDEF"  # upper case only: one spelling per line, so the CRC covers it all
_NAME = _DIGITS + "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ._-+"


class ProtocolError(Exception):
    """A line that is refused; str() says why. The line changes nothing."""


class BadLine(ProtocolError):
    """Noise, a cut or overlong line, a wrong CRC, or fields that do not parse."""


class UnknownVersion(ProtocolError):
    """A correctly framed line of another protocol version (`version`, an int)."""

    def __init__(self, version):
        ProtocolError.__init__(self, "protocol version %d, not %d" % (version, VERSION))
        self.version = version


def _table():
    # CRC-8, polynomial 0x07, initial value 0 (CRC-8/SMBUS): catches every changed
    # character (any burst of up to 8 bits) and any odd number of flipped bits; other
    # damage slips past it about once in 256 times, and most of that fails the grammar
    table = bytearray(256)
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = ((crc << 1) ^ 0x07) & 0xFF if crc & 0x80 else (crc << 1) & 0xFF
        table[byte] = crc
    return bytes(table)


_CRC = _table()


def crc8(data):
    crc = 0
    for byte in data:
        crc = _CRC[crc ^ byte]
    return crc


def frame(body):
    """A body such as "DM1 LED 05" as a whole line (bytes) with its CRC and newline."""
    raw = body.encode()
    return raw + (" *%02X\n" % crc8(raw)).encode()


def encode(kind, *fields):
    return frame(" ".join([PREFIX, kind] + [str(f) for f in fields]))


# --- the lines, one builder each ---

def hello(seats, grey_mask, firmware):
    """The box introduces itself: how many seats, which have a GREY button (bit n = seat
    index n), its firmware version (letters, digits and ._-+)."""
    return encode(HELLO, seats, "%02X" % grey_mask, firmware)


def event(down, seat, colour, seq):
    """A debounced button change on the box. `seat` from 0 (the wire counts from 1, like
    the labels on the box); `seq` counts the box's events modulo SEQ_MOD."""
    return encode(DN if down else UP, seat + 1, _LETTER[colour], seq % SEQ_MOD)


def hi():
    return encode(HI)


def led(mask):
    """Seats whose LED is lit: bit n = seat index n."""
    return encode(LED, "%02X" % mask)


def ping(n):
    return encode(PING, n % SEQ_MOD)


def pong(n):
    return encode(PONG, n % SEQ_MOD)


# --- reading ---

def _int(text, low, high, what):
    if not 0 < len(text) <= 5:
        raise BadLine("bad " + what)
    for char in text:
        if char not in _DIGITS:
            raise BadLine("bad " + what)
    value = int(text)
    if not low <= value <= high:
        raise BadLine(what + " out of range")
    return value


def _mask(text, what):
    if len(text) != 2 or text[0] not in _HEX or text[1] not in _HEX:
        raise BadLine("bad " + what)
    value = int(text, 16)
    if value >> MAX_SEATS:
        raise BadLine(what + " names a seat past " + str(MAX_SEATS))
    return value


def _version(word):
    # "DM" and 1 to 3 digits; anything else is not this protocol's family at all
    if len(word) < 3 or len(word) > 5 or word[:2] != "DM" or word[2] == "0":
        return None
    for char in word[2:]:
        if char not in _DIGITS:
            return None
    return int(word[2:])


def decode(line):
    """A line (bytes, with or without its "\\n" or "\\r\\n") -> (type, fields):

        (HELLO, (seats, grey_mask, firmware))   (DN or UP, (seat from 0, colour, seq))
        (LED, (mask,))   (PING or PONG, (n,))   (HI, ())

    Raises BadLine or UnknownVersion."""
    if len(line) > LINE_MAX:
        raise BadLine("line longer than %d bytes" % LINE_MAX)
    end = len(line)
    if end and line[end - 1] == 10:
        end -= 1
    if end and line[end - 1] == 13:
        end -= 1
    for i in range(end):
        if not 32 <= line[i] <= 126:
            raise BadLine("not printable ASCII")
    text = bytes(line[:end]).decode()
    star = text.rfind(" *")
    if star < 0 or len(text) != star + 4 or text[star + 2] not in _HEX or \
            text[star + 3] not in _HEX:
        raise BadLine("no CRC")
    body = text[:star]
    if int(text[star + 2:], 16) != crc8(body.encode()):
        raise BadLine("CRC mismatch")
    words = body.split(" ")
    version = _version(words[0])
    if version is None:
        raise BadLine("not a DM line")
    if version != VERSION:
        # checked after the CRC: every version keeps this framing, so noise cannot pass
        # for a box of another version
        raise UnknownVersion(version)
    if len(words) < 2:
        raise BadLine("no type")
    kind, fields = words[1], words[2:]
    for word in fields:
        if not word:
            raise BadLine("empty field")
    if kind == HELLO:
        _count(fields, 3, kind)
        seats = _int(fields[0], 1, MAX_SEATS, "seat count")
        grey = _mask(fields[1], "grey mask")
        if grey >> seats:
            raise BadLine("grey mask names a seat the box lacks")
        name = fields[2]
        if len(name) > 16:
            raise BadLine("firmware version too long")
        for char in name:
            if char not in _NAME:
                raise BadLine("bad firmware version")
        return kind, (seats, grey, name)
    if kind == DN or kind == UP:
        _count(fields, 3, kind)
        seat = _int(fields[0], 1, MAX_SEATS, "seat") - 1
        colour = _COLOUR.get(fields[1])
        if colour is None:
            raise BadLine("bad colour")
        return kind, (seat, colour, _int(fields[2], 0, SEQ_MOD - 1, "sequence number"))
    if kind == LED:
        _count(fields, 1, kind)
        return kind, (_mask(fields[0], "LED mask"),)
    if kind == PING or kind == PONG:
        _count(fields, 1, kind)
        return kind, (_int(fields[0], 0, SEQ_MOD - 1, "number"),)
    if kind == HI:
        _count(fields, 0, kind)
        return kind, ()
    raise BadLine("unknown type")


def _count(fields, n, kind):
    if len(fields) != n:
        raise BadLine("%s takes %d fields" % (kind, n))


def newer(seq, last):
    """Whether event number `seq` comes after `last` (None: nothing seen yet), counting
    round the wrap: a repeated or stale line is not counted twice."""
    if last is None:
        return True
    ahead = (seq - last) % SEQ_MOD
    return 0 < ahead < SEQ_MOD // 2


class LineBuffer:
    """Bytes in, lines out, resynchronising at every newline. A line that grows past
    LINE_MAX is cut off and handed out as its first LINE_MAX + 1 bytes, so decode() refuses
    it as too long; the rest of it, up to the next newline, is skipped."""

    def __init__(self):
        self._buf = bytearray()
        self._skipping = False

    def feed(self, data):
        lines = []
        start = 0
        while start < len(data):
            nl = data.find(b"\n", start)
            stop = len(data) if nl < 0 else nl + 1
            if not self._skipping:
                self._buf.extend(data[start:stop])
                if len(self._buf) > LINE_MAX:
                    lines.append(bytes(self._buf[:LINE_MAX + 1]))
                    self._buf = bytearray()
                    self._skipping = True
            if nl < 0:
                break
            if self._skipping:
                self._skipping = False
            else:
                lines.append(bytes(self._buf))
                self._buf = bytearray()
            start = stop
        return lines

    def clear(self):
        self._buf = bytearray()
        self._skipping = False
