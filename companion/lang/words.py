"""Names of the game's things in one language: seats, cards, tokens, dice, lists of them."""
from __future__ import annotations

from ..darkmoon.data import (BLACK_DECK_BONUS, BLACKOUT_DIFFICULTY, COMMANDER, EVENTS,
                             FINAL_EVENTS, MALFUNCTION, STRONG, TASKS, WEAK)
from .catalogues import catalogue, text

# Fact and decision fields that name a seat; their values become the seat's name.
SEAT_FIELDS = ("seat", "target", "caller", "previous", "by", "active")


def label(lang: str, kind: str, ident) -> str:
    """The name of one thing: `kind` is character, task, event, final, token, area, damage,
    status, variant, decision, reason, colour or fact; `ident` its id (as in data.py)."""
    return text(lang, f"game.{kind}.{ident}")


def signed(face: int) -> str:
    """A die face as printed: +4, -2, 0 (a corporation die's blank side has no sign; ASCII
    minus: the kiosk's console font has no U+2212)."""
    return f"+{face}" if face > 0 else str(face)


class Words:
    """Fills sentences for one view in one language, naming seats as the table named them."""

    def __init__(self, lang: str, view: dict):
        self.lang = lang
        self.view = view

    def __call__(self, key: str, **values) -> str:
        return text(self.lang, key, **values)

    def has(self, key: str) -> bool:
        return key in catalogue(self.lang)

    def first(self, keys, **values) -> str:
        """The first of `keys` the catalogue holds (the most specific comes first)."""
        for key in keys:
            if self.has(key):
                return self(key, **values)
        raise KeyError(f"none of {list(keys)} in the {self.lang} catalogue")

    # --- people and lists ---

    def seat(self, seat) -> str:
        if seat is None:
            return self("game.nobody")
        seats = self.view.get("seats") or []
        seat = int(seat)  # ballots keyed by seat come back from JSON as strings
        if 0 <= seat < len(seats):
            return seats[seat]["name"]
        return self("game.seat_number", number=seat + 1)

    def join(self, items) -> str:
        items = [str(i) for i in items]
        if not items:
            return self("game.list.none")
        if len(items) == 1:
            return items[0]
        return self("game.list.and", first=", ".join(items[:-1]), last=items[-1])

    # --- cards and tokens ---

    def card(self, card: str) -> str:
        if card in EVENTS:
            return self(f"game.event.{card}")
        if card in FINAL_EVENTS:
            return self(f"game.final.{card}")
        return self(f"game.task.{card}")

    def difficulty(self, card: str) -> int:
        """The difficulty the game will use: the black deck and Blackout make it harder."""
        final = self.view.get("final_event") or {}
        return (TASKS[card].difficulty
                + (BLACK_DECK_BONUS if self.view.get("task_deck") == "black" else 0)
                + (BLACKOUT_DIFFICULTY if final.get("active") and final.get("card") == "blackout"
                   else 0))

    def task(self, card: str) -> str:
        """A task card with what a player weighs when choosing it."""
        t = TASKS[card]
        name = self.card(card)
        if t.kind == MALFUNCTION:
            name = self("game.task.malfunction_label", name=name,
                        difficulty=self.difficulty(card), consequence=t.consequence)
        # EVACUATE means something only in a Shadow Corporation game.
        shadow = "evacuation" in self.view
        flags = [self(f"game.task.flag.{f}") for f in ("suspicious", "bonus", "evacuate")
                 if getattr(t, f) and (f != "evacuate" or shadow)]
        return self("game.task.flagged", task=name, flags=", ".join(flags)) if flags else name

    def token(self, token: str) -> str:
        return self(f"game.token.{token}")

    # --- dice ---

    def die(self, colour: str, face: int) -> str:
        return self(f"game.die.{colour}", face=signed(face))

    def dice(self, dice) -> str:
        """Rolled or submitted dice, as [colour, face] pairs."""
        return self.join(self.die(colour, face) for colour, face in dice)

    def counts(self, strong: int = 0, weak: int = 0, commander: int = 0) -> str:
        """'2 strong dice and 1 weak die'; 'no dice' for none."""
        parts = [self(f"game.dice.{colour}.{'one' if n == 1 else 'many'}", n=n)
                 for colour, n in ((STRONG, strong), (WEAK, weak), (COMMANDER, commander))
                 if n]
        return self.join(parts) if parts else self("game.dice.none")

    # --- any fact's or decision's fields, named ---

    def values(self, data: dict) -> dict:
        """Every field of a fact or decision, as the words a sentence needs."""
        out = {}
        for field, value in data.items():
            if field in SEAT_FIELDS:
                out[field] = self.seat(value)
            elif value is None or field in ("k", "to", "seq"):
                continue
            elif field == "card":
                out[field] = self.card(value)
            elif field == "cards":  # drawn or discarded: the details tell alike cards apart
                out[field] = self.join(self.task(c) if c in TASKS else self.card(c)
                                       for c in value)
            elif field == "kind" and value in ("shield", "outpost", "fatigue"):
                out[field] = self(f"game.damage.{value}")
                out["a_kind"] = self(f"game.damage_a.{value}")  # "an outpost token"
            elif field == "type" and value in ("shield", "outpost", "fatigue"):
                out[field] = self(f"game.option.malfunction_type.{value}")
            elif field == "area":
                out[field] = self(f"game.area.{value}")
            elif field == "token":
                out[field] = self.token(value)
            elif field == "tokens" and isinstance(value, list):
                out[field] = self.join(self.token(t) for t in value)
            elif field == "status":
                out[field] = self(f"game.status.{value}")
            elif field == "threat":  # the Threats module's cards
                out[field] = self(f"game.threat.{value}")
            elif field == "dice":
                out[field] = self.dice(value)
            elif field == "seats":
                out[field] = self.join(self.seat(s) for s in value)
            elif field == "face":
                out[field] = signed(value)
            elif field == "decision":
                out[field] = self(f"game.decision.{value}")
            else:
                out[field] = value
        return out
