"""Starting a game from a described position, for tools, tutorials and tests (never the host
page: at a real table the cards are dealt, not chosen).

A position describes the board at the beginning of a seat's turn: the seats (status,
character, dice behind the screen, die tokens, quarantine, revealed), the commander, the tracks,
the current event and the tops of the decks. `start_from(position, rng)` checks it like a setup
and returns one ordinary first event of type "position": the position itself plus every chance
outcome used to fill in what it leaves out (statuses, characters, the rest of each deck), so
the store, replay and resume treat it like any dealt game.
"""
from __future__ import annotations

import random
from dataclasses import dataclass

from .data import (AREAS, BASE_DIE_LIMIT, CHARACTERS, COMMANDER, COMPLICATION, DICE_IN_BOX,
                   EVENTS, EVENTS_BEFORE_FINAL, FATIGUE_TOKENS, FINAL_EVENTS, INFECTED_CARDS,
                   OUTPOST_TOKENS, QUARANTINE_PENALTY, REVEALED_DIE_LIMIT,
                   SMALL_GAME_REMOVED, STATUS_COUNTS, STRONG, SUSPICION_START,
                   SUSPICION_VOTE, TASK_DECK_FOR, TASKS, TOKENS_TO_LOSE, UNINFECTED, WEAK)
from .engine import Chance, Ctx, push, run
from .errors import BadSetup
from .setup import Setup
from .state import Game, Seat

SEAT_FIELDS = {"name", "character", "status", "dice", "die_tokens", "quarantined", "revealed"}
FIELDS = {"seats", "commander", "turn", "turns_played", "final_event", "variants", "shield",
          "outpost", "fatigue", "sabotage", "suspicion", "event", "completed_events",
          "final_cubes", "pool", "task_deck", "task_discard", "event_deck"}
DEFAULT_DICE = {STRONG: 2, WEAK: 2, COMMANDER: 0}
# Die tokens come one at a time (Failure to Lead, Last Stand): a bound against nonsense only.
MAX_DIE_TOKENS = 4


def _whole(value, low: int, high: int, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise BadSetup(f"{what} is a whole number from {low} to {high}, not {value!r}")
    return value


def _ids(value, allowed, what: str, most: int | None = None) -> tuple:
    """A list of distinct ids, each among `allowed`."""
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise BadSetup(f"{what} is a list of ids")
    bad = [v for v in value if v not in allowed]
    if bad:
        raise BadSetup(f"{what}: not allowed here: {bad}")
    if len(set(value)) != len(value):
        raise BadSetup(f"{what}: an id is listed twice")
    if most is not None and len(value) > most:
        raise BadSetup(f"{what}: at most {most}, not {len(value)}")
    return tuple(value)


@dataclass(frozen=True)
class SeatPosition:
    name: str
    character: str | None = None
    status: str | None = None
    dice: tuple = (2, 2, 0)          # strong, weak, commander
    die_tokens: int = 0
    quarantined: bool = False
    revealed: bool = False

    @classmethod
    def from_json(cls, i: int, data) -> "SeatPosition":
        if not isinstance(data, dict):
            raise BadSetup(f"seat {i} is an object with at least a 'name'")
        unknown = set(data) - SEAT_FIELDS
        if unknown:
            raise BadSetup(f"seat {i}: unknown fields: {', '.join(sorted(unknown))}")
        dice = data.get("dice", DEFAULT_DICE)
        if not isinstance(dice, dict) or set(dice) - set(DEFAULT_DICE):
            raise BadSetup(f"seat {i}: 'dice' is an object with strong, weak and commander")
        counts = tuple(_whole(dice.get(c, 0), 0, DICE_IN_BOX[c], f"seat {i}'s {c} dice")
                       for c in (STRONG, WEAK, COMMANDER))
        flags = {k: data.get(k, False) for k in ("quarantined", "revealed")}
        if not all(isinstance(v, bool) for v in flags.values()):
            raise BadSetup(f"seat {i}: 'quarantined' and 'revealed' are true or false")
        status = data.get("status")
        if status is not None and status not in INFECTED_CARDS + (UNINFECTED,):
            raise BadSetup(f"seat {i}: unknown status {status!r}")
        return cls(data.get("name"), data.get("character"), status, counts,
                   _whole(data.get("die_tokens", 0), -MAX_DIE_TOKENS, MAX_DIE_TOKENS,
                          f"seat {i}'s die tokens"), **flags)

    def to_json(self) -> dict:
        return {"name": self.name, "character": self.character, "status": self.status,
                "dice": dict(zip((STRONG, WEAK, COMMANDER), self.dice)),
                "die_tokens": self.die_tokens, "quarantined": self.quarantined,
                "revealed": self.revealed}


@dataclass(frozen=True)
class Position:
    """A described board at the beginning of `turn`'s turn. Decks list their top cards, top
    first; the cards a position does not place are shuffled beneath them."""
    seats: tuple
    commander: int
    turn: int
    turns_played: int = 0
    final_event: str | None = None
    variants: tuple = ()
    shield: int = 2
    outpost: tuple = ()
    fatigue: tuple = ()
    sabotage: str | None = None
    suspicion: int | None = SUSPICION_START
    event: tuple | None = None       # (card, cubes); None: the commander draws two first
    completed_events: tuple = ()
    final_cubes: int = 0
    pool: tuple | None = None        # optional check: strong, weak, commander
    task_deck: tuple = ()
    task_discard: tuple = ()
    event_deck: tuple = ()

    @property
    def setup(self) -> Setup:
        chars = [s.character for s in self.seats]
        return Setup(tuple(s.name for s in self.seats),
                     tuple(chars) if any(c is not None for c in chars) else None,
                     self.final_event, self.variants)

    @property
    def final_active(self) -> bool:
        return len(self.completed_events) >= EVENTS_BEFORE_FINAL

    @classmethod
    def from_json(cls, data) -> "Position":
        if not isinstance(data, dict):
            raise BadSetup("a position is an object with 'seats' and 'commander'")
        unknown = set(data) - FIELDS
        if unknown:
            raise BadSetup(f"unknown position fields: {', '.join(sorted(unknown))}")
        seats = data.get("seats")
        if not isinstance(seats, (list, tuple)):
            raise BadSetup("'seats' is a list of seats in clockwise order")
        seats = tuple(SeatPosition.from_json(i, s) for i, s in enumerate(seats))
        n = len(seats)
        if "commander" not in data:
            raise BadSetup("name the commander's seat")
        commander = _whole(data["commander"], 0, max(n - 1, 0), "'commander'")
        turn = _whole(data.get("turn", (commander + 1) % max(n, 1)), 0, max(n - 1, 0), "'turn'")
        variants = data.get("variants") or ()
        if not isinstance(variants, (list, tuple)):
            raise BadSetup("'variants' must be a list")
        event = data.get("event")
        if event is not None:
            if not isinstance(event, dict) or set(event) - {"card", "cubes"} \
                    or event.get("card") not in EVENTS:
                raise BadSetup("'event' is null or {\"card\": EVENT, \"cubes\": N}")
            card = event["card"]
            event = (card, _whole(event.get("cubes", 0), 0, EVENTS[card].cubes - 1,
                                  f"the cubes on {card}"))
        pool = data.get("pool")
        if pool is not None:
            if not isinstance(pool, dict) or set(pool) != set(DEFAULT_DICE):
                raise BadSetup("'pool' is an object with strong, weak and commander")
            pool = tuple(_whole(pool[c], 0, DICE_IN_BOX[c], f"the pool's {c} dice")
                         for c in (STRONG, WEAK, COMMANDER))
        suspicion = data.get("suspicion", SUSPICION_START)
        if suspicion is not None:
            _whole(suspicion, SUSPICION_START, SUSPICION_VOTE - 1, "'suspicion'")
        sabotage = data.get("sabotage")
        if sabotage is not None and sabotage not in AREAS:
            raise BadSetup(f"'sabotage' is null or one of {list(AREAS)}")
        position = cls(
            seats, commander, turn,
            turns_played=_whole(data.get("turns_played", 0), 0, 10_000, "'turns_played'"),
            final_event=data.get("final_event"), variants=tuple(variants),
            shield=_whole(data.get("shield", 2), 0, TOKENS_TO_LOSE - 1, "'shield'"),
            outpost=_ids(data.get("outpost", []), OUTPOST_TOKENS, "'outpost'",
                         TOKENS_TO_LOSE - 1),
            fatigue=_ids(data.get("fatigue", []), FATIGUE_TOKENS, "'fatigue'",
                         TOKENS_TO_LOSE - 1),
            sabotage=sabotage, suspicion=suspicion, event=event,
            completed_events=_ids(data.get("completed_events", []), EVENTS,
                                  "'completed_events'", EVENTS_BEFORE_FINAL),
            final_cubes=data.get("final_cubes", 0), pool=pool,
            task_deck=_ids(data.get("task_deck", []), TASKS, "'task_deck'"),
            task_discard=_ids(data.get("task_discard", []), TASKS, "'task_discard'"),
            event_deck=_ids(data.get("event_deck", []), EVENTS, "'event_deck'"))
        position.validate()
        return position

    def to_json(self) -> dict:
        return {
            "seats": [s.to_json() for s in self.seats], "commander": self.commander,
            "turn": self.turn, "turns_played": self.turns_played,
            "final_event": self.final_event, "variants": list(self.variants),
            "shield": self.shield, "outpost": list(self.outpost), "fatigue": list(self.fatigue),
            "sabotage": self.sabotage, "suspicion": self.suspicion,
            "event": ({"card": self.event[0], "cubes": self.event[1]} if self.event else None),
            "completed_events": list(self.completed_events), "final_cubes": self.final_cubes,
            "pool": (dict(zip((STRONG, WEAK, COMMANDER), self.pool)) if self.pool else None),
            "task_deck": list(self.task_deck), "task_discard": list(self.task_discard),
            "event_deck": list(self.event_deck)}

    def validate(self) -> None:
        """Everything a dealt game could never reach is refused, naming what is wrong."""
        self.setup.validate()  # names, characters, final event, variants
        chars = [s.character for s in self.seats]
        if any(c is None for c in chars) and any(c is not None for c in chars):
            raise BadSetup("give every seat a character, or none (dealt at random)")
        self._check_statuses()
        self._check_dice()
        seats = self.seats
        if seats[self.commander].revealed:
            raise BadSetup("a revealed Infected cannot be the commander")
        self._check_events()
        self._check_decks()

    def _check_statuses(self) -> None:
        seats, n = self.seats, len(self.seats)
        statuses = [s.status for s in seats]
        for i, s in enumerate(seats):
            if s.revealed and s.status in (None, UNINFECTED):
                raise BadSetup(f"seat {i} is revealed: give its Infected status")
            if s.revealed and (s.quarantined or s.die_tokens):
                raise BadSetup(f"seat {i} is revealed: it is out of quarantine and holds no "
                               "die tokens")
        if all(st is None for st in statuses):
            if self.suspicion is None:
                raise BadSetup("the suspicion cube leaves the game only once every Infected "
                               "is revealed")
            return
        if any(st is None for st in statuses):
            raise BadSetup("give every seat a status, or none (dealt at random)")
        infected = [st for st in statuses if st != UNINFECTED]
        if len(infected) != STATUS_COUNTS[n][0]:
            raise BadSetup(f"{n} players have {STATUS_COUNTS[n][0]} Infected, not "
                           f"{len(infected)}")
        if len(set(infected)) != len(infected):
            raise BadSetup("each Infected status card is dealt once")
        all_revealed = all(s.revealed for s in seats if s.status != UNINFECTED)
        if all_revealed != (self.suspicion is None):
            raise BadSetup("the suspicion cube is null exactly when every Infected is "
                           "revealed")

    def _check_dice(self) -> None:
        seats = self.seats
        held = [sum(s.dice[c] for s in seats) for c in range(3)]
        for i, s in enumerate(seats):
            if s.dice[2] and i != self.commander:
                raise BadSetup(f"seat {i} holds the commander die but is not the commander")
            limit = limit_of(s)
            if s.dice[0] + s.dice[1] > limit:
                raise BadSetup(f"seat {i} holds {s.dice[0] + s.dice[1]} dice over its die "
                               f"limit of {limit}")
        for c, colour in enumerate((STRONG, WEAK, COMMANDER)):
            if held[c] > DICE_IN_BOX[colour]:
                raise BadSetup(f"the seats hold {held[c]} {colour} dice; the box has "
                               f"{DICE_IN_BOX[colour]}")
        if self.pool is not None:
            expected = tuple(DICE_IN_BOX[c] - held[i]
                             for i, c in enumerate((STRONG, WEAK, COMMANDER)))
            if self.pool != expected:
                raise BadSetup(f"the 29 dice are not all here: the pool would hold "
                               f"{list(expected)} (strong, weak, commander), not "
                               f"{list(self.pool)}")

    def _check_events(self) -> None:
        card = self.event[0] if self.event else None
        if card is not None and card in self.completed_events:
            raise BadSetup(f"{card} is both in play and completed")
        if self.final_active and card is not None:
            raise BadSetup("after three completed events the final event is in play, no event")
        if self.final_active:
            if self.final_event is None:
                raise BadSetup("the final event is in play: name it ('final_event')")
            most = FINAL_EVENTS[self.final_event].cubes - 1
            _whole(self.final_cubes, 0, most, f"the cubes on {self.final_event}")
        else:
            _whole(self.final_cubes, 0, 0, "'final_cubes' (cubes go on the final event once "
                   f"{EVENTS_BEFORE_FINAL} events are completed)")
        placed = set(self.completed_events) | ({card} if card else set())
        if set(self.event_deck) & placed:
            raise BadSetup("an event in the deck is also in play or completed")

    def _check_decks(self) -> None:
        deck, discard = self.task_deck, self.task_discard
        if set(deck) & set(discard):
            raise BadSetup("a task card is both in the deck and in the discards")
        allowed = set(task_cards(self))
        bad = sorted((set(deck) | set(discard)) - allowed)
        if bad:
            raise BadSetup(f"task cards out of this game: {bad}")


def limit_of(s: SeatPosition) -> int:
    """The die limit as Game.die_limit counts it, before there is a Game."""
    if s.revealed:
        return REVEALED_DIE_LIMIT
    return max(1, BASE_DIE_LIMIT + s.die_tokens - (QUARANTINE_PENALTY if s.quarantined else 0))


def task_cards(p: Position) -> list[str]:
    """The task cards of this game: Voluntary Blood Testing is out at 3-4 players, and the
    complications leave once the final event begins (or every Infected is revealed with No
    More Complications)."""
    n = len(p.seats)
    cards = sorted(t for t in TASKS if not (n <= 4 and t == SMALL_GAME_REMOVED))
    everyone_revealed = p.suspicion is None
    if p.final_active or ("no_more_complications" in p.variants and everyone_revealed):
        cards = [t for t in cards if TASKS[t].kind != COMPLICATION]
    return cards


def build_position(p: Position, ctx: Ctx) -> Game:
    """The game the position describes; what it leaves open is drawn from `ctx.chance`."""
    chance, n = ctx.chance, len(p.seats)
    setup = p.setup
    characters = (list(setup.characters) if setup.characters
                  else chance.shuffle(sorted(CHARACTERS))[:n])
    statuses = [s.status for s in p.seats]
    if statuses[0] is None:
        infected, uninfected = STATUS_COUNTS[n]
        chosen = chance.shuffle(list(INFECTED_CARDS))[:infected]
        statuses = chance.shuffle(chosen + [UNINFECTED] * uninfected)
    seats = []
    for sp, character, status in zip(p.seats, characters, statuses):
        seat = Seat(sp.name, character, status,
                    dict(zip((STRONG, WEAK, COMMANDER), sp.dice)))
        seat.die_tokens, seat.quarantined, seat.revealed = (sp.die_tokens, sp.quarantined,
                                                            sp.revealed)
        seats.append(seat)
    g = Game(players=n, variants=frozenset(p.variants), deck_colour=TASK_DECK_FOR[n],
             seats=seats,
             outpost_board=list(p.outpost),
             outpost_pile=[t for t in OUTPOST_TOKENS if t not in p.outpost],
             fatigue_board=list(p.fatigue),
             fatigue_pile=[t for t in FATIGUE_TOKENS if t not in p.fatigue])
    g.pool = {c: DICE_IN_BOX[c] - sum(s.dice[c] for s in seats) for c in DICE_IN_BOX}
    g.spent = {c: 0 for c in DICE_IN_BOX}  # at a turn's beginning every spent die is back
    g.shield_tokens, g.sabotage, g.suspicion = p.shield, p.sabotage, p.suspicion
    g.commander, g.active, g.turn = p.commander, p.turn, p.turns_played
    g.completed_events = list(p.completed_events)
    g.event, g.event_cubes = p.event if p.event else (None, 0)
    g.final_event = p.final_event or chance.pick(sorted(FINAL_EVENTS))
    g.final_active, g.final_cubes = p.final_active, p.final_cubes
    # Decks: the listed cards on top in order (the top is the end of the list), the rest
    # shuffled beneath them.
    rest = [t for t in task_cards(p) if t not in p.task_deck and t not in p.task_discard]
    g.task_deck = chance.shuffle(rest) + list(reversed(p.task_deck))
    g.task_discard = list(p.task_discard)
    placed = set(p.completed_events) | ({p.event[0]} if p.event else set())
    rest = [e for e in sorted(EVENTS) if e not in placed and e not in p.event_deck]
    g.event_deck = chance.shuffle(rest) + list(reversed(p.event_deck))
    announce(g, ctx, characters)
    draw = []
    if g.event is None and not g.final_active:  # the commander places an event first
        # In play the other card is discarded face down; only at setup it goes to the bottom.
        mid_game = bool(p.completed_events or p.turns_played)
        draw = [("draw_events", {"reason": "next_event"} if mid_game else {})]
    push(g, *draw, ("turn_start", {"seat": p.turn}))
    run(g, ctx)
    return g


def announce(g: Game, ctx: Ctx, characters: list) -> None:
    """The facts of a dealt game: the views show the board the position set, and the log
    reads as at any deal (dice held stay behind the screens, statuses with their owners)."""
    ctx.fact("game_set_up", names=[s.name for s in g.seats], characters=characters,
             variants=sorted(g.variants))
    for seat, s in enumerate(g.seats):
        ctx.fact("status_dealt", to=[seat], seat=seat, status=s.status)
    if g.has("telepathic_infected"):
        team = [i for i, s in enumerate(g.seats) if s.infected]
        ctx.fact("infected_team", to=team, seats=team)
    ctx.fact("commander", seat=g.commander, previous=None)
    ctx.fact("final_event", card=g.final_event)


def start_from(position: Position | dict, rng: random.Random) -> list[dict]:
    """Begin a game at a described position; the returned event begins its log."""
    position = position if isinstance(position, Position) else Position.from_json(position)
    position.validate()
    ctx = Ctx(Chance(rng=rng))
    build_position(position, ctx)
    return [{"type": "position", "position": position.to_json(),
             "chance": ctx.chance.outcomes, "facts": ctx.facts, "state_id": 0}]
