"""The kiosk keeps what its start worked out (companion/warmstart.py) once the first frame is
on the screen, off the event loop, and the file holds no code's address or token."""
from __future__ import annotations

import asyncio
import collections
import dataclasses
import re

from companion import warmstart
from screens.qr import QrCode

from .conftest import SIZE, kiosk
from companion.room import Room
from companion.store import EventStore
from table_play import NAMES


async def test_a_kiosk_start_keeps_the_masks_of_its_codes_and_never_their_tokens(tmp_path):
    room = Room(EventStore(str(tmp_path / "games.db")))
    await room.new_game({"names": NAMES})  # no seat taken: the join screen shows codes
    warmstart.begin(str(tmp_path))
    try:
        app = kiosk(room)
        async with app.run_test(size=SIZE):
            await asyncio.wait_for(app.serving.wait(), 10)  # set once the start is done
            codes = [code.data for code in app.query(QrCode) if code.data]
            assert re._compiler.compile is warmstart._original, "unhooked after the start"
            assert "exec" not in vars(dataclasses) and "eval" not in vars(collections)
            path = tmp_path / warmstart.FILE
            for _ in range(1000):  # written by a thread, after the first frame
                if path.exists():
                    break
                await asyncio.sleep(0.01)
        kept = path.read_bytes()
    finally:
        warmstart.finish()
    assert codes, "the join screen draws at least the table's code"
    for data in codes:
        assert warmstart.qr_mask(data) is not None
        token = data.rsplit("/", 1)[-1]
        assert len(token) >= 16 and token.encode() not in kept and data.encode() not in kept
