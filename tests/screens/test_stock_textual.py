"""The kiosk on stock Textual: what runs when Textual is not the version screens/textual_seam.py
was written for, or with DARKMOON_STOCK_TEXTUAL=1. Slower, never broken: a whole seeded game
is played on it, and after every command the terminal (every frame sent, applied cell by cell)
shows what the patched kiosk's terminal shows at the same moment of the same game."""
from __future__ import annotations

import contextlib
import os
import random
import sys
import tomllib
from pathlib import Path

import textual
from textual import _callback
from textual._compositor import Compositor

from screens import callbacks, repaint, textual_seam
from screens.capture import Terminal, drawn_cells, record_frames
from screens.pane import Pane
from table_play import call_votes, next_move, seated_room

import children

from .conftest import SIZE, kiosk, settle

ROOT = Path(__file__).resolve().parents[2]


@contextlib.contextmanager
def stock_textual(stock: bool):
    """Kiosks made inside run on stock Textual (`stock`) or on the seam's patches; whatever
    was on before is put back after."""
    was, env = textual_seam.installed(), os.environ.pop(textual_seam.STOCK, None)
    if stock:
        os.environ[textual_seam.STOCK] = "1"
    try:
        yield
    finally:
        os.environ.pop(textual_seam.STOCK, None)
        if env is not None:
            os.environ[textual_seam.STOCK] = env
        textual_seam.install(enabled=was)


def textuals_own() -> bool:
    """Whether Textual runs as it comes, not one of the seam's patches in it."""
    return (Compositor.render_partial_update is not repaint.render_partial_update
            and _callback.count_parameters is not callbacks.count_parameters)


async def whole_game(path: Path, stock: bool) -> list[str]:
    """What the table's terminal shows after each command of a seeded game, votes and the
    game over included, as the frames sent leave it."""
    path.mkdir()
    room = await seated_room(path, seed=5, players=5)
    with stock_textual(stock):
        app = kiosk(room)
        # what the kiosk does as it starts, again: nothing changes by it
        assert textual_seam.install() is not stock
        assert textuals_own() is stock and textual_seam.installed() is not stock
        terminal = Terminal(app, *SIZE)
        shown: list[str] = []
        async with app.run_test(size=SIZE) as pilot:
            record_frames(app, on_update=terminal.write)
            app.screen.refresh()  # the whole screen once: the model starts from every cell
            await settle(app, pilot)
            rng = random.Random(5)
            for _ in range(400):
                assert terminal.cells == drawn_cells(app), "stale cells on the terminal"
                # each pane lays its rows out for the size it has on the screen
                panes = [pane for pane in app.screen.query(Pane) if pane.region]
                assert [pane.inner for pane in panes] == [pane.content_size for pane in panes]
                shown.append(terminal.text())
                if room.table.over:
                    break
                await room.submit(*next_move(room, rng, call_votes))
                await settle(app, pilot)
            assert textuals_own() is stock  # still, after a whole game
        over = room.table.over
    await room.close()
    assert over and len(shown) > 50  # a whole game, its end included
    return shown


async def test_a_whole_game_on_stock_textual_shows_what_the_patched_kiosk_shows(tmp_path):
    stock = await whole_game(tmp_path / "stock", stock=True)
    patched = await whole_game(tmp_path / "patched", stock=False)
    differ = next((i for i, (a, b) in enumerate(zip(stock, patched)) if a != b), None)
    assert differ is None, f"after command {differ}:\n{stock[differ]}\n---\n{patched[differ]}"
    assert len(stock) == len(patched)


def test_the_seam_is_written_for_the_textual_pyproject_installs():
    # A new Textual pinned: read screens/repaint.py and screens/callbacks.py against it, run
    # tests/screens, then name it in TESTED_TEXTUAL (until then the kiosk runs stock).
    pins = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    assert f"textual=={textual_seam.TESTED_TEXTUAL}" in pins
    assert textual.__version__ == textual_seam.TESTED_TEXTUAL
    with stock_textual(False):
        assert textual_seam.install() and textual_seam.installed()


# Another Textual is the same as the seam written for another: nothing of Textual's is
# replaced, the log says so once, and a second install changes nothing and says nothing.
OTHER_TEXTUAL = """
import logging, sys
logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(levelname)s %(message)s")
from screens import textual_seam
textual_seam.TESTED_TEXTUAL = "0.0.1"
from textual import _callback
from textual._compositor import Compositor
own = (_callback.count_parameters, Compositor.render_partial_update)
print(textual_seam.install(), textual_seam.install(), textual_seam.installed())
print((_callback.count_parameters, Compositor.render_partial_update) == own)
"""


def test_on_another_textual_the_kiosk_runs_stock_and_says_so_once():
    done = children.run([sys.executable, "-c", OTHER_TEXTUAL], capture_output=True,
                        text=True, timeout=60, cwd=ROOT, check=True)
    assert done.stdout.split() == ["False", "False", "False", "True"]
    warned = [line for line in done.stderr.splitlines() if line.startswith("WARNING")]
    assert warned == [f"WARNING Textual {textual.__version__} is not the tested 0.0.1: "
                      "the kiosk runs on stock Textual"]
