"""What the kiosk has drawn, read back from Textual's compositor: the plain text (for the
secrecy tests and the benchmark) and each cell's colours (for the 16-colour snapshots).
Reading strips has no side effect on what Textual repaints next. And what it sent, frame by
frame (record_frames, a Terminal those frames are written to): for tests and benches."""
from __future__ import annotations

from rich.color import ANSI_COLOR_NAMES, Color
from rich.control import ControlType

# The first sixteen colour numbers and their names (rich spells them like CSS).
ANSI_NAMES = {number: name for name, number in reversed(ANSI_COLOR_NAMES.items())
              if number < 16}


def _strips(app):
    return app.screen._compositor.render_strips()


def screen_text(app) -> str:
    """The plain text currently drawn on the app's screen, one line per row."""
    return "\n".join(strip.text for strip in _strips(app))


def colour_name(colour: Color | None) -> str:
    """A colour as the terminal gets it: "default", an ANSI name such as "red", or
    "#rrggbb" for anything the Linux console cannot show."""
    if colour is None or colour.is_default:
        return "default"
    if colour.number is not None and colour.number < 16 and colour.triplet is None:
        return ANSI_NAMES[colour.number]
    return colour.get_truecolor().hex


def screen_cells(app) -> list[list[tuple[str, str, str]]]:
    """Every cell as (character, foreground, background) colour names."""
    rows = []
    for strip in _strips(app):
        row = []
        for segment in strip:
            style = segment.style
            fg = colour_name(style.color if style else None)
            bg = colour_name(style.bgcolor if style else None)
            for char in segment.text:
                row.append((char, fg, bg))
        rows.append(row)
    return rows


def record_frames(app, on_frame=None, *, on_update=None) -> None:
    """Each time Textual repaints the app's screen for the terminal (headless too), call
    `on_update(update)` with what it sent (a Rich renderable: its `spans` are the rows, its
    segments the bytes; None when the repaint found nothing to send), then, if something was
    sent, `on_frame(app)`: what the table would have seen, frame by frame. For tests and
    benches only: the one place that wraps Textual's private App._display, which the kiosk
    itself never touches."""
    display = app._display

    def displayed(screen, update):
        display(screen, update)
        if on_update is not None:
            on_update(update)
        if update is not None and on_frame is not None:
            on_frame(app)

    app._display = displayed


class Terminal:
    """A terminal's cells as the updates sent to it leave them (`record_frames(app,
    on_update=terminal.write)`): what the table sees, whatever Textual chose to repaint."""

    def __init__(self, app, width: int, height: int) -> None:
        self.app = app
        self.cells: list[list[tuple]] = [[("?", None)] * width for _ in range(height)]
        self.x = self.y = 0

    def write(self, update) -> None:
        if update is None:
            return
        console = self.app.console
        for segment in update.__rich_console__(console, console.options):
            if segment.control:
                for code in segment.control:
                    if code[0] == ControlType.CURSOR_MOVE_TO:
                        self.x, self.y = code[1], code[2]
                continue
            if segment.text == "\n":
                self.x, self.y = 0, self.y + 1
                continue
            for char in segment.text:
                self.cells[self.y][self.x] = (char, segment.style)
                self.x += 1

    def text(self) -> str:
        return "\n".join("".join(char for char, _ in row) for row in self.cells)


def drawn_cells(app) -> list[list[tuple]]:
    """Every cell of a full repaint of the app's screen now, as (character, Rich style): what
    a Terminal's cells must equal."""
    return [[(char, segment.style) for segment in strip for char in segment.text]
            for strip in _strips(app)]
