"""Secrecy on the wire: a whole game played by phones over HTTP (two seats) and demo bots (the
others), with every byte of the public endpoints (the board's GET and stream, the host's GET
and stream) and of the phones' own streams recorded. Before the game is over nothing the
board or the host's page reads holds a status, dice held, an unsubmitted roll or a private
card, and nothing a phone reads holds another seat's secrets; afterwards everything is shown
(DESIGN, "The product's promises").

The host's and the seats' traffic is sealed (tests/web/phone.py opens it as a phone does):
what their pages read is checked as above, opened; what crossed the Wi-Fi is checked to be
noise: whole sealed blocks, no code, no phone secret, no word of a view."""
import asyncio
import json
import random
import re

from companion.darkmoon.api import apply_event
from companion.lang import text
from companion.web.sealing import unb64url
from leaks import Secrets, check_fair_secrets, check_public_view, check_seat_view, fair_secrets
from phone import sealed_size_ok

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


async def watch(stream, polls: list, poll, wires: list | None = None) -> None:
    """Read a stream to the end of the game, polling a GET now and then: what it read into
    `polls`, and (a sealed answer) what crossed the Wi-Fi into `wires`."""
    views = 0
    while True:
        payload = await stream.next_view()
        views += 1
        if views % 7 == 0:
            response = await poll()
            polls.append(await response.read())
            if wires is not None and getattr(response, "sealed", False):
                wires.append(response.wire)
        if payload["view"] and payload["view"]["outcome"] is not None:
            return


def payloads(stream) -> list[dict]:
    """Every `view` a stream gave: a sealed stream's opened messages (what the phone
    read), a plain stream's `view` events."""
    if hasattr(stream, "messages"):
        return [m["view"] for m in stream.messages if "view" in m]
    found, event = [], None
    for line in bytes(stream.raw).decode().split("\n"):
        if line.startswith("event: "):
            event = line[7:]
        elif line.startswith("data: ") and event == "view":
            found.append(json.loads(line[6:]))
    return found


SEALED_LINE = re.compile(rb"(retry: \d+|: ping|event: m|data: [A-Za-z0-9+/]+=*|)")


def check_sealed_stream(raw: bytes, hidden: list[str]) -> None:
    """A sealed stream as the Wi-Fi carries it: event-stream framing around base64, and
    not one of `hidden` (codes, phone secrets) in it; every message whole sealed blocks."""
    for line in raw.split(b"\n"):
        assert SEALED_LINE.fullmatch(line), line[:80]
    for message in re.findall(rb"data: ([A-Za-z0-9+/]+=*)", raw):
        assert sealed_size_ok(len(unb64url(message.decode()))), len(message)
    for secret in hidden:
        assert secret.encode() not in raw, "a secret crossed the Wi-Fi"


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
    wires: list[bytes] = []
    rng = random.Random(3)
    assert (await table.host.post(f"{table.host_url}/start")).status == 200
    await asyncio.gather(
        *(play_seat(table, seat, stream, rng) for seat, stream in seats.items()),
        watch(board, polled, lambda: viewer.get("/api/board")),
        watch(host, polled, lambda: table.host.get(table.host_url), wires))
    assert room.table.over

    states = states_of(room)
    tokens = [s["token"] for s in room.lobby["seats"]] + [room.host_token]
    # On the Wi-Fi, the sealed streams and answers: no code, no phone's secret (nor its
    # name), nothing of a view, nothing of fair dealing, even once the game is over.
    phones = [p.phone for p in (table.host, *(table.seats[s][0] for s in PHONES))]
    hidden = tokens + [room.kiosk_view()["table_token"]] + phones + [
        p.phone_id for p in (table.host, *(table.seats[s][0] for s in PHONES))]
    for stream in (host, *seats.values()):
        check_sealed_stream(bytes(stream.raw), hidden)
        check_fair_secrets(bytes(stream.raw).decode(), fair_secrets(room))
    assert len(wires) > 3
    for wire in wires:
        assert sealed_size_ok(len(wire)) and not any(h.encode() in wire for h in hidden)
        assert b"state_id" not in wire and b"status" not in wire

    def seen_by(seat) -> set:  # the facts an audience may see before the end (None: public)
        return {json.dumps(f, sort_keys=True) for f in room.table.facts
                if "to" not in f or seat in f["to"]}

    allowed_facts = {who: seen_by(None if who == "public" else who)
                     for who in ("public", *PHONES)}
    public = ([(p, "public") for stream in (board, host) for p in payloads(stream)] +
              [(json.loads(body), "public") for body in polled] +
              [(p, seat) for seat, stream in seats.items() for p in payloads(stream)])
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
        assert not any(secret in body for secret in phones), "a phone's secret went out"
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
        last = payloads(stream)[-1]["view"]
        assert [s["status"] for s in last["seats"]] == [s.status for s in final.seats]
        assert [s["dice"] for s in last["seats"]] == [s.dice for s in final.seats]
        # the whole log, private facts included (compared as JSON: seat numbers as keys
        # become strings)
        assert last["log"] == json.loads(json.dumps(room.table.facts))
