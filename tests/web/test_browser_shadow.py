"""In real Chromium: a Shadow Corporation game on four phones. The active player's
phone rolls the corporation dice in secret and shows one with a tap; amputation and
clearance votes are cast on the seat buttons while every phone says what BLACK and RED mean
in that vote; the ship takes off and every phone shows who won."""
from __future__ import annotations

import json
import random

from companion.tools.simulate import choice_for

from test_browser_kit import Phones, browser, changed, seated_pages, served, showing  # noqa: F401

SC = ("shadow_corporation",)


# The bots' moves for this game (the room's seed deals it): seeded so that it lasts until
# the ship can take off.
MOVES = 7


async def play_until(room, pages, until, prefer=None, rng=None):
    """The helpful bots' moves (or `prefer`'s) until `until(state)`; the pages follow."""
    for _ in range(3000):
        g = room.table.state
        if until(g):
            await showing(pages, room.table.state_id)
            return g
        assert g.outcome is None, f"the game ended before the wanted moment (turn {g.turn})"
        seat = g.pending.seats[0]
        option = prefer(g, seat) if prefer else None
        command = ({"decision": g.pending.kind, "option": list(option)} if option
                   else choice_for(g, seat, rng))
        await room.submit(seat, command)
    raise AssertionError("the wanted moment never came")


def vote_kind(kind):
    return lambda g: g.pending is not None and g.pending.kind == "vote" \
        and g.pending.data.get("kind") == kind


def calling(action):
    """Call this kind of vote whenever the active player may; while the Research Lab or
    the Evac Ship blocks it, repair the outpost and take that token away."""
    def prefer(g, seat):
        options = g.pending.options[seat]
        if g.pending.kind == "action":
            return next((o for o in options if o[0] == action), None) or next(
                (o for o in options if o == ("repair", "outpost")), None)
        if g.pending.kind == "remove_token":
            return next((o for o in options if o[-1] in ("research_lab", "evac_ship")), None)
        return None
    return prefer


async def press_all(room, colour_of):
    g = room.table.state
    for seat in list(g.pending.seats):
        await room.press(seat, colour_of(g, seat))


async def test_a_shadow_corporation_game_on_four_phones(served, browser):
    phones = Phones(browser, served.base)
    room = served.room
    pages = await seated_pages(room, phones, variants=SC)
    rng = random.Random(MOVES)

    # A corporation roll: the roller's phone alone shows the dice, one tap shows one.
    g = await play_until(room, pages, lambda g: g.pending.kind == "corporation", rng=rng)
    roller, faces = g.active, list(g.corporation)
    page = pages[roller]
    await page.wait_for_selector('#decision[data-decision="corporation"]')
    for other, other_page in enumerate(pages):
        if other != roller:
            assert json.dumps(faces) not in await other_page.content()
            assert await other_page.locator('#decision[data-decision="corporation"]').count() == 0
    before = room.table.state_id
    await page.click('#decision button[data-option=\'["submit",0]\']')
    # the tap's POST lands after click() returns: wait for its state, not for the one before
    await showing(pages, await changed(room, before))
    assert room.table.state.task.corporation == [faces[0]]

    # An amputation vote on the seat buttons: every phone says RED amputates.
    g = await play_until(room, pages, vote_kind("amputation"), calling("amputate"), rng)
    target = g.pending.data["target"]
    question = await pages[0].inner_text("#decision")
    assert "RED amputates" in question and "BLACK spares" in question
    await press_all(room, lambda g, s: "red" if g.seats[s].dice["weak"] else "grey")
    await showing(pages, room.table.state_id)
    # the revealed ballots say what RED meant in this vote, not a quarantine's words
    ballots = await pages[1].inner_text("#ballots")
    assert "Amputate (weak die, RED)" in ballots and "Quarantine" not in ballots
    if room.table.state.pending.kind == "tie_break":
        await room.submit(room.table.state.commander,
                          {"decision": "tie_break", "option": ["amputate"]})
    assert room.table.state.seats[target].amputated

    # Clearance votes until the board is full, then the take-off, all on the buttons.
    def black(g, s):
        return "black" if g.seats[s].dice["strong"] else "grey"
    while len(room.table.state.clearances) < 2:
        g = await play_until(room, pages, vote_kind("clearance"), calling("clearance"), rng)
        assert "BLACK clears" in await pages[0].inner_text("#decision")
        await press_all(room, black)
        if room.table.state.pending.kind == "tie_break":
            await room.submit(room.table.state.commander,
                              {"decision": "tie_break", "option": ["clear"]})
    assert len(room.table.state.clearances) == 2
    await play_until(room, pages, vote_kind("takeoff"), calling("takeoff"), rng)
    assert "BLACK takes off" in await pages[0].inner_text("#decision")
    await press_all(room, black)
    if room.table.state.outcome is None and room.table.state.pending.kind == "tie_break":
        await room.submit(room.table.state.commander,
                          {"decision": "tie_break", "option": ["take_off"]})
    outcome = room.table.state.outcome
    assert outcome is not None and outcome.condition in ("evacuated", "infected_aboard")
    await showing(pages, room.table.state_id)
    banner = await pages[1].inner_text("#banner")
    assert ("no Infected aboard" if outcome.condition == "evacuated"
            else "an Infected left on the evacuation ship") in banner
    assert phones.errors == []
