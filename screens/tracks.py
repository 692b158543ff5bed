"""The Board pane: the tracks, the events, the dice pool and the decks, as the table would
read them off the physical board. Drawn from the public view only."""
from __future__ import annotations

from rich.text import Text

from .gauges import SUSPICION_VOTE, TRACK_LENGTH
from .pane import flow, heading, listed
from .words import counted, dice, name_of, say, seat_label

FAILURE_KEYS = {"-1": "minus_1", "any+": "any_plus", "-2": "minus_2", "any-": "any_minus",
                "breached": "breached"}


def _row(t: Text, label: str, units: list[tuple[str, str]], width: int) -> None:
    """A labelled line, its items broken between items only."""
    t.append(f"\n{label}", "bold")
    flow(t, units, width, sep=" ", lead=" ")


def _words(name: str) -> list[tuple[str, str]]:
    """A long name broken between its words only when it must ("Protect Self-Destruct
    Codes" in Spanish is wider than the Board pane)."""
    return [(word, "") for word in name.split(" ")]


def _dots(t: Text, have: int, need: int, style: str) -> None:
    t.append("●" * have, style)
    t.append("○" * max(need - have, 0), "bright_black")
    t.append(f" {have}/{need}")


def _track(t: Text, title: str, have: int, style: str, first: bool = False) -> None:
    """A track on one line: its name, a dot per space (● a token, ○ free) and the count."""
    if not first:
        t.append("\n")
    heading(t, title)
    t.append(" ")
    _dots(t, have, TRACK_LENGTH, style)


GAPS = 10  # the most gaps between the Board pane's sections


def tracks(view: dict, lang: str, width: int = 34, gaps: tuple[int, ...] = ()) -> Text:
    """The tracks, the board's sections apart by `gaps` blank rows (a big screen's room),
    the first gap before the second section."""
    t = Text()
    spaced = iter(gaps)
    blank = lambda: "\n" * next(spaced, 0)  # noqa: E731
    shield = view["shield"]
    _track(t, say(lang, "board.shield"), shield["tokens"], "bold red", first=True)
    condition = shield["failure_condition"]
    flow(t, [(w, "yellow" if condition else "") for w in (
        say(lang, "board.no_shield_test") if condition is None else
        say(lang, "board.fails_on",
            condition=say(lang, f"failure.{FAILURE_KEYS[condition]}"))).split(" ")],
         width, sep=" ", lead="\n")

    outpost = view["outpost"]
    t.append(blank())
    _track(t, say(lang, "board.outpost"), len(outpost["tokens"]), "bold yellow")
    flow(t, listed([name_of(lang, "token", k) for k in outpost["tokens"]] or ["—"]), width,
         sep=" ", lead="\n")
    if outpost["blocked_actions"]:
        _row(t, say(lang, "board.blocked"), listed(
            [name_of(lang, "action", a) for a in outpost["blocked_actions"]], "red"), width)

    fatigue = view["fatigue"]
    t.append(blank())
    _track(t, say(lang, "board.fatigue"), len(fatigue["tokens"]), "bold cyan")
    flow(t, listed([name_of(lang, "character", c) for c in fatigue["tokens"]] or ["—"]),
         width, sep=" ", lead="\n")
    if fatigue["fatigued_seats"]:
        _row(t, say(lang, "board.fatigued"), listed(
            [seat_label(view, s) for s in fatigue["fatigued_seats"]], "yellow"), width)

    t.append(blank())
    _row(t, say(lang, "board.sabotage"),
         [(name_of(lang, "area", view["sabotage"]), "bold red")] if view["sabotage"]
         else [("—", "")], width)
    t.append(blank() + "\n")
    heading(t, say(lang, "board.suspicion"))
    t.append(" ")
    for space in range(1, SUSPICION_VOTE + 1):
        label = say(lang, "board.vote_space") if space == SUSPICION_VOTE else str(space)
        t.append(f" {label} ", "reverse bold" if space == view["suspicion"] else "")
    if "evacuation" in view:
        t.append(blank())
        _evacuation(t, view, lang, width)
    if "threats" in view:  # the Threats module: who took which token (the cards are secret)
        tokens = [(seat_label(view, int(seat)) + ": " + (
            say(lang, "board.threat_wild", threat=name_of(lang, "threat", threat)) if wild
            else name_of(lang, "threat", threat)), "bold") for seat, (threat, wild)
            in sorted(view["threats"]["tokens"].items())]
        t.append(blank())
        _row(t, say(lang, "board.threats"), tokens or [("—", "")], width)
    t.append(blank())
    _row(t, say(lang, "board.commander"),
         [(seat_label(view, view["commander"]), "bold blue")], width)
    t.append(blank())
    _events(t, view, lang, width, blank)
    pool = view["pool"]
    t.append(blank())
    _row(t, say(lang, "board.pool"), listed(
        [dice(lang, colour, pool[colour]) for colour in ("strong", "weak", "commander")]),
         width)
    lost = {colour: n for colour, n in view.get("lost", {}).items() if n}
    if lost:  # the host said a die fell under the table: the pool is short by that much
        _row(t, say(lang, "board.lost"), listed(
            [dice(lang, colour, n) for colour, n in lost.items()], "yellow"), width)
    _row(t, say(lang, "board.task_deck"), listed(
        [counted(lang, "board.cards", view["task_deck_size"]),
         counted(lang, "board.discarded", view["task_discard_size"])]), width)
    return t


# What `tracks` reads of a view. Most commands change none of it: the pane's text is kept
# for the same figures instead of being laid out again at every press.
TRACK_FIELDS = ("shield", "outpost", "fatigue", "sabotage", "suspicion", "commander", "event",
                "completed_events", "final_event", "pool", "lost", "task_deck_size",
                "task_discard_size", "evacuation", "threats")
_TRACKS: dict[tuple, Text] = {}


def board_tracks(view: dict, lang: str, width: int, gaps: tuple[int, ...] = ()) -> Text:
    part = {key: view[key] for key in TRACK_FIELDS if key in view}
    part["seats"] = [{"name": s["name"]} for s in view["seats"]]  # for seat labels only
    key = (repr(part), lang, width, gaps)
    if key not in _TRACKS:
        if len(_TRACKS) >= 64:
            _TRACKS.clear()
        _TRACKS[key] = tracks(part, lang, width, gaps)
    return _TRACKS[key]


def _evacuation(t: Text, view: dict, lang: str, width: int) -> None:
    """Shadow Corporation: the evacuation track, who is cleared for the ship, and whether it
    may take off (refuelling until the first full round is over), or that it was recalled."""
    evac = view["evacuation"]
    t.append("\n")
    heading(t, say(lang, "board.evacuation"))
    if evac["recalled"]:
        t.append(f" {say(lang, 'board.recalled')}", "bright_black")
        return
    t.append(" ")
    for space in range(1, evac["vote_at"] + 1):
        label = say(lang, "board.vote_space") if space == evac["vote_at"] else str(space)
        t.append(f" {label} ", "reverse bold" if space == evac["track"] else "")
    cleared = [seat_label(view, s) for s in evac["cleared"]]
    _row(t, say(lang, "board.cleared"), listed(cleared or ["—"], "bold green") + [
        (say(lang, "board.seats_taken", n=len(cleared), seats=evac["seats"]), "")], width)
    _row(t, say(lang, "board.ship"), [(say(lang, "board.ship_ready"), "bold green")
                                      if evac["ready"] else
                                      (say(lang, "board.ship_refuelling"), "yellow")], width)


def _events(t: Text, view: dict, lang: str, width: int, blank=lambda: "") -> None:
    event = view["event"]
    t.append("\n")
    heading(t, say(lang, "board.event"))
    if event:
        t.append(" ")
        _dots(t, event["cubes"], event["needed"], "bold green")
        flow(t, _words(name_of(lang, "card", event["card"])), width, sep=" ", lead="\n")
    else:
        t.append(" —")
    if view["completed_events"]:
        _row(t, say(lang, "board.completed"), listed(
            [name_of(lang, "card", c) for c in view["completed_events"]], "green"), width)
    final = view["final_event"]
    t.append(blank() + "\n")
    heading(t, say(lang, "board.final_event"))
    t.append(" ")
    _dots(t, final["cubes"], final["needed"], "bold magenta")
    flow(t, _words(name_of(lang, "card", final["card"])) +
         ([(f"({say(lang, 'board.final_active')})", "bold magenta")] if final["active"]
          else []), width, sep=" ", lead="\n")
