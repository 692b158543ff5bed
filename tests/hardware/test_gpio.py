"""The GPIO button box (hardware/gpio.py) on gpiozero's mock pins, with real Pads and injected
time: a pin driven low is a finger on a button, driven high a button let go.

Unless a test says otherwise the box is the shipped pin map (hardware/buttons.example.toml:
seven seats of BLACK, RED and an LED, no GREY), so a press counts when it is released."""
from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from pathlib import Path

import pytest
from gpiozero import LED

from hardware.config import GpioSeat, load
from hardware.gpio import GpioSource, GpioUnavailable
from hardware.pad import BLACK, GREY, RED, Notice, Press
from table_play import advance, call_votes, seated_room, waiting_for

EXAMPLE = load(Path(__file__).resolve().parents[2] / "hardware" / "buttons.example.toml").gpio
# Three seats with a GREY button each (spare pins), for the count-on-the-way-down rule.
WITH_GREY = (GpioSeat(4, 17, grey=11, led=18), GpioSeat(27, 22, grey=2, led=23),
             GpioSeat(24, 25, grey=3, led=5))
SETTLE, STUCK = 0.02, 8.0
WAIT = 10  # seconds: only a guard against a hang, never a measure of speed


class Clock:
    def __init__(self, now: float = 100.0):
        self.now = now

    def __call__(self) -> float:
        return self.now


class Box:
    """A started GpioSource on mock pins whose time the test moves, and what it reported."""

    def __init__(self, factory, seats=EXAMPLE, start=True):
        self.factory, self.config = factory, seats
        self.clock = Clock()
        self.presses: list[Press] = []
        self.notices: list[Notice] = []
        self.source = GpioSource(seats, clock=self.clock, settle=SETTLE, stuck_after=STUCK,
                                 pin_factory=factory, ticker=False)
        if start:
            self.start()

    def start(self):
        self.source.start(self.presses.append, self.notices.append)

    def pin(self, seat: int, colour: str):
        return self.factory.pin(getattr(self.config[seat], colour))

    def down(self, at: float, seat: int, colour: str) -> Box:
        self.clock.now = at
        self.pin(seat, colour).drive_low()
        return self

    def up(self, at: float, seat: int, colour: str) -> Box:
        self.clock.now = at
        self.pin(seat, colour).drive_high()
        return self

    def tick(self, at: float):
        self.clock.now = at
        return self.source.tick(at)

    def counted(self) -> list[tuple[int, str]]:
        return [(p.seat, p.colour) for p in self.presses]

    def lit(self) -> set[int]:
        return {seat for seat, pins in enumerate(self.config)
                if pins.led is not None and self.factory.pin(pins.led).state}


@pytest.fixture
def box(mock_factory):
    made: list[Box] = []

    def make(seats=EXAMPLE, start=True) -> Box:
        made.append(Box(mock_factory, seats, start))
        return made[-1]

    yield make
    for each in made:
        each.source.close()


def test_each_seats_black_and_red_count_as_that_seat_when_let_go(box):
    b = box()
    assert b.source.kind == "gpio" and b.source.seats == 7
    t = 100.0
    for seat in range(7):
        for colour in (BLACK, RED):
            counted = len(b.presses)
            b.down(t, seat, colour)
            assert len(b.presses) == counted  # while held it may still become a chord
            b.up(t + 0.15, seat, colour)
            assert b.presses[-1] == Press(seat, colour, t + 0.15)
            t += 1
    assert b.counted() == [(seat, colour) for seat in range(7) for colour in (BLACK, RED)]
    assert b.notices == []


def test_with_a_grey_button_every_colour_counts_as_it_goes_down(box):
    b = box(WITH_GREY)
    t = 100.0
    for seat in range(3):
        for colour in (BLACK, RED, GREY):
            b.down(t, seat, colour)
            assert b.presses[-1] == Press(seat, colour, t)  # no wait for the release
            b.up(t + 0.15, seat, colour)
            t += 1
    assert b.counted() == [(seat, colour) for seat in range(3) for colour in (BLACK, RED, GREY)]


def test_black_and_red_held_together_abstain_once_as_grey(box):
    b = box()
    b.down(100.0, 2, BLACK).down(100.1, 2, RED)
    assert b.presses == [Press(2, GREY, 100.1)]
    b.up(100.5, 2, RED).up(100.6, 2, BLACK)
    b.tick(101.0)
    assert b.counted() == [(2, GREY)]  # letting go of the chord counts nothing more
    b.down(102.0, 2, RED).up(102.2, 2, RED)
    assert b.counted() == [(2, GREY), (2, RED)]  # and the next single press is itself again


def test_a_bouncing_contact_counts_once(box):
    b = box(WITH_GREY)
    # A contact chattering for a few milliseconds on the way down, then held.
    b.down(100.000, 0, BLACK).up(100.002, 0, BLACK).down(100.004, 0, BLACK)
    b.up(100.007, 0, BLACK).down(100.011, 0, BLACK)
    b.tick(100.05)
    # ... and chattering on the way up.
    b.up(100.300, 0, BLACK).down(100.303, 0, BLACK).up(100.306, 0, BLACK)
    assert b.tick(100.4) is None  # nothing left to settle
    assert b.counted() == [(0, BLACK)]

    b.source.close()
    plain = box(EXAMPLE[3:5])  # seats that count on release
    plain.down(200.000, 1, RED).up(200.003, 1, RED).down(200.005, 1, RED)
    plain.up(200.200, 1, RED).down(200.204, 1, RED).up(200.209, 1, RED)
    plain.tick(200.3)
    assert plain.counted() == [(1, RED)]


def test_a_tap_shorter_than_the_settle_time_counts_once_the_release_has_settled(box):
    b = box()
    b.down(100.000, 4, BLACK).up(100.008, 4, BLACK)  # the release looks like a bounce at first
    assert b.presses == []
    due = b.tick(100.010)
    assert due == pytest.approx(100.000 + SETTLE)  # the ticker is told when to look again
    b.tick(due)
    assert b.counted() == [(4, BLACK)]


def test_a_held_button_is_reported_stuck_once_and_the_others_still_work(box):
    b = box()
    b.down(100.0, 0, BLACK)
    assert b.tick(101.0) == pytest.approx(100.0 + STUCK)  # when to check for a stuck button
    b.tick(107.9)
    assert b.notices == []
    b.tick(108.0)
    assert [(n.kind, n.seat, n.colour) for n in b.notices] == [("stuck", 0, BLACK)]
    for later in (108.5, 120.0, 500.0):
        b.tick(later)
    b.down(501.0, 1, RED).up(501.2, 1, RED)  # another seat
    b.down(502.0, 0, RED).up(502.2, 0, RED)  # the same seat's other button: no chord with it
    assert b.counted() == [(1, RED), (0, RED)]
    b.up(600.0, 0, BLACK)  # unjammed: its release is not a press
    assert [(n.kind, n.seat, n.colour) for n in b.notices] == [
        ("stuck", 0, BLACK), ("freed", 0, BLACK)]
    b.down(601.0, 0, BLACK).up(601.2, 0, BLACK)
    assert b.counted() == [(1, RED), (0, RED), (0, BLACK)]


def test_a_button_already_down_at_start_is_no_press_but_is_reported_stuck(box):
    b = box(WITH_GREY, start=False)
    b.pin(1, RED).drive_low()  # a hand on the box while the Pi boots
    b.start()
    assert b.presses == []
    b.tick(100.0 + STUCK)
    assert [(n.kind, n.seat, n.colour) for n in b.notices] == [("stuck", 1, RED)]
    b.up(200.0, 1, RED).down(201.0, 1, RED)
    assert b.counted() == [(1, RED)]


def test_two_seats_pressing_together_both_count_for_the_right_seat(box):
    b = box()
    b.down(100.000, 0, BLACK).down(100.001, 4, RED).down(100.001, 6, BLACK)
    b.up(100.100, 4, RED).up(100.101, 0, BLACK).up(100.101, 6, BLACK)
    assert b.counted() == [(4, RED), (0, BLACK), (6, BLACK)]
    b.source.close()

    g = box(WITH_GREY)
    g.down(200.000, 2, RED).down(200.000, 1, GREY).up(200.050, 2, RED).down(200.051, 0, BLACK)
    assert g.counted() == [(2, RED), (1, GREY), (0, BLACK)]


def test_leds_light_exactly_the_seats_asked_for(box):
    b = box()
    assert b.lit() == set()
    b.source.show_leds(frozenset({1, 3}))
    assert b.lit() == {1, 3}
    b.source.show_leds(frozenset({0, 3, 6}))
    assert b.lit() == {0, 3, 6}
    b.source.show_leds(frozenset())
    assert b.lit() == set()


def test_a_seat_without_an_led_is_fine(box):
    seats = (EXAMPLE[0], GpioSeat(27, 22), EXAMPLE[2])
    b = box(seats)
    b.source.show_leds(frozenset({0, 1, 2}))
    assert b.lit() == {0, 2}
    b.down(100.0, 1, BLACK).up(100.2, 1, BLACK)
    assert b.counted() == [(1, BLACK)]


def test_close_darkens_the_leds_and_frees_the_pins_for_a_new_box(box):
    first = box()
    first.source.show_leds(frozenset({2, 5}))
    first.source.close()
    assert first.lit() == set()
    first.source.show_leds(frozenset({1}))  # late calls after close are harmless
    assert first.source.tick(200.0) is None
    second = box()  # the same pins again
    second.down(100.0, 2, BLACK).up(100.2, 2, BLACK)
    second.source.show_leds(frozenset({4}))
    assert second.counted() == [(2, BLACK)] and first.presses == []
    assert second.lit() == {4}


def test_no_gpio_driver_is_a_plain_refusal(no_default_factory, monkeypatch):
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "no-such-driver")
    with pytest.raises(GpioUnavailable) as refusal:
        GpioSource(EXAMPLE)
    assert "no-such-driver" in str(refusal.value) and "keyboard" in str(refusal.value)


def test_a_pin_held_by_someone_else_is_a_plain_refusal_that_frees_the_rest(mock_factory):
    other = LED(10, pin_factory=mock_factory)  # seat 7's LED pin, claimed elsewhere
    with pytest.raises(GpioUnavailable, match="keyboard"):
        GpioSource(EXAMPLE, pin_factory=mock_factory, ticker=False)
    other.close()
    source = GpioSource(EXAMPLE, pin_factory=mock_factory, ticker=False)  # nothing left held
    source.close()


def test_the_ticker_thread_reports_a_stuck_button_on_its_own(mock_factory):
    stuck = threading.Event()
    notices: list[Notice] = []

    def on_notice(notice):
        notices.append(notice)
        stuck.set()

    source = GpioSource(EXAMPLE, pin_factory=mock_factory, stuck_after=0.05)
    source.start(lambda press: None, on_notice)
    try:
        mock_factory.pin(EXAMPLE[5].red).drive_low()
        assert stuck.wait(WAIT)  # nobody calls tick(): the ticker does
        assert [(n.kind, n.seat, n.colour) for n in notices] == [("stuck", 5, RED)]
    finally:
        source.close()
    assert not any(t.name == "gpio-buttons" for t in threading.enumerate())


def test_the_ticker_thread_counts_a_tap_shorter_than_the_settle_time(mock_factory):
    """The release of a quick tap comes within the settle time, like a bounce: nothing
    counts until it has settled. The ticker sleeps up to stuck_after (here a minute), so only
    being woken for that release makes it count now rather than a minute later."""
    counted = threading.Event()
    presses: list[Press] = []

    def on_press(press):
        presses.append(press)
        counted.set()

    source = GpioSource(EXAMPLE, pin_factory=mock_factory, settle=0.2, stuck_after=60)
    source.start(on_press, lambda notice: None)
    try:
        pin = mock_factory.pin(EXAMPLE[2].black)
        pin.drive_low()
        pin.drive_high()  # well within the 0.2 s settle time
        assert presses == []
        assert counted.wait(WAIT)  # nobody calls tick(): the ticker does
        assert [(p.seat, p.colour) for p in presses] == [(2, BLACK)]
    finally:
        source.close()


# --- end to end: a pin press is a command in the game ---

class Kiosk:
    """What the kiosk does with the box: a press, from whichever thread the pins call back on,
    goes to room.press on the loop; the accepted command (or None) comes back."""

    def __init__(self, room, factory, loop):
        self.room, self.loop = room, loop
        self.box = Box(factory, start=False)
        self.pending: list[concurrent.futures.Future] = []
        self.box.source.start(self.on_press, self.box.notices.append)

    def on_press(self, press: Press) -> None:
        self.pending.append(asyncio.run_coroutine_threadsafe(
            self.room.press(press.seat, press.colour), self.loop))

    async def fingers(self, *moves: tuple[int, str, bool]) -> list[dict | None]:
        """Drive the pins from another thread (real pins call back on lgpio's), 0.15 s apart
        on the box's clock; returns what the Room made of each press that counted."""
        def play():
            for seat, colour, pressed in moves:
                at = self.box.clock.now + 0.15
                (self.box.down if pressed else self.box.up)(at, seat, colour)

        await self.loop.run_in_executor(None, play)
        done, self.pending = self.pending, []
        return [await asyncio.wrap_future(future) for future in done]

    async def press(self, seat: int, colour: str) -> list[dict | None]:
        return await self.fingers((seat, colour, True), (seat, colour, False))


@pytest.fixture
async def table(tmp_path, mock_factory):
    """A seven-seat game in play on a real SQLite file, with the shipped pin map wired in."""
    room = await seated_room(tmp_path, seed=11)
    room.attach(asyncio.get_running_loop())
    kiosk = Kiosk(room, mock_factory, asyncio.get_running_loop())
    yield room, kiosk
    kiosk.box.source.close()
    await room.close()
    room.store.close()


async def test_a_pin_press_is_the_choice_of_the_seat_whose_turn_it_is(table):
    room, kiosk = table
    view = await asyncio.wait_for(advance(room, waiting_for("participation")), WAIT)
    seat = view["waiting"]["seats"][0]
    word, colour = ("in", BLACK) if ("in",) in room.table.state.pending.options[seat] \
        else ("out", RED)
    other = next(s for s in range(7) if s not in view["waiting"]["seats"])
    before = room.table.state_id
    assert await kiosk.press(other, colour) == [None]  # not that seat's turn: nothing happens
    assert room.table.state_id == before
    assert await kiosk.press(seat, colour) == [{"decision": "participation", "option": [word]}]
    assert room.table.state.task.participation[seat] == word


async def test_holding_black_and_red_abstains_in_a_vote(table):
    room, kiosk = table
    view = await asyncio.wait_for(advance(room, waiting_for("vote"), prefer=call_votes), WAIT)
    voter = next(s for s in view["waiting"]["seats"] if s not in view["waiting"]["chosen"])
    assert await kiosk.fingers((voter, BLACK, True), (voter, RED, True),
                               (voter, RED, False), (voter, BLACK, False)) == [
        {"decision": "vote", "option": ["abstain"]}]
    assert voter in (room.public_view()["waiting"] or {}).get("chosen", [voter])
