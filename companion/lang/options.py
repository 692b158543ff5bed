"""What a seat is asked and what each answer means, in words: the options, the blocked
options with their reasons, the question itself, and the banner saying who the game waits for."""
from __future__ import annotations

from ..darkmoon.data import EVENTS
from .words import Words, signed

# Decisions whose options are one word each: the label is game.option.<decision>.<word>.
ONE_WORD = ("continue", "participation", "malfunction_type", "order_of_effects",
            "damage_kind", "second_power", "tie_break", "order_response", "agree",
            "compromise_kind", "resupply", "system_reboot", "vote", "action", "vote_order",
            "threat_claim")
# Decisions that name a player with ["player", SEAT] or ["target", SEAT].
PLAYER = ("choose_player", "blood_testing", "pass_command", "vote_target", "grant_clearance",
          "accident")
# Decisions whose options are [WORD, SEAT] or [WORD]: game.option.<decision>.<word>.
WORD_AND_PLAYER = ("evacuation_vote", "trial", "clearance_power", "lincoln")
# Actions that name the player they are about.
ON_A_PLAYER = ("vote", "order", "amputate", "clearance", "expose")
# Token options: [kind] for a shield token, [kind, TOKEN] for a named one.
TOKEN = ("bonus", "remove_token", "power_token")


def option_label(w: Words, decision: str, option: list, you: dict | None = None,
                 data: dict | None = None) -> str:
    """One option as a button says it. `you` (the seat's private view) names the rolled
    faces of a submit; `data` is the decision's visible data (the vote's target...)."""
    you, data = you or {}, data or {}
    head, rest = option[0], option[1:]
    named = w.values(data)
    if decision == "event":
        return w("game.option.event", card=w.card(rest[0]), cubes=EVENTS[rest[0]].cubes)
    if decision == "task":
        return w.task(rest[0])
    if decision in ("take_dice", "roll_dice", "discard"):
        n = sum(rest)
        return w(f"game.option.{decision}" + ("" if n else ".none"), dice=w.counts(*rest))
    if decision == "submit":
        return submit_label(w, option, you.get("rolled") or [])
    if decision == "corporation":
        return corporation_label(w, option, you.get("corporation") or [])
    if decision in WORD_AND_PLAYER:
        # Lincoln's options name the vote's target; the others their own player.
        target = rest[-1] if rest and isinstance(rest[-1], int) else data.get("target")
        word = rest[0] if decision == "lincoln" and rest else head
        return w(f"game.option.{decision}.{word}", target=w.seat(target))
    if decision == "vote" and data.get("kind"):
        return w(f"game.option.vote.{data['kind']}.{head}")
    if decision in PLAYER:
        return player_label(w, decision, rest[0])
    if decision in TOKEN:
        return token_label(w, decision, option)
    if decision == "interference":
        return interference_label(w, list(rest), data.get("drawn") or [])
    if decision == "action" and rest:
        values = {"target": w.seat(rest[0])} if head in ON_A_PLAYER else {}
        return w(f"game.option.action.{head}.{rest[0]}" if head in ("repair", "sabotage")
                 else f"game.option.action.{head}", **values)
    if decision in ONE_WORD:
        return w(f"game.option.{decision}.{head}", **named)
    raise KeyError(f"no words for the {decision} option {option!r}")


def submit_label(w: Words, option: list, rolled: list) -> str:
    if option[0] == "reroll":
        return w("game.option.submit.reroll")
    chosen = [rolled[i] for i in option[1:] if i < len(rolled)]
    if len(chosen) != len(option) - 1:  # a view without the roll (should not happen)
        return w("game.option.submit.blind", n=len(option) - 1)
    dice = w.dice(chosen)
    if len(chosen) == 1:
        return w("game.option.submit.one", dice=dice)
    return w("game.option.submit.many", dice=dice,
             total=signed(sum(face for _, face in chosen)))


def corporation_label(w: Words, option: list, faces: list) -> str:
    if option[0] == "reroll":  # Luba's once-a-turn reroll
        return w("game.option.corporation.reroll")
    chosen = [("corporation", faces[i]) for i in option[1:] if i < len(faces)]
    if len(chosen) != len(option) - 1:  # a view without the roll (should not happen)
        return w("game.option.submit.blind", n=len(option) - 1)
    if len(chosen) == 1:
        return w("game.option.corporation.one", dice=w.dice(chosen))
    return w("game.option.corporation.many", dice=w.dice(chosen),
             total=signed(sum(face for _, face in chosen)))


def player_label(w: Words, decision: str, seat: int) -> str:
    suffix = ""
    if decision == "blood_testing":
        seats = w.view.get("seats") or []
        quarantined = 0 <= seat < len(seats) and seats[seat].get("quarantined")
        suffix = ".release" if quarantined else ".quarantine"
    return w(f"game.option.{decision}{suffix}", target=w.seat(seat))


def token_label(w: Words, decision: str, option: list) -> str:
    if option[0] == "skip":
        return w(f"game.option.{decision}.skip")
    if len(option) == 1:
        return w("game.option.token.shield")
    return w(f"game.option.token.{'place' if decision == 'power_token' else 'remove'}."
             f"{option[0]}", token=w.token(option[1]))


def interference_label(w: Words, kept: list, drawn: list) -> str:
    dropped = [w.card(c) for c in drawn if c not in kept]
    kept_names = [w.card(c) for c in kept]
    if not kept:
        return w("game.option.interference.none", discarded=w.join(dropped))
    if not dropped:
        return w("game.option.interference.all", kept=" > ".join(kept_names))
    return w("game.option.interference.some", kept=" > ".join(kept_names),
             discarded=w.join(dropped))


def reason_label(w: Words, reason: str) -> str:
    if reason.startswith("blocked_by:"):
        return w("game.reason.blocked_by", token=w.token(reason.split(":", 1)[1]))
    return w(f"game.reason.{reason}")


def blocked_label(w: Words, decision: str, option: list, reason: str, you=None,
                  data=None) -> str:
    return w("game.blocked", option=option_label(w, decision, option, you, data),
             reason=reason_label(w, reason))


def question(w: Words, decision: dict | None) -> str:
    """What this seat is asked now; '' when it is asked nothing."""
    if not decision:
        return ""
    kind, data = decision["decision"], decision.get("data") or {}
    if decision.get("chosen") is not None:
        return w(f"game.question.{kind}.chosen" if w.has(f"game.question.{kind}.chosen")
                 else "game.question.chosen")
    values = w.values(data)
    values.setdefault("active", w.seat(w.view.get("active")))
    detail = data.get("reason") or data.get("purpose") or data.get("card") or data.get("kind")
    if kind == "corporation" and data.get("most", 1) > 1:
        detail = "raid"
    if kind == "agree":
        detail = "act_of_trust" if str(detail).startswith("act_of_trust") else detail
    keys = ([f"game.question.{kind}.{detail}"] if detail else []) + [f"game.question.{kind}"]
    return w.first(keys, **values)


def banner(w: Words, view: dict) -> str:
    """One sentence: who the game waits for, and for what; or who won."""
    outcome = view.get("outcome")
    if outcome:
        return w(f"game.banner.over.{outcome['condition']}")
    waiting = view.get("waiting")
    if not waiting:
        return ""
    kind = waiting["decision"]
    if kind == "vote":
        vote = waiting.get("vote_kind", "quarantine")
        return w("game.banner.vote" + ("" if vote == "quarantine" else f".{vote}"),
                 target=w.seat(waiting.get("target")),
                 chosen=len(waiting.get("chosen") or []),
                 voters=len(waiting.get("voters") or []))
    return w(f"game.waiting.{kind}", seat=w.join(w.seat(s) for s in waiting["seats"]))
