"""What a seat's phone is sent is as long whatever the seat's secrets (companion/web/padding.py).

WPA2 hides the contents of a phone's traffic, not the length of each message: a device near
the table that counts bytes must learn nothing of a seat's status card, the dice behind its
screen, its private roll or the cards it drew. So, through whole games of the base game and
the expansion:

- the same moment of a game, with one seat's secrets made other ones (every status it could
  have been dealt, its roll as its longest and shortest faces, its dice all strong or all weak,
  the longest and shortest cards it could have drawn), gives that seat a message of the same
  length;
- through the real server, sealed, the first message after the deal is as long for every
  seat, and at every later moment seats that were told privately of the same public happenings
  get payloads of one length, and sealed messages of one length, on their streams and on a GET
  (the view op) alike;
- in random games of every variant, module, player count and kind of bot, in both languages,
  no seat's own part ever outgrows the room set aside for it.
"""
from __future__ import annotations

import asyncio
import copy
import logging
import random
from collections import Counter, defaultdict

import pytest

from companion.darkmoon.data import (COMMANDER, COMPANY_MAN, COMPANY_MAN_MODULE, CORPORATION,
                                     EVENTS, FACES, INFECTED_CARDS, INFECTED_CLEARANCE,
                                     MIN_PLAYERS_FOR, SHADOW_CORPORATION, STRONG, TASKS,
                                     THREAT_CARDS, THREATS_MODULE, UNINFECTED, VARIANTS, WEAK)
from companion.darkmoon.dice import submit_options
from companion.core.room import Room
from companion.tools.simulate import bot_choice, choice_for
from companion.core.store import EventStore
from companion.web.padding import TOLD_TO_A_SECRET_SET
from companion.web.sealing import KIND_RESPONSE, nonce, open_sealed, unb64url
from companion.web.payloads import Parts, Payloads

NAMES = ["Ana", "Ben", "Cai", "Dee", "Eli", "Fay", "Gus"]
EXPANSION = (SHADOW_CORPORATION, COMPANY_MAN_MODULE, THREATS_MODULE)


@pytest.fixture(autouse=True)
def no_outgrown_padding(caplog):
    """A seat's part that outgrew its room is sent longer, and said in the Pi's log."""
    caplog.set_level(logging.ERROR, logger="companion.web.padding")
    yield
    assert not [r for r in caplog.records if r.name == "companion.web.padding"]


def fits(players: int, variants: tuple) -> list:
    return [v for v in variants if players >= MIN_PLAYERS_FOR.get(v, 0)]


async def seated(tmp_path, players: int, variants, seed: int) -> Room:
    room = Room(EventStore(tmp_path / f"g{seed}.db"), seed=seed, bot_delay=0)
    room.attach(asyncio.get_running_loop())
    await room.new_game({"names": NAMES[:players], "variants": fits(players, variants)})
    for i, seat in enumerate(room.lobby["seats"]):
        await room.claim_seat(seat["token"], f"phone-{i}")
    await room.start()
    return room


async def move(room: Room, rng: random.Random, bot: str) -> None:
    g = room.table.state
    if bot == "random":
        seat, command = bot_choice(g, rng)
    else:
        seat = rng.choice(g.pending.seats)
        command = choice_for(g, seat, rng)
    await room.submit(seat, command)


async def close(room: Room) -> None:
    await room.close()
    room.store.close()


# --- the same moment with other secrets ---

class Otherwise:
    """The table as it would stand had some secrets been others: the same public facts (so the
    same shared log), private facts replaced where given, each told to whom it names."""

    def __init__(self, table, g, facts: list, count: int):
        self.real, self.g, self.facts, self.count = table, g, facts, count
        self.private = defaultdict(list)
        for place, fact in enumerate(facts[:count]):
            for seat in fact.get("to", ()):
                self.private[seat].append((place, fact))

    def snapshot(self):
        return self.g, self.count

    def shared_log(self, g, count):
        return self.real.shared_log(g, count)

    def own_facts(self, seat, count):
        return [(p, f) for p, f in self.private.get(seat, ()) if p < count]


def statuses_of(g) -> list[str]:
    dealt = [UNINFECTED, *INFECTED_CARDS]
    if g.has(SHADOW_CORPORATION):
        dealt.append(INFECTED_CLEARANCE)
    if g.has(COMPANY_MAN_MODULE):
        dealt.append(COMPANY_MAN)
    return dealt


def extremes(names) -> tuple:
    """The longest and the shortest of some names (cards, faces as text)."""
    ordered = sorted(names, key=lambda n: (len(str(n)), str(n)))
    return ordered[-1], ordered[0]


def other_secrets(g, facts: list, count: int, seat: int):
    """(what was changed, the game, the facts) for each other set of `seat`'s secrets that
    leaves every public thing as it is."""
    def changed(what, change_seat=None, change_fact=None):
        g2 = g.clone()
        if change_seat:
            change_seat(g2)
        facts2 = list(facts)
        for place in range(count):
            fact = facts2[place]
            if change_fact and "to" in fact and (seat in fact["to"] or fact.get("seat") == seat):
                new = change_fact(dict(fact))
                if new is not None:
                    facts2[place] = new
        if any(f["k"] in TOLD_TO_A_SECRET_SET for f in facts2[:count]):
            team = [i for i, s in enumerate(g2.seats) if s.infected]
            facts2 = [dict(f, to=team, seats=team) if f["k"] == "infected_team" else f
                      for f in facts2]
        return what, g2, facts2

    for status in statuses_of(g):
        def as_status(fact, status=status):
            if fact["k"] in ("status_dealt", "status_shown") and fact["seat"] == seat:
                return dict(fact, status=status)
            return None
        yield changed(f"status {status}",
                      lambda g2, status=status: setattr(g2.seats[seat], "status", status),
                      as_status)

    for pick in (0, 1):  # the longest faces, then the shortest
        def face(colour, pick=pick):
            return extremes(FACES[colour])[pick]

        def roll(g2, face=face):
            s = g2.seats[seat]
            s.rolled = [(colour, face(colour)) for colour, _ in s.rolled]
            p = g2.pending
            if p is not None and p.kind == "submit" and seat in p.options:
                p.options[seat] = submit_options(s.rolled, p.data.get("least", 1),
                                                 p.data.get("most", 1))
            if g2.corporation and p is not None and p.kind == "corporation":
                g2.corporation = [face(CORPORATION) for _ in g2.corporation]

        def rolled(fact, face=face):
            if fact["k"] == "rolled":
                return dict(fact, dice=[[c, face(c)] for c, _ in fact["dice"]])
            if fact["k"] == "corporation_rolled":
                return dict(fact, faces=[face(CORPORATION) for _ in fact["faces"]])
            return None
        yield changed(f"faces {pick}", roll, rolled)

    for colour in (STRONG, WEAK):
        def hand(g2, colour=colour):
            dice = g2.seats[seat].dice
            held = dice[STRONG] + dice[WEAK]
            dice.update({STRONG: 0, WEAK: 0, COMMANDER: dice[COMMANDER]})
            dice[colour] = held
        yield changed(f"all {colour}", hand)

    for pick in (0, 1):
        task, event = extremes(TASKS)[pick], extremes(EVENTS)[pick]
        threat = extremes(THREAT_CARDS)[pick]

        def cards(g2, task=task, event=event, threat=threat):
            g2.task_drawn = [task] * len(g2.task_drawn)
            g2.event_drawn = [event] * len(g2.event_drawn)
            if seat in g2.threats:
                g2.threats[seat] = threat

        def drawn(fact, task=task, event=event, threat=threat):
            k = fact["k"]
            if k in ("tasks_drawn", "task_discarded"):
                return dict(fact, cards=[task] * len(fact["cards"]))
            if k == "events_drawn":
                return dict(fact, cards=[event] * len(fact["cards"]))
            if k in ("event_bottom", "event_discarded"):
                return dict(fact, card=event)
            if k == "threat_dealt":
                return dict(fact, threat=threat)
            return None
        yield changed(f"cards {pick}", cards, drawn)


def check_other_secrets(room: Room, parts: Parts, seen: Counter) -> None:
    table, g, count = room.table, parts.g, parts.count
    for seat in range(g.players):
        if g.seats[seat].revealed:
            continue  # its status card is face up for all
        length = len(parts.seat_json(seat))
        for what, g2, facts2 in other_secrets(g, table.facts, count, seat):
            other = copy.copy(parts)
            other.table, other.g = Otherwise(table, g2, facts2, count), g2
            other.told_to_a_secret_set = [f for f in facts2[:count]
                                          if f["k"] in TOLD_TO_A_SECRET_SET]
            assert len(other.seat_json(seat)) == length, (
                f"seat {seat}'s message at state {g.state_id} ({parts.words.lang}) is "
                f"{len(other.seat_json(seat)) - length:+d} bytes with {what}")
            seen[what.split()[0]] += 1


GAMES = [
    pytest.param(5, ("telepathic_infected",), "helpful", 4, id="5p-telepathic-helpful"),
    pytest.param(7, VARIANTS, "random", 5, id="7p-every-variant-random"),
    pytest.param(4, EXPANSION, "helpful", 6, id="4p-expansion-modules-helpful"),
    pytest.param(6, EXPANSION + VARIANTS, "random", 7, id="6p-expansion-variants-random"),
    pytest.param(3, (SHADOW_CORPORATION,), "random", 8, id="3p-expansion-random"),
]


@pytest.mark.parametrize("players, variants, bot, seed", GAMES)
async def test_a_seats_message_is_as_long_whatever_its_secrets(tmp_path, players, variants,
                                                               bot, seed):
    room = await seated(tmp_path, players, variants, seed)
    rng, seen = random.Random(seed), Counter()
    try:
        while not room.table.over:
            g = room.table.state
            if g.state_id % 3 == 0:  # every third moment, in each language by turns
                check_other_secrets(room, Parts(room, ("en", "es")[g.state_id % 2]), seen)
            await move(room, rng, bot)
    finally:
        await close(room)
    assert {"status", "faces", "all", "cards"} <= set(seen)


# --- through the real server ---

def public_shape(table, count: int, seat: int) -> Counter:
    """The kinds of private facts a seat was told: each told in public view of the table (a
    roll, a draw, a card shown), except those told to a secret set of seats, which every seat
    is given room for."""
    return Counter(f["k"] for _, f in table.own_facts(seat, count)
                   if f["k"] not in TOLD_TO_A_SECRET_SET)


@pytest.mark.parametrize("players, variants, seed", [
    pytest.param(5, ("telepathic_infected",), 11, id="base-telepathic"),
    pytest.param(5, EXPANSION, 12, id="expansion-modules"),
])
async def test_streams_and_gets_are_as_long_for_seats_told_alike(
        room, new_phone, open_stream, players, variants, seed):
    await room.new_game({"names": NAMES[:players], "variants": list(variants)})
    phones, tokens = [], room.kiosk_view()["seat_tokens"]
    for seat, token in enumerate(tokens):
        phones.append(new_phone())
        response = await phones[-1].post(f"/api/seat/{token}/claim")
        assert (await response.json()) == {"seat": seat}
    await room.start()
    g = room.table.state
    assert {s.infected for s in g.seats} == {True, False}  # both teams at the table
    urls = [f"/api/seat/{token}" for token in tokens]
    streams = [await open_stream(phone, url + "/events") for phone, url in zip(phones, urls)]
    sealed = [phone.sealed(token) for phone, token in zip(phones, tokens)]
    rng, first, compared = random.Random(seed), True, 0

    async def lengths() -> list[tuple[int, int, int]]:
        """Each seat's next stream message and its GET (the view op): the payload's length
        as the Pi built it, and both sealed lengths as the Wi-Fi carries them."""
        sent = []
        for seat, stream in enumerate(streams):
            await stream.next_view()
            data = bytes(stream.raw).rstrip(b"\n").rsplit(b"\n", 1)[-1]
            assert data.startswith(b"data: "), data[:40]
            message = bytes(stream.plain).rstrip(b"\n").rsplit(b"\n", 1)[-1]
            payload = message[len(b'{"view":'):message.rindex(b',"notices":')]
            counter, request = sealed[seat].sealed_request("view")
            status, raw = await sealed[seat].post_sealed(request)
            assert status == 200
            answer = open_sealed(sealed[seat].k_down, nonce(KIND_RESPONSE, counter),
                                 sealed[seat].sid, raw).rstrip(b" ")
            got = answer[len(b'{"status":200,"body":'):-1]
            assert len(got) == len(payload), "a GET's payload as long as its stream's"
            sent.append((len(payload), len(unb64url(data[6:].decode())), len(raw)))
        return sent

    while True:
        g, count = room.table.snapshot()
        sent = await lengths()
        if g.outcome is not None:
            break
        by_shape, teams = defaultdict(set), defaultdict(set)
        for seat in range(players):
            shape = tuple(sorted(public_shape(room.table, count, seat).items()))
            by_shape[shape].add(sent[seat])  # the payload, the stream's, the GET's
            teams[shape].add(g.seats[seat].infected)
        for shape, sizes in by_shape.items():
            assert len(sizes) == 1, f"state {g.state_id}: seats told {shape} got {sizes}"
        if first:  # the deal: Infected and Uninfected seats told alike, as long
            assert any(len(both) == 2 for both in teams.values()), teams
            first = False
        compared += sum(len(s) > 0 for s in by_shape.values())
        await move(room, rng, "helpful")
    assert compared > 100


# --- the room set aside is enough ---

SETS = {"none": (), "every-variant": VARIANTS, "expansion": (SHADOW_CORPORATION,),
        "expansion-modules": EXPANSION, "expansion-all": EXPANSION + VARIANTS,
        "company-man": (SHADOW_CORPORATION, COMPANY_MAN_MODULE),
        "threats": (SHADOW_CORPORATION, THREATS_MODULE)}


@pytest.mark.parametrize("players", range(3, 8))
async def test_no_seats_part_outgrows_its_room(tmp_path, players):
    """Every variant set, both kinds of bot, both languages, at every moment: the padding's
    log stays silent (the autouse fixture), so no message was sent longer than its room."""
    seed = players * 100
    for name, variants in SETS.items():
        for bot in ("random", "helpful"):
            seed += 1
            room = await seated(tmp_path, players, variants, seed)
            payloads, rng = Payloads(room), random.Random(seed)
            try:
                while not room.table.over:
                    for lang in ("en", "es"):
                        for seat in range(players):
                            payloads.seat(seat, lang)
                    await move(room, rng, bot)
            finally:
                await close(room)
