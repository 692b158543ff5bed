"""A small snapshot helper: the screen as text plus a grid of colour-pair letters, compared
with a file in tests/screens/snapshots/. SNAPSHOT_UPDATE=1 writes the files instead.
(pytest-textual-snapshot pins a syrupy that needs pytest<9.)"""
from __future__ import annotations

import os
from pathlib import Path

from screens.capture import screen_cells

HERE = Path(__file__).parent / "snapshots"
LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"


def render(app) -> str:
    """Text, then a legend of (foreground, background) pairs, then one letter per cell."""
    cells = screen_cells(app)
    pairs: dict[tuple[str, str], str] = {}
    grid = []
    for row in cells:
        grid.append("".join(pairs.setdefault((fg, bg), LETTERS[len(pairs)])
                            for _, fg, bg in row))
    legend = [f"{letter} {fg} on {bg}" for (fg, bg), letter in pairs.items()]
    text = ["".join(c for c, _, _ in row).rstrip() for row in cells]
    return "\n".join(["# text"] + text + ["# colours"] + legend + ["# grid"] + grid) + "\n"


def colours_used(app) -> set[str]:
    return {c for row in screen_cells(app) for _, fg, bg in row for c in (fg, bg)}


def check(app, name: str) -> None:
    path = HERE / f"{name}.txt"
    drawn = render(app)
    if os.environ.get("SNAPSHOT_UPDATE") == "1" or not path.exists():
        path.parent.mkdir(exist_ok=True)
        path.write_text(drawn, encoding="utf-8")
        if os.environ.get("SNAPSHOT_UPDATE") != "1":
            raise AssertionError(f"{path.name} did not exist; written, check it and commit it")
        return
    expected = path.read_text(encoding="utf-8")
    if drawn != expected:
        (HERE / f"{name}.actual.txt").write_text(drawn, encoding="utf-8")
        raise AssertionError(f"the kiosk no longer draws {path.name}; see {name}.actual.txt "
                             "(SNAPSHOT_UPDATE=1 accepts the new drawing)")
