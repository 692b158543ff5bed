"""The table around the product in the power-cut test: the host's phone, one phone per seat
and a board viewer, all over HTTP (the seats' and the host's sealed, the board's plain); bots
on the phones play whatever their seat's view asks, and a plan says when the power goes.

Kinds of cut (when the SIGKILL lands):
- timer:       a random time into the life, whatever is happening (mostly mid-request)
- mid_request: a few milliseconds after the phones sent a command or a burst of votes
               (before, during or after the fsync, as the dice of the delay fall)
- fsync:       while a thread of the product is inside fsync/fdatasync (SQLite syncing a
               commit), watched in /proc; when no sync is caught in FSYNC_TRIES bursts
               (or the machine's syscall numbers are unknown), like mid_request
- after_ack:   the moment a phone has read a 200, before anything else happens
- idle:        nothing in flight, every screen up to date
- roll:        idle, with some seat holding dice it rolled and has not submitted
"""
from __future__ import annotations

import asyncio
import random
import time
from contextlib import asynccontextmanager
from dataclasses import dataclass

from .bots import Phone, command_for, follow, open_decision, rolls_in_progress, settle
from .ledger import Ledger
from .product import Product

NAMES = ["Ana", "Ben", "Cai", "Dee", "Eli"]
# Refusals a vote burst may meet: the first vote to land moves the game on, so votes sent
# from the same view are stale (their phones vote again on the next view), or the vote is
# over by the time they arrive.
RACE_CODES = {"stale_state", "not_your_decision", "wrong_decision", "illegal_option"}
FSYNC_TRIES = 40  # bursts watched for a sync in progress before the fsync cut gives up


@dataclass(frozen=True)
class Plan:
    kind: str
    at: int = 0          # posts / acks / steps to let pass first
    delay: float = 0.0   # seconds (timer: into the life; mid_request, idle: after the moment)

    @classmethod
    def draw(cls, kind: str, rng: random.Random) -> "Plan":
        if kind == "timer":
            return cls(kind, delay=rng.uniform(0.0, 0.6))
        if kind == "mid_request":
            return cls(kind, at=rng.randint(0, 12), delay=rng.uniform(0.0, 0.006))
        if kind == "idle":
            return cls(kind, at=rng.randint(0, 12), delay=rng.uniform(0.0, 0.05))
        if kind == "roll":
            return cls(kind, at=rng.randint(0, 4))
        return cls(kind, at=rng.randint(0, 12))


class PowerCut(Exception):
    """The plan's moment came: the product is dead."""


@dataclass
class Cut:
    kind: str
    acked: int                       # the last acknowledged state of the game
    inflight: list                   # [(seat, command)] sent and not answered
    seen: dict                       # state_id >= acked -> audience -> payload, before the cut
    shown: dict                      # audience -> the game payload its screen showed at the cut


class Rig:
    def __init__(self, product: Product, rng: random.Random):
        self.product = product
        self.rng = rng
        self.ledger = Ledger()
        langs = ("en", "es")
        self.host = Phone("host", rng.choice(langs))
        self.viewer = Phone("board viewer", rng.choice(langs))
        self.phones = [Phone(f"seat {i}", rng.choice(langs)) for i in range(len(NAMES))]
        self.host_token: str | None = None
        self.seat_tokens: list[str] = []
        self.game_id: int | None = None
        self.needs_game = True
        self.streams: dict[object, asyncio.Task] = {}
        self.posts: set[asyncio.Task] = set()
        self._paused = 0
        self._resumed = asyncio.Event()
        self.games = 0
        self.round_trips: list[float] = []  # seconds from a command sent to its answer read
        self.last_cut: Cut | None = None

    @property
    def players(self) -> int:
        return len(self.seat_tokens)

    @property
    def audiences(self) -> list:
        return ["board", "host", *range(self.players)]

    def token(self, audience) -> str | None:
        """The code `audience`'s phone opened (the board needs none)."""
        if audience == "board":
            return None
        return self.host_token if audience == "host" else self.seat_tokens[audience]

    async def view(self, audience) -> tuple[int, dict]:
        """(status, payload) of a view asked now, in the phone's own language (a stream
        keeps the language it was opened with): the board's GET, or the view op."""
        phone = self.phone(audience)
        if audience == "board":
            return await phone.board()
        return await phone.call(self.token(audience), "view")

    def phone(self, audience) -> Phone:
        return {"board": self.viewer, "host": self.host}.get(audience) or self.phones[audience]

    # --- connections (one set per life of the product) ---

    def connect(self) -> None:
        self.ledger.new_life()
        for phone in (self.host, self.viewer, *self.phones):
            phone.connect(self.product.url)

    async def disconnect(self) -> None:
        await settle([*self.streams.values(), *self.posts])
        self.streams.clear()
        self.posts.clear()
        for phone in (self.host, self.viewer, *self.phones):
            await phone.close()

    def open_stream(self, audience) -> None:
        task = asyncio.create_task(follow(self.phone(audience), self.token(audience), audience,
                                          self.ledger.heard))
        task.add_done_callback(lambda _: self.ledger.changed.set())  # waiters look again
        self.streams[audience] = task

    async def check_streams(self) -> None:
        """A stream that ended while the product runs is a failure: raise why."""
        for audience, task in self.streams.items():
            if task.done():
                await task
                raise AssertionError(f"the {audience} stream ended")

    async def first_views(self, timeout: float = 15.0) -> dict:
        """Open every audience's stream; the first payload each one sends."""
        for audience in self.audiences:
            self.open_stream(audience)

        async def all_there():
            while any(a not in self.ledger.first for a in self.audiences):
                await self.check_streams()
                self.ledger.changed.clear()
                await self.ledger.changed.wait()
        await asyncio.wait_for(all_there(), timeout)
        return {a: self.ledger.first[a] for a in self.audiences}

    async def claim_host(self) -> None:
        self.host_token = self.product.room_setting()["host_token"]
        status, body = await self.host.call(self.host_token, "claim")
        assert (status, body) == (200, {"host": True}), body

    # --- cuts ---

    @asynccontextmanager
    async def uncut(self):
        """No timer cut while a game is being set up: the cut waits until it is started."""
        self._paused += 1
        try:
            yield
        finally:
            self._paused -= 1
            self._resumed.set()

    def cut(self, kind: str) -> None:
        self.product.cut()
        acked = self.ledger.acked
        shown = {a: p for a, p in self.ledger.latest.items()
                 if p["view"] and "state_id" in p["view"]}
        self.last_cut = Cut(kind, acked, list(self.ledger.freeze().values()),
                            {s: dict(v) for s, v in self.ledger.views.items() if s >= acked},
                            shown)

    async def _timer(self, driver: asyncio.Task, seconds: float) -> None:
        await asyncio.sleep(seconds)
        while self._paused:
            self._resumed.clear()
            await self._resumed.wait()
        self.cut("timer")
        driver.cancel()

    async def play_until_cut(self, plan: Plan | None) -> None:
        """Play (new games as needed) until the plan cuts the power; with no plan, until the
        game being played is over."""
        driver = asyncio.create_task(self._drive(plan))
        timer = (asyncio.create_task(self._timer(driver, plan.delay))
                 if plan and plan.kind == "timer" else None)
        await asyncio.wait([driver])
        if timer:
            await settle([timer])
        if not driver.cancelled() and not isinstance(driver.exception(), PowerCut):
            driver.result()  # a failure of the game or the product: raise it

    # --- play ---

    async def _drive(self, plan: Plan | None) -> None:
        try:
            await self._play(plan)
        except Exception:
            if self.ledger.frozen:  # a request or stream cut off by the timer's cut
                raise PowerCut from None
            raise

    async def _play(self, plan: Plan | None) -> None:
        kind = plan.kind if plan else None
        steps = posts = acks = 0
        while True:
            if self.ledger.frozen:  # the timer cut while a step was finishing
                raise PowerCut
            if self.needs_game:
                if plan is None:
                    return
                async with self.uncut():
                    await self.new_game()
            await self.check_streams()
            now = await self.ledger.converged(self.audiences, self.ledger.acked)
            if now["board"]["view"]["outcome"] is not None:
                self.needs_game = True
                continue
            if kind == "idle" and steps >= plan.at:
                await asyncio.sleep(plan.delay)
                self.cut(kind)
                raise PowerCut
            seats = range(self.players)
            if kind == "roll" and steps >= plan.at and any(rolls_in_progress(now[s])
                                                           for s in seats):
                self.cut(kind)
                raise PowerCut
            movers = [s for s in seats if open_decision(now[s])]
            assert movers, f"the game waits for no seat: {now['board']['view']['waiting']}"
            self.rng.shuffle(movers)
            with_state = len(movers) == 1 or self.rng.random() < 0.6
            burst = [asyncio.create_task(self._send(s, command_for(now[s], self.rng, with_state)))
                     for s in movers]
            self.posts.update(burst)
            posts += 1
            if kind == "mid_request" and posts > plan.at:
                await asyncio.sleep(plan.delay)
                self.cut(kind)
                raise PowerCut
            if kind == "fsync" and posts > plan.at:
                if await self._caught_syncing(burst):
                    self.cut(kind)
                    raise PowerCut
                if posts > plan.at + FSYNC_TRIES:
                    self.cut("fsync (none caught)")
                    raise PowerCut
            for answer in asyncio.as_completed(burst):
                seat, command, status, body = await answer
                if status == 200:
                    acks += 1
                    if kind == "after_ack" and acks > plan.at:
                        self.cut(kind)
                        raise PowerCut
                else:
                    assert len(movers) > 1 and status == 409 and \
                        body["error"]["code"] in RACE_CODES, \
                        f"seat {seat} sent {command} from its own view: {status} {body}"
            self.posts.difference_update(burst)
            steps += 1

    async def _caught_syncing(self, burst) -> bool:
        """Watch the product until the burst is answered; True if a sync was caught."""
        while not all(task.done() for task in burst):
            if self.product.syncing():
                return True
            await asyncio.sleep(0)  # let the phones' requests go on
        return False

    async def _send(self, seat: int, command: dict):
        key = self.ledger.sent(seat, command)
        began = time.perf_counter()
        status, body = await self.phones[seat].call(self.seat_tokens[seat], "command", command)
        self.round_trips.append(time.perf_counter() - began)
        self.ledger.answered(key, status, body)
        return seat, command, status, body

    async def new_game(self) -> None:
        """The host sets up a game, a phone claims each seat (its code read as the kiosk shows
        it), the host starts it."""
        for audience in ("board", "host"):
            if audience not in self.streams:  # the first game: the pages are opened now
                self.open_stream(audience)
        players = self.rng.randint(3, len(NAMES))
        lang = self.rng.choice(["en", "es"])
        status, body = await self.host.call(self.host_token, "game",
                                            {"setup": {"names": NAMES[:players]}, "lang": lang})
        assert status == 200, body
        await settle([self.streams.pop(s) for s in list(self.streams) if isinstance(s, int)])
        self.seat_tokens = [s["token"] for s in self.product.room_setting()["lobby"]["seats"]]
        for seat, token in enumerate(self.seat_tokens):
            status, body = await self.phones[seat].call(token, "claim")
            assert (status, body) == (200, {"seat": seat}), body
        self.ledger.new_game()
        for seat in range(players):
            self.open_stream(seat)
        status, body = await self.host.call(self.host_token, "start")
        assert (status, body) == (200, {"state_id": 0}), body
        self.game_id = self.product.room_setting()["lobby"]["game_id"]
        self.needs_game = False
        self.games += 1
