"""Secrecy on the wire: a whole game played by phones over HTTP (two seats) and demo bots (the
others), with every byte of the public endpoints (the board's GET and stream, the host's GET
and stream) and of the phones' own streams recorded. Before the game is over no public byte
holds a status, dice held, an unsubmitted roll or a private card, and no phone's bytes hold
another seat's secrets; afterwards everything is shown (DESIGN, "The product's promises")."""
import asyncio
import json
import random

from companion.darkmoon.api import apply_event
from companion.lang import text
from leaks import Secrets, check_fair_secrets, check_public_view, check_seat_view, fair_secrets

NAMES = ["Ana", "Ben", "Cai", "Dee", "Eli"]
PHONES = (0, 1)  # seats played through their phones; the others are demo bots


async def play_seat(table, seat: int, stream, rng: random.Random) -> None:
    """A phone that answers whatever its own screen asks, with a random legal option."""
    phone = table.seats[seat][0]
    while True:
        payload = await stream.next_view()
        view = payload["view"]
        if "state_id" not in view:  # the lobby, before the deal
            continue
        if view["outcome"] is not None:
            return
        decision = view["you"]["decision"]
        if decision and decision["options"] and decision["chosen"] is None:
            response = await phone.post(table.seat_url(seat, "/command"), json={
                "decision": decision["decision"], "option": rng.choice(decision["options"]),
                "state_id": view["state_id"]})
            # a bot may have moved first (a vote): the next view asks again
            assert response.status in (200, 409), await response.text()


async def watch(stream, polls: list, poll) -> None:
    """Read a public stream to the end of the game, polling a public GET now and then."""
    views = 0
    while True:
        payload = await stream.next_view()
        views += 1
        if views % 7 == 0:
            polls.append(await (await poll()).read())
        if payload["view"] and payload["view"]["outcome"] is not None:
            return


def payloads(raw: bytes) -> list[dict]:
    """Every `view` message in a recorded event stream."""
    found, event = [], None
    for line in raw.decode().split("\n"):
        if line.startswith("event: "):
            event = line[7:]
        elif line.startswith("data: ") and event == "view":
            found.append(json.loads(line[6:]))
    return found


def keys(value) -> set:
    if isinstance(value, dict):
        return set(value) | set().union(*map(keys, value.values()))
    if isinstance(value, list):
        return set().union(*map(keys, value)) if value else set()
    return set()


def states_of(room) -> dict:
    """The game after every state id, rebuilt from the store."""
    states, g = {}, None
    for records in room.store.load(room.table.game_id):
        for event in records:
            g = apply_event(g, event)
            states[g.state_id] = g.clone()
    return states


async def test_a_whole_game_over_http_keeps_every_secret_until_it_is_over(
        room, set_up_game, open_stream, new_phone):
    table = await set_up_game(NAMES, start=False, claim=False, bots=[2, 3, 4])
    for seat in PHONES:
        phone, token = table.seats[seat]
        assert (await phone.post(f"/api/seat/{token}/claim")).status == 200
    viewer = new_phone()
    board = await open_stream(viewer, "/api/board/events")
    host = await open_stream(table.host, f"{table.host_url}/events")
    seats = {seat: await open_stream(table.seats[seat][0], table.seat_url(seat, "/events"))
             for seat in PHONES}
    polled: list[bytes] = []
    rng = random.Random(3)
    assert (await table.host.post(f"{table.host_url}/start")).status == 200
    await asyncio.gather(
        *(play_seat(table, seat, stream, rng) for seat, stream in seats.items()),
        watch(board, polled, lambda: viewer.get("/api/board")),
        watch(host, polled, lambda: table.host.get(table.host_url)))
    assert room.table.over

    states = states_of(room)
    tokens = [s["token"] for s in room.lobby["seats"]] + [room.host_token]

    def seen_by(seat) -> set:  # the facts an audience may see before the end (None: public)
        return {json.dumps(f, sort_keys=True) for f in room.table.facts
                if "to" not in f or seat in f["to"]}

    allowed_facts = {who: seen_by(None if who == "public" else who)
                     for who in ("public", *PHONES)}
    public = ([(p, "public") for raw in (board.raw, host.raw) for p in payloads(raw)] +
              [(json.loads(body), "public") for body in polled] +
              [(p, seat) for seat, stream in seats.items() for p in payloads(stream.raw)])
    public = [(p, who) for p, who in public if p["view"] and "state_id" in p["view"]]
    public.sort(key=lambda item: item[0]["view"]["state_id"])  # secrets as they arise
    secrets, told = Secrets(len(NAMES)), 0
    checked = 0
    for payload, who in public:
        view = payload["view"]
        g = states[view["state_id"]]
        fresh = [f for f in room.table.facts[told:] if f["seq"] <= view["state_id"]]
        secrets.add(fresh)
        told += len(fresh)
        body = json.dumps(payload)
        assert not any(token in body for token in tokens), "a join code went out"
        check_fair_secrets(body, fair_secrets(room))  # the next game's secret, dealt or not
        if g.outcome is not None:
            continue
        checked += 1
        # The log is checked fact by fact: each one is public or this seat's own. The rest of
        # the view goes through the leak detector. (A card named in the public log may be one
        # no longer in play, which the detector's card check would take for a secret.)
        assert all(json.dumps(f, sort_keys=True) in allowed_facts[who] for f in view["log"])
        bare = {k: v for k, v in view.items() if k != "log"}
        if who == "public":
            assert "you" not in keys(payload) and "to" not in keys(view["log"])
            # the whole payload but the sentences, which are checked for status names below
            check_public_view(g, bare, json.dumps({**payload, "view": bare, "text": None}))
            shown = json.dumps(payload["text"], ensure_ascii=False)
            for s in g.seats:
                if not s.revealed and s.infected:  # each infected card's name is unique
                    assert text(room.lang, f"game.status.{s.status}") not in shown
        else:
            assert all(who in f["to"] for f in view["you"]["private_log"])
            bare["you"] = {k: v for k, v in view["you"].items() if k != "private_log"}
            check_seat_view(g, who, bare, json.dumps({**payload, "view": bare, "text": None}),
                            secrets)
        for s in g.seats:  # a roll not yet submitted, by anyone else (the log is checked)
            if s.rolled and (who == "public" or s is not g.seats[who]):
                assert json.dumps([list(d) for d in s.rolled]) not in json.dumps(bare)
    assert checked > 50 and secrets.facts > len(NAMES)  # there was much to keep secret

    # After the game everything hidden is visible, on the board as on the phones.
    final = room.table.state
    for stream in (board, host, *seats.values()):
        last = payloads(stream.raw)[-1]["view"]
        assert [s["status"] for s in last["seats"]] == [s.status for s in final.seats]
        assert [s["dice"] for s in last["seats"]] == [s.dice for s in final.seats]
        # the whole log, private facts included (compared as JSON: seat numbers as keys
        # become strings)
        assert last["log"] == json.loads(json.dumps(room.table.facts))
