"""Issue 12: screens/callbacks.py counts a partial's parameters once per function instead of
Textual's inspect.signature at every call_later. A wrong count would call the kiosk's redraw
or log with the wrong arguments (a TypeError, or a callback silently given less than it
needs), so every kind of callback must get the count Textual itself gives."""
from __future__ import annotations

import inspect
from functools import partial

import pytest
from textual import _callback

import screens.app  # noqa: F401  (the kiosk installs the counting)
from screens import callbacks


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


def test_textual_runs_callbacks_with_this_count():
    assert _callback.count_parameters is callbacks.count_parameters


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
