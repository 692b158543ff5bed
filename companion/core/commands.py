"""How a command reaches the table: the Pi's own or the host's, a bot's, a phone's, a seat
button's. Each is authorised under the room's lock and put on the writer's queue in the same
hold of it (nobody's claim changes in between), and answered once its events are durable.

One of the room's parts (companion/core/room.py says what a part may use of the room).
"""
from __future__ import annotations

import asyncio

from ..darkmoon import RulesError
from ..darkmoon.views import waiting_view
from .buttons import COLOURS, REFUSALS, lit_seats, press_command, press_refusal
from .refusals import NotReady, NotYourSeat, StorageFailed


class Commands:
    """Every way a command comes in. `room`: the room whose part this is."""

    def __init__(self, room):
        self.room = room

    async def submit(self, actor, command: dict, *, host: tuple | None = None) -> dict:
        """Submit on the writer thread; returns once the events are durable. Raises a
        RulesError (nothing changed), NotReady or StorageFailed."""
        def authorised():
            self.room.as_host(host)
            return actor
        return await self._submitted(authorised, command)

    async def bot_submit(self, seat: int, command: dict) -> dict:
        """A bot's move, authorised under the lock like a phone's: once the host has handed
        the seat to a person, a bot's move already on its way is refused."""
        def authorised():
            lobby = self.room.lobby
            if not lobby or not lobby["seats"][seat]["bot"]:
                raise NotYourSeat("this seat is no longer a bot's")
            return seat
        return await self._submitted(authorised, command)

    async def seat_submit(self, token: str, phone: str | None, command: dict) -> dict:
        """A phone's command, authorised once its whole body is here, against the seat's
        claim and the game as they stand now (a re-bound phone, or one of an earlier game,
        holding a request open cannot act for the seat afterwards)."""
        return await self._submitted(lambda: self.room.check_seat(token, phone), command,
                                     from_phone=True)

    async def _submitted(self, authorised, command: dict, from_phone: bool = False) -> dict:
        """`authorised()` (the actor, or a refusal) and the command's place on the writer's
        queue under one hold of the lock, for the game in play."""
        room = self.room
        async with room.lock:
            actor = authorised()
            if room.table is None:
                raise NotReady("the game has not started")
            stored = room.queue(room.table.submit, actor, command, then=self._answered)
            room.from_phone = from_phone  # the one place it is set: with the lock held
        events = await stored
        # the command's own state: another command may have followed it before we woke
        return {"state_id": events[-1]["state_id"]}

    def _answered(self, pending: asyncio.Future) -> None:
        """A queued command's result is in, on the loop. Accepted, it changed the table: the
        listeners are told now, before its caller resumes (Room.queue runs this first), but
        the streams they wake run in the loop's next turn, while the caller resumes in this
        one and sends its reply first: a phone's acknowledgement never waits for the 27
        views. Told from here rather than from the writer thread, a command costs the loop
        one wake-up, not two."""
        if not pending.cancelled() and pending.exception() is None:
            self.room.tell_table()

    # --- the seat buttons ---

    def lit_seats(self) -> frozenset[int]:
        """Seats whose button LED is on now: who is waited for at a button decision."""
        table = self.room.table
        if table is None:
            return frozenset()
        return lit_seats(waiting_view(table.state))  # a game over waits for nobody

    async def press(self, seat: int, colour: str) -> dict | None:
        """A seat button. Returns the accepted command, or None when the press means nothing
        now. Every refused press is answered on that seat's phone; where the reason is public
        (whose turn it is, a decision made on the phone) the kiosk says it too ("presses"
        listeners). A refusal of the rules (IN with no dice, a vote colour the seat lacks)
        tells of the seat's dice: that seat's phone only. A seat that has voted may press
        again while the vote is open: its new colour replaces its vote, as on the phone."""
        table = self.room.table
        if table is None or not 0 <= seat < table.state.players:
            return None
        # only the public waiting block, not a whole view: a press is on the kiosk's hot path
        waiting = waiting_view(table.state)
        command = press_command(waiting, seat, colour)
        if command is None:
            if colour in COLOURS:
                code = press_refusal(waiting, seat, colour)
                self._refuse_press(seat, colour, code, REFUSALS[code])
                self.room.deliver("presses", {"seat": seat, "colour": colour, "code": code})
            return None
        try:
            await self.submit(seat, command)
        except (RulesError, StorageFailed) as error:
            code = "in_without_dice" if command["option"] == ["in"] else error.code
            self._refuse_press(seat, colour, code, error.message)
            return None
        return command

    def _refuse_press(self, seat: int, colour: str, code: str, message: str) -> None:
        self.room.deliver(seat, {"refusal": {"code": code, "message": message,
                                             "button": colour}})
