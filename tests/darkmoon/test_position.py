"""Starting a game from a described position (docs/table-api.md, "Starting from a position"):
the documented example is read from the docs themselves, begun, stored, resumed and played
out to the end by the bots; positions a dealt game could never reach are refused by name."""
from __future__ import annotations

import copy
import json
import random
import re
from pathlib import Path

import pytest

from companion.darkmoon import BadSetup, Chance, Ctx, Position, play, replay, start_from
from companion.darkmoon.data import TOKENS_TO_LOSE
from companion.simulate import MAX_COMMANDS, choice_for
from companion.store import EventStore
from companion.table import Table
from leaks import Secrets, check_secrecy
from test_random_games import check_components, same_state

DOCS = Path(__file__).resolve().parents[2] / "docs" / "table-api.md"


def documented_position() -> dict:
    """The example position, as printed in the docs (the first JSON block of its section)."""
    text = DOCS.read_text(encoding="utf-8")
    section = text.split("### Starting from a position", 1)[1]
    block = re.search(r"```json\n(.*?)```", section, re.S)
    return json.loads(block.group(1))


def play_out(table: Table, rng: random.Random, after_each=None) -> int:
    commands = 0
    while not table.over:
        assert commands < MAX_COMMANDS, "the game did not end"
        seat = rng.choice(table.state.pending.seats)
        table.submit(seat, choice_for(table.state, seat, rng))
        commands += 1
        if after_each:
            after_each(table)
    return commands


def test_the_documented_position_is_the_board_and_plays_out_to_the_end(tmp_path):
    position = documented_position()
    store = EventStore(str(tmp_path / "games.db"))
    table = Table.from_position(store, position, seed=3)
    g = table.state
    check_components(g)
    board = table.public_view()
    # The tracks, the event and the seats' public facts are the position's.
    assert (board["shield"]["tokens"], board["outpost"]["tokens"], board["fatigue"]["tokens"],
            board["sabotage"], board["suspicion"]) == (3, ["hangar_bay"], ["luba"], "outpost", 2)
    assert board["event"] == {"card": "tactical_prep", "cubes": 2, "needed": 4}
    assert board["completed_events"] == ["lockdown"]
    assert board["final_event"]["card"] == "escape" and board["commander"] == 0
    seats = board["seats"]
    assert [s["quarantined"] for s in seats] == [False, True, False, False, False]
    assert [s["status"] for s in seats] == [None, None, None, "infected_outpost", None]
    assert [s["die_limit"] for s in seats] == [4, 2, 5, 2, 4]
    assert seats[1]["fatigued"] and board["pool"] == position["pool"]
    # It is Cai's turn (10th), and Cai's own dice are behind Cai's screen only.
    assert board["turn"] == 10 and board["active"] == 2
    assert table.seat_view(2)["you"]["dice"] == {"strong": 3, "weak": 1, "commander": 0}
    assert table.seat_view(1)["you"]["status"] == "infected_shields"
    secrets = Secrets(5)
    secrets.add(table.facts)
    check_secrecy(g, secrets)  # no dice counts or hidden status on any other screen
    # Cai fills up to the die limit (5), passes, then draws the deck's top cards first
    # (Chaya draws three).
    waiting = table.waiting_for()
    assert waiting["decision"] == "take_dice" and waiting["seats"] == [2]
    table.submit(2, {"decision": "take_dice", "option": list(waiting["options"][2][0])})
    assert table.seat_view(2)["you"]["dice"]["strong"] + \
        table.seat_view(2)["you"]["dice"]["weak"] == 5
    table.submit(2, {"decision": "action", "option": ["pass"]})
    hand = table.seat_view(2)["you"]["tasks_in_hand"]
    assert hand[:2] == ["shield_6", "acceptable_loss"] and len(hand) == 3
    # Stored like any game: a restart carries on from exactly here.
    again = Table.resume(EventStore(str(tmp_path / "games.db")))
    assert again.public_view() == table.public_view()
    assert again.seat_view(2) == table.seat_view(2)
    play_out(table, random.Random(5), lambda t: check_components(t.state))
    assert table.state.outcome.winner in ("infected", "uninfected")
    events = [e for records in store.load(table.game_id) for e in records]
    assert same_state(replay(events), table.state)


def test_deck_tops_and_the_event_draw_follow_the_position():
    """With no event in play the commander first draws the event deck's top two."""
    position = documented_position()
    position["event"] = None
    events = start_from(position, random.Random(1))
    g = replay(json.loads(json.dumps(events)))
    assert g.pending.kind == "event" and g.pending.seats == [0]
    assert g.event_drawn == ["restore_comm", "resupply"]
    assert events[0]["type"] == "position"
    # Only the commander learns which two events were drawn.
    drawn = next(f for f in events[0]["facts"] if f["k"] == "events_drawn")
    assert drawn["to"] == [0]
    # One event is already completed: in play the other card is discarded face down (RB
    # Turn step 7), not put at the bottom as at setup.
    facts = play(g, 0, {"decision": "event", "option": ["event", "restore_comm"]},
                 Ctx(Chance(rng=random.Random(1))))["facts"]
    assert g.event == "restore_comm" and "resupply" not in g.event_deck
    assert {"k": "event_discarded", "to": [0], "seat": 0, "card": "resupply"} in facts


def test_a_position_without_statuses_or_characters_deals_them_and_plays_out():
    for seed in range(4):
        position = {"seats": [{"name": n} for n in ("A", "B", "C", "D", "E", "F")],
                    "commander": seed % 6, "shield": 4, "fatigue": ["enver"],
                    "variants": ["first_is_last"]}
        events = start_from(position, random.Random(seed))
        g = replay(events)
        check_components(g)
        assert sum(s.infected for s in g.seats) == 2
        rng = random.Random(seed)
        commands = 0
        while g.outcome is None:
            assert commands < MAX_COMMANDS
            seat = rng.choice(g.pending.seats)
            play(g, seat, choice_for(g, seat, rng), Ctx(Chance(rng=rng)))
            check_components(g)
            commands += 1


def change(position: dict, path: str, value) -> dict:
    """A copy of `position` with one field set: "seats.1.dice" or "shield"."""
    position = copy.deepcopy(position)
    *keys, last = path.split(".")
    where = position
    for key in keys:
        where = where[int(key)] if isinstance(where, list) else where[key]
    if isinstance(where, list):
        where[int(last)] = value
    else:
        where[last] = value
    return position


BAD = [
    ("pool", {"strong": 7, "weak": 7, "commander": 0}, "29 dice"),
    ("seats.1.dice", {"strong": 2, "weak": 1}, "die limit"),           # quarantined: 2
    ("seats.3.dice", {"strong": 2, "weak": 1}, "die limit"),           # revealed: 2
    ("seats.2.dice", {"strong": 3, "weak": 1, "commander": 1}, "commander die"),
    ("seats.4.dice", {"strong": 15}, "strong dice"),
    ("seats.4.status", "infected_shields", "Infected"),
    ("seats.4.status", "infected_life_support", "Infected"),
    ("seats.3.status", "uninfected", "revealed"),
    ("seats.3.quarantined", True, "revealed"),
    ("seats.0.character", "luba", "character"),
    ("seats.0.hat", "red", "unknown fields"),
    ("commander", 3, "commander"),
    ("commander", 9, "'commander'"),
    ("shield", TOKENS_TO_LOSE, "'shield'"),
    ("outpost", ["hangar_bay", "hangar_bay"], "twice"),
    ("fatigue", ["nobody"], "'fatigue'"),
    ("sabotage", "kitchen", "'sabotage'"),
    ("suspicion", None, "suspicion"),
    ("suspicion", 4, "'suspicion'"),
    ("event", {"card": "tactical_prep", "cubes": 4}, "cubes on tactical_prep"),
    ("event", {"card": "lockdown", "cubes": 0}, "both in play and completed"),
    ("completed_events", ["lockdown", "recovery", "resupply"], "final event is in play"),
    ("final_cubes", 1, "final_cubes"),
    ("task_deck", ["shield_6", "shield_6"], "twice"),
    ("task_discard", ["shield_6"], "both in the deck and in the discards"),
    ("event_deck", ["tactical_prep"], "in play or completed"),
    ("variants", ["telepathic_infected", "telepathic_infected"], "twice"),
    ("colour", "blue", "unknown position fields"),
]


@pytest.mark.parametrize("path, value, says", BAD, ids=[f"{p}={v}" for p, v, _ in BAD])
def test_an_impossible_position_is_refused_by_name_and_stores_nothing(tmp_path, path, value,
                                                                         says):
    bad = change(documented_position(), path, value)
    with pytest.raises(BadSetup, match=re.escape(says)):
        Position.from_json(bad)
    store = EventStore(str(tmp_path / "games.db"))
    with pytest.raises(BadSetup):
        Table.from_position(store, bad, seed=1)
    assert store.latest_game() is None


def test_small_tables_and_the_final_event_limit_the_task_cards():
    """Voluntary Blood Testing is out at 3-4 players; complications leave with the final
    event (RB setup chart; RB Final event: "remove all Complication cards")."""
    four = {"seats": [{"name": n} for n in "ABCD"], "commander": 0}
    with pytest.raises(BadSetup, match="out of this game"):
        Position.from_json({**four, "task_deck": ["voluntary_blood_testing"]})
    final = {**four, "final_event": "escape", "completed_events": ["lockdown", "recovery",
                                                                   "resupply"]}
    with pytest.raises(BadSetup, match="out of this game"):
        Position.from_json({**final, "task_discard": ["acceptable_loss"]})
    g = replay(start_from({**final, "final_cubes": 2}, random.Random(2)))
    assert g.final_active and g.final_cubes == 2 and g.event is None
    assert all(not c.startswith(("acceptable", "act_of", "failure", "mandatory", "strategic"))
               for c in g.task_deck)


def test_a_position_round_trips_through_json():
    position = Position.from_json(documented_position())
    assert Position.from_json(json.loads(json.dumps(position.to_json()))) == position
