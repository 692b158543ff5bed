"""Bots for simulations, demos and tests, and `simulate`: whole games between bots.

Three kinds: the sensible bots (companion.tools.sensible: status-aware, each seat deciding from its
own view; simulate's default and the demo's), the helpful bot (mostly plays for the
Uninfected whatever its status: many seeded tests') and the random bot (uniform among legal
options)."""
from __future__ import annotations

import random
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable

from ..darkmoon import Chance, Ctx, Game, Setup, play, seat_view, start
from ..darkmoon.api import apply_event
from .sensible import sensible_choice

MAX_COMMANDS = 20_000  # a guard: a game that runs this long is a bug to report


@dataclass
class Played:
    game: Game
    events: list = field(default_factory=list)
    commands: int = 0


def bot_choice(g: Game, rng: random.Random) -> tuple[int, dict]:
    """The next (seat, command) a uniformly random bot would send."""
    pending = g.pending
    seat = rng.choice(pending.seats)
    option = rng.choice(pending.options[seat])
    return seat, {"decision": pending.kind, "option": list(option)}


def helpful_choice(g: Game, rng: random.Random) -> tuple[int, dict]:
    """A bot that mostly plays for the Uninfected, so tests reach events and the final
    event; it still picks at random one time in four."""
    seat = rng.choice(g.pending.seats)
    return seat, choice_for(g, seat, rng)


def choice_for(g: Game, seat: int, rng: random.Random) -> dict:
    """The helpful bot's command for one waiting seat."""
    pending = g.pending
    options = pending.options[seat]
    option = rng.choice(options)
    if rng.random() < 0.75:
        score = {
            "submit": lambda o: (-1 if o == ("reroll",) else
                                 sum(g.seats[seat].rolled[i][1] for i in o[1:])),
            "participation": lambda o: o == ("in",),
            "continue": lambda o: (o == ("roll_again",)) == (
                g.task is not None and g.task.success_total < g.task.difficulty),
            "action": lambda o: {"repair": 3, "lone_wolf": 2, "pass": 1}.get(o[0], 0),
            "bonus": lambda o: o != ("skip",),
            "vote": lambda o: {"strong": 2, "weak": 1}.get(o[0], 0)
            if not g.seats[seat].infected else 0,
            "agree": lambda o: o == ("agree",),
        }.get(pending.kind)
        if score:
            option = max(options, key=score)
    return {"decision": pending.kind, "option": list(option)}


class Sensible:
    """The sensible bots at one game: each waiting seat decides from its own seat view and
    the public log (what its phone showed it), never from the game's state."""

    def __init__(self, events: list):
        self.events, self.read, self.public = events, 0, []

    def __call__(self, g: Game, rng: random.Random) -> tuple[int, dict]:
        for event in self.events[self.read:]:
            self.public += [f for f in event["facts"] if "to" not in f]
        self.read = len(self.events)
        seat = rng.choice(g.pending.seats)
        view = seat_view(g, seat)
        view["log"] = self.public  # everything said in public so far: a player remembers it
        return seat, sensible_choice(view, rng)


# simulate --bots NAME: how each plays, and the words the results print about them
BOTS = {"sensible": (Sensible, "sensible (status-aware: the Uninfected help, the Infected "
                               "sabotage quietly)"),
        "helpful": (helpful_choice, "helpful (every seat mostly helps, whatever its status)"),
        "random": (bot_choice, "random (uniform among the legal options)")}


def play_game(setup: Setup, seed: int,
              after_each: Callable[[Game, dict], None] | None = None,
              choose=bot_choice) -> Played:
    """One whole game between bots. The bots' choices and the dice share one seeded rng,
    so a seed names a game exactly. `choose(g, rng)` gives the next (seat, command); a class
    (Sensible) is first made for the game from its event list."""
    rng = random.Random(seed)
    events = start(setup, rng)
    g = apply_event(None, events[0])
    played = Played(g, events)
    if isinstance(choose, type):
        choose = choose(events)
    while g.outcome is None:
        if played.commands >= MAX_COMMANDS:
            raise RuntimeError(f"game with seed {seed} did not end in {MAX_COMMANDS} commands")
        seat, command = choose(g, rng)
        event = play(g, seat, command, Ctx(Chance(rng=rng)))
        events.append(event)
        played.commands += 1
        if after_each:
            after_each(g, event)
    return played


def simulate(games: int, players: int, seed: int, variants: tuple = (),
             bots: str = "sensible") -> dict:
    names = tuple(f"Player {i + 1}" for i in range(players))
    choose = BOTS[bots][0]
    wins, conditions, turns = Counter(), Counter(), 0
    began = time.perf_counter()
    for k in range(games):
        g = play_game(Setup(names, variants=tuple(variants)), seed + k, choose=choose).game
        wins[g.outcome.winner] += 1
        conditions[g.outcome.condition] += 1
        turns += g.turn
    elapsed = time.perf_counter() - began
    return {"games": games, "players": players, "bots": bots, "wins": dict(wins),
            "conditions": dict(conditions), "mean_turns": turns / games if games else 0,
            "games_per_second": games / elapsed if elapsed else float("inf")}
