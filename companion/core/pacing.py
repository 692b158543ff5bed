"""A phone's command reaches the phones before the kiosk redraws it.

On the Pi the kiosk's redraw and the phones' event streams share one CPU. A player who taps
their phone watches their phone: its update (and the other phones', for a vote revealed)
goes first, and the kiosk redraws once every stream woken by the change has written it, or
after MOST_WAIT at the latest (a stream stuck on a phone gone quiet never holds the kiosk
up). A seat button's press is watched on the kiosk: it redraws at once.

The table host (companion/core/host.py) holds one for its room: the web streams tell it what
they owe (woken, sent), the kiosk asks it when to redraw (then). Whether the latest command
came from a phone is the room's fact (`room.from_phone`, set as the command is queued)."""
from __future__ import annotations

import asyncio
from typing import Callable

MOST_WAIT = 0.1  # seconds


class PhonesFirst:
    def __init__(self, room) -> None:
        self.room = room         # read for from_phone: whether the latest command was a phone's
        self.busy = 0            # streams woken by a change that have not written it yet
        self._waiting: list[Callable[[], None]] = []
        self._timer: asyncio.TimerHandle | None = None

    def woken(self) -> None:
        self.busy += 1

    def sent(self) -> None:
        self.busy -= 1
        if self.busy <= 0:
            self.busy = 0
            self._release()

    def then(self, callback: Callable[[], None]) -> None:
        """`callback` on the loop once the phones have the latest change. Decided in the
        loop's next turn: the streams hear of a change after the kiosk may have."""
        asyncio.get_running_loop().call_soon(self._decide, callback)

    def _decide(self, callback: Callable[[], None]) -> None:
        if not self.room.from_phone or not self.busy:
            callback()
            return
        self._waiting.append(callback)
        if self._timer is None:
            self._timer = asyncio.get_running_loop().call_later(MOST_WAIT, self._release)

    def _release(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        waiting, self._waiting = self._waiting, []
        for callback in waiting:
            callback()
