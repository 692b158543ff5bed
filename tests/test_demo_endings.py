"""A newcomer who watches a few demos sees the game end in different ways, and either team
win: the demo's bots play their statuses (an Infected bot sabotages, an Uninfected one hunts
it) rather than all helping, which let the Infected win almost every demo. The same --seed
still plays the same demo."""
from __future__ import annotations

import asyncio
from collections import Counter

from companion.cli import demo_game
from companion.core.room import Room
from companion.core.store import EventStore

DEMOS = 12          # demos watched in a row
PLAYERS = 5         # the demo's default (--players)
GAME_GUARD = 30.0   # s: a guard against a demo that never ends; one takes a fraction of that


async def watch_demo(tmp_path, seed: int) -> Room:
    """`./darkmoon demo --seed SEED` with the demo's other defaults, without the kiosk and with
    no pause before each bot's move (--pace 0)."""
    store = EventStore(tmp_path / f"demo-{seed}.db")
    room = Room(store, seed=seed, bot_delay=0.0, demo=True)  # as the kiosk makes it
    room.attach(asyncio.get_running_loop())
    await demo_game(room, PLAYERS)
    async with asyncio.timeout(GAME_GUARD):
        while not room.table.over:
            await asyncio.sleep(0.001)
    return room


async def ending(tmp_path, seed: int) -> tuple[str, str, list]:
    room = await watch_demo(tmp_path, seed)
    try:
        outcome = room.table.state.outcome
        moves = [(e["actor"], e["command"]) for records in room.store.load(room.table.game_id)
                 for e in records if e["type"] == "command"]
        return outcome.winner, outcome.condition, moves
    finally:
        await room.close()
        room.store.close()


async def test_demos_in_a_row_end_in_different_ways_and_either_team_wins(tmp_path):
    endings = Counter()
    for seed in range(1, DEMOS + 1):
        winner, condition, _ = await ending(tmp_path, seed)
        endings[winner, condition] += 1
    wins = Counter()
    for (winner, _), count in endings.items():
        wins[winner] += count
    # Each team wins a fair share of them, not one demo in ten (the helpful bots' one in twelve)
    assert wins["uninfected"] >= DEMOS // 4 and wins["infected"] >= DEMOS // 4, endings
    assert len(endings) >= 3, endings  # the final event, and more than one Infected track
    assert max(endings.values()) <= DEMOS // 2, endings  # no one ending takes most of them


async def test_the_same_seed_plays_the_same_demo(tmp_path):
    for folder in ("first", "again"):
        (tmp_path / folder).mkdir()
    first = await ending(tmp_path / "first", 4)
    again = await ending(tmp_path / "again", 4)
    assert first == again
    assert len(first[2]) > 20  # a whole game's moves, not an empty record
