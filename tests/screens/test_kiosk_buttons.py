"""The kiosk with a real button box: GPIO pins (gpiozero's MockFactory) pressed during a game,
the seat LEDs, the line that says which buttons are in use, and the F4 self-test."""
from __future__ import annotations

import asyncio

from hardware.config import GpioSeat
from hardware.gpio import GpioSource
from hardware.serialbox import SerialSource
from hardware.simbox import SimBox
from hardware.source import Fallback, KeyboardSource
from screens.buttons import ButtonTestApp, ButtonTestScreen
from screens.capture import screen_text

from .conftest import SIZE, kiosk, region_text, settle
from table_play import advance, call_votes, seated_room, waiting_for

# seat n: BLACK, RED, GREY, LED (a box with GREY buttons counts a press on the way down)
PINS = [GpioSeat(black=4 + 4 * n, red=5 + 4 * n, grey=6 + 4 * n, led=7 + 4 * n)
        for n in range(4)]


class Clock:
    """Injected time for the box's debounce: each press is held 50 ms, then 50 ms pass."""
    def __init__(self):
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def press(mock_factory, pin: int, clock: Clock) -> None:
    mock_factory.pin(pin).drive_low()  # buttons pull up: low is pressed
    clock.now += 0.05
    mock_factory.pin(pin).drive_high()
    clock.now += 0.05


def gpio_kiosk(room, mock_factory, **source):
    """The kiosk over a GPIO box on mock pins, with the box's clock in the test's hands."""
    clock = Clock()
    box = GpioSource(PINS, pin_factory=mock_factory, ticker=False, clock=clock, **source)
    return clock, box, kiosk(room, buttons=box)


def lit(mock_factory) -> set[int]:
    return {seat for seat, pins in enumerate(PINS) if mock_factory.pin(pins.led).state}


async def test_the_seat_whose_turn_it_is_lights_up_and_its_black_button_goes_in(
        tmp_path, mock_factory):
    room = await seated_room(tmp_path, players=4)
    view = await advance(room, waiting_for("participation"))
    seat = view["waiting"]["seats"][0]
    clock, _, app = gpio_kiosk(room, mock_factory)
    app.PRESS_NOTE_SECONDS = 0.3
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert lit(mock_factory) == {seat}  # whose turn it is, and nobody else
        other = (seat + 1) % 4
        press(mock_factory, PINS[other].black, clock)  # not their turn: means nothing
        await settle(app, pilot)
        assert room.public_view()["task"]["participation"].get(str(other)) is None
        assert "BLACK does nothing now, it is not their turn" in \
            region_text(app, "#buttons-line")  # and the table is told so
        await asyncio.sleep(0.4)
        press(mock_factory, PINS[seat].black, clock)
        await settle(app, pilot)
        after = room.public_view()
        assert after["task"]["participation"][str(seat)] == "in"
        assert seat not in lit(mock_factory)  # its LED goes out once it has chosen
        assert "the GPIO box, 4 seats" in region_text(app, "#buttons-line")


async def test_during_a_vote_leds_show_who_still_must_vote_never_what(tmp_path, mock_factory):
    room = await seated_room(tmp_path, players=4)
    view = await advance(room, waiting_for("vote"), prefer=call_votes)
    voters = set(view["waiting"]["seats"])
    clock, _, app = gpio_kiosk(room, mock_factory)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert lit(mock_factory) == voters
        first, second = sorted(voters)[:2]
        press(mock_factory, PINS[first].grey, clock)  # abstain
        press(mock_factory, PINS[second].red, clock)
        await settle(app, pilot)
        assert lit(mock_factory) == voters - {first, second}
        # what they chose is nowhere in the LEDs: both voters' LEDs are simply off
        assert room.public_view()["waiting"]["chosen"] == sorted({first, second})


async def test_f4_self_test_shows_seat_and_colour_and_never_plays(tmp_path, mock_factory):
    room = await seated_room(tmp_path, players=4)
    view = await advance(room, waiting_for("participation"))
    seat = view["waiting"]["seats"][0]
    clock, _, app = gpio_kiosk(room, mock_factory)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        state = room.table.state_id
        await pilot.press("f4")
        assert isinstance(app.screen, ButtonTestScreen)
        press(mock_factory, PINS[seat].black, clock)
        press(mock_factory, PINS[2].red, clock)
        text = await settle(app, pilot)
        assert f"Seat {seat + 1}" in text and "BLACK" in text
        assert "Seat 3 Cai" in text and "RED" in text
        assert lit(mock_factory) == {2}  # the last press lights its own seat's LED
        assert room.table.state_id == state  # nothing was played
        await pilot.press("escape")
        await settle(app, pilot)
        assert lit(mock_factory) == {seat}  # back to the game's LEDs
        press(mock_factory, PINS[seat].black, clock)
        await settle(app, pilot)
        assert room.public_view()["task"]["participation"][str(seat)] == "in"


async def test_with_no_box_the_kiosk_says_the_keyboard_is_the_buttons_and_why(tmp_path):
    room = await seated_room(tmp_path, players=4)
    app = kiosk(room, buttons=KeyboardSource(),
                buttons_fallback=Fallback("unconfigured", "/etc/darkmoon-companion/buttons.toml"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        line = region_text(app, "#buttons-line")
        assert "the keyboard" in line and "No button box is set up." in line
        assert "/etc/" not in line  # the file is named in the log, not to the table
        await pilot.press("f2")
        await settle(app, pilot)
        assert "el teclado" in region_text(app, "#buttons-line")


async def test_a_stuck_button_is_shown_until_released(tmp_path, mock_factory):
    room = await seated_room(tmp_path, players=4)
    clock, box, app = gpio_kiosk(room, mock_factory, stuck_after=8.0)
    async with app.run_test(size=SIZE) as pilot:
        mock_factory.pin(PINS[1].red).drive_low()
        clock.now += 9
        box.tick()
        await settle(app, pilot)
        assert "Seat 2's RED button is held down" in region_text(app, "#buttons-line")
        mock_factory.pin(PINS[1].red).drive_high()
        await settle(app, pilot)
        assert "GPIO box" in region_text(app, "#buttons-line")


async def until(pilot, app, check, what: str):
    """Let the kiosk run until check() holds: the box's thread works in real time."""
    for _ in range(500):
        if check():
            return
        await pilot.pause(0.01)
    raise AssertionError(f"never: {what}; line is {region_text(app, '#buttons-line')!r}")


async def test_a_usb_box_unplugged_mid_vote_is_said_and_its_lights_come_back(tmp_path):
    """A real pty with the simulated box (the firmware's own logic) behind it."""
    room = await seated_room(tmp_path, players=4)
    view = await advance(room, waiting_for("vote"), prefer=call_votes)
    voters = sorted(view["waiting"]["seats"])
    sim = SimBox(seats=4, grey=range(4))
    app = kiosk(room, buttons=SerialSource(sim.path, retry=(0.01, 0.05)))
    try:
        async with app.run_test(size=SIZE) as pilot:
            line = lambda: region_text(app, "#buttons-line")  # noqa: E731
            await until(pilot, app, lambda: "the USB box, 4 seats" in line(), "hello")
            await until(pilot, app, lambda: sim.lit() == set(voters), "LEDs for the voters")
            sim.tap(voters[0], "grey")
            await until(pilot, app, lambda: room.public_view()["waiting"]["chosen"]
                        == [voters[0]], "the first vote")
            sim.unplug()
            await until(pilot, app, lambda: "unplugged" in line(), "the unplug said")
            sim.replug()
            await until(pilot, app, lambda: "the USB box, 4 seats" in line(), "back")
            # a replugged box starts dark: it is told again who still must vote
            await until(pilot, app, lambda: sim.lit() == set(voters[1:]), "LEDs again")
            assert room.public_view()["waiting"]["chosen"] == [voters[0]]  # the vote stood
    finally:
        sim.close()


async def test_buttons_test_command_shows_each_press_of_the_box_and_the_keyboard(mock_factory):
    """`darkmoon-companion buttons --test`: wiring a box before any game."""
    clock = Clock()
    box = GpioSource(PINS, pin_factory=mock_factory, ticker=False, clock=clock)
    app = ButtonTestApp(box)
    async with app.run_test(size=SIZE) as pilot:
        press(mock_factory, PINS[3].grey, clock)
        await pilot.press("2")  # the keyboard's seat 2 BLACK works here too
        for _ in range(3):
            await pilot.pause()
        text = screen_text(app)
        assert "Seat 4" in text and "GREY" in text and "Seat 2" in text and "BLACK" in text
        assert "the GPIO box, 4 seats" in text
        assert lit(mock_factory) == {1}  # the last press (seat 2) lights its LED
        await pilot.press("escape")  # as the hint says (Esc once did nothing)
        await pilot.pause()
        assert not app.is_running
    assert all(not mock_factory.pin(p.led).state for p in PINS)  # closing darkens the box


async def test_a_press_out_of_turn_is_answered_on_the_bottom_line_for_a_moment(tmp_path):
    """A press that means nothing is no longer silent. The kiosk's bottom line says
    whose press it was and why (only what the board already shows), then clears."""
    room = await seated_room(tmp_path, players=4)
    app = kiosk(room)
    app.PRESS_NOTE_SECONDS = 0.5
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        waited = room.table.state.pending.seats
        other = next(s for s in range(4) if s not in waited)
        await pilot.press("1234"[other])  # BLACK of a seat the game is not waiting for
        text = await settle(app, pilot)
        name = room.room_view()["seats"][other]["name"]
        assert f"Seat {other + 1} {name}: BLACK does nothing now, it is not their turn" in text
        await asyncio.sleep(0.7)
        text = await settle(app, pilot)
        assert "does nothing now" not in text and "Seat buttons: the keyboard" in text
