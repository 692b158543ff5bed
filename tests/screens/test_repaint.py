"""A repaint draws only the widgets under what changed (screens/repaint.py, installed by
screens/textual_seam.py). What the terminal ends up showing must be exactly what a full repaint
draws: a widget wrongly left out would leave stale cells on the Pi's screen (a seat still
"deciding", an old vote). Each update the kiosk sends is applied to a model of the terminal,
cell by cell, and compared with a full repaint after every command of whole seeded games, votes
and the game over included."""
from __future__ import annotations

import random

import pytest
from textual.geometry import Region

from screens import textual_seam
from screens.capture import Terminal, drawn_cells, record_frames
from screens.pane import Pane
from screens.repaint import drawn
from table_play import call_votes, next_move, seated_room

from .conftest import SIZE, kiosk, settle


async def test_the_terminal_shows_what_a_full_repaint_draws_after_every_command(tmp_path):
    room = await seated_room(tmp_path, seed=5, players=5)
    app = kiosk(room)
    assert textual_seam.install()  # the repaint under test, as the kiosk runs it
    terminal = Terminal(app, *SIZE)
    async with app.run_test(size=SIZE) as pilot:
        record_frames(app, on_update=terminal.write)
        app.screen.refresh()  # the whole screen once: the model starts from every cell
        await settle(app, pilot)
        rng = random.Random(5)
        partial = 0
        for _ in range(400):
            full = drawn_cells(app)
            stale = [(y, "".join(c for c, _ in terminal.cells[y]), "".join(c for c, _ in row))
                     for y, row in enumerate(full) if terminal.cells[y] != row]
            assert not stale, f"stale cells after {room.table.state.pending}: {stale[:3]}"
            # the size each pane on the screen lays its rows out for is the one it has there
            shown = [pane for pane in app.screen.query(Pane) if pane.region]
            assert [(pane.id, pane.inner) for pane in shown] == \
                [(pane.id, pane.content_size) for pane in shown]
            if room.table.over:
                break
            await room.submit(*next_move(room, rng, call_votes))
            await settle(app, pilot)
            partial += 1
        assert room.table.over and partial > 50  # a whole game, its end included


def region(x, y, w, h) -> Region:
    return Region(x, y, w, h)


@pytest.mark.parametrize("change, expected", [
    # a row inside the pane: the pane alone (its containers behind it are covered there)
    (region(2, 3, 10, 1), ["pane"]),
    # a row that runs past the pane into its container's margin: both
    (region(2, 3, 25, 1), ["pane", "box"]),
    # and past the container too: the screen behind them draws the rest
    (region(2, 3, 35, 1), ["pane", "box", "screen"]),
    # outside the pane: the container alone, and not the screen behind it
    (region(25, 1, 2, 1), ["box"]),
])
def test_a_widget_is_drawn_only_where_no_widget_in_front_covers_the_change(change, expected):
    # front to back, as Textual's map lists them: (region, clip)
    screen = region(0, 0, 40, 10)
    widgets = {"pane": (region(1, 1, 20, 5), screen),
               "box": (region(0, 0, 30, 8), screen),
               "screen": (screen, screen)}
    assert list(drawn(widgets, [change])) == expected


def test_a_widget_clipped_away_is_not_drawn_for_a_change_under_its_clip():
    screen = region(0, 0, 40, 10)
    # a pane scrolled half out of its container: only its top half shows
    widgets = {"pane": (region(0, 3, 10, 10), region(0, 0, 10, 5)),
               "screen": (screen, screen)}
    assert list(drawn(widgets, [region(0, 7, 5, 1)])) == ["screen"]
    assert list(drawn(widgets, [region(0, 4, 5, 1)])) == ["pane"]
