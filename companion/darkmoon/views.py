"""What each audience may see. Both views are built field by field (allow-lists), never by
removing secrets from the whole state. After the game, everything is shown to everyone."""
from __future__ import annotations

from .data import (BLOCKED_BY, CLEARANCE_SEATS, EVACUATION_VOTE, EVENTS, FINAL_EVENTS,
                   SHADOW_CORPORATION, TASKS)
from .engine import HOOKS
from .state import Game

# Failure condition by shield tokens on the track (facts §2).
FAILURE_CONDITION = {0: None, 1: None, 2: "-1", 3: "any+", 4: "-2", 5: "any-", 6: "breached"}
# Decision details a seat may see about its own decision; anything else stays in the state.
SAFE_DATA = ("reason", "purpose", "card", "target", "by", "area", "ordered", "drawn", "kind",
             "most", "left", "threat", "caller")


def public_view(g: Game) -> dict:
    over = g.outcome is not None
    view = {
        "state_id": g.state_id,
        "players": g.players,
        "variants": sorted(g.variants),
        "task_deck": g.deck_colour,
        "turn": g.turn,
        "active": g.active,
        "commander": g.commander,
        "shield": {"tokens": g.shield_tokens,
                   "failure_condition": FAILURE_CONDITION[g.shield_tokens]},
        "outpost": {"tokens": sorted(g.outpost_board),
                    "blocked_actions": sorted(BLOCKED_BY[t] for t in g.outpost_board
                                              if t in BLOCKED_BY),
                    "command_token": "command" in g.outpost_board},
        "fatigue": {"tokens": sorted(g.fatigue_board),
                    "fatigued_seats": [i for i in range(g.players) if g.fatigued(i)],
                    # The game's tokens, on the board or in the pile: Shadow Corporation
                    # builds them from the characters in play (the host corrects among them).
                    "pool": sorted(g.fatigue_board + g.fatigue_pile)},
        "sabotage": g.sabotage,
        "event": ({"card": g.event, "cubes": g.event_cubes,
                   "needed": EVENTS[g.event].cubes + g.extra_cubes} if g.event else None),
        "completed_events": list(g.completed_events),
        "final_event": {"card": g.final_event, "cubes": g.final_cubes,
                        "needed": FINAL_EVENTS[g.final_event].cubes
                        + (g.extra_cubes if g.final_active else 0),
                        "active": g.final_active},
        "suspicion": g.suspicion,
        "pool": dict(g.pool),
        "spent": dict(g.spent),
        "lost": dict(g.lost),  # dice the host reported lost under the table
        "task_deck_size": len(g.task_deck),
        "task_discard_size": len(g.task_discard),
        "task": task_view(g),
        "seats": [seat_public(g, i, over) for i in range(g.players)],
        "waiting": waiting_view(g),
        "outcome": ({"winner": g.outcome.winner, "condition": g.outcome.condition}
                    if over else None),
    }
    if g.has(SHADOW_CORPORATION):
        view["evacuation"] = {"track": g.evacuation, "vote_at": EVACUATION_VOTE,
                              "cleared": list(g.clearances),
                              "seats": CLEARANCE_SEATS[g.players],
                              "ready": g.refuelled, "recalled": g.evacuation is None,
                              "lincoln_used": g.lincoln_used}
        # The commander die token goes with the commander die at setup and at every change
        # of commander; no source gives it an effect, so it is only shown (facts §8b.11).
        view["commander_die_token"] = g.commander
    for hook in HOOKS["public_view"]:  # the Threats module's tokens
        hook(g, view, over)
    if over:
        view["revealed_after_game"] = {
            "task_deck": list(reversed(g.task_deck)), "task_discard": list(g.task_discard),
            "event_deck": list(reversed(g.event_deck)),
        }
    return view


def task_view(g: Game) -> dict | None:
    t = g.task
    if t is None:
        return None
    return {"card": t.card, "kind": t.kind, "type": t.type, "difficulty": t.difficulty,
            "consequence": t.consequence, "success_total": t.success_total,
            "suspicious": TASKS[t.card].suspicious, "bonus": TASKS[t.card].bonus,
            "order": list(t.order), "participation": {str(k): v for k, v in
                                                      t.participation.items()},
            "submitted": [[seat, face] for seat, face in t.submitted], "success": t.success,
            "corporation": list(t.corporation), "evacuate": TASKS[t.card].evacuate}


def seat_public(g: Game, i: int, over: bool) -> dict:
    s = g.seats[i]
    view = {"seat": i, "name": s.name, "character": s.character,
            "fatigued": g.fatigued(i), "quarantined": s.quarantined, "revealed": s.revealed,
            "die_limit": g.die_limit(i), "die_tokens": s.die_tokens, "amputated": s.amputated,
            "commander": i == g.commander, "active": i == g.active,
            "status": s.status if (s.revealed or over) else None}
    if over:
        view["dice"] = dict(s.dice)
    return view


def waiting_view(g: Game) -> dict | None:
    p = g.pending
    if p is None:
        return None
    view = {"decision": p.kind, "seats": p.seats}
    if p.simultaneous:
        view["chosen"] = sorted(p.answers)  # who has chosen, never what
        view["voters"] = sorted(p.options)
    if p.kind in ("vote", "lincoln"):
        view["target"] = p.data["target"]
        view["vote_kind"] = p.data.get("kind", "quarantine")
    return view


def seat_view(g: Game, seat: int) -> dict:
    """One seat's private screen: the public board plus what only this seat may know."""
    view = public_view(g)
    view["you"] = you_view(g, seat)
    return view


def you_view(g: Game, seat: int) -> dict:
    """What only this seat may know: its own part of its screen (the web server builds the
    public part once for every seat and adds this)."""
    s = g.seats[seat]
    return {
        "seat": seat,
        "status": s.status,
        "dice": dict(s.dice),
        "rolled": [list(d) for d in s.rolled],
        "die_limit": g.die_limit(seat),
        "tasks_in_hand": list(g.task_drawn) if own_pending(g, seat, "task") else [],
        "events_in_hand": list(g.event_drawn) if own_pending(g, seat, "event") else [],
        # Shadow Corporation: the corporation dice this seat rolled and has yet to submit.
        "corporation": list(g.corporation) if own_pending(g, seat, "corporation") else [],
        "threat": g.threats.get(seat),  # the Threats module's card: this seat's alone
        "decision": decision_view(g, seat),
        # Telepathic Infected: the Infected opened their eyes together at setup.
        "infected_team": ([i for i, o in enumerate(g.seats) if o.infected]
                          if g.has("telepathic_infected") and s.infected else []),
    }


def own_pending(g: Game, seat: int, kind: str) -> bool:
    return g.pending is not None and g.pending.kind == kind and seat in g.pending.options


def decision_view(g: Game, seat: int) -> dict | None:
    p = g.pending
    if p is None or seat not in p.options:
        return None
    # A seat that has answered a simultaneous decision still open keeps its options: it may
    # answer again until the last seat is in (`chosen` is its answer so far).
    return {"decision": p.kind,
            "options": [list(o) for o in p.options[seat]],
            "blocked": [[list(o), why] for o, why in p.blocked.get(seat, [])],
            "chosen": list(p.answers[seat]) if seat in p.answers else None,
            "data": {k: v for k, v in p.data.items() if k in SAFE_DATA}}


def visible_facts(facts: list[dict], seat: int | None, over: bool) -> list[dict]:
    """The log as one audience sees it: public facts, plus `seat`'s own private ones; once
    the game is over, every fact."""
    if over:
        return list(facts)
    return [f for f in facts if "to" not in f or (seat is not None and seat in f["to"])]
