"""The room: everything around one table that is not the rules. Who hosts, which phone holds
which seat, the game being set up or played, the seat buttons and the bots, and the fan-out
of views to the kiosk, the phones and the board page.

All of it runs on one asyncio loop (the kiosk's). Every write to the store (a command's
events, the room's own record) runs on one writer thread, so a slow or stalled SD card never
freezes the screen or the phones. Save, then change: a change to the room (a claim, a re-bind,
a new game, the language) is built as a new record, written, and only then shown in memory; an
error answer means nothing changed, on disk or in memory. The room (seat tokens, claims) is
kept in the store's settings, so a power cut loses no seat either.

Room changes and command authorisation take one lock, and every write queues on the one writer
thread in that order: a command authorised for a phone is always stored before a re-bind that
came after it, and never after one that came before.
"""
from __future__ import annotations

import asyncio
import logging
import sqlite3
from concurrent.futures import ThreadPoolExecutor
from typing import Callable

from ..tools.bots import Bots
from .buttons import COLOURS, REFUSALS, lit_seats, press_command, press_refusal
from .claims import Claims, new_token
from .dealing import Dealing, _prepare_log
from ..darkmoon import BadSetup, RulesError, Setup
from ..darkmoon.views import waiting_view
from .joining import table_token
from .phones_first import PhonesFirst
from ..chance.fairdeal import fair_view, is_current
from .store import EventStore, StoreError
from .refusals import (BadRequest, BotSeat, CommitmentChanged,  # noqa: F401
                       GameInProgress, NotReady, NotYourSeat, OneSeatPerPhone, RoomError,
                       SeatClaimed, StorageFailed, UnknownGame, UnknownToken)
from .table import PUBLIC, RULES_VERSION, OtherRules, Table

SETTING = "room"
NOTICES = 8  # recent public notices (a refused scan, a re-bound phone) the kiosk shows
REVEALED = 8  # replaced games whose records the room names as public now
log = logging.getLogger(__name__)


Listener = Callable[[object, dict | None], None]


class Room(Claims, Dealing):
    """One table's room. `audience` for listeners: PUBLIC, a seat number, or "room"
    (lobby changes: claims, notices, a new game set up). `reveal_wait`: seconds from the
    opening of the reveal to the deal, for phones that never reveal (companion/core/dealing.py)."""

    def __init__(self, store: EventStore, *, seed: int | None = None,
                 bot_delay: float = 1.0, demo: bool = False, reveal_wait: float = 10.0):
        self.store = store
        self.seed = seed
        self.demo = demo
        self.reveal_wait = reveal_wait
        self.box = store.box()  # this box's identity, bound into every commitment
        self.loop: asyncio.AbstractEventLoop | None = None
        self._writer = ThreadPoolExecutor(1, thread_name_prefix="table-writer")
        self._lock = asyncio.Lock()  # room changes and command authorisation, in order
        self._listeners: list[tuple[object, Listener]] = []
        self.phones_first = PhonesFirst()  # the kiosk redraws a phone's command after them
        self._bots = Bots(self, seed, bot_delay)
        self.notices: list[dict] = []
        self.notice_count = 0  # every notice so far: a page tells which of them are new
        self.version = 0  # rises with every change anyone could see; caches key on it
        saved = store.setting(SETTING) or {}
        self.host_token: str = saved.get("host_token") or new_token()
        self.host_phone: str | None = saved.get("host_phone")
        self.lang: str = saved.get("lang", "en")
        # The last number a secret was committed to (never reused, even if never dealt) and
        # the replaced games whose records were revealed at once.
        self.reserved: int = saved.get("reserved", 0)
        self.revealed: list[int] = saved.get("revealed", [])
        # Never changed in place once shown: a change builds a new lobby and replaces it.
        self.lobby: dict | None = saved.get("lobby")
        self.table: Table | None = None
        self.games_dealt = store.games_stored()  # every game this store has dealt
        self._records: dict[int, dict] = {}  # fair records, built once
        if self.lobby and self.lobby.get("game_id") is not None:
            self.table = _resumed(store, self.lobby["game_id"])
            if self.table is None:  # no damage: it stays in the store, the room starts afresh
                self.lobby = None
        if self.lobby and not is_current(self.lobby.get("fair")):
            # Stored before darkmoon-fair/2 (bytes sent in the clear, bound to no number):
            # committed afresh, under the next number, before anyone pledges.
            fair, self.reserved = self._fresh_fair(len(self.lobby["seats"]))
            self.lobby = {**self.lobby, "fair": fair}
        # Before the loop serves anyone: the first host code is on disk before it is shown.
        # A restart finds it there as it was: no commit (and its fsync) before the first frame.
        record = self._record()
        if record != saved:
            store.put_setting(SETTING, record)
        if self.table is not None:
            self._writer.submit(_prepare_log, store)  # as after a deal (see _deal)

    def attach(self, loop: asyncio.AbstractEventLoop) -> None:
        """Run on `loop` (the kiosk's): table changes come back to it, bots play on it."""
        self.loop = loop
        self._schedule_bots()
        if self.revealing:  # restarted while revealing: the phones get their time again
            self._wait_for_reveals()

    # --- persistence: save, then change ---

    def _record(self, **changes) -> dict:
        """The room's record as it stands, with `changes`: what a change writes."""
        record = {"host_token": self.host_token, "host_phone": self.host_phone,
                  "lang": self.lang, "lobby": self.lobby, "reserved": self.reserved,
                  "revealed": self.revealed}
        record.update(changes)
        return record

    async def _write(self, fn, *args):
        """Run a store write on the writer thread; a refused write becomes StorageFailed."""
        return await self._saved(
            asyncio.get_running_loop().run_in_executor(self._writer, fn, *args))

    @staticmethod
    async def _saved(pending: asyncio.Future):
        """The result of a write queued on the writer; the store's refusal is StorageFailed."""
        try:
            return await pending
        except (sqlite3.Error, StoreError, OSError) as error:
            log.error("the store refused a write: %s", error)
            raise StorageFailed("the Pi could not save this (its storage is full or "
                                "failing); nothing changed, try again") from None

    async def _commit(self, record: dict, *audiences) -> None:
        """Write the room's new record, then show it: held under the room's lock."""
        await self._write(self.store.put_setting, SETTING, record)
        self.host_token, self.host_phone = record["host_token"], record["host_phone"]
        self.lang, self.lobby = record["lang"], record["lobby"]
        self.reserved, self.revealed = record["reserved"], record["revealed"]
        for audience in audiences:
            self._tell(audience)

    # --- where the room stands ---

    @property
    def phase(self) -> str:
        """start (no game set up), join (seats being claimed), play, over."""
        if self.lobby is None:
            return "start"
        if self.table is None:
            return "join"
        return "over" if self.table.over else "play"

    def room_view(self) -> dict:
        """What everyone may know about the room: no tokens, no phones, only who has joined."""
        lobby = self.lobby
        fair = lobby["fair"] if lobby else {"pledges": [], "values": []}
        return {
            "phase": self.phase, "lang": self.lang, "demo": self.demo,
            "host_claimed": self.host_phone is not None,
            "seats": [] if lobby is None else [
                {"seat": i, "name": name, "claimed": s["phone"] is not None, "bot": s["bot"],
                 "pledged": fair["pledges"][i] is not None,
                 "revealed": fair["values"][i] is not None}
                for i, (name, s) in enumerate(zip(lobby["setup"]["names"], lobby["seats"]))],
            "notices": list(self.notices), "notice_count": self.notice_count,
            "fair": fair_view(self.table, lobby, self.games_dealt, self.revealed,
                              self._deal_in()),
        }

    def kiosk_view(self) -> dict:
        """The kiosk's whole picture: the room, the join codes it displays, the public board."""
        view = self.room_view()
        view["host_token"] = self.host_token if self.host_phone is None else None
        # Only the seats a phone may claim: neither a phone's nor a bot's (the host hands a
        # bot's seat to a person, and it gets a new code then).
        view["seat_tokens"] = ([None if s["phone"] or s["bot"] else s["token"]
                                for s in self.lobby["seats"]] if self.lobby else [])
        # one code for the whole table where the seats' own codes do not all fit
        view["table_token"] = table_token([s["token"] for s in self.lobby["seats"]]
                                          if self.lobby else [])
        view["game"] = self.table.public_view() if self.table else None
        return view

    def public_view(self) -> dict | None:
        return self.table.public_view() if self.table else None

    def seat_view(self, seat: int) -> dict:
        if self.table is None:
            return {"lobby": self.room_view(), "you": {"seat": seat}}
        return self.table.seat_view(seat)

    # --- setting up and starting a game ---

    async def new_game(self, setup: dict, *, lang: str | None = None, bots: list[int] = (),
                       replace: bool = False, host: tuple | None = None) -> None:
        """Set up the next game: names and options now, statuses dealt at start() once every
        seat is claimed. Refused while a game is being played unless `replace`: a replaced
        game's record is revealed at once (its deal can be checked), and the kiosk says so.
        A lobby never dealt is dropped with its secret (it dealt nothing), its number spent."""
        async with self._lock:
            self._as_host(host)
            if self.phase == "play" and not replace:
                raise GameInProgress("a game is being played; finish it or replace it")
            parsed = Setup.from_json(setup)  # raises BadSetup, naming what is wrong
            if any(not isinstance(b, int) or isinstance(b, bool)
                   or not 0 <= b < len(parsed.names) for b in bots):
                raise BadSetup("bots must be seat numbers")
            lobby = {"setup": parsed.to_json(), "game_id": None,
                     "seats": [{"token": new_token(), "phone": None, "bot": i in bots}
                               for i in range(len(parsed.names))]}
            lobby["fair"], number = self._fresh_fair(len(parsed.names))  # before any claim
            replaced = self.table.game_id if self.phase == "play" and self.table.fair else None
            revealed = self.revealed if replaced is None else (
                self.revealed + [replaced])[-REVEALED:]
            await self._commit(self._record(lobby=lobby, lang=_lang(lang or self.lang),
                                            reserved=number, revealed=revealed))
            self._stop_waiting()
            self.table = None
            self._tell("room")
            if replaced is not None:
                self._notice("game_revealed", game=replaced)

    @property
    def can_start(self) -> bool:
        """A game is set up and every seat has a phone or a bot."""
        return self.phase == "join" and self.seats_held

    @property
    def seats_held(self) -> bool:
        """Every seat has a phone or a bot: statuses are dealt only then, by "start" and by
        "play again" alike (a seat re-bound after a game waits for its new phone)."""
        return self.lobby is not None and all(s["phone"] is not None or s["bot"]
                                              for s in self.lobby["seats"])

    async def set_lang(self, lang: str, *, host: tuple | None = None) -> None:
        async with self._lock:
            self._as_host(host)
            await self._commit(self._record(lang=_lang(lang)), "room")

    # --- commands ---

    async def submit(self, actor, command: dict, *, host: tuple | None = None) -> dict:
        """Submit on the writer thread; returns once the events are durable. Raises a
        RulesError (nothing changed), NotReady or StorageFailed."""
        def authorised():
            self._as_host(host)
            return actor
        return await self._submitted(authorised, command)

    async def bot_submit(self, seat: int, command: dict) -> dict:
        """A bot's move, authorised under the lock like a phone's: once the host has handed
        the seat to a person, a bot's move already on its way is refused."""
        def authorised():
            if not self.lobby or not self.lobby["seats"][seat]["bot"]:
                raise NotYourSeat("this seat is no longer a bot's")
            return seat
        return await self._submitted(authorised, command)

    async def seat_submit(self, token: str, phone: str | None, command: dict) -> dict:
        """A phone's command, authorised once its whole body is here, against the seat's
        claim and the game as they stand now (a re-bound phone, or one of an earlier game,
        holding a request open cannot act for the seat afterwards)."""
        return await self._submitted(lambda: self.check_seat(token, phone), command,
                                     from_phone=True)

    async def _submitted(self, authorised, command: dict, from_phone: bool = False) -> dict:
        """`authorised()` (the actor, or a refusal) and the command's place on the writer's
        queue under one hold of the lock: nobody's claim changes in between."""
        async with self._lock:
            pending = self._queue(authorised(), command)
            self.phones_first.from_phone = from_phone
        return await self._stored(pending)

    def _queue(self, actor, command: dict) -> asyncio.Future:
        """Put the command on the writer's queue now, in lock order, for the current game."""
        if self.table is None:
            raise NotReady("the game has not started")
        pending = asyncio.get_running_loop().run_in_executor(
            self._writer, self.table.submit, actor, command)
        pending.add_done_callback(self._answered)  # before the caller awaits it: runs first
        return pending

    async def _stored(self, pending: asyncio.Future) -> dict:
        events = await self._saved(pending)
        # the command's own state: another command may have followed it before we woke
        return {"state_id": events[-1]["state_id"]}

    def lit_seats(self) -> frozenset[int]:
        """Seats whose button LED is on now: who is waited for at a button decision."""
        if self.table is None:
            return frozenset()
        return lit_seats(waiting_view(self.table.state))  # a game over waits for nobody

    async def press(self, seat: int, colour: str) -> dict | None:
        """A seat button. Returns the accepted command, or None when the press means nothing
        now. Every refused press is answered on that seat's phone; where the reason is public
        (whose turn it is, a decision made on the phone) the kiosk says it too ("presses"
        listeners). A refusal of the rules (IN with no dice, a vote colour the seat lacks)
        tells of the seat's dice: that seat's phone only. A seat that has voted may press
        again while the vote is open: its new colour replaces its vote, as on the phone."""
        if self.table is None or not 0 <= seat < self.table.state.players:
            return None
        # only the public waiting block, not a whole view: a press is on the kiosk's hot path
        waiting = waiting_view(self.table.state)
        command = press_command(waiting, seat, colour)
        if command is None:
            if colour in COLOURS:
                code = press_refusal(waiting, seat, colour)
                self._refuse_press(seat, colour, code, REFUSALS[code])
                self._deliver("presses", {"seat": seat, "colour": colour, "code": code})
            return None
        try:
            await self.submit(seat, command)
        except (RulesError, StorageFailed) as error:
            code = "in_without_dice" if command["option"] == ["in"] else error.code
            self._refuse_press(seat, colour, code, error.message)
            return None
        return command

    def _refuse_press(self, seat: int, colour: str, code: str, message: str) -> None:
        self._deliver(seat, {"refusal": {"code": code, "message": message, "button": colour}})

    # --- listeners ---

    def listen(self, audience, callback: Listener) -> Callable[[], None]:
        """callback(audience, payload) on the loop after every change for that audience.
        The payload is None for "a new view is ready" (build it when you need it), or a dict
        for one-off messages such as a refusal."""
        entry = (audience, callback)
        self._listeners.append(entry)
        return lambda: self._listeners.remove(entry) if entry in self._listeners else None

    def _deliver(self, audience, payload: dict | None) -> None:
        for who, callback in list(self._listeners):
            if who == audience:
                callback(audience, payload)

    def _tell(self, audience) -> None:
        self.version += 1
        self._deliver(audience, None)

    def _answered(self, pending: asyncio.Future) -> None:
        """A queued command's result is in, on the loop. Accepted, it changed the table: the
        listeners are told now, before its caller resumes (this callback was added first),
        but the streams they wake run in the loop's next turn, while the caller resumes in
        this one and sends its reply first: a phone's acknowledgement never waits for the 27
        views. Told from here rather than from the writer thread, a command costs the loop
        one wake-up, not two."""
        if not pending.cancelled() and pending.exception() is None:
            self._tell_table()

    def _tell_table(self) -> None:
        if self.table is None:
            return
        self._tell(PUBLIC)
        for seat in range(self.table.state.players):
            self._tell(seat)
        self._schedule_bots()

    def _notice(self, kind: str, **data) -> None:
        self.notices = (self.notices + [{"k": kind, **data}])[-NOTICES:]
        self.notice_count += 1
        self._tell("room")

    # --- bots (demo seats) ---

    def bot_seats(self) -> list[int]:
        return self._bots.seats()

    def _schedule_bots(self) -> None:
        self._bots.schedule()

    async def close(self) -> None:
        self._stop_waiting()
        self._bots.cancel()
        self._writer.shutdown(wait=True)


def _resumed(store: EventStore, game_id: int) -> Table | None:
    """The stored game the room was playing, or None if this version cannot go on with it:
    stored under other rules, or dealt under darkmoon-fair/1 (the Pi was updated since)."""
    if store.meta(game_id).get("rules_version") != RULES_VERSION:
        log.warning("game %s was stored under other rules: not resumed", game_id)
        return None
    try:
        return Table.resume(store, game_id)
    except OtherRules as error:  # an earlier fair procedure (damage is the salvage's)
        log.warning("game %s is not resumed: %s", game_id, error)
        return None


def _lang(lang) -> str:
    if lang not in ("en", "es"):
        raise BadSetup("language must be en or es")
    return lang
