"""Opening the games file at start, and what happens when it is damaged.

The appliance is restarted by systemd whenever it exits, so a store that cannot be read must
never end in a traceback: that would repeat every few seconds, forever, with a blank screen.
Instead the damaged file is set aside (renamed beside, with its -wal and -shm: kept, never
deleted; the salvage opens it read-only), what can be trusted is copied into a fresh store, and the
kiosk starts on it and says what happened.

What is trusted: every game, each up to its first command that does not read, parse or replay
with the rules; the room's record only if the room rebuilds from it. A file that cannot be
made at all (disk full, read-only) is a refusal of one sentence, never a half-done salvage:
the damaged file is set aside only once its replacement is complete and on disk.
"""
from __future__ import annotations

import json
import logging
import os
import sqlite3
import urllib.parse
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import TypeVar

from ..darkmoon.api import apply_event
from ..lang import text
from ..core.store import SCHEMA_VERSION, EventStore

log = logging.getLogger(__name__)
R = TypeVar("R")
ROOM_SETTING = "room"  # companion.core.room.SETTING; not imported, so this module needs no Room
COMPANIONS = ("-wal", "-shm")  # SQLite's own names for a database's log and index files

# Failures of the machine, not of the file: the same file would open on a sound disk, so it is
# not set aside (and with a full or read-only disk it could not be anyway).
_NOT_DAMAGE = ("SQLITE_CANTOPEN", "SQLITE_READONLY", "SQLITE_FULL", "SQLITE_IOERR",
               "SQLITE_BUSY", "SQLITE_LOCKED", "SQLITE_PERM", "SQLITE_NOMEM", "SQLITE_AUTH")


class StoreUnavailable(Exception):
    """Neither the games file nor a fresh one can be opened. `message` is one sentence for
    the screen and the journal."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class Salvage:
    """What the kiosk and the log say after a damaged store was set aside."""
    cause: str              # "damaged", or "newer" (written by a newer version: not read)
    aside: str              # the name the damaged file was set aside as, beside the new one
    games: int = 0          # games kept, whole or up to their first bad command
    last_moves: int = 0     # moves kept of the latest kept game (commands after the deal)
    last_cut: bool = False  # the latest kept game was cut short by the damage
    dropped: int = 0        # games with nothing to trust (not even their deal)
    room_reset: bool = True  # the host's and seats' codes could not be kept

    def sentence(self, lang: str) -> str:
        def say(key: str, **values) -> str:
            return text(lang, f"kiosk.damaged.{key}", **values)
        parts = [say(self.cause, file=self.aside)]
        if self.cause == "newer":
            parts.append(say("newer_kept"))
        elif self.games:
            parts.append(say("kept_one" if self.games == 1 else "kept", games=self.games,
                             moves=self.last_moves))
            if self.last_cut:
                parts.append(say("cut"))
        else:
            parts.append(say("kept_none"))
        if self.dropped and self.games:
            parts.append(say("dropped", dropped=self.dropped))
        if self.room_reset:
            parts.append(say("room_reset"))
        return " ".join(parts)


def open_room(path: str, make_room: Callable[[EventStore], R], *,
              announce: Callable[[], None] | None = None
              ) -> tuple[EventStore, R, Salvage | None]:
    """The store at `path` and the room built on it by `make_room`; if either fails because
    the file is damaged, a salvage (third item) and a fresh store. Raises StoreUnavailable.
    `announce()` is called before a salvage starts: replaying every game takes a while
    (measured: 26 s for 300 games on a Pi-4-class CPU; opening a sound file, 0.2 s)."""
    _finish_cut_salvage(path)
    try:
        return (*_open_as_is(path, make_room), None)
    except Exception as error:  # whatever the damage makes the rules or SQLite raise
        if _not_damage(error):
            raise StoreUnavailable(f"cannot open the games file {path}: {_reason(error)}") \
                from error
        log.error("the games file %s cannot be used (%s: %s): salvaging it",
                  path, type(error).__name__, error)
    if announce is not None:
        announce()
    return _salvage(path, make_room)


def _finish_cut_salvage(path: str) -> None:
    """A power cut between setting the damaged file aside and moving the fresh copy into its
    place leaves no games file but a complete copy (set aside only once the copy is on disk):
    put it in place, rather than start on an empty store and lose what was salvaged."""
    fresh = path + ".salvage"
    if not os.path.exists(path) and os.path.exists(fresh):
        log.warning("a salvage of %s was cut short after the damaged file was set aside: "
                    "its fresh copy is put in place", path)
        os.replace(fresh, path)
        _sync_dir(path)


def _open_as_is(path: str, make_room):
    store = EventStore(path)
    try:
        problem = store.check()
        if problem is not None:
            raise sqlite3.DatabaseError(f"quick_check: {problem}")
        return store, make_room(store)
    except BaseException:
        store.close()
        raise


def _not_damage(error: BaseException) -> bool:
    if isinstance(error, (OSError, MemoryError)):
        return True
    return (getattr(error, "sqlite_errorname", None) or "").startswith(_NOT_DAMAGE)


def _reason(error: BaseException) -> str:
    if isinstance(error, OSError) and error.strerror:
        return error.strerror.lower()
    return str(error)


# --- the salvage ---

def _salvage(path: str, make_room) -> tuple[EventStore, object, Salvage]:
    fresh = path + ".salvage"  # beside it: renamed over `path` in one step once complete
    try:
        _remove(fresh)  # a salvage cut short by a power cut: only ever our own copy
        tally = _copy_trusted(path, fresh)
        had_room = tally.pop("room")
        room_kept = _trial_room(fresh, make_room) and had_room
        aside = _set_aside(path, datetime.now(timezone.utc))
        os.replace(fresh, path)
        _sync_dir(path)
    except Exception as error:  # the file is left as it was: the next start tries again
        log.exception("no fresh games file could be made")
        _remove_quietly(fresh)
        raise StoreUnavailable(
            f"the games file {path} is damaged and no fresh one can be made beside it "
            f"({_reason(error)}); it was left as it is") from error
    try:
        store = EventStore(path)
    except Exception as error:
        raise StoreUnavailable(f"cannot open the games file {path}: {_reason(error)}") \
            from error
    try:
        room = make_room(store)  # as the trial did, on the same file
    except Exception as error:
        store.close()
        raise StoreUnavailable(f"cannot open the games file {path}: {_reason(error)}") \
            from error
    report = Salvage(aside=os.path.basename(aside), room_reset=not room_kept, **tally)
    log.warning("%s", report.sentence("en"))
    return store, room, report


def _trial_room(fresh: str, make_room) -> bool:
    """Build the room on the fresh copy before anything is set aside; whether the room's
    record was kept. A room that fails even with no record is a fault of the program, not of
    the file: that raises, and the file stays where it is (a crash loop must not leave a new
    copy of the whole file beside it every few seconds)."""
    store = EventStore(fresh)
    try:
        try:
            make_room(store)  # the trial room is dropped: nothing of it runs yet
            return True
        except Exception as error:
            if _not_damage(error):
                raise
            log.error("the room's record does not rebuild (%s: %s): a fresh room",
                      type(error).__name__, error)
        store.drop_setting(ROOM_SETTING)
        make_room(store)
        return False
    finally:
        store.close()


def _copy_trusted(path: str, fresh: str) -> dict:
    """Copy what `path` holds that can be trusted into a new store at `fresh`; a tally."""
    tally = {"cause": "damaged", "games": 0, "last_moves": 0, "last_cut": False,
             "dropped": 0, "room": False}
    store = EventStore(fresh)
    try:
        try:
            source = sqlite3.connect(_read_only_uri(path), uri=True)
            # A file shorter than its header says is refused as "malformed" before any read,
            # unless the schema is "writable": then SQLite reads up to where the file ends.
            # Nothing is written through this connection (read-only).
            source.execute("PRAGMA writable_schema = ON")
        except sqlite3.Error:
            return tally  # not even openable: nothing to copy
        try:
            version = _version(source)
            if version is not None and version > SCHEMA_VERSION:
                tally["cause"] = "newer"  # a newer format may mean other things: read nothing
                return tally
            if version in (1, SCHEMA_VERSION):
                store.import_games(_trusted_games(source, tally))
                settings = _rows(source, "SELECT key, value FROM settings", ())[0]
                for key, body in settings:
                    value = _parse(body)
                    if value is not None:
                        store.put_setting(key, value)
                        tally["room"] = tally["room"] or key == ROOM_SETTING
        finally:
            source.close()
    finally:
        store.close()  # checkpoints: the whole copy is in the one file, synced
    return tally


def _version(source: sqlite3.Connection) -> int | None:
    try:
        return source.execute("PRAGMA user_version").fetchone()[0]
    except sqlite3.Error:
        return None  # not an SQLite file at all


def _trusted_games(source: sqlite3.Connection, tally: dict) -> Iterator[tuple]:
    """Each game with its commands up to the first that does not read, parse or replay."""
    games, _whole = _rows(source, "SELECT game_id, meta FROM games ORDER BY game_id", ())
    for game_id, meta_body in games:
        meta = _parse(meta_body)
        commands, whole = _game_commands(source, game_id) if isinstance(meta, dict) else ([], False)
        if not commands:
            tally["dropped"] += 1
            continue
        tally["games"] += 1
        tally["last_moves"], tally["last_cut"] = len(commands) - 1, not whole
        yield game_id, meta, commands


def _game_commands(source: sqlite3.Connection, game_id: int) -> tuple[list[list[dict]], bool]:
    """The game's commands that read and replay, and whether that is all of them."""
    seqs, whole = _rows(source, "SELECT seq FROM commands WHERE game_id = ? ORDER BY seq",
                        (game_id,))
    rows, rows_whole = _rows(source, "SELECT seq, idx, body FROM records WHERE game_id = ?"
                             " ORDER BY seq, idx", (game_id,))
    if not rows_whole:  # the last command read may have lost records after the tear
        last = rows[-1][0] if rows else 1
        rows = [row for row in rows if row[0] < last]
        seqs = [(s,) for (s,) in seqs if s < last]
        whole = False
    by_seq: dict[int, list] = {}
    for seq, idx, body in rows:
        by_seq.setdefault(seq, []).append((idx, body))
    commands: list[list[dict]] = []
    g = None
    for expected, (seq,) in enumerate(seqs, 1):
        records = _command(by_seq.get(seq, []))
        # The Table writes one event per command: one with none lost its records.
        if seq != expected or not records:
            return commands, False
        try:
            for event in records:
                g = apply_event(g, event)
                # The Table keeps each event's facts for the log: they must be readable too.
                if not all(isinstance(fact, dict) for fact in event["facts"]):
                    raise ValueError("facts that are not objects")
        except Exception:  # a record edited into nonsense fails in any way the rules can
            return commands, False
        commands.append(records)
    # Records stored for commands that are not: the log ends in a tear.
    return commands, whole and not set(by_seq) - {s for (s,) in seqs}


def _command(stored: list[tuple[int, str]]) -> list[dict] | None:
    """One command's records, if each parses as an object and none is missing."""
    records = []
    for expected, (idx, body) in enumerate(stored):
        record = _parse(body)
        if idx != expected or not isinstance(record, dict):
            return None
        records.append(record)
    return records


def _rows(source: sqlite3.Connection, sql: str, args: tuple) -> tuple[list[tuple], bool]:
    """The rows a query yields before any damage stops it, and whether it read to the end."""
    rows: list[tuple] = []
    try:
        for row in source.execute(sql, args):
            rows.append(row)
    except sqlite3.Error:
        return rows, False
    return rows, True


def _parse(body) -> object:
    """A JSON value, or None for anything that is not (NaN and Infinity included: the store
    never writes them, and a fresh store would refuse them)."""
    def refuse(constant):
        raise ValueError(constant)
    try:
        return json.loads(body, parse_constant=refuse)
    except (TypeError, ValueError, RecursionError):
        return None


def _read_only_uri(path: str) -> str:
    # Read-only: reading the damaged file must not change it (no checkpoint, no recovery).
    return "file:" + urllib.parse.quote(os.path.abspath(path)) + "?mode=ro"


# --- files ---

def _set_aside(path: str, when: datetime) -> str:
    """Rename the file and its companions to path.damaged-<UTC time>; the new name. The
    companions go first: a -wal left beside the new store would be replayed into it."""
    stamp = when.astimezone(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    aside, n = f"{path}.damaged-{stamp}", 1
    while any(os.path.lexists(aside + s) for s in ("",) + COMPANIONS):
        n += 1
        aside = f"{path}.damaged-{stamp}-{n}"
    for suffix in COMPANIONS + ("",):
        if os.path.lexists(path + suffix):
            os.rename(path + suffix, aside + suffix)
    return aside


def _remove(path: str) -> None:
    for suffix in ("",) + COMPANIONS:
        if os.path.lexists(path + suffix):
            os.remove(path + suffix)


def _remove_quietly(path: str) -> None:
    try:
        _remove(path)
    except OSError:
        pass


def _sync_dir(path: str) -> None:
    """The renames survive a power cut only once the directory itself is synced."""
    fd = os.open(os.path.dirname(os.path.abspath(path)), os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
