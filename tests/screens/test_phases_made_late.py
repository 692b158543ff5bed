"""The kiosk makes only the view of the phase it shows before its first frame (a
Pi must reach the join screen sooner); the other phases' views are made once that frame is
up, or at once when the room moves on before then. Either way the table sees every phase."""
from __future__ import annotations

from pathlib import Path

import screens.app
from screens.app import KioskApp

from .conftest import BASE, SIZE, kiosk, settle, table_host
from table_play import seated_room


class KioskBeforeItsPhasesAreMade(KioskApp):
    """A kiosk held at the moment after its first frame and before the other phases'
    views are made (on_ready makes them), however fast the test machine is."""

    CSS_PATH = Path(screens.app.__file__).with_name(KioskApp.CSS_PATH)  # not beside this file

    async def on_ready(self, event) -> None:
        event.prevent_default()  # Textual would call KioskApp.on_ready after this one
        self.serving.set()


async def test_a_kiosk_restarted_during_play_shows_the_board_first(tmp_path):
    room = await seated_room(tmp_path, players=3)  # dealt and started: a restart mid-game
    app = kiosk(room)
    async with app.run_test(size=SIZE) as pilot:
        text = await settle(app, pilot)
        assert app.query_one("#phases").current == "play"
        assert "Ana" in text and "Scan" not in text


async def test_once_up_the_kiosk_has_every_phase_and_f5_shows_a_new_host_code(tmp_path):
    room = await seated_room(tmp_path, players=3, start=False)
    app = kiosk(room)
    async with app.run_test(size=SIZE) as pilot:
        await app.serving.wait()
        phases = {child.id for child in app.query_one("#phases").children}
        assert phases == {"start", "join", "play", "over"}
        await pilot.press("f5")
        text = await settle(app, pilot)
        assert app.query_one("#phases").current == "start"
        assert f"{BASE}/h#" in text


async def test_a_game_started_before_the_board_is_made_is_drawn_once_it_is(tmp_path):
    room = await seated_room(tmp_path, players=3, start=False)
    app = KioskBeforeItsPhasesAreMade(table_host(room), base_url=BASE)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert {child.id for child in app.query_one("#phases").children} == {"join"}
        await room.start()
        text = await settle(app, pilot)
        assert app.query_one("#phases").current == "play"
        assert "Scan" not in text and "Ana" in text
