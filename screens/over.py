"""Game over: who won and how, and now that nothing is secret, every status, the dice each
seat held, every roll and every discarded card (as far as the view's log reaches)."""
from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical

from .pane import Pane, heading
from .panels import face_text
from .words import name_of, say, seat_label


def result(view: dict, lang: str) -> Text:
    outcome = view["outcome"]
    return Text.styled(say(lang, "over.result", winner=name_of(lang, "winner", outcome["winner"]),
                    condition=name_of(lang, "condition", outcome["condition"])),
                "bold reverse " + ("red" if outcome["winner"] == "infected" else "green"))


def statuses(view: dict, lang: str) -> Text:
    t = Text()
    for s in view["seats"]:
        infected = (s.get("status") or "uninfected") != "uninfected"
        t.append(f"{seat_label(view, s['seat']):<14.14}", "bold")
        t.append(f" {name_of(lang, 'character', s['character'])}\n    ")
        t.append(name_of(lang, "status", s.get("status")), "bold red" if infected else "green")
        dice = s.get("dice") or {}
        t.append(" · " + say(lang, "over.dice_held", strong=dice.get("strong", 0),
                             weak=dice.get("weak", 0), commander=dice.get("commander", 0))
                 + "\n")
    return t


def rolls(view: dict, lang: str) -> Text:
    t = Text()
    for f in view.get("log", []):
        if f["k"] in ("rolled", "submitted"):
            t.append(f"{seat_label(view, f['seat'])}: ", "bold")
            t.append(say(lang, f"over.{f['k']}",
                         dice=" ".join(face_text(lang, d) for d in f["dice"])) + "\n",
                     "" if f["k"] == "submitted" else "cyan")
    return t or Text("—")


def cards(view: dict, lang: str) -> Text:
    t = Text()
    for f in view.get("log", []):
        if f["k"] == "task_discarded":
            t.append(say(lang, "over.task_discarded", seat=seat_label(view, f["seat"]),
                         cards=", ".join(name_of(lang, "card", c) for c in f["cards"])) + "\n")
        elif f["k"] in ("event_bottom", "event_discarded"):
            t.append(say(lang, f"over.{f['k']}", seat=seat_label(view, f["seat"]),
                         card=name_of(lang, "card", f["card"])) + "\n")
    after = view.get("revealed_after_game") or {}
    for key in ("task_discard", "task_deck", "event_deck"):
        t.append("\n")
        heading(t, say(lang, f"over.{key}"))
        t.append("\n" + (", ".join(name_of(lang, "card", c) for c in after.get(key, []))
                         or "—") + "\n")
    return t


class OverView(Vertical):
    def compose(self) -> ComposeResult:
        yield Pane(id="over-result")
        with Horizontal(id="over-body"):
            yield Pane(id="over-seats")
            yield Pane(id="over-rolls")
            yield Pane(id="over-cards")

    def show(self, kiosk: dict, lang: str) -> None:
        view = kiosk["game"]
        q = self.query_one
        q("#over-result", Pane).show(result(view, lang))
        q("#over-seats", Pane).show(statuses(view, lang), say(lang, "over.seats_title"))
        q("#over-rolls", Pane).show(rolls(view, lang), say(lang, "over.rolls_title"))
        q("#over-cards", Pane).show(cards(view, lang), say(lang, "over.cards_title"))
