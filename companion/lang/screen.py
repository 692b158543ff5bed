"""All the sentences one screen shows for one view: banner, log, mirror, options, question."""
from __future__ import annotations

from .facts import describe
from .mirror import mirror
from .options import banner, blocked_label, option_label, question
from .words import Words

# A fact's sentence, once made, for every later view that shows it: made afresh, the log's
# sixty sentences for each of the 7 phones, the board and the host were most of the time a
# command took to reach the table on a Pi. Keyed by the fact object itself (held in the
# entry, so its id cannot be reused while cached) and by what of the view the words read:
# the seat names and what sets a task's difficulty. One table of facts per language and
# context, so a log's sixty look-ups hash the context once, not sixty times.
_SENTENCES: dict[tuple, dict[int, tuple[dict, str]]] = {}
_MOST_SENTENCES = 4096


def _context(view: dict) -> tuple:
    final = view.get("final_event") or {}
    return (tuple(s.get("name") for s in view.get("seats") or ()), view.get("task_deck"),
            final.get("active"), final.get("card"))


def sentences(w: Words, log: list[dict]) -> list[str]:
    """Each fact of `log` as its sentence, in order."""
    key = (w.lang, _context(w.view))
    known = _SENTENCES.get(key)
    if known is None or len(known) >= _MOST_SENTENCES:
        if len(_SENTENCES) >= 8:  # a few languages and contexts; old games drop out
            _SENTENCES.clear()
        known = _SENTENCES[key] = {}
    said = []
    for fact in log:
        hit = known.get(id(fact))
        if hit is None or hit[0] is not fact:
            hit = known[id(fact)] = (fact, describe(w, fact))
        said.append(hit[1])
    return said


def choices_text(w: Words, you: dict) -> dict:
    """A seat's own words: its options, its blocked options and its question.

    "options" and "blocked" follow the order of you.decision's options and blocked entries,
    so a screen can put each label on the matching button."""
    decision = you.get("decision") or None
    options, blocked = [], []
    if decision:
        kind, data = decision["decision"], decision.get("data") or {}
        options = [option_label(w, kind, o, you, data) for o in decision.get("options", [])]
        blocked = [blocked_label(w, kind, o, why, you, data)
                   for o, why in decision.get("blocked", [])]
    return {"options": options, "blocked": blocked, "decision": question(w, decision)}


def view_text(view: dict, lang: str) -> dict:
    """Words for a public view (kiosk, board page) or a seat view (a phone: adds "you").
    Only "options", "blocked" and "decision" read "you"; the rest reads the board and log."""
    w = Words(lang, view)
    log = view.get("log") or []
    return {"banner": banner(w, view), "log": sentences(w, log), "mirror": mirror(w, log),
            **choices_text(w, view.get("you") or {})}
