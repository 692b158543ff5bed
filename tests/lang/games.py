"""Seeded whole games between bots, seen step by step as the screens see them: the public
view and every seat's view, each with its log exactly as the Table builds it."""
from __future__ import annotations

import random
import re
from pathlib import Path

from companion.darkmoon import Setup, public_view, seat_view, start, visible_facts
from companion.darkmoon.api import apply_event
from companion.darkmoon.data import MIN_PLAYERS_FOR, SHADOW_CORPORATION, VARIANTS
from companion.tools.simulate import bot_choice, helpful_choice, play_game
from companion.core.table import LOG_LENGTH

RULES = Path(__file__).resolve().parents[2] / "companion" / "darkmoon"
INFECTED_ACTIONS = {"reveal", "interference", "energy_spike", "sabotage", "test_commander",
                    "demoralize"}


def emitted_kinds() -> set[str]:
    """Every fact kind the rules can record, read from their source: ctx.fact("kind", ...)
    and the f"{kind}_placed"/f"{kind}_removed" facts for the three damage kinds."""
    kinds: set[str] = set()
    for path in RULES.glob("*.py"):
        source = path.read_text(encoding="utf-8")
        kinds |= set(re.findall(r'ctx\.fact\(\s*"(\w+)"', source))
        kinds |= set(re.findall(r'else "(\w+)", seat=', source))
        for suffix in re.findall(r'ctx\.fact\(f"\{kind\}_(\w+)"', source):
            kinds |= {f"{k}_{suffix}" for k in ("shield", "outpost", "fatigue")}
    return kinds


def infected_choice(g, rng: random.Random):
    """A bot that reveals when it can and then plays the revealed actions, so the facts of
    infection powers, sabotage, Demoralize and Test Commander turn up in a few games."""
    seat = rng.choice(g.pending.seats)
    options = g.pending.options[seat]
    if g.pending.kind == "action":
        wicked = [o for o in options if o[0] in INFECTED_ACTIONS]
        if wicked and rng.random() < 0.8:
            return seat, {"decision": "action", "option": list(rng.choice(wicked))}
    if g.pending.kind in ("damage_kind", "second_power") and rng.random() < 0.5:
        return seat, {"decision": g.pending.kind, "option": list(options[-1])}
    return helpful_choice(g, rng) if rng.random() < 0.5 else bot_choice(g, rng)


POLICIES = {"bot": bot_choice, "helpful": helpful_choice, "infected": infected_choice}


def setup_for(players: int, seed: int) -> Setup:
    rng = random.Random(seed * 7919)
    chosen = set(rng.sample(VARIANTS, rng.randint(0, 3)))
    if seed % 3 == 0:  # the Infected's private team fact needs this variant now and then
        chosen.add("telepathic_infected")
    if seed % 2 == 1:  # Shadow Corporation in every other game, its modules too
        chosen.add(SHADOW_CORPORATION)
        if seed % 4 == 3:
            chosen |= {"threats_module", "company_man_module"}
    variants = tuple(sorted(v for v in chosen if players >= MIN_PLAYERS_FOR.get(v, 0)))
    names = ("Ana", "Ben", "Cai", "Dee", "Eli", "Fay", "Gus")[:players]
    return Setup(names, variants=variants)


def with_log(view: dict, facts: list, seat, over: bool) -> dict:
    view["log"] = visible_facts(facts, seat, over)[-LOG_LENGTH:]
    return view


def frames(players: int, seed: int, policy: str = "bot", every: int = 1,
           facts: list | None = None) -> list:
    """(public view, [seat views]) before the first command, after every `every`th command
    and at the end. `facts`, if given, receives the whole log, each fact with its `seq` as
    the Table's log has it."""
    setup = setup_for(players, seed)
    facts = [] if facts is None else facts
    facts.extend({"seq": 0, **f} for f in start(setup, random.Random(seed))[0]["facts"])
    out = []

    def snapshot(g):
        over = g.outcome is not None
        out.append((with_log(public_view(g), facts, None, over),
                    [with_log(seat_view(g, s), facts, s, over) for s in range(g.players)]))

    count = {"n": 0}

    def after_each(g, event):
        facts.extend({"seq": event["state_id"], **f} for f in event["facts"])
        count["n"] += 1
        if count["n"] % every == 0 or g.outcome is not None:
            snapshot(g)

    # The first snapshot needs the dealt game: replay the start the way play_game does.
    snapshot(apply_event(None, start(setup, random.Random(seed))[0]))
    play_game(setup, seed, after_each, choose=POLICIES[policy])
    return out
