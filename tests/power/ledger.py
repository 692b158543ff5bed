"""What the phones and the board were told, and which commands the Pi acknowledged: the record
a power cut is judged against.

`views[state_id][audience]` is every payload an event stream delivered for that state of the
current game (audience: "board", "host" or a seat number); a stream may skip states (quick
changes come as one message), never go back. `acked` is the highest state id a `200` answered
with; `inflight` the commands sent and not yet answered. At the cut the ledger is frozen:
whatever arrives later (bytes left in a socket) is not counted, which only widens what the
test accepts for commands it then treats as unanswered, never narrows it.
"""
from __future__ import annotations

import asyncio
import itertools


class Ledger:
    def __init__(self) -> None:
        self.views: dict[int, dict[object, dict]] = {}
        self.latest: dict[object, dict] = {}   # audience -> its newest payload in this life
        self.first: dict[object, dict] = {}    # audience -> its first payload in this life
        self.acked = -1                         # no game started yet
        self.inflight: dict[int, tuple[int, dict]] = {}
        self.frozen = False
        self.changed = asyncio.Event()
        self._ids = itertools.count()
        self.acks = 0      # over the whole test
        self.refusals = 0  # 409s of votes racing each other

    def new_game(self) -> None:
        self.views.clear()
        self.latest.clear()  # state ids start again from 0
        self.acked = 0  # the host's start was answered: state 0 (the deal) is acknowledged

    def new_life(self) -> None:
        self.latest.clear()
        self.first.clear()
        self.inflight.clear()
        self.frozen = False

    def freeze(self) -> dict[int, tuple[int, dict]]:
        self.frozen = True
        return dict(self.inflight)

    # --- streams ---

    def heard(self, audience, event: str, payload: dict) -> None:
        if self.frozen or event != "view":
            return
        self.first.setdefault(audience, payload)
        view = payload["view"]
        if view is not None and "state_id" in view:
            before = self.latest.get(audience)
            if before is not None and before["view"] and "state_id" in before["view"]:
                assert view["state_id"] >= before["view"]["state_id"], (
                    f"the {audience} stream went back from state "
                    f"{before['view']['state_id']} to {view['state_id']}")
            self.views.setdefault(view["state_id"], {})[audience] = payload
        self.latest[audience] = payload
        self.changed.set()

    async def converged(self, audiences, state_id: int, timeout: float = 15.0) -> dict:
        """Wait until every audience's stream shows `state_id`; their payloads."""
        try:
            # asyncio.timeout, not wait_for: in 3.11 wait_for can swallow a cancellation
            # that comes as the awaited thing completes, and the cut cancels its waiter.
            async with asyncio.timeout(timeout):
                while True:
                    now = {a: self.latest.get(a) for a in audiences}
                    if all(p and p["view"] and p["view"].get("state_id") == state_id
                           for p in now.values()):
                        return now
                    self.changed.clear()
                    await self.changed.wait()
        except TimeoutError:
            shown = {a: (p["view"] or {}).get("state_id") if p else None
                     for a, p in ((a, self.latest.get(a)) for a in audiences)}
            raise AssertionError(f"streams did not reach state {state_id}: {shown}") from None

    # --- commands ---

    def sent(self, seat: int, command: dict) -> int:
        key = next(self._ids)
        self.inflight[key] = (seat, command)
        return key

    def answered(self, key: int, status: int, body: dict) -> None:
        if self.frozen:
            return
        del self.inflight[key]
        if status == 200:
            self.acks += 1
            self.now_at(max(self.acked, body["state_id"]))
        else:
            self.refusals += 1

    def now_at(self, state_id: int) -> None:
        """The game stands at least at `state_id` for sure; older views are not needed."""
        self.acked = state_id
        for old in [s for s in self.views if s < state_id]:
            del self.views[old]
