"""The board during play: the banner of what the game waits for, the big figures, tracks,
seats, the live panel (malfunction or vote), what to mirror on the physical board, and the
log, laid out for the screen's size. Every pane is drawn from the public view; a seat's
dice are never in it until the game is over."""
from __future__ import annotations

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical

from .banner import banner, play_notice
from .fair import fair_play
from .gauges import Gauges
from .pane import Pane, pad_rows, paragraphs, reflow, rows, rows_in, spread
from .panels import VOTE_DECISIONS, live_panel
from .seats import big_seats, free_seats, seats
from .tracks import GAPS, board_tracks
from .words import say, sentences

WIDE = 160  # columns from which the board draws the big figures and wider panes
NARROW = {"tracks": 34, "seats": 34, "live": 40, "mirror": 40, "log": 34,
          "banner": 118}  # columns before layout
LOG_LEAST = 5  # the rows the log keeps on a big screen, its border included


class BoardView(Vertical):
    """At 120x36 three columns: the board; the players over the log; what is being played
    over what to move on the board. Those two grow to fit what they say, the log takes what
    is left. From WIDE columns on the big figures join and every pane widens; the players
    have the middle column to themselves, their names in big letters, and the log goes
    under what is being played and what to move, taking the rows they leave; the board's
    sections, the moves and a short log are spaced out over the rows there are."""

    def compose(self) -> ComposeResult:
        wide = self.app.size.width >= WIDE
        yield Pane(id="banner")
        yield Gauges(id="gauges")
        with Horizontal(id="board-body"):
            yield Pane(id="tracks")
            with Vertical(id="board-middle"):
                yield Pane(id="seats")
                if not wide:
                    yield Pane(id="log")
            with Vertical(id="board-right"):
                yield Pane(id="live")
                yield Pane(id="mirror")
                if wide:
                    yield Pane(id="log")

    _shown: tuple[dict, str] | None = None

    async def on_resize(self, event: events.Resize) -> None:
        wide = event.size.width >= WIDE
        self.set_class(wide, "wide")
        column = self.query_one("#board-right" if wide else "#board-middle")
        log = self.query_one("#log", Pane)
        if log.parent is not column:  # the screen changed size: the log changes column
            await log.remove()
            await column.mount(Pane(id="log"))
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

    def height(self, pane: str) -> int:
        """The rows of a pane's text, once laid out (0 before)."""
        return self.query_one(f"#{pane}", Pane).inner.height

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
        """The rows of the right column for the live panel and the moves once the banner
        being shown has its height (0 before the first layout): the banner and the columns
        share the screen's height, and on a big screen the log keeps a few rows under them."""
        right = self.query_one("#board-right").size.height
        if not right:
            return 0
        return right + self.query_one("#banner").size.height - self._banner_rows \
            - (LOG_LEAST if self.has_class("wide") else 0)

    def top_banner(self, view: dict, lang: str, said: dict, kiosk: dict, moves: Text) -> Text:
        """The banner in big letters, unless the moves to make would not all fit beside it
        (a completed event at 120x36 can ask for a dozen): then in one line, for that while,
        so that every move is on the screen."""
        notice = play_notice(kiosk, lang)
        big = banner(view, lang, said, self.width("banner"),
                     (3, 2) if self.has_class("wide") else (1,))
        right = self.query_one("#board-right").size.height
        if right:
            room = right + self.query_one("#banner").size.height - rows(big + notice) \
                - (LOG_LEAST if self.has_class("wide") else 0)
            if self.taken(moves, "mirror") > room:
                big = banner(view, lang, said, self.width("banner"), ())
        drawn = big + notice
        self._banner_rows = rows(drawn)
        return drawn

    def moves(self, said: dict, lang: str, live: Text) -> Text:
        """What to move on the board, one move a paragraph; on a big screen up to three
        blank rows between two where they all fit so, beside the live panel and the log's
        few rows."""
        items, width = [f"• {m}" for m in said.get("mirror", [])], self.width("mirror")
        nothing = say(lang, "board.nothing_to_mirror")
        room = self.right_rows() if self.has_class("wide") and len(items) > 1 else 0
        for gap in (3, 2, 1):
            spaced = paragraphs(items, width, nothing, gap=gap)
            if room and self.taken(live, "live") + self.taken(spaced, "mirror") <= room:
                return spaced
        return paragraphs(items, width, nothing)

    def show(self, kiosk: dict, lang: str) -> None:
        self._shown = (kiosk, lang)
        view = kiosk["game"]
        said = sentences(view, lang)
        q, w = self.query_one, self.width
        wide = self.has_class("wide")
        title, body = live_panel(view, lang, w("live"))
        # The live panel moves between malfunctions, votes and their results: it keeps the
        # most rows it has needed this game, growing and never shrinking, so each move
        # repaints rows in place (a layout pass of the board costs 30-70 ms on a Pi).
        game = (kiosk["fair"]["game"], lang, w("live"))
        most = max(self._live_rows[1] if self._live_rows[0] == game else 0, rows(body))
        self._live_rows = (game, most)
        body = pad_rows(body, most)
        moves = self.moves(said, lang, body)
        q("#banner", Pane).show(self.top_banner(view, lang, said, kiosk, moves))
        if wide:
            q(Gauges).show(view, lang)
        q("#tracks", Pane).show(self.board(view, lang), say(lang, "board.tracks_title"))
        rest = free_seats(kiosk, lang) + reflow(fair_play(kiosk, lang), w("seats"))
        if wide and self.height("seats"):
            players = big_seats(view, lang, w("seats"), self.height("seats") - rows(rest) + 1)
        else:
            players = seats(view, lang, w("seats"))
        players += rest
        q("#seats", Pane).show(players, say(lang, "board.seats_title"))
        live = q("#live", Pane)
        live.show(body, title)
        live.display = not self.crowded(view, body, moves)
        q("#mirror", Pane).show(moves, say(lang, "board.mirror_title"))
        # What stands above the log in its column: the players at 120x36; on a big screen
        # the live panel and the moves.
        above = self.taken(moves, "mirror") + (self.taken(body, "live") if live.display else 0) \
            if wide else rows(players) + q("#seats").styles.gutter.height
        # The log, newest first, moves every row at every command: drawn in the frame after
        # the one that shows the press (what the table waits to see), not delaying it.
        self._log_due = (said.get("log", []), above, lang)
        if not self._log_pending:
            self._log_pending = True
            self.call_after_refresh(self._show_log)

    def board(self, view: dict, lang: str) -> Text:
        """The Board pane's text; on a big screen its sections spread over the pane's rows
        (up to three blank rows between two) as far as they fit."""
        width, height = self.width("tracks"), self.height("tracks")
        compact = board_tracks(view, lang, width)
        if not (self.has_class("wide") and height):
            return compact
        sections = rows(board_tracks(view, lang, width, (1,) * GAPS)) - rows(compact)
        gaps = spread(height - rows(compact), sections, 3)
        return board_tracks(view, lang, width, gaps) if gaps else compact

    _live_rows: tuple = (None, 0)  # (game, language, width): the live panel's most rows
    _log_pending = False
    _log_due: tuple = ([], 0, "en")

    def _show_log(self) -> None:
        self._log_pending = False
        if not self.query("#log"):
            return  # changing column: drawn once there (its new pane's resize shows all again)
        log, above, lang = self._log_due
        room = self.log_rows(above)
        log = list(reversed(log))
        gap = 0
        if self.has_class("wide") and room is not None:  # a short log spaced out
            laid = rows(paragraphs(log, self.width("log"), "—", room))
            gap = next((gap for gap in (2, 1) if laid + gap * (len(log) - 1) <= room), 0)
        self.query_one("#log", Pane).show(
            paragraphs(log, self.width("log"), "—", room, gap), say(lang, "board.log_title"))

    def log_rows(self, above: int) -> int | None:
        """The most rows the log can show under the `above` rows of its column (the newest
        sentences first): laying out and repainting the whole game's log, most of it below
        the screen's edge, was most of a press's repaint."""
        log = self.query_one("#log", Pane)
        column = log.parent.content_size.height
        if not column:
            return None  # not laid out yet: all of it
        return max(column - above - log.styles.gutter.height, 1)
