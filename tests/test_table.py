"""The Table: durable before visible, resumable exactly, and refusals change nothing."""
import json
import os
import random
import signal
import subprocess
import sys
import textwrap
import threading

import pytest

import children

from companion.darkmoon import HOST, NotYourDecision, StaleState
from companion.tools.simulate import bot_choice
from companion.core.store import EventStore
from companion.core.table import LOG_LENGTH, Table

NAMES = ["Ana", "Ben", "Cai", "Dee", "Eli"]


def new_table(path, seed=7):
    return Table.new(EventStore(path), {"names": NAMES}, seed=seed)


def play(table, commands, rng):
    for _ in range(commands):
        if table.over:
            break
        seat, command = bot_choice(table.state, rng)
        table.submit(seat, {**command, "state_id": table.state_id})


def test_resumed_table_is_the_same_game(tmp_path):
    path = tmp_path / "game.db"
    table = new_table(path)
    play(table, 40, random.Random(1))
    table.store.close()
    resumed = Table.resume(EventStore(path))
    assert resumed.state == table.state
    assert resumed.public_view() == table.public_view()
    for seat in range(len(NAMES)):
        assert resumed.seat_view(seat) == table.seat_view(seat)


def test_a_restart_does_not_change_what_a_seeded_game_rolls(tmp_path):
    """Rolls come from (seed, state id): a restart mid-game continues the same game."""
    straight = new_table(tmp_path / "a.db")
    play(straight, 60, random.Random(2))
    broken = new_table(tmp_path / "b.db")
    bots = random.Random(2)
    play(broken, 25, bots)
    broken.store.close()
    broken = Table.resume(EventStore(tmp_path / "b.db"))
    play(broken, 35, bots)
    assert broken.state == straight.state


def test_refused_command_is_not_stored_and_changes_nothing(tmp_path):
    table = new_table(tmp_path / "game.db")
    before = (table.store.last_seq(table.game_id), table.state_id, table.public_view())
    waiting = table.waiting_for()["seats"]
    idle = next(s for s in range(len(NAMES)) if s not in waiting)
    with pytest.raises(NotYourDecision):
        table.submit(idle, {"decision": table.waiting_for()["decision"], "option": ["pass"]})
    with pytest.raises(StaleState):
        seat, command = bot_choice(table.state, random.Random(3))
        table.submit(seat, {**command, "state_id": table.state_id + 5})
    assert (table.store.last_seq(table.game_id), table.state_id,
            table.public_view()) == before


def test_votes_show_who_has_chosen_but_not_what_until_all_have(tmp_path):
    """RB Call a vote: "All players then hold out a closed fist and simultaneously reveal"."""
    table = new_table(tmp_path / "game.db")
    rng = random.Random(5)
    while table.waiting_for()["decision"] != "vote":
        seat, command = bot_choice(table.state, rng)
        if command["decision"] == "action":
            options = table.waiting_for()["options"][seat]
            votes = [o for o in options if o[0] == "vote"]
            if votes:
                command["option"] = list(votes[0])
        table.submit(seat, command)
    voters = table.waiting_for()["seats"]
    first = voters[0]
    ballot = table.waiting_for()["options"][first][0]
    table.submit(first, {"decision": "vote", "option": list(ballot)})
    public = json.dumps(table.public_view())
    assert table.public_view()["waiting"]["chosen"] == [first]
    assert "vote_revealed" not in public
    for seat in voters[1:]:
        option = table.waiting_for()["options"][seat][-1]
        table.submit(seat, {"decision": "vote", "option": list(option)})
    revealed = [f for f in table.public_view()["log"] if f["k"] == "vote_revealed"]
    assert revealed and revealed[-1]["ballots"][first] == ballot[0]


def test_a_vote_changed_before_the_reveal_survives_a_restart(tmp_path):
    """RB Call a vote: "All players then hold out a closed fist and simultaneously reveal":
    a seat may change its vote until the last one is in; its change is stored like any
    answer, so a power cut in between keeps its latest vote, and the reveal shows that."""
    path = tmp_path / "game.db"
    table = new_table(path)
    rng = random.Random(5)
    while table.waiting_for()["decision"] != "vote":
        seat, command = bot_choice(table.state, rng)
        votes = [o for o in table.waiting_for()["options"][seat] if o[0] == "vote"]
        if command["decision"] == "action" and votes:
            command["option"] = list(votes[0])
        table.submit(seat, command)
    first, *others = table.waiting_for()["seats"]
    ballots = table.waiting_for()["options"][first]
    table.submit(first, {"decision": "vote", "option": list(ballots[0])})
    table.submit(first, {"decision": "vote", "option": list(ballots[-1]),
                         "state_id": table.state_id})
    table.store.close()
    table = Table.resume(EventStore(path))
    mine = table.seat_view(first)["you"]["decision"]
    assert mine["chosen"] == list(ballots[-1])
    assert mine["options"] == [list(b) for b in ballots]
    assert table.waiting_for()["seats"] == others
    for seat in others:
        table.submit(seat, {"decision": "vote", "option": ["abstain"]})
    revealed = [f for f in table.public_view()["log"] if f["k"] == "vote_revealed"]
    assert revealed[-1]["ballots"][first] == ballots[-1][0] != ballots[0][0]


def test_host_corrections_are_logged_publicly(tmp_path):
    table = new_table(tmp_path / "game.db")
    table.submit(HOST, {"decision": "correct", "option": ["shield", 4]})
    view = table.public_view()
    assert view["shield"] == {"tokens": 4, "failure_condition": "-2"}
    assert view["log"][-1]["k"] == "corrected"
    resumed = Table.resume(EventStore(tmp_path / "game.db"))
    assert resumed.public_view()["shield"]["tokens"] == 4


def test_every_acknowledged_command_survives_kill_9(tmp_path):
    """DESIGN: "Every acknowledged input survives kill -9"."""
    path = tmp_path / "game.db"
    script = textwrap.dedent(f"""
        import random, sys
        from companion.core.store import EventStore
        from companion.core.table import Table
        from companion.tools.simulate import bot_choice
        table = Table.new(EventStore({str(path)!r}), {{"names": {NAMES!r}}}, seed=11)
        rng = random.Random(11)
        while not table.over:
            seat, command = bot_choice(table.state, rng)
            table.submit(seat, command)
            print(table.state_id, flush=True)
    """)
    child = children.spawn([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True,
                           cwd=os.path.dirname(os.path.dirname(__file__)))
    acknowledged = 0
    try:
        for line in child.stdout:
            acknowledged = int(line)
            if acknowledged >= 30:
                break
    finally:
        children.end(child, signal.SIGKILL, 0)  # the kill -9, and the end of an interrupted run
        child.stdout.close()
    resumed = Table.resume(EventStore(path))
    assert resumed.state_id >= acknowledged >= 1


def test_a_view_read_while_a_command_is_applied_is_one_whole_state(tmp_path):
    """The room applies commands on its writer thread while the loop builds views for the
    phones: a view must show one state and exactly that state's log, never a board from one
    state with facts from the next (a phone would briefly show a roll or a reveal that its
    board does not hold yet)."""
    table = new_table(tmp_path / "game.db")
    seen = []
    done = threading.Event()

    def writer():
        try:
            play(table, 150, random.Random(5))
        finally:
            done.set()

    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # hand the GIL over as often as possible: the race shows
    try:
        thread = threading.Thread(target=writer)
        thread.start()
        while not done.is_set():
            seen.append(table.public_view())
            seen.append(table.seat_view(len(seen) % len(NAMES)))
        thread.join()
    finally:
        sys.setswitchinterval(switch)
    assert table.state_id > 20  # a game long enough for many commands to race the reads
    whole = Table.resume(EventStore(tmp_path / "game.db"))
    facts = whole.facts
    torn = []
    for view in seen:
        seat = view["you"]["seat"] if "you" in view else None
        if view["outcome"] is not None:  # the game is over: every fact, to everyone
            upto = facts
        else:
            upto = seat_log([f for f in facts if f["seq"] <= view["state_id"]], seat)
        if json.loads(json.dumps(view["log"])) != upto:  # the store's facts went through JSON
            torn.append((view["state_id"], seat))
    assert not torn, f"{len(torn)} of {len(seen)} views mixed two states, e.g. {torn[:3]}"


def seat_log(facts: list[dict], seat) -> list[dict]:
    """What a seat's log holds during play: the latest LOG_LENGTH public facts, and all of the
    seat's own private facts, in the order they happened."""
    public = [f for f in facts if "to" not in f][-LOG_LENGTH:]
    return [f for f in facts if f in public or ("to" in f and seat in f["to"])]


def test_every_seat_sees_the_same_public_log_whatever_its_secrets(tmp_path):
    """Nothing to a glance: the public lines of a seat's log are the board's, for
    every seat at every step. Counted together with private facts, a seat with more secrets
    (an Infected player with Telepathic Infected) saw fewer public lines than its neighbour."""
    table = Table.new(EventStore(tmp_path / "game.db"),
                      {"names": NAMES, "variants": ["telepathic_infected"]}, seed=3)
    rng = random.Random(5)
    checked = 0
    while not table.over and checked < 160:
        public = table.public_view()["log"]
        for seat in range(len(NAMES)):
            log = table.seat_view(seat)["log"]
            assert [f for f in log if "to" not in f] == public, (table.state_id, seat)
            mine = [f for f in table.facts if "to" in f and seat in f["to"]]
            assert [f for f in log if "to" in f] == mine  # all of its own, however old
        play(table, 1, rng)
        checked += 1
    assert len(table.facts) > 2 * LOG_LENGTH, "the game was too short to fill the log"
