"""The narrator's voice (companion/voice): espeak-ng renders real WAV files, read back here
with Python's wave module. The table hears the public log's new sentences in the room's
language, in order, none twice, never from a seat's view; a missing or failing speech
program turns the voice off and the game goes on."""
from __future__ import annotations

import asyncio
import json
import os
import shutil
import stat
import subprocess
import sys
import wave
from pathlib import Path

import pytest

import children

from companion.cli import demo_game
from companion.core.room import Room
from companion.core.store import EventStore
from companion.lang import text
from companion.lang.screen import view_text
from companion.voice.narrator import Narrator
from companion.voice.speech import Voice

ROOT = Path(__file__).resolve().parents[1]
needs_espeak = pytest.mark.skipif(shutil.which("espeak-ng") is None,
                                  reason="espeak-ng is not installed (.ci/run installs it)")
GAME_GUARD = 60.0  # s: a guard against a game that never ends, not a measurement


def loudest(path: Path) -> int:
    """The largest sample of a 16-bit mono WAV: a voice, not silence."""
    with wave.open(str(path)) as w:
        assert (w.getnchannels(), w.getsampwidth()) == (1, 2)
        frames = w.readframes(w.getnframes())
    samples = memoryview(frames).cast("h")
    return max(abs(s) for s in samples) if len(samples) else 0


class PublicOnly:
    """A real room, with every seat's view out of reach: a narrator that asked for one would
    fail here instead of saying a secret."""

    def __init__(self, room):
        self._room = room

    def __getattr__(self, name):
        if name in ("seat_view", "table"):
            raise AssertionError(f"the narrator read the room's {name}")
        return getattr(self._room, name)


async def narrated_demo(tmp_path, lang: str, seed: int, pace: float = 0.02):
    store = EventStore(tmp_path / "demo.db")
    room = Room(store, seed=seed, bot_delay=pace, demo=True)
    room.attach(asyncio.get_running_loop())
    out = tmp_path / "voice"
    out.mkdir()
    narrator = Narrator(PublicOnly(room), Voice(str(out)))
    narrator.start()
    await demo_game(room, 5, lang=lang)
    async with asyncio.timeout(GAME_GUARD):
        while not room.table.over:
            await asyncio.sleep(0.01)
        await narrator.voice.idle()
    log = view_text(room.public_view(), lang)["log"]
    dropped = narrator.voice.dropped
    await narrator.stop()
    await room.close()
    store.close()
    said = [json.loads(line) for line in (out / "voice.jsonl").read_text().splitlines()]
    return said, log, dropped, out


@needs_espeak
@pytest.mark.parametrize("lang", ["en", "es"])
async def test_a_whole_demo_is_spoken_in_order_in_the_rooms_language(tmp_path, lang):
    said, log, dropped, out = await narrated_demo(tmp_path, lang, seed=3)
    texts = [line for s in said for line in s["lines"]]
    # bots move every 20 ms, faster than speech: earlier moments are dropped, never queued
    assert len(texts) > 30 and dropped < len(texts), (len(texts), dropped)
    # every line is a sentence of the public log, in the log's order, none twice
    position = -1
    for line in texts:
        assert line in log[position + 1:], line
        position = log.index(line, position + 1)
    # the end is heard: the game-over sentence, in the room's language
    assert texts[-1] == log[-1]
    assert texts[-1].startswith({"en": "Game over", "es": "Fin de la partida"}[lang])
    for entry in said:
        assert entry["lang"] == lang
        assert entry["event_ms"] <= entry["first_sample_ms"] <= entry["ready_ms"]
        assert loudest(out / entry["file"]) > 1000  # a voice, not silence
    assert sorted(p.name for p in out.glob("*.wav")) == sorted(s["file"] for s in said)


@needs_espeak
async def test_the_same_line_sounds_different_in_english_and_spanish(tmp_path):
    voice = Voice(str(tmp_path))
    voice.start()
    voice.say("Dee", "en")
    await voice.idle()
    voice.say("Dee", "es")
    await voice.idle()
    await voice.stop()
    first, second = (tmp_path / "00001.wav").read_bytes(), (tmp_path / "00002.wav").read_bytes()
    assert first != second  # espeak-ng's English and Spanish voices, not one voice for both


@needs_espeak
async def test_what_happened_before_the_narrator_started_is_not_read_out(tmp_path):
    store = EventStore(tmp_path / "g.db")
    room = Room(store, seed=2, bot_delay=0, demo=True)
    room.attach(asyncio.get_running_loop())
    await demo_game(room, 4)
    async with asyncio.timeout(GAME_GUARD):
        while not room.table.over:
            await asyncio.sleep(0.01)
    narrator = Narrator(room, Voice(str(tmp_path)))
    narrator.start()  # a restart in a game already played: nothing new to say
    room.tell_table()
    await asyncio.sleep(0.2)
    await narrator.voice.idle()
    await narrator.stop()
    assert not (tmp_path / "voice.jsonl").exists()
    await room.close()
    store.close()


async def test_without_espeak_the_game_runs_silent_and_says_why(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))  # a machine with no espeak-ng
    voice = Voice(str(tmp_path))
    assert not voice.on and "espeak-ng" in voice.problem and "apt install" in voice.problem
    voice.start()
    voice.say("Turn 1: Ana", "en")  # nothing happens, nothing raises
    await voice.idle()
    await voice.stop()
    assert list(tmp_path.iterdir()) == []


async def test_a_speech_program_that_dies_turns_the_voice_off_and_nothing_else(tmp_path):
    dying = tmp_path / "espeak-ng"
    dying.write_text("#!/bin/sh\necho 'no voice data' >&2\nexit 1\n")
    dying.chmod(stat.S_IRWXU)
    out = tmp_path / "out"
    out.mkdir()
    voice = Voice(str(out), espeak=str(dying))
    voice.start()
    voice.say("Turn 1: Ana", "en")
    voice.say("Turn 2: Ben", "en")
    async with asyncio.timeout(10):
        while voice.on:
            await asyncio.sleep(0.01)
    assert "no voice data" in voice.problem
    voice.say("Turn 3: Cai", "en")  # off now: dropped quietly
    await voice.idle()
    await voice.stop()
    assert list(out.iterdir()) == []


@needs_espeak
def test_demo_headless_with_voice_out_writes_the_game_in_spanish(tmp_path):
    out = tmp_path / "voice"
    done = children.run(
        [sys.executable, "-m", "companion.cli", "--data-dir", str(tmp_path / "data"), "demo",
         "--headless", "--port", "0", "--listen", "127.0.0.1", "--address", "127.0.0.1",
         "--pace", "0.02", "--seed", "5", "--lang", "es", "--voice-out", str(out)],
        cwd=tmp_path, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    said = [json.loads(line) for line in (out / "voice.jsonl").read_text().splitlines()]
    assert len(said) > 30
    assert {s["lang"] for s in said} == {"es"}
    assert said[-1]["lines"][-1].startswith("Fin de la partida")
    assert all(loudest(out / s["file"]) > 1000 for s in said[-5:])


@needs_espeak
async def test_an_earlier_moment_gone_stale_is_dropped_and_the_newest_is_said_whole(tmp_path):
    voice = Voice(str(tmp_path))
    for line in ("Turn 1: Ana", "Ana chooses: Repair the outpost", "Ana repairs Comms"):
        voice.say(line, "en", event_ms=1.0)  # while the voice is busy: one moment waits
    votes = [f"{name} votes" for name in ("Ana", "Ben", "Cai", "Dee", "Eli")]
    for line in votes:
        voice.say(line, "en", event_ms=2.0)  # the next moment, a vote revealed seat by seat
    voice.start()
    await voice.idle()
    await voice.stop()
    said = [json.loads(line) for line in (tmp_path / "voice.jsonl").read_text().splitlines()]
    # the vote's moment in one utterance, each seat's line a sentence of it
    assert [s["lines"] for s in said] == [votes] and voice.dropped == 3
    assert said[0]["text"] == "Ana votes. Ben votes. Cai votes. Dee votes. Eli votes."


async def test_a_table_without_the_voice_is_told_once_how_to_turn_it_on(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))  # no espeak-ng, no aplay
    store = EventStore(tmp_path / "g.db")
    room = Room(store, bot_delay=0)
    room.attach(asyncio.get_running_loop())
    narrator = Narrator(room, Voice())
    narrator.start()
    await room.new_game({"names": ["Ana", "Ben", "Cai"]})
    assert [n["k"] for n in room.room_view()["notices"]] == ["voice_missing"]
    for lang in ("en", "es"):
        assert "espeak-ng" in text(lang, "kiosk.notice.voice_missing")
    await narrator.stop()
    await room.close()
    store.close()


async def test_a_voice_that_fails_mid_game_is_told_on_the_kiosk_and_phones(tmp_path):
    dying = tmp_path / "espeak-ng"
    dying.write_text("#!/bin/sh\nexit 1\n")
    dying.chmod(stat.S_IRWXU)
    store = EventStore(tmp_path / "g.db")
    room = Room(store, seed=2, bot_delay=0, demo=True)
    room.attach(asyncio.get_running_loop())
    narrator = Narrator(room, Voice(str(tmp_path), espeak=str(dying)))
    narrator.start()
    await demo_game(room, 4)
    async with asyncio.timeout(GAME_GUARD):
        while narrator.voice.on or not room.table.over:
            await asyncio.sleep(0.01)
    assert [n["k"] for n in room.room_view()["notices"]] == ["voice_failed"]  # once
    await narrator.stop()
    await room.close()
    store.close()


@needs_espeak
async def test_played_lines_go_from_espeak_straight_into_the_player(tmp_path):
    heard = tmp_path / "heard.wav"
    player = tmp_path / "aplay"  # a player that keeps what it is given, as aplay plays it
    player.write_text(f"#!/bin/sh\n[ \"$1\" = -q ] || exit 2\ncat >> '{heard}'\n")
    player.chmod(stat.S_IRWXU)
    voice = Voice(player=str(player))
    voice.start()
    voice.say("Turn 1: Ana", "en")
    await voice.idle()
    assert voice.on and heard.read_bytes()[:4] == b"RIFF" and len(heard.read_bytes()) > 10000
    player.write_text("#!/bin/sh\necho 'audio open error: Device or resource busy' >&2\nexit 1\n")
    voice.say("Turn 2: Ben", "en")  # the sound card taken: voice off, said why
    async with asyncio.timeout(10):
        while voice.on:
            await asyncio.sleep(0.01)
    assert "Device or resource busy" in voice.problem
    await voice.stop()
