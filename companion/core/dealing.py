"""How the room deals a game fairly (the procedure is companion/chance/fair.py, the lobby's side
companion/core/fairdeal.py): "start" and "play again" open the reveal, every seat that pledged
reveals its bytes, and the game is dealt at the last reveal or `reveal_wait` seconds after the
reveal opened, whichever comes first; a seat with no revealed bytes gets its filler. With no
pledge at all there is nothing to wait for: the game is dealt at once. Before the deal its
receipt (the pledges whose bytes it uses) is stored and shown to every phone, and the deal is
made from exactly that receipt (the room's Dealer, companion/core/fairdeal.py).

One of the room's parts (companion/core/room.py says what a part may use of the room): under
its lock and with its save-then-change record. The open reveal is in the room's stored
record: a room restarted while revealing waits again (from when it is attached to its loop)
and deals. Also here: the records anyone may fetch, a replaced game's at once.
"""
from __future__ import annotations

import asyncio
import copy
import logging
from enum import StrEnum

from .fairdeal import (all_revealed, any_pledged, fresh_fair, hex32, record_of,
                       revealed_value)
from .refusals import BadRequest, GameInProgress, NotReady, StorageFailed
from .store import GameTaken
from .table import Table

EVERY_SEAT_CLAIMED = "status cards are dealt once every seat is claimed"
RECORDS = 8  # records built (each a whole game played again), kept for the next asker
log = logging.getLogger(__name__)


class Phase(StrEnum):
    """Where the room stands (Room.phase). A str: JSON and every page see these words."""
    START = "start"  # no game set up
    JOIN = "join"  # a game set up, seats being claimed (and the reveal, once started)
    PLAY = "play"  # dealt and being played
    OVER = "over"


class Dealing:
    """The room's deals and its records. `room`: the room whose part this is."""

    def __init__(self, room):
        self.room = room
        self._reveal_task: asyncio.Task | None = None
        self._reveal_due: float | None = None  # on the room's loop's clock
        self._records: dict[int, dict] = {}  # fair records, built once

    def fresh_fair(self, players: int) -> tuple[dict, int]:
        """A new commitment for the next deal, and the number it is committed to: never one
        a game or an earlier commitment has had (a discarded commitment's number is
        spent)."""
        room = self.room
        number = max(room.store.latest_game() or 0, room.reserved) + 1
        return fresh_fair(players, room.box, number), number

    def deal_in(self) -> float | None:
        """Seconds until the deal if the reveal is open (a view shows it), else None."""
        loop = self.room.loop
        if not self.room.revealing or self._reveal_due is None or loop is None:
            return None
        return max(0.0, round(self._reveal_due - loop.time(), 1))

    # --- start and play again ---

    async def start(self, *, host: tuple | None = None) -> None:
        """Deal the set-up game, or open its reveal: returns once one or the other is so."""
        room = self.room
        async with room.lock:
            room.as_host(host)
            if room.lobby is None:
                raise NotReady("set up a game first")
            if room.table is not None:
                raise GameInProgress("the game has already started")
            if room.revealing:
                return  # a second tap: the reveal is open, the deal follows
            if not room.can_start:
                raise NotReady(EVERY_SEAT_CLAIMED)
            await self._open_reveal()

    async def play_again(self, *, host: tuple | None = None) -> None:
        """After a game: the same setup, the same phones on the same seats (their codes stay
        theirs), and a new game dealt from the next commitment, made at the last deal, with
        the bytes the phones pledged for it since. Statuses, characters left to chance and
        the decks are dealt afresh."""
        room = self.room
        async with room.lock:
            room.as_host(host)
            if room.phase != Phase.OVER:
                raise GameInProgress("play again once the game is over")
            if room.revealing:
                return
            if not room.seats_held:  # what start refuses: nobody's status dealt to no phone
                raise NotReady(EVERY_SEAT_CLAIMED)
            await self._open_reveal()

    async def _open_reveal(self) -> None:
        """Under the lock: the pledges close and each pledged seat reveals; with no pledge,
        the deal now."""
        room = self.room
        if not any_pledged(room.lobby["fair"]):
            await self._deal()
            return
        await room.save(lobby={**room.lobby, "fair": {**room.lobby["fair"], "revealing": True}})
        self.wait_for_reveals()
        room.tell("room")

    def wait_for_reveals(self) -> None:
        """The deal `reveal_wait` seconds from now, on the room's loop, whatever is revealed
        by then: a phone that never reveals cannot hold the table up, nor choose to."""
        self.stop_waiting()
        loop = self.room.loop or asyncio.get_running_loop()
        self._reveal_due = loop.time() + self.room.reveal_wait
        self._reveal_task = loop.create_task(
            self._deal_when_due(self.room.lobby["fair"]["commitment"]))

    def stop_waiting(self) -> None:
        task, self._reveal_task, self._reveal_due = self._reveal_task, None, None
        if task is not None and task is not asyncio.current_task():
            task.cancel()

    async def _deal_when_due(self, commit: str) -> None:
        room = self.room
        await asyncio.sleep(room.reveal_wait)
        async with room.lock:
            fair = room.lobby and room.lobby["fair"]
            if not fair or not fair["revealing"] or fair["commitment"] != commit:
                return  # dealt at the last reveal, or another game set up meanwhile
            try:
                await self._deal()
            except StorageFailed as error:
                log.error("the deal after the reveal failed (%s): trying again", error)
                self.wait_for_reveals()
            except Exception:  # a bug of ours: said in the log, never lost with the task
                log.exception("the deal after the reveal failed")
                raise

    async def reveal(self, token: str, phone: str | None, commit, value) -> bool:
        """A pledged seat's phone reveals its bytes; True once the game is dealt (the last
        pledged seat revealed). Refused, nothing changed: a commitment no longer pending,
        a reveal not open, bytes not the pledged ones."""
        commit, value = hex32(commit, "commitment"), hex32(value, "value")
        room = self.room
        async with room.lock:
            seat = room.check_seat(token, phone)
            fair = room.lobby["fair"]
            if revealed_value(fair, seat, commit, value):
                values = list(fair["values"])
                values[seat] = value
                await room.save("room", lobby={**room.lobby, "fair": {**fair, "values": values}})
            return await self.deal_if_revealed()

    async def deal_if_revealed(self) -> bool:
        """Under the lock, while the reveal is open: the deal once no reveal is awaited (the
        last reveal, or a seat freed whose reveal was awaited)."""
        if self.room.revealing and all_revealed(self.room.lobby["fair"]):
            await self._deal()
            return True
        return False

    async def _deal(self) -> None:
        """Deal a game for the lobby's seats (under the lock): stored, then shown to all.
        The game is dealt from the lobby's committed secret and each seat's revealed bytes,
        or its filler. The next game's secret is drawn and committed to at once, under the
        next number, so the phones can pledge for it before it is dealt."""
        room = self.room
        # a seeded room (tests, a demo with --seed) deals another game each time
        seed = room.seed if room.seed is None or room.table is None else (
            room.seed * 1000 + room.table.game_id)
        fair = room.lobby["fair"]
        if fair.get("receipt") is None:  # fixed once: a deal retried keeps it
            fair = {**fair, "receipt": room.dealer.receipt(fair)}
            await room.save("room", lobby={**room.lobby, "fair": fair})
        table = await room.write(_dealt, room.store, room.lobby["setup"], seed,
                                 room.dealer.fair(room.box, fair))
        lobby = copy.deepcopy(room.lobby)
        lobby["game_id"] = table.game_id
        lobby["fair"], number = self.fresh_fair(len(lobby["seats"]))
        await room.save(lobby=lobby, reserved=number)
        self.stop_waiting()
        await room.play(table)

    # --- records ---

    async def fair_record(self, game=None) -> dict:
        """A game's record, with its secret: the room's game (or `game`, a number) once it
        is over, or at once for a game that is not the one in play (a replaced one, an
        earlier one). Never the game in play: its secret holds every future die."""
        table = self.room.table
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
            built = await self.room.write(record_of, self.room.store, game)
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
