"""screens/callbacks.py counts a partial's parameters once per function instead of Textual's
inspect.signature at every call_later. A wrong count would call the kiosk's redraw or log with
the wrong arguments (a TypeError, or a callback silently given less than it needs), so every
kind of callback must get the count Textual itself gives; and a Textual that stopped asking it
(a renamed or moved lookup) would quietly make the kiosk slower again, so a real redraw of the
kiosk must go through it."""
from __future__ import annotations

import inspect
from functools import partial
from types import MethodType

import pytest
from textual import _callback

from screens import callbacks, textual_seam
from table_play import advance, seated_room, waiting_for

from .conftest import SIZE, kiosk, region_text, settle

BLACK_KEYS, RED_KEYS = "1234567", "qwertyu"


def live(app) -> str:
    """The live panel's words as the screen shows them, wrapping undone."""
    return " ".join(region_text(app, "#live").replace("│", " ").split())


def textual_count(func) -> int:
    """What Textual 8's count_parameters gives, from the signature each time."""
    if isinstance(func, partial):
        return len(inspect.signature(func.func).parameters) - len(func.args) - len(func.keywords)
    if hasattr(func, "__self__") and hasattr(func, "__func__"):
        return len(inspect.signature(func.__func__).parameters) - 1
    return len(inspect.signature(func).parameters)


class Pump:
    def redraw(self) -> None: ...
    def show(self, kiosk, lang="en") -> None: ...
    @classmethod
    def made(cls, a, b) -> None: ...
    @staticmethod
    def loose(a) -> None: ...


def plain(a, b, *, c=1) -> None: ...


pump = Pump()
CALLBACKS = {
    "a method": partial(pump.redraw),
    "a method given an argument": partial(pump.show, {}),
    "a method given a keyword": partial(pump.show, lang="es"),
    "a class method": partial(Pump.made, 1),
    "a static method": partial(Pump.loose),
    "a function": partial(plain, 1),
    "a lambda": partial(lambda x, y: None),
    "a partial of a partial": partial(partial(plain, 1), 2),
    "a builtin": partial(print, "x"),
    "a builtin method": partial([].append),
    "a method, not wrapped": pump.show,
    "a function, not wrapped": plain,
}


@pytest.mark.parametrize("name", list(CALLBACKS))
def test_every_kind_of_callback_is_counted_as_textual_counts_it(name):
    callback = CALLBACKS[name]
    assert callbacks.count_parameters(callback) == textual_count(callback)
    assert callbacks.count_parameters(callback) == textual_count(callback)  # and once kept


async def test_a_redraw_of_the_kiosk_has_textual_count_its_callbacks_with_ours(tmp_path):
    room = await seated_room(tmp_path, seed=3)
    view = await advance(room, waiting_for("participation"))
    seat = view["waiting"]["seats"][0]
    going_in = ("in",) in room.table.state.pending.options[seat]
    key = (BLACK_KEYS if going_in else RED_KEYS)[seat]
    mark = f"{seat + 1} {view['seats'][seat]['name']} [{'IN' if going_in else 'OUT'}]"
    app = kiosk(room)
    assert textual_seam.install()
    ours = _callback.count_parameters
    assert ours is callbacks.count_parameters
    asked: list[tuple[object, int]] = []  # what Textual asked to count, and the answer

    def watched(func) -> int:
        count = ours(func)
        asked.append((func, count))
        return count

    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert mark not in live(app)
        _callback.count_parameters = watched  # where Textual's invoke() looks it up
        try:
            await pilot.press(key)
            await settle(app, pilot)
        finally:
            _callback.count_parameters = ours
        assert mark in live(app)  # the press is on the screen
    # The press's redraw ran the kiosk's own callbacks, wrapped in partials, through the count
    kiosks = [func for func, _ in asked if isinstance(func, partial)
              and isinstance(func.func, MethodType)
              and type(func.func.__self__).__module__.startswith("screens.")]
    assert kiosks, [func for func, _ in asked]
    # ... and each answer is the one Textual's own count gives
    textuals = callbacks._textual_count
    assert asked == [(func, textuals(func)) for func, _ in asked]


def test_a_new_partial_of_the_same_method_reads_no_signature_again(monkeypatch):
    class Board:
        def show(self, kiosk, lang) -> None: ...

    board = Board()
    assert callbacks.count_parameters(partial(board.show, {})) == 1
    read = []
    monkeypatch.setattr(_callback, "signature",
                        lambda f: read.append(f) or inspect.signature(f))
    for _ in range(3):
        assert callbacks.count_parameters(partial(board.show, {})) == 1
        assert callbacks.count_parameters(partial(board.show)) == 2
    assert read == []
