"""The game's components as data: dice, characters, status cards, tokens, tasks and events.

Each table follows ../shared/darkmoon-facts.md; a correction there is a one-line change here.
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

# Dice faces (facts §1). Every colour has three -2, one -1 and two positive faces, which is
# why a shield test's chance does not depend on the colour rolled.
STRONG, WEAK, COMMANDER = "strong", "weak", "commander"
CORPORATION = "corporation"  # Shadow Corporation's yellow dice: never held, never voted with
FACES = {
    STRONG: (-2, -2, -2, -1, 2, 4),
    WEAK: (-2, -2, -2, -1, 1, 3),
    COMMANDER: (-2, -2, -2, -1, 3, 5),
    CORPORATION: (0, -1, -1, -2, -2, -3),
}
DICE_IN_BOX = {STRONG: 14, WEAK: 14, COMMANDER: 1}
BASE_DIE_LIMIT = 4
REVEALED_DIE_LIMIT = 2
QUARANTINE_PENALTY = 2

# Damage kinds; six of any one ends the game for the Infected (RB "How to win").
SHIELD, OUTPOST, FATIGUE = "shield", "outpost", "fatigue"
DAMAGE_KINDS = (SHIELD, OUTPOST, FATIGUE)
TOKENS_TO_LOSE = 6

# Repair areas share their names with the damage kinds they repair.
AREAS = DAMAGE_KINDS

# Outpost tokens and the action each one blocks (RB "Outpost malfunction").
OUTPOST_TOKENS = ("shield_control", "life_support", "research_lab", "communications",
                  "hangar_bay", "command")
# Shadow Corporation's seventh outpost token (facts §7): it blocks clearance and take-off
# votes. Six tokens on the board still end the game.
EVAC_SHIP = "evac_ship"
BLOCKED_BY = {
    "shield_control": "repair_shield",
    "life_support": "repair_life_support",
    "research_lab": "vote",
    "communications": "order",
    "hangar_bay": "lone_wolf",
}


@dataclass(frozen=True, slots=True)
class Character:
    id: str
    name: str
    has_fatigue_token: bool = True
    expansion: bool = False


CHARACTERS = {c.id: c for c in (
    Character("jon", "Jon Reed"),
    Character("luba", "Luba Zheleznyak"),
    Character("chaya", "Chaya"),
    Character("michihiro", "Michihiro Tomoko"),
    Character("enver", "Enver Ganon"),
    Character("steve", "Steve Townsend"),
    # Daniel has no fatigue token: never fatigued, never the starting commander (facts §4).
    Character("daniel", "Daniel", has_fatigue_token=False),
    # Shadow Corporation (facts §4): Serene rolls 3 corporation dice as active player; Lincoln
    # decides one clearance vote himself, once a game.
    Character("serene", "Serene", expansion=True),
    Character("lincoln", "Lincoln", expansion=True),
)}
# The base game's six fatigue tokens; a Shadow Corporation game builds its own pool.
FATIGUE_TOKENS = tuple(c.id for c in CHARACTERS.values()
                       if c.has_fatigue_token and not c.expansion)
FATIGUE_POOL = 6  # the expansion pads the pool to six with spare tokens (ESOG Setup)
# Characters whose own repair of an area returns a die from the pool (facts §4).
REPAIR_RETRIEVERS = {"steve": SHIELD, "enver": OUTPOST, "michihiro": FATIGUE}

class Status(StrEnum):
    """The status cards (RB setup chart): each seat's secret, which the rules compare. Each
    equals its id, the string the state, the log and the views hold (state.py)."""
    UNINFECTED = "uninfected"
    INFECTED_SHIELDS = "infected_shields"  # three infected cards exist (facts rulings)
    INFECTED_OUTPOST = "infected_outpost"
    INFECTED_LIFE_SUPPORT = "infected_life_support"
    INFECTED_CLEARANCE = "infected_clearance"  # Shadow Corporation's fourth infected card
    # The Company Man module's card: a third side, neither Infected nor Uninfected. It joins
    # the 4 base and 3 extra Uninfected cards; the Uninfected count is drawn from the 8
    # (facts §8b.7).
    COMPANY_MAN = "company_man"


UNINFECTED = Status.UNINFECTED
INFECTED_CARDS = (Status.INFECTED_SHIELDS, Status.INFECTED_OUTPOST, Status.INFECTED_LIFE_SUPPORT)
INFECTED_CLEARANCE = Status.INFECTED_CLEARANCE
COMPANY_MAN = Status.COMPANY_MAN
UNINFECTED_CARDS = 7
STATUS_COUNTS = {3: (1, 2), 4: (1, 3), 5: (2, 3), 6: (2, 4), 7: (3, 4)}  # (infected, uninfected)
TASK_DECK_FOR = {3: "silver", 4: "black", 5: "silver", 6: "black", 7: "silver"}
BLACK_DECK_BONUS = 2  # a model of the black deck (facts §6c)

class TaskKind(StrEnum):
    """The kinds of task card, which the turn compares as it draws and plays them."""
    MALFUNCTION = "malfunction"
    COMPLICATION = "complication"
    # Shadow Corporation's Evacuation Failure card: shuffled into the final event's task
    # deck, revealed by whoever draws it (facts §6c, §8b.5).
    RECALL = "recall"


MALFUNCTION, COMPLICATION, RECALL = TaskKind.MALFUNCTION, TaskKind.COMPLICATION, TaskKind.RECALL
EVACUATION_FAILURE = "evacuation_failure"
UNKNOWN = "unknown"  # the ????????? malfunction: the active player names the type


@dataclass(frozen=True, slots=True)
class Task:
    id: str
    kind: TaskKind
    suspicious: bool
    type: str | None = None        # malfunctions: shield, outpost, fatigue or unknown
    difficulty: int = 0            # silver-deck value
    consequence: int = 0
    bonus: bool = False
    evacuate: bool = False         # Shadow Corporation's EVACUATE marker
    expansion: bool = False        # only in Shadow Corporation's decks


def _malfunction(id_, type_, difficulty, consequence, suspicious, bonus, evacuate=False):
    return Task(id_, MALFUNCTION, suspicious, type_, difficulty, consequence, bonus, evacuate)


TASKS = {t.id: t for t in (
    _malfunction("unknown_6", UNKNOWN, 6, 2, True, False),
    _malfunction("unknown_8", UNKNOWN, 8, 1, False, False, True),
    _malfunction("shield_5", SHIELD, 5, 2, False, False),
    _malfunction("shield_6", SHIELD, 6, 3, True, True),
    _malfunction("shield_7", SHIELD, 7, 1, True, False),
    _malfunction("shield_8", SHIELD, 8, 2, True, True, True),
    _malfunction("outpost_3", OUTPOST, 3, 2, True, False),
    _malfunction("outpost_4", OUTPOST, 4, 3, True, True, True),
    _malfunction("outpost_5", OUTPOST, 5, 1, False, False),
    _malfunction("outpost_6", OUTPOST, 6, 2, True, True),
    _malfunction("life_support_4", FATIGUE, 4, 2, True, False),
    _malfunction("life_support_5", FATIGUE, 5, 3, False, True),
    _malfunction("life_support_6", FATIGUE, 6, 1, True, False, True),
    _malfunction("life_support_7", FATIGUE, 7, 2, True, True),
    Task("acceptable_loss", COMPLICATION, False, evacuate=True),
    Task("act_of_trust_outpost", COMPLICATION, False, evacuate=True),
    Task("act_of_trust_shield", COMPLICATION, True),
    Task("failure_to_lead", COMPLICATION, True, evacuate=True),
    Task("mandatory_quarantine", COMPLICATION, False),
    Task("strategic_compromise", COMPLICATION, True),
    Task("voluntary_blood_testing", COMPLICATION, True, evacuate=True),
    Task("cut_it_off", COMPLICATION, False, expansion=True),
    Task("vote_for_clearance", COMPLICATION, False, expansion=True),
    Task(EVACUATION_FAILURE, RECALL, False, expansion=True),
)}
SMALL_GAME_REMOVED = "voluntary_blood_testing"  # removed at 3-4 players (RB setup chart)

AT_START, DURING, ON_COMPLETION = "at_start", "during", "on_completion"


@dataclass(frozen=True, slots=True)
class EventCard:
    id: str
    cubes: int
    timing: str
    final: bool = False
    expansion: bool = False


EVENTS = {e.id: e for e in (
    EventCard("blood_testing", 3, ON_COMPLETION),
    EventCard("divert_power", 2, ON_COMPLETION),
    EventCard("food_rationing", 3, DURING),
    EventCard("jerry_rig_shields", 3, DURING),
    EventCard("lockdown", 2, ON_COMPLETION),
    EventCard("pass_command", 3, ON_COMPLETION),
    EventCard("reboot_shields", 2, ON_COMPLETION),
    EventCard("recovery", 2, AT_START),
    EventCard("repair_tools", 2, DURING),
    EventCard("rescue_crewman", 2, ON_COMPLETION),
    EventCard("restore_comm", 3, ON_COMPLETION),
    EventCard("resupply", 4, ON_COMPLETION),
    EventCard("salvage_parts", 3, ON_COMPLETION),
    EventCard("system_crash", 2, ON_COMPLETION),
    EventCard("system_reboot", 1, ON_COMPLETION),
    EventCard("tactical_prep", 4, ON_COMPLETION),
    # Shadow Corporation (facts §6a)
    EventCard("accelerated_evac", 3, ON_COMPLETION, expansion=True),
    EventCard("accident", 2, ON_COMPLETION, expansion=True),
    EventCard("corporate_bribery", 2, DURING, expansion=True),
    EventCard("corporate_raid", 2, DURING, expansion=True),
    EventCard("electrical_fire", 2, ON_COMPLETION, expansion=True),
    EventCard("electrical_storm", 4, DURING, expansion=True),
    EventCard("evac_lottery", 3, ON_COMPLETION, expansion=True),
    EventCard("hold_trials", 3, ON_COMPLETION, expansion=True),
    EventCard("risk_assessment", 2, ON_COMPLETION, expansion=True),
    EventCard("vote_tampering", 3, DURING, expansion=True),
)}
FINAL_EVENTS = {e.id: e for e in (
    EventCard("protect_codes", 3, ON_COMPLETION, final=True),
    EventCard("last_stand", 3, AT_START, final=True),
    EventCard("await_rescue", 3, DURING, final=True),
    EventCard("escape", 3, DURING, final=True),
    EventCard("find_cure", 3, DURING, final=True),
    EventCard("blackout", 2, DURING, final=True),
    EventCard("explosions", 3, DURING, final=True, expansion=True),
    EventCard("toxic_gas", 3, AT_START, final=True, expansion=True),
)}
# Final events that make every damage of one kind one token worse (facts §6b).
EXTRA_DAMAGE = {"await_rescue": SHIELD, "escape": OUTPOST, "find_cure": FATIGUE}
BLACKOUT_DIFFICULTY = 2
EVENTS_BEFORE_FINAL = 3
SYSTEM_REBOOT_DRAWS, SYSTEM_REBOOT_MAX_OF_A_KIND = 5, 3
SUSPICION_START, SUSPICION_VOTE = 1, 4

# The eleven rulebook variants (RB "Variant rules").
VARIANTS = (
    "expensive_voting", "first_is_last", "flimsy_quarantine", "telepathic_infected",
    "deadly_events", "no_more_complications",
    "nerfed_reveal_extreme", "nerfed_reveal_normal", "safe_orders", "fatigued_infected",
    "costly_actions",
)
MIN_PLAYERS_FOR = {"telepathic_infected": 5}

# The Shadow Corporation expansion, asked for among a setup's variants (facts §8b).
SHADOW_CORPORATION = "shadow_corporation"
COMPANY_MAN_MODULE = "company_man_module"   # the status is "company_man"
THREATS_MODULE = "threats_module"
EXPANSIONS = (SHADOW_CORPORATION, COMPANY_MAN_MODULE, THREATS_MODULE)
NEEDS_EXPANSION = (COMPANY_MAN_MODULE, THREATS_MODULE)  # played only with the expansion
# The threat cards and as many tokens of each (ESOG: Act Recklessly x2, Isolate Specimen x1,
# Retrieve Sample x3, Exposure x1), and the wild tokens (facts §8b.8).
THREAT_CARDS = {"act_recklessly": 2, "isolate_specimen": 1, "retrieve_sample": 3,
                "exposure": 1}
WILD_TOKENS = 4
# Seats on the evacuation clearance board (ESOG Vote for clearance).
CLEARANCE_SEATS = {3: 1, 4: 2, 5: 2, 6: 3, 7: 3}
EVACUATION_START, EVACUATION_VOTE = 1, 4  # the evacuation vote track (facts §8b.2)
CORPORATION_ROLL, SERENE_ROLL, RAID_ROLL, RAID_SUBMIT = 2, 3, 3, 2
MIN_PLAYERS, MAX_PLAYERS = 3, 7


def available(table: dict, expansion: bool) -> list[str]:
    """The ids of a card table (or the characters) a game uses, sorted: the base game's, or
    with Shadow Corporation its cards too."""
    return sorted(k for k, v in table.items() if expansion or not v.expansion)
