"""The big figures of a wide screen (240x67): each track's count in Textual's three-row
digits beside a track of blocks, readable from across the table. Only the public view is
drawn; on the Pi's 120x36 the row is hidden and the Board pane says the same in small."""
from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Digits

from .pane import Pane
from .words import say, signed

TRACK_LENGTH = 6  # six tokens of any kind end the game
SUSPICION_VOTE = 4
GAUGES = ("shield", "outpost", "fatigue", "suspicion", "event", "final", "task")
# Each track in its own colour of the sixteen, and its blocks: a full block is a token on
# the board, a light shade an empty space, so a colour-blind reader counts the same.
STYLE = {"shield": "red", "outpost": "yellow", "fatigue": "cyan", "suspicion": "bright_white",
         "event": "green", "final": "magenta", "task": "bright_white"}


def blocks(have: int, need: int, style: str, words: str) -> Text:
    """Three rows of cells, `have` of `need` filled; `words` beside the middle row."""
    t = Text()
    for row in range(3):
        if row:
            t.append("\n")
        for cell in range(need):
            t.append("██" if cell < have else "░░", style if cell < have else "bright_black")
            t.append(" ")
        if row == 1:
            t.append(" " + words)
    return t


def figures(view: dict, lang: str) -> dict[str, tuple[str, str, Text] | None]:
    """For each gauge: (title, the big figure, the blocks), or None when it has nothing to
    show (no event placed, no malfunction in play)."""
    of = lambda need: say(lang, "gauge.of", need=need)  # noqa: E731
    shown: dict[str, tuple[str, str, Text] | None] = {}
    for key, title, have in (("shield", "board.shield", view["shield"]["tokens"]),
                             ("outpost", "board.outpost", len(view["outpost"]["tokens"])),
                             ("fatigue", "board.fatigue", len(view["fatigue"]["tokens"]))):
        shown[key] = (say(lang, title), str(have),
                      blocks(have, TRACK_LENGTH, STYLE[key], of(TRACK_LENGTH)))
    suspicion = view["suspicion"]
    shown["suspicion"] = (say(lang, "board.suspicion"), str(suspicion),
                          blocks(suspicion, SUSPICION_VOTE, STYLE["suspicion"],
                                 say(lang, "gauge.vote_at", need=SUSPICION_VOTE)))
    event = view["event"]
    shown["event"] = (say(lang, "board.event"), str(event["cubes"]),
                      blocks(event["cubes"], event["needed"], STYLE["event"],
                             of(event["needed"]))) if event else None
    final = view["final_event"]
    shown["final"] = (say(lang, "board.final_event"), str(final["cubes"]),
                      blocks(final["cubes"], final["needed"], STYLE["final"],
                             of(final["needed"])))
    task = view["task"]
    if task is not None and task["kind"] == "malfunction":
        total, difficulty = task["success_total"], task["difficulty"]
        words = Text(say(lang, "gauge.difficulty", difficulty=difficulty),
                     "bold green" if total >= difficulty else "bold")
        shown["task"] = (say(lang, "task.title"), signed(total), Text("\n") + words)
    else:
        shown["task"] = None
    return shown


class Gauges(Horizontal):
    def compose(self) -> ComposeResult:
        for key in GAUGES:
            with Horizontal(id=f"g-{key}", classes="gauge"):
                yield Digits(id=f"g-{key}-figure", classes="figure")
                yield Pane(id=f"g-{key}-blocks", classes="blocks")

    def show(self, view: dict, lang: str) -> None:
        for key, shown in figures(view, lang).items():
            box = self.query_one(f"#g-{key}")
            box.display = shown is not None
            if shown is None:
                continue
            title, figure, drawn = shown
            box.border_title = title
            digits = self.query_one(f"#g-{key}-figure", Digits)
            if digits.value != figure:
                digits.update(figure)
            self.query_one(f"#g-{key}-blocks", Pane).show(drawn)
