"""A damaged games file never crash-loops the appliance. The file is set aside
beside the new one (kept byte for byte), the games and moves before the damage are kept,
and the product starts and says what happened, in English and Spanish.

Real SQLite files in tmp_path, real Rooms, and the real `darkmoon-companion` command on a
pseudo-terminal, as systemd runs it on the Pi's console."""
from __future__ import annotations

import hashlib
import logging
import os
import resource
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

import children
import damaged_store as damage
from companion.core.room import Room
from companion.appliance.salvage import StoreUnavailable, open_room
from companion.core.store import EventStore
from companion.core.table import Table
from systemd.throwaway_root import free_port, read_until, spawn_on_pty, stop

COMMAND = Path(sys.executable).with_name("darkmoon-companion")
ALTERED = 20  # the command of the latest game edited by hand: 19 good ones before it


@pytest.fixture(scope="module")
def original(tmp_path_factory) -> damage.Played:
    """Three games of 40 moves, the third still in play; each test damages its own copy."""
    return damage.played(tmp_path_factory.mktemp("original"))


@pytest.fixture
def copy_of(original, tmp_path):
    def make(how) -> Path:
        path = tmp_path / "data" / "games.db"
        path.parent.mkdir()
        path.write_bytes(original.path.read_bytes())
        how(path)
        return path
    return make


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def opened_as_today(path: Path) -> None:
    """What the product did before the salvage: open the store, build the room."""
    store = EventStore(path)
    try:
        Room(store)
    finally:
        store.close()


def assert_trusted_prefix(path: Path, original: damage.Played) -> dict[int, list]:
    """The new file is sound, and every game in it is the original's, whole or cut short,
    and replays with the rules."""
    kept = damage.stored_games(path)
    with EventStore(path) as store:
        assert store.check() is None
        for game, commands in kept.items():
            assert commands == original.games[game][:len(commands)]
            assert Table.resume(store, game).state_id == len(commands) - 1
    return kept


CASES = {
    "truncated": damage.truncate,
    "scribbled": damage.scribble,
    "not sqlite": damage.not_sqlite,
    "bad room row": damage.bad_room_row,
    "altered record": lambda path: damage.alter_record(path, 3, ALTERED),
    "newer version": damage.from_the_future,
}


@pytest.mark.parametrize("case", CASES)
def test_a_damaged_file_is_set_aside_untouched_and_the_room_starts(case, copy_of, original,
                                                                    caplog):
    path = copy_of(CASES[case])
    if case != "scribbled":  # that one opened, on a file SQLite calls damaged (below)
        with pytest.raises(Exception):  # what systemd restarted every 5 s, forever
            opened_as_today(path)
    before = digest(path)
    with caplog.at_level(logging.WARNING, logger="companion.appliance.salvage"):
        store, room, report = open_room(str(path), Room)
    try:
        assert report is not None, "the damage went unnoticed"
        (aside,) = [p for p in damage.damaged_beside(path) if not p.name.endswith(("-wal", "-shm"))]
        assert aside.name == report.aside and aside.name.startswith("games.db.damaged-")
        assert digest(aside) == before  # kept as it was: never deleted, never written
        assert room.phase in ("start", "play")
        kept = assert_trusted_prefix(path, original)
        assert report.games == len(kept)
        if kept:
            assert report.last_moves == len(kept[max(kept)]) - 1
        for lang in ("en", "es"):
            assert report.aside in report.sentence(lang)
        assert report.sentence("en") != report.sentence("es")
        assert report.sentence("en") in caplog.text  # and in the journal
    finally:
        store.close()


def test_one_altered_record_cuts_the_game_in_play_there_and_it_resumes(copy_of, original):
    path = copy_of(CASES["altered record"])
    store, room, report = open_room(str(path), Room)
    try:
        kept = assert_trusted_prefix(path, original)
        assert {game: len(c) for game, c in kept.items()} == {1: 41, 2: 41, 3: ALTERED - 1}
        # The room was sound: same host code, and the game goes on from its last good move.
        assert not report.room_reset and room.host_token == original.host_token
        assert room.phase == "play" and room.table.game_id == 3
        assert room.public_view()["state_id"] == ALTERED - 2
        assert (report.games, report.last_moves, report.last_cut) == (3, ALTERED - 2, True)
        assert report.sentence("en") == (
            f"The games file was damaged. It was set aside as {report.aside}. 3 games were "
            f"kept, the last one up to move 18. Its moves after the damage could not be "
            f"trusted and were left out.")
        assert report.sentence("es").startswith(
            f"El archivo de partidas estaba dañado. Se ha apartado como {report.aside}. Se han "
            f"conservado 3 partidas, la última hasta la jugada 18.")
    finally:
        store.close()


def test_a_power_cut_between_the_two_renames_loses_nothing_salvaged(copy_of, original):
    """The salvage sets the damaged file aside, then moves its fresh copy into place. A power
    cut between the two leaves no games file: the next start puts the copy in place rather
    than start empty."""
    path = copy_of(CASES["altered record"])
    store, room, report = open_room(str(path), Room)
    store.close()
    os.replace(path, str(path) + ".salvage")  # as if the second rename never happened
    store, room, again = open_room(str(path), Room)
    try:
        assert again is None  # nothing more to salvage: the copy was sound
        kept = assert_trusted_prefix(path, original)
        assert {game: len(c) for game, c in kept.items()} == {1: 41, 2: 41, 3: ALTERED - 1}
        assert room.phase == "play" and room.host_token == original.host_token
        assert not os.path.exists(str(path) + ".salvage")
    finally:
        store.close()


def test_a_bad_room_row_keeps_every_game_and_the_room_starts_with_a_new_host_code(
        copy_of, original):
    path = copy_of(CASES["bad room row"])
    store, room, report = open_room(str(path), Room)
    try:
        kept = assert_trusted_prefix(path, original)
        assert kept == original.games
        assert report.room_reset and room.phase == "start"
        assert room.host_token != original.host_token
        assert "The host and seat codes are new" in report.sentence("en")
    finally:
        store.close()


def test_a_newer_versions_file_is_set_aside_and_nothing_is_read_from_it(copy_of):
    path = copy_of(CASES["newer version"])
    store, room, report = open_room(str(path), Room)
    store.close()
    assert report.cause == "newer" and report.games == 0
    assert "newer version" in report.sentence("en") and "más nueva" in report.sentence("es")
    with sqlite3.connect(damage.damaged_beside(path)[0]) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 99
    conn.close()


def test_page_damage_the_first_queries_do_not_touch_is_caught(copy_of, original):
    """Scribbled pages in the middle of the file: the room and its game still load, so only
    SQLite's own check at open sees it. The games before the damage are kept."""
    path = copy_of(CASES["scribbled"])
    store, room, report = open_room(str(path), Room)
    try:
        assert report is not None
        kept = assert_trusted_prefix(path, original)
        assert kept and kept != original.games
    finally:
        store.close()


def test_a_sound_file_opens_as_it_is(copy_of, original):
    path = copy_of(lambda path: None)
    store, room, report = open_room(str(path), Room)
    try:
        assert report is None and damage.damaged_beside(path) == []
        assert room.host_token == original.host_token and room.table.game_id == 3
    finally:
        store.close()


# --- the real command, as systemd runs it ---

def test_the_command_shows_the_kiosk_and_the_notice_instead_of_exiting(copy_of, original):
    path = copy_of(CASES["altered record"])
    argv = [str(COMMAND), "--data-dir", str(path.parent), "--port", str(free_port()),
            "--address", "192.168.1.23"]
    proc, master = spawn_on_pty(argv, {"TERM": "linux", "LANG": "C.UTF-8"}, path.parent)
    try:
        read_until(master, [b"The games file was damaged",
                            b"El archivo de partidas estaba", b"games.db.damaged-"])
        assert proc.poll() is None
    finally:
        took = stop(proc, master, 15)
    assert took is not None and proc.returncode == 0
    assert len(damage.damaged_beside(path)) >= 1
    kept = assert_trusted_prefix(path, original)
    assert len(kept[3]) == ALTERED - 1


def test_with_no_room_for_a_fresh_file_it_refuses_in_one_sentence(copy_of):
    """A full disk: the fresh file cannot be written. One sentence, no traceback, and the
    damaged file stays where it was, as it was (the next start tries again)."""
    path = copy_of(CASES["altered record"])
    before = digest(path)

    def small_disk():  # files may not grow past 40 KB; SIGXFSZ would kill us, not refuse
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (40_000, 40_000))

    done = children.run([str(COMMAND), "--data-dir", str(path.parent),
                         "--port", str(free_port())], capture_output=True, text=True,
                        timeout=60, preexec_fn=small_disk, stdin=subprocess.DEVNULL,
                        cwd=path.parent)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert lines[-1].startswith(f"the games file {path} is damaged and no fresh one can be "
                                "made beside it"), lines
    assert digest(path) == before and damage.damaged_beside(path) == []
    assert not list(path.parent.glob("games.db.salvage*"))


def test_a_directory_that_cannot_be_written_is_refused_not_salvaged(tmp_path):
    """Not damage: the same file would open on a sound disk, so it is not set aside."""
    with pytest.raises(StoreUnavailable) as refused:
        open_room(str(tmp_path / "missing" / "games.db"), Room)
    assert "cannot open the games file" in refused.value.message
    assert not os.path.exists(tmp_path / "missing")


def test_a_fault_of_the_program_is_not_taken_for_damage(copy_of):
    """A room that cannot be built even from nothing is a bug, not a damaged file: refused,
    and the file stays where it was; a crash loop must not leave a copy of it beside every
    few seconds."""
    path = copy_of(lambda path: None)
    before = digest(path)

    def broken_room(store):
        raise TypeError("a bug")

    with pytest.raises(StoreUnavailable):
        open_room(str(path), broken_room)
    assert digest(path) == before and damage.damaged_beside(path) == []
    assert not list(path.parent.glob("games.db.salvage*"))
