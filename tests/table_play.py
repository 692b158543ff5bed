"""Driving a real Room to a wanted moment of a seeded game, for the kiosk and button tests and benches.
Seats are claimed by named phones (no bots), so nothing moves unless the test moves it."""
from __future__ import annotations

import random

from companion.core.room import Room
from companion.tools.simulate import choice_for
from companion.core.store import EventStore

NAMES = ["Ana", "Ben", "Cai", "Dee", "Eli", "Fay", "Gus"]
MAX_STEPS = 3000


async def seated_room(path, seed: int = 7, players: int = 7, lang: str = "en",
                start: bool = True, variants: tuple = ()) -> Room:
    room = Room(EventStore(str(path / "games.db")), seed=seed, bot_delay=0)
    await room.new_game({"names": NAMES[:players], "variants": list(variants)}, lang=lang)
    for token in room.kiosk_view()["seat_tokens"]:
        await room.claim_seat(token, f"phone-{token[:4]}")
    if start:
        await room.start()
    return room


async def advance(room: Room, until, seed: int = 1, prefer=None) -> dict:
    """Play the helpful bots' moves until `until(public_view)` holds; returns that view.
    `prefer(seat, options)` may pick an option first (e.g. calling a vote)."""
    rng = random.Random(seed)
    for _ in range(MAX_STEPS):
        view = room.public_view()
        if until(view):
            return view
        if room.table.over:
            raise AssertionError("the game ended before the wanted moment")
        await room.submit(*next_move(room, rng, prefer))
    raise AssertionError("the wanted moment never came")


def next_move(room: Room, rng: random.Random, prefer=None) -> tuple[int, dict]:
    """The first seat waited for and a helpful bot's command for it (or `prefer`'s pick)."""
    pending = room.table.state.pending
    seat = pending.seats[0]
    option = prefer(seat, pending.options[seat]) if prefer else None
    command = ({"decision": pending.kind, "option": list(option)} if option
               else choice_for(room.table.state, seat, rng))
    return seat, command


def waiting_for(decision: str):
    return lambda view: (view["waiting"] or {}).get("decision") == decision


def call_votes(seat, options):
    """Call a vote whenever the active player may: the tests want votes."""
    return next((o for o in options if o[0] == "vote"), None)
