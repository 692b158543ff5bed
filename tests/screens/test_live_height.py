"""The live panel keeps its height while a malfunction is played, so each press or
submission repaints rows in place instead of making Textual lay out the whole board again
(a layout pass was most of the kiosk's slowest repaints on a Pi). RB "Malfunction": every
player who goes IN submits dice; the panel keeps, from the start, the rows of every seat gone
IN with a die, from public facts only (who may go in, never how many dice anyone holds), and
the ????????? malfunction's line keeps room for the longest area name it may be given."""
from __future__ import annotations

import random

import pytest

from companion.darkmoon.data import UNKNOWN
from companion.tools.simulate import choice_for
from screens.pane import Pane, rows
from screens.panels import task
from table_play import seated_room

from .conftest import SIZE, kiosk, settle

WIDTH = 40  # the live panel's columns at 120x36


@pytest.mark.parametrize("seed, players", [(2, 4), (3, 7), (4, 7)])
async def test_the_malfunction_panel_keeps_its_height_as_the_dice_come_in(tmp_path, seed,
                                                                          players):
    room = await seated_room(tmp_path, seed=seed, players=players)
    rng = random.Random(seed)
    heights: dict[tuple, set[int]] = {}
    dice_came_in, named_later = set(), set()
    began, playing = 0, None  # the malfunction being played: the count of those begun so far
    while not room.table.over:
        view = room.public_view()
        tv = view["task"]
        if tv and tv["kind"] == "malfunction" and tv["success"] is None:
            if playing != tv["card"]:
                began, playing = began + 1, tv["card"]
            for lang, unnamed in (("en", "type not named yet"), ("es", "tipo aún sin nombrar")):
                drawn = task(view, lang, WIDTH)
                heights.setdefault((began, lang), set()).add(rows(drawn))
                if tv["type"] == UNKNOWN:  # RB: the active player names it before IN/OUT
                    assert unnamed in drawn.plain
                    named_later.add(began)
            if tv["submitted"]:
                dice_came_in.add(began)
        else:
            playing = None
        seat = room.table.state.pending.seats[0]
        await room.submit(seat, choice_for(room.table.state, seat, rng))
    assert len(dice_came_in) >= 5, "malfunctions whose dice came in while watched"
    if (seed, players) == (3, 7):
        assert named_later, "this game draws the ????????? malfunction"
    changed = {key: sorted(h) for key, h in heights.items() if len(h) > 1}
    assert not changed, f"the panel changed height during a malfunction: {changed}"


async def test_the_live_pane_never_shrinks_during_a_game(tmp_path):
    """Between a malfunction, a vote and their results the live pane keeps the most rows
    it has needed this game: moving from one to the next repaints rows in place."""
    room = await seated_room(tmp_path, seed=5, players=5)
    app = kiosk(room)
    rng = random.Random(5)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        live = app.query_one("#live", Pane)
        shown, panels = [], set()
        for _ in range(120):  # a few malfunctions and votes
            if room.table.over:
                break
            if live.display:
                shown.append(live.content_size.height)
                panels.add(live.border_title)
            seat = room.table.state.pending.seats[0]
            await room.submit(seat, choice_for(room.table.state, seat, rng))
            await settle(app, pilot)
    assert len(panels) >= 2, "the pane showed malfunctions and votes"
    assert shown == sorted(shown), "the live pane shrank during the game"
    assert shown[-1] > shown[0], "and it grew when a panel needed more rows"
