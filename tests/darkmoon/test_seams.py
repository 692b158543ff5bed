"""The expansion beside the base game: a base game needs nothing of Shadow Corporation, the
rules are registered in one place, and the states the rules compare stay their strings."""

import json
import random
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from companion.darkmoon import Setup, replay, start
from companion.darkmoon import engine, rules
from companion.darkmoon.api import step
from companion.darkmoon.data import COMPANY_MAN, UNINFECTED, Status, TaskKind
from companion.darkmoon.state import Side

REPO_ROOT = Path(__file__).resolve().parents[2]

# Plays games by seeded random legal choices and prints every event of each as JSON.
PLAY = textwrap.dedent(
    """
    import json, random, sys
    from companion.darkmoon import replay, start, waiting_for
    from companion.darkmoon.api import step

    def play(seed, variants):
        names = [f"P{i}" for i in range(3 + seed % 5)]
        events = start({"names": names, "variants": variants}, random.Random(seed))
        g, pick = replay(events), random.Random(seed + 1)
        while g.outcome is None:
            w = waiting_for(g)
            seat = pick.choice(w["seats"])
            command = {"decision": w["decision"], "option": list(pick.choice(w["options"][seat]))}
            new, g = step(g, seat, command, random.Random(seed * 7919 + len(events)))
            events += new
        return events
    """
)


def play_in_a_fresh_process(prelude: str, games: int, variants: list) -> list:
    code = PLAY + textwrap.dedent(prelude) + textwrap.dedent(
        f"""
        print(json.dumps([play(seed, {variants!r}) for seed in range({games})]))
        """
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


# In a fresh process: the engine's registry emptied, then the base game's rules alone.
BASE_ONLY = """
    from companion.darkmoon import engine, rules
    for table in (engine.STEPS, engine.ANSWERS, engine.ACTIONS, engine.SUBMITTED,
                  engine.SETTLE, engine.POWERS, engine.COMPLICATIONS):
        table.clear()
    for hooks in engine.HOOKS.values():
        hooks.clear()
    rules.register_base()
"""


def test_a_base_game_plays_the_same_with_nothing_of_the_expansion_registered():
    """Only the base game's modules in the engine's registry, no hook at any seam: every
    base game (variants too) plays event for event as with the whole rules registered, so
    the expansion adds to the base turn only at its seams, and only when it is played."""
    base_only = BASE_ONLY + """
    assert "corporation_roll" not in engine.STEPS and not any(engine.HOOKS.values())
    """
    for variants in ([], ["costly_actions", "expensive_voting", "first_is_last",
                          "no_more_complications", "nerfed_reveal_normal"]):
        alone = play_in_a_fresh_process(base_only, 12, variants)
        whole = play_in_a_fresh_process("", 12, variants)
        assert alone == whole
        assert all(events[-1]["facts"][-1]["k"] == "game_over" for events in alone)


def test_without_the_expansion_registered_a_shadow_corporation_game_cannot_be_played():
    """The check above can fail: the expansion's game needs what only its modules add."""
    base_only = BASE_ONLY
    code = PLAY + textwrap.dedent(base_only) + "\nplay(4, ['shadow_corporation'])\n"
    result = subprocess.run([sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True,
                            text=True, timeout=300)
    assert result.returncode != 0 and "KeyError" in result.stderr


def test_registering_again_changes_nothing():
    tables = (engine.STEPS, engine.ANSWERS, engine.ACTIONS, engine.SUBMITTED, engine.SETTLE,
              engine.POWERS, engine.COMPLICATIONS)
    before = [dict(t) for t in tables], {k: list(v) for k, v in engine.HOOKS.items()}
    rules.register_all()
    assert ([dict(t) for t in tables], {k: list(v) for k, v in engine.HOOKS.items()}) == before
    assert engine.HOOKS["action_options"]  # the expansion's votes and the exposure are hooked


def test_two_rules_under_one_name_are_refused():
    """A second module naming its step like another's would silently replace it."""
    clash = engine.Rules()

    @clash.step("turn_start")
    def another_turn_start(g, ctx, seat):
        raise AssertionError("never runs")

    with pytest.raises(AssertionError, match="turn_start"):
        clash.install()
    assert engine.STEPS["turn_start"] is not another_turn_start


def test_the_states_the_rules_compare_are_their_own_strings():
    """Statuses, task kinds and winners are StrEnums: equal to their strings (a game read
    back from its JSON log compares the same) and written as those strings."""
    assert UNINFECTED == "uninfected" and COMPANY_MAN == "company_man"
    assert json.dumps({Status.INFECTED_CLEARANCE: [TaskKind.RECALL, Side.COMPANY_MAN]}) \
        == '{"infected_clearance": ["recall", "company_man"]}'
    assert f"{Side.INFECTED}" == "infected" and str(TaskKind.MALFUNCTION) == "malfunction"


@pytest.mark.parametrize("variants", [[], ["shadow_corporation", "threats_module",
                                           "company_man_module"]])
def test_a_game_played_and_its_stored_log_read_back_are_the_same_state(variants):
    """The rules compare the enums, the state holds their strings: a game played and its log
    read back from JSON hold the same values of the same types (a member left in the live
    state would be a str subclass the replayed one does not have)."""
    rng = random.Random(3)
    events = start(Setup(names=tuple(f"P{i}" for i in range(6)), variants=tuple(variants)),
                   random.Random(3))
    g, tasks = replay(events), []
    while g.outcome is None:
        seat = g.pending.seats[0]
        option = rng.choice(g.pending.options[seat])
        new, g = step(g, seat, {"decision": g.pending.kind, "option": list(option)},
                      random.Random(len(events)))
        events += new
        tasks += [g.task.kind] if g.task else []
    again = replay(json.loads(json.dumps(events)))
    for state in (g, again):
        assert {type(s.status) for s in state.seats} == {str}
        assert type(state.outcome.winner) is str and state.outcome.winner in set(Side)
    assert tasks and {type(kind) for kind in tasks} == {str} and set(tasks) <= set(TaskKind)
    assert [(s.status, s.infected) for s in again.seats] == \
        [(s.status, s.infected) for s in g.seats]
    assert (again.outcome.winner, again.outcome.condition) == (g.outcome.winner,
                                                               g.outcome.condition)
