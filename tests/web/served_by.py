"""A real Room handed a Dealer (tests/dealers.py: a modified box at the dealing seam) on a
real store in `tmp`, served on a loopback port as test_browser_kit's `served` is. This file
holds no test."""
from __future__ import annotations

import asyncio
from contextlib import asynccontextmanager

from companion.core.room import Room
from companion.core.store import EventStore

from test_browser_kit import Served


@asynccontextmanager
async def served_by(tmp, dealer):
    store = EventStore(tmp / "g.db")
    room = Room(store, bot_delay=0, dealer=dealer)  # no seed: a fair deal, from a secret
    room.attach(asyncio.get_running_loop())
    server = Served(room)
    await server.start()
    try:
        yield server
    finally:
        await server.stop()
        await room.close()
        store.close()
