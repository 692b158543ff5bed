"""Textual counts a callback's parameters once per function, but a partial's afresh each time.

call_later and call_after_refresh wrap every callback in a functools.partial, and Textual
counts the parameters of the partial's function with inspect.signature each time it runs
one: for the kiosk's redraw, its log and the screen's own after-repaint callbacks, about
0.25 ms of this machine's CPU per command, nearer 2 ms of a press on a Pi-class one. Here a
partial of a method or function is counted as Textual counts that method or function given
to it bare: once, the count kept on the function. Anything else is left to Textual. The counts are
Textual's own: tests/screens/test_callbacks.py compares them for every kind of callback, and
counts the calls Textual makes to this one during a real redraw of the kiosk.

Importing this changes nothing: screens/textual_seam.py puts count_parameters where Textual's
invoke() looks it up, on the Textual version it was written for.
"""
from __future__ import annotations

from functools import partial
from types import FunctionType, MethodType

from textual import _callback

_textual_count = _callback.count_parameters  # Textual's own: imported before the seam installs


def count_parameters(func) -> int:
    if isinstance(func, partial) and isinstance(func.func, (MethodType, FunctionType)):
        # counted as Textual counts the method or function itself, which it keeps
        return _textual_count(func.func) - len(func.args) - len(func.keywords)
    return _textual_count(func)
