"""What a player who knows the Wi-Fi password and records every packet learns: nothing private.

A real server on a loopback port, and in front of it a TCP relay on another port that keeps
every byte in both directions, as a laptop on the table's Wi-Fi would capture them. Whole
games are played through the relay with sealed phones: one per seat with its stream open, the
host's phone (which also holds seat 0, as a host who plays does), and the table code's phone
that lists the seats; the board is read in plain, as anyone may. Then the capture is searched
for every code, phone secret, session key, unrevealed status card, private fact (a roll, a
draw, a threat card, a corporation roll), roll in progress and ballot of the game, and
for the old seat cookie. Before the seal, a seat's status card, its roll and its ballot went
over the air as plain JSON, and the seat codes were in every request's path.

So that the search cannot pass by finding nothing anywhere, every game secret searched for is
also found in what the phones opened, and the board's public payload is found in the capture.
The capture also shows every sealed message's length: a whole number of 1,024-byte blocks
(and the tag, and a request's session id and counter), the same for every seat asking the
same thing.
"""
from __future__ import annotations

import asyncio
import json
import random
from collections import Counter, defaultdict

import aiohttp
import pytest

from companion.core.room import Room
from companion.core.store import EventStore
from companion.darkmoon.data import COMPANY_MAN_MODULE, SHADOW_CORPORATION, THREATS_MODULE
from companion.web.client import SealedPhone
from companion.web.padding import TOLD_TO_A_SECRET_SET
from companion.web.sealing import BLOCK, TAG_BYTES, b64url, phone_id, unb64url
from companion.web.server import start_server
from leaks import public_cards
from table_play import call_votes, next_move

WAIT = 10  # seconds: only a guard against a hang, never a measure of speed
ENVELOPE = 16 + 8  # a sealed request's session id and counter, before its sealed bytes
PRIVATE_CARD_FACTS = ("tasks_drawn", "task_discarded", "events_drawn", "event_bottom",
                      "event_discarded")


def compact(value) -> str:
    """JSON as the server and the client write it."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


# --- the recorder on the Wi-Fi ----------------------------------------------------------

class Recorder:
    """A TCP relay in front of the server that keeps every byte of every connection, each
    direction apart: (to the Pi, from the Pi) per connection, in the order they opened."""

    def __init__(self, target: int):
        self.target = target
        self.links: list[tuple[bytearray, bytearray]] = []
        self.writers: list[asyncio.StreamWriter] = []
        self.server: asyncio.AbstractServer | None = None

    async def start(self) -> str:
        self.server = await asyncio.start_server(self._link, "127.0.0.1", 0)
        return f"http://127.0.0.1:{self.server.sockets[0].getsockname()[1]}"

    async def _link(self, reader, writer) -> None:
        up, down = bytearray(), bytearray()
        self.links.append((up, down))
        pi_reader, pi_writer = await asyncio.open_connection("127.0.0.1", self.target)
        self.writers += [writer, pi_writer]
        await asyncio.gather(self._pump(reader, pi_writer, up),
                             self._pump(pi_reader, writer, down), return_exceptions=True)

    @staticmethod
    async def _pump(source, sink, kept: bytearray) -> None:
        try:
            while data := await source.read(65536):
                kept += data
                sink.write(data)
                await sink.drain()
        finally:
            sink.close()

    def everything(self) -> bytes:
        return b"".join(bytes(up) + bytes(down) for up, down in self.links)

    async def close(self) -> None:
        self.server.close()
        for writer in self.writers:
            writer.close()
        await asyncio.sleep(0)


# --- HTTP/1.1 as it went over the air ---------------------------------------------------

def messages(data: bytes, requests: bool) -> list[tuple[str, dict, bytes]]:
    """(first line, headers, body) of every message one direction of a connection holds; a
    body cut off by the end of the capture (an open stream) is kept as far as it came."""
    found, at = [], 0
    while at < len(data):
        end = data.find(b"\r\n\r\n", at)
        if end < 0:
            break
        first, *lines = data[at:end].decode("latin-1").split("\r\n")
        headers = {k.strip().lower(): v.strip() for k, _, v in (ln.partition(":") for ln in lines)}
        at = end + 4
        if "content-length" in headers:
            size = int(headers["content-length"])
            body, at = data[at:at + size], at + size
        elif headers.get("transfer-encoding", "").lower() == "chunked":
            body = bytearray()
            while at < len(data):
                line_end = data.find(b"\r\n", at)
                if line_end < 0:
                    at = len(data)
                    break
                size = int(data[at:line_end].split(b";")[0], 16)
                at = line_end + 2
                body += data[at:at + size]
                at += size + 2
                if size == 0:
                    break
            body = bytes(body)
        elif requests:
            body = b""
        else:  # to the end of the connection
            body, at = data[at:], len(data)
        found.append((first, headers, body))
    return found


def exchanges(recorder: Recorder) -> list[tuple[str, dict, bytes, str, dict, bytes]]:
    """Every request with its answer (HTTP/1.1 answers in order on a connection)."""
    pairs = []
    for up, down in recorder.links:
        asked, answered = messages(bytes(up), True), messages(bytes(down), False)
        for (line, headers, body), (status, a_headers, a_body) in zip(asked, answered):
            pairs.append((line, headers, body, status, a_headers, a_body))
    return pairs


def blocks(size: int) -> bool:
    """A whole number of blocks, at least one, and the tag."""
    return size >= BLOCK + TAG_BYTES and (size - TAG_BYTES) % BLOCK == 0


# --- the table of phones ---------------------------------------------------------------

class Live:
    """A phone's sealed stream read in the background: every message as the phone opened it."""

    def __init__(self, phone: SealedPhone):
        self.opened: list[dict] = []
        self.arrived = asyncio.Event()
        self.task = asyncio.create_task(self._read(phone))

    async def _read(self, phone: SealedPhone) -> None:
        async for message in phone.events():
            self.opened.append(message)
            self.arrived.set()

    async def at(self, state_id: int) -> dict:
        """The first view showing `state_id` or later."""
        async def seen():
            while True:
                for message in self.opened:
                    view = (message.get("view") or {}).get("view") or {}
                    if view.get("state_id", -1) >= state_id:
                        return message["view"]
                if self.task.done():
                    self.task.result()
                    raise AssertionError("the stream ended")
                self.arrived.clear()
                await self.arrived.wait()
        return await asyncio.wait_for(seen(), WAIT)

    async def close(self) -> None:
        self.task.cancel()
        await asyncio.gather(self.task, return_exceptions=True)


class Table:
    """What the test knows and keeps: the phones, what they opened, what must stay secret."""

    def __init__(self, room: Room, http: aiohttp.ClientSession, base: str):
        self.room, self.http, self.base = room, http, base
        self.host = SealedPhone(http, base, room.host_token)
        self.phones: list[SealedPhone] = []
        self.extra: list[SealedPhone] = []  # the table code's phone
        self.lives: list[Live] = []
        self.opened: list[str] = []   # the answers' and messages' plaintexts, as JSON
        self.keys: set[bytes] = set()
        self.ballots: set[str] = set()
        self.boards: list[bytes] = []
        self.same_op: dict[str, set[tuple[int, int]]] = {}  # op -> {(request, answer) lengths}

    def every_phone(self) -> list[SealedPhone]:
        return [self.host, *self.phones, *self.extra]

    def keep_keys(self) -> None:
        for phone in self.every_phone():
            self.keys.update(k for k in (phone.k_up, phone.k_down) if k)

    async def ok(self, phone: SealedPhone, op: str, body=None):
        data = await phone.ok(op, body)
        self.opened.append(compact(data))
        self.keep_keys()
        return data

    async def alike(self, op: str, body=None, phones=None, told=lambda seat: "") -> list:
        """Each phone asks `op` at the same moment, sealed by hand: the lengths the capture
        shows of the requests and answers, kept to compare among seats `told` alike; the
        answers opened."""
        answers = []
        for phone in phones or self.phones:
            key = f"{op} {told(self.phones.index(phone))}"
            counter, sealed = phone.sealed_request(op, body)
            status, raw = await phone.post_sealed(sealed)
            assert status == 200, raw
            answer = phone.open_answer(counter, raw)
            self.opened.append(compact(answer.data))
            self.same_op.setdefault(key, set()).add((len(sealed), len(raw)))
            answers.append(answer)
        return answers

    async def board(self) -> None:
        async with self.http.get(f"{self.base}/api/board") as response:
            assert response.status == 200
            self.boards.append(await response.read())


def told(room: Room):
    """told(seat) -> the kinds of private facts the seat was told in public view of the
    table (a roll, a draw): seats told alike get answers of one length
    (tests/web/test_payload_lengths.py)."""
    def shape(seat: int) -> str:
        g, count = room.table.snapshot()
        kinds = Counter(f["k"] for _, f in room.table.own_facts(seat, count)
                        if f["k"] not in TOLD_TO_A_SECRET_SET)
        return f"at {g.state_id}: {compact(sorted(kinds.items()))}"
    return shape


async def play_whole_game(table: Table, setup: dict, seed: int) -> dict:
    """Set up through the host's phone, seat a phone per seat (their codes listed by the
    table code's phone), play to the end; returns what had to stay secret."""
    room, http, base = table.room, table.http, table.base
    told_ = told(room)
    assert await table.ok(table.host, "claim") == {"host": True}
    await table.ok(table.host, "game", {"setup": setup})
    joiner = SealedPhone(http, base, room.kiosk_view()["table_token"])
    table.extra = [joiner]
    listed = await table.ok(joiner, "seats")
    for entry in listed["seats"]:
        # seat 0 is the host's own phone: a host who plays
        phone = SealedPhone(http, base, entry["token"],
                            phone=table.host.phone if entry["seat"] == 0 else None)
        assert await table.ok(phone, "claim") == {"seat": entry["seat"]}
        table.phones.append(phone)
    hosts = await table.alike("host")  # one seat is told the host's code, the rest nothing
    assert [a.data["host"] for a in hosts] == [room.host_token] + [None] * (len(hosts) - 1)
    table.lives = [Live(phone) for phone in table.phones]
    host_live = Live(table.host)
    started = await table.ok(table.host, "start")
    for live in table.lives:
        await live.at(started["state_id"])
    await table.alike("view", told=told_)  # the deal
    dealt = defaultdict(set)
    for seat, s in enumerate(room.table.state.seats):
        dealt[told_(seat)].add(s.infected)
    assert {True, False} in dealt.values(), "Infected and Uninfected seats told alike"
    rng, steps, hidden = random.Random(seed), 0, None
    while not room.table.over:
        g = room.table.state
        # what is still secret before the command that may end the game
        hidden = {"statuses": {s.status for s in g.seats if not s.revealed},
                  "public_cards": public_cards(g)}
        seat, command = next_move(room, rng, call_votes)
        command = {**command, "state_id": room.table.state_id}
        if command["decision"] == "vote":
            table.ballots.add(compact({"decision": "vote", "option": command["option"]})[1:-1])
        if steps % 4 == 0:  # someone taps out of turn: refused, as long as an answer
            other = (seat + 1) % len(table.phones)
            if other not in g.pending.seats:
                await table.alike("command", {"decision": "pass", "state_id": 0},
                                  [table.phones[other]])
        answer = await table.phones[seat].call("command", command)
        assert answer.status == 200, answer.data
        table.opened.append(compact(answer.data))
        steps += 1
        if not room.table.over:
            for live in table.lives:
                await live.at(answer.data["state_id"])
            if steps % 3 == 0:
                await table.board()
                await table.alike("view", told=told_)
    table.keep_keys()
    for live in table.lives:  # the game over reaches every phone
        await live.at(room.table.state_id)
    await host_live.at(room.table.state_id)
    for live in [*table.lives, host_live]:
        table.opened += [compact(m) for m in live.opened]
        await live.close()
    assert steps > 30 and table.boards
    return hidden


def secrets_of(table: Table, hidden: dict) -> dict[str, set[str]]:
    """What the capture must not hold, by kind, as text."""
    room = table.room
    facts = room.table.facts
    public = set()  # every string a public fact (one told to all) ever named
    for fact in facts:
        if "to" not in fact:
            public.update(word for word in json.dumps(fact).split('"') if word)
    private_cards = set()
    for fact in facts:
        if "to" in fact and fact["k"] in PRIVATE_CARD_FACTS:
            private_cards.update(fact["cards"] if "cards" in fact else [fact["card"]])
    views = [json.loads(text) for text in table.opened]
    rolls, ballots, hands = set(), set(), set()
    for message in views:
        you = ((message.get("view") or {}).get("view") or {}).get("you") or {}
        if you.get("rolled"):
            rolls.add(f'"rolled":{compact(you["rolled"])}')
        if you.get("dice"):  # the dice behind the seat's screen
            hands.add(f'"dice":{compact(you["dice"])}')
        if you.get("corporation"):
            rolls.add(f'"corporation":{compact(you["corporation"])}')
        decision = you.get("decision") or {}
        if decision.get("decision") == "vote" and decision.get("chosen"):
            ballots.add(f'"chosen":{compact(decision["chosen"])}')
    codes = {room.host_token, room.kiosk_view()["table_token"],
             *(phone.token for phone in table.phones)}
    secrets = {
        "codes": codes,
        "phone secrets": {phone.phone for phone in table.every_phone()},
        "phone names": {phone_id(phone.phone) for phone in table.every_phone()},
        "session keys": {b64url(key) for key in table.keys},
        "statuses": {f'"{status}"' for status in hidden["statuses"]},
        "private facts": {compact(f) for f in facts if "to" in f},
        "rolls": rolls,
        "dice held": hands,
        "ballots (sent)": table.ballots,
        "ballots (shown)": ballots,
        "private cards": {f'"{card}"' for card in
                          private_cards - public - hidden["public_cards"]},
        "the old seat cookie": {"Set-Cookie", "set-cookie", "dm_phone"},
    }
    return secrets


GAMES = [
    pytest.param({"names": ["Ana", "Ben", "Cai", "Dee", "Eli"]}, 3, id="base"),
    pytest.param({"names": ["Ana", "Ben", "Cai", "Dee", "Eli", "Fay"],
                  "variants": [SHADOW_CORPORATION, THREATS_MODULE, COMPANY_MAN_MODULE]}, 4,
                 id="shadow-corporation-both-modules"),
]


@pytest.mark.parametrize("setup, seed", GAMES)
async def test_a_recorded_game_holds_no_secret_and_every_length_is_blocks(tmp_path, setup,
                                                                           seed):
    store = EventStore(tmp_path / "g.db")
    room = Room(store, seed=seed, bot_delay=0)
    room.attach(asyncio.get_running_loop())
    runner = await start_server(room, "127.0.0.1", 0)
    recorder = Recorder(runner.addresses[0][1])
    base = await recorder.start()
    try:
        async with aiohttp.ClientSession() as http:
            table = Table(room, http, base)
            hidden = await play_whole_game(table, setup, seed)
        capture = recorder.everything()
        pairs = exchanges(recorder)
    finally:
        await recorder.close()
        await runner.cleanup()
        await room.close()
        store.close()

    # --- nothing secret in the capture, and every game secret is one the phones opened ---
    opened = "\n".join(table.opened)
    searched = secrets_of(table, hidden)
    for kind, needles in searched.items():
        assert needles or kind in ("rolls", "ballots (shown)", "ballots (sent)"), kind
        for needle in needles:
            assert needle.encode() not in capture, f"the capture holds {kind}: {needle}"
    print(f"\n{len(capture)} bytes captured; searched for: "
          + ", ".join(f"{len(needles)} {kind}" for kind, needles in searched.items()))
    for key in table.keys:
        assert key not in capture, "the capture holds a session key"
    for kind in ("statuses", "private facts", "rolls", "dice held", "ballots (shown)",
                 "private cards"):
        found = [n for n in searched[kind] if n in opened]
        assert found, f"the phones opened no {kind}: the search would miss a leak"
        if kind in ("statuses", "private facts"):  # each seat reads its own
            assert set(found) == searched[kind], f"{kind} no phone opened"
    assert searched["rolls"] and searched["ballots (sent)"], "no roll or vote to keep secret"
    codes_opened = [code for code in searched["codes"] if code in opened]
    assert table.room.host_token in codes_opened and len(codes_opened) > 2, \
        "the codes the phones opened (the seat list, the host's code) travel only sealed"
    # What anyone may see went over the air as it was: the search does see plain text.
    assert all(board in capture for board in table.boards)
    assert b'"seats"' in capture and b"Ana" in capture

    # --- every sealed message is whole blocks long, the same for every seat ---
    sealed = [p for p in pairs if p[0].startswith("POST /api/sealed ")]
    assert len(sealed) > 50
    for line, headers, body, status, _, answer in sealed:
        assert status.startswith("HTTP/1.1 200"), status
        assert blocks(len(body) - ENVELOPE), (line, len(body))
        assert blocks(len(answer)), (line, len(answer))
    streams = [p for p in pairs if p[0].startswith("GET /api/sealed/events?t=")]
    assert len(streams) == len(table.phones) + 1
    for line, _, _, status, _, answer in streams:
        ticket = line.split("t=", 1)[1].split()[0].split("&")[0]
        assert blocks(len(unb64url(ticket)) - ENVELOPE)
        data = [ln[6:] for ln in answer.decode().split("\n") if ln.startswith("data: ")]
        assert len(data) > 10
        assert all(blocks(len(unb64url(d))) for d in data)
    for op, lengths in table.same_op.items():
        assert len(lengths) <= 1, f"seats' {op} requests or answers differ in length: {lengths}"
    assert {"host", "view"} <= {key.split()[0] for key in table.same_op}
