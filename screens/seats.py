"""The Players pane: each seat's name and character, what the table must know of it, and
whose answer the game waits for (never what a seat chose, nor its dice)."""
from __future__ import annotations

from functools import lru_cache

from rich.cells import cell_len
from rich.text import Text

from .bigtext import can_draw, draw, fits
from .pane import flow, flow_reserved, rows, spread
from .words import labelled, name_of, say


def seats(view: dict, lang: str, width: int = 34, scale: int = 0,
          gaps: tuple[int, ...] = ()) -> Text:
    """Two lines a seat: the name and character, then what the table must know of it. The
    ▶ marks the player whose turn it is (before the first turn, the one who plays first).
    On a big screen (`scale` 1 or 2) each seat's number and name stand in big letters over
    its character and marks, `gaps` blank rows between seats."""
    t = Text()
    waiting = view["waiting"] or {"seats": [], "decision": None}
    for s in view["seats"]:
        i = s["seat"]
        mark = None
        if i in waiting["seats"]:
            mark = i in waiting.get("chosen", ())
        if i:
            t.append("\n" * (1 + (gaps[i - 1] if i <= len(gaps) else 0)))
        t.append_text(_seat(tuple(s.items()), mark, lang, width, scale))
    return t


@lru_cache(maxsize=256)  # a press changes one seat's mark: the other seats are as they were
def _seat(items: tuple, chosen: bool | None, lang: str, width: int, scale: int = 0) -> Text:
    s = dict(items)
    t = Text()
    if scale:
        _big_name(t, s, width, scale)
        t.append(f"\n    {name_of(lang, 'character', s['character'])}")
    else:
        t.append("▶ " if s["active"] else "  ", "bold yellow")
        t.append(f"{labelled(s['seat'], s['name']):<12.12}",
                 "bold reverse" if s["active"] else "bold")
        t.append(f" {name_of(lang, 'character', s['character'])}")
    marks = []
    if s["commander"]:
        marks.append((say(lang, "board.commander_mark"), "bold blue"))
    limit = say(lang, "board.die_limit", limit=s["die_limit"])
    marks.append((limit + (f" ({s['die_tokens']:+d})" if s["die_tokens"] else ""), ""))
    if s["quarantined"]:
        marks.append((say(lang, "board.quarantined"), "bold red"))
    if s["fatigued"]:
        marks.append((say(lang, "board.fatigued_mark"), "yellow"))
    if s.get("amputated"):  # Shadow Corporation
        marks.append((say(lang, "board.amputated"), "bold red"))
    if s["revealed"] and s.get("status"):
        marks.append((name_of(lang, "status", s["status"]), "bold magenta"))
    if scale:  # beside the character, on the line under the big name
        flow(t, marks, width, sep="  ", indent=4, lead="  ")
    else:
        flow(t, marks, width, sep=" ", indent=4, lead="\n    ")
    # Whose answer the game waits for changes at every press: the row is kept for it
    # on every seat, so the pane never changes height with it (no layout per press).
    widest = max(cell_len(say(lang, "board.chosen")), cell_len(say(lang, "board.deciding")))
    waiting_mark = [] if chosen is None else [
        (say(lang, "board.chosen" if chosen else "board.deciding"),
         "green" if chosen else "bold yellow")]
    flow_reserved(t, waiting_mark, width, widest, sep="  " if scale else " ", indent=4)
    return t


def _big_name(t: Text, s: dict, width: int, scale: int) -> None:
    """The seat's number and name in big letters, the ▶ beside them on the player whose turn
    it is; a name the big font cannot draw, or too wide, in ordinary letters on the middle
    row, so that every seat takes as many rows."""
    label = labelled(s["seat"], s["name"]).upper()
    style = "bold yellow" if s["active"] else "bold"
    tall = 3 * scale
    drawn = draw(label, scale) if fits(label, width - 2, scale) else \
        tuple(labelled(s["seat"], s["name"]) if row == tall // 2 else ""
              for row in range(tall))
    for row, line in enumerate(drawn):
        if row:
            t.append("\n")
        t.append("▶ " if s["active"] and row == tall // 2 else "  ", "bold yellow")
        t.append(line, style)


def big_seats(view: dict, lang: str, width: int, height: int) -> Text:
    """The Players pane on a big screen: the names as big as lets every seat fit in
    `height` rows (6 rows a name, else 3), the seats spread over those rows (up to four
    blank rows between two); where even 3 rows a name do not fit, two lines a seat."""
    labels = [labelled(s["seat"], s["name"]).upper() for s in view["seats"]]
    for scale in (2, 1, 0):
        if scale and not all(fits(label, width - 2, scale) for label in labels
                             if can_draw(label)):
            continue  # a name too wide for letters this big: smaller ones
        drawn = seats(view, lang, width, scale)
        if rows(drawn) <= height or not scale:
            break
    gaps = spread(height - rows(drawn), len(view["seats"]) - 1, 4)
    return seats(view, lang, width, scale, gaps) if gaps else drawn


def free_seats(kiosk: dict, lang: str) -> Text:
    """A seat whose phone was lost and re-bound has a code again: say where to find it."""
    bots = {s["seat"] for s in kiosk["seats"] if s.get("bot")}  # no phone by design
    free = [str(i + 1) for i, token in enumerate(kiosk["seat_tokens"])
            if token and i not in bots]
    return Text.styled("\n" + say(lang, "board.free_seats", seats=", ".join(free)), "yellow") \
        if free else Text("")
