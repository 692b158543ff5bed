"""Game over: who won and how, and now that nothing is secret, every status, the dice each
seat held, every roll and every discarded card (as far as the view's log reaches)."""
from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll

from .fair import fair_over
from .pane import Pane, flow, heading, listed
from .panels import face_text
from .words import dice, name_of, say, seat_label, text

DICE = ("strong", "weak", "commander")
NARROW = {"over-seats": 36, "over-rolls": 34, "over-cards": 34}  # columns before layout


def result(view: dict, lang: str) -> Text:
    outcome = view["outcome"]
    winner = outcome["winner"]
    alone = winner == "company_man"  # the Company Man module's third side wins alone
    return Text.styled(say(lang, "over.result" + (".company_man" if alone else ""),
                           winner=name_of(lang, "winner", winner),
                           condition=name_of(lang, "condition", outcome["condition"])),
                       "bold reverse " + {"infected": "red", "company_man": "yellow"}.get(
                           winner, "green"))


def statuses(view: dict, lang: str, width: int = NARROW["over-seats"]) -> Text:
    """Each seat's status and the dice it held, in words ("holds 2 strong dice, 1 weak
    die"), now that the game is over and nothing is secret."""
    t = Text()
    for s in view["seats"]:
        infected = (s.get("status") or "uninfected") not in ("uninfected", "company_man")
        t.append(f"{seat_label(view, s['seat']):<14.14}", "bold")
        t.append(f" {name_of(lang, 'character', s['character'])}")
        held = s.get("dice") or {}
        words = [dice(lang, c, held[c]) for c in DICE if held.get(c)]
        holds = say(lang, "over.dice_held",
                    dice="\0".join(words) or text(lang, "game.dice.none"))
        held_units = listed(holds.split("\0"))  # "holds 2 strong dice," "1 weak die"
        held_units[0] = ("· " + held_units[0][0], "")
        flow(t, [(name_of(lang, "status", s.get("status")), "bold red" if infected
                  else "green")] + held_units, width, sep=" ", indent=4, lead="\n    ")
        t.append("\n")
    return t


def rolls(view: dict, lang: str, width: int = NARROW["over-rolls"]) -> Text:
    t = Text()
    for f in view.get("log", []):
        if f["k"] in ("rolled", "submitted", "corporation_rolled", "corporation_unseen"):
            before, after = say(lang, f"over.{f['k']}", dice="\0").split("\0")
            style = "" if f["k"] in ("submitted", "corporation_unseen") else "cyan"
            # Shadow Corporation's facts give faces: every corporation die, the unseen too,
            # right after the line that names them ("rolled the corporation dice -2 -1 0")
            dice = f.get("dice") or f["faces"]
            flow(t, [(f"{seat_label(view, f['seat'])}:", "bold"), (before.strip(), style)] +
                 [(face_text(lang, d), style) for d in dice] +
                 ([(after.strip(), style)] if after.strip() else []), width, sep=" ",
                 lead="\n" if t else "")
    return t or Text("—")


def cards(view: dict, lang: str, width: int = NARROW["over-cards"]) -> Text:
    """The cards discarded face down, then (the Threats module) each seat's threat card
    under its own heading, then the piles and decks as they were left."""
    t = Text()
    threats = [f for f in view.get("log", []) if f["k"] == "threat_dealt"]
    heading(t, say(lang, "over.discarded"))
    t.append("\n")
    for f in view.get("log", []):
        if f["k"] == "task_discarded":
            said = say(lang, "over.task_discarded", seat=seat_label(view, f["seat"]),
                       cards=", ".join(name_of(lang, "card", c) for c in f["cards"]))
        elif f["k"] in ("event_bottom", "event_discarded"):
            said = say(lang, f"over.{f['k']}", seat=seat_label(view, f["seat"]),
                       card=name_of(lang, "card", f["card"]))
        else:
            continue
        flow(t, [(w, "") for w in said.split(" ")], width, sep=" ")
        t.append("\n")
    if threats:  # the Threats module's cards, secret until now: dealt, not discarded
        t.append("\n")
        heading(t, say(lang, "over.threat_cards"))
        for f in threats:
            flow(t, [(w, "") for w in say(lang, "over.threat_dealt",
                                          seat=seat_label(view, f["seat"]),
                                          threat=name_of(lang, "threat", f["threat"])
                                          ).split(" ")], width, sep=" ", lead="\n")
        t.append("\n")
    after = view.get("revealed_after_game") or {}
    for key in ("task_discard", "task_deck", "event_deck"):
        t.append("\n")
        heading(t, say(lang, f"over.{key}"))
        flow(t, listed([name_of(lang, "card", c) for c in after.get(key, [])] or ["—"]),
             width, sep=" ", lead="\n")
        t.append("\n")
    return t


class OverView(Vertical):
    """The result, then three columns: statuses; every roll and the cards, each a list
    that scrolls with the keys when it is longer than the screen (the rolls have focus)."""

    def compose(self) -> ComposeResult:
        yield Pane(id="over-result")
        with Horizontal(id="over-body"):
            yield Pane(id="over-seats")
            with VerticalScroll(id="over-rolls-box"):
                yield Pane(id="over-rolls")
            with VerticalScroll(id="over-cards-box"):
                yield Pane(id="over-cards")

    _shown: tuple[dict, str] | None = None

    def on_resize(self) -> None:
        if self._shown is not None:  # lines are laid out for the panes' widths: again
            self.call_after_refresh(self.show, *self._shown)

    def width(self, pane: str) -> int:
        return self.query_one(f"#{pane}").content_size.width or NARROW[pane]

    def show(self, kiosk: dict, lang: str) -> None:
        self._shown = (kiosk, lang)
        view = kiosk["game"]
        q, w = self.query_one, self.width
        q("#over-result", Pane).show(result(view, lang)
                                     + fair_over(kiosk, lang, getattr(self.app, "base_url", "")))
        q("#over-seats", Pane).show(statuses(view, lang, w("over-seats")),
                                    say(lang, "over.seats_title"))
        for key, drawn in (("rolls", rolls(view, lang, w("over-rolls"))),
                           ("cards", cards(view, lang, w("over-cards")))):
            box = q(f"#over-{key}-box", VerticalScroll)
            box.border_title = say(lang, f"over.{key}_title")
            box.border_subtitle = say(lang, "over.scroll")
            q(f"#over-{key}", Pane).show(drawn)
        if self.app.focused is None:  # the keys scroll the rolls first; Tab: the cards
            self.call_after_refresh(q("#over-rolls-box").focus)
