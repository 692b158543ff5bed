"""Shadow Corporation on the kiosk: a game shows its evacuation board, says which
kind of vote is held and what BLACK and RED mean in it, takes the ballots from the seat
buttons, and marks an amputated seat. ESOG Vote for amputation: "A red weak die is a vote to
amputate. A black strong die is a vote to not amputate."; Vote for clearance: "Every black
strong die is a vote to clear them"."""
from __future__ import annotations

import re

import pytest

from table_play import advance, seated_room

from .conftest import SIZE, kiosk, settle

SC = ("shadow_corporation",)


def calling(action: str):
    """Call a vote of this kind whenever the active player may."""
    return lambda seat, options: next((o for o in options if o[0] == action), None)


def voting(kind: str):
    return lambda view: (view["waiting"] or {}).get("decision") == "vote" and \
        view["waiting"].get("vote_kind") == kind


@pytest.mark.parametrize("lang, title, meaning, marked", [
    ("en", "Amputation vote", "RED = AMPUTATE (weak die)", "× amputated"),
    ("es", "Votación de amputación", "ROJO = AMPUTAR (dado débil)", "× amputado")])
async def test_an_amputation_vote_on_the_seat_buttons(tmp_path, lang, title, meaning, marked):
    room = await seated_room(tmp_path, seed=3, players=4, lang=lang, variants=SC)
    view = await advance(room, voting("amputation"), prefer=calling("amputate"))
    target = view["waiting"]["target"]
    app = kiosk(room)
    async with app.run_test(size=SIZE) as pilot:
        shown = await settle(app, pilot)
        assert title in shown and meaning in shown
        assert ("EVACUACIÓN" if lang == "es" else "EVACUATION") in shown  # the track's heading
        g = room.table.state
        for seat in view["waiting"]["seats"]:  # RED wherever the seat holds a weak die
            await room.press(seat, "red" if g.seats[seat].dice["weak"] else "grey")
        shown = await settle(app, pilot)
        while room.table.state.pending.kind == "tie_break":  # the commander's, on the phone
            commander = room.table.state.commander
            await room.submit(commander, {"decision": "tie_break", "option": ["amputate"]})
            shown = await settle(app, pilot)
        assert room.table.state.seats[target].amputated
        name = room.table.state.seats[target].name
        assert marked in shown and name in shown
        assert meaning in shown  # the result stays up with what the colours meant


async def test_a_clearance_vote_says_black_clears_and_the_board_lists_the_cleared(tmp_path):
    room = await seated_room(tmp_path, seed=5, players=5, variants=SC)
    view = await advance(room, voting("clearance"), prefer=calling("clearance"))
    target = view["waiting"]["target"]
    app = kiosk(room)
    async with app.run_test(size=SIZE) as pilot:
        shown = await settle(app, pilot)
        assert "Clearance vote" in shown and "BLACK = CLEAR (strong die)" in shown \
            and "RED = DENY (weak die)" in shown
        g = room.table.state
        for seat in view["waiting"]["seats"]:
            await room.press(seat, "black" if g.seats[seat].dice["strong"] else "grey")
        shown = await settle(app, pilot)
        if room.table.state.pending.kind == "tie_break":
            await room.submit(room.table.state.commander,
                              {"decision": "tie_break", "option": ["clear"]})
            shown = await settle(app, pilot)
        assert target in room.table.state.clearances
        assert "Cleared:" in shown and "(1 of 2)" in shown


async def test_the_malfunction_panel_shows_the_corporation_die_only_once_submitted(tmp_path):
    """ESOG: "secretly roll 2 of the yellow corporation dice and publicly submit one ...
    (discard the second die without anyone seeing it)"."""
    room = await seated_room(tmp_path, seed=4, players=4, variants=SC)
    await advance(room, lambda v: (v["waiting"] or {}).get("decision") == "corporation")
    app = kiosk(room)
    async with app.run_test(size=SIZE) as pilot:
        shown = await settle(app, pilot)
        assert "Corporation: …" in shown
        faces = room.table.state.corporation
        seat = room.table.state.active
        await room.submit(seat, {"decision": "corporation", "option": ["submit", 0]})
        shown = await settle(app, pilot)
        face = faces[0]
        # the label names the dice: the face alone, as printed on the die ("0", "-2")
        assert re.search(rf"Corporation: {face:d} +│", shown), shown


async def test_the_game_over_screen_shows_every_corporation_die(tmp_path):
    """"the game-over screen reveals every corporation die": the one shown and the
    one kept hidden, which nobody saw during the game."""
    room = await seated_room(tmp_path, seed=4, players=4, variants=SC)
    await advance(room, lambda v: (v["waiting"] or {}).get("decision") == "corporation")
    faces = list(room.table.state.corporation)
    seat = room.table.state.active
    await room.submit(seat, {"decision": "corporation", "option": ["submit", 0]})
    app = kiosk(room)
    async with app.run_test(size=SIZE) as pilot:
        shown = await settle(app, pilot)
        assert "kept hidden" not in shown
        # the log names the dice once: "shows the corporation dice -1", not "-1 corporation"
        assert re.search(rf"shows the corporation dice {faces[0]:d} *│", shown), shown
        await advance(room, lambda v: v["outcome"] is not None)
        shown = await settle(app, pilot)
        rolls = " ".join(app.query_one("#over-rolls")._shown.plain.split())  # wraps undone
        rolled = " ".join(f"{face:d}" for face in faces)
        assert f"rolled the corporation dice {rolled}" in rolls
        assert f"kept hidden {' '.join(f'{face:d}' for face in faces[1:])}" in rolls


def end_conditions() -> set[tuple[str, str]]:
    """Every (winner, condition) an end_game(g, ctx, WINNER, CONDITION) call in the rules
    names (the damage kinds end the game through their own name: shield, outpost, fatigue)."""
    import ast
    from pathlib import Path
    from companion.darkmoon.state import Side
    found = {("infected", kind) for kind in ("shield", "outpost", "fatigue")}
    rules = Path(__file__).resolve().parents[2] / "companion" / "darkmoon"
    for path in rules.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "end_game" \
                    and isinstance(node.args[3], ast.Constant):
                winner = node.args[2]  # a Side, or the word itself
                if isinstance(winner, ast.Attribute) and getattr(winner.value, "id", "") == "Side":
                    found.add((Side[winner.attr].value, node.args[3].value))
                elif isinstance(winner, ast.Constant):
                    found.add((winner.value, node.args[3].value))
    return found


@pytest.mark.parametrize("lang", ["en", "es"])
def test_every_way_a_game_ends_has_words_on_the_game_over_screen(lang):
    """ESOG Evacuation: the take-off ends the game, won by the Uninfected or, with one
    Infected aboard, by the Infected: the kiosk's game-over line names both."""
    from screens.over import result
    conditions = end_conditions()
    assert ("uninfected", "evacuated") in conditions and ("infected", "infected_aboard") in \
        conditions
    lines = {result({"outcome": {"winner": w, "condition": c}}, lang).plain
             for w, c in conditions}
    assert len(lines) == len(conditions)  # each end in words of its own


async def test_threat_tokens_on_the_board_and_the_cards_only_at_game_over(tmp_path):
    """ESOG THREATS: "take the appropriate threat token" (public); the cards are studied and
    put face down, so the kiosk shows them only once the game is over."""
    room = await seated_room(tmp_path, seed=6, players=4, variants=SC + ("threats_module",))
    await advance(room, lambda v: (v.get("threats") or {}).get("dealt"))
    cards = dict(room.table.state.threats)
    app = kiosk(room)
    async with app.run_test(size=SIZE) as pilot:
        shown = await settle(app, pilot)
        assert "Threats: —" in shown
        for card in set(cards.values()):
            assert f"threat card: {card}" not in shown
        await advance(room, lambda v: v["outcome"] is not None)
        shown = await settle(app, pilot)
        # every seat's card, in the cards column (it scrolls), under its own heading
        shown = app.query_one("#over-cards")._shown.plain
        assert "THREAT CARDS" in shown
        for seat, card in cards.items():
            name = room.table.state.seats[seat].name
            assert f"{seat + 1} {name}: " in shown
