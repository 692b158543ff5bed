"""The dice a seat may submit from its roll: every choice of between `least` and `most` dice,
each set of dice offered once however many identical dice could make it (a phone listing
"-2, -2" three times would be three buttons for one choice). submit_options finds these
without sorting every subset (it runs on every roll); this checks it against the rule as
written: the subsets in combinations' order, each first one with its dice kept."""
from __future__ import annotations

import random
from itertools import combinations

import pytest

from companion.darkmoon.data import FACES
from companion.darkmoon.dice import COLOURS, submit_options


def as_written(rolled: list, least: int, most: int) -> list[tuple]:
    seen, options = [], []
    for size in range(least, min(most, len(rolled)) + 1):
        for idx in combinations(range(len(rolled)), size):
            dice = sorted(rolled[i] for i in idx)
            if dice not in seen:
                seen.append(dice)
                options.append(("submit",) + idx)
    return options


@pytest.mark.parametrize("seed", range(4))
def test_each_set_of_dice_is_offered_once_by_its_first_subset(seed):
    rng = random.Random(seed)
    for _ in range(300):
        colours = rng.choices(COLOURS, k=rng.randint(0, 8))
        rolled = [(c, rng.choice(FACES[c])) for c in colours]
        least, most = rng.choice([(0, 1), (1, 1), (1, 2), (1, 3), (2, 3), (1, len(rolled))])
        assert submit_options(rolled, least, most) == as_written(rolled, least, most), rolled


def test_three_identical_dice_give_one_option_per_count():
    rolled = [("strong", -2), ("strong", -2), ("weak", 3), ("strong", -2)]
    assert submit_options(rolled, 1, 2) == [
        ("submit", 0), ("submit", 2), ("submit", 0, 1), ("submit", 0, 2)]
