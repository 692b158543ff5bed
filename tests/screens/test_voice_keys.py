"""The kiosk's voice keys (F1's list): F6 turns the narrator's voice off and on, a choice kept
with the room across a restart and said on the screen; F7 says the last line again. The
voice writes real WAVs (--voice-out) here, read back from its voice.jsonl."""
from __future__ import annotations

import json
import shutil

import pytest

from companion.core.host import TableHost
from companion.core.room import Room
from companion.core.store import EventStore
from companion.voice.narrator import Narrator
from companion.voice.speech import Voice
from hardware.source import KeyboardSource
from screens.app import KioskApp

from .conftest import BASE, SIZE, settle

pytestmark = pytest.mark.skipif(shutil.which("espeak-ng") is None,
                                reason="espeak-ng is not installed (.ci/run installs it)")
NAMES = ["Ana", "Ben", "Cai"]


def narrated_kiosk(room, out) -> KioskApp:
    host = TableHost(room, buttons=KeyboardSource(), serve=False,
                     narrator=Narrator(room, Voice(str(out))))
    return KioskApp(host, base_url=BASE)


async def help_text(app, pilot) -> str:
    await pilot.press("f1")
    text = await settle(app, pilot)
    await pilot.press("f1")
    await settle(app, pilot)
    return text


def said(out) -> list[dict]:
    path = out / "voice.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


async def test_f6_turns_the_voice_off_and_on_and_the_choice_outlives_a_restart(tmp_path):
    out = tmp_path / "voice"
    out.mkdir()
    store = EventStore(str(tmp_path / "games.db"))
    room = Room(store, seed=5, bot_delay=60)  # the bots wait: only the deal happens
    await room.new_game({"names": NAMES}, bots=[0, 1, 2])
    app = narrated_kiosk(room, out)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("f6")
        text = await settle(app, pilot)
        assert "The narrator's voice is off (F6 turns it on)" in text
        await room.start()  # the deal, while the voice is off: not said
        text = await settle(app, pilot)
        assert "The narrator's voice is off (F6 turns it on)" in text  # on the play screen too
        await app.host.narrator.voice.idle()
        assert said(out) == []
    await room.close()
    store.close()

    store = EventStore(str(tmp_path / "games.db"))  # the Pi restarted
    room = Room(store, seed=5, bot_delay=60)
    app = narrated_kiosk(room, out)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert not app.host.narrator.speaking  # still off, as the table left it
        await pilot.press("f6")
        text = await settle(app, pilot)
        assert app.host.narrator.speaking and "voice is off" not in text
        assert room.room_view()["notices"][-1] == {"k": "voice_on"}
    await room.close()
    store.close()


async def test_f7_says_the_last_line_again(tmp_path):
    out = tmp_path / "voice"
    out.mkdir()
    store = EventStore(str(tmp_path / "games.db"))
    room = Room(store, seed=5, bot_delay=0)
    app = narrated_kiosk(room, out)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        narrator = app.host.narrator
        assert "say the last line again" in await help_text(app, pilot)
        narrator.voice.say("Turn 1: Ana", "en")
        await narrator.voice.idle()
        await pilot.press("f7")
        await settle(app, pilot)
        await narrator.voice.idle()
        assert [s["text"] for s in said(out)] == ["Turn 1: Ana.", "Turn 1: Ana."]
        assert all(s["lang"] == "en" for s in said(out))
    await room.close()
    store.close()
