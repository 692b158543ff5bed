"""How often one address on the Wi-Fi may say hello: a phone says it when its page opens, after
a reload and after the Pi restarts, a few times an evening; a stranger's laptop replaying or
forging hellos thousands of times a second is slowed to the same pace as everyone else, and is
told so in a refusal the page explains (`429 too_many_hellos`).

A bucket per address fills at `rate` a second up to `burst`; each hello takes one. The buckets
are few and bounded: past `addresses` of them the longest idle goes (it was full again
anyway, or nearly), so a flood from a thousand spoofed addresses costs the Pi no memory.
"""
from __future__ import annotations

import math
import time
from collections import OrderedDict
from typing import Callable

from ..core.refusals import RoomError


class TooManyHellos(RoomError):
    """This address said hello too often: it waits `retry_after` seconds (the answer's
    Retry-After header says how many) and tries again. Nothing changed."""
    code, status = "too_many_hellos", 429

    def __init__(self, message: str, retry_after: int):
        super().__init__(message)
        self.retry_after = retry_after


class PerAddress:
    def __init__(self, rate: float, burst: int, *, addresses: int = 4096,
                 clock: Callable[[], float] = time.monotonic):
        if rate <= 0 or burst < 1:
            raise ValueError("a bucket fills at a positive rate and holds at least one")
        self.rate, self.burst, self.addresses, self.clock = rate, burst, addresses, clock
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()  # level, when

    def take(self, address: str | None) -> None:
        """One hello from `address`, or TooManyHellos (and nothing taken)."""
        key = address or "?"
        now = self.clock()
        level, when = self._buckets.pop(key, (float(self.burst), now))
        level = min(float(self.burst), level + (now - when) * self.rate)
        if level < 1:
            self._buckets[key] = (level, now)
            wait = max(1, math.ceil((1 - level) / self.rate))
            raise TooManyHellos(f"this device asked to connect too often: it tries again "
                                f"in {wait} s", wait)
        self._buckets[key] = (level - 1, now)
        while len(self._buckets) > self.addresses:
            self._buckets.popitem(last=False)
