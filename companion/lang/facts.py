"""The log in words: one sentence for each fact the rules record (companion/darkmoon ctx.fact).

A fact's sentence is game.fact.<kind>, or game.fact.<kind>.<variant> where the fact comes in
several shapes (a success or a failure, IN or OUT, why dice were taken...). Every field is
named by Words.values; the few facts whose fields need more than a name get them here.
"""
from __future__ import annotations

from ..darkmoon.data import EVENTS, FINAL_EVENTS
from .options import option_label
from .words import Words, signed


def outcome(f: dict) -> str:
    return "success" if f["success"] else "failure"


# kind -> the variant of its sentence, from the fact's fields.
VARIANT = {
    "repair": outcome, "lone_wolf": outcome, "commander_tested": outcome,
    "malfunction_result": outcome, "task_result": outcome,
    "shield_test": lambda f: ("clear" if f["tokens"] < 2 else "none" if f["face"] is None
                              else "failed" if f["failed"] else "passed"),
    "power_roll": lambda f: "none" if f["face"] is None else "",
    "die_tokens": lambda f: "gain" if f["change"] > 0 else "loss",
    "commander": lambda f: "first" if f.get("previous") is None else "",
    "fatigue_placed": lambda f: "" if f.get("seat") is None else "seat",
    "participation": lambda f: f["choice"],
    "chosen": lambda f: f["decision"],
    "order_response": lambda f: f["response"],
    "vote_result": lambda f: f["result"],
    "tie_broken": lambda f: f["result"],
    "resupply": lambda f: "none" if f["kind"] == "none" else "",
    "event_placed": lambda f: "discarded" if f.get("other") == "discarded" else "",
    "game_over": lambda f: f["condition"],
    "codes_checked": lambda f: "fatigued" if f["fatigued"] else "",
    "action": lambda f: "ordered" if f.get("ordered") else "",
    "took_dice": lambda f: f["reason"],
    "discarded_dice": lambda f: f["reason"],
    "submitted": lambda f: f["reason"],
    "damage_chosen": lambda f: f["reason"],
    "damage_declined": lambda f: f["reason"],
    "event_cube": lambda f: "final" if f.get("final") else "",
    "corrected": lambda f: f["what"] + ("." + f["to_value"][-1]
                                        if f["what"] in ("outpost", "fatigue", "quarantine",
                                                         "completed", "clearance", "amputation")
                                        else ".none" if f["to_value"] == ["none"] else ""),
    "game_set_up": lambda f: "variants" if f.get("variants") else "",
    "tokens_drawn": lambda f: f["kind"],
    "demoralize": lambda f: "" if f["swapped"] else "none",
    "demoralized": lambda f: "" if f["swapped"] else "none",
    "ruled": lambda f: f["rule"],
    "vote_called": lambda f: f.get("kind", ""),
    "vote_revealed": lambda f: f.get("kind", ""),
    "lincoln_decided": lambda f: f["result"],
    "threat_token": lambda f: "wild" if f["wild"] else "",
    "infection_power": lambda f: "clearance" if f["kind"] == "infected_clearance" else "",
}


def fact_key(f: dict) -> str:
    variant = VARIANT.get(f["k"], lambda _: "")(f)
    return f"game.fact.{f['k']}" + (f".{variant}" if variant else "")


def extra_values(w: Words, f: dict) -> dict:
    """Fields that need more than a name: dice counts, ballots, the chosen action..."""
    k, extra = f["k"], {}
    if k in ("took_dice", "discarded_dice"):
        extra["dice"] = w.counts(f.get("strong", 0), f.get("weak", 0), f.get("commander", 0))
    elif k == "action":
        extra["action"] = option_label(w, "action", f["action"])
    elif k == "vote_revealed":
        # What a colour meant in this kind of vote (Shadow Corporation's change it).
        kind = f.get("kind")
        extra["ballots"] = w.join(w("game.ballot.cast", seat=w.seat(seat),
                                    ballot=w(f"game.option.vote.{kind}.{colour}" if kind
                                             else f"game.ballot.{colour}"))
                                  for seat, colour in sorted(f["ballots"].items(),
                                                             key=lambda b: int(b[0])))
    elif k == "game_set_up":
        extra["seating"] = w.join(w("game.seating", seat=name,
                                    character=w(f"game.character.{c}"))
                                  for name, c in zip(f["names"], f["characters"]))
        extra["variants"] = w.join(w(f"game.variant.{v}") for v in f.get("variants", []))
    elif k == "event_cube":
        extra["needed"] = (FINAL_EVENTS if f.get("final") else EVENTS)[f["card"]].cubes
    elif k == "corrected":
        value = f["to_value"]
        extra["value"] = value[0]
        if f["what"] in ("outpost", "fatigue"):
            extra["token"] = w.token(value[0])
        elif f["what"] == "sabotage" and value[0] != "none":
            extra["area"] = w(f"game.area.{value[0]}")
        elif f["what"] in ("commander", "quarantine", "die_tokens", "clearance", "amputation"):
            extra["seat"] = w.seat(value[0])
            extra["value"] = signed(value[-1]) if f["what"] == "die_tokens" else value[-1]
        elif f["what"] == "lost_dice":
            extra["colour"], extra["value"] = w(f"game.colour.{value[0]}"), value[1]
        elif f["what"] in ("event", "completed"):
            extra["card"] = w.card(value[0])
    elif k == "task_chosen":
        extra["task"] = w.task(f["card"])
    elif k == "malfunction_result":
        extra["short"] = f["difficulty"] - f["total"]
    if "faces" in f:  # Shadow Corporation's corporation dice, which the sentence names
        extra["faces"] = w.join(signed(face) for face in f["faces"])
    return extra


def describe(w: Words, f: dict) -> str:
    """The fact as one sentence; a private fact is marked so, even in its owner's log."""
    sentence = w(fact_key(f), **{**w.values(f), **extra_values(w, f)})
    return w("game.private", text=sentence) if "to" in f else sentence

