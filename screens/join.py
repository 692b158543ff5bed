"""The start screen (the host's code) and the join screen (one code per seat still free, or
one code for the whole table where the seats' own codes do not all fit: companion/core/joining.py).
A bot's seat has no code: the host hands it to a person on the host's page.

Both follow the network (KioskApp's address watcher sets `app.offline` and `app.hotspot`):
with no network yet they say so instead of drawing codes no phone could use, and when the Pi
is its own Wi-Fi network they draw that network's code, its name and password, first.
"""
from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Grid, Horizontal, Vertical
from textual.widget import MountError

from companion.appliance.hotspot import FAILED, ON, State, wifi_join_string
from companion.codes import SEAT_SYMBOLS, readable
from companion.core.joining import table_url

from .fair import fair_join
from .pane import Pane
from .qr import QrCode, size
from .words import say

MAX_SEATS = 7
# Lines the join screen needs besides the codes: title, address line, seat list (a line a
# seat, with its code's address), notices.
JOIN_CHROME = 16


def host_url(base_url: str, token: str) -> str:
    return f"{base_url}/h#{token}"


def seat_url(base_url: str, token: str) -> str:
    return f"{base_url}/s#{token}"


def typed_form(url: str) -> str:
    """A code's address as a person types it: its code in groups of four (the QR code holds
    it ungrouped, which is smaller; the page takes either)."""
    page, _, token = url.partition("#")
    return f"{page}#{readable(token)}" if token else url


def network_of(app) -> tuple[bool, State | None]:
    """(no network yet, the hotspot's state or None), as the app's address watcher left
    them; an app without a watcher is taken to be online with no hotspot."""
    spot = getattr(app, "hotspot", None)
    return bool(getattr(app, "offline", False)), (spot.state if spot is not None else None)


def hotspot_line(state: State | None, lang: str) -> Text:
    """What the table must know about the Pi's own Wi-Fi network besides its code."""
    if state is None or state.status == ON:
        return Text()
    if state.status == FAILED:
        error = state.error
        reason = say(lang, f"net.reason.{error.kind}", detail=error.detail) if error else ""
        return Text.styled(say(lang, "net.hotspot_failed", reason=reason), "bold yellow")
    return Text.styled(say(lang, "net.hotspot_starting"), "yellow")


def offline_text(state: State | None, lang: str) -> Text:
    if state is not None and state.status not in (ON, FAILED):
        return hotspot_line(state, lang)  # the Pi's own network is on its way: just wait
    text = Text.styled(say(lang, "net.offline_help"), "yellow")
    if state is not None:
        text.append("\n")
        text.append_text(hotspot_line(state, lang))
    return text


class CodeRow(Horizontal):
    """Codes side by side, as wide as they are, centred on the screen (a Vertical centres
    its children only as one block, and the titles above them are as wide as the screen)."""

    DEFAULT_CSS = "CodeRow { width: 100%; height: auto; align-horizontal: center; }"


class WifiCode(Vertical):
    """The Pi's own network: name and password for people who type, and its code."""

    DEFAULT_CSS = "WifiCode { width: auto; height: auto; margin-right: 2; }"

    def compose(self) -> ComposeResult:
        label = Pane()
        label.styles.padding = 0  # in line with the code, as the seats' names are
        label.styles.height = 2
        yield label
        yield QrCode()

    def show(self, state: State | None, lang: str) -> int:
        """Draws the code when the hotspot is on; returns the columns it takes (0 if none)."""
        self.display = state is not None and state.status == ON and state.settings is not None
        if not self.display:
            return 0
        settings = state.settings
        label = Text.styled(say(lang, "net.wifi"), "bold")
        label.append(f" {settings.ssid}\n", "bold cyan")
        label.append(say(lang, "net.password"), "bold")
        label.append(f" {settings.password}", "bold cyan")
        self.query_one(Pane).show(label)
        data = wifi_join_string(settings.ssid, settings.password)
        self.query_one(QrCode).show(data)
        return size(data)[0] + 2


class StartView(Vertical):
    def compose(self) -> ComposeResult:
        yield Pane(id="start-title")
        with CodeRow():
            yield WifiCode(id="start-wifi")
            yield QrCode(id="host-qr")
        yield Pane(id="start-url")

    def show(self, kiosk: dict, lang: str, base_url: str) -> None:
        offline, spot = network_of(self.app)
        token = kiosk["host_token"]
        wifi = self.query_one(WifiCode)
        qr = self.query_one("#host-qr", QrCode)
        if offline:
            title, below = say(lang, "net.offline"), offline_text(spot, lang)
            wifi.display = qr.display = False
        else:
            title = say(lang, "start.scan_to_replace_host" if kiosk.get("replacing_host")
                        else "start.scan_to_host" if token else "start.host_setting_up")
            if wifi.show(spot, lang):
                title = say(lang, "net.wifi_first") + "  " + title
            qr.display = token is not None
            if token:
                qr.show(host_url(base_url, token))
            below = Text(typed_form(host_url(base_url, token)) if token else "")
            if spot is not None and spot.status != ON:
                below.append("\n")
                below.append_text(hotspot_line(spot, lang))
        self.query_one("#start-title", Pane).show(Text.styled(title, "bold"))
        self.query_one("#start-url", Pane).show(below)


class SeatCode(Vertical):
    """A seat's name above its code."""

    def compose(self) -> ComposeResult:
        yield Pane(classes="code-label")
        yield QrCode()

    def show(self, label: Text, url: str) -> None:
        self.query_one(Pane).show(label)
        self.query_one(QrCode).show(url)


class TableCode(Horizontal):
    """One code for the whole table, and beside it the seats in seat order: the phone that
    opens it lists the same seats and its player taps their own."""

    DEFAULT_CSS = """
    TableCode { width: auto; height: auto; }
    TableCode > .table-seats { width: auto; height: auto; padding: 0 0 0 3; }
    """

    def compose(self) -> ComposeResult:
        yield QrCode()
        yield Pane(classes="table-seats")

    def show(self, url: str, seats: list, lang: str) -> None:
        self.query_one(QrCode).show(url)
        self.query_one(Pane).show(seat_column(seats, lang) + typed_url(url, lang))


class JoinView(Vertical):
    """Each seat's own code when every seat's code fits the screen at once (up to 3 at
    120x36, 12 at 240x67); one table code with the seats listed beside it when they do not,
    so no seat ever waits for another page of codes."""

    DEFAULT_CSS = """
    #join-network { height: auto; width: 100%; text-align: center; }
    """

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._shown: tuple | None = None  # show's arguments, to draw again once cards exist
        self._making_cards = False

    def compose(self) -> ComposeResult:
        yield Pane(id="join-title")
        with CodeRow():
            yield WifiCode(id="join-wifi")
            # The seats' cards are made when first needed: at 120x36 a table of four or
            # more joins by the table code, and 21 widgets fewer is a start that much sooner.
            yield Grid(id="codes")
            yield TableCode(id="table-code")
        yield Pane(id="join-network")
        yield Pane(id="join-seats")
        yield Pane(id="join-notices")

    def capacity(self, url: str, beside: int = 0, above: int = 0) -> tuple[int, int]:
        """(columns, rows) of codes that fit the screen: 3x1 at 120x36, 6x2 at 240x67;
        `beside` columns and `above` lines are taken by the Wi-Fi code."""
        width, height = size(url)
        screen = self.app.size
        return (max((screen.width - beside) // (width + 2), 1),
                max((screen.height - JOIN_CHROME - above) // (height + 1), 1))

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
        self._shown = (kiosk, lang, base_url)
        offline, spot = network_of(self.app)
        seats = kiosk["seats"]
        tokens = kiosk["seat_tokens"]
        free = [s for s in seats if tokens[s["seat"]]]  # in seat order, as the buttons are
        beside = self.query_one(WifiCode).show(None if offline else spot, lang)
        # Chosen for every seat of a game being joined, not for the seats still free: the
        # screen must not switch ways while a phone is scanning.
        needing = seats if kiosk["phase"] == "join" else free
        # every seat token has as many symbols: any one gives the size of all their codes
        columns, rows = self.capacity(seat_url(base_url, "X" * SEAT_SYMBOLS), beside,
                                      1 if beside else 0)
        per_seat = not offline and len(needing) <= columns * rows
        table = not offline and bool(free) and not per_seat and bool(kiosk.get("table_token"))
        self.query_one("#codes", Grid).display = per_seat and bool(free)
        self.query_one(TableCode).display = table
        self.query_one("#join-seats", Pane).display = not table  # the table code lists them
        if per_seat:
            self._show_codes(free, tokens, lang, base_url, columns)
        if table:
            self.query_one(TableCode).show(table_url(base_url, kiosk["table_token"]), seats,
                                           lang)
        if offline:
            title = say(lang, "net.offline")
            network = offline_text(spot, lang)
        else:
            everyone = kiosk["seats"] and all(s["claimed"] or s["bot"] for s in kiosk["seats"])
            title = say(lang, "join.title_play" if kiosk["phase"] != "join"
                        else "join.everyone" if everyone
                        else "join.title_table" if table else "join.title")
            if beside:
                title = say(lang, "net.wifi_first") + "  " + title
            network = Text.styled(say(lang, "net.address", url=base_url), "bright_black")
            if spot is not None and spot.status != ON:
                network.append("\n")
                network.append_text(hotspot_line(spot, lang))
        self.query_one("#join-title", Pane).show(Text.styled(title, "bold"))
        self.query_one("#join-network", Pane).show(network + fair_join(kiosk, lang))
        urls = {s["seat"]: typed_form(seat_url(base_url, tokens[s["seat"]])) for s in free} \
            if per_seat else {}
        self.query_one("#join-seats", Pane).show(seat_list(seats, lang, urls))
        self.query_one("#join-notices", Pane).show(bot_seats_hint(kiosk, lang)
                                                   + notices(kiosk, lang))

    def _show_codes(self, free: list, tokens: list, lang: str, base_url: str,
                    columns: int) -> None:
        """One card per free seat, in seat order."""
        cards = list(self.query(SeatCode))
        if not cards:
            if free:
                self._make_cards()
            return
        if free:
            self._size_grid(seat_url(base_url, tokens[free[0]["seat"]]),
                            min(columns, len(free)), (len(free) + columns - 1) // columns)
        for card, seat in zip(cards, free + [None] * (len(cards) - len(free))):
            card.display = seat is not None
            if seat is not None:
                card.show(seat_label(seat, lang), seat_url(base_url, tokens[seat["seat"]]))

    def _make_cards(self) -> None:
        if not self._making_cards:
            self._making_cards = True
            self.call_later(self._mount_cards)

    async def _mount_cards(self) -> None:
        """A card for every seat a game may have; the codes are drawn once they exist."""
        try:
            await self.query_one("#codes", Grid).mount_all(
                [SeatCode(classes="seat-code") for _ in range(MAX_SEATS)])
        except MountError:
            return  # the kiosk is closing
        if self._shown is not None:
            self.show(*self._shown)


def seat_label(seat: dict, lang: str) -> Text:
    label = Text.styled(f"{say(lang, 'join.seat', n=seat['seat'] + 1)} {seat['name']}", "bold")
    if seat["bot"]:
        label.append(f" ({say(lang, 'join.bot')})", "bright_black")
    return label


def seat_state(seat: dict, lang: str) -> Text:
    if seat["claimed"]:
        return Text.styled(f"√ {say(lang, 'join.joined')}", "green")
    if seat["bot"]:
        return Text.styled(say(lang, "join.bot"), "bright_black")
    return Text.styled(say(lang, "join.waiting"), "yellow")


def seat_column(seats: list, lang: str) -> Text:
    """The seats beside the table code, one a line with a line between: the number a
    player taps on their phone is the number of their buttons."""
    t = Text()
    for s in seats:
        t.append(f"{say(lang, 'join.seat', n=s['seat'] + 1)}  {s['name']:<12.12}  ", "bold")
        t.append_text(seat_state(s, lang))
        t.append("\n\n")
    t.append(say(lang, "join.tap_your_seat"), "bright_black")
    return t


def seat_list(seats: list, lang: str, urls: dict | None = None) -> Text:
    """Every seat and whether it has joined, three a line; with `urls` (the seats whose
    codes are shown) one seat a line, its code's address after it, for a phone that cannot
    scan: the address is typed instead."""
    t = Text()
    if urls:
        for s in seats:
            t.append(f"{s['seat'] + 1} {s['name']:<12.12} ", "bold")
            t.append_text(seat_state(s, lang))
            if s["seat"] in urls:
                t.append(f"  {urls[s['seat']]}", "cyan")
            t.append("\n")
        return t
    for s in seats:
        t.append(f"{s['seat'] + 1} {s['name']:<12.12} ", "bold")
        t.append_text(seat_state(s, lang))
        t.append("   " if s["seat"] % 3 != 2 else "\n")
    return t


def typed_url(url: str, lang: str) -> Text:
    """The table code's address, under the seats beside it, for a phone that cannot scan."""
    t = Text("\n\n")
    t.append(say(lang, "join.type_url"), "bright_black")
    t.append("\n")
    t.append(typed_form(url), "cyan")
    return t


def bot_seats_hint(kiosk: dict, lang: str) -> Text:
    """Where a bot's seat shows no code, how a person gets it: the host hands it over on the
    host's page. In a demo nobody hosts until someone scans the host's code (F5)."""
    if not any(s["bot"] for s in kiosk["seats"]):
        return Text("")
    demo = kiosk.get("demo") and not kiosk.get("host_claimed")
    return Text.styled(say(lang, "join.bot_seats_demo" if demo else "join.bot_seats") + "\n",
                       "bright_black")


def notices(kiosk: dict, lang: str) -> Text:
    names = {s["seat"]: s["name"] for s in kiosk["seats"]}
    t = Text()
    for n in kiosk["notices"][-3:]:
        seat = n.get("seat")
        t.append(say(lang, f"notice.{n['k']}",
                     seat=(seat + 1) if seat is not None else "",
                     name=names.get(seat, ""), game=n.get("game", "")) + "\n", "bold yellow")
    return t
