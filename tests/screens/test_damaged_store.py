"""The kiosk after a damaged games file was set aside: it says so in plain words, in English
and in Spanish, over the game it resumed, until the next game is set up or Esc closes it."""
from __future__ import annotations

import damaged_store as damage
from companion.core.room import Room
from companion.appliance.salvage import open_room
from screens.notice import DamagedNotice

from .conftest import SIZE, kiosk, settle


async def salvaged(tmp_path, how):
    played = await damage.played_on_loop(tmp_path / "data")
    how(played.path)
    return open_room(str(played.path), lambda store: Room(store, bot_delay=0))


def one_line(text: str) -> str:
    """The screen's words with the wrapping taken out."""
    return " ".join(line.strip(" │┃") for line in text.splitlines())


async def test_the_kiosk_says_what_happened_and_what_was_kept_over_the_resumed_game(tmp_path):
    store, room, report = await salvaged(tmp_path, lambda path: damage.alter_record(path, 3, 20))
    app = kiosk(room, salvage=report)
    try:
        async with app.run_test(size=SIZE) as pilot:
            screen = one_line(await settle(app, pilot))
            assert "The games file was damaged" in screen
            assert report.aside in screen
            assert "3 games were kept, the last one up to move 18" in screen
            assert "El archivo de partidas estaba dañado" in screen  # the other language too
            assert "Se han conservado 3 partidas" in screen
            assert app.query_one("#phases").current == "play"  # and the game goes on

            await pilot.press("f2")  # the table reads Spanish: Spanish first
            screen = await settle(app, pilot)
            notice = app.query_one(DamagedNotice)
            assert notice.border_title == "El archivo de partidas"
            first = screen.index("El archivo de partidas estaba")
            assert first < screen.index("The games file was damaged")

            await pilot.press("escape")
            screen = await settle(app, pilot)
            assert not app.query(DamagedNotice)
            assert "damaged" not in screen and "dañado" not in screen
    finally:
        await room.close()
        store.close()


async def test_the_notice_goes_once_the_next_game_is_set_up(tmp_path):
    store, room, report = await salvaged(tmp_path, damage.bad_room_row)
    app = kiosk(room, salvage=report)
    try:
        async with app.run_test(size=SIZE) as pilot:
            screen = one_line(await settle(app, pilot))
            assert "The host and seat codes are new" in screen
            assert "Los códigos del anfitrión y de los asientos son nuevos" in screen
            assert app.query_one("#phases").current == "start"

            await room.new_game({"names": damage.NAMES})
            screen = await settle(app, pilot)
            assert not app.query(DamagedNotice)
            assert app.query_one("#phases").current == "join"
            assert "damaged" not in screen
    finally:
        await room.close()
        store.close()
