"""A repaint draws only the widgets under what changed.

Textual repaints a screen's changed rows by drawing every widget inside the rectangle around
all of them: a press that changes the banner (the top row) and a row of the live panel drew
the whole board, every pane of it, though only two panes had a row to send. On a Pi-class CPU
that was about a third of the time from a press to the screen showing it. Here a widget is
drawn only where part of a change shows through it; the rows sent to the terminal are the
same.

Why that sends the same cells: a cell is sent only if a changed region covers it; Textual
paints front to back and the first widget to cover a cell wins it, so the widget that shows
there overlaps the change and is drawn; a widget skipped because one in front covers all it
would show of the change loses every such cell anyway. This leans on Textual's compositor
internals, so importing it changes nothing: screens/textual_seam.py installs
render_partial_update on the Textual version it was written for (pinned in pyproject.toml).
tests/screens/test_repaint.py compares the terminal after every command of a whole game with a
full repaint, and fails on an upgrade that changes them."""
from __future__ import annotations

from textual._compositor import ChopsUpdate, Compositor
from textual.geometry import Region


def drawn(widgets: dict, changed: list[Region]) -> dict:
    """Of `widgets` (Textual's map, front to back: widget -> (region, clip)), those that show
    some of a changed region: the part of the change a widget shows must not lie wholly
    inside one widget in front of it, whose cells win there (a pane in front of its
    containers, say)."""
    kept = {}
    in_front: list[Region] = []
    for widget, (region, clip) in widgets.items():
        shown = region.intersection(clip)
        for change in changed:
            part = shown.intersection(change)
            if part and not any(front.contains_region(part) for front in in_front):
                kept[widget] = (region, clip)
                break
        in_front.append(shown)
    return kept


def render_partial_update(self: Compositor) -> ChopsUpdate | None:
    screen = self.size.region
    changed = [region.intersection(screen) for region in self._dirty_regions]
    self._dirty_regions.clear()
    changed = [region for region in changed if region]
    if not changed:
        return None
    spans = list(self._regions_to_spans(changed))
    is_rendered_line = {y for y, _, _ in spans}.__contains__
    # Textual draws what its map of visible widgets holds: for this repaint, only those
    # whose visible part overlaps a change (the map is Textual's cache, put back at once).
    self.cuts  # noqa: B018  (made from the whole map, and kept: before the map is narrowed)
    everything = self.visible_widgets
    self._visible_widgets = drawn(everything, changed)
    try:
        chops = self._render_chops(screen, is_rendered_line)
    finally:
        self._visible_widgets = everything
    return ChopsUpdate(chops, spans, [cut_set[1:] for cut_set in self.cuts])
