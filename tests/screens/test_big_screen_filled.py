"""A big screen (240x67) used from top to bottom, so that the board reads from a chair: the
panes of each column reach the bottom of the screen, and no band of empty rows is left in
them (once forty rows under the board's sections and the moves early in a game). The
players' names stand in big letters, the board's sections, the moves and a short log are
spaced out over the rows there are, and the log takes what the live panel and the moves
leave. Through whole games played by the helpful bots, base and expansion, seven seats,
nothing is cut off; the Pi's 120x36 keeps its layout (its snapshot is unchanged)."""
from __future__ import annotations

import random

import pytest

from companion.tools.simulate import choice_for
from screens.bigtext import draw
from screens.capture import screen_text
from screens.words import name_of, sentences

from .conftest import SIZE, kiosk, region_text, settle
from .test_board_fits import assert_drawn_whole, flat
from table_play import seated_room

WIDE = (240, 67)
BAND = 15  # the most empty rows one after another in a column: under a quarter of the screen
COLUMNS = ("#tracks", "#board-middle", "#board-right")
BORDERS = set("│─╭╮╰╯ ")
SC = ("shadow_corporation",)


def empty_band(app, column: str) -> int:
    """The most rows one after another with nothing but borders drawn in a column."""
    lines = screen_text(app).splitlines()
    region = app.query_one(column).region
    run = most = 0
    for y in range(region.y, region.bottom):
        run = run + 1 if set(lines[y][region.x:region.right]) <= BORDERS else 0
        most = max(most, run)
    return most


def check_filled(app, view: dict, lang: str, moment: int) -> None:
    body = app.query_one("#board-body").region
    assert body.bottom == WIDE[1] - 1, "the board reaches the seat buttons' line"
    for column in COLUMNS:
        region = app.query_one(column).region
        assert (region.y, region.bottom) == (body.y, body.bottom), column
        panes = [p for p in app.query_one(column).children if p.display] \
            if column != "#tracks" else [app.query_one("#tracks")]
        assert sum(p.outer_size.height for p in panes) == region.height, \
            f"{column}: its panes leave rows of the screen unused at step {moment}"
        band = empty_band(app, column)
        assert band <= BAND, f"{column}: {band} empty rows at step {moment}"
    shown = ["#tracks", "#seats", "#mirror"] + (["#live"] if app.query_one("#live").display
                                                else [])
    assert_drawn_whole(app, *shown)
    mirror = flat(region_text(app, "#mirror"))
    for move in sentences(view, lang)["mirror"]:
        assert move in mirror, f"{move!r} is not on the screen at step {moment}"
    for seat in view["seats"]:  # every seat, its character under its name
        assert name_of(lang, "character", seat["character"]) in region_text(app, "#seats")


@pytest.mark.parametrize("lang, variants, players, seed", [
    ("en", (), 7, 7), ("es", SC, 7, 5), ("en", SC, 4, 3), ("en", (), 5, 11)],
    ids=["base-7", "expansion-7-es", "expansion-4", "base-5"])
async def test_a_big_screen_is_used_from_top_to_bottom_through_a_game(tmp_path, lang,
                                                                     variants, players,
                                                                     seed):
    room = await seated_room(tmp_path, seed=seed, players=players, lang=lang,
                             variants=variants)
    rng = random.Random(seed)
    app = kiosk(room)
    moments = 0
    async with app.run_test(size=WIDE) as pilot:
        step = 0
        while not room.table.over:
            if step % 9 == 0:
                await settle(app, pilot)
                check_filled(app, room.public_view(), lang, step)
                moments += 1
            seat = room.table.state.pending.seats[0]
            await room.submit(seat, choice_for(room.table.state, seat, rng))
            step += 1
    assert moments >= 15, "moments of the game looked at"


@pytest.mark.parametrize("players", [4, 7])
async def test_the_names_stand_in_big_letters_with_the_player_marked(tmp_path, players):
    room = await seated_room(tmp_path, seed=7, players=players)
    view = room.public_view()
    app = kiosk(room)
    async with app.run_test(size=WIDE) as pilot:
        await settle(app, pilot)
        seats = region_text(app, "#seats")
        for seat in view["seats"]:
            label = f"{seat['seat'] + 1} {seat['name']}".upper()
            scale = next((scale for scale in (2, 1)
                          if all(line in seats for line in draw(label, scale))), None)
            assert scale, f"{label} is not in big letters"
            assert (scale == 2) == (players == 4)  # as big as lets every seat fit
            middle = draw(label, scale)[3 * scale // 2]
            marked = f"▶ {middle}" in seats
            assert marked == (seat["seat"] == view["active"]), label
            assert name_of("en", "character", seat["character"]) in seats


async def test_the_log_changes_column_with_the_screen(tmp_path):
    """A screen plugged in after start: the log goes under the moves on the big screen and
    back under the players on the Pi's own, every pane drawn again for its width."""
    room = await seated_room(tmp_path, seed=7, players=5)
    app = kiosk(room)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert app.query_one("#log").parent.id == "board-middle"
        for size, column in ((WIDE, "board-right"), (SIZE, "board-middle")):
            await pilot.resize_terminal(*size)
            await settle(app, pilot)
            await settle(app, pilot)
            assert app.query_one("#log").parent.id == column
            assert "The game begins" in flat(region_text(app, "#log"))
            assert_drawn_whole(app, "#tracks", "#seats", "#mirror")
