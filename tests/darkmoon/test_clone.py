"""Game.clone() is written out field by field (every command clones the state, and pickling it
cost most of a command): a clone must be equal to its original and share no mutable object
with it at any depth, or a refused or replayed command would change the state it was given
(api.decide promises "the state passed in is never changed"). Every check here is derived
from dataclasses.fields, so a field added to a state class later cannot be forgotten."""
from __future__ import annotations

import dataclasses
import inspect
import random

import pytest

from companion.darkmoon import Chance, Ctx, Setup, decide, play, start
from companion.darkmoon import state as state_module
from companion.darkmoon.api import apply_event
from companion.darkmoon.data import VARIANTS
from companion.darkmoon.state import Frame, Game, Outcome, Pending, TaskInPlay
from companion.tools.simulate import bot_choice, helpful_choice, play_game

IMMUTABLE = (str, int, bool, type(None))
STATE_CLASSES = [c for _, c in inspect.getmembers(state_module, inspect.isclass)
                 if dataclasses.is_dataclass(c) and c.__module__ == state_module.__name__]


def same_but_unshared(original, clone, path: str = "g") -> None:
    """Walk both trees together: equal everywhere, and no mutable object is the same one."""
    kind = type(original)
    assert type(clone) is kind, f"{path}: {type(clone).__name__} in the clone, {kind.__name__}"
    if kind in IMMUTABLE:
        assert clone == original, f"{path}: {clone!r} != {original!r}"
        return
    if kind in (tuple, frozenset):  # shared is fine, but nothing mutable may sit inside
        assert clone == original, f"{path}: {clone!r} != {original!r}"
        for i, (a, b) in enumerate(zip(sorted(original, key=repr), sorted(clone, key=repr))):
            same_but_unshared(a, b, f"{path}[{i}]")
        return
    assert clone is not original, f"{path}: the clone shares this {kind.__name__}"
    if dataclasses.is_dataclass(original):
        for f in dataclasses.fields(original):
            same_but_unshared(getattr(original, f.name), getattr(clone, f.name),
                              f"{path}.{f.name}")
    elif kind is dict:
        assert list(clone) == list(original), f"{path}: keys {list(clone)} != {list(original)}"
        for key, value in original.items():
            same_but_unshared(value, clone[key], f"{path}[{key!r}]")
    elif kind is list:
        assert len(clone) == len(original), f"{path}: {len(clone)} items, not {len(original)}"
        for i, (a, b) in enumerate(zip(original, clone)):
            same_but_unshared(a, b, f"{path}[{i}]")
    elif kind is set:
        assert clone == original, f"{path}: {clone!r} != {original!r}"
    else:
        pytest.fail(f"{path}: a {kind.__name__} in the state, which the walk does not know")


def mutable_ids(value, found: dict) -> dict:
    """id -> object for every mutable object in the tree (kept alive so ids stay unique)."""
    if isinstance(value, IMMUTABLE):
        return found
    if not isinstance(value, (tuple, frozenset)):
        found[id(value)] = value
    if dataclasses.is_dataclass(value):
        children = [getattr(value, f.name) for f in dataclasses.fields(value)]
    elif isinstance(value, dict):
        children = list(value.values())
    else:
        children = list(value)
    for child in children:
        mutable_ids(child, found)
    return found


def check_clone(g: Game) -> None:
    clone = g.clone()
    same_but_unshared(g, clone)
    # nor anywhere else in it: a clone's list that is some other list of the original's
    shared = mutable_ids(g, {}).keys() & mutable_ids(clone, {}).keys()
    assert not shared, "the clone shares mutable objects with its original"


@pytest.mark.parametrize("players,variants,choose,seed", [
    (3, (), bot_choice, 1), (5, VARIANTS, helpful_choice, 2), (7, VARIANTS, bot_choice, 3),
    (6, ("deadly_events", "safe_orders"), helpful_choice, 4),
    (5, ("shadow_corporation",), bot_choice, 5), (7, ("shadow_corporation",), helpful_choice, 6)])
def test_every_state_of_a_game_clones_equal_and_unshared(players, variants, choose, seed):
    setup = Setup(tuple(f"P{i}" for i in range(players)), variants=variants)
    played = play_game(setup, seed, after_each=lambda g, _event: check_clone(g), choose=choose)
    check_clone(played.game)  # the game over, with its outcome
    assert played.game.outcome is not None


def default_of(f: dataclasses.Field):
    if f.default is not dataclasses.MISSING:
        return f.default
    if f.default_factory is not dataclasses.MISSING:
        return f.default_factory()
    return dataclasses.MISSING


def everything_set() -> Game:
    """A real game in play with every field of every state class away from its default, so
    a clone that forgot one (leaving the default) differs from its original."""
    g = apply_event(None, start(Setup(tuple(f"P{i}" for i in range(5)),
                                      variants=("safe_orders",)), random.Random(7))[0])
    rng = random.Random(7)
    while g.task is None or not g.completed_events:
        seat, command = helpful_choice(g, rng)
        play(g, seat, command, Ctx(Chance(rng=rng)))
    seat = g.seats[1]
    seat.rolled, seat.die_tokens, seat.quarantined, seat.revealed = [("strong", 3)], 1, True, True
    seat.amputated = True
    g.lost = {colour: 1 for colour in g.lost}
    g.shield_tokens, g.sabotage, g.event_cubes, g.final_cubes = 1, "sabotage_card", 2, 1
    g.event = "event_b"
    g.outpost_board, g.outpost_pile = ["outpost_a"], ["outpost_b"]
    g.fatigue_board, g.fatigue_pile = ["fatigue_a"], ["fatigue_b"]
    g.task_discard, g.task_drawn, g.event_drawn = ["task_a"], ["task_b"], ["event_a"]
    g.final_active, g.suspicion, g.luba_reroll_used = True, None, True
    g.commander, g.active, g.turn, g.last_vote = 2, 3, 4, {"result": "quarantine", "seat": 1}
    g.task = TaskInPlay("task_c", "task", "repair", 4, 2, 3, [0, 1], {0: "in", 1: "out"},
                        [(0, 3)], True, [-2])
    # Shadow Corporation's fields
    g.corporation, g.evacuation, g.clearances = [-1, 0], 3, [4]
    g.refuelled, g.extra_cubes, g.lincoln_used = True, 1, True
    g.threats, g.threat_tokens = {0: "exposure"}, {0: ("exposure", False)}
    g.stack = [Frame("step_a", {"seats": [1, 2], "by": {"x": [3]}, "n": 1})]
    g.pending = Pending("vote", {0: [("strong",)], 1: [("weak",)]},
                        {"ordered": True, "counts": {"a": 1}, "names": ["b"]},
                        {0: [(("weak",), "no weak die")]}, {1: ("weak",)}, True)
    g.outcome = Outcome("uninfected", "codes")
    g.state_id = 99
    return g


def objects_of(g: Game) -> dict[type, object]:
    return {Game: g, state_module.Seat: g.seats[1], Frame: g.stack[0], Pending: g.pending,
            TaskInPlay: g.task, Outcome: g.outcome}


def test_the_example_sets_every_field_of_every_state_class():
    # the guard on the next test: a new field (or class) must be given a value here first
    objects = objects_of(everything_set())
    assert set(objects) == set(STATE_CLASSES), "a state class the example does not hold"
    for cls, obj in objects.items():
        for f in dataclasses.fields(cls):
            default = default_of(f)
            assert default is dataclasses.MISSING or getattr(obj, f.name) != default, \
                f"{cls.__name__}.{f.name} is left at its default in the example"


def test_a_clone_copies_every_field_of_every_state_class():
    g = everything_set()
    clone = g.clone()
    for cls, obj in objects_of(g).items():
        copied = objects_of(clone)[cls]
        for f in dataclasses.fields(cls):
            assert getattr(copied, f.name) == getattr(obj, f.name), \
                f"clone() forgot {cls.__name__}.{f.name}"
    check_clone(g)


def test_a_command_decided_on_a_state_leaves_it_as_it_was():
    # decide() works on a clone: a shallow one would let the command reach the original
    played = play_game(Setup(tuple(f"P{i}" for i in range(4))), 5)
    rng = random.Random(5)
    g = apply_event(None, played.events[0])
    for event in played.events[1:40]:
        before = g.clone()
        decide(g, event["actor"], event["command"], rng)
        same_but_unshared(before, g)
        apply_event(g, event)
