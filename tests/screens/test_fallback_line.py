"""The kiosk's bottom line says why the keyboard stands in for the seat buttons, whole, on the
Pi's 120x36 screen and in both languages: a reason cut at the screen's edge ("... (lgpio:
No module") told the table nothing it could act on."""
from __future__ import annotations

import pytest

from hardware.source import Fallback, FallbackReason, KeyboardSource
from screens.buttons import FALLBACK_KEYS
from screens.words import say

from .conftest import SIZE, kiosk, region_text, settle
from table_play import seated_room

# What open_source gives for each reason on a Pi (the GPIO error as gpiozero words it).
DETAILS = {
    FallbackReason.UNCONFIGURED: "/etc/darkmoon-companion/buttons.toml",
    FallbackReason.CONFIG: "seat 3: pin 4 is used twice",
    FallbackReason.GPIO: "no GPIO pin driver works on this machine (lgpio: No module named "
                         "'lgpio'); using the keyboard instead",
    FallbackReason.NO_LGPIO: "sudo apt install python3-lgpio",
}


def test_every_reason_has_its_words():
    assert set(DETAILS) == set(FallbackReason) == set(FALLBACK_KEYS)


@pytest.mark.parametrize("reason", list(FallbackReason))
async def test_the_whole_reason_is_on_the_bottom_line_in_english_and_spanish(tmp_path,
                                                                             reason):
    room = await seated_room(tmp_path, players=4)
    app = kiosk(room, buttons=KeyboardSource(), buttons_fallback=Fallback(reason,
                                                                          DETAILS[reason]))
    async with app.run_test(size=SIZE) as pilot:
        for lang, key in (("en", None), ("es", "f2")):
            if key:
                await pilot.press(key)
            await settle(app, pilot)
            line = region_text(app, "#buttons-line").strip()
            assert line == say(lang, FALLBACK_KEYS[reason], detail=DETAILS[reason])
            assert lang == "en" or "teclado" in line


async def test_a_pi_without_lgpio_is_told_the_one_package_to_install(tmp_path):
    room = await seated_room(tmp_path, players=4)
    app = kiosk(room, buttons=KeyboardSource(),
                buttons_fallback=Fallback(FallbackReason.NO_LGPIO,
                                          "sudo apt install python3-lgpio"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert region_text(app, "#buttons-line").strip().endswith(
            "GPIO needs lgpio: sudo apt install python3-lgpio")
        await pilot.press("f2")
        await settle(app, pilot)
        assert region_text(app, "#buttons-line").strip().endswith(
            "El GPIO necesita lgpio: sudo apt install python3-lgpio")
