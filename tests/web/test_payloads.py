"""Each audience's payload is made of parts (companion/web/payloads.py), sent as JSON by the
streams and as a dict by the GET routes. At every command of a whole game and after it, for
every seat, the host and the board, in both languages:

- what a stream sends is the dict form's JSON, byte for byte (and a seat's padding spaces);
- the dict is what the rules and the words say that audience sees: the room, the public board,
  a seat's own screen and every private fact it was told, the latest public facts with its own
  put in among them in order (the whole log once the game is over), and the words
  lang.view_text gives for that whole view.

A part put in the wrong place, shown to a neighbour, or kept from an earlier version would
show here."""
import asyncio
import json
import random

from companion.core.room import Room
from companion.core.store import EventStore
from companion.core.table import LOG_LENGTH
from companion.darkmoon.views import public_view, seat_view
from companion.lang import view_text
from companion.lang.mirror import latest
from companion.tools.simulate import choice_for
from companion.web.encode import dumps
from companion.web.payloads import Payloads, board_payload, host_payload, seat_payload

NAMES = ["Ana", "Ben", "Cai", "Dee", "Eli", "Fay", "Gus"]
LANGS = ("en", "es")


def log_seen(facts: list, seat: int | None, over: bool) -> list:
    """The log an audience sees: the latest LOG_LENGTH public facts and every fact told to
    the seat, in the order they happened; once the game is over, every fact."""
    if over:
        return list(facts)
    window = {id(f) for f in [f for f in facts if "to" not in f][-LOG_LENGTH:]}
    return [f for f in facts if id(f) in window or seat in f.get("to", ())]


def expected_seat(room: Room, seat: int, lang: str) -> dict:
    if room.table is None:
        return {"room": room.room_view(), "view": {"lobby": room.room_view(),
                                                  "you": {"seat": seat}}, "text": None}
    g, count = room.table.snapshot()
    facts = room.table.facts[:count]
    view = seat_view(g, seat)
    view["you"]["private_log"] = [f for f in facts if seat in f.get("to", ())]
    view["log"] = log_seen(facts, seat, g.outcome is not None)
    return {"room": room.room_view(), "view": view, "text": view_text(view, lang)}


def expected_public(room: Room, lang: str, can_start) -> dict:
    if room.table is None:
        return {"room": room.room_view(), "view": None, "text": None, "can_start": can_start}
    g, count = room.table.snapshot()
    view = public_view(g)
    view["log"] = log_seen(room.table.facts[:count], None, g.outcome is not None)
    return {"room": room.room_view(), "view": view, "text": view_text(view, lang),
            "can_start": can_start}


def assert_sent(sent: bytes, plain: dict, expected: dict) -> None:
    """The stream's bytes are the dict form's JSON (a seat's padded with spaces, which JSON
    ignores), and the dict form is what the audience should see."""
    assert plain == expected
    assert sent.rstrip(b" ") == dumps(plain).encode()
    # as the page reads it (a vote's ballots are keyed by seat numbers: JSON makes strings)
    assert json.loads(sent) == json.loads(dumps(expected))


def check_all(room: Room, payloads: Payloads, langs=LANGS) -> None:
    for lang in langs:
        for seat in range(len(NAMES)):
            assert_sent(payloads.seat(seat, lang), seat_payload(room, seat, lang),
                        expected_seat(room, seat, lang))
        assert_sent(payloads.host(lang), host_payload(room, lang),
                    expected_public(room, lang, room.can_start))
        assert_sent(payloads.board(lang), board_payload(room, lang),
                    expected_public(room, lang, None))


async def test_every_audiences_payload_is_what_it_should_see_in_both_forms(tmp_path):
    store = EventStore(tmp_path / "g.db")
    room = Room(store, seed=22, bot_delay=0)
    room.attach(asyncio.get_running_loop())
    payloads = Payloads(room)  # one for the whole game: each version must replace the last
    try:
        await room.new_game({"names": NAMES, "variants": ["telepathic_infected"]})
        check_all(room, payloads)  # the lobby: no game yet
        for i, seat in enumerate(room.lobby["seats"]):
            await room.claim_seat(seat["token"], f"phone-{i}")
        check_all(room, payloads)  # every seat claimed: the host may start
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
            if sum("to" not in f for f in room.table.facts[:count]) > LOG_LENGTH:
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
