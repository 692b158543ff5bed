"""A press as fast on a Pi as on a laptop: a seat's press sends the terminal the
rows that changed, not whole panes, and the log lays out only the sentences its pane shows.
Real games on a real store, the kiosk drawn by Pilot at the Pi's 120x36."""
from __future__ import annotations

from screens.capture import record_frames
from table_play import advance, seated_room

from .conftest import SIZE, kiosk, region_text, settle

BLACK_KEYS = "1234567"


def participating(view) -> bool:
    """A malfunction's IN/OUT, a seat past the first already answered (the moves to make
    then keep their number of lines from one press to the next)."""
    waiting = view["waiting"] or {}
    return waiting.get("decision") == "participation" and waiting["seats"][0] >= 2


async def test_a_seat_press_repaints_its_rows_not_the_whole_players_pane(tmp_path):
    room = await seated_room(tmp_path, seed=3)
    view = await advance(room, participating)
    seat = view["waiting"]["seats"][0]
    going_in = ("in",) in room.table.state.pending.options[seat]
    app = kiosk(room)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        before = region_text(app, "#seats").splitlines()
        spans: list[tuple[int, int, int]] = []  # (row, from, to) sent to the terminal
        record_frames(app, on_update=lambda update: spans.extend(getattr(update, "spans", ())))
        await pilot.press(BLACK_KEYS[seat] if going_in else "qwertyu"[seat])
        await settle(app, pilot)
        assert room.public_view()["waiting"]["seats"] != [seat]  # the press was taken
        seats = app.query_one("#seats").region
        sent = {y for y, x1, x2 in spans if x1 < seats.right and x2 > seats.x}
        after = region_text(app, "#seats").splitlines()
        assert len(after) == len(before)  # the pane kept its rows
        changed = {seats.y + row for row, (was, now) in enumerate(zip(before, after))
                   if was != now}
        assert changed and changed <= sent  # what moved is on the screen
        # ... and the players' rows that did not change were not sent again
        unchanged = set(range(seats.y, seats.bottom)) - changed
        assert not unchanged & sent, sorted(unchanged & sent)
        pressed = await settle(app, pilot)
    fresh = kiosk(room)  # the rows repainted leave the screen a kiosk started now draws
    async with fresh.run_test(size=SIZE) as pilot:
        assert await settle(fresh, pilot) == pressed


async def test_the_log_lays_out_the_newest_sentences_that_fill_its_pane(tmp_path):
    room = await seated_room(tmp_path, seed=3)
    view = await advance(room, lambda v: len(v["log"]) >= 60)
    app = kiosk(room)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        log = app.query_one("#log")
        rows = log.content_size.height
        laid = log._shown.plain.split("\n")
        drawn = [line.strip("│ ") for line in region_text(app, "#log").splitlines()[1:-1]]
        assert drawn[-1], "the log's last row is empty while older sentences wait"
        # no more than what the pane shows, and the sentence that reaches past its bottom
        assert rows <= len(laid) < rows + 4, (rows, len(laid))
        assert laid[0].split()[:3] == drawn[0].split()[:3]  # the newest first
    assert len(view["log"]) >= 60

