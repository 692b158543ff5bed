"""Games files as a table leaves them (a few games, the last one in play, the room's record),
and the ways such a file gets damaged: a cut-short copy, a scribbled card sector, a file that
is no database at all, a hand-edited room record or event, a newer version's file.
Shared by tests/test_salvage.py and the kiosk's tests."""
from __future__ import annotations

import asyncio
import json
import random
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from companion.core.room import Room
from companion.tools.simulate import choice_for
from companion.core.store import EventStore

NAMES = ["Ana", "Ben", "Cai", "Dee"]


@dataclass
class Played:
    path: Path
    games: dict[int, list[list[dict]]]  # every game's stored commands, before any damage
    host_token: str


async def _play(path: Path, games: int, moves: int, seed: int) -> None:
    room = Room(EventStore(path), seed=seed, bot_delay=0)
    rng = random.Random(seed)
    try:
        for n in range(games):
            await room.new_game({"names": NAMES}, replace=True)
            for token in room.kiosk_view()["seat_tokens"]:
                await room.claim_seat(token, f"phone-{n}-{token[:4]}")
            await room.start()
            for _ in range(moves):
                table = room.table
                if table.over:
                    break
                seat = rng.choice(table.state.pending.seats)
                await room.submit(seat, choice_for(table.state, seat, rng))
    finally:
        await room.close()
        room.store.close()


def played(data_dir: Path, games: int = 3, moves: int = 40, seed: int = 5) -> Played:
    """A games file with `games` games of `moves` moves each; the last one still in play."""
    return asyncio.run(played_on_loop(data_dir, games, moves, seed))


async def played_on_loop(data_dir: Path, games: int = 3, moves: int = 40,
                         seed: int = 5) -> Played:
    """played(), from a test that already runs on a loop."""
    data_dir.mkdir(parents=True, exist_ok=True)
    path = data_dir / "games.db"
    await _play(path, games, moves, seed)
    with EventStore(path) as store:
        latest = store.latest_game()
        stored = {game: store.load(game) for game in range(1, latest + 1)}
        host_token = store.setting("room")["host_token"]
    assert not path.with_name("games.db-wal").exists()  # all of it is in the one file
    return Played(path, stored, host_token)


# --- damage ---

def truncate(path: Path, keep: float = 0.5) -> None:
    """A copy or a write cut short: the file ends in the middle of a page."""
    size = path.stat().st_size
    with open(path, "r+b") as f:
        f.truncate(int(size * keep) + 100)


def scribble(path: Path, length: int = 6000, seed: int = 1) -> None:
    """Random bytes over the middle of the file: a failing SD card sector."""
    size = path.stat().st_size
    with open(path, "r+b") as f:
        f.seek(size // 2)
        f.write(random.Random(seed).randbytes(length))


def not_sqlite(path: Path) -> None:
    path.write_text("these are not the games you are looking for\n" * 200)


def bad_room_row(path: Path) -> None:
    """The room's record of the wrong shape: a list where an object belongs."""
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE settings SET value = ? WHERE key = 'room'",
                     (json.dumps([{"host_token": "x"}]),))
    conn.close()


def alter_record(path: Path, game_id: int, seq: int) -> None:
    """One event edited by hand so that it no longer replays: its command changed."""
    with sqlite3.connect(path) as conn:
        (body,) = conn.execute("SELECT body FROM records WHERE game_id = ? AND seq = ?",
                               (game_id, seq)).fetchone()
        event = json.loads(body)
        event["command"] = {"decision": event["command"]["decision"], "option": ["nonsense"]}
        conn.execute("UPDATE records SET body = ? WHERE game_id = ? AND seq = ?",
                     (json.dumps(event), game_id, seq))
    conn.close()


def from_the_future(path: Path, version: int = 99) -> None:
    with sqlite3.connect(path) as conn:
        conn.execute(f"PRAGMA user_version = {version}")
    conn.close()


def stored_games(path: Path) -> dict[int, list[list[dict]]]:
    """Every game in a (sound) games file."""
    with EventStore(path) as store:
        latest = store.latest_game() or 0
        found = {}
        for game in range(1, latest + 1):
            try:
                found[game] = store.load(game)
            except LookupError:
                pass
        return found


def damaged_beside(path: Path) -> list[Path]:
    """The set-aside files next to the games file."""
    return sorted(path.parent.glob(path.name + ".damaged-*"))
