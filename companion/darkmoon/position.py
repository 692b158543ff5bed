"""Starting a game from a described position, for tools, tutorials and tests (never the host
page: at a real table the cards are dealt, not chosen).

A position describes the board at the beginning of a seat's turn: the seats (status,
character, dice behind the screen, die tokens, quarantine, revealed), the commander, the tracks,
the current event and the tops of the decks; with Shadow Corporation also the evacuation cube,
the clearances, the amputations and the threats. Its cards and tokens are those a dealt game
with the same variants and modules has (setup.py builds both). `start_from(position, rng)`
checks it like a setup and returns one ordinary first event of type "position": the position
itself plus every chance outcome used to fill in what it leaves out (statuses, characters,
the rest of each deck), so the store, replay and resume treat it like any dealt game.
"""
from __future__ import annotations

import random
from dataclasses import dataclass

from .data import (AREAS, BASE_DIE_LIMIT, CHARACTERS, CLEARANCE_SEATS, COMMANDER,
                   COMPANY_MAN, COMPLICATION, DICE_IN_BOX,
                   EVACUATION_FAILURE, EVACUATION_START, EVACUATION_VOTE, EVENTS,
                   EVENTS_BEFORE_FINAL, FATIGUE_POOL, FATIGUE_TOKENS, FINAL_EVENTS,
                   INFECTED_CARDS, INFECTED_CLEARANCE, QUARANTINE_PENALTY, REVEALED_DIE_LIMIT,
                   SHADOW_CORPORATION, STATUS_COUNTS, STRONG, SUSPICION_START,
                   SUSPICION_VOTE, TASK_DECK_FOR, TASKS, THREAT_CARDS, THREATS_MODULE,
                   TOKENS_TO_LOSE, UNINFECTED, WEAK, WILD_TOKENS, available)
from .engine import HOOKS, Chance, Ctx, push, run
from .errors import BadSetup
from .setup import (Setup, deal_characters, deal_statuses, event_cards, fatigue_pool,
                    outpost_tokens, status_cards)
from .setup import task_cards as dealt_task_cards
from .state import Game, Seat

SEAT_FIELDS = {"name", "character", "status", "dice", "die_tokens", "quarantined", "revealed"}
# Shadow Corporation's seat fields: the amputation token, the Threats module's card (private,
# like the status) and token (public).
SHADOW_SEAT_FIELDS = {"amputated", "threat", "threat_token"}
FIELDS = {"seats", "commander", "turn", "turns_played", "final_event", "variants", "shield",
          "outpost", "fatigue", "sabotage", "suspicion", "event", "completed_events",
          "final_cubes", "pool", "task_deck", "task_discard", "event_deck"}
SHADOW_FIELDS = {"evacuation", "clearances", "lincoln_used"}
STATUSES = INFECTED_CARDS + (INFECTED_CLEARANCE, UNINFECTED, COMPANY_MAN)
# Every fatigue token in the box: the base game's six, Serene's and Lincoln's.
ALL_FATIGUE_TOKENS = tuple(c for c in available(CHARACTERS, True)
                           if CHARACTERS[c].has_fatigue_token)
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
    amputated: bool = False          # Shadow Corporation
    threat: str | None = None        # the Threats module's card; None: dealt at random
    threat_token: tuple | None = None  # (threat, wild)

    @classmethod
    def from_json(cls, i: int, data, expansion: bool = False) -> "SeatPosition":
        if not isinstance(data, dict):
            raise BadSetup(f"seat {i} is an object with at least a 'name'")
        unknown = set(data) - SEAT_FIELDS - SHADOW_SEAT_FIELDS
        if unknown:
            raise BadSetup(f"seat {i}: unknown fields: {', '.join(sorted(unknown))}")
        shadow = sorted(set(data) & SHADOW_SEAT_FIELDS)
        if shadow and not expansion:
            raise BadSetup(f"seat {i}: {', '.join(shadow)} are Shadow Corporation's: add "
                           "the expansion")
        dice = data.get("dice", DEFAULT_DICE)
        if not isinstance(dice, dict) or set(dice) - set(DEFAULT_DICE):
            raise BadSetup(f"seat {i}: 'dice' is an object with strong, weak and commander")
        counts = tuple(_whole(dice.get(c, 0), 0, DICE_IN_BOX[c], f"seat {i}'s {c} dice")
                       for c in (STRONG, WEAK, COMMANDER))
        flags = {k: data.get(k, False) for k in ("quarantined", "revealed", "amputated")}
        if not all(isinstance(v, bool) for v in flags.values()):
            raise BadSetup(f"seat {i}: 'quarantined', 'revealed' and 'amputated' are true or "
                           "false")
        status = data.get("status")
        if status is not None and status not in STATUSES:
            raise BadSetup(f"seat {i}: unknown status {status!r}")
        threat = data.get("threat")
        if threat is not None and threat not in THREAT_CARDS:
            raise BadSetup(f"seat {i}: unknown threat card {threat!r}")
        token = data.get("threat_token")
        if token is not None:
            if not isinstance(token, (list, tuple)) or len(token) != 2 \
                    or token[0] not in THREAT_CARDS or not isinstance(token[1], bool):
                raise BadSetup(f"seat {i}: 'threat_token' is null or [THREAT, WILD]: the "
                               "threat whose token it is, and whether it is a wild one")
            token = tuple(token)
        return cls(data.get("name"), data.get("character"), status, counts,
                   _whole(data.get("die_tokens", 0), -MAX_DIE_TOKENS, MAX_DIE_TOKENS,
                          f"seat {i}'s die tokens"), threat=threat, threat_token=token,
                   **flags)

    def to_json(self, expansion: bool = False) -> dict:
        seat = {"name": self.name, "character": self.character, "status": self.status,
                "dice": dict(zip((STRONG, WEAK, COMMANDER), self.dice)),
                "die_tokens": self.die_tokens, "quarantined": self.quarantined,
                "revealed": self.revealed}
        if expansion:
            seat.update(amputated=self.amputated, threat=self.threat,
                        threat_token=list(self.threat_token) if self.threat_token else None)
        return seat


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
    # Shadow Corporation: the evacuation cube (None: the ship was recalled by the Evacuation
    # Failure card), the cleared seats in the order cleared, Lincoln's decision spent.
    evacuation: int | None = EVACUATION_START
    clearances: tuple = ()
    lincoln_used: bool = False

    @property
    def expansion(self) -> bool:
        return SHADOW_CORPORATION in self.variants

    @property
    def refuelled(self) -> bool:
        """The refuelling card is discarded when the turn counter comes back to the start
        player (ESOG Refueling): once a position's turns played pass the seats' count. At
        exactly that count, this turn's start refuels (and deals the threats) as in play."""
        return self.expansion and self.turns_played > len(self.seats)

    @property
    def extra_cubes(self) -> int:
        """Risk Assessment, the last completed event: the next event needs one more cube
        (the final event too when it was the third; facts §6a, §8 q1)."""
        return int(tuple(self.completed_events[-1:]) == ("risk_assessment",))

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
        unknown = set(data) - FIELDS - SHADOW_FIELDS
        if unknown:
            raise BadSetup(f"unknown position fields: {', '.join(sorted(unknown))}")
        variants = data.get("variants") or ()
        if not isinstance(variants, (list, tuple)):
            raise BadSetup("'variants' must be a list")
        expansion = SHADOW_CORPORATION in variants
        shadow = sorted(set(data) & SHADOW_FIELDS)
        if shadow and not expansion:
            raise BadSetup(f"{', '.join(shadow)}: Shadow Corporation's, add the expansion")
        seats = data.get("seats")
        if not isinstance(seats, (list, tuple)):
            raise BadSetup("'seats' is a list of seats in clockwise order")
        seats = tuple(SeatPosition.from_json(i, s, expansion) for i, s in enumerate(seats))
        n = len(seats)
        if "commander" not in data:
            raise BadSetup("name the commander's seat")
        commander = _whole(data["commander"], 0, max(n - 1, 0), "'commander'")
        turn = _whole(data.get("turn", (commander + 1) % max(n, 1)), 0, max(n - 1, 0), "'turn'")
        event = data.get("event")
        if event is not None:
            if not isinstance(event, dict) or set(event) - {"card", "cubes"} \
                    or event.get("card") not in EVENTS:
                raise BadSetup("'event' is null or {\"card\": EVENT, \"cubes\": N}")
            # Checked against the cubes it needs in validate(): Risk Assessment adds one.
            event = (event["card"], event.get("cubes", 0))
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
        evacuation = data.get("evacuation", EVACUATION_START)
        if evacuation is not None:
            _whole(evacuation, EVACUATION_START, EVACUATION_VOTE - 1, "'evacuation'")
        lincoln_used = data.get("lincoln_used", False)
        if not isinstance(lincoln_used, bool):
            raise BadSetup("'lincoln_used' is true or false")
        clearances = data.get("clearances", [])
        if not isinstance(clearances, (list, tuple)) or not all(
                isinstance(c, int) and not isinstance(c, bool) for c in clearances):
            raise BadSetup("'clearances' is a list of seats")
        position = cls(
            seats, commander, turn,
            turns_played=_whole(data.get("turns_played", 0), 0, 10_000, "'turns_played'"),
            final_event=data.get("final_event"), variants=tuple(variants),
            shield=_whole(data.get("shield", 2), 0, TOKENS_TO_LOSE - 1, "'shield'"),
            outpost=_ids(data.get("outpost", []), outpost_tokens(expansion), "'outpost'",
                         TOKENS_TO_LOSE - 1),
            fatigue=_ids(data.get("fatigue", []),
                         ALL_FATIGUE_TOKENS if expansion else FATIGUE_TOKENS, "'fatigue'",
                         TOKENS_TO_LOSE - 1),
            sabotage=sabotage, suspicion=suspicion, event=event,
            completed_events=_ids(data.get("completed_events", []), EVENTS,
                                  "'completed_events'", EVENTS_BEFORE_FINAL),
            final_cubes=data.get("final_cubes", 0), pool=pool,
            task_deck=_ids(data.get("task_deck", []), TASKS, "'task_deck'"),
            task_discard=_ids(data.get("task_discard", []), TASKS, "'task_discard'"),
            event_deck=_ids(data.get("event_deck", []), EVENTS, "'event_deck'"),
            evacuation=evacuation if expansion else None, clearances=tuple(clearances),
            lincoln_used=lincoln_used)
        position.validate()
        return position

    def to_json(self) -> dict:
        shadow = ({"evacuation": self.evacuation, "clearances": list(self.clearances),
                   "lincoln_used": self.lincoln_used} if self.expansion else {})
        return {
            **shadow,
            "seats": [s.to_json(self.expansion) for s in self.seats],
            "commander": self.commander,
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
        self._check_fatigue_pool()
        self._check_evacuation()
        self._check_threats()

    def _check_statuses(self) -> None:
        seats, n = self.seats, len(self.seats)
        statuses = [s.status for s in seats]
        allowed = status_cards(self.variants)
        for i, s in enumerate(seats):
            if s.status is not None and s.status not in allowed:
                raise BadSetup(f"seat {i}: {s.status} is not dealt in this game (its variants "
                               "and modules)")
            if s.revealed and s.status in (None, UNINFECTED, COMPANY_MAN):
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
        infected = [st for st in statuses if st not in (UNINFECTED, COMPANY_MAN)]
        if statuses.count(COMPANY_MAN) > 1:
            raise BadSetup("there is one Company Man card")
        if len(infected) != STATUS_COUNTS[n][0]:
            raise BadSetup(f"{n} players have {STATUS_COUNTS[n][0]} Infected, not "
                           f"{len(infected)}")
        if len(set(infected)) != len(infected):
            raise BadSetup("each Infected status card is dealt once")
        all_revealed = all(s.revealed for s in seats if s.status in infected)
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
        if card is not None:
            _whole(self.event[1], 0, EVENTS[card].cubes + self.extra_cubes - 1,
                   f"the cubes on {card}")
        if self.final_active:
            if self.final_event is None:
                raise BadSetup("the final event is in play: name it ('final_event')")
            most = FINAL_EVENTS[self.final_event].cubes + self.extra_cubes - 1
            _whole(self.final_cubes, 0, most, f"the cubes on {self.final_event}")
        else:
            _whole(self.final_cubes, 0, 0, "'final_cubes' (cubes go on the final event once "
                   f"{EVENTS_BEFORE_FINAL} events are completed)")
        placed = set(self.completed_events) | ({card} if card else set())
        if set(self.event_deck) & placed:
            raise BadSetup("an event in the deck is also in play or completed")
        bad = sorted((placed | set(self.event_deck)) - set(event_cards(self.variants)))
        if bad:
            raise BadSetup(f"event cards out of this game: {bad}")

    def _check_decks(self) -> None:
        deck, discard = self.task_deck, self.task_discard
        if set(deck) & set(discard):
            raise BadSetup("a task card is both in the deck and in the discards")
        allowed = set(task_cards(self))
        bad = sorted((set(deck) | set(discard)) - allowed)
        if bad:
            raise BadSetup(f"task cards out of this game: {bad}")
        if EVACUATION_FAILURE in discard:
            raise BadSetup("the Evacuation Failure card is never discarded: whoever draws it "
                           "reveals it and it leaves the game")

    def _check_fatigue_pool(self) -> None:
        """Shadow Corporation's fatigue pool: the tokens of the characters in play, padded to
        six (ESOG Setup); a token on the board is in it."""
        if not self.expansion or not self.fatigue:
            return
        chars = [s.character for s in self.seats]
        if chars[0] is None:
            raise BadSetup("with Shadow Corporation the fatigue pool is built from the "
                           "characters in play: give them to place fatigue tokens")
        own = {c for c in chars if CHARACTERS[c].has_fatigue_token}
        spare = sorted(set(self.fatigue) - own)
        if len(spare) > max(0, FATIGUE_POOL - len(own)):
            raise BadSetup(f"fatigue tokens {spare} are not in this game's fatigue pool: "
                           f"it holds the {len(own)} tokens of the characters in play, padded "
                           f"to {FATIGUE_POOL}")

    def _check_evacuation(self) -> None:
        if not self.expansion:
            return
        n = len(self.seats)
        if self.evacuation is None and not self.final_active:
            raise BadSetup("'evacuation' is null only once the Evacuation Failure card was "
                           "drawn, during the final event")
        seen = set()
        for seat in self.clearances:
            if seat not in range(n) or seat in seen:
                raise BadSetup(f"'clearances': seat {seat} is not a seat, or is listed twice")
            seen.add(seat)
            s = self.seats[seat]
            if s.quarantined or s.revealed:
                raise BadSetup(f"'clearances': seat {seat} is quarantined or revealed: no "
                               "clearance")
        if len(self.clearances) > CLEARANCE_SEATS[n]:
            raise BadSetup(f"'clearances': the board has {CLEARANCE_SEATS[n]} seats at {n} "
                           "players")
        if self.clearances and self.evacuation is None:
            raise BadSetup("'clearances': the ship was recalled, every clearance with it")
        if self.lincoln_used and not any(s.character == "lincoln" for s in self.seats):
            raise BadSetup("'lincoln_used': Lincoln is not at this table")

    def _check_threats(self) -> None:
        seats = self.seats
        cards = [s.threat for s in seats]
        tokens = [s.threat_token for s in seats]
        if not any(cards) and not any(tokens):
            return
        if THREATS_MODULE not in self.variants:
            raise BadSetup("threat cards and tokens are the Threats module's: add it")
        if not self.refuelled:
            raise BadSetup("the threat cards are dealt once the refuelling card is discarded: "
                           "the turns played pass the number of seats")
        if any(cards):
            if any(s.threat is None and not s.revealed for s in seats):
                raise BadSetup("give every seat not revealed its threat card, or none (dealt "
                               "at random)")
            for card, most in THREAT_CARDS.items():
                if cards.count(card) > most:
                    raise BadSetup(f"there are {most} {card} threat cards")
        held = {c: 0 for c in THREAT_CARDS}
        wild = {c: 0 for c in THREAT_CARDS}
        for i, s in enumerate(seats):
            if s.threat_token is None:
                continue
            if s.threat is None and (any(cards) or s.revealed):
                raise BadSetup(f"seat {i} holds a threat token but no threat card")
            (wild if s.threat_token[1] else held)[s.threat_token[0]] += 1
        for card, most in THREAT_CARDS.items():
            if held[card] > most:
                raise BadSetup(f"there are {most} {card} threat tokens")
            if wild[card] and held[card] < most:
                raise BadSetup(f"a wild token goes on {card} only once its own tokens are gone")
        if sum(wild.values()) > WILD_TOKENS:
            raise BadSetup(f"there are {WILD_TOKENS} wild threat tokens")


def limit_of(s: SeatPosition) -> int:
    """The die limit as Game.die_limit counts it, before there is a Game."""
    if s.revealed:
        return REVEALED_DIE_LIMIT - s.amputated
    return max(1, BASE_DIE_LIMIT + s.die_tokens - s.amputated
               - (QUARANTINE_PENALTY if s.quarantined else 0))


def task_cards(p: Position) -> list[str]:
    """The task cards of this game: a dealt game's deck (setup.task_cards), without the
    complications once the final event begins (or every Infected is revealed with No More
    Complications); with Shadow Corporation the final event's deck takes the Evacuation
    Failure card while the evacuation goes on (facts §8b.5)."""
    cards = sorted(dealt_task_cards(len(p.seats), p.expansion))
    everyone_revealed = p.suspicion is None
    if p.final_active or ("no_more_complications" in p.variants and everyone_revealed):
        cards = [t for t in cards if TASKS[t].kind != COMPLICATION]
    if p.final_active and p.expansion and p.evacuation is not None:
        cards = sorted(cards + [EVACUATION_FAILURE])
    return cards


def build_position(p: Position, ctx: Ctx) -> Game:
    """The game the position describes; what it leaves open is drawn from `ctx.chance`, out
    of the cards and tokens a dealt game with the same variants and modules has."""
    chance, n, expansion = ctx.chance, len(p.seats), p.expansion
    setup = p.setup
    characters = deal_characters(setup, chance)
    statuses = [s.status for s in p.seats]
    if statuses[0] is None:
        statuses = deal_statuses(n, p.variants, chance)
    seats = []
    for sp, character, status in zip(p.seats, characters, statuses):
        seat = Seat(sp.name, character, status,
                    dict(zip((STRONG, WEAK, COMMANDER), sp.dice)))
        seat.die_tokens, seat.quarantined, seat.revealed = (sp.die_tokens, sp.quarantined,
                                                            sp.revealed)
        seat.amputated = sp.amputated
        seats.append(seat)
    pool = (fatigue_pool(characters, chance, p.fatigue) if expansion
            else list(FATIGUE_TOKENS))
    g = Game(players=n, variants=frozenset(p.variants), deck_colour=TASK_DECK_FOR[n],
             seats=seats,
             outpost_board=list(p.outpost),
             outpost_pile=[t for t in outpost_tokens(expansion) if t not in p.outpost],
             fatigue_board=list(p.fatigue),
             fatigue_pile=[t for t in pool if t not in p.fatigue])
    g.pool = {c: DICE_IN_BOX[c] - sum(s.dice[c] for s in seats) for c in DICE_IN_BOX}
    g.spent = {c: 0 for c in DICE_IN_BOX}  # at a turn's beginning every spent die is back
    g.shield_tokens, g.sabotage, g.suspicion = p.shield, p.sabotage, p.suspicion
    g.commander, g.active, g.turn = p.commander, p.turn, p.turns_played
    g.completed_events = list(p.completed_events)
    g.extra_cubes = p.extra_cubes
    g.event, g.event_cubes = p.event if p.event else (None, 0)
    g.final_event = p.final_event or chance.pick(available(FINAL_EVENTS, expansion))
    g.final_active, g.final_cubes = p.final_active, p.final_cubes
    if expansion:
        g.evacuation, g.clearances = p.evacuation, list(p.clearances)
        g.refuelled, g.lincoln_used = p.refuelled, p.lincoln_used
        g.threat_tokens = {i: s.threat_token for i, s in enumerate(p.seats) if s.threat_token}
    # Decks: the listed cards on top in order (the top is the end of the list), the rest
    # shuffled beneath them.
    rest = [t for t in task_cards(p) if t not in p.task_deck and t not in p.task_discard]
    g.task_deck = chance.shuffle(rest) + list(reversed(p.task_deck))
    g.task_discard = list(p.task_discard)
    placed = set(p.completed_events) | ({p.event[0]} if p.event else set())
    rest = [e for e in event_cards(p.variants) if e not in placed and e not in p.event_deck]
    g.event_deck = chance.shuffle(rest) + list(reversed(p.event_deck))
    announce(g, ctx, characters)
    for hook in HOOKS["position_built"]:  # the Threats module's cards, once refuelled
        hook(g, ctx, p)
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
