"""A restart's stylesheets come from the warm start (screens/stylecache.py): exactly the rules
Textual parses from the same text, and a kiosk started on them draws the same screen, colour
for colour; a damaged kept entry is parsed afresh."""
from __future__ import annotations

import asyncio
import pickle

from textual.css import stylesheet
from textual.css.stylesheet import Stylesheet

from companion import warmstart
from companion.room import Room
from companion.store import EventStore
from screens import stylecache
from table_play import NAMES

from .conftest import SIZE, kiosk
from .snapshot import render


def parses(monkeypatch) -> list[tuple]:
    """Every stylesheet text Textual's parser parses from now on."""
    seen: list[tuple] = []

    def counted(scope, css, read_from, *rest, **options):
        seen.append((css, read_from))
        return textual_parse(scope, css, read_from, *rest, **options)
    textual_parse = stylesheet.parse
    monkeypatch.setattr(stylesheet, "parse", counted)
    return seen


async def start(room, data_dir, monkeypatch, parsed: list) -> tuple[str, Stylesheet, list]:
    """One start of the kiosk with the warm start on, as companion.cli starts it: the screen
    it draws once ready (colours included), its stylesheet, and what was parsed before its
    first frame (where the kiosk ends the warm start)."""
    at_frame: list[list] = []  # what was parsed when the kiosk ended the warm start
    finish = warmstart.finish

    def at_first_frame():
        at_frame.append(list(parsed))
        return finish()
    monkeypatch.setattr(warmstart, "finish", at_first_frame)
    parsed.clear()
    warmstart.begin(str(data_dir))
    try:
        app = kiosk(room)
        async with app.run_test(size=SIZE) as pilot:
            await asyncio.wait_for(app.serving.wait(), 10)  # the start is over
            await pilot.pause()
            drawn = render(app)
            sheet = app.stylesheet
    finally:
        monkeypatch.setattr(warmstart, "finish", finish)
        keep = warmstart.finish()  # the kiosk finished it at its first frame: nothing left
    assert keep is None and at_frame, "the kiosk ended the warm start at its first frame"
    path = data_dir / warmstart.FILE
    for _ in range(1000):  # the kiosk writes it on a thread after its first frame
        if path.exists():
            break
        await asyncio.sleep(0.01)
    return drawn, sheet, at_frame[0]


async def test_a_restart_draws_the_join_screen_from_kept_stylesheets_as_parsed(
        tmp_path, monkeypatch):
    room = Room(EventStore(str(tmp_path / "games.db")))
    await room.new_game({"names": NAMES})  # the join screen with the table's code
    parsed = parses(monkeypatch)
    first, sheet, before_first = await start(room, tmp_path, monkeypatch, parsed)
    assert len(before_first) >= 10, "the app's and its widgets' stylesheets are parsed"
    again, _, before_again = await start(room, tmp_path, monkeypatch, parsed)
    assert again == first, "the same screen, colours included, from the kept rules"
    assert before_again == [], "nothing parsed before the restart's first frame"
    # and every text the kiosk uses gives, kept and read back, the rules Textual parses
    for read_from, (css, is_defaults, tie_breaker, scope) in sheet.source.items():
        parsed = stylecache._textual_parse(Stylesheet(variables=sheet._variables), css,
                                           read_from, is_defaults, tie_breaker, scope)
        kept = pickle.loads(pickle.dumps(parsed, pickle.HIGHEST_PROTOCOL))
        assert [described(rule) for rule in kept] == [described(rule) for rule in parsed], \
            read_from


def described(rule) -> tuple:
    """All a rule set says: what it selects and how, and every style's value (by repr: a
    layout is a new object at every parse; and Textual cannot write some rules back as CSS)."""
    return (rule.selector_names, rule.is_default_rules, rule.tie_breaker,
            repr(sorted(rule.styles.get_rules().items())), rule.styles.important,
            [s.css for s in rule.selector_set], rule.errors)


async def test_a_damaged_kept_stylesheet_is_parsed_afresh(tmp_path, monkeypatch):
    room = Room(EventStore(str(tmp_path / "games.db")))
    await room.new_game({"names": NAMES})
    parsed = parses(monkeypatch)
    first, _, before_first = await start(room, tmp_path, monkeypatch, parsed)
    real_recall = warmstart.recall

    def damaged(kind, key):
        data = real_recall(kind, key)
        return data[: len(data) // 2] if kind == stylecache.KIND and data else data
    monkeypatch.setattr(warmstart, "recall", damaged)
    again, _, before_again = await start(room, tmp_path, monkeypatch, parsed)
    assert again == first
    assert before_again == before_first, "each parsed again"
