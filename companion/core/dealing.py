"""How the room deals a game fairly (the procedure is companion/chance/fair.py, the lobby's side
companion/chance/fairdeal.py): "start" and "play again" open the reveal, every seat that pledged
reveals its bytes, and the game is dealt at the last reveal or `reveal_wait` seconds after the
reveal opened, whichever comes first; a seat with no revealed bytes gets its filler. With no
pledge at all there is nothing to wait for: the game is dealt at once.

Part of the Room (companion/core/room.py), under its lock and with its save-then-change commit. The
open reveal is in the room's stored record: a room restarted while revealing waits again (from
when it is attached to its loop) and deals. Also here: the records anyone may fetch, a
replaced game's at once.
"""
from __future__ import annotations

import asyncio
import copy
import logging

from ..chance.fairdeal import (all_revealed, any_pledged, dealt_fair, fresh_fair, hex32, record_of,
                       revealed_value)
from .refusals import BadRequest, GameInProgress, NotReady, StorageFailed
from .store import GameTaken
from .table import PUBLIC, Table

EVERY_SEAT_CLAIMED = "status cards are dealt once every seat is claimed"
RECORDS = 8  # records built (each a whole game played again), kept for the next asker
log = logging.getLogger(__name__)


class Dealing:
    """The Room's deals and records (mixed into Room, whose lock, record, store and
    listeners they use)."""

    _reveal_task: asyncio.Task | None = None
    _reveal_due: float | None = None

    def _next_number(self) -> int:
        """The number the next secret is committed to: never one a game or an earlier
        commitment has had (a discarded commitment's number is spent)."""
        return max(self.store.latest_game() or 0, self.reserved) + 1

    def _fresh_fair(self, players: int) -> tuple[dict, int]:
        number = self._next_number()
        return fresh_fair(players, self.box, number), number

    @property
    def revealing(self) -> bool:
        return self.lobby is not None and self.lobby["fair"]["revealing"]

    def _deal_in(self) -> float | None:
        """Seconds until the deal if the reveal is open (a view shows it), else None."""
        if not self.revealing or self._reveal_due is None or self.loop is None:
            return None
        return max(0.0, round(self._reveal_due - self.loop.time(), 1))

    # --- start and play again ---

    async def start(self, *, host: tuple | None = None) -> None:
        """Deal the set-up game, or open its reveal: returns once one or the other is so."""
        async with self._lock:
            self._as_host(host)
            if self.lobby is None:
                raise NotReady("set up a game first")
            if self.table is not None:
                raise GameInProgress("the game has already started")
            if self.revealing:
                return  # a second tap: the reveal is open, the deal follows
            if not self.can_start:
                raise NotReady(EVERY_SEAT_CLAIMED)
            await self._open_reveal()

    async def play_again(self, *, host: tuple | None = None) -> None:
        """After a game: the same setup, the same phones on the same seats (their codes stay
        theirs), and a new game dealt from the next commitment, made at the last deal, with
        the bytes the phones pledged for it since. Statuses, characters left to chance and
        the decks are dealt afresh."""
        async with self._lock:
            self._as_host(host)
            if self.phase != "over":
                raise GameInProgress("play again once the game is over")
            if self.revealing:
                return
            if not self.seats_held:  # what start refuses: nobody's status dealt to no phone
                raise NotReady(EVERY_SEAT_CLAIMED)
            await self._open_reveal()

    async def _open_reveal(self) -> None:
        """Under the lock: the pledges close and each pledged seat reveals; with no pledge,
        the deal now."""
        if not any_pledged(self.lobby["fair"]):
            await self._deal()
            return
        lobby = {**self.lobby, "fair": {**self.lobby["fair"], "revealing": True}}
        await self._commit(self._record(lobby=lobby))
        self._wait_for_reveals()
        self._tell("room")

    def _wait_for_reveals(self) -> None:
        """The deal `reveal_wait` seconds from now, on the room's loop, whatever is revealed
        by then: a phone that never reveals cannot hold the table up, nor choose to."""
        self._stop_waiting()
        loop = self.loop or asyncio.get_running_loop()
        self._reveal_due = loop.time() + self.reveal_wait
        self._reveal_task = loop.create_task(
            self._deal_when_due(self.lobby["fair"]["commitment"]))

    def _stop_waiting(self) -> None:
        task, self._reveal_task, self._reveal_due = self._reveal_task, None, None
        if task is not None and task is not asyncio.current_task():
            task.cancel()

    async def _deal_when_due(self, commit: str) -> None:
        await asyncio.sleep(self.reveal_wait)
        async with self._lock:
            fair = self.lobby and self.lobby["fair"]
            if not fair or not fair["revealing"] or fair["commitment"] != commit:
                return  # dealt at the last reveal, or another game set up meanwhile
            try:
                await self._deal()
            except StorageFailed as error:
                log.error("the deal after the reveal failed (%s): trying again", error)
                self._wait_for_reveals()
            except Exception:  # a bug of ours: said in the log, never lost with the task
                log.exception("the deal after the reveal failed")
                raise

    async def reveal(self, token: str, phone: str | None, commit, value) -> bool:
        """A pledged seat's phone reveals its bytes; True once the game is dealt (the last
        pledged seat revealed). Refused, nothing changed: a commitment no longer pending,
        a reveal not open, bytes not the pledged ones."""
        commit, value = hex32(commit, "commitment"), hex32(value, "value")
        async with self._lock:
            seat = self.check_seat(token, phone)
            fair = self.lobby["fair"]
            if revealed_value(fair, seat, commit, value):
                values = list(fair["values"])
                values[seat] = value
                lobby = {**self.lobby, "fair": {**fair, "values": values}}
                await self._commit(self._record(lobby=lobby), "room")
            return await self._deal_if_revealed()

    async def _deal_if_revealed(self) -> bool:
        """Under the lock, while the reveal is open: the deal once no reveal is awaited."""
        if self.revealing and all_revealed(self.lobby["fair"]):
            await self._deal()
            return True
        return False

    async def _deal(self) -> None:
        """Deal a game for the lobby's seats (under the lock): stored, then shown to all.
        The game is dealt from the lobby's committed secret and each seat's revealed bytes,
        or its filler. The next game's secret is drawn and committed to at once, under the
        next number, so the phones can pledge for it before it is dealt."""
        # a seeded room (tests, a demo with --seed) deals another game each time
        seed = self.seed if self.seed is None or self.table is None else (
            self.seed * 1000 + self.table.game_id)
        table = await self._write(_dealt, self.store, self.lobby["setup"], seed,
                                  dealt_fair(self.box, self.lobby["fair"]))
        lobby = copy.deepcopy(self.lobby)
        lobby["game_id"] = table.game_id
        lobby["fair"], number = self._fresh_fair(len(lobby["seats"]))
        await self._commit(self._record(lobby=lobby, reserved=number))
        self._stop_waiting()
        self.table = table
        self.games_dealt = await self._write(self.store.games_stored)
        # Before the game's first command, on the writer but not awaited: its commits then
        # overwrite a log file of full size instead of growing it (EventStore.prepare_log).
        self._writer.submit(_prepare_log, self.store)
        self._tell("room")
        self._tell(PUBLIC)
        for seat in range(len(lobby["seats"])):
            self._tell(seat)
        self._schedule_bots()

    # --- records ---

    async def fair_record(self, game=None) -> dict:
        """A game's record, with its secret: the room's game (or `game`, a number) once it
        is over, or at once for a game that is not the one in play (a replaced one, an
        earlier one). Never the game in play: its secret holds every future die."""
        table = self.table
        if game is None:
            if table is None:
                raise NotReady("the record and the secret are revealed when the game is over")
            game = table.game_id
        if isinstance(game, bool) or not isinstance(game, int) or game < 1:
            raise BadRequest("game must be a game's number")
        if table is not None and table.game_id == game and not table.over:
            raise NotReady("the record and the secret are revealed when the game is over")
        if table is not None and table.game_id == game and table.fair is None:
            raise NotReady("this game was dealt from a seed (a test or a demo): "
                           "it cannot be verified")
        if game not in self._records:
            built = await self._write(record_of, self.store, game)
            self._records = {**dict(list(self._records.items())[-(RECORDS - 1):]),
                             game: built}
        return self._records[game]


def _dealt(store, setup: dict, seed: int | None, fair) -> Table:
    """The game dealt under the lobby's number (on the writer thread). Already in the store
    with this secret: an earlier deal stored it and the room's record of it was lost (the
    card refused that write); it is that game, dealt once."""
    try:
        return Table.new(store, setup, seed, fair)
    except GameTaken:
        if (store.meta(fair.game).get("fair") or {}).get("secret") != fair.secret:
            raise
        return Table.resume(store, fair.game)


def _prepare_log(store) -> None:
    import sqlite3
    try:
        store.prepare_log()
    except (sqlite3.Error, OSError) as error:  # commits are only slower: nothing is lost
        log.warning("could not prepare the store's log: %s", error)
