"""The game's state: plain dataclasses the rules read and change, cloned before each command."""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from .data import (BASE_DIE_LIMIT, COMMANDER, COMPANY_MAN, DICE_IN_BOX, FATIGUE_TOKENS,
                   QUARANTINE_PENALTY, REVEALED_DIE_LIMIT, STRONG, UNINFECTED, WEAK)

# The rules compare states and kinds as StrEnums (Status, TaskKind, Side), each equal to its
# string. The state itself holds the plain strings a stored game's log holds (str() of a
# member, where one enters the state), so a game played and the same game read back from its
# log are the same state, type for type.


class Side(StrEnum):
    """Who wins a game: its Outcome's winner."""
    UNINFECTED = "uninfected"
    INFECTED = "infected"
    COMPANY_MAN = "company_man"  # the Company Man module's third side


@dataclass(slots=True)
class Seat:
    name: str
    character: str | None
    status: str  # a Status's string
    dice: dict = field(default_factory=lambda: {STRONG: 2, WEAK: 2, COMMANDER: 0})
    # The dice of the roll in progress, as (colour, face); they are among `dice`.
    rolled: list = field(default_factory=list)
    die_tokens: int = 0
    quarantined: bool = False
    revealed: bool = False
    amputated: bool = False   # Shadow Corporation: a permanent -1 die limit, one per player

    def clone(self) -> "Seat":
        return Seat(self.name, self.character, self.status, self.dice.copy(), self.rolled[:],
                    self.die_tokens, self.quarantined, self.revealed, self.amputated)

    @property
    def infected(self) -> bool:
        return self.status not in (UNINFECTED, COMPANY_MAN)  # the Company Man is neither

    @property
    def held(self) -> int:
        """Dice that count against the die limit (the commander die does not)."""
        return self.dice[STRONG] + self.dice[WEAK]

    @property
    def all_dice(self) -> int:
        return self.dice[STRONG] + self.dice[WEAK] + self.dice[COMMANDER]


@dataclass(slots=True)
class Frame:
    """A step still to run; the stack of frames is the game's program counter."""
    step: str
    args: dict

    def clone(self) -> "Frame":
        return Frame(self.step, _copied(self.args))


@dataclass(slots=True)
class Pending:
    """What the game waits for: one decision, asked of one seat or of several at once."""
    kind: str
    options: dict          # seat -> list of legal options (tuples)
    data: dict = field(default_factory=dict)
    blocked: dict = field(default_factory=dict)   # seat -> [(option, reason)]
    answers: dict = field(default_factory=dict)   # simultaneous decisions: seat -> option
    simultaneous: bool = False

    def clone(self) -> "Pending":
        # options and blocked: seat -> a list of tuples; answers: seat -> a tuple
        return Pending(self.kind, {s: o[:] for s, o in self.options.items()},
                       _copied(self.data), {s: b[:] for s, b in self.blocked.items()},
                       self.answers.copy(), self.simultaneous)

    @property
    def seats(self) -> list[int]:
        """The seats the game waits for: in a simultaneous decision, those still to answer."""
        return [s for s in self.options if s not in self.answers]

    @property
    def answerable(self) -> list[int]:
        """The seats whose answer is taken now. A simultaneous decision is a closed fist
        (RB Call a vote: "All players then hold out a closed fist and simultaneously
        reveal"): a seat that has answered may answer again until the last seat is in."""
        return list(self.options) if self.simultaneous else self.seats


@dataclass(slots=True)
class TaskInPlay:
    card: str
    kind: str  # a TaskKind's string
    type: str | None = None
    difficulty: int = 0
    consequence: int = 0
    success_total: int = 0
    order: list = field(default_factory=list)          # participation order
    participation: dict = field(default_factory=dict)  # seat -> "in" | "out"
    submitted: list = field(default_factory=list)      # public: (seat, face)
    success: bool | None = None
    corporation: list = field(default_factory=list)    # public: submitted corporation faces

    def clone(self) -> "TaskInPlay":
        return TaskInPlay(self.card, self.kind, self.type, self.difficulty, self.consequence,
                          self.success_total, self.order[:], self.participation.copy(),
                          self.submitted[:], self.success, self.corporation[:])


@dataclass(slots=True)
class Outcome:
    winner: str  # a Side's string
    condition: str       # shield, outpost, fatigue, final_event, codes; evacuated, infected_aboard

    def clone(self) -> "Outcome":
        return Outcome(self.winner, self.condition)


@dataclass(slots=True)
class Game:
    players: int
    variants: frozenset
    deck_colour: str
    seats: list
    pool: dict = field(default_factory=dict)
    spent: dict = field(default_factory=dict)
    # Dice the host reported lost under the table: out of play, still among the 29 in the box.
    lost: dict = field(default_factory=lambda: {c: 0 for c in DICE_IN_BOX})
    shield_tokens: int = 2
    outpost_board: list = field(default_factory=list)
    outpost_pile: list = field(default_factory=list)
    fatigue_board: list = field(default_factory=list)
    fatigue_pile: list = field(default_factory=lambda: list(FATIGUE_TOKENS))
    sabotage: str | None = None
    task_deck: list = field(default_factory=list)     # top is the end of the list
    task_discard: list = field(default_factory=list)
    task_drawn: list = field(default_factory=list)    # private to the drawing seat
    task: TaskInPlay | None = None
    event_deck: list = field(default_factory=list)    # top is the end of the list
    event_drawn: list = field(default_factory=list)   # private to the commander
    event: str | None = None
    event_cubes: int = 0
    completed_events: list = field(default_factory=list)
    final_event: str = ""
    final_cubes: int = 0
    final_active: bool = False
    suspicion: int | None = 1
    commander: int = 0
    active: int = 0
    turn: int = 0
    luba_reroll_used: bool = False
    last_vote: dict | None = None
    stack: list = field(default_factory=list)
    pending: Pending | None = None
    outcome: Outcome | None = None
    state_id: int = 0
    # --- Shadow Corporation (all unused in a base game) ---
    corporation: list = field(default_factory=list)  # the active seat's private roll: faces
    evacuation: int | None = None   # the evacuation cube; None: not in play, or recalled
    clearances: list = field(default_factory=list)   # seats cleared, in the order cleared
    refuelled: bool = False         # the first full round is over: take-off is possible
    extra_cubes: int = 0            # Risk Assessment: the current event needs this many more
    lincoln_used: bool = False
    threats: dict = field(default_factory=dict)        # seat -> its threat card (private)
    threat_tokens: dict = field(default_factory=dict)  # seat -> (threat, wild) (public)

    def clone(self) -> "Game":
        """A copy sharing no mutable object with this one (strings, numbers, tuples and the
        frozen variants are shared). Written out field by field: every command clones the
        state, and this is several times faster than pickling the tree.
        tests/darkmoon/test_clone.py checks that no field is forgotten."""
        task, pending, outcome = self.task, self.pending, self.outcome
        return Game(
            self.players, self.variants, self.deck_colour, [s.clone() for s in self.seats],
            self.pool.copy(), self.spent.copy(), self.lost.copy(), self.shield_tokens,
            self.outpost_board[:], self.outpost_pile[:], self.fatigue_board[:],
            self.fatigue_pile[:], self.sabotage, self.task_deck[:], self.task_discard[:],
            self.task_drawn[:], None if task is None else task.clone(), self.event_deck[:],
            self.event_drawn[:], self.event, self.event_cubes, self.completed_events[:],
            self.final_event, self.final_cubes, self.final_active, self.suspicion,
            self.commander, self.active, self.turn, self.luba_reroll_used,
            None if self.last_vote is None else _copied(self.last_vote),
            [f.clone() for f in self.stack], None if pending is None else pending.clone(),
            None if outcome is None else outcome.clone(), self.state_id,
            self.corporation[:], self.evacuation, self.clearances[:], self.refuelled,
            self.extra_cubes, self.lincoln_used, self.threats.copy(),
            self.threat_tokens.copy())

    # --- derived facts the rules ask often ---

    def has(self, variant: str) -> bool:
        return variant in self.variants

    def left_of(self, seat: int) -> int:
        return (seat + 1) % self.players

    def clockwise_from(self, seat: int) -> list[int]:
        return [(seat + i) % self.players for i in range(self.players)]

    def players_in_game(self) -> list[int]:
        """The rulebook's "players": everyone not revealed as Infected."""
        return [i for i, s in enumerate(self.seats) if not s.revealed]

    def fatigued(self, seat: int) -> bool:
        s = self.seats[seat]
        return (not s.revealed and s.character is not None
                and s.character in self.fatigue_board)

    def die_limit(self, seat: int) -> int:
        s = self.seats[seat]
        if s.revealed:  # an amputation stays after a reveal (ESOG Vote for amputation)
            return REVEALED_DIE_LIMIT - s.amputated
        limit = (BASE_DIE_LIMIT + s.die_tokens - s.amputated
                 - (QUARANTINE_PENALTY if s.quarantined else 0))
        return max(1, limit)  # "Players always have access to at least one die" (RB Quarantine)

    def ability(self, seat: int, character: str) -> bool:
        s = self.seats[seat]
        return s.character == character and not self.fatigued(seat) and not s.revealed

    def all_infected_revealed(self) -> bool:
        return all(s.revealed for s in self.seats if s.infected)

    def evacuating(self) -> bool:
        """Shadow Corporation's evacuation is on: not recalled by the Evacuation Failure."""
        return self.evacuation is not None

    def current_event_is(self, event_id: str) -> bool:
        return (self.final_event if self.final_active else self.event) == event_id

    def dice_total(self) -> dict:
        total = {c: self.pool[c] + self.spent[c] + self.lost[c] for c in DICE_IN_BOX}
        for s in self.seats:
            for c in DICE_IN_BOX:
                total[c] += s.dice[c]
        return total


_SHARED = (str, int, bool, type(None), tuple, frozenset)


def _copied(value):
    """A copy of the dicts and lists in an open container (a step's arguments, a decision's
    data), whose contents no field type fixes; anything else is immutable and shared."""
    kind = type(value)
    if kind is dict:
        return {k: v if type(v) in _SHARED else _copied(v) for k, v in value.items()}
    if kind is list:
        return [v if type(v) in _SHARED else _copied(v) for v in value]
    if kind is set:
        return set(value)
    if kind in _SHARED:
        return value
    raise TypeError(f"the game state holds a {kind.__name__}, which clone() cannot copy")
