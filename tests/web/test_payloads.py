"""The streams' payloads are spliced from pieces every audience shares (companion/web/payloads.py):
whatever a phone, the host or the board is sent must be exactly what the plain build of its
payload gives (the GET routes' answer), for every seat, in both languages, at every command of
a whole game and after it. A splice that put a seat's private fact in the wrong place, showed
it to a neighbour, or kept an old version's piece, would show here."""
import asyncio
import json
import random

from companion.lang.mirror import latest
from companion.core.room import Room
from companion.tools.simulate import choice_for
from companion.core.store import EventStore
from companion.web.encode import dumps
from companion.web.payloads import Payloads, board_payload, host_payload, seat_payload

NAMES = ["Ana", "Ben", "Cai", "Dee", "Eli", "Fay", "Gus"]
LANGS = ("en", "es")


def assert_same(sent: bytes, plain: dict) -> None:
    """What the page parses is what the plain payload gives through JSON (a vote's ballots
    are keyed by seat numbers, which JSON makes strings), byte for byte."""
    expected = dumps(plain)
    assert json.loads(sent) == json.loads(expected)
    assert sent.rstrip(b" ") == expected.encode()  # a seat's padding (web/padding.py)


def check_all(room: Room, payloads: Payloads, langs=LANGS) -> None:
    for lang in langs:
        for seat in range(len(NAMES)):
            assert_same(payloads.seat(seat, lang), seat_payload(room, seat, lang))
        assert_same(payloads.host(lang), host_payload(room, lang))
        assert_same(payloads.board(lang), board_payload(room, lang))


async def test_every_audiences_spliced_payload_is_its_plain_payload(tmp_path):
    store = EventStore(tmp_path / "g.db")
    room = Room(store, seed=22, bot_delay=0)
    room.attach(asyncio.get_running_loop())
    payloads = Payloads(room)  # one for the whole game: each version must replace the last
    try:
        await room.new_game({"names": NAMES, "variants": ["telepathic_infected"]})
        check_all(room, payloads)  # the lobby: no game yet
        for i, seat in enumerate(room.lobby["seats"]):
            await room.claim_seat(seat["token"], f"phone-{i}")
        await room.start()
        g = room.table.state
        infected = [i for i, s in enumerate(g.seats) if s.infected]
        assert len(infected) >= 2  # Telepathic Infected: they know each other
        rng, seen = random.Random(3), set()
        while not room.table.over:
            g, count = room.table.snapshot()
            check_all(room, payloads, [LANGS[g.state_id % 2]])  # each language every other
            for seat in range(len(NAMES)):
                own = [f for _, f in room.table.own_facts(seat, count)]
                if own:
                    seen.add("private facts")
                if latest(own, g.state_id):
                    seen.add("a private fact in the latest command")  # the seat's own mirror
                if seat in infected and own:
                    seen.add("an Infected seat's private facts")
            if sum("to" not in f for f in room.table.facts[:count]) > 60:
                seen.add("a log longer than its window")
            seat = rng.choice(g.pending.seats)
            await room.submit(seat, choice_for(g, seat, rng))
        check_all(room, payloads)  # after the game: the whole log, every secret, to everyone
        assert seen == {"private facts", "a private fact in the latest command",
                        "an Infected seat's private facts", "a log longer than its window"}
        sent = json.loads(payloads.seat(infected[0], "es"))
        assert sent["view"]["you"]["infected_team"] == infected
        assert sent["view"]["outcome"] is not None
    finally:
        await room.close()
        store.close()
