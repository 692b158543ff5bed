"""The board during play: tracks, seats, the banner of what the game waits for, the live
panel (malfunction or vote), what to mirror on the physical board, and the log. Every pane
is drawn from the public view; a seat's dice are never in it until the game is over."""
from __future__ import annotations

from functools import lru_cache

from rich.cells import cell_len
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical

from .bigtext import draw, fits
from .fair import fair_play
from .gauges import SUSPICION_VOTE, TRACK_LENGTH, Gauges
from .pane import (Pane, flow, flow_reserved, heading, listed, pad_rows, paragraphs,
                   reflow, rows, rows_in)
from .panels import VOTE_DECISIONS, live_panel
from .words import counted, dice, has_word, labelled, name_of, say, seat_label, sentences

FAILURE_KEYS = {"-1": "minus_1", "any+": "any_plus", "-2": "minus_2", "any-": "any_minus",
                "breached": "breached"}
WIDE = 160  # columns from which the board draws the big figures and wider panes
NARROW = {"tracks": 34, "seats": 34, "live": 40, "mirror": 40, "log": 34,
          "banner": 118}  # columns before layout


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


def tracks(view: dict, lang: str, width: int = NARROW["tracks"]) -> Text:
    t = Text()
    shield = view["shield"]
    _track(t, say(lang, "board.shield"), shield["tokens"], "bold red", first=True)
    condition = shield["failure_condition"]
    flow(t, [(w, "yellow" if condition else "") for w in (
        say(lang, "board.no_shield_test") if condition is None else
        say(lang, "board.fails_on",
            condition=say(lang, f"failure.{FAILURE_KEYS[condition]}"))).split(" ")],
         width, sep=" ", lead="\n")

    outpost = view["outpost"]
    _track(t, say(lang, "board.outpost"), len(outpost["tokens"]), "bold yellow")
    flow(t, listed([name_of(lang, "token", k) for k in outpost["tokens"]] or ["—"]), width,
         sep=" ", lead="\n")
    if outpost["blocked_actions"]:
        _row(t, say(lang, "board.blocked"), listed(
            [name_of(lang, "action", a) for a in outpost["blocked_actions"]], "red"), width)

    fatigue = view["fatigue"]
    _track(t, say(lang, "board.fatigue"), len(fatigue["tokens"]), "bold cyan")
    flow(t, listed([name_of(lang, "character", c) for c in fatigue["tokens"]] or ["—"]),
         width, sep=" ", lead="\n")
    if fatigue["fatigued_seats"]:
        _row(t, say(lang, "board.fatigued"), listed(
            [seat_label(view, s) for s in fatigue["fatigued_seats"]], "yellow"), width)

    _row(t, say(lang, "board.sabotage"),
         [(name_of(lang, "area", view["sabotage"]), "bold red")] if view["sabotage"]
         else [("—", "")], width)
    t.append("\n")
    heading(t, say(lang, "board.suspicion"))
    t.append(" ")
    for space in range(1, SUSPICION_VOTE + 1):
        label = say(lang, "board.vote_space") if space == SUSPICION_VOTE else str(space)
        t.append(f" {label} ", "reverse bold" if space == view["suspicion"] else "")
    if "evacuation" in view:
        _evacuation(t, view, lang, width)
    if "threats" in view:  # the Threats module: who took which token (the cards are secret)
        tokens = [(seat_label(view, int(seat)) + ": " + (
            say(lang, "board.threat_wild", threat=name_of(lang, "threat", threat)) if wild
            else name_of(lang, "threat", threat)), "bold") for seat, (threat, wild)
            in sorted(view["threats"]["tokens"].items())]
        _row(t, say(lang, "board.threats"), tokens or [("—", "")], width)
    _row(t, say(lang, "board.commander"),
         [(seat_label(view, view["commander"]), "bold blue")], width)
    _events(t, view, lang, width)
    pool = view["pool"]
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


def board_tracks(view: dict, lang: str, width: int) -> Text:
    part = {key: view[key] for key in TRACK_FIELDS if key in view}
    part["seats"] = [{"name": s["name"]} for s in view["seats"]]  # for seat labels only
    key = (repr(part), lang, width)
    if key not in _TRACKS:
        if len(_TRACKS) >= 64:
            _TRACKS.clear()
        _TRACKS[key] = tracks(part, lang, width)
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


def _events(t: Text, view: dict, lang: str, width: int) -> None:
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
    t.append("\n")
    heading(t, say(lang, "board.final_event"))
    t.append(" ")
    _dots(t, final["cubes"], final["needed"], "bold magenta")
    flow(t, _words(name_of(lang, "card", final["card"])) +
         ([(f"({say(lang, 'board.final_active')})", "bold magenta")] if final["active"]
          else []), width, sep=" ", lead="\n")


def seats(view: dict, lang: str, width: int = NARROW["seats"]) -> Text:
    """Two lines a seat: the name and character, then what the table must know of it. The
    ▶ marks the player whose turn it is (before the first turn, the one who plays first)."""
    t = Text()
    waiting = view["waiting"] or {"seats": [], "decision": None}
    for s in view["seats"]:
        i = s["seat"]
        mark = None
        if i in waiting["seats"]:
            mark = i in waiting.get("chosen", ())
        if i:
            t.append("\n")
        t.append_text(_seat(tuple(s.items()), mark, lang, width))
    return t


@lru_cache(maxsize=256)  # a press changes one seat's mark: the other seats are as they were
def _seat(items: tuple, chosen: bool | None, lang: str, width: int) -> Text:
    s = dict(items)
    t = Text()
    t.append("▶ " if s["active"] else "  ", "bold yellow")
    t.append(f"{labelled(s['seat'], s['name']):<12.12}", "bold reverse" if s["active"] else "bold")
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
    flow(t, marks, width, sep=" ", indent=4, lead="\n    ")
    # Whose answer the game waits for changes at every press: the row is kept for it
    # on every seat, so the pane never changes height with it (no layout per press).
    widest = max(cell_len(say(lang, "board.chosen")), cell_len(say(lang, "board.deciding")))
    waiting_mark = [] if chosen is None else [
        (say(lang, "board.chosen" if chosen else "board.deciding"),
         "green" if chosen else "bold yellow")]
    flow_reserved(t, waiting_mark, width, widest, indent=4)
    return t


def free_seats(kiosk: dict, lang: str) -> Text:
    """A seat whose phone was lost and re-bound has a code again: say where to find it."""
    bots = {s["seat"] for s in kiosk["seats"] if s.get("bot")}  # no phone by design
    free = [str(i + 1) for i, token in enumerate(kiosk["seat_tokens"])
            if token and i not in bots]
    return Text.styled("\n" + say(lang, "board.free_seats", seats=", ".join(free)), "yellow") \
        if free else Text("")


# Room notices that matter during play: a seat's phone put out by a re-bind, a bot's seat
# handed to a person, or the host replaced at the Pi. Each is said on the board's banner, so
# it never happens unseen.
PLAY_NOTICES = {"seat_rebound": "notice.seat_rebound_play",
                "seat_handed_over": "notice.seat_handed_over_play",
                "host_replaced": "notice.host_replaced"}


def play_notice(kiosk: dict, lang: str) -> Text:
    notice = kiosk["notices"][-1] if kiosk["notices"] else None
    if notice is None or notice["k"] not in PLAY_NOTICES:
        return Text("")
    seat = notice.get("seat")
    names = {s["seat"]: s["name"] for s in kiosk["seats"]}
    return Text.styled("\n\n" + say(lang, PLAY_NOTICES[notice["k"]], name=names.get(seat, ""),
                                     seat=seat + 1 if seat is not None else ""), "bold yellow")


def banner(view: dict, lang: str, sentences: dict, columns: int = 118,
           scales: tuple[int, ...] = (1,)) -> Text:
    """What the game waits for, and from whom: a short form in big letters ("ANA: IN OR
    OUT?", "VOTE: 3 OF 5"), read from across the table, over the full sentence in small
    print. The letters are drawn at the biggest of `scales` that fits (1: 3 rows, 2: 6,
    3: 9; none: the sentence alone). Where no short form fits (a long name, a letter the
    big font lacks) the sentence stands alone in the letters' rows: the banner keeps its
    height, and the board below it its layout."""
    said = sentences.get("banner")
    waiting = view["waiting"]
    if not said and waiting is not None:
        said = say(lang, "board.waiting_for",
                   seats=", ".join(seat_label(view, s) for s in waiting["seats"]),
                   decision=name_of(lang, "decision", waiting["decision"]))
    said = said or ""
    if not scales:  # no room for big letters: the sentence alone
        return Text.styled(said, "bold")
    tall = 3 * max(scales)
    big, scale = next(((words, scale) for words in short_forms(view, lang)
                       for scale in sorted(scales, reverse=True)
                       if fits(words, columns, scale)), (None, 0))
    if big is None:
        above = (tall - 1) // 2
        return Text("\n" * above) + Text.styled(said, "bold") + Text("\n" * (tall - above))
    drawn = draw(big, scale)
    above = (tall - len(drawn)) // 2
    t = Text("\n" * above + "\n".join(drawn) + "\n" * (tall - len(drawn) - above))
    t.append("\n" + said)
    return t


def short_forms(view: dict, lang: str) -> list[str]:
    """What the banner may say in big letters, the first that fits drawn: capitals, the
    seat's name and a few words (kiosk.big.*)."""
    waiting = view["waiting"]
    if waiting is None or view.get("outcome"):
        return []
    kind = waiting["decision"]
    names = [view["seats"][s]["name"] for s in waiting["seats"]
             if 0 <= s < len(view["seats"])]
    if kind in ("vote", "lincoln") and "voters" in waiting:
        counts = {"chosen": len(waiting.get("chosen") or []),
                  "voters": len(waiting.get("voters") or [])}
        target = waiting.get("target")
        forms = []
        if target is not None and 0 <= target < len(view["seats"]):
            forms.append(say(lang, "big.vote_on", target=view["seats"][target]["name"],
                             **counts))
        forms.append(say(lang, "big.vote", **counts))
        return [f.upper() for f in forms]
    what = say(lang, f"big.what.{kind}") if has_word(lang, f"big.what.{kind}") \
        else name_of(lang, "decision", kind)
    forms = []
    if names and len(names) <= 2:
        forms.append(say(lang, "big.who_what", who=", ".join(names), what=what))
    if len(names) > 1:  # "3 PLAYERS: DISCARD DICE"
        forms.append(say(lang, "big.who_what", who=counted(lang, "big.players", len(names)),
                         what=what))
    return [f.upper() for f in forms]


class BoardView(Vertical):
    """At 120x36 three columns: the board; the players over the log; what is being played
    over what to move on the board. Those two grow to fit what they say, the log takes what
    is left. From WIDE columns on, the big figures join and every pane widens."""

    def compose(self) -> ComposeResult:
        yield Pane(id="banner")
        yield Gauges(id="gauges")
        with Horizontal(id="board-body"):
            yield Pane(id="tracks")
            with Vertical(id="board-middle"):
                yield Pane(id="seats")
                yield Pane(id="log")
            with Vertical(id="board-right"):
                yield Pane(id="live")
                yield Pane(id="mirror")

    _shown: tuple[dict, str] | None = None

    def on_resize(self, event: events.Resize) -> None:
        self.set_class(event.size.width >= WIDE, "wide")
        self._show_again()

    def on_pane_resized(self, _message: Pane.Resized) -> None:
        self._show_again()

    _again = False

    def _show_again(self) -> None:
        """Lines are laid out for the panes' widths: once they change, again (once for all
        the panes a resize changed)."""
        if self._shown is not None and not self._again:
            self._again = True
            self.call_after_refresh(self._shown_again)

    def _shown_again(self) -> None:
        self._again = False
        self.show(*self._shown)

    def width(self, pane: str) -> int:
        """The columns of a pane's text, once laid out; before that, the Pi screen's."""
        return self.query_one(f"#{pane}", Pane).inner.width or NARROW[pane]

    def crowded(self, view: dict, live: Text, moves: Text) -> bool:
        """True when the moves to make need the live panel's rows too, and it holds no
        malfunction being played nor a vote (only one already over, or a complication: the
        log says them as well): an event completed can ask for a dozen moves, and each must
        be on the screen."""
        task = view["task"]
        if (task is not None and task["kind"] == "malfunction" and task["success"] is None) \
                or (view["waiting"] or {}).get("decision") in VOTE_DECISIONS:
            return False
        room = self.right_rows()
        return bool(room) and self.taken(live, "live") + self.taken(moves, "mirror") > room

    def taken(self, text: Text, pane: str) -> int:
        """The rows `text` takes in `pane`, its border included."""
        return rows_in(text, self.width(pane), self.app.console) + 2

    _banner_rows = 0  # the rows of the banner being shown

    def right_rows(self) -> int:
        """The rows of the right column once the banner being shown has its height (0 before
        the first layout): the banner and the columns share the screen's height."""
        right = self.query_one("#board-right").size.height
        if not right:
            return 0
        return right + self.query_one("#banner").size.height - self._banner_rows

    def top_banner(self, view: dict, lang: str, said: dict, kiosk: dict, moves: Text) -> Text:
        """The banner in big letters, unless the moves to make would not all fit beside it
        (a completed event at 120x36 can ask for a dozen): then in one line, for that while,
        so that every move is on the screen."""
        notice = play_notice(kiosk, lang)
        big = banner(view, lang, said, self.width("banner"),
                     (3, 2) if self.has_class("wide") else (1,))
        right = self.query_one("#board-right").size.height
        if right:
            room = right + self.query_one("#banner").size.height - rows(big + notice)
            if self.taken(moves, "mirror") > room:
                big = banner(view, lang, said, self.width("banner"), ())
        drawn = big + notice
        self._banner_rows = rows(drawn)
        return drawn

    def show(self, kiosk: dict, lang: str) -> None:
        self._shown = (kiosk, lang)
        view = kiosk["game"]
        said = sentences(view, lang)
        q, w = self.query_one, self.width
        moves = paragraphs([f"• {m}" for m in said.get("mirror", [])], w("mirror"),
                           say(lang, "board.nothing_to_mirror"))
        q("#banner", Pane).show(self.top_banner(view, lang, said, kiosk, moves))
        if self.has_class("wide"):
            q(Gauges).show(view, lang)
        q("#tracks", Pane).show(board_tracks(view, lang, w("tracks")),
                                say(lang, "board.tracks_title"))
        players = seats(view, lang, w("seats")) + free_seats(kiosk, lang) \
            + reflow(fair_play(kiosk, lang), w("seats"))
        q("#seats", Pane).show(players, say(lang, "board.seats_title"))
        title, body = live_panel(view, lang, w("live"))
        # The live panel moves between malfunctions, votes and their results: it keeps the
        # most rows it has needed this game, growing and never shrinking, so each move
        # repaints rows in place (a layout pass of the board costs 30-70 ms on a Pi).
        game = (kiosk["fair"]["game"], lang, w("live"))
        most = max(self._live_rows[1] if self._live_rows[0] == game else 0, rows(body))
        self._live_rows = (game, most)
        body = pad_rows(body, most)
        live = q("#live", Pane)
        live.show(body, title)
        live.display = not self.crowded(view, body, moves)
        q("#mirror", Pane).show(moves, say(lang, "board.mirror_title"))
        # The log, newest first, moves every row at every command: drawn in the frame after
        # the one that shows the press (what the table waits to see), not delaying it.
        self._log_due = (said.get("log", []), players, lang)
        if not self._log_pending:
            self._log_pending = True
            self.call_after_refresh(self._show_log)

    _live_rows: tuple = (None, 0)  # (game, language, width): the live panel's most rows
    _log_pending = False
    _log_due: tuple = ([], Text(), "en")

    def _show_log(self) -> None:
        self._log_pending = False
        log, players, lang = self._log_due
        self.query_one("#log", Pane).show(
            paragraphs(list(reversed(log)), self.width("log"), "—", self.log_rows(players)),
            say(lang, "board.log_title"))

    def log_rows(self, players: Text) -> int | None:
        """The most rows the log can show under the players' pane once `players` is drawn
        there (the newest sentences first): laying out and repainting the whole game's log,
        most of it below the screen's edge, was most of a press's repaint."""
        column = self.query_one("#board-middle").content_size.height
        if not column:
            return None  # not laid out yet: all of it
        above = players.plain.count("\n") + 1 + self.query_one("#seats").styles.gutter.height
        return max(column - above - self.query_one("#log").styles.gutter.height, 1)
