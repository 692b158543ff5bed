"""The demo's bots: seats played by the sensible bot (companion.tools.sensible) until the host hands
one to a person (Room.hand_over: a new code, announced). They play through the room like
anyone else (Room.bot_submit), a little after the game starts waiting for them, so a table
can watch the moves.

Each bot plays its status from what its seat may see: its own seat view and the public log
since the deal, as a player remembers it; never the game's state. An Infected bot sabotages
quietly and an Uninfected one hunts it, so demos end either way (the helpful bot, which
helps whatever its status, let the Infected win nine games in ten)."""
from __future__ import annotations

import asyncio
import random

from ..darkmoon import RulesError
from ..core.refusals import NotYourSeat, StorageFailed


class Bots:
    def __init__(self, room, seed: int | None, delay: float):
        self.room = room
        self.delay = delay
        self._rng = random.Random(seed)
        self._tasks: set[asyncio.Task] = set()

    def seats(self) -> list[int]:
        lobby = self.room.lobby
        return [i for i, s in enumerate(lobby["seats"]) if s["bot"]] if lobby else []

    def schedule(self) -> None:
        """After every change: each bot the game now waits for moves after the delay."""
        room = self.room
        if room.table is None or room.table.over or room.loop is None:
            return
        waiting = room.table.state.pending
        for seat in self.seats():
            if waiting is not None and seat in waiting.seats:
                task = room.loop.create_task(self._move(seat, room.table.state_id))
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)

    async def _move(self, seat: int, state_id: int) -> None:
        await asyncio.sleep(self.delay)
        table = self.room.table
        if table is None or table.over or table.state_id != state_id or seat not in \
                self.seats() or seat not in table.state.pending.seats:
            return
        command = seat_choice(table, seat, self._rng)
        command["state_id"] = state_id
        try:
            await self.room.bot_submit(seat, command)
        except RulesError:
            pass  # another seat moved first (a vote, a human): the next change reschedules
        except NotYourSeat:
            pass  # handed to a person while this move was on its way: theirs to play now
        except StorageFailed:
            pass  # said in the log by the room; a human's next move wakes the bots again

    def cancel(self) -> None:
        for task in list(self._tasks):
            task.cancel()


def seat_choice(table, seat: int, rng: random.Random) -> dict:
    """The sensible bot's command for one waiting seat, from that seat's view (its phone's)
    and every public fact since the deal."""
    from ..darkmoon import seat_view
    from .sensible import sensible_choice
    g, count = table.snapshot()  # the view and the log of one state
    view = seat_view(g, seat)
    view["log"] = [fact for fact in table.facts[:count] if "to" not in fact]
    return sensible_choice(view, rng)
