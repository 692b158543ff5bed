"""The button config file: a wrong pin map makes a seat vote for its neighbour, so every
mistake is refused with the file and the key, and the shipped example is a working map."""
from __future__ import annotations

from pathlib import Path

import pytest

from hardware.config import ConfigError, GpioSeat, load
from hardware.source import Fallback, FallbackReason, KeyboardSource, SourceKind, open_source

EXAMPLE = Path(__file__).resolve().parents[2] / "hardware" / "buttons.example.toml"


def write(tmp_path, text: str) -> Path:
    path = tmp_path / "buttons.toml"
    path.write_text(text)
    return path


def test_a_gpio_map_is_read_seat_by_seat(tmp_path):
    config = load(write(tmp_path, """
[buttons]
settle_ms = 15
[gpio]
seats = [ { black = 4, red = 17, led = 18 }, { black = 27, red = 22, grey = 11 } ]
"""))
    assert config.gpio == (GpioSeat(4, 17, led=18), GpioSeat(27, 22, grey=11))
    assert config.settle == 0.015 and config.stuck_after == 8.0 and config.serial is None


def test_a_serial_box_defaults_to_finding_its_port(tmp_path):
    assert load(write(tmp_path, "[serial]\n")).serial == "auto"
    assert load(write(tmp_path, '[serial]\nport = "/dev/ttyACM1"\n')).serial == "/dev/ttyACM1"


@pytest.mark.parametrize("text, says", [
    ("[gpio]\nseats = [ { black = 4, red = 4 } ]", "red = 4 is already seat 1 black"),
    ("[gpio]\nseats = [ { black = 4, red = 17 }, { black = 17, red = 5 } ]",
     "seat 2 black = 17 is already seat 1 red"),
    ("[gpio]\nseats = [ { black = 4 } ]", "seat 1 has no red pin"),
    ("[gpio]\nseats = [ { black = 4, red = 40 } ]", "from 0 to 27"),
    ("[gpio]\nseats = [ { black = 4, red = 17, blak = 5 } ]", "unknown key 'blak'"),
    ("[gpio]\nseats = []", "1 to 7 seats"),
    ("[gpio]\nseats = [" + ", ".join(f"{{ black = {2 * i}, red = {2 * i + 1} }}"
                                    for i in range(8)) + "]", "1 to 7 seats"),
    ("[gpio]\nseats = [ { black = 4, red = 17 } ]\n[serial]\n", "choose the one box"),
    ("[buttons]\nsettle_ms = 20\n", "which box is connected"),
    ("[serial]\nport = 3\n", "device path"),
    ("[buttons]\nsettle_ms = -1\n[serial]\n", "settle_ms"),
    ("[seats]\n", "unknown table [seats]"),
    ("[gpio\n", "not valid TOML"),
])
def test_mistakes_are_refused_with_where_they_are(tmp_path, text, says):
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as refused:
        load(path)
    assert says in refused.value.message
    assert str(path) in refused.value.message


def test_the_shipped_example_is_the_documented_seven_seat_map():
    config = load(EXAMPLE)
    assert len(config.gpio) == 7
    assert config.gpio[0] == GpioSeat(black=4, red=17, led=18)  # hardware/WIRING.md, seat 1
    pins = [pin for seat in config.gpio for pin in seat.pins().values()]
    assert not {2, 3, 14, 15} & set(pins)  # I2C and the serial console stay free


def test_with_no_config_the_keyboard_is_used_and_the_kiosk_is_told_why(tmp_path):
    source, why = open_source(None, default=str(tmp_path / "absent.toml"))
    assert source.kind == "keyboard"
    assert why == Fallback("unconfigured", str(tmp_path / "absent.toml"))
    source, why = open_source(str(write(tmp_path, "[gpio\n")))
    assert source.kind == "keyboard" and why.reason == "config"
    assert "not valid TOML" in why.detail


def test_a_fallback_reason_the_kiosk_cannot_word_is_refused_where_it_is_made():
    """The kiosk says why the keyboard stands in from the reason's word; a reason it has no
    words for fails where the fallback is made, not as a missing line on the screen."""
    with pytest.raises(ValueError):
        Fallback("missing", "/etc/darkmoon-companion/buttons.toml")
    assert Fallback("gpio", "pins busy").reason is FallbackReason.GPIO
    assert KeyboardSource().kind == "keyboard" == SourceKind.KEYBOARD
