"""The kiosk's lines on fair dealing (companion/fair.py): the commitment shown before the deal,
which seats' phones have given their randomness, the games this box has dealt (a host who
aborts games to fish for a better deal is seen doing it), and at game over where to check it."""
from __future__ import annotations

from rich.text import Text

from .words import say


def fair_join(kiosk: dict, lang: str) -> Text:
    """Before the deal: the commitment, and how many phones have given their randomness."""
    fair = kiosk.get("fair")
    if not fair or not kiosk["seats"] or kiosk["phase"] != "join":
        return Text("")
    t = Text("\n")
    t.append(say(lang, "fair.commitment", fingerprint=fair["fingerprint"]), "bold")
    phones = [s for s in kiosk["seats"] if not s["bot"]]
    given = sum(1 for s in phones if s["contributed"])
    t.append("   ")
    t.append(say(lang, "fair.contributed", given=given, phones=len(phones)),
             "green" if given == len(phones) else "yellow")
    t.append("   " + say(lang, "fair.games_dealt", dealt=fair["games_dealt"]), "bright_black")
    t.append("\n" + say(lang, "fair.pi_gives"), "bright_black")
    return t


def fair_play(kiosk: dict, lang: str) -> Text:
    """During the game: its commitment and its number among the games dealt here."""
    fair = kiosk.get("fair")
    if not fair or fair["game"] is None:
        return Text("")
    t = Text("\n\n")
    if fair["commitment"]:
        t.append(say(lang, "fair.commitment", fingerprint=fair["fingerprint"]), "bright_black")
    else:
        t.append(say(lang, "fair.seeded"), "bright_black")
    t.append("\n" + say(lang, "fair.dealt", game=fair["game"], dealt=fair["games_dealt"]),
             "bright_black")
    return t


def fair_over(kiosk: dict, lang: str, base_url: str) -> Text:
    """At game over, two lines under the result: the commitment, where anyone can check the
    deal, and the next game's commitment."""
    fair = kiosk.get("fair")
    if not fair or fair["game"] is None:
        return Text("")
    t = Text("\n")
    if not fair["commitment"]:
        t.append(say(lang, "fair.seeded"), "bright_black")
        return t
    t.append(say(lang, "fair.commitment", fingerprint=fair["fingerprint"]) + " · "
             + say(lang, "fair.dealt", game=fair["game"], dealt=fair["games_dealt"]),
             "bright_black")
    t.append("\n" + say(lang, "fair.check", url=f"{base_url.rstrip('/')}/fair"), "bold")
    if fair["next"]:
        t.append(" · " + say(lang, "fair.next", fingerprint=fair["next"]), "bright_black")
    return t
