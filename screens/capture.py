"""What the kiosk has drawn, read back from Textual's compositor: the plain text (for the
secrecy tests and the benchmark) and each cell's colours (for the 16-colour snapshots).
Reading strips has no side effect on what Textual repaints next."""
from __future__ import annotations

from rich.color import ANSI_COLOR_NAMES, Color

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


def record_frames(app, on_frame) -> None:
    """Call `on_frame(app)` each time Textual sends a repaint of the current screen to the
    terminal (headless too): what the table would have seen, frame by frame."""
    display = app._display

    def displayed(screen, renderable):
        display(screen, renderable)
        if renderable is not None:
            on_frame(app)

    app._display = displayed
