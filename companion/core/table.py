"""The Table: the one authority. Rules + durable event log + randomness.

Every input (button, phone, kiosk key, host) becomes `submit(actor, command)`. The rules
decide; the events are committed to SQLite; only then does the state change and anyone hear
of it. A Table opened on an existing store replays the log and carries on exactly.

The room submits on a writer thread while its loop builds views: the state and how many
facts belong to it are published together, as one tuple (`_head`), so a view read at any
moment is one whole state with exactly that state's log.
"""
from __future__ import annotations

import random
from bisect import bisect_left

from ..darkmoon import (Game, Position, Setup, public_view, seat_view, start, start_from,
                       waiting_for)
from ..darkmoon.api import apply_event, step
from ..chance.fair import EarlierFormat, Fair
from .store import EventStore

PUBLIC = "public"
# Replaying a log runs the rules again with the stored outcomes: a game stored under other
# rules may not replay. Raised whenever a rules change alters what a stored command does
# (2: the commander die on every retrieval, Restore Comm's choice, and the other departures
# from the rulebook set right;
# 3: a position deals the cards and tokens of its variants and modules, Shadow Corporation's
# too; host corrections accept Risk Assessment's extra cube and keep a take-off vote's board
# full; a card's result waits for the vote held for it when the rules named its target;
# Exposure is not the turn's action; Luba may reroll the corporation dice; the threats are
# dealt after a first-round recall).
RULES_VERSION = 3
LOG_LENGTH = 60  # facts sent with each view during play; once it is over, the whole log


class OtherRules(ValueError):
    """A stored game this version cannot go on with: dealt under an earlier fair procedure
    (darkmoon-fair/1, whose streams are not bound to the box and the game's number). It stays
    in the store as it is; a room starts afresh, as for a game stored under other rules."""


class Table:
    def __init__(self, store: EventStore, game_id: int, events: list[dict], seed: int | None,
                 fair: Fair | None = None):
        self.store = store
        self.game_id = game_id
        self.seed = seed
        self.fair = fair  # None: a seeded game (or one stored before fair dealing): unverifiable
        self.facts: list[dict] = []  # append-only; a state's facts are facts[:its count]
        # Where in `facts` the public ones are, and each seat's private ones: a view reads its
        # log from these instead of scanning every fact of the game once per seat per command.
        self._public: list[int] = []
        self._private: dict[int, list[tuple[int, dict]]] = {}
        g = None
        for event in events:  # folds in place: a resumed game costs one replay, no copies
            g = apply_event(g, event)
            self._remember(event)
        self._head: tuple[Game, int] = (g, len(self.facts))

    @property
    def state(self) -> Game:
        return self._head[0]

    # --- opening a game ---

    @classmethod
    def new(cls, store: EventStore, setup: Setup | dict, seed: int | None = None,
            fair: Fair | None = None) -> "Table":
        """Deal a new game. With a seed every roll and draw is reproducible (tests,
        simulations) and nothing is verifiable; without one every outcome comes from `fair`
        (the room's committed secret and the seats' contributions; by default a secret the
        Pi draws now for the next number of this box, every seat a filler), so the players
        can check it after the game. The game is stored under `fair.game`, the number its
        commitment binds: a number already taken is refused (store.GameTaken), nothing
        stored."""
        setup = setup if isinstance(setup, Setup) else Setup.from_json(setup)
        fair = _fair(store, seed, fair, len(setup.names))
        return cls._stored(store, {"setup": setup.to_json()}, start(setup, _rng(seed, fair, 0)),
                           seed, fair)

    @classmethod
    def from_position(cls, store: EventStore, position: Position | dict,
                      seed: int | None = None, fair: Fair | None = None) -> "Table":
        """Begin a game at a described position (tools, tutorials and tests only: a real
        table is dealt). Stored like any game: resume and replay need nothing more."""
        position = position if isinstance(position, Position) else Position.from_json(position)
        fair = _fair(store, seed, fair, len(position.seats))
        return cls._stored(store, {"position": position.to_json()},
                           start_from(position, _rng(seed, fair, 0)), seed, fair)

    @classmethod
    def _stored(cls, store: EventStore, meta: dict, events: list[dict],
                seed: int | None, fair: Fair | None) -> "Table":
        """A game's first events, stored as a new game of these rules. The fair secret is
        stored with them: a game resumed after a power cut goes on with the same stream."""
        if fair is not None:
            meta = {**meta, "fair": fair.to_json()}
        game_id = store.new_game({**meta, "seed": seed, "rules_version": RULES_VERSION},
                                 fair.game if fair is not None else None)
        store.append(game_id, 1, events)
        return cls(store, game_id, events, seed, fair)

    @classmethod
    def resume(cls, store: EventStore, game_id: int | None = None) -> "Table | None":
        """The latest game in the store (or `game_id`) exactly as it was; None if none.
        OtherRules for a game dealt under darkmoon-fair/1 (it cannot go on with this
        version's streams), ValueError for a stored fair that is damaged."""
        game_id = store.latest_game() if game_id is None else game_id
        if game_id is None:
            return None
        meta = store.meta(game_id)
        fair = None
        if meta.get("fair"):
            try:
                fair = Fair.from_json(meta["fair"])
            except EarlierFormat as error:
                raise OtherRules(f"game {game_id}: {error}") from None
            if fair.game != game_id:
                raise ValueError(f"game {game_id} holds the fair secret of game {fair.game}")
        events = [e for records in store.load(game_id) for e in records]
        return cls(store, game_id, events, meta.get("seed"), fair)

    # --- the one way in ---

    def submit(self, actor, command: dict) -> list[dict]:
        """Decide, append durably, then publish the new state; the caller tells whoever
        listens (companion.core.room, on its loop). Raises a RulesError (and changes nothing) for
        anything the rules refuse."""
        g = self.state
        events, state = step(g, actor, command, _rng(self.seed, self.fair, g.state_id + 1))
        self.store.append(self.game_id, g.state_id + 2, events)
        for event in events:  # beyond the published count: no reader looks at them yet
            self._remember(event)
        self._head = (state, len(self.facts))  # one assignment: readers see old or new
        return events

    def _remember(self, event: dict) -> None:
        for fact in event["facts"]:
            fact = {"seq": event["state_id"], **fact}
            if "to" in fact:
                for seat in dict.fromkeys(fact["to"]):  # once each, as a scan would find it
                    self._private.setdefault(seat, []).append((len(self.facts), fact))
            else:
                self._public.append(len(self.facts))
            self.facts.append(fact)

    # --- what the game waits for, and who may see what ---

    @property
    def state_id(self) -> int:
        return self.state.state_id

    @property
    def over(self) -> bool:
        return self.state.outcome is not None

    def waiting_for(self) -> dict | None:
        return waiting_for(self.state)

    def public_view(self) -> dict:
        g, count = self._head
        view = public_view(g)
        view["log"] = [self.facts[i] for i in self.shared_log(g, count)]
        return view

    def seat_view(self, seat: int) -> dict:
        g, count = self._head
        view = seat_view(g, seat)
        private = self.own_facts(seat, count)
        view["log"] = self._log(g, count, private)
        view["you"]["private_log"] = [f for _, f in private]
        return view

    def snapshot(self) -> tuple[Game, int]:
        """The state and how many facts belong to it, read together: views built from one
        snapshot agree, whatever the writer thread publishes meanwhile."""
        return self._head

    def shared_log(self, g: Game, count: int) -> list[int]:
        """Where in `facts` the log every audience shares is: the latest LOG_LENGTH public
        facts. After the game every roll and discarded card is shown: the log is sent whole,
        the same for everyone."""
        if g.outcome is not None:
            return list(range(count))
        end = bisect_left(self._public, count)
        return self._public[max(0, end - LOG_LENGTH):end]

    def own_facts(self, seat: int, count: int) -> list[tuple[int, dict]]:
        """Every private fact of `seat` in the first `count` facts, with its place."""
        return [(i, f) for i, f in self._private.get(seat, ()) if i < count]

    def _log(self, g: Game, count: int, private: list[tuple[int, dict]]) -> list[dict]:
        """The shared log and every private fact of the seat (`private`), in order. The
        public part is the same for every seat: counted with the private facts, an Infected
        seat (Telepathic Infected: one fact more) would see fewer public lines than its
        neighbour. Once the game is over the shared log already holds every fact."""
        places = self.shared_log(g, count)
        log = [self.facts[i] for i in places]
        if private and g.outcome is None:
            log = merged(log, own_places(places, private), [f for _, f in private])
        return log


def own_places(places: list[int], own: list[tuple[int, object]]) -> list[int]:
    """Where each of a seat's own facts (`own`: (index in the facts, fact), in order) goes in
    its log, among the shared log's facts at `places`: after the k own facts before it."""
    return [bisect_left(places, i) + k for k, (i, _) in enumerate(own)]


def merged(shared: list, at: list[int], own: list) -> list:
    """`shared` with each of `own` put in at its place in `at` (places in the result): a
    seat's log, as facts, as their JSON or as their sentences alike."""
    log = shared[:]
    for place, item in zip(at, own):
        log.insert(place, item)
    return log


def _fair(store: EventStore, seed: int | None, fair: Fair | None,
          players: int) -> Fair | None:
    if seed is not None:
        return None  # a seeded game deals what its seed gives, as it always has
    if fair is not None:
        return fair
    return Fair.draw(players, store.box(), (store.latest_game() or 0) + 1)


def _rng(seed: int | None, fair: Fair | None, position: int):
    # One generator per event, derived from the seed or the fair secret and the event's
    # position in the log (its state id), so a resumed game rolls exactly what it would have
    # rolled without the restart. A game stored before fair dealing goes on as it was dealt.
    if fair is not None:
        return fair.stream(position)
    if seed is None:
        return random.SystemRandom()
    return random.Random(f"{seed}:{position}")
