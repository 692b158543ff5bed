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

from companion.darkmoon import (BadSetup, Chance, Ctx, Position, play, public_view, replay,
                                start, start_from)
from companion.darkmoon.data import (CHARACTERS, EVACUATION_FAILURE, EVACUATION_START,
                                     FATIGUE_TOKENS, FINAL_EVENTS, INFECTED_CARDS, TASKS,
                                     TOKENS_TO_LOSE, available)
from companion.tools.simulate import MAX_COMMANDS, choice_for
from companion.core.store import EventStore
from companion.core.table import Table
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


# --- Shadow Corporation and the modules: what a dealt game with the same variants has ---

SHADOW = ["shadow_corporation"]
BOTH_MODULES = SHADOW + ["company_man_module", "threats_module"]


def dealt(n: int, variants: list, seed: int):
    return replay(start({"names": [f"P{i}" for i in range(n)], "variants": variants},
                        random.Random(seed)))


def event_cards_of(g) -> list:
    return sorted(g.event_deck + g.event_drawn + g.completed_events
                  + ([g.event] if g.event else []))


@pytest.mark.parametrize("variants", [SHADOW, BOTH_MODULES, SHADOW + ["expensive_voting"]])
def test_a_shadow_corporation_position_holds_what_a_dealt_game_holds(variants):
    """ESOG Setup: the Evac Ship joins the outpost tokens, the fatigue pool is the characters'
    tokens padded to six, the evacuation cube starts on 1, the expansion's events and its two
    complications join their decks; the Evacuation Failure card waits for the final event
    (facts §8b.5). A position left to random fill has all of it, like a deal."""
    for n in range(3, 8):
        for seed in range(3):
            position = {"seats": [{"name": f"P{i}"} for i in range(n)], "commander": 0,
                        "variants": variants}
            g = replay(start_from(position, random.Random(seed)))
            deal = dealt(n, variants, seed)
            check_components(g)  # with the expansion: its fatigue pool and outpost tokens
            assert g.evacuation == deal.evacuation == EVACUATION_START
            assert sorted(g.outpost_pile) == sorted(deal.outpost_pile + deal.outpost_board)
            assert sorted(g.task_deck) == sorted(deal.task_deck)
            assert EVACUATION_FAILURE not in g.task_deck
            assert event_cards_of(g) == event_cards_of(deal)
            assert not g.refuelled and not g.threats and not g.clearances


def test_random_fill_deals_the_expansions_characters_and_status_cards():
    """ESOG Setup: Serene, Lincoln and the Clearance infected card join the game; the Company
    Man card is drawn among the Uninfected cards (facts §8b.7)."""
    characters, statuses = set(), set()
    for seed in range(40):
        position = {"seats": [{"name": f"P{i}"} for i in range(7)], "commander": 0,
                    "variants": BOTH_MODULES}
        g = replay(start_from(position, random.Random(seed)))
        characters |= {s.character for s in g.seats}
        statuses |= {s.status for s in g.seats}
    assert {"serene", "lincoln"} <= characters
    assert {"infected_clearance", "company_man"} <= statuses


def test_a_base_position_left_to_random_fill_deals_only_the_base_games_cards():
    """RB setup: the base box's seven characters, three infected cards, 16 events, six final
    events and 21 task cards (20 at 3-4 players without Voluntary Blood Testing); none of
    Shadow Corporation's (facts §4-§7)."""
    for n in (4, 7):
        for seed in range(25):
            position = {"seats": [{"name": f"P{i}"} for i in range(n)], "commander": 0}
            g = replay(start_from(position, random.Random(seed)))
            deal = dealt(n, [], seed)
            assert {s.character for s in g.seats} <= set(available(CHARACTERS, False))
            assert {s.status for s in g.seats} <= set(INFECTED_CARDS) | {"uninfected"}
            assert len(g.task_deck) == len(deal.task_deck) == (20 if n == 4 else 21)
            assert sorted(g.task_deck) == sorted(deal.task_deck)
            assert event_cards_of(g) == event_cards_of(deal)
            assert g.final_event in available(FINAL_EVENTS, False)
            assert sorted(g.fatigue_pile) == sorted(FATIGUE_TOKENS)
            assert g.evacuation is None and "evac_ship" not in g.outpost_pile


def shadow_position() -> dict:
    """Five players in the middle of a Shadow Corporation game with both modules: Ana is
    cleared, Ben amputated, Lincoln has decided his vote, the ship is refuelled (nine turns
    played), Ben took his Exposure token, Risk Assessment makes Resupply need five cubes."""
    return {
        "seats": [
            {"name": "Ana", "character": "jon", "status": "uninfected",
             "dice": {"strong": 2, "weak": 1, "commander": 1}, "threat": "isolate_specimen"},
            {"name": "Ben", "character": "serene", "status": "infected_clearance",
             "dice": {"strong": 1, "weak": 1}, "amputated": True, "threat": "exposure",
             "threat_token": ["exposure", False]},
            {"name": "Cai", "character": "lincoln", "status": "company_man",
             "dice": {"strong": 2, "weak": 2}, "threat": "retrieve_sample"},
            {"name": "Dee", "character": "luba", "status": "infected_shields",
             "revealed": True, "dice": {"strong": 0, "weak": 2}},
            {"name": "Eli", "character": "daniel", "status": "uninfected",
             "dice": {"strong": 1, "weak": 1}, "quarantined": True,
             "threat": "act_recklessly"},
        ],
        "commander": 0, "turn": 2, "turns_played": 9, "final_event": "toxic_gas",
        "variants": BOTH_MODULES, "outpost": ["evac_ship"], "fatigue": ["steve"],
        "suspicion": 2, "completed_events": ["risk_assessment"],
        "event": {"card": "resupply", "cubes": 4},
        "evacuation": 3, "clearances": [0], "lincoln_used": True,
        "pool": {"strong": 8, "weak": 7, "commander": 0},
    }


def test_a_position_describes_the_expansions_public_state_and_plays_out(tmp_path):
    """The clearances, amputations, evacuation cube, refuelling and threats a position sets
    are the game's (ESOG Vote for amputation: die limit -1; Vote for clearance; Refueling;
    Threats), shown on every board, stored and resumed, and the game plays on to its end."""
    position = shadow_position()
    store = EventStore(str(tmp_path / "games.db"))
    table = Table.from_position(store, position, seed=4)
    g = table.state
    check_components(g)
    board = table.public_view()
    assert board["evacuation"] == {"track": 3, "vote_at": 4, "cleared": [0], "seats": 2,
                                   "ready": True, "recalled": False, "lincoln_used": True}
    assert [s["amputated"] for s in board["seats"]] == [False, True, False, False, False]
    assert [s["die_limit"] for s in board["seats"]] == [4, 3, 4, 2, 2]
    assert board["event"] == {"card": "resupply", "cubes": 4, "needed": 5}
    assert board["outpost"]["tokens"] == ["evac_ship"] and board["fatigue"]["tokens"] == ["steve"]
    # The pool: the tokens of Jon, Serene, Lincoln and Luba, Steve's, and one more drawn.
    pool = board["fatigue"]["pool"]
    assert len(pool) == 6 and {"jon", "serene", "lincoln", "luba", "steve"} <= set(pool)
    assert board["threats"]["tokens"] == {"1": ["exposure", False]}
    assert board["threats"]["dealt"] and board["threats"]["cards"] is None
    assert board["commander_die_token"] == 0
    assert [table.seat_view(i)["you"]["threat"] for i in range(5)] == [
        "isolate_specimen", "exposure", "retrieve_sample", None, "act_recklessly"]
    assert table.seat_view(2)["you"]["status"] == "company_man"
    secrets = Secrets(5)
    secrets.add(table.facts)
    check_secrecy(g, secrets)
    again = Table.resume(EventStore(str(tmp_path / "games.db")))
    assert again.public_view() == table.public_view()
    play_out(table, random.Random(6), lambda t: check_components(t.state))
    events = [e for records in store.load(table.game_id) for e in records]
    assert same_state(replay(events), table.state)


def test_threats_left_open_are_dealt_to_every_player_not_revealed():
    """ESOG Threats: "After the refueling card is discarded but before the original start
    player begins their second turn, deal a threat card to each player"; a revealed Infected
    gets none (facts §8b.8)."""
    position = shadow_position()
    for seat in position["seats"]:
        seat.pop("threat", None)
    position["seats"][1].pop("threat_token")
    g = replay(start_from(position, random.Random(3)))
    assert sorted(g.threats) == [0, 1, 2, 4]


def test_the_final_events_deck_holds_the_evacuation_failure_while_evacuating():
    """ESOG Final event: the Evacuation Failure card is shuffled into the new deck of
    malfunctions (facts §8b.5); once drawn, the ship is recalled and it is out of the game."""
    position = shadow_position()
    position.update(event=None, completed_events=["lockdown", "recovery", "risk_assessment"],
                    final_cubes=3)  # Risk Assessment the third: Toxic Gas needs four
    g = replay(start_from(position, random.Random(2)))
    assert EVACUATION_FAILURE in g.task_deck
    assert all(TASKS[c].kind != "complication" for c in g.task_deck)
    position.update(evacuation=None, clearances=[])
    g = replay(start_from(position, random.Random(2)))
    assert EVACUATION_FAILURE not in g.task_deck and g.evacuation is None
    assert public_view(g)["evacuation"]["recalled"]


SHADOW_BAD = [
    ("evacuation", None, "'evacuation' is null only"),
    ("evacuation", 4, "'evacuation'"),
    ("clearances", [0, 1, 2], "the board has 2 seats"),
    ("clearances", [4], "quarantined or revealed"),
    ("clearances", [3], "quarantined or revealed"),
    ("clearances", [0, 0], "listed twice"),
    ("seats.4.status", "company_man", "one Company Man card"),
    ("seats.0.dice", {"strong": 3, "weak": 2, "commander": 1}, "die limit"),
    ("seats.1.dice", {"strong": 2, "weak": 2}, "die limit"),       # amputated: 3
    ("seats.1.threat_token", ["exposure", True], "wild"),
    ("seats.3.threat_token", ["exposure", False], "no threat card"),
    ("seats.0.threat", "exposure", "1 exposure threat cards"),
    ("seats.0.threat", None, "every seat not revealed"),
    ("seats.0.threat", "lunch", "unknown threat card"),
    ("turns_played", 5, "refuelling card"),
    ("fatigue", ["steve", "chaya", "enver"], "not in this game's fatigue pool"),
    ("event", {"card": "resupply", "cubes": 5}, "cubes on resupply"),
    ("task_discard", ["evacuation_failure"], "out of this game"),
    ("lincoln_used", "yes", "'lincoln_used'"),
    ("seats.2.character", "chaya", "Lincoln is not at this table"),
    ("variants", SHADOW + ["threats_module"], "company_man is not dealt"),
]


def base_position_with(path: str, value) -> dict:
    return change(documented_position(), path, value)


BASE_BAD = [
    ("evacuation", 2, "Shadow Corporation"),
    ("clearances", [0], "Shadow Corporation"),
    ("seats.0.amputated", True, "Shadow Corporation"),
    ("seats.0.threat", "exposure", "Shadow Corporation"),
    ("seats.4.status", "infected_clearance", "not dealt in this game"),
    ("outpost", ["evac_ship"], "'outpost'"),
    ("fatigue", ["serene"], "'fatigue'"),
    ("event", {"card": "accident", "cubes": 0}, "event cards out of this game"),
    ("task_deck", ["cut_it_off"], "task cards out of this game"),
    ("task_deck", ["evacuation_failure"], "task cards out of this game"),
    ("seats.4.character", "lincoln", "Shadow Corporation"),
]


@pytest.mark.parametrize("path, value, says", SHADOW_BAD,
                         ids=[f"{p}={v}" for p, v, _ in SHADOW_BAD])
def test_an_impossible_shadow_corporation_position_is_refused_by_name(path, value, says):
    with pytest.raises(BadSetup, match=re.escape(says)):
        Position.from_json(change(shadow_position(), path, value))


@pytest.mark.parametrize("path, value, says", BASE_BAD, ids=[f"{p}={v}" for p, v, _ in BASE_BAD])
def test_a_base_position_refuses_the_expansions_pieces_by_name(path, value, says):
    with pytest.raises(BadSetup, match=re.escape(says)):
        Position.from_json(base_position_with(path, value))


def test_vote_tampering_is_out_with_expensive_voting_in_a_position_too():
    """facts §6a: Vote Tampering is left out of the event deck with Expensive Voting."""
    position = change(shadow_position(), "variants", BOTH_MODULES + ["expensive_voting"])
    with pytest.raises(BadSetup, match="event cards out of this game"):
        Position.from_json(change(position, "event_deck", ["vote_tampering"]))
    g = replay(start_from(position, random.Random(1)))
    assert "vote_tampering" not in g.event_deck


def test_a_shadow_corporation_position_round_trips_through_json():
    position = Position.from_json(shadow_position())
    assert Position.from_json(json.loads(json.dumps(position.to_json()))) == position
