"""The kiosk from across the table: nothing cut off at the Pi's 120x36, the space of
a 240x67 screen used for big figures, no line broken inside a name or a count, and the ▶ on
the seat that really plays first. Real games, driven by the helpful bots, drawn by Pilot."""
from __future__ import annotations

import re

import pytest
from textual.widgets import Digits

from screens.words import sentences

from .conftest import SIZE, kiosk, region_text, settle
from table_play import advance, seated_room

WIDE = (240, 67)
SIZES = [SIZE, WIDE]


def flat(text: str) -> str:
    """A pane's drawing as one line: borders dropped, wrapped lines joined."""
    inner = [line.strip("│ ") for line in text.splitlines()[1:-1]]
    return re.sub(r"\s+", " ", " ".join(inner))


def laid_out(app, pane: str) -> list[str]:
    """The lines the kiosk laid out for a pane (before the terminal's own wrapping)."""
    return [line.rstrip() for line in app.query_one(pane)._shown.plain.split("\n")
            if line.strip()]


SCROLLBAR = "│ ▁▂▃▄▅▆▇█"


def assert_drawn_whole(app, *panes: str) -> None:
    """Every laid-out line of each pane is on the screen in one piece: none wrapped by the
    pane's edge (a "3 Cai [OUT]" split in two) and none cut off at its bottom."""
    for pane in panes:
        lines = region_text(app, pane).splitlines()
        # inside the border; a scroll bar's cells stripped too (not from big letters' blocks)
        drawn = {line[1:-1].strip() for line in lines} | \
            {line.strip(SCROLLBAR).strip() for line in lines}
        for line in laid_out(app, pane):
            assert line.strip() in drawn, \
                f"{pane}: {line!r} is not drawn whole at {app.size}"


async def moves_seen(tmp_path, size, until, lang="en", seed=11, players=7):
    room = await seated_room(tmp_path, seed=seed, players=players, lang=lang)
    view = await advance(room, until) if until else room.public_view()
    app = kiosk(room)
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        mirror = flat(region_text(app, "#mirror"))
        for move in sentences(view, lang)["mirror"]:
            assert move in mirror, f"{move!r} is not on the screen at {size}"
        assert_drawn_whole(app, "#tracks", "#seats", "#mirror")
        if app.query_one("#live").display:
            assert_drawn_whole(app, "#live")
    return view


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("lang", ["en", "es"])
async def test_every_setup_move_is_on_the_screen(tmp_path, size, lang):
    """Seven players: dealing the characters, two outpost tokens, the commander and the final
    event are five moves, once three of them fell below the pane's edge."""
    view = await moves_seen(tmp_path, size, None, lang)
    assert len(sentences(view, lang)["mirror"]) == 5


def event_completed_with_many_moves(view) -> bool:
    facts = view.get("log", [])
    return any(f["k"] == "event_completed" for f in facts[-12:]) and \
        len(sentences(view, "es")["mirror"]) >= 10


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_every_move_of_an_event_completion_is_on_the_screen(tmp_path, size):
    """Salvage Parts completed: every outpost and fatigue token is shuffled and drawn again,
    thirteen moves, in Spanish, whose sentences are the longest."""
    view = await moves_seen(tmp_path, size, event_completed_with_many_moves, "es", seed=4,
                            players=5)
    assert "salvage_parts" in [f["card"] for f in view["log"] if f["k"] == "event_completed"]


async def scrolled_through(app, pilot, box_id: str) -> set[str]:
    """Every line the box showed while paged from its top to its bottom."""
    box = app.query_one(box_id)
    box.focus()
    await pilot.pause()
    seen = set()
    for _ in range(200):
        seen.update(line.strip(SCROLLBAR).strip()
                    for line in region_text(app, box_id).splitlines())
        if box.scroll_y >= box.max_scroll_y:
            break
        await pilot.press("pagedown")
        await pilot.pause()
    return seen


SHADOW = ("shadow_corporation", "threats_module", "company_man_module")


@pytest.mark.parametrize("variants", [(), SHADOW], ids=["base", "shadow"])
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_every_roll_and_card_can_be_scrolled_to_at_game_over(tmp_path, size, variants):
    """Both lists are longer than the screen, so each box shows a scroll bar: the lines are
    laid out for the width left beside it. Once they were laid out for the width without it
    and the terminal broke them again ("1 Ana discarded Rescue Crewman" / "face" / "down")."""
    room = await seated_room(tmp_path, seed=11, players=5, variants=variants)
    app = kiosk(room)
    async with app.run_test(size=size) as pilot:
        # the game ends while the kiosk shows it, as at the table
        view = await advance(room, lambda v: v["outcome"] is not None)
        rolls = [f for f in room.public_view()["log"]
                 if f["k"] in ("rolled", "submitted", "corporation_rolled", "corporation_unseen")]
        await settle(app, pilot)
        assert app.focused is app.query_one("#over-rolls-box")  # the keys move the rolls
        for pane in ("#over-rolls", "#over-cards"):
            seen = await scrolled_through(app, pilot, f"{pane}-box")
            laid = laid_out(app, pane)
            if pane == "#over-rolls":
                assert len([line for line in laid if not line.startswith(" ")]) == len(rolls)
            missing = [line for line in laid if line.strip() not in seen]
            assert not missing, f"{pane}: never on the screen whole at {size}: {missing[:3]}"
        assert_drawn_whole(app, "#over-seats")
        for s in view["seats"]:
            assert f"{s['seat'] + 1} {s['name']}" in region_text(app, "#over-seats")


async def test_at_240x67_the_figures_are_big_and_no_pane_line_wraps(tmp_path):
    room = await seated_room(tmp_path, seed=7, players=5)
    view = await advance(room, lambda v: (v["waiting"] or {}).get("decision") ==
                         "participation" and v["event"] is not None)
    app = kiosk(room)
    async with app.run_test(size=WIDE) as pilot:
        await settle(app, pilot)
        figures = {d.id: d for d in app.query(Digits)}
        shown = {key: figures[f"g-{key}-figure"] for key in
                 ("shield", "outpost", "fatigue", "suspicion", "event", "final", "task")}
        assert shown["shield"].value == str(view["shield"]["tokens"])
        assert shown["outpost"].value == str(len(view["outpost"]["tokens"]))
        assert shown["fatigue"].value == str(len(view["fatigue"]["tokens"]))
        assert shown["event"].value == str(view["event"]["cubes"])
        assert shown["task"].value == f"{view['task']['success_total']:+d}"
        for key, digits in shown.items():  # three rows tall, on the screen
            assert digits.region.height == 3 and digits.region.bottom <= WIDE[1], key
        assert "██" in region_text(app, "#g-shield")  # a track of blocks beside each figure
        assert_drawn_whole(app, "#tracks", "#seats", "#live", "#mirror")
        # the columns grew with the screen: no pane stays at its 120-column width
        for pane in ("#seats", "#live", "#mirror", "#log"):
            assert app.query_one(pane).region.width >= 60, pane
        log = app.query_one("#log")
        for line in laid_out(app, "#log"):
            assert len(line) <= log.content_size.width


async def test_at_120x36_the_big_figures_give_their_rows_to_the_panes(tmp_path):
    room = await seated_room(tmp_path, seed=7, players=5)
    app = kiosk(room)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert not app.query_one("#gauges").display or \
            app.query_one("#gauges").region.height == 0


@pytest.mark.parametrize("seed, players", [(11, 7), (11, 5)])
async def test_the_first_player_is_marked_from_the_deal(tmp_path, seed, players):
    """SETUP 15: "The player to the left of the Commander will be the start player." While
    the commander still places the first event, the ▶ is already on that player, not on
    seat 1."""
    room = await seated_room(tmp_path, seed=seed, players=players)
    view = room.public_view()
    first = (view["commander"] + 1) % players
    assert first != 0 and view["turn"] == 0  # the commander has not placed the event yet
    app = kiosk(room)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        seats = region_text(app, "#seats")
        name = view["seats"][first]["name"]
        assert f"▶ {first + 1} {name}" in seats
        assert seats.count("▶") == 2  # the marker and the title's key to it
        view = await advance(room, lambda v: v["turn"] == 1)
        assert view["active"] == first  # the turn that follows is that player's
        await settle(app, pilot)
        assert f"▶ {first + 1} {name}" in region_text(app, "#seats")


@pytest.mark.parametrize("lang", ["en", "es"])
async def test_dice_are_counted_in_words_with_their_plural(tmp_path, lang):
    """Game over once said "held 1S 0W 0C": now "holds 1 weak die, the commander die"."""
    from screens.over import statuses
    from screens.words import dice
    room = await seated_room(tmp_path, seed=11, players=5, lang=lang)
    view = await advance(room, lambda v: v["outcome"] is not None)
    drawn = re.sub(r"\s+", " ", statuses(view, lang, 200).plain)
    for s in view["seats"]:
        for colour, n in s["dice"].items():
            if n:
                assert dice(lang, colour, n) in drawn
    singular, plural = dice(lang, "weak", 1), dice(lang, "weak", 2)
    assert singular.startswith("1 ") and singular != plural.replace("2", "1")
    assert not re.search(r"\d[SWCFD]\b", drawn)  # no letter codes for the dice
