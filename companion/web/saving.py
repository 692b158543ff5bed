"""An answer within seconds while the Pi's storage is slow.

Every change (a command, a claim, the host's setup) is written to the store before anyone is
told of it, on the room's one writer thread. An SD card can freeze for tens of seconds; a
phone waiting that long for its answer looks broken and its player taps again. So a change
not saved within `seconds` is answered `503 store_slow`, and goes on: it is still queued, in
its order, and counts if the write lands (the room then tells every screen, as for any
change); if the write fails instead, nothing changed. Nothing is lost either way.

Nothing is done twice either: while a change answered `store_slow` is still on its way, a
new change for the same seat or host code is refused at once (`503 store_slow`, not queued),
so a player's retry cannot be played after the change it repeats. At most `most` such
changes wait at a time; past that every change is refused at once, and nothing queues.
"""
from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine

from aiohttp import web

from ..darkmoon import RulesError
from ..core.refusals import RoomError, StoreSlow

log = logging.getLogger(__name__)

STILL_SAVING = ("the Pi's storage is slow: this is still being saved. It counts once it is "
                "saved, and every screen shows it then; if your screen does not change, it "
                "did not count and you can send it again")
EARLIER_STILL_SAVING = ("the Pi's storage is slow and is still saving your last change: this "
                        "one was not taken. Wait until your screen changes, then send it again "
                        "if it is still needed")


class Saving:
    def __init__(self, seconds: float, most: int = 32):
        self.seconds = seconds
        self.most = most
        self.overdue: dict[str, asyncio.Task] = {}  # by seat or host code

    async def within(self, code: str, work: Coroutine):
        """The result of `work` (a room change for the seat or host `code`), or StoreSlow
        once `seconds` have passed without it; `work` then goes on by itself."""
        if code in self.overdue or len(self.overdue) >= self.most:
            work.close()  # never started: nothing queued, nothing changed
            raise StoreSlow(EARLIER_STILL_SAVING)
        task = asyncio.ensure_future(work)
        task.add_done_callback(lambda finished: self._landed(code, finished))
        # not cancelled with its request: a change that was queued goes on to the store
        done, _ = await asyncio.wait({task}, timeout=self.seconds)
        if done:
            return task.result()
        self.overdue[code] = task
        raise StoreSlow(STILL_SAVING)

    def _landed(self, code: str, task: asyncio.Task) -> None:
        error = None if task.cancelled() else task.exception()  # always read: never "unseen"
        if self.overdue.get(code) is not task:
            return  # answered in time: its request said how it went
        del self.overdue[code]
        if task.cancelled():  # the server is shutting down
            return
        if error is None:
            log.info("a change answered as slow has been saved")
        elif isinstance(error, (RoomError, RulesError)):  # StorageFailed is logged by the room
            log.info("a change answered as slow was refused in the end: %s", error)
        else:
            log.error("a change answered as slow failed", exc_info=error)


SAVING_KEY = web.AppKey("saving", Saving)
