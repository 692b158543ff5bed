"""Setting up a game: seats, characters, status cards, commander, decks and the first event."""
from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from .damage import place_one
from .data import (CHARACTERS, COMMANDER, COMPANY_MAN, COMPANY_MAN_MODULE, DICE_IN_BOX,
                   EVAC_SHIP, EVACUATION_FAILURE, NEEDS_EXPANSION, UNINFECTED_CARDS,
                   EVACUATION_START, EXPANSIONS, FATIGUE_POOL, FATIGUE_TOKENS, FINAL_EVENTS,
                   INFECTED_CARDS, INFECTED_CLEARANCE, MAX_PLAYERS, MIN_PLAYERS,
                   MIN_PLAYERS_FOR, OUTPOST, OUTPOST_TOKENS, SHADOW_CORPORATION,
                   SMALL_GAME_REMOVED, STATUS_COUNTS, TASK_DECK_FOR, TASKS, UNINFECTED,
                   VARIANTS, EVENTS, available)
from .engine import Ctx, push, run
from .errors import BadSetup
from .state import Game, Seat

MAX_NAME = 24
# Zero-width joiner: inside emoji sequences (a family, a flag) it is part of a name people use.
JOINER = "\u200d"


def printable_name(name: str) -> bool:
    """A name a person could have typed and any screen can show as it is. Names reach the
    kiosk's terminal: no control character (escape sequences, newlines, C1 controls), no
    format character (bidirectional overrides, invisible marks), no lone surrogate (not text:
    nothing could encode it), no line or paragraph separator."""
    return all(ch == JOINER or unicodedata.category(ch) not in
               ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp") for ch in name)


@dataclass(frozen=True)
class Setup:
    """What the host chooses before a game: names in clockwise order, and optionally the
    characters, the final event and any variants."""
    names: tuple
    characters: tuple | None = None
    final_event: str | None = None
    variants: tuple = ()

    def to_json(self) -> dict:
        return {"names": list(self.names),
                "characters": list(self.characters) if self.characters else None,
                "final_event": self.final_event, "variants": list(self.variants)}

    @classmethod
    def from_json(cls, data: dict) -> "Setup":
        if not isinstance(data, dict):
            raise BadSetup("a setup is an object with 'names'")
        unknown = set(data) - {"names", "characters", "final_event", "variants"}
        if unknown:
            raise BadSetup(f"unknown setup fields: {', '.join(sorted(unknown))}")
        names, chars = data.get("names"), data.get("characters")
        variants = data.get("variants") or ()
        if not isinstance(names, (list, tuple)) or not isinstance(variants, (list, tuple)):
            raise BadSetup("'names' and 'variants' must be lists")
        if chars is not None and not isinstance(chars, (list, tuple)):
            raise BadSetup("'characters' must be a list or null")
        setup = cls(tuple(names), tuple(chars) if chars else None, data.get("final_event"),
                    tuple(variants))
        setup.validate()
        return setup

    def validate(self) -> None:
        n = len(self.names)
        if not MIN_PLAYERS <= n <= MAX_PLAYERS:
            raise BadSetup(f"Dark Moon is for {MIN_PLAYERS} to {MAX_PLAYERS} players, not {n}")
        for name in self.names:
            if not isinstance(name, str) or not name.strip() or len(name) > MAX_NAME:
                raise BadSetup(f"each name is 1 to {MAX_NAME} characters")
            if not printable_name(name):
                raise BadSetup("a name holds only letters, digits, spaces and punctuation: "
                               "no control or invisible characters")
        if self.characters is not None:
            if not all(isinstance(c, str) for c in self.characters):  # set() needs hashables
                raise BadSetup("characters are given by their names")
            if len(self.characters) != n or len(set(self.characters)) != n:
                raise BadSetup("choose one different character for each seat")
            bad = [c for c in self.characters if c not in CHARACTERS]
            if bad:
                raise BadSetup(f"unknown characters: {bad}")
            extra = [c for c in self.characters if CHARACTERS[c].expansion]
            if extra and not self.expansion:
                raise BadSetup(f"{', '.join(extra)} play only with Shadow Corporation")
        if self.final_event is not None and (not isinstance(self.final_event, str)
                                             or self.final_event not in FINAL_EVENTS):
            raise BadSetup(f"unknown final event {self.final_event!r}")
        if self.final_event and FINAL_EVENTS[self.final_event].expansion \
                and not self.expansion:
            raise BadSetup(f"{self.final_event} is a Shadow Corporation final event")
        for v in self.variants:
            if not isinstance(v, str) or v not in VARIANTS + EXPANSIONS:
                raise BadSetup(f"unknown variant {v!r}")
            if n < MIN_PLAYERS_FOR.get(v, 0):
                raise BadSetup(f"{v} needs at least {MIN_PLAYERS_FOR[v]} players")
        if len(set(self.variants)) != len(self.variants):
            raise BadSetup("a variant is listed twice")
        for module in NEEDS_EXPANSION:
            if module in self.variants and not self.expansion:
                raise BadSetup(f"{module} is a Shadow Corporation module: add the expansion")

    @property
    def expansion(self) -> bool:
        return SHADOW_CORPORATION in self.variants


def build(setup: Setup, ctx: Ctx) -> Game:
    n = len(setup.names)
    chance, expansion = ctx.chance, setup.expansion
    characters = deal_characters(setup, chance)
    statuses = deal_statuses(n, setup.variants, chance)
    seats = [Seat(name, character, status)
             for name, character, status in zip(setup.names, characters, statuses)]
    g = Game(players=n, variants=frozenset(setup.variants), deck_colour=TASK_DECK_FOR[n],
             seats=seats, outpost_pile=outpost_tokens(expansion),
             fatigue_pile=(fatigue_pool(characters, chance) if expansion
                           else list(FATIGUE_TOKENS)))
    if expansion:
        g.evacuation = EVACUATION_START
    g.pool = {c: DICE_IN_BOX[c] - sum(s.dice[c] for s in seats) for c in DICE_IN_BOX}
    g.spent = {c: 0 for c in DICE_IN_BOX}
    ctx.fact("game_set_up", names=list(setup.names), characters=characters,
             variants=sorted(setup.variants))
    for seat, status in enumerate(statuses):
        ctx.fact("status_dealt", to=[seat], seat=seat, status=status)
    if "telepathic_infected" in setup.variants:
        team = [i for i, s in enumerate(seats) if s.infected]  # never the Company Man
        ctx.fact("infected_team", to=team, seats=team)
    for _ in range(2):  # two outpost tokens take effect at once (RB setup)
        place_one(g, ctx, OUTPOST)
    # Fatigue tokens are drawn until one matches a character in play; Daniel has none.
    for token in chance.shuffle(list(g.fatigue_pile)):
        if token in characters:
            g.commander = characters.index(token)
            break
    g.pool[COMMANDER] -= 1
    g.seats[g.commander].dice[COMMANDER] = 1
    ctx.fact("commander", seat=g.commander, previous=None)
    g.final_event = setup.final_event or chance.pick(available(FINAL_EVENTS, expansion))
    ctx.fact("final_event", card=g.final_event)
    g.task_deck = chance.shuffle(task_cards(n, expansion))
    g.event_deck = chance.shuffle(event_cards(setup.variants))
    # RB setup 15: "The player to the left of the Commander will be the start player": the
    # board marks them from now, while the commander still places the first event.
    g.active = g.left_of(g.commander)
    push(g, ("draw_events", {}), ("turn_start", {"seat": g.active}))
    run(g, ctx)
    return g



# --- what a dealt game is made of: shared with a game begun from a position (position.py) ---

def deal_characters(setup: Setup, chance) -> list:
    """The setup's characters, or as many dealt at random from the game's own."""
    if setup.characters:
        return list(setup.characters)
    return chance.shuffle(available(CHARACTERS, setup.expansion))[:len(setup.names)]


def deal_statuses(n: int, variants, chance) -> list:
    """One status card per seat, in seat order. Unused infected cards go back to the box
    unseen (RB setup step 12); Shadow Corporation adds the Clearance card to them, and the
    Company Man module draws the Uninfected cards from the seven and his (facts §8b.7)."""
    infected, uninfected = STATUS_COUNTS[n]
    expansion = SHADOW_CORPORATION in variants
    cards = list(INFECTED_CARDS) + ([INFECTED_CLEARANCE] if expansion else [])
    chosen = chance.shuffle(cards)[:infected]
    if COMPANY_MAN_MODULE in variants:
        chosen += chance.shuffle([UNINFECTED] * UNINFECTED_CARDS + [COMPANY_MAN])[:uninfected]
    else:
        chosen += [UNINFECTED] * uninfected
    return [str(status) for status in chance.shuffle(chosen)]  # the state holds strings


def status_cards(variants) -> tuple:
    """The status cards a game may deal (a position names its seats' among them)."""
    expansion = SHADOW_CORPORATION in variants
    return (INFECTED_CARDS + ((INFECTED_CLEARANCE,) if expansion else ()) + (UNINFECTED,)
            + ((COMPANY_MAN,) if COMPANY_MAN_MODULE in variants else ()))


def outpost_tokens(expansion: bool) -> list:
    """The six outpost tokens; Shadow Corporation adds the Evac Ship (facts §7)."""
    return list(OUTPOST_TOKENS) + ([EVAC_SHIP] if expansion else [])


def task_cards(n: int, expansion: bool) -> list:
    """The task deck at setup: Voluntary Blood Testing is out at 3-4 players (RB setup
    chart); Shadow Corporation adds its two complications. The Evacuation Failure card
    waits for the Final Event (facts §8b.5)."""
    return [t for t in available(TASKS, expansion)
            if not (n <= 4 and t == SMALL_GAME_REMOVED) and t != EVACUATION_FAILURE]


def event_cards(variants) -> list:
    """The event deck: Shadow Corporation adds its ten; Vote Tampering is left out with
    Expensive Voting, which it would only repeat (facts §6a)."""
    events = available(EVENTS, SHADOW_CORPORATION in variants)
    if "expensive_voting" in variants:
        events = [e for e in events if e != "vote_tampering"]
    return events


def fatigue_pool(characters: list, chance, placed=()) -> list:
    """Shadow Corporation: a token for each character in play that has one, padded to six
    with tokens of characters not in play (ESOG Setup: "If necessary, add any additional
    fatigue tokens so that the pool has a total of 6 tokens"). `placed`: tokens a position
    has on the board already, which the pool must hold."""
    own = [c for c in characters if CHARACTERS[c].has_fatigue_token]
    own += [c for c in placed if c not in own]
    spare = [c for c in available(CHARACTERS, True)
             if CHARACTERS[c].has_fatigue_token and c not in own]
    return sorted(own + chance.shuffle(spare)[:max(0, FATIGUE_POOL - len(own))])
