"""The durable event log: each accepted command's records, committed to SQLite before anyone is told."""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

from ..chance.fair import draw_box, is_hex_32_bytes

# Bump when the tables change; a file with a newer version is refused rather than misread.
SCHEMA_VERSION = 2

_SCHEMA = """
CREATE TABLE games (
    game_id INTEGER PRIMARY KEY AUTOINCREMENT,
    meta    TEXT NOT NULL
);
-- One row per accepted command, so a command whose record list is empty still takes its seq.
CREATE TABLE commands (
    game_id INTEGER NOT NULL REFERENCES games(game_id),
    seq     INTEGER NOT NULL,
    PRIMARY KEY (game_id, seq)
) WITHOUT ROWID;
CREATE TABLE records (
    game_id INTEGER NOT NULL,
    seq     INTEGER NOT NULL,
    idx     INTEGER NOT NULL,
    body    TEXT NOT NULL,
    PRIMARY KEY (game_id, seq, idx),
    FOREIGN KEY (game_id, seq) REFERENCES commands(game_id, seq)
) WITHOUT ROWID;
"""
BOX_SETTING = "box"  # this box's identity (companion/chance/fair.py)
# Version 2: the room (seat tokens, which phone holds which seat) outlives a power cut too.
_SETTINGS = """
CREATE TABLE IF NOT EXISTS settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID
"""


class StoreError(Exception):
    """The event store cannot do what was asked."""


class SequenceConflict(StoreError, ValueError):
    """An append whose seq is not the last stored seq + 1; nothing was written."""


class UnknownGame(StoreError, LookupError):
    """No game with that id is in the store."""


class GameTaken(StoreError, ValueError):
    """A new game asked for a number another game of this store already has."""


def _encode(value: object) -> str:
    # allow_nan=False: NaN and Infinity are not JSON, and a log other tools cannot read is no log.
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


class EventStore:
    """An append-only log of games, each a sequence of commands, each a list of JSON records.

    One EventStore per process and file. Calls are serialised by a lock, so the store may be
    used from a writer thread (fsync on an SD card can stall; keep it off the UI's loop).
    """

    def __init__(self, path: str | os.PathLike[str], *, busy_ms: int = 5000) -> None:
        # isolation_level=None: we issue BEGIN/COMMIT ourselves, so one append is exactly one
        # transaction, never merged with or split by the sqlite3 module's implicit ones.
        self._conn = sqlite3.connect(
            os.fspath(path), isolation_level=None, check_same_thread=False
        )
        self._lock = threading.Lock()
        try:
            self._configure(busy_ms)
            self._ensure_schema()
        except BaseException:
            self._conn.close()
            raise

    def _configure(self, busy_ms: int) -> None:
        conn = self._conn
        # Another process (a backup, a viewer) may hold the lock for a moment: wait, don't fail.
        conn.execute(f"PRAGMA busy_timeout = {int(busy_ms)}")
        conn.execute("PRAGMA foreign_keys = ON")
        # WAL: a commit is one sequential write to the log, and readers never block the writer.
        mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        if mode.lower() not in ("wal", "memory"):  # ":memory:" databases cannot use WAL
            raise StoreError(f"cannot put the store in WAL mode (got {mode!r})")
        # FULL, not NORMAL: in WAL mode NORMAL skips the fsync at commit, so a power cut can lose
        # the last commands that players already saw acknowledged. FULL syncs the WAL each commit.
        conn.execute("PRAGMA synchronous = FULL")

    def _ensure_schema(self) -> None:
        with self._transaction() as conn:
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version == 0:
                has_tables = conn.execute(
                    "SELECT count(*) FROM sqlite_master WHERE type = 'table'"
                ).fetchone()[0]
                if has_tables:
                    raise StoreError("file is an SQLite database but not a Dark Moon event store")
                for statement in _SCHEMA.split(";"):
                    if statement.strip():
                        conn.execute(statement)
                conn.execute(_SETTINGS)
                conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            elif version == 1:
                conn.execute(_SETTINGS)
                conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            elif version != SCHEMA_VERSION:
                raise StoreError(
                    f"event store schema version {version} is not the supported {SCHEMA_VERSION}"
                )

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """Hold the lock across BEGIN IMMEDIATE .. COMMIT; roll back on any error."""
        with self._lock:
            # IMMEDIATE takes the write lock now, so a seq check and its inserts see one state.
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
                self._conn.execute("COMMIT")
            except BaseException:
                if self._conn.in_transaction:  # a failed COMMIT can leave it open
                    self._conn.execute("ROLLBACK")
                raise

    def new_game(self, meta: dict, game_id: int | None = None) -> int:
        """Record a new game with its options and seed; it becomes the latest game if its
        number is the highest. `game_id`: the number a fair secret was committed to (the
        commitment binds it), which must not be taken: GameTaken if it is, nothing written."""
        body = _encode(meta)
        if game_id is not None and (isinstance(game_id, bool) or not isinstance(game_id, int)
                                    or game_id < 1):
            raise ValueError("a game's number is a whole number from 1")
        with self._transaction() as conn:
            if game_id is None:
                cursor = conn.execute("INSERT INTO games (meta) VALUES (?)", (body,))
                return int(cursor.lastrowid)
            if conn.execute("SELECT 1 FROM games WHERE game_id = ?", (game_id,)).fetchone():
                raise GameTaken(f"game {game_id} is already in the store")
            conn.execute("INSERT INTO games (game_id, meta) VALUES (?, ?)", (game_id, body))
            return game_id

    def box(self) -> str:
        """This box's identity (64 hex digits), bound into every fair game's commitment: drawn
        the first time it is asked for and kept in the settings for good."""
        with self._transaction() as conn:  # one draw even when two threads ask at once
            row = conn.execute("SELECT value FROM settings WHERE key = ?",
                               (BOX_SETTING,)).fetchone()
            if row is not None:
                box = json.loads(row[0])
                if not is_hex_32_bytes(box):
                    raise StoreError("the box's identity in this file is damaged")
                return box
            box = draw_box()
            conn.execute("INSERT INTO settings (key, value) VALUES (?, ?)",
                         (BOX_SETTING, _encode(box)))
            return box

    def put_setting(self, key: str, value: object) -> None:
        """Store a JSON value under `key`, durably, replacing any earlier one."""
        body = _encode(value)
        with self._transaction() as conn:
            conn.execute("INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)",
                         (key, body))

    def setting(self, key: str, default: object = None) -> object:
        with self._lock:
            row = self._conn.execute("SELECT value FROM settings WHERE key = ?",
                                     (key,)).fetchone()
        return default if row is None else json.loads(row[0])

    def games_stored(self) -> int:
        """How many games this store holds: every game dealt on this box. Less than the
        latest game's number when a committed number was never dealt (a setup thrown away)."""
        with self._lock:
            return self._conn.execute("SELECT count(*) FROM games").fetchone()[0]

    def latest_game(self) -> int | None:
        with self._lock:
            row = self._conn.execute("SELECT max(game_id) FROM games").fetchone()
        return row[0]

    def meta(self, game_id: int) -> dict:
        with self._lock:
            row = self._conn.execute(
                "SELECT meta FROM games WHERE game_id = ?", (game_id,)
            ).fetchone()
        if row is None:
            raise UnknownGame(f"no game {game_id}")
        return json.loads(row[0])

    def append(self, game_id: int, seq: int, records: list[dict]) -> None:
        """Durably store the records of command `seq` (last stored seq + 1) in one transaction.

        Returns only once the commit is on disk. On any error nothing of `seq` is stored:
        SequenceConflict for a wrong seq, TypeError or ValueError for a record that is not a
        JSON-able dict.
        """
        for record in records:
            if not isinstance(record, dict):
                raise TypeError(f"a record must be a dict, not {type(record).__name__}")
        with self._transaction() as conn:
            # Checked inside the write transaction, so no other writer can slip in between.
            last = self._last_seq(conn, game_id)
            if seq != last + 1:
                raise SequenceConflict(
                    f"game {game_id}: append of seq {seq}, but the last stored seq is {last}"
                )
            conn.execute("INSERT INTO commands (game_id, seq) VALUES (?, ?)", (game_id, seq))
            # Encoded lazily, row by row: a record that fails to encode aborts the transaction
            # after its predecessors were inserted, and the rollback takes them back out.
            conn.executemany(
                "INSERT INTO records (game_id, seq, idx, body) VALUES (?, ?, ?, ?)",
                ((game_id, seq, idx, _encode(record)) for idx, record in enumerate(records)),
            )

    def prepare_log(self) -> None:
        """Give the write-ahead log file now the size it grows to between checkpoints (zeros
        past SQLite's frames), so that a commit only overwrites blocks the file already has.

        SQLite deletes its log at close and grows it again from nothing; while it grows, every
        commit's sync must also journal the file's new size and blocks: measured here, a
        commit took p50 0.3-1.1 ms and p99 5-70 ms while its log grew (about a game's worth
        of commands), 0.2 ms and ~5 ms once the file had its size. SQLite reads a log
        up to its first frame that is not valid, so zeros past the end are never taken for a
        command, and a power cut while this runs leaves nothing but them. It writes a few MB
        (slow on an SD card): call it where a write may wait, not on the way to the screen."""
        with self._transaction() as conn:  # holds the write lock: no frame is written meanwhile
            path = conn.execute("PRAGMA database_list").fetchone()[2]
            if not path or conn.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                return  # in memory: there is no file to prepare
            frames = conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0]
            page = conn.execute("PRAGMA page_size").fetchone()[0]
            # the log's header, then each frame: its 24-byte header and a page; a little
            # more than the checkpoint's size, as a commit can carry the log past it
            size = 32 + (frames + 64) * (24 + page)
            try:
                fd = os.open(path + "-wal", os.O_WRONLY)
            except FileNotFoundError:
                return
            try:
                end = os.fstat(fd).st_size
                if end >= size:
                    return
                zeros = bytes(256 * 1024)
                while end < size:
                    end += os.pwrite(fd, zeros[:size - end], end)
                os.fsync(fd)
            finally:
                os.close(fd)

    def load(self, game_id: int) -> list[list[dict]]:
        """The records of every stored command in order: result[k] holds those of seq k + 1."""
        with self._transaction() as conn:  # one snapshot for the count and the rows
            last = self._last_seq(conn, game_id)
            rows = conn.execute(
                "SELECT seq, body FROM records WHERE game_id = ? ORDER BY seq, idx", (game_id,)
            ).fetchall()
        commands: list[list[dict]] = [[] for _ in range(last)]
        for seq, body in rows:
            commands[seq - 1].append(json.loads(body))
        return commands

    def last_seq(self, game_id: int) -> int:
        """The seq of the last stored command of the game, 0 before its first."""
        with self._lock:
            return self._last_seq(self._conn, game_id)

    @staticmethod
    def _last_seq(conn: sqlite3.Connection, game_id: int) -> int:
        row = conn.execute(
            "SELECT (SELECT 1 FROM games WHERE game_id = :g),"
            " (SELECT max(seq) FROM commands WHERE game_id = :g)",
            {"g": game_id},
        ).fetchone()
        if row[0] is None:
            raise UnknownGame(f"no game {game_id}")
        return row[1] or 0

    # --- checking and salvage (companion/appliance/salvage.py) ---

    def check(self) -> str | None:
        """None if SQLite finds the file sound, else its first complaint. quick_check reads
        every page, so it catches damage the first queries would not touch (a game in the
        middle of the file); measured at 0.16 s of a Pi 4's CPU for 300 games (15 MB)."""
        with self._lock:
            rows = self._conn.execute("PRAGMA quick_check(1)").fetchall()
        return None if rows == [("ok",)] else str(rows[0][0])

    def import_games(self, games: Iterable[tuple[int, dict, list[list[dict]]]]) -> None:
        """Write whole games, keeping their ids, in one transaction: how a salvage copies
        what it trusts into a fresh store (one fsync in all, not one per command)."""
        with self._transaction() as conn:
            for game_id, meta, commands in games:
                conn.execute("INSERT INTO games (game_id, meta) VALUES (?, ?)",
                             (game_id, _encode(meta)))
                for seq, records in enumerate(commands, 1):
                    conn.execute("INSERT INTO commands (game_id, seq) VALUES (?, ?)",
                                 (game_id, seq))
                    conn.executemany(
                        "INSERT INTO records (game_id, seq, idx, body) VALUES (?, ?, ?, ?)",
                        ((game_id, seq, idx, _encode(r)) for idx, r in enumerate(records)))

    def drop_setting(self, key: str) -> None:
        with self._transaction() as conn:
            conn.execute("DELETE FROM settings WHERE key = ?", (key,))

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> EventStore:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

