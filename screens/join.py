"""The start screen (the host's code) and the join screen (one code per seat still free)."""
from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Center, Grid, Vertical

from .pane import Pane
from .qr import QrCode, size
from .words import say

MAX_SEATS = 7
JOIN_CHROME = 12  # lines the join screen needs besides the codes: title, seat list, notices


def host_url(base_url: str, token: str) -> str:
    return f"{base_url}/h/{token}"


def seat_url(base_url: str, token: str) -> str:
    return f"{base_url}/s/{token}"


class StartView(Vertical):
    def compose(self) -> ComposeResult:
        yield Pane(id="start-title")
        with Center():
            yield QrCode(id="host-qr")
        yield Pane(id="start-url")

    def show(self, kiosk: dict, lang: str, base_url: str) -> None:
        token = kiosk["host_token"]
        self.query_one("#start-title", Pane).show(Text.styled(
            say(lang, "start.scan_to_host" if token else "start.host_setting_up"),
            "bold"))
        qr = self.query_one("#host-qr", QrCode)
        qr.display = token is not None
        if token:
            qr.show(host_url(base_url, token))
        self.query_one("#start-url", Pane).show(
            Text(host_url(base_url, token) if token else ""))


class SeatCode(Vertical):
    """A seat's name above its code."""

    def compose(self) -> ComposeResult:
        yield Pane(classes="code-label")
        yield QrCode()

    def show(self, label: Text, url: str) -> None:
        self.query_one(Pane).show(label)
        self.query_one(QrCode).show(url)


class JoinView(Vertical):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.page = 0

    def compose(self) -> ComposeResult:
        yield Pane(id="join-title")
        with Grid(id="codes"):
            for _ in range(MAX_SEATS):
                yield SeatCode(classes="seat-code")
        yield Pane(id="join-seats")
        yield Pane(id="join-notices")

    def capacity(self, url: str) -> tuple[int, int]:
        """(columns, rows) of codes that fit the screen: 3x1 at 120x36, 6x2 at 240x67."""
        width, height = size(url)
        screen = self.app.size
        return (max(screen.width // (width + 2), 1),
                max((screen.height - JOIN_CHROME) // (height + 1), 1))

    def _size_grid(self, url: str, columns: int, rows: int) -> None:
        """Grids do not size to auto-sized children: give the cells the code's size."""
        width, height = size(url)
        grid = self.query_one("#codes", Grid)
        wanted = (columns, columns * (width + 2) - 2, rows * (height + 1))
        if getattr(grid, "_sized", None) == wanted:
            return
        grid._sized = wanted
        grid.styles.grid_size_columns = columns
        grid.styles.width, grid.styles.height = wanted[1], wanted[2]
        for card in self.query(SeatCode):
            card.styles.width, card.styles.height = width, height + 1

    def show(self, kiosk: dict, lang: str, base_url: str) -> None:
        seats = kiosk["seats"]
        tokens = kiosk["seat_tokens"]
        free = [s for s in seats if tokens[s["seat"]]]
        free.sort(key=lambda s: s["bot"])  # people first; a bot's seat can still be taken
        cards = list(self.query(SeatCode))
        shown: list = []
        if free:
            columns, rows = self.capacity(seat_url(base_url, tokens[free[0]["seat"]]))
            per_page = columns * rows
            pages = (len(free) + per_page - 1) // per_page
            self.page %= pages
            shown = free[self.page * per_page:(self.page + 1) * per_page]
            self._size_grid(seat_url(base_url, tokens[free[0]["seat"]]),
                            min(columns, len(shown)), (len(shown) + columns - 1) // columns)
        for card, seat in zip(cards, shown + [None] * (len(cards) - len(shown))):
            card.display = seat is not None
            if seat is not None:
                label = Text.styled(f"{say(lang, 'join.seat', n=seat['seat'] + 1)} {seat['name']}",
                             "bold")
                if seat["bot"]:
                    label.append(f" ({say(lang, 'join.bot')})", "bright_black")
                card.show(label, seat_url(base_url, tokens[seat["seat"]]))
        title = say(lang, "join.title" if kiosk["phase"] == "join" else "join.title_play")
        if len(free) > len(shown):
            title += "  " + say(lang, "join.more", shown=len(shown), free=len(free))
        self.query_one("#join-title", Pane).show(Text.styled(title, "bold"))
        self.query_one("#join-seats", Pane).show(seat_list(seats, lang))
        self.query_one("#join-notices", Pane).show(notices(kiosk, lang))


def seat_list(seats: list, lang: str) -> Text:
    t = Text()
    for s in seats:
        t.append(f"{s['seat'] + 1} {s['name']:<12.12} ", "bold")
        if s["claimed"]:
            t.append(f"✓ {say(lang, 'join.joined')}", "green")
        elif s["bot"]:
            t.append(say(lang, "join.bot"), "bright_black")
        else:
            t.append(say(lang, "join.waiting"), "yellow")
        t.append("   " if s["seat"] % 3 != 2 else "\n")
    return t


def notices(kiosk: dict, lang: str) -> Text:
    names = {s["seat"]: s["name"] for s in kiosk["seats"]}
    t = Text()
    for n in kiosk["notices"][-3:]:
        seat = n.get("seat")
        t.append(say(lang, f"notice.{n['k']}",
                     seat=(seat + 1) if seat is not None else "",
                     name=names.get(seat, "")) + "\n", "bold yellow")
    return t
