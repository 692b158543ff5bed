"""The product's first promise: no private fact (status, unsubmitted roll, dice held, discarded
or drawn cards) reaches the kiosk's screen or any public endpoint before the game is over.

Whole games are played through the Room while the real kiosk (Textual Pilot) and the real web
server run. Everything the kiosk draws after every command, every byte the board stream and the
public GETs send, and the host's payload (its phone's sealed view op, opened) are recorded and
searched. (What a recorder on the Wi-Fi sees of the seats' sealed traffic:
tests/web/test_capture.py.)
"""
import asyncio
import json
import random
import socket

import aiohttp

from companion.chance.fair import pledge
from companion.core.host import TableHost
from companion.lang import LANGS, text
from companion.lang.facts import extra_values, fact_key
from companion.lang.words import Words
from companion.core.room import Room
from companion.tools.simulate import choice_for
from companion.core.store import EventStore
from companion.web.client import SealedPhone
from companion.web.sealing import phone_id
from hardware.source import KeyboardSource
from leaks import Secrets, check_fair_secrets, check_public_view, fair_secrets, public_cards
from screens.app import KioskApp
from screens.capture import screen_text

NAMES = ["Ana", "Ben", "Cai", "Dee", "Eli", "Fay", "Gus"]
GAMES = [(4, 23, (), "en"), (7, 22, ("telepathic_infected",), "es"),
         (5, 24, ("shadow_corporation", "company_man_module", "threats_module"), "es")]
FAIR = {23}  # dealt fair (no seed), so there is a secret to keep; its moves are still seeded


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def card_names(cards: set, lang: str) -> set:
    names = set()
    for card in cards:
        for kind in ("task", "event"):
            try:
                names.add(text(lang, f"game.{kind}.{card}"))
            except KeyError:
                pass
    return names


def public_card_ids(facts: list) -> set:
    """Every card a public fact has named (chosen tasks, placed events, ...)."""
    return {f["card"] for f in facts if "to" not in f and isinstance(f.get("card"), str)}


def check_kiosk_text(g, shown: str, secrets: Secrets, lang: str, facts: list) -> None:
    # Cards only some seat saw (drawn, discarded, sent to the bottom) that were never public.
    # Several cards share a name (two "Outpost Malfunction"s): a name is a leak only if no
    # public card bears it.
    public = public_cards(g) | public_card_ids(facts)
    hidden_cards = set().union(*secrets.cards) - public
    leaked = card_names(hidden_cards, lang) - card_names(public, lang)
    leaked = {name for name in leaked if name in shown}
    assert not leaked, f"the kiosk shows private cards: {leaked}"
    # Shadow Corporation: a corporation roll, and the dice never shown, are their roller's.
    w = Words(lang, {"seats": [{"name": seat.name} for seat in g.seats]})
    for f in facts:
        if "to" in f and f["k"] in ("corporation_rolled", "corporation_unseen"):
            sentence = w(fact_key(f), **{**w.values(f), **extra_values(w, f)})
            assert sentence not in shown, f"the kiosk shows a private corporation roll: {f}"
    # Each infected status card is unique: its name on screen tells whose it is.
    for seat in g.seats:  # and the Company Man's card, which is never revealed
        if not seat.revealed and (seat.infected or seat.status == "company_man"):
            name = text(lang, f"game.status.{seat.status}")
            assert name not in shown, f"the kiosk shows the hidden status {name}"


async def read_stream(session, url: str, into: list) -> None:
    async with session.get(url) as response:
        event = None
        async for raw in response.content:
            line = raw.decode().rstrip("\n")
            if line.startswith("event: "):
                event = line[7:]
            elif line.startswith("data: ") and event == "view":
                into.append(line[6:])


async def play_and_record(tmp_path, players, seed, variants, lang):
    room = Room(EventStore(tmp_path / f"g{seed}.db"), seed=None if seed in FAIR else seed)
    await room.new_game({"names": NAMES[:players], "variants": list(variants)}, lang=lang)
    commit = room.lobby["fair"]["commitment"]
    values = [f"{i:02x}" * 32 for i in range(players)]  # each phone's bytes, pledged
    for i, seat in enumerate(room.lobby["seats"]):
        await room.claim_seat(seat["token"], phone_id(f"phone-{i}"), commit,
                              pledge(commit, values[i]))
    await room.claim_host(room.host_token, phone_id("phone-0"))  # seat 0's phone hosts
    await room.start()  # the reveal opens; the last phone's reveal deals
    for i, seat in enumerate(room.lobby["seats"]):
        await room.reveal(seat["token"], phone_id(f"phone-{i}"), commit, values[i])
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    app = KioskApp(TableHost(room, buttons=KeyboardSource(), port=port,
                             listen_host="127.0.0.1"), base_url=base)
    secrets = Secrets(players)
    secrets.add(room.table.facts)
    states = {room.table.state_id: room.table.state.clone()}
    frames, polled, streamed = 0, [], []
    rng = random.Random(seed)
    async with app.run_test(size=(120, 36)) as pilot:
        await app.serving.wait()  # the phones' server starts after the first frame
        async with aiohttp.ClientSession() as http, aiohttp.ClientSession() as viewer:
            host = SealedPhone(http, base, room.host_token, phone="phone-0")
            reader = asyncio.create_task(read_stream(viewer, f"{base}/api/board/events",
                                                     streamed))
            while not room.table.over:
                g = room.table.state
                seat = rng.choice(g.pending.seats)
                seen = len(room.table.facts)
                await room.submit(seat, choice_for(g, seat, rng))
                secrets.add(room.table.facts[seen:])
                g = room.table.state
                states[g.state_id] = g.clone()
                if g.outcome is not None:
                    break
                await pilot.pause()
                shown = screen_text(app)
                assert g.seats[0].name in shown, "the kiosk should be showing the board"
                check_kiosk_text(g, shown, secrets, lang, room.table.facts)
                check_fair_secrets(shown, fair_secrets(room))
                kiosk = room.kiosk_view()["game"]
                check_public_view(g, kiosk, json.dumps(kiosk))
                frames += 1
                if frames % 5 == 0:
                    async with viewer.get(f"{base}/api/board") as response:
                        assert response.status == 200
                        polled.append(await response.text())
                    polled.append(json.dumps(await host.ok("view"), ensure_ascii=False))
            await asyncio.sleep(0.2)  # let the stream deliver the last views
            reader.cancel()
        await pilot.pause()
        final = screen_text(app)
    return room, states, secrets, frames, polled, streamed, final


async def test_no_private_fact_reaches_the_kiosk_or_the_public_endpoints(tmp_path):
    for players, seed, variants, lang in GAMES:
        room, states, secrets, frames, polled, streamed, final = await play_and_record(
            tmp_path, players, seed, variants, lang)
        # After the game nothing is secret: the kiosk shows every status.
        for seat in room.table.state.seats:
            assert text(lang, f"game.status.{seat.status}") in final
        assert frames > 20 and polled and len(streamed) > 10
        if "shadow_corporation" in variants:  # the check above had corporation rolls to keep
            assert any(f["k"] == "corporation_unseen" for f in room.table.facts)
        assert secrets.facts > players  # statuses dealt, rolls: there were secrets to keep
        for body in polled + streamed:
            payload = json.loads(body)
            view = payload["view"]
            g = states[view["state_id"]]
            if g.outcome is None:
                check_public_view(g, view, json.dumps(view))
                # private rolls: neither a seat's roll in progress nor a "rolled" fact
                assert '"rolled"' not in json.dumps(view)
                for line in payload["text"]["log"] + payload["text"]["mirror"]:
                    check_kiosk_text(g, line, secrets, lang, room.table.facts)
                assert not any(s["token"] in body for s in room.lobby["seats"])
                check_fair_secrets(body, fair_secrets(room))
        if seed in FAIR:  # the kiosk showed the commitment the game was dealt from, whole
            dealt = room.room_view()["fair"]["commitment"]
            assert any(dealt in json.dumps(json.loads(b)["room"]) for b in polled)


def test_status_names_differ_per_infected_card():
    # The kiosk check above relies on each infected card having its own name.
    for lang in LANGS:
        names = [text(lang, f"game.status.{s}") for s in
                 ("infected_shields", "infected_outpost", "infected_life_support")]
        assert len(set(names)) == 3


def test_the_kiosk_check_finds_a_planted_status_and_a_planted_card():
    # The checks above would pass on a blank screen; they must catch what they look for.
    from companion.darkmoon import Setup, replay, start
    events = start(Setup(tuple(NAMES[:5])), random.Random(4))
    g = replay(events)
    secrets = Secrets(5)
    secrets.add(events[0]["facts"])
    infected = next(s for s in g.seats if s.infected)
    planted = f"Ana  {text('en', f'game.status.{infected.status}')}"
    try:
        check_kiosk_text(g, planted, secrets, "en", events[0]["facts"])
    except AssertionError:
        pass
    else:
        raise AssertionError("a hidden status on the kiosk went unnoticed")
    secrets.add([{"k": "task_discarded", "to": [0], "seat": 0, "cards": ["shield_5"]}])
    name = text("en", "game.task.shield_5")
    try:
        check_kiosk_text(g, f"log: {name}", secrets, "en", events[0]["facts"])
    except AssertionError:
        pass
    else:
        raise AssertionError("a discarded card on the kiosk went unnoticed")


def test_the_fair_check_finds_a_planted_secret_even_upper_case_and_wrapped():
    secret = "0123456789abcdef" * 4
    for planted in (f"x{secret}x", secret.upper(), f"{secret[:40]}\n{secret[40:]}"):
        try:
            check_fair_secrets(planted, [secret])
        except AssertionError:
            continue
        raise AssertionError(f"a planted secret went unnoticed: {planted!r}")
    check_fair_secrets("nothing here", [secret])
