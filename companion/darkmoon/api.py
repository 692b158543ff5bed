"""The referee's whole interface: start, decide, evolve, replay, and what the game waits for.

An event is a JSON-able dict recording one accepted command (or the setup) together with
every chance outcome it drew and the facts it produced. Evolving plays the command again
with those outcomes, so a stored game rebuilds exactly, with no randomness.
"""
from __future__ import annotations

import random

from .corrections import HOST, apply_correction, check_correction
from .engine import Chance, Ctx, apply_command, parse_command
from .errors import GameOver, MalformedCommand, ReplayMismatch, StaleState
from .setup import Setup, build
from .state import Game
from .turn import action_options


def start(setup: Setup | dict, rng: random.Random) -> list[dict]:
    """Deal a new game; the returned events begin its log."""
    setup = setup if isinstance(setup, Setup) else Setup.from_json(setup)
    setup.validate()
    ctx = Ctx(Chance(rng=rng))
    build(setup, ctx)
    return [{"type": "start", "setup": setup.to_json(), "chance": ctx.chance.outcomes,
             "facts": ctx.facts, "state_id": 0}]


def decide(state: Game, actor, command, rng: random.Random) -> list[dict]:
    """The events a command causes, or a RulesError saying why it is refused. `actor` is a
    seat number, or "host" for corrections. The state passed in is never changed."""
    return step(state, actor, command, rng)[0]


def step(state: Game, actor, command, rng: random.Random) -> tuple[list[dict], Game]:
    """decide(), and the state its events lead to: what evolve(state, events) returns,
    without cloning the state and playing the command a second time (the Table's hot path)."""
    g = state.clone()
    return [play(g, actor, command, Ctx(Chance(rng=rng)))], g


def play(g: Game, actor, command, ctx: Ctx) -> dict:
    """Apply a command to `g` in place and return its event. Refusals happen before any
    change, so `g` is untouched when this raises."""
    decision, option, state_id = parse_command(command)
    if actor == HOST:
        if decision != "correct":
            raise MalformedCommand("the host may only send corrections")
        if g.outcome is not None:
            raise GameOver("the game is over")
        if state_id is not None and state_id != g.state_id:
            raise StaleState(f"the game has moved on (state {g.state_id}, you saw {state_id})")
        check_correction(g, option)
        g.state_id += 1
        apply_correction(g, ctx, option)
        if g.outcome is not None:  # a sixth token: nothing is waited for any more
            g.pending = None
            g.stack.clear()
        else:
            refresh_action_options(g)
    else:
        apply_command(g, ctx, actor, decision, option, state_id)
    return {"type": "command", "actor": actor,
            "command": {"decision": decision, "option": list(option)},
            "chance": ctx.chance.outcomes, "facts": ctx.facts, "state_id": g.state_id}


def refresh_action_options(g: Game) -> None:
    """A correction can open or block actions already offered (an outpost token, a
    quarantine, the commander die leaving a seat with no other dice)."""
    p = g.pending
    if p is not None and p.kind == "action":
        (seat,) = p.options
        p.options[seat], p.blocked[seat] = action_options(g, seat, p.data["ordered"],
                                                          p.data.get("exposed", False))


def evolve(state: Game | None, events: list[dict]) -> Game:
    """The state after `events`; `state` None starts from nothing (a log's first event is its
    start). The state passed in is never changed."""
    g = state.clone() if state is not None else None
    for event in events:
        g = apply_event(g, event)
    return g


def apply_event(g: Game | None, event: dict) -> Game:
    chance = Chance(recorded=event["chance"])
    ctx = Ctx(chance, keep_facts=False)
    if event["type"] == "start":
        g = build(Setup.from_json(event["setup"]), ctx)
    elif event["type"] == "position":  # a game begun from a described position
        from .position import Position, build_position  # position imports setup, not api
        g = build_position(Position.from_json(event["position"]), ctx)
    elif event["type"] == "command":
        if g is None:
            raise ReplayMismatch("a command before the game started")
        play(g, event["actor"], event["command"], ctx)
    else:
        raise ReplayMismatch(f"unknown event type {event['type']!r}")
    if chance.position != len(event["chance"]) or g.state_id != event["state_id"]:
        raise ReplayMismatch(f"event {event['state_id']} does not replay to the same state")
    return g


def replay(events: list[dict]) -> Game:
    """Rebuild a game from its whole log, folding in place (no copies)."""
    g = None
    for event in events:
        g = apply_event(g, event)
    return g


def waiting_for(g: Game) -> dict | None:
    """The pending decision with every waiting seat's legal options (not a view: it holds
    private options; give each seat only its own)."""
    p = g.pending
    if p is None:
        return None
    return {"decision": p.kind, "seats": p.seats,
            "options": {seat: list(p.options[seat]) for seat in p.seats},
            "blocked": {seat: list(p.blocked.get(seat, [])) for seat in p.seats}}
