"""The board in 16 colours: a snapshot of a seeded position at the Pi's 120x36, only the
Linux console's sixteen colours, and the same board at 240x67."""
from __future__ import annotations

from screens.capture import ANSI_NAMES
from screens.words import name_of

from . import snapshot
from .conftest import SIZE, kiosk, region_text, settle
from table_play import advance, seated_room, waiting_for

CONSOLE = set(ANSI_NAMES.values()) | {"default"}


async def board_at(tmp_path, size, name=None, decision="participation"):
    room = await seated_room(tmp_path, seed=7)
    view = await advance(room, waiting_for(decision))
    app = kiosk(room)
    async with app.run_test(size=size) as pilot:
        text = await settle(app, pilot)
        used = snapshot.colours_used(app)
        if name:
            snapshot.check(app, name)
        panes = {p: region_text(app, p) for p in ("#tracks", "#seats", "#live", "#log")}
        regions = {p: app.query_one(p).region for p in panes}
    return view, text, used, panes, regions


async def test_board_snapshot_at_120x36(tmp_path):
    _, _, used, _, _ = await board_at(tmp_path, SIZE, "board-120x36")
    assert used <= CONSOLE, f"colours the Linux console cannot show: {used - CONSOLE}"


async def test_board_fits_at_120x36_and_240x67(tmp_path):
    for size in (SIZE, (240, 67)):
        folder = tmp_path / f"{size[0]}x{size[1]}"
        folder.mkdir()
        view, text, used, panes, regions = await board_at(folder, size)
        assert used <= CONSOLE
        for pane, region in regions.items():
            assert region.area and region.right <= size[0] and region.bottom <= size[1]
        # the last line of each column is on the screen, not cut off below it
        assert "Task deck:" in panes["#tracks"]
        last = view["seats"][-1]
        if size == SIZE:  # on a big screen the names are in big letters
            assert f"{last['seat'] + 1} {last['name']}" in panes["#seats"]
        else:
            assert name_of("en", "character", last["character"]) in panes["#seats"]
        assert panes["#seats"].count("die limit") == len(view["seats"])
        assert "Participation" in panes["#live"]
