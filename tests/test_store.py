"""The event store keeps every acknowledged command, in order, through reopen and kill -9."""

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import children

from companion.core.store import (EventStore, GameTaken, SequenceConflict, StoreError,
                             UnknownGame)

REPO_ROOT = Path(__file__).resolve().parents[1]


def roll(seq: int) -> list[dict]:
    return [
        {"type": "DieRolled", "seat": seq % 5, "face": "2"},
        {"type": "FatigueChanged", "station": "Comms", "delta": -1},
        {"type": "TurnPassed", "to": (seq + 1) % 5, "note": "é✓"},
    ]


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "events.sqlite"


def test_append_then_load_returns_each_command_records_in_order(path):
    with EventStore(path) as store:
        game = store.new_game({"players": 5, "seed": 1, "variants": ["shadow"]})
        for seq in range(1, 4):
            store.append(game, seq, roll(seq))
        store.append(game, 4, [])  # a command may produce no records and still take its seq

        assert store.load(game) == [roll(1), roll(2), roll(3), []]
        assert store.last_seq(game) == 4
        assert store.meta(game) == {"players": 5, "seed": 1, "variants": ["shadow"]}


def test_a_new_game_becomes_the_latest_and_keeps_its_own_log(path):
    with EventStore(path) as store:
        assert store.latest_game() is None
        first = store.new_game({"seed": 1})
        store.append(first, 1, roll(1))
        second = store.new_game({"seed": 2})

        assert store.latest_game() == second != first
        assert store.last_seq(second) == 0
        assert store.load(second) == []
        assert store.load(first) == [roll(1)]


def test_reopening_the_file_resumes_with_the_same_records_and_seq(path):
    store = EventStore(path)
    game = store.new_game({"seed": 7})
    for seq in range(1, 6):
        store.append(game, seq, roll(seq))
    store.close()

    with EventStore(path) as reopened:
        assert reopened.latest_game() == game
        assert reopened.meta(game) == {"seed": 7}
        assert reopened.last_seq(game) == 5
        assert reopened.load(game) == [roll(seq) for seq in range(1, 6)]
        reopened.append(game, 6, roll(6))  # and the game goes on
        assert reopened.last_seq(game) == 6


@pytest.mark.parametrize("wrong_seq", [4, 2, 1, 0], ids=["gap", "duplicate", "first-again", "zero"])
def test_a_wrong_seq_is_refused_and_writes_nothing(path, wrong_seq):
    with EventStore(path) as store:
        game = store.new_game({})
        store.append(game, 1, roll(1))
        store.append(game, 2, roll(2))

        with pytest.raises(SequenceConflict):
            store.append(game, wrong_seq, [{"type": "Intruder"}])

        assert store.last_seq(game) == 2
        assert store.load(game) == [roll(1), roll(2)]
    with EventStore(path) as reopened:
        assert reopened.load(game) == [roll(1), roll(2)]


def test_sequence_conflict_is_both_a_store_error_and_a_value_error():
    assert issubclass(SequenceConflict, StoreError)
    assert issubclass(SequenceConflict, ValueError)


def test_a_record_list_is_stored_whole_or_not_at_all(path):
    with EventStore(path) as store:
        game = store.new_game({})
        store.append(game, 1, roll(1))

        broken = [{"type": "A"}, {"type": "B", "die": object()}, {"type": "C"}]
        with pytest.raises(TypeError):
            store.append(game, 2, broken)

        assert store.last_seq(game) == 1
        assert store.load(game) == [roll(1)]
        store.append(game, 2, roll(2))  # the failed attempt left seq 2 free
        assert store.load(game) == [roll(1), roll(2)]

    raw = sqlite3.connect(path)
    try:
        assert raw.execute("SELECT count(*) FROM records WHERE seq = 2").fetchone() == (3,)
        assert raw.execute("SELECT count(*) FROM records WHERE body LIKE '%\"B\"%'").fetchone() == (0,)
    finally:
        raw.close()


def test_nan_is_refused_because_it_is_not_json(path):
    with EventStore(path) as store:
        game = store.new_game({})
        with pytest.raises(ValueError):
            store.append(game, 1, [{"ok": 1}, {"score": float("nan")}])
        assert store.last_seq(game) == 0


def test_an_unknown_game_is_refused(path):
    with EventStore(path) as store:
        with pytest.raises(UnknownGame):
            store.append(42, 1, roll(1))
        with pytest.raises(UnknownGame):
            store.meta(42)
        with pytest.raises(UnknownGame):
            store.last_seq(42)


def test_the_box_has_one_identity_drawn_once_and_kept_through_reopen(path):
    """Every fair game's commitment binds it: a box that drew a new one on each start would
    let a record of one game pass as a game of another box."""
    with EventStore(path) as store:
        box = store.box()
        assert len(box) == 64 and box == box.lower() and int(box, 16) >= 0
        assert store.box() == box and store.setting("box") == box
    with EventStore(path) as store:
        assert store.box() == box
    with EventStore(path.with_name("other.sqlite")) as other:
        assert other.box() != box


def test_a_game_stored_under_the_number_its_commitment_binds(path):
    with EventStore(path) as store:
        assert store.new_game({"n": 1}) == 1
        assert store.new_game({"n": 5}, game_id=5) == 5
        assert store.latest_game() == 5 and store.meta(5) == {"n": 5}
        assert store.new_game({"n": 6}) == 6  # numbering goes on after the highest
        assert store.new_game({"n": 3}, game_id=3) == 3 and store.latest_game() == 6


@pytest.mark.parametrize("taken", [1, 2])
def test_a_number_already_taken_is_refused_and_nothing_is_written(path, taken):
    with EventStore(path) as store:
        store.new_game({"n": 1})
        store.new_game({"n": 2})
        with pytest.raises(GameTaken, match=f"game {taken} is already in the store"):
            store.new_game({"n": "again"}, game_id=taken)
        assert store.meta(taken) == {"n": taken} and store.latest_game() == 2
        for bad in (0, -1, True, "3"):
            with pytest.raises(ValueError):
                store.new_game({"n": "bad"}, game_id=bad)
        assert store.latest_game() == 2


def test_the_file_is_in_wal_mode_with_full_sync(path):
    with EventStore(path) as store:
        conn = store._conn
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # 2 is FULL
        assert conn.execute("PRAGMA user_version").fetchone()[0] >= 1


def test_an_sqlite_file_that_is_not_an_event_store_is_refused(path):
    other = sqlite3.connect(path)
    other.execute("CREATE TABLE photos (id INTEGER)")
    other.commit()
    other.close()
    with pytest.raises(StoreError):
        EventStore(path)


def test_memory_store_works():
    with EventStore(":memory:") as store:
        game = store.new_game({"seed": 3})
        store.append(game, 1, roll(1))
        assert store.load(game) == [roll(1)]


APPENDER = textwrap.dedent(
    """
    import sys
    from companion.core.store import EventStore

    store = EventStore(sys.argv[1])
    game = store.new_game({"seed": 9})
    print("game", game, flush=True)
    seq = 0
    while True:
        seq += 1
        store.append(game, seq, [{"seq": seq, "idx": i, "pad": "x" * 40} for i in range(3)])
        print(seq, flush=True)  # the acknowledgement: printed only after append returned
    """
)


def test_every_acknowledged_append_survives_kill_9(path):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO_ROOT), os.environ.get("PYTHONPATH", "")])}
    child = children.spawn(
        [sys.executable, "-c", APPENDER, str(path)],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    acknowledged = 0
    try:
        header = child.stdout.readline().split()
        assert header[0] == "game", header
        game = int(header[1])
        for line in child.stdout:
            acknowledged = int(line)
            if acknowledged >= 40:
                break
        # The child is still appending: the kill lands mid-stream, maybe mid-transaction.
        child.send_signal(signal.SIGKILL)
        # Lines already in the pipe were acknowledged before the kill: they count too.
        for line in child.stdout.read().splitlines():
            acknowledged = int(line)
    finally:
        children.end(child, signal.SIGKILL, 0)
        child.stdout.close()
    assert child.returncode == -signal.SIGKILL
    assert acknowledged >= 40

    with EventStore(path) as store:
        last = store.last_seq(game)
        assert last >= acknowledged
        assert store.load(game) == [
            [{"seq": seq, "idx": i, "pad": "x" * 40} for i in range(3)] for seq in range(1, last + 1)
        ]
