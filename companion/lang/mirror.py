"""What to do on the physical board after the latest command, so it matches the app.

Only public facts are mirrored: a private fact (a roll, a drawn card, a status) names nothing
the table should touch, and mirroring it would tell the table a secret. A fact kind has a
mirror line when the catalogue holds game.mirror.<kind> (or a variant of it, chosen as for
its log sentence); facts that change nothing on the board have none.
"""
from __future__ import annotations

from .facts import extra_values, fact_key
from .words import Words


def latest(log: list, state_id: int | None) -> list:
    """The facts of the latest command (they share its `seq`). When the view names its state,
    only that command counts: a command whose facts are all private (a roll) must not
    repeat the previous command's lines."""
    if not log:
        return []
    last = state_id if state_id is not None else max(f.get("seq", 0) for f in log)
    return [f for f in log if f.get("seq", 0) == last]


def mirror_line(w: Words, f: dict, batch: list) -> str | None:
    if "to" in f:
        return None
    k = f["k"]
    if k == "demoralize" and not f["swapped"]:
        return None
    if k in ("took_dice", "discarded_dice") and not any(
            f.get(c) for c in ("strong", "weak", "commander")):
        return None
    if k == "commander_tested" and not any(b["k"] == "submitted" for b in batch):
        return None  # an automatic failure: no die was spent
    if k == "vote_revealed":
        expensive = "expensive_voting" in (w.view.get("variants") or [])
        return w("game.mirror.vote_revealed." + ("expensive" if expensive else "kept"))
    specific = "game.mirror." + fact_key(f).removeprefix("game.fact.")
    base = f"game.mirror.{k}"
    if not (w.has(specific) or w.has(base)):
        return None
    keys = [specific, base]
    if k == "commander" and "shadow_corporation" in (w.view.get("variants") or []):
        # Shadow Corporation's commander die token goes with the commander die.
        keys.insert(0, specific + ".shadow")
    return w.first(keys, **{**w.values(f), **extra_values(w, f)})


def mirror(w: Words, log: list) -> list[str]:
    batch = latest(log, w.view.get("state_id"))
    lines: list[str] = []
    for f in batch:
        line = mirror_line(w, f, batch)
        if line and line not in lines:
            lines.append(line)
    return lines
