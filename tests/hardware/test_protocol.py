"""The serial button box's line protocol (docs/serial-protocol.md) and the box's own logic
(hardware/firmware/box.py), both of which also run on the Pico under MicroPython."""
import ast
import builtins
import re
import types
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from hardware import pad
from hardware.firmware import dmproto
from hardware.firmware.box import Box
from hardware.simbox import VirtualPin

ROOT = Path(__file__).resolve().parents[2]
FIRMWARE = ROOT / "hardware" / "firmware"
COLOURS = (dmproto.BLACK, dmproto.RED, dmproto.GREY)


def every_message():
    yield dmproto.hello(7, 0b0000101, "1.0"), ("HELLO", (7, 5, "1.0"))
    yield dmproto.hello(1, 0, "sim-2.3_b+x"), ("HELLO", (1, 0, "sim-2.3_b+x"))
    for seat in range(dmproto.MAX_SEATS):
        for colour in COLOURS:
            for down in (True, False):
                for seq in (0, 41, 65535, 65536 + 7):
                    yield (dmproto.event(down, seat, colour, seq),
                           ("DN" if down else "UP", (seat, colour, seq % 65536)))
    for mask in (0, 1, 0b1010101, 0x7F):
        yield dmproto.led(mask), ("LED", (mask,))
    yield dmproto.ping(12), ("PING", (12,))
    yield dmproto.pong(65535), ("PONG", (65535,))
    yield dmproto.hi(), ("HI", ())


MESSAGES = list(every_message())
LINES = [line for line, _ in MESSAGES]


def refused(line) -> bool:
    try:
        dmproto.decode(line)
    except dmproto.BadLine:
        return True
    return False


# --- the codec ---

def test_every_message_survives_the_trip_and_fits_one_line():
    for line, message in MESSAGES:
        assert line.endswith(b"\n") and line.count(b"\n") == 1
        assert len(line) <= dmproto.LINE_MAX
        assert dmproto.decode(line) == message
        assert dmproto.decode(line[:-1]) == message  # the newline is optional to decode
        assert dmproto.decode(line[:-1] + b"\r\n") == message  # a text-mode "\r\n" too


def test_the_colours_are_the_ones_every_button_source_reports():
    assert dmproto.COLOURS == pad.COLOURS


def test_the_examples_in_the_protocol_document_are_real_lines():
    doc = (ROOT / "docs" / "serial-protocol.md").read_text()
    examples = re.findall(r"^    (DM1 [A-Z]+[^\n]* \*[0-9A-F]{2})$", doc, re.MULTILINE)
    assert len(examples) >= 7
    for example in examples:
        dmproto.decode(example.encode())  # raises if the document lies


def test_the_wire_counts_seats_from_one_like_the_labels_on_the_box():
    assert dmproto.event(True, 2, dmproto.BLACK, 41).startswith(b"DM1 DN 3 B 41 *")
    assert dmproto.led(0b101).startswith(b"DM1 LED 05 *")


def test_any_one_changed_character_is_caught():
    for line in LINES[:: max(1, len(LINES) // 40)]:
        body = line[:-1]
        for i in range(len(body)):
            for char in range(32, 127):
                if char != body[i]:
                    corrupt = body[:i] + bytes([char]) + body[i + 1:]
                    assert refused(corrupt), corrupt


def test_a_line_that_lost_its_start_or_its_end_is_caught():
    # what a plug-in in the middle of a line, or a box restarting mid-write, leaves behind
    for line in LINES:
        for i in range(1, len(line)):
            assert refused(line[i:]), line[i:]
            if i < len(line) - 1:  # (the newline itself is optional)
                assert refused(line[:i]), line[:i]


@pytest.mark.parametrize("line, why", [
    (b"", "no CRC"),
    (b"\n", "no CRC"),
    (b"DM1 DN 3 B 41\n", "no CRC"),
    (b"hello there\n", "no CRC"),
    (b"DM1 DN 3 B 41 *ZZ\n", "no CRC"),
    (b"DM1 DN 3 B 41 *000\n", "no CRC"),
    (b"\x00\xff\xfeDM1 HI *00\n", "not printable ASCII"),
    (b"DM1 LED 05 *00\n", "CRC mismatch"),
    (b"DM1 " + b"X" * 70 + b" *00\n", "line longer than 64 bytes"),
])
def test_noise_is_refused_with_a_reason(line, why):
    with pytest.raises(dmproto.BadLine, match=why):
        dmproto.decode(line)


@pytest.mark.parametrize("body", [
    "DM1", "DM1 NOPE", "DM1 DN 0 B 1", "DM1 DN 8 B 1", "DM1 DN 3 X 1", "DM1 DN 3 B 65536",
    "DM1 DN 3 B -1", "DM1 DN 3 B", "DM1 DN 3 B 1 1", "DM1 DN  3 B 1", "DM1 DN 3 B 0x1",
    "DM1 LED 80", "DM1 LED 5", "DM1 LED G0", "DM1 HELLO 0 00 1.0", "DM1 HELLO 8 00 1.0",
    "DM1 HELLO 3 08 1.0", "DM1 HELLO 3 00 " + "v" * 17, "DM1 HELLO 3 00 1;0", "DM1 HI now",
    "DM01 HI", "DMX HI", "dm1 HI", " DM1 HI",
])
def test_well_framed_lines_that_say_nothing_sensible_are_refused(body):
    with pytest.raises(dmproto.BadLine):
        dmproto.decode(dmproto.frame(body))


def test_a_well_framed_line_of_another_version_is_recognised_as_such():
    with pytest.raises(dmproto.UnknownVersion) as caught:
        dmproto.decode(dmproto.frame("DM2 HELLO 7 00 2.0"))
    assert caught.value.version == 2
    with pytest.raises(dmproto.UnknownVersion):
        dmproto.decode(dmproto.frame("DM17 whatever a future box says, even \"this\""))


def test_noise_cannot_pass_for_a_box_of_another_version():
    # every version keeps the CRC framing: a "DM2" line with a wrong CRC is just noise
    line = dmproto.frame("DM2 HELLO 7 00 2.0")
    with pytest.raises(dmproto.BadLine):
        dmproto.decode(line[:-3] + (b"00" if line[-3:-1] != b"00" else b"01") + b"\n")
    with pytest.raises(dmproto.BadLine):
        dmproto.decode(dmproto.hello(7, 0, "1.0").replace(b"DM1", b"DM2"))


def test_event_numbers_count_round_the_wrap_so_a_repeat_is_not_counted_twice():
    assert dmproto.newer(0, None)
    assert dmproto.newer(5, 4) and dmproto.newer(0, 65535) and dmproto.newer(3, 65530)
    assert not dmproto.newer(4, 4)  # the same line again
    assert not dmproto.newer(3, 4) and not dmproto.newer(65535, 0)  # an older one


# --- lines out of a byte stream ---

def test_lines_resync_at_every_newline_whatever_came_before():
    buffer = dmproto.LineBuffer()
    good = dmproto.event(True, 0, dmproto.GREY, 1)
    lines = buffer.feed(b"\x00\xffDM1 DN 1 G" + b"\n" + good[:10])
    assert lines == [b"\x00\xffDM1 DN 1 G\n"] and refused(lines[0])
    assert buffer.feed(good[10:]) == [good]  # a line split across reads is joined


def test_an_overlong_line_is_cut_refused_and_the_next_line_still_counts():
    buffer = dmproto.LineBuffer()
    good = dmproto.led(3)
    lines = buffer.feed(b"A" * 200)
    lines += buffer.feed(b"B" * 200 + b"\n" + good)
    assert len(lines) == 2 and len(lines[0]) == dmproto.LINE_MAX + 1
    with pytest.raises(dmproto.BadLine, match="longer"):
        dmproto.decode(lines[0])
    assert dmproto.decode(lines[1]) == ("LED", (3,))


def test_a_line_of_exactly_the_longest_length_is_read_and_one_byte_more_is_not():
    # no version-1 line comes near the limit; a later version's may use all of it
    longest = dmproto.frame("DM2 " + "x" * (dmproto.LINE_MAX - 9))
    assert len(longest) == dmproto.LINE_MAX
    assert dmproto.LineBuffer().feed(longest) == [longest]
    with pytest.raises(dmproto.UnknownVersion):
        dmproto.decode(longest)
    too_long = dmproto.frame("DM2 " + "x" * (dmproto.LINE_MAX - 8))
    (cut,) = dmproto.LineBuffer().feed(too_long)
    with pytest.raises(dmproto.BadLine, match="longer"):
        dmproto.decode(cut)


@settings(max_examples=400, deadline=None)
@given(st.binary(max_size=200))
def test_random_bytes_are_refused_with_the_typed_error_or_read_as_a_real_message(data):
    try:
        kind, fields = dmproto.decode(data)
    except dmproto.ProtocolError:
        return
    assert kind in dmproto.TO_PI + dmproto.TO_BOX and isinstance(fields, tuple)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.binary(max_size=100), st.sampled_from(LINES)), max_size=12),
       st.lists(st.integers(1, 40), min_size=1, max_size=8))
def test_noise_between_lines_never_raises_and_a_line_after_a_newline_survives(chunks, cuts):
    """Whatever arrives, in whatever pieces: nothing but the typed refusal, and each valid
    line that follows a newline comes out whole."""
    stream = b"".join(chunks)
    buffer, lines, at = dmproto.LineBuffer(), [], 0
    for i in range(len(stream) + 1):
        if i == len(stream) or i - at >= cuts[i % len(cuts)]:
            lines += buffer.feed(stream[at:i])
            at = i
    for line in lines:
        assert len(line) <= dmproto.LINE_MAX + 1
        try:
            dmproto.decode(line)
        except dmproto.ProtocolError:
            pass
    for i, chunk in enumerate(chunks):
        if chunk in LINES and (i == 0 or b"".join(chunks[:i]).endswith(b"\n")):
            assert chunk in lines


# --- the box (firmware logic, with virtual pins and a virtual clock) ---

class Wire:
    def __init__(self):
        self.lines = []

    def __call__(self, line):
        self.lines.append(line)

    def read(self):
        lines, self.lines = [dmproto.decode(l) for l in self.lines], []
        return lines


def make_box(seats=3, grey=(0,)):
    pins = [(VirtualPin(), VirtualPin(), VirtualPin() if s in grey else None, VirtualPin(0))
            for s in range(seats)]
    wire = Wire()
    return Box(pins, wire), pins, wire


def test_the_box_says_hello_with_its_seats_grey_buttons_and_firmware():
    box, _, wire = make_box(seats=5, grey=(0, 3))
    box.hello()
    assert wire.read() == [("HELLO", (5, 0b01001, "1.0"))]


def test_the_box_reports_a_bouncing_press_once_after_it_settles():
    box, pins, wire = make_box()
    black = pins[1][0]
    for now, level in enumerate([0, 1, 0, 1, 0]):  # chatter, 1 ms apart
        black.value(level)
        box.scan(now)
    assert wire.read() == []
    box.scan(4 + box.settle_ms - 1)
    assert wire.read() == []
    box.scan(4 + box.settle_ms)
    assert wire.read() == [("DN", (1, dmproto.BLACK, 0))]
    black.value(1)
    for now in range(30, 80, 5):
        box.scan(now)
    assert wire.read() == [("UP", (1, dmproto.BLACK, 1))]


def test_a_glitch_shorter_than_the_settle_time_is_not_a_press():
    box, pins, wire = make_box()
    pins[2][1].value(0)
    box.scan(0)
    pins[2][1].value(1)
    for now in range(1, 100, 3):
        box.scan(now)
    assert wire.read() == []


def test_a_button_held_while_the_box_starts_is_not_a_press():
    pins = [(VirtualPin(0), VirtualPin(), None, None)]
    wire = Wire()
    box = Box(pins, wire)
    for now in range(0, 100, 10):
        box.scan(now)
    assert wire.read() == []
    pins[0][0].value(1)
    for now in range(100, 200, 10):
        box.scan(now)
    assert wire.read() == [("UP", (0, dmproto.BLACK, 0))]  # the Pi ignores a lone release


def test_the_box_answers_hi_and_ping_and_lights_the_leds_it_is_told():
    box, pins, wire = make_box()
    box.feed(dmproto.hi() + dmproto.ping(7) + dmproto.led(0b110)[:5])
    assert wire.read() == [("HELLO", (3, 1, "1.0")), ("PONG", (7,))]
    assert [p[3].level for p in pins] == [0, 0, 0]
    box.feed(dmproto.led(0b110)[5:])
    assert [p[3].level for p in pins] == [0, 1, 1]
    box.feed(dmproto.led(0))
    assert [p[3].level for p in pins] == [0, 0, 0]


def test_the_box_ignores_noise_and_lines_not_meant_for_it():
    box, pins, wire = make_box()
    box.feed(b"\x03\x04garbage\n" + b"Z" * 300 + b"\n" + dmproto.frame("DM2 LED 07")
             + dmproto.hello(3, 0, "1.0") + dmproto.event(True, 0, dmproto.BLACK, 1))
    assert wire.read() == [] and box.refused == 5
    assert [p[3].level for p in pins] == [0, 0, 0]
    box.feed(dmproto.led(1))
    assert pins[0][3].level == 1


def test_the_box_numbers_its_events_round_the_wrap():
    box, pins, wire = make_box()
    box.seq = 65535
    pins[0][2].value(0)
    box.scan(0)
    box.scan(20)
    pins[0][2].value(1)
    box.scan(30)
    box.scan(50)
    assert [fields[2] for _, fields in wire.read()] == [65535, 0]


# --- what the Pico runs ---

MICROPYTHON_MODULES = {"dmproto", "box", "sys", "time", "select", "machine"}


@pytest.mark.parametrize("name", ["dmproto.py", "box.py", "main.py"])
def test_the_firmware_uses_only_what_micropython_runs(name):
    """MicroPython has no dataclasses, typing or __future__, and its f-strings are optional
    on small boards: the box's files stay within the plain subset both Pythons run."""
    tree = ast.parse((FIRMWARE / name).read_text())
    for node in ast.walk(tree):
        assert not isinstance(node, (ast.JoinedStr, ast.AnnAssign, ast.NamedExpr, ast.Match,
                                     ast.AsyncFunctionDef, ast.Await)), (name, node.lineno)
        if isinstance(node, (ast.FunctionDef, ast.arguments)):
            args = node.args.args if isinstance(node, ast.FunctionDef) else node.args
            assert all(a.annotation is None for a in args), (name, node.lineno)
        if isinstance(node, ast.FunctionDef):
            assert node.returns is None, (name, node.lineno)
        if isinstance(node, ast.Import):
            assert {a.name for a in node.names} <= MICROPYTHON_MODULES, name
        if isinstance(node, ast.ImportFrom) and node.level == 0:
            assert node.module in MICROPYTHON_MODULES, (name, node.module)


def pins_in_main():
    """PINS in main.py: per seat (BLACK, RED, GREY or None, LED) as Pico GP numbers."""
    tree = ast.parse((FIRMWARE / "main.py").read_text())
    return next(ast.literal_eval(node.value) for node in ast.walk(tree)
                if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "PINS")


def test_the_pico_pin_table_in_main_matches_the_wiring_document():
    pins = pins_in_main()
    wiring = (ROOT / "hardware" / "WIRING.md").read_text()
    for seat, (black, red, _grey, led) in enumerate(pins, 1):
        assert re.search(rf"^\| {seat} \| GP{black} \| GP{red} \| GP{led} \|", wiring,
                         re.MULTILINE), f"seat {seat} not as in main.py"
    used = [p for seat in pins for p in seat if p is not None]
    assert len(used) == len(set(used)) and all(0 <= p <= 28 and p not in (23, 24, 25)
                                               for p in used)


class PicoStub:
    """Just enough of MicroPython's machine, time, select and sys for main.py to run its loop
    here: pins by GP number, a millisecond clock that moves 1 ms per pass, USB serial as two
    byte queues. `script` maps a pass number to what a finger or the Pi does then."""

    class Stop(Exception):
        pass

    def __init__(self, passes: int, script: dict):
        stub = self
        self.pins: dict = {}
        self.incoming = bytearray()
        self.outgoing = bytearray()
        self.now = 0
        self.passes, self.script = passes, script

        class Pin:
            IN, OUT, PULL_UP = "in", "out", "pull_up"

            def __init__(self, gp, mode, pull=None, value=None):
                self.level = 1 if pull == Pin.PULL_UP else (value or 0)
                stub.pins[gp] = self

            def value(self, level=None):
                if level is None:
                    return self.level
                self.level = level

        def read(n):
            data = bytes(stub.incoming[:n])
            del stub.incoming[:n]
            return data

        class Poll:
            def register(self, stream, events):
                pass

            def poll(self, timeout):
                return [(0, 1)] if stub.incoming else []

        def sleep_ms(ms):
            stub.now += ms
            action = stub.script.get(stub.now)
            if action:
                action(stub)
            if stub.now >= stub.passes:
                raise PicoStub.Stop()

        self.modules = {
            "machine": types.SimpleNamespace(Pin=Pin),
            "time": types.SimpleNamespace(ticks_ms=lambda: stub.now, sleep_ms=sleep_ms,
                                          ticks_diff=lambda a, b: a - b),
            "select": types.SimpleNamespace(poll=Poll, POLLIN=1),
            # MicroPython's stdio has .buffer for raw bytes, as CPython's does
            "sys": types.SimpleNamespace(
                stdin=types.SimpleNamespace(buffer=types.SimpleNamespace(read=read)),
                stdout=types.SimpleNamespace(
                    buffer=types.SimpleNamespace(write=stub.outgoing.extend))),
            "box": __import__("hardware.firmware.box", fromlist=["Box"]),
        }

    def run(self) -> list:
        real_import = builtins.__import__

        def pico_import(name, *args, **kw):
            return self.modules[name] if name in self.modules else real_import(name, *args, **kw)

        source = (FIRMWARE / "main.py").read_text()
        with pytest.raises(PicoStub.Stop):
            exec(compile(source, "main.py", "exec"),
                 {"__builtins__": {**vars(builtins), "__import__": pico_import},
                  "__name__": "__main__"})
        return [dmproto.decode(line) for line in dmproto.LineBuffer().feed(bytes(self.outgoing))]


def test_the_pico_glue_wires_pins_usb_and_the_box_together():
    def press_seat_2_black(pico):
        pico.pins[3].value(0)

    def pi_says(*lines):
        return lambda pico: pico.incoming.extend(b"".join(lines))

    pico = PicoStub(200, {10: press_seat_2_black,
                          50: pi_says(dmproto.hi(), dmproto.led(0b101))})
    heard = pico.run()
    assert heard == [("HELLO", (7, 0, "1.0")),  # at power-on
                     ("DN", (1, dmproto.BLACK, 0)),  # 20 ms after the press
                     ("HELLO", (7, 0, "1.0"))]  # the answer to HI
    leds = {seat: pico.pins[led].level for seat, (_, _, _, led) in enumerate(pins_in_main())}
    assert leds == {0: 1, 1: 0, 2: 1, 3: 0, 4: 0, 5: 0, 6: 0}
    assert pico.pins["LED"].level == 1  # the board's own LED: firmware running
