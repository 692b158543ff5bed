"""The room: everything around one table that is not the rules. Who hosts, which phone holds
which seat, the game being set up or played, the seat buttons and the bots, and the fan-out
of views to the kiosk, the phones and the board page.

All of it runs on one asyncio loop (the table host's). Every write to the store (a command's
events, the room's own record) runs on one writer thread, so a slow or stalled SD card never
freezes the screen or the phones. Save, then change: a change to the room (a claim, a re-bind,
a new game, the language) is built as a new record, written, and only then shown in memory; an
error answer means nothing changed, on disk or in memory. The room (seat tokens, claims) is
kept in the store's settings, so a power cut loses no seat either.

Room changes and command authorisation take one lock, and every write queues on the one writer
thread in that order: a command authorised for a phone is always stored before a re-bind that
came after it, and never after one that came before.

The room has parts, each an object given the room: its claims (who holds what,
companion/core/claims.py), its deals (the fair deal and the records, dealing.py), its
commands (every way a command comes in, the seat buttons too, commands.py) and its bots
(companion/tools/bots.py). A part reads the room's state (lobby, table, host_token, store,
...) and acts on the room only through these, each documented where it is defined below:
`lock`, `save`, `write`, `queue`, `tell`, `tell_table`, `deliver`, `notice`, `as_host`,
`check_seat`; the deals alone call `play` (a game dealt), the commands alone set
`from_phone`, and a seat freed by the claims may let the deal go ahead
(`deals.deal_if_revealed`). Callers see one Room: its parts' public methods (`_Part`).
"""
from __future__ import annotations

import asyncio
import logging
import sqlite3
from concurrent.futures import ThreadPoolExecutor
from typing import Awaitable, Callable

from ..tools.bots import Bots
from .claims import Claims, new_token
from .commands import Commands
from .dealing import Dealing, Phase
from ..darkmoon import BadSetup, Setup
from .joining import table_token
from .fairdeal import Dealer, fair_view, is_current
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


class _Part:
    """A public method of the room whose body is one of its parts': `claim_seat =
    _Part("claims")` makes `room.claim_seat` be `room.claims.claim_seat`. The Room names its
    whole public face; each body, and its documentation, is written once, in its part."""

    def __init__(self, part: str):
        self.part = part

    def __set_name__(self, owner, name: str) -> None:
        self.name = name

    def __get__(self, room, owner=None):
        if room is None:
            return self
        return getattr(getattr(room, self.part), self.name)


class Room:
    """One table's room. `audience` for listeners: PUBLIC, a seat number, or "room"
    (lobby changes: claims, notices, a new game set up). `reveal_wait`: seconds from the
    opening of the reveal to the deal, for phones that never reveal (companion/core/dealing.py).
    `dealer`: how a lobby's fair becomes its receipt and then its deal (fairdeal.Dealer)."""

    def __init__(self, store: EventStore, *, seed: int | None = None,
                 bot_delay: float = 1.0, demo: bool = False, reveal_wait: float = 10.0,
                 dealer: Dealer | None = None):
        self.store = store
        self.dealer = dealer or Dealer()
        self.seed = seed
        self.demo = demo
        self.reveal_wait = reveal_wait
        self.box = store.box()  # this box's identity, bound into every commitment
        self.loop: asyncio.AbstractEventLoop | None = None
        self._writer = ThreadPoolExecutor(1, thread_name_prefix="table-writer")
        self.lock = asyncio.Lock()  # room changes and command authorisation, in order
        self._listeners: list[tuple[object, Listener]] = []
        # whether the latest command came from a phone: the host's pacing then lets the
        # phones show it before the kiosk redraws
        self.from_phone = False
        self.claims = Claims(self)
        self.deals = Dealing(self)
        self.commands = Commands(self)
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
        if self.lobby and self.lobby.get("game_id") is not None:
            self.table = _resumed(store, self.lobby["game_id"])
            if self.table is None:  # no damage: it stays in the store, the room starts afresh
                self.lobby = None
        if self.lobby and not is_current(self.lobby.get("fair")):
            # Stored before darkmoon-fair/2 (bytes sent in the clear, bound to no number):
            # committed afresh, under the next number, before anyone pledges.
            fair, self.reserved = self.deals.fresh_fair(len(self.lobby["seats"]))
            self.lobby = {**self.lobby, "fair": fair}
        # Before the loop serves anyone: the first host code is on disk before it is shown.
        # A restart finds it there as it was: no commit (and its fsync) before the first frame.
        record = self._record()
        if record != saved:
            store.put_setting(SETTING, record)
        if self.table is not None:
            self._writer.submit(_prepare_log, store)  # as after a deal (see play)

    def attach(self, loop: asyncio.AbstractEventLoop) -> None:
        """Run on `loop` (the host's): table changes come back to it, bots play on it."""
        self.loop = loop
        self._schedule_bots()
        if self.revealing:  # restarted while revealing: the phones get their time again
            self.deals.wait_for_reveals()

    # --- the parts' public methods, as the room's ---

    # who holds what (companion/core/claims.py)
    seat_of = _Part("claims")
    seat_of_phone = _Part("claims")
    check_seat = _Part("claims")
    check_host = _Part("claims")
    claim_host = _Part("claims")
    new_host_code = _Part("claims")
    claim_seat = _Part("claims")
    pledge = _Part("claims")
    leave_seat = _Part("claims")
    host_sits = _Part("claims")
    host_seat = _Part("claims")
    host_of_seat = _Part("claims")
    hand_over = _Part("claims")
    rebind = _Part("claims")
    # the deals and their records (companion/core/dealing.py)
    start = _Part("deals")
    play_again = _Part("deals")
    reveal = _Part("deals")
    fair_record = _Part("deals")
    # every way a command comes in, the seat buttons too (companion/core/commands.py)
    submit = _Part("commands")
    bot_submit = _Part("commands")
    seat_submit = _Part("commands")
    press = _Part("commands")
    lit_seats = _Part("commands")

    # --- what the parts use: save, then change ---

    def _record(self, **changes) -> dict:
        """The room's record as it stands, with `changes`: what a change writes."""
        record = {"host_token": self.host_token, "host_phone": self.host_phone,
                  "lang": self.lang, "lobby": self.lobby, "reserved": self.reserved,
                  "revealed": self.revealed}
        record.update(changes)
        return record

    async def write(self, fn, *args):
        """Run a store write on the writer thread; a refused write becomes StorageFailed."""
        return await self.queue(fn, *args)

    def queue(self, fn, *args,
              then: Callable[[asyncio.Future], None] | None = None) -> Awaitable:
        """Put a store write on the writer thread's queue now (under the lock: in lock order)
        and `then(future)` on the loop once it is done, before anyone awaiting it resumes.
        Awaited: fn's result, or StorageFailed if the store refused it."""
        pending = asyncio.get_running_loop().run_in_executor(self._writer, fn, *args)
        if then is not None:
            pending.add_done_callback(then)
        return _saved(pending)

    async def save(self, *audiences, **changes) -> None:
        """Under the lock: write the room's record with `changes` (host_token, host_phone,
        lang, lobby, reserved, revealed), then show it, then tell `audiences`. Refused by the
        store (StorageFailed), nothing changed."""
        record = self._record(**changes)
        await self.write(self.store.put_setting, SETTING, record)
        self.host_token, self.host_phone = record["host_token"], record["host_phone"]
        self.lang, self.lobby = record["lang"], record["lobby"]
        self.reserved, self.revealed = record["reserved"], record["revealed"]
        for audience in audiences:
            self.tell(audience)

    def as_host(self, host: tuple | None) -> None:
        """A host's request (token, phone) is checked under the lock, against the host as
        it stands when the request is acted on; None is the Pi's own (its keys, a test)."""
        if host is not None:
            self.claims.check_host(*host)

    async def play(self, table: Table) -> None:
        """Under the lock, once a game is dealt and the lobby naming it saved (the deals'):
        the game in play, told to everyone, the bots included."""
        self.table = table
        self.games_dealt = await self.write(self.store.games_stored)
        # Before the game's first command, on the writer but not awaited: its commits then
        # overwrite a log file of full size instead of growing it (EventStore.prepare_log).
        self._writer.submit(_prepare_log, self.store)
        self.tell("room")
        self.tell_table()

    # --- where the room stands ---

    @property
    def phase(self) -> Phase:
        if self.lobby is None:
            return Phase.START
        if self.table is None:
            return Phase.JOIN
        return Phase.OVER if self.table.over else Phase.PLAY

    @property
    def revealing(self) -> bool:
        """The reveal of the game set up is open: the phones reveal, the deal follows."""
        return self.lobby is not None and self.lobby["fair"]["revealing"]

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
                              self.deals.deal_in()),
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

    # --- setting up a game ---

    async def new_game(self, setup: dict, *, lang: str | None = None, bots: list[int] = (),
                       replace: bool = False, host: tuple | None = None) -> None:
        """Set up the next game: names and options now, statuses dealt at start() once every
        seat is claimed. Refused while a game is being played unless `replace`: a replaced
        game's record is revealed at once (its deal can be checked), and the kiosk says so.
        A lobby never dealt is dropped with its secret (it dealt nothing), its number spent."""
        async with self.lock:
            self.as_host(host)
            if self.phase == Phase.PLAY and not replace:
                raise GameInProgress("a game is being played; finish it or replace it")
            parsed = Setup.from_json(setup)  # raises BadSetup, naming what is wrong
            if any(not isinstance(b, int) or isinstance(b, bool)
                   or not 0 <= b < len(parsed.names) for b in bots):
                raise BadSetup("bots must be seat numbers")
            lobby = {"setup": parsed.to_json(), "game_id": None,
                     "seats": [{"token": new_token(), "phone": None, "bot": i in bots}
                               for i in range(len(parsed.names))]}
            lobby["fair"], number = self.deals.fresh_fair(len(parsed.names))  # before any claim
            replaced = (self.table.game_id if self.phase == Phase.PLAY and self.table.fair
                        else None)
            revealed = self.revealed if replaced is None else (
                self.revealed + [replaced])[-REVEALED:]
            await self.save(lobby=lobby, lang=_lang(lang or self.lang), reserved=number,
                            revealed=revealed)
            self.deals.stop_waiting()
            self.table = None
            self.tell("room")
            if replaced is not None:
                self.notice("game_revealed", game=replaced)

    @property
    def can_start(self) -> bool:
        """A game is set up and every seat has a phone or a bot."""
        return self.phase == Phase.JOIN and self.seats_held

    @property
    def seats_held(self) -> bool:
        """Every seat has a phone or a bot: statuses are dealt only then, by "start" and by
        "play again" alike (a seat re-bound after a game waits for its new phone)."""
        return self.lobby is not None and all(s["phone"] is not None or s["bot"]
                                              for s in self.lobby["seats"])

    async def set_lang(self, lang: str, *, host: tuple | None = None) -> None:
        async with self.lock:
            self.as_host(host)
            await self.save("room", lang=_lang(lang))

    # --- listeners ---

    def listen(self, audience, callback: Listener) -> Callable[[], None]:
        """callback(audience, payload) on the loop after every change for that audience.
        The payload is None for "a new view is ready" (build it when you need it), or a dict
        for one-off messages such as a refusal."""
        entry = (audience, callback)
        self._listeners.append(entry)
        return lambda: self._listeners.remove(entry) if entry in self._listeners else None

    def deliver(self, audience, payload: dict | None) -> None:
        """`payload` to `audience`'s listeners: a one-off message such as a refusal."""
        for who, callback in list(self._listeners):
            if who == audience:
                callback(audience, payload)

    def tell(self, audience) -> None:
        """A new view is ready for `audience`: its listeners are told (for the parts)."""
        self.version += 1
        self.deliver(audience, None)

    def tell_table(self) -> None:
        """The game changed: the board, every seat and the bots are told."""
        if self.table is None:
            return
        self.tell(PUBLIC)
        for seat in range(self.table.state.players):
            self.tell(seat)
        self._schedule_bots()

    def notice(self, kind: str, **data) -> None:
        """A public notice (a refused scan, a re-bound seat): the kiosk and every page say it
        in their language from `kind` (for the parts)."""
        self.notices = (self.notices + [{"k": kind, **data}])[-NOTICES:]
        self.notice_count += 1
        self.tell("room")

    # --- bots (demo seats) ---

    def bot_seats(self) -> list[int]:
        return self._bots.seats()

    def _schedule_bots(self) -> None:
        self._bots.schedule()

    async def close(self) -> None:
        self.deals.stop_waiting()
        self._bots.cancel()
        self._writer.shutdown(wait=True)


async def _saved(pending: asyncio.Future):
    """The result of a write queued on the writer; the store's refusal is StorageFailed."""
    try:
        return await pending
    except (sqlite3.Error, StoreError, OSError) as error:
        log.error("the store refused a write: %s", error)
        raise StorageFailed("the Pi could not save this (its storage is full or "
                            "failing); nothing changed, try again") from None


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


def _prepare_log(store) -> None:
    try:
        store.prepare_log()
    except (sqlite3.Error, OSError) as error:  # commits are only slower: nothing is lost
        log.warning("could not prepare the store's log: %s", error)


def _lang(lang) -> str:
    if lang not in ("en", "es"):
        raise BadSetup("language must be en or es")
    return lang
