"""All the sentences one screen shows for one view: banner, log, mirror, options, question."""
from __future__ import annotations

from .facts import describe
from .mirror import mirror
from .options import banner, blocked_label, option_label, question
from .words import Words


def view_text(view: dict, lang: str) -> dict:
    """Words for a public view (kiosk, board page) or a seat view (a phone: adds "you").

    "options" and "blocked" follow the order of you.decision's options and blocked entries,
    so a screen can put each label on the matching button."""
    w = Words(lang, view)
    log = view.get("log") or []
    you = view.get("you") or {}
    decision = you.get("decision") or None
    options, blocked = [], []
    if decision:
        kind, data = decision["decision"], decision.get("data") or {}
        options = [option_label(w, kind, o, you, data) for o in decision.get("options", [])]
        blocked = [blocked_label(w, kind, o, why, you, data)
                   for o, why in decision.get("blocked", [])]
    return {
        "banner": banner(w, view),
        "log": [describe(w, f) for f in log],
        "mirror": mirror(w, log),
        "options": options,
        "blocked": blocked,
        "decision": question(w, decision),
    }
