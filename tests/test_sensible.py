"""The sensible bots (simulate's default): they play their status, so that the win rates
`simulate` prints mean something, and they decide from one seat's view alone."""
from __future__ import annotations

import copy
import random

from companion.darkmoon import Setup, seat_view
from companion.tools.sensible import sensible_choice
from companion.tools.simulate import Sensible, bot_choice, play_game, simulate

FIVE = tuple("ABCDE")


def test_with_sensible_bots_both_sides_win_and_the_random_bots_never_let_the_uninfected():
    """Simulate reported 100% Infected wins (the random bots: nobody tries). With
    bots that play their status, five players' games go either way."""
    sensible = simulate(40, 5, seed=1)
    assert sensible["bots"] == "sensible"
    assert sensible["wins"].get("uninfected", 0) >= 6, sensible["wins"]
    assert sensible["wins"].get("infected", 0) >= 6, sensible["wins"]
    assert sensible["conditions"].get("final_event", 0) >= 1  # the Uninfected's one way
    assert simulate(20, 5, seed=1, bots="random")["wins"] == {"infected": 20}


class Twinned(Sensible):
    """The sensible bots, each decision also made on a twin game in which the other seats'
    hidden statuses are dealt the other way round: the choice must not change."""

    compared = 0

    def __call__(self, g, rng):
        state = rng.getstate()
        seat, command = super().__call__(g, rng)
        hidden = [i for i, s in enumerate(g.seats) if i != seat and not s.revealed]
        infected = [i for i in hidden if g.seats[i].infected]
        uninfected = [i for i in hidden if not g.seats[i].infected]
        if infected and uninfected:
            twin = copy.deepcopy(g)
            a, b = infected[0], uninfected[0]
            twin.seats[a].status, twin.seats[b].status = g.seats[b].status, g.seats[a].status
            view = seat_view(twin, seat)
            view["log"] = self.public
            again = random.Random()
            again.setstate(state)
            again.choice(g.pending.seats)  # the same draws as the first choice made
            assert sensible_choice(view, again) == command, \
                f"seat {seat}'s {command['decision']} depends on another seat's status"
            Twinned.compared += 1
        return seat, command


def test_the_bot_never_reads_another_seats_status():
    """A bot sits at the table as a player does: it knows its own status and what the table
    saw, nothing else. Each decision is made from that seat's view alone; swapping two other
    seats' hidden statuses changes none of its choices."""
    for seed in (3, 4):
        play_game(Setup(FIVE), seed, choose=Twinned)
    assert Twinned.compared > 200


class Watched(Sensible):
    """The sensible bots, with every submission noted: (uninfected?, faces rolled, chosen)."""

    seen: list = []

    def __call__(self, g, rng):
        seat, command = super().__call__(g, rng)
        rolled = [face for _, face in g.seats[seat].rolled]
        if command["decision"] == "submit" and command["option"][0] == "submit":
            chosen = [rolled[i] for i in command["option"][1:]]
            Watched.seen.append((not g.seats[seat].infected, rolled, chosen))
        return seat, command


def test_uninfected_bots_submit_their_best_dice_and_infected_bots_mostly_their_worst():
    for seed in range(4):
        play_game(Setup(FIVE), seed, choose=Watched)
    helping = [(rolled, chosen) for uninfected, rolled, chosen in Watched.seen if uninfected]
    assert helping and all(max(chosen) == max(rolled) for rolled, chosen in helping)
    hurting = [(rolled, chosen) for uninfected, rolled, chosen in Watched.seen
               if not uninfected and len(rolled) > 1 and min(rolled) != max(rolled)]
    worst = sum(min(chosen) == min(rolled) for rolled, chosen in hurting)
    # Quiet now and then, and once the table suspects them; but sabotage is no rare slip.
    assert hurting and 0.3 < worst / len(hurting) < 1
