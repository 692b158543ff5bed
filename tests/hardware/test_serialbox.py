"""The serial button box backend against a simulated box on a real pty pair: the box's own
firmware logic (hardware/firmware/box.py) on virtual pins, the real pyserial reader thread,
and for the vote, a real Room over a real SQLite store."""
import asyncio
import threading
import time

import pytest

from companion.darkmoon.data import STRONG, WEAK
from companion.core.table import PUBLIC
from hardware.firmware import dmproto
from hardware.pad import BLACK, GREY, RED, Notice, Press
from hardware.serialbox import FALLBACK_PORT, SerialSource, find_port
from hardware.simbox import SimBox
from test_room import room_at_a_vote

WAIT = 10.0  # seconds: a guard against a hang, never a measure of speed
FAST_RETRY = (0.01, 0.05)


class Heard:
    """What a source told the table. Its callbacks come on the reader thread."""

    def __init__(self):
        self.presses: list[Press] = []
        self.notices: list[Notice] = []
        self._changed = threading.Condition()

    def press(self, press: Press) -> None:
        with self._changed:
            self.presses.append(press)
            self._changed.notify_all()

    def notice(self, notice: Notice) -> None:
        with self._changed:
            self.notices.append(notice)
            self._changed.notify_all()

    def wait(self, check, what: str) -> None:
        with self._changed:
            if not self._changed.wait_for(check, WAIT):
                pytest.fail(f"no {what} within {WAIT} s; presses {self.presses}, "
                            f"notices {self.notices}")

    def wait_presses(self, count: int) -> list[tuple[int, str]]:
        self.wait(lambda: len(self.presses) >= count, f"{count} presses")
        return [(p.seat, p.colour) for p in self.presses]

    def kinds(self) -> list[str]:
        return [n.kind for n in self.notices]

    def wait_notice(self, kind: str, count: int = 1) -> Notice:
        self.wait(lambda: self.kinds().count(kind) >= count, f"notice {kind!r} x{count}")
        return [n for n in self.notices if n.kind == kind][count - 1]


@pytest.fixture
def boxes():
    """make(**kw) -> a SimBox, closed after the test."""
    made = []

    def make(**kw) -> SimBox:
        made.append(SimBox(**kw))
        return made[-1]

    yield make
    for sim in made:
        sim.close()


@pytest.fixture
def listen():
    """listen(port, **kw) -> (a started SerialSource, what it heard); closed after the test."""
    made = []

    def start(port: str, **kw) -> tuple[SerialSource, Heard]:
        kw.setdefault("retry", FAST_RETRY)
        source, heard = SerialSource(port, **kw), Heard()
        made.append(source)
        source.start(heard.press, heard.notice)
        return source, heard

    yield start
    for source in made:
        source.close()


def test_the_box_s_hello_tells_the_pi_its_seats_and_grey_buttons(boxes, listen):
    sim = boxes(seats=5, grey={0, 3})
    source = SerialSource(sim.path)
    assert (source.kind, source.seats) == ("serial", 0)  # nothing known before a hello
    source, heard = listen(sim.path)
    notice = heard.wait_notice("connected")
    assert (source.seats, source.grey, source.firmware) == (5, {0, 3}, "sim-1.0")
    assert "5 seats" in notice.detail and "seats 1, 4" in notice.detail


def test_presses_arrive_with_their_seat_and_colour(boxes, listen):
    sim = boxes(seats=5, grey={0})
    source, heard = listen(sim.path)
    heard.wait_notice("connected")
    sim.press(0, GREY)  # a seat with a GREY button: counts on the way down
    assert heard.wait_presses(1) == [(0, GREY)]
    sim.press(2, BLACK)  # no GREY button here: it may still become a chord
    sim.press(0, BLACK)
    assert heard.wait_presses(2) == [(0, GREY), (0, BLACK)]
    sim.release(2, BLACK)
    assert heard.wait_presses(3)[2] == (2, BLACK)
    sim.press(3, BLACK)  # BLACK and RED together: GREY, once
    sim.press(3, RED)
    assert heard.wait_presses(4)[3] == (3, GREY)
    sim.release(3, RED)
    sim.release(3, BLACK)
    sim.press(4, RED, bounces=3)  # a bouncing button: one press
    sim.release(4, RED, bounces=2)
    sim.release(0, GREY)
    sim.release(0, BLACK)
    sim.tap(1, RED)
    assert heard.wait_presses(6) == [(0, GREY), (0, BLACK), (2, BLACK), (3, GREY), (4, RED),
                                     (1, RED)]
    assert all(isinstance(p, Press) for p in heard.presses)


def test_garbage_between_valid_lines_changes_nothing_and_valid_lines_still_count(
        boxes, listen):
    sim = boxes(seats=5, grey={0, 1})
    source, heard = listen(sim.path)
    heard.wait_notice("connected")
    noise = [
        b"\x00\xff\xfe\x80 binary\n",
        b"DM1 DN 1 G 5 *00\n",  # wrong CRC
        b"Traceback (most recent call last):\r\n",  # a crashed MicroPython talking
        b"DM1 DN 2 G" + b"9" * 200 + b"\n",  # far too long
        dmproto.event(True, 0, GREY, 7)[:9] + b"\n",  # cut short
        dmproto.led(0x1F),  # a line meant for the box: an echo
        dmproto.event(True, 6, BLACK, 60000),  # seat 7 on a 5-seat box
        dmproto.event(True, 3, GREY, 60001),  # a GREY button seat 4 does not have
        b"\n\r\n   \n",
    ]
    sim.tap(0, GREY)
    for line in noise:
        sim.send_raw(line)
        sim.tap(1, GREY)
    sim.tap(2, RED)
    expected = [(0, GREY)] + [(1, GREY)] * len(noise) + [(2, RED)]
    assert heard.wait_presses(len(expected)) == expected
    assert source.dropped == len(noise) + 2  # the last one held three empty lines
    assert source.seats == 5 and heard.kinds() == ["connected"]


def test_a_burst_of_noise_is_logged_once_not_line_by_line(boxes, listen, caplog):
    sim = boxes(seats=2, grey={0})
    source, heard = listen(sim.path)
    heard.wait_notice("connected")
    with caplog.at_level("WARNING", logger="hardware.serialbox"):
        sim.send_raw(b"noise\n" * 50)
        sim.tap(0, GREY)
        heard.wait_presses(1)
    assert source.dropped == 50
    assert [r.getMessage() for r in caplog.records] == [
        "serial box: dropped a line (no CRC): b'noise\\n'",
        "serial box: 50 bad lines in a row were dropped"]


def test_a_repeated_event_line_is_counted_once(boxes, listen):
    sim = boxes(seats=3, grey={0})
    source, heard = listen(sim.path)
    heard.wait_notice("connected")
    seq = sim.box.seq
    for line in (dmproto.event(True, 0, GREY, seq), dmproto.event(True, 0, GREY, seq),
                 dmproto.event(False, 0, GREY, seq + 1), dmproto.event(True, 0, GREY, seq)):
        sim.send_raw(line)  # a box that sends each line twice, and a stale one
    sim.box.seq = seq + 2
    sim.tap(1, BLACK)
    assert heard.wait_presses(2) == [(0, GREY), (1, BLACK)]


def test_a_box_of_another_version_is_refused_and_its_presses_ignored(boxes, listen):
    sim = boxes(seats=4, grey={0}, speaks=2)
    source, heard = listen(sim.path)
    notice = heard.wait_notice("refused")
    assert notice.detail == "box speaks protocol 2; this companion speaks 1"
    assert source.seats == 0
    sim.press(0, GREY)
    sim.release(0, GREY)
    sim.speaks = 1  # the box gets firmware of this version and restarts
    sim.restart()
    heard.wait_notice("connected")
    assert heard.presses == [] and heard.kinds() == ["refused", "connected"]
    assert source.seats == 4
    sim.press(0, GREY)
    assert heard.wait_presses(1) == [(0, GREY)]


def test_led_masks_reach_the_box_and_wait_for_a_box_that_is_not_there_yet(boxes, listen):
    sim = boxes(seats=7)
    sim.unplug()
    source, heard = listen(sim.path)
    heard.wait_notice("disconnected")
    source.show_leds(frozenset({1, 4}))  # never blocks, even with no box
    sim.replug()
    heard.wait_notice("connected")
    assert sim.wait_leds(lambda seen: seen == [0b10010], WAIT)
    assert sim.lit() == {1, 4}
    source.show_leds(frozenset({0, 6, 9}))  # no seat 10: ignored
    assert sim.wait_leds(lambda seen: seen[-1] == 0b1000001, WAIT)
    assert sim.lit() == {0, 6}
    source.show_leds(frozenset())
    assert sim.wait_leds(lambda seen: seen[-1] == 0, WAIT)
    assert sim.lit() == frozenset()


def test_a_box_that_restarts_gets_its_leds_back_and_its_new_event_numbers_count(
        boxes, listen):
    sim = boxes(seats=3, grey={0})
    source, heard = listen(sim.path)
    heard.wait_notice("connected")
    source.show_leds(frozenset({2}))
    assert sim.wait_leds(lambda seen: seen[-1:] == [0b100], WAIT)
    for _ in range(3):
        sim.tap(0, GREY)
    heard.wait_presses(3)
    sim.restart()  # a brown-out: LEDs dark, events numbered from 0 again
    assert sim.wait_leds(lambda seen: seen == [0b100], WAIT)
    sim.tap(0, GREY)
    assert heard.wait_presses(4) == [(0, GREY)] * 4
    assert heard.kinds() == ["connected"]  # it never went away


def test_a_stuck_button_on_the_box_is_reported_and_its_release_counts_nothing(boxes, listen):
    sim = boxes(seats=3)
    source, heard = listen(sim.path, stuck_after=0.2)
    heard.wait_notice("connected")
    sim.press(1, RED)
    stuck = heard.wait_notice("stuck")
    assert (stuck.seat, stuck.colour) == (1, RED)
    sim.release(1, RED)
    heard.wait_notice("freed")
    sim.tap(2, BLACK)
    assert heard.wait_presses(1) == [(2, BLACK)]


def test_a_box_that_stops_answering_is_reported_and_welcomed_back(boxes, listen):
    sim = boxes(seats=3, grey={0})
    source, heard = listen(sim.path, ping_every=0.05, quiet_after=0.3)
    heard.wait_notice("connected")
    sim.muted = True  # the firmware hangs; the USB port stays
    assert "stopped answering" in heard.wait_notice("disconnected").detail
    sim.muted = False  # it comes back and answers the next HI
    heard.wait_notice("connected", 2)
    sim.press(0, GREY)
    assert heard.wait_presses(1) == [(0, GREY)]
    assert heard.kinds() == ["connected", "disconnected", "connected"]


def test_a_port_where_no_box_says_hello_is_reported(boxes, listen):
    sim = boxes(seats=3)
    sim.muted = True  # a Pico without the firmware: the port opens, nobody answers
    source, heard = listen(sim.path, ping_every=0.05, quiet_after=0.3)
    assert "no button box says hello" in heard.wait_notice("disconnected").detail
    sim.muted = False  # the firmware is put on; the next HI is answered
    heard.wait_notice("connected")
    assert heard.kinds() == ["disconnected", "connected"] and source.seats == 3


def test_a_listener_that_fails_does_not_silence_the_box(boxes):
    sim = boxes(seats=3, grey={0})
    heard = Heard()

    def clumsy(press):
        heard.press(press)
        if len(heard.presses) == 1:
            raise RuntimeError("a listener's bug")

    source = SerialSource(sim.path, retry=FAST_RETRY)
    source.start(clumsy, heard.notice)
    try:
        heard.wait_notice("connected")
        sim.tap(0, GREY)
        sim.tap(1, RED)
        assert heard.wait_presses(2) == [(0, GREY), (1, RED)]
    finally:
        source.close()


def test_a_box_missing_at_start_is_reported_once_and_found_when_plugged_in(boxes, listen):
    sim = boxes(seats=2)
    sim.unplug()
    source, heard = listen(sim.path, retry=(0.005, 0.02))
    heard.wait_notice("disconnected")
    time.sleep(0.2)  # several more attempts fail meanwhile, unreported
    sim.replug()
    heard.wait_notice("connected")
    assert heard.kinds() == ["disconnected", "connected"] and source.seats == 2


def test_auto_finds_a_pico_by_its_stable_name(tmp_path, boxes, listen):
    by_id = tmp_path / "by-id"
    by_id.mkdir()
    assert find_port("auto", str(by_id)) == FALLBACK_PORT
    assert find_port("/dev/ttyUSB3", str(by_id)) == "/dev/ttyUSB3"
    sim = boxes(seats=3)
    (by_id / "usb-FTDI_FT232R_USB_UART_A50285BI-if00-port0").symlink_to("/dev/null")
    pico = by_id / "usb-MicroPython_Board_in_FS_mode_e6614864d3417f2f-if00"
    pico.symlink_to(sim.path)
    assert find_port("auto", str(by_id)) == str(pico)
    source, heard = listen("auto", by_id=str(by_id))
    heard.wait_notice("connected")
    assert source.seats == 3


def test_close_stops_the_reader(boxes, listen):
    sim = boxes(seats=3)
    source, heard = listen(sim.path)
    heard.wait_notice("connected")
    source.close()
    assert not source._thread.is_alive()
    sim.unplug()  # nobody listens any more: no notice
    assert heard.kinds() == ["connected"]


# --- unplug and replug in the middle of a vote, with a real Room and Table ---

async def until(check, what: str) -> None:
    """Let the loop run until check() holds (presses reach the Room through the loop)."""
    deadline = time.monotonic() + WAIT
    while not check():
        if time.monotonic() > deadline:
            pytest.fail(f"no {what} within {WAIT} s")
        await asyncio.sleep(0.005)


def wire_to_room(room, source: SerialSource, heard: Heard) -> list:
    """What the kiosk does: a press becomes room.press on the loop, and the LEDs show who
    still has to vote."""
    loop = asyncio.get_running_loop()
    accepted = []

    async def press(p: Press):
        accepted.append((p.seat, await room.press(p.seat, p.colour)))

    def on_press(p: Press) -> None:
        heard.press(p)
        loop.call_soon_threadsafe(loop.create_task, press(p))

    def show(*_):
        waiting = room.public_view()["waiting"] or {}
        chosen = waiting.get("chosen", [])
        source.show_leds(frozenset(s for s in waiting.get("seats", []) if s not in chosen))

    room.listen(PUBLIC, show)
    source.start(on_press, heard.notice)
    show()
    return accepted


def ballot_for(room, seat: int) -> tuple[str, str]:
    """(button, ballot) a player holding these dice could press."""
    dice = room.table.state.seats[seat].dice
    if dice[STRONG]:
        return BLACK, STRONG
    if dice[WEAK]:
        return RED, WEAK
    return GREY, "abstain"


async def test_unplug_and_replug_in_the_middle_of_a_vote(tmp_path, boxes):
    room = await room_at_a_vote(tmp_path, lambda g: len(g.pending.seats) >= 3)
    sim = boxes(seats=4, grey={0, 1})  # seats 3 and 4 abstain with BLACK + RED
    source, heard = SerialSource(sim.path, retry=FAST_RETRY), Heard()
    try:
        accepted = wire_to_room(room, source, heard)
        voters = list(room.table.state.pending.seats)
        facts_before = len(room.table.facts)
        revealed = lambda: [f for f in room.table.facts[facts_before:]  # noqa: E731
                            if f["k"] == "vote_revealed"]
        ballots = {seat: ballot_for(room, seat) for seat in voters}
        mask = lambda seats: sum(1 << s for s in seats)  # noqa: E731
        await asyncio.to_thread(heard.wait_notice, "connected")
        assert await asyncio.to_thread(sim.wait_leds, lambda s: s and s[-1] == mask(voters))

        def vote_on_the_box(seat):
            button = ballots[seat][0]
            if button == GREY and seat not in (0, 1):
                sim.press(seat, BLACK)
                sim.press(seat, RED)
                sim.release(seat, BLACK)
                sim.release(seat, RED)
            else:
                sim.tap(seat, button)

        early, late = voters[:2], voters[2:]
        for seat in early:
            vote_on_the_box(seat)
        await until(lambda: len(accepted) == 2, "the first two votes")
        assert [command["decision"] for _, command in accepted] == ["vote", "vote"]
        assert await asyncio.to_thread(sim.wait_leds, lambda s: s[-1] == mask(late))

        sim.unplug()
        await asyncio.to_thread(heard.wait_notice, "disconnected")
        waiting = room.public_view()["waiting"]
        assert waiting["decision"] == "vote" and waiting["chosen"] == sorted(early)
        assert not revealed()

        sim.replug()  # a new pty under the same name; the box restarts, LEDs dark
        await asyncio.to_thread(heard.wait_notice, "connected", 2)
        assert await asyncio.to_thread(sim.wait_leds, lambda s: len(s) >= 1)
        assert sim.leds_seen[0] == mask(late) and sim.lit() == set(late)

        for seat in late:
            vote_on_the_box(seat)
        await until(lambda: len(accepted) == len(voters), "every vote")
        assert all(command is not None for _, command in accepted)
        (reveal,) = revealed()
        assert {int(seat): ballot for seat, ballot in reveal["ballots"].items()} == \
            {seat: ballot for seat, (_, ballot) in ballots.items()}
        assert heard.kinds() == ["connected", "disconnected", "connected"]
    finally:
        source.close()
        await room.close()
        room.store.close()
