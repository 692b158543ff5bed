"""The phones' server in a process of its own, with the file limit a test gives it, for
tests/web/test_http_guard.py's flood: `python flood_server.py DB SOFT HARD`.

It sets its file limit to SOFT:HARD (what a shell or a unit would give it), starts the
server as the product does (`start_server`, default caps) on 127.0.0.1, sets up a four-seat
game whose host and seats are held by phones it makes up (each a phone secret, which the room
knows by its phone_id, as a sealed request names it), starts it, and prints one JSON line: the
port, the host's and the seats' codes and phone secrets, the file limit it has once the server
runs and the caps it chose. It serves until its stdin closes."""
from __future__ import annotations

import asyncio
import json
import resource
import secrets
import sys
from pathlib import Path


async def serve(db: str) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from companion.core.room import Room
    from companion.core.store import EventStore
    from companion.web import guard
    from companion.web.sealing import phone_id
    from companion.web.server import start_server

    store = EventStore(db)
    room = Room(store, seed=11, bot_delay=0)
    loop = asyncio.get_running_loop()
    room.attach(loop)
    runner = await start_server(room, "127.0.0.1", 0)
    host_phone = secrets.token_urlsafe(16)
    await room.claim_host(room.host_token, phone_id(host_phone))
    host = (room.host_token, phone_id(host_phone))
    await room.new_game({"names": ["Ana", "Ben", "Cai", "Dee"]}, host=host)
    seats = []
    for token in room.kiosk_view()["seat_tokens"]:
        phone = secrets.token_urlsafe(16)
        await room.claim_seat(token, phone_id(phone))
        seats.append([token, phone])
    await room.start(host=host)
    limits = runner.app[guard.GUARD_KEY].limits
    print(json.dumps({
        "port": runner.addresses[0][1], "host": [room.host_token, host_phone], "seats": seats,
        "files": resource.getrlimit(resource.RLIMIT_NOFILE)[0],
        "total": limits.total, "proven": getattr(limits, "proven", None),
        "per_address": limits.per_address}),
        flush=True)
    closed = asyncio.Event()
    loop.add_reader(sys.stdin.fileno(), lambda: sys.stdin.buffer.read1(1 << 16) or closed.set())
    await closed.wait()
    loop.remove_reader(sys.stdin.fileno())
    await runner.cleanup()
    await room.close()
    store.close()


if __name__ == "__main__":
    db, soft, hard = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    asyncio.run(serve(db))
