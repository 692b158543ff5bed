"""The kiosk's lines on fair dealing (companion/chance/fair.py, docs/fair.md), in table words.

Before the deal: the code the next deal is sealed under (64 bits, as every phone shows it), how
many phones have sealed their part, and once "start" is pressed, how many have shown it and
how soon the deal comes. During the game: its code and its number among the games this Pi has
dealt (a host who throws deals away to fish for a better one is seen doing it). At game over:
where anyone can check the deal, and the code of the next game's seal (in full on every phone
and on the board page); a game no phone added to the shuffle (bots only, every phone silent)
is said to be dealt by this Pi alone, never a fair deal: it chose its seal knowing the seats."""
from __future__ import annotations

import math

from rich.text import Text

from .words import counted, say


def fair_join(kiosk: dict, lang: str) -> Text:
    """Before the deal: the seal the seats are joining, and how far the phones have got."""
    fair = kiosk.get("fair")
    pending = fair and fair.get("pending")
    if not pending or not kiosk["seats"] or kiosk["phase"] != "join":
        return Text("")
    t = Text("\n")
    t.append(say(lang, "fair.commitment", code=pending["code"]), "bold")
    t.append("   ")
    t.append_text(progress(kiosk["seats"], pending, lang))
    t.append("\n" + counted(lang, "fair.games_dealt", fair["games_dealt"]) + " · "
             + say(lang, "fair.filler"), "bright_black")
    return t


def progress(seats: list[dict], pending: dict, lang: str) -> Text:
    """How many phones sealed their part; once the deal is asked for, how many showed it
    and within how many seconds the deal comes (a phone that never shows its part gets its
    filler then, so one silent phone cannot hold the table up)."""
    phones = [s for s in seats if not s["bot"]]
    pledged = [s for s in phones if s.get("pledged")]
    if not pending.get("revealing"):
        return Text(say(lang, "fair.pledged", given=len(pledged), phones=len(phones)),
                    "green" if len(pledged) == len(phones) else "yellow")
    shown = sum(1 for s in pledged if s.get("revealed"))
    t = Text(say(lang, "fair.revealed", shown=shown, pledged=len(pledged)), "bold yellow")
    # "within": the kiosk redraws when the room changes (each reveal), not every second, and
    # "dealing within 8 seconds" stays true while it waits
    wait = pending.get("deal_in")
    if wait is not None:
        t.append(" · " + (counted(lang, "fair.deal_in", math.ceil(wait)) if wait > 0
                          else say(lang, "fair.dealing")), "bold yellow")
    return t


def fair_play(kiosk: dict, lang: str) -> Text:
    """During the game: its code and its number among the games dealt here."""
    fair = kiosk.get("fair")
    if not fair or fair["game"] is None:
        return Text("")
    t = Text("\n\n")
    if fair["verifiable"]:  # short words: the code stays whole on the players' pane
        t.append(say(lang, "fair.sealed", code=fair["code"]), "bright_black")
    else:
        t.append(say(lang, "fair.seeded"), "bright_black")
    t.append("\n" + dealt(fair, lang), "bright_black")
    return t


def dealt(fair: dict, lang: str) -> str:
    """ "Game 12 · 11 games dealt by this Pi": a game's number is spent when its deal is
    sealed, so a seal thrown away before the deal leaves a gap the count shows."""
    return say(lang, "fair.dealt", game=fair["game"],
               dealt=counted(lang, "fair.games_dealt", fair["games_dealt"]))


def fair_over(kiosk: dict, lang: str, base_url: str) -> Text:
    """At game over, two lines under the result (all the pane holds): the game's code and
    number; where anyone can check the deal and the next game's code, or once "play again"
    is pressed, that code and how far the phones have got showing their part of it."""
    fair = kiosk.get("fair")
    if not fair or fair["game"] is None:
        return Text("")
    t = Text("\n")
    if not fair["verifiable"]:
        t.append(say(lang, "fair.seeded"), "bright_black")
        return t
    sealed = "fair.box_alone" if fair.get("box_alone") else "fair.commitment"
    t.append(say(lang, sealed, code=fair["code"]) + " · " + dealt(fair, lang),
             "bold yellow" if fair.get("box_alone") else "bright_black")
    pending = fair.get("pending")
    if pending and pending.get("revealing"):  # "play again" pressed: the next deal comes
        t.append("\n" + say(lang, "fair.next", code=pending["code"]) + "   ", "bright_black")
        t.append_text(progress(kiosk["seats"], pending, lang))
        return t
    t.append("\n" + say(lang, "fair.check", url=f"{base_url.rstrip('/')}/fair"), "bold")
    if pending:
        t.append(" · " + say(lang, "fair.next", code=pending["code"]), "bright_black")
    return t
