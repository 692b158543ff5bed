"""The store's write-ahead log is given its full size before a game's commands (prepare_log),
so a commit overwrites blocks the file already has instead of growing it: growing, every
commit's sync also journals the file's new size, which doubled a commit and lengthened its
tail. The zeros past SQLite's frames must never cost a command: a copy of the files taken
mid-game (what a power cut leaves) reads back every command and nothing else."""
from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

from companion.darkmoon import Setup, start
from companion.darkmoon.api import apply_event, step
from companion.tools.simulate import bot_choice
from companion.core.store import EventStore
from table_play import advance, seated_room


def game_events(commands: int) -> list[list[dict]]:
    """Real records: a bot game's events, one list per command (its start first)."""
    rng = random.Random(3)
    first = start(Setup(tuple("ABCDEFG")), rng)
    g, stored = apply_event(None, first[0]), [first]
    while len(stored) <= commands:
        if g.outcome is not None:
            g = apply_event(None, first[0])
        seat, command = bot_choice(g, rng)
        events, g = step(g, seat, command, rng)
        stored.append(events)
    return json.loads(json.dumps(stored))  # as JSON gives them back (seat keys as text)


def wal(path: Path) -> Path:
    return path.with_name(path.name + "-wal")


def test_a_prepared_log_does_not_grow_while_a_game_is_stored(tmp_path):
    path = tmp_path / "games.db"
    commands = game_events(200)
    with EventStore(path) as store:
        game = store.new_game({"seed": 3})
        store.append(game, 1, commands[0])
        store.prepare_log()
        size = wal(path).stat().st_size
        for seq, records in enumerate(commands[1:], 2):
            store.append(game, seq, records)
            assert wal(path).stat().st_size == size, f"the log grew at command {seq}"
        assert store.load(game) == commands
    assert not wal(path).exists()  # the last close still folds the log into the database


def test_a_power_cut_after_preparing_keeps_every_command_and_no_other(tmp_path):
    path = tmp_path / "games.db"
    commands = game_events(60)
    with EventStore(path) as store:
        game = store.new_game({"seed": 3})
        store.prepare_log()
        for seq, records in enumerate(commands, 1):
            store.append(game, seq, records)
        # the files as they are on disk now, mid-game (the -shm index is rebuilt on open)
        cut = tmp_path / "cut"
        cut.mkdir()
        for name in (path.name, wal(path).name):
            shutil.copyfile(tmp_path / name, cut / name)
    tail = wal(cut / path.name).read_bytes()[-4096:]
    assert tail == bytes(4096)  # the prepared zeros are there, past the frames
    with EventStore(cut / path.name) as store:
        assert store.check() is None
        assert store.load(game) == commands
        assert store.last_seq(game) == len(commands)


async def test_a_dealt_game_stores_its_commands_without_growing_the_log(tmp_path):
    room = await seated_room(tmp_path, seed=3)  # dealt: the room prepares the log
    try:
        await advance(room, lambda view: room.table.state_id >= 3)
        size = wal(tmp_path / "games.db").stat().st_size
        await advance(room, lambda view: room.table.state_id >= 60)
        assert wal(tmp_path / "games.db").stat().st_size == size
        assert size > 1_000_000  # the size SQLite lets it reach between checkpoints
    finally:
        await room.close()
        room.store.close()
