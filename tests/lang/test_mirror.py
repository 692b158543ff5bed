"""Mirroring the app on the physical board: each command that places, moves or draws
something tells the table what to do, naming the piece and the place, and tells no secret.
A real Table on a real SQLite store in tmp_path, played by seeded bots."""
from __future__ import annotations

import random

import pytest

from companion.darkmoon import HOST
from companion.lang import view_text
from companion.tools.simulate import helpful_choice
from companion.core.store import EventStore
from companion.core.table import Table

NAMES = ["Ana", "Ben", "Cai", "Dee", "Eli"]


@pytest.fixture
def table(tmp_path):
    return Table.new(EventStore(tmp_path / "game.db"),
                     {"names": NAMES, "final_event": "last_stand"}, seed=11)


def latest(view: dict) -> list:
    return [f for f in view["log"] if f["seq"] == view["state_id"]]


def play_until(table: Table, found, rng: random.Random, limit: int = 3000):
    """Let helpful bots play until `found(public view)` is true; that view."""
    for _ in range(limit):
        view = table.public_view()
        if found(view):
            return view
        assert not table.over, "the game ended first"
        seat, command = helpful_choice(table.state, rng)
        table.submit(seat, command)
    pytest.fail("not found")


def test_the_deal_is_mirrored_piece_by_piece(table):
    view = table.public_view()
    lines = view_text(view, "en")["mirror"]
    tokens = {"shield_control": "Shield Control", "life_support": "Life Support",
              "research_lab": "Research Lab", "communications": "Communications",
              "hangar_bay": "Hangar Bay", "command": "Command"}
    for token in view["outpost"]["tokens"]:
        assert f"Place the {tokens[token]} outpost token on Outpost Status" in lines
    commander = NAMES[view["commander"]]
    assert f"Give the Commander card and the commander die to {commander}" in lines
    assert "Put Last Stand face up on Camera 4" in lines
    spanish = view_text(view, "es")["mirror"]
    assert "Pon Última resistencia boca arriba en la Cámara 4" in spanish
    assert f"Da la carta de Comandante y el dado de Comandante a {commander}" in spanish


@pytest.mark.parametrize("kind, words", [
    ("shield_placed", "Place a shield token on the shield track ({} in all)"),
    ("shield_removed", "Remove the farthest shield token from the shield track ({} left)"),
])
def test_placed_and_removed_shield_tokens_move_the_shield_track(table, kind, words):
    view = play_until(table, lambda v: any(f["k"] == kind for f in latest(v)),
                      random.Random(5))
    lines = view_text(view, "en")["mirror"]
    for fact in latest(view):
        if fact["k"] == kind:
            assert words.format(fact["total"]) in lines


def test_a_placed_outpost_token_is_named_and_blocks_its_action_on_every_phone(table):
    view = table.public_view()
    commander = view["commander"]
    # The commander places the first Event; the next player then chooses an action.
    table.submit(commander, {"decision": "event",
                             "option": table.seat_view(commander)["you"]["decision"]
                             ["options"][0]})
    if "research_lab" in table.public_view()["outpost"]["tokens"]:
        table.submit(HOST, {"decision": "correct", "option": ["outpost", "research_lab", "off"]})
    table.submit(HOST, {"decision": "correct", "option": ["outpost", "research_lab", "on"]})
    board = table.public_view()
    text = view_text(board, "en")
    assert text["log"][-1] == "Host correction: the Research Lab outpost token is on the board"
    assert text["mirror"] == []  # the host set the app to match the board: nothing to touch
    active = board["active"]
    seat = table.seat_view(active)
    blocked = view_text(seat, "en")["blocked"]
    target = NAMES[(active + 1) % len(NAMES)]
    assert f"Call a vote on {target} — blocked by the Research Lab token" in blocked
    assert (f"Llamar a votación sobre {target} — bloqueada por la ficha Laboratorio de "
            "investigación") in view_text(seat, "es")["blocked"]
    # A token the rules place (not the host) is mirrored with its name.
    rng = random.Random(5)
    view = play_until(table, lambda v: any(f["k"] == "outpost_placed" for f in latest(v)), rng)
    placed = [f["token"] for f in latest(view) if f["k"] == "outpost_placed"]
    names = {"shield_control": "Shield Control", "life_support": "Life Support",
             "research_lab": "Research Lab", "communications": "Communications",
             "hangar_bay": "Hangar Bay", "command": "Command"}
    lines = view_text(view, "en")["mirror"]
    for token in placed:
        assert f"Place the {names[token]} outpost token on Outpost Status" in lines


def test_private_facts_are_never_mirrored(table):
    rng = random.Random(8)
    rolls = 0
    while not table.over and rolls < 5:
        seat, command = helpful_choice(table.state, rng)
        events = table.submit(seat, command)
        facts = events[-1]["facts"]
        if facts and all("to" in f for f in facts):  # a private roll or draw, nothing else
            rolls += 1
            for view in [table.public_view()] + [table.seat_view(s) for s in range(5)]:
                assert view_text(view, "en")["mirror"] == []
    assert rolls == 5


def test_after_the_game_the_mirror_still_ignores_private_facts(table):
    rng = random.Random(9)
    while not table.over:
        table.submit(*helpful_choice(table.state, rng))
    view = table.public_view()
    public_only = dict(view, log=[f for f in view["log"] if "to" not in f])
    assert any("to" in f for f in view["log"])  # game over: the log shows every secret
    assert view_text(view, "en")["mirror"] == view_text(public_only, "en")["mirror"]
    text = view_text(view, "en")
    assert any(line.startswith("(secret)") for line in text["log"])


def test_a_chosen_task_tells_the_table_to_discard_the_rest_face_down(table):
    rng = random.Random(4)
    view = play_until(table, lambda v: any(f["k"] == "task_chosen" for f in latest(v)), rng)
    fact = next(f for f in latest(view) if f["k"] == "task_chosen")
    lines = view_text(view, "en")["mirror"]
    assert any(line.startswith("Put ") and "face up on Current Task" in line
               and f"{NAMES[fact['seat']]} discards the other drawn card(s) face down" in line
               for line in lines), lines
    # The discarded cards themselves are named only in the chooser's own log.
    chooser = table.seat_view(fact["seat"])
    assert any(f["k"] == "task_discarded" for f in chooser["log"])
    assert not any(f["k"] == "task_discarded" for f in view["log"])


def test_the_commander_die_token_goes_with_the_commander_die(tmp_path):
    """ESOG Setup: the commander takes "the commander card, the blue commander die, and the
    commander die token". No source gives the token an effect (facts §8b.11): it is handed
    over with the commander die at the deal and at every change of commander, and the views
    show who holds it."""
    table = Table.new(EventStore(tmp_path / "shadow.db"),
                      {"names": NAMES, "variants": ["shadow_corporation"]}, seed=11)
    view = table.public_view()
    first = view["commander"]
    assert view["commander_die_token"] == first
    assert (f"Give the Commander card, the commander die and the commander die token to "
            f"{NAMES[first]}") in view_text(view, "en")["mirror"]
    assert (f"Da la carta de Comandante, el dado de Comandante y la ficha del dado de "
            f"Comandante a {NAMES[first]}") in view_text(view, "es")["mirror"]
    # A change of commander in play (Pass Command, Failure to Lead): the token goes along.
    new = (first + 1) % len(NAMES)
    changed = {**view, "commander": new, "commander_die_token": new,
               "log": [{"k": "commander", "seat": new, "previous": first,
                        "seq": view["state_id"]}]}
    assert (f"Give the Commander card and the commander die token to {NAMES[new]}; if "
            f"{NAMES[first]} holds the commander die, it goes to Available Resources"
            ) in view_text(changed, "en")["mirror"]
    assert (f"Da la carta de Comandante y la ficha del dado de Comandante a {NAMES[new]}; si "
            f"{NAMES[first]} tiene el dado de Comandante, va a Recursos disponibles"
            ) in view_text(changed, "es")["mirror"]
    # The host's correction of the commander moves the token on every board.
    table.submit(first, {"decision": "event",
                         "option": table.seat_view(first)["you"]["decision"]["options"][0]})
    other = next(i for i in range(len(NAMES))
                 if i not in (first, *table.public_view()["waiting"]["seats"]))
    table.submit(HOST, {"decision": "correct", "option": ["commander", other]})
    assert table.public_view()["commander_die_token"] == other


def test_a_base_game_has_no_commander_die_token(table):
    view = table.public_view()
    assert "commander_die_token" not in view
    assert not any("token" in line for line in view_text(view, "en")["mirror"]
                   if "Commander card" in line)
