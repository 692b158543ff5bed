"""Every reach of the kiosk into Textual's private parts, installed from here and nowhere else.

Two changes make a press show sooner on a Pi-class CPU, each through a private part of
Textual: a repaint draws only the widgets under what changed (screens/repaint.py), and a
callback's parameters are counted once per function (screens/callbacks.py). Importing those
modules changes nothing; `install()` puts them into Textual, and only into the Textual they
were written for (TESTED_TEXTUAL, the version pyproject.toml pins). On any other version a
renamed private would crash the kiosk at its first repaint, and a changed one could quietly
turn a patch into a no-op: there the kiosk runs on stock Textual, slower but whole, and says
so once in the log. DARKMOON_STOCK_TEXTUAL=1 runs stock Textual on purpose (to compare the
two, or to rule the patches out when the screen looks wrong). The pane's inner size uses
only Textual's public sizes: keeping it from a private hook saved too little to measure.

tests/screens/test_stock_textual.py plays a whole game on stock Textual and checks the screen
shows what the patched kiosk shows; tests/screens/test_repaint.py and test_callbacks.py check
each patch does its work and that Textual still calls it."""
from __future__ import annotations

import logging
import os
from pathlib import Path

import textual

TESTED_TEXTUAL = "8.2.8"
STOCK = "DARKMOON_STOCK_TEXTUAL"  # set to 1: the kiosk runs on stock Textual

log = logging.getLogger(__name__)

_originals: dict[tuple[object, str], object] = {}  # Textual's own, kept at the first install
_told: set[str] = set()  # what the log has been told already
_tested: list[bool] = []  # whether the Textual running is the tested one, once looked at


def _patches() -> list[tuple[object, str, object]]:
    """(where, name, ours) for each private part replaced. Imported only once the version is
    known to be the tested one: on another, the private modules may not even exist."""
    from textual import _callback
    from textual._compositor import Compositor

    from . import callbacks, repaint
    return [(_callback, "count_parameters", callbacks.count_parameters),
            (Compositor, "render_partial_update", repaint.render_partial_update)]


def _running_tested() -> bool:
    """Whether the Textual imported is the tested one. The installed package's record beside
    it names its version: one look at the disk, where textual.__version__ reads the packages'
    metadata (28 ms of this machine's start, five times that on a Pi's); that is read only
    when the record is not there, to name the version in the log."""
    if (Path(textual.__file__).parent.parent / f"textual-{TESTED_TEXTUAL}.dist-info").is_dir():
        return True
    version = textual.__version__
    if version == TESTED_TEXTUAL:
        return True
    _tell("version", "Textual %s is not the tested %s: the kiosk runs on stock Textual",
          version, TESTED_TEXTUAL)
    return False


def _tell(what: str, message: str, *args) -> None:
    if what not in _told:
        _told.add(what)
        log.warning(message, *args)


def install(enabled: bool = True) -> bool:
    """Put the kiosk's patches into Textual, or (`enabled=False`, the environment's
    DARKMOON_STOCK_TEXTUAL=1, another Textual version) leave or put back Textual's own.
    Returns whether the patches are on. Calling it again is cheap and changes nothing: the
    kiosk calls it as it is made, before it draws anything."""
    if enabled and os.environ.get(STOCK) == "1":
        _tell("stock", "%s=1: the kiosk runs on stock Textual", STOCK)
        enabled = False
    if enabled and not _tested:
        _tested.append(_running_tested())
    if enabled and not _tested[0]:
        enabled = False
    if not enabled:
        for (where, name), original in _originals.items():
            setattr(where, name, original)
        return False
    for where, name, ours in _patches():
        current = getattr(where, name)
        if current is not ours:
            _originals.setdefault((where, name), current)
            setattr(where, name, ours)
    return True


def installed() -> bool:
    """Whether every patch is in Textual now."""
    if not _originals:
        return False
    return all(getattr(where, name) is ours for where, name, ours in _patches())
