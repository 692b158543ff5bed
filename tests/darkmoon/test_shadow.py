"""Shadow Corporation (issue 13): one test per rule, card, character and power of the
expansion, each quoting the passage it checks.

ESOG = the summary, rules/darkmoon-summary-with-shadow-corporation.txt (the Shadow
Corporation pages); facts = darkmoon-facts.md, whose §8b rulings fill what ESOG leaves open.
"""
import json
import random

import pytest

from companion.darkmoon import (HOST, BadSetup, IllegalOption, Setup, play, replay, seat_view,
                                start)
from companion.darkmoon.data import (CLEARANCE_SEATS, EVAC_SHIP, EVACUATION_FAILURE, EVENTS,
                                     INFECTED_CLEARANCE, OUTPOST_TOKENS, TASKS)
from companion.darkmoon.views import public_view

from .position import NAMES, Table, held, put

SC = ("shadow_corporation",)
INFECTED = "infected_shields"


def shadow(characters=("jon", "luba", "michihiro"), **kw) -> Table:
    return Table(characters, variants=SC + tuple(kw.pop("variants", ())), **kw)


def all_out(t, *seats):
    for seat in seats:
        t.do(seat, "participation", "out")


# --- setup ---------------------------------------------------------------------------

@pytest.mark.parametrize("n", range(3, 8))
def test_setup_adds_the_expansions_components(n):
    """ESOG SETUP: "Add the new outpost token to the pool of outpost tokens. Replace the
    original task decks with the new task decks"; "place the blue evacuation cube on the first
    spot on the track ... the evacuation clearance board, Refueling – Not Ready for Takeoff
    side faceup". Clearance board: "3 players: 1 ... 4 or 5 players: 2 ... 6 or 7 players: 3"."""
    g = replay(start(Setup(NAMES[:n], variants=SC), random.Random(n)))
    assert sorted(g.outpost_board + g.outpost_pile) == sorted(OUTPOST_TOKENS + (EVAC_SHIP,))
    deck = set(g.task_deck)
    assert {"cut_it_off", "vote_for_clearance"} <= deck and EVACUATION_FAILURE not in deck
    assert len(g.task_deck) == (23 if n >= 5 else 22)
    assert g.evacuation == 1 and g.clearances == [] and not g.refuelled
    assert public_view(g)["evacuation"]["seats"] == CLEARANCE_SEATS[n] == {
        3: 1, 4: 2, 5: 2, 6: 3, 7: 3}[n]


def test_the_fatigue_pool_is_built_from_the_characters_in_play():
    """ESOG SETUP: "Build the fatigue pool by adding a fatigue token matching each character
    in play (except David [Daniel, facts §4]) to the pool. If necessary, add any additional
    fatigue tokens so that the pool has a total of 6 tokens." """
    chars = ("serene", "lincoln", "jon")
    g = replay(start(Setup(NAMES[:3], chars, variants=SC), random.Random(1)))
    pool = g.fatigue_board + g.fatigue_pile
    assert len(pool) == 6 and set(chars) <= set(pool)
    seven = ("serene", "lincoln", "jon", "luba", "chaya", "michihiro", "enver")
    g = replay(start(Setup(NAMES[:7], seven, variants=SC), random.Random(1)))
    assert sorted(g.fatigue_board + g.fatigue_pile) == sorted(seven)  # 7 tokens, no padding
    assert g.seats[g.commander].character in seven


def test_the_expansions_cards_need_the_expansion():
    """ESOG SETUP: "Add the new character, final event cards, event, and infected status
    cards to their respective decks": only when Shadow Corporation is played."""
    with pytest.raises(BadSetup):
        Setup(NAMES[:3], ("serene", "jon", "luba")).validate()
    with pytest.raises(BadSetup):
        Setup(NAMES[:3], final_event="toxic_gas").validate()
    base = [replay(start(Setup(NAMES[:7]), random.Random(s))) for s in range(20)]
    assert not any(g.evacuation is not None or INFECTED_CLEARANCE in
                   [x.status for x in g.seats] or "cut_it_off" in g.task_deck for g in base)
    dealt = {s.status for seed in range(40) for s in replay(start(
        Setup(NAMES[:7], variants=SC), random.Random(seed))).seats}
    assert INFECTED_CLEARANCE in dealt


def test_vote_tampering_is_left_out_with_expensive_voting():
    """facts §6a: Vote Tampering "is left out when the Expensive Voting variant is on"."""
    g = replay(start(Setup(NAMES[:5], variants=SC + ("expensive_voting",)), random.Random(2)))
    assert "vote_tampering" not in g.event_deck + [g.event] + g.event_drawn
    g = replay(start(Setup(NAMES[:5], variants=SC), random.Random(2)))
    assert "vote_tampering" in g.event_deck + g.event_drawn


# --- corporation dice ----------------------------------------------------------------

def test_corporation_dice_are_rolled_in_secret_and_one_is_shown():
    """ESOG CHOOSE A TASK CARD: "After the active player has chosen a task card, they must
    secretly roll 2 of the yellow corporation dice and publicly submit one. If the number is
    negative, shift the black success cube backwards on the track (discard the second die
    without anyone seeing it)." """
    t = shadow()
    t.fix(-3, -1)
    t.task("outpost_5", active=0)
    assert t.waits("corporation", 0) == [("submit", 0), ("submit", 1)]
    assert seat_view(t.g, 0)["you"]["corporation"] == [-3, -1]
    for other in (1, 2):
        assert seat_view(t.g, other)["you"]["corporation"] == []
        assert "[-3, -1]" not in json.dumps(seat_view(t.g, other))
    t.do(0, "corporation", "submit", 1)
    assert t.g.task.success_total == -1 and t.g.task.corporation == [-1]
    assert t.g.corporation == []
    (unseen,) = t.facts_of("corporation_unseen")
    assert unseen["faces"] == [-3] and unseen["to"] == []  # shown to nobody until game over
    (rolled,) = t.facts_of("corporation_rolled")
    assert rolled["to"] == [0]
    t.waits("participation", 0)


def test_serene_rolls_three_corporation_dice():
    """facts §4: Serene, "As active player, rolls 3 corporation dice instead of 2 (still
    submits 1)"."""
    t = shadow(("serene", "luba", "jon"))
    t.fix(0, -2, -3)
    t.task("shield_5", active=0)
    assert len(t.waits("corporation", 0)) == 3
    t.do(0, "corporation", "submit", 0)
    assert t.g.task.success_total == 0


def test_luba_may_reroll_her_corporation_dice_once_a_turn():
    """facts §8 q6 "Can Luba reroll corporation dice? [NMWS offers it]" and §8b.10 "Luba may
    reroll corporation dice"; RB Luba: "When she is the active player, Luba may reroll all
    of her dice once, rather than submit one." Her reroll is spent for the turn."""
    t = shadow(("luba", "jon", "michihiro"))
    t.fix(-3, -2, 0, -1)
    t.task("outpost_5", active=0)
    assert t.waits("corporation", 0) == [("submit", 0), ("submit", 1), ("reroll",)]
    t.do(0, "corporation", "reroll")
    assert t.g.luba_reroll_used and t.facts_of("corporation_rerolled") == [
        {"k": "corporation_rerolled", "seat": 0}]
    assert t.facts_of("corporation_unseen")[0]["faces"] == [-3, -2]  # never shown
    assert seat_view(t.g, 0)["you"]["corporation"] == [0, -1]
    assert t.waits("corporation", 0) == [("submit", 0), ("submit", 1)]  # once a turn
    t.do(0, "corporation", "submit", 0)
    assert t.g.task.success_total == 0
    other = shadow(("jon", "luba", "michihiro"))  # only Luba, and only as active player
    other.fix(-3, -2)
    other.task("outpost_5", active=0)
    assert ("reroll",) not in other.waits("corporation", 0)


def test_corporate_raid_and_electrical_storm():
    """facts §1: "During the Corporate Raid event: roll 3, submit 2 ... During Electrical
    Storm: no corporation dice are rolled." """
    t = shadow(event="corporate_raid")
    t.fix(-1, -2, 0)
    t.task("shield_5", active=0)
    options = t.waits("corporation", 0)
    assert all(len(o) == 3 for o in options) and len(options) == 3
    t.do(0, "corporation", "submit", 0, 2)
    assert t.g.task.success_total == -1
    t = shadow(event="electrical_storm")
    t.task("shield_5", active=0)
    t.waits("participation", 0)
    assert [f["rule"] for f in t.facts_of("ruled")] == ["electrical_storm"]


def test_complications_roll_no_corporation_dice():
    """facts §8b.1: "[Only malfunctions roll them, as their first submission; complications
    do not.]" """
    t = shadow()
    t.task("mandatory_quarantine", active=0)
    assert t.pending.kind == "vote_target" and not t.facts_of("corporation_rolled")


def test_corporate_bribery_makes_every_minus_one_count_minus_two():
    """facts §6a Corporate Bribery: "Every submitted −1 counts as −2"; §8b.1: the
    corporation dice too."""
    t = shadow(event="corporate_bribery")
    t.fix(-1, -3)
    t.task("outpost_5", active=0)
    t.do(0, "corporation", "submit", 0)
    assert t.g.task.success_total == -2
    t.do(0, "participation", "in")
    t.fix(-1, 2, -2, 3, -2)  # strong, strong, weak, weak, commander
    all_out(t, 1, 2)
    t.submit(0, -1)
    assert t.g.task.success_total == -4


# --- amputation ----------------------------------------------------------------------

def test_amputation_vote_red_amputates_for_good():
    """ESOG Vote for amputation: "A red weak die is a vote to amputate ... they receive an
    amputation token which permanently reduces their die limit by 1. This is permanent, even
    if they reveal themselves to be infected. A revealed infected player with an amputation
    token will only ever have a die limit of 1." """
    t = shadow(infected={1: INFECTED})
    t.turn(0)
    t.do(0, "action", "amputate", 1)
    assert t.pending.data["kind"] == "amputation"
    t.vote({0: "weak", 1: "strong", 2: "weak"})
    assert t.g.seats[1].amputated and t.g.die_limit(1) == 3
    t.waits("discard", 1)  # four dice, a limit of three
    t.do(1, "discard", "discard", 1, 0, 0)
    t.g.seats[1].revealed = True
    assert t.g.die_limit(1) == 1


def test_amputation_targets_another_unrevealed_unamputated_player():
    """ESOG: "You may choose to call an amputation vote on another player ... You can call an
    amputation vote on a quarantined player, but you cannot call one on a revealed infected
    player. A player can only ever receive 1 amputation token." """
    t = shadow(("jon", "luba", "michihiro", "chaya"), infected={3: INFECTED})
    t.g.seats[1].quarantined = True
    t.g.seats[2].amputated = True
    t.g.seats[3].revealed = True
    t.turn(0)
    options = t.waits("action", 0)
    assert [o for o in options if o[0] == "amputate"] == [("amputate", 1)]


# --- clearance -----------------------------------------------------------------------

def test_clearance_vote_black_clears_and_a_failed_vote_revokes():
    """ESOG Vote for clearance: "Every black strong die is a vote to clear them ... If the
    vote is successful and the player has not already been cleared, place their evacuation
    clearance token on the evacuation clearance board. If the vote fails and the player
    already had their token on the board, place it back in the evacuation pool." """
    t = shadow(("jon", "luba", "michihiro", "chaya"))
    t.turn(0)
    t.do(0, "action", "clearance", 2)
    t.vote({0: "strong", 1: "strong", 2: "weak", 3: "abstain"})
    assert t.g.clearances == [2]
    t.turn(1)
    t.do(1, "action", "clearance", 2)
    t.vote({0: "weak", 1: "weak", 2: "strong", 3: "abstain"})
    assert t.g.clearances == []


def test_a_full_clearance_board_allows_votes_only_on_cleared_players():
    """ESOG: "If the evacuation clearance board is full ... you can only call a clearance
    vote on a player that already has their evacuation clearance token on the board. You
    cannot call a clearance vote on a player in quarantine." """
    t = shadow()                 # 3 players: one seat on the board
    t.g.clearances = [1]
    t.g.seats[2].quarantined = True
    t.turn(0)
    assert [o for o in t.waits("action", 0) if o[0] == "clearance"] == [("clearance", 1)]


def test_quarantine_and_reveal_take_the_clearance_away():
    """ESOG: "If a player already cleared to evacuate is later quarantined, return their
    evacuation clearance token to the evacuation pool"; facts §8b.6: "A cleared player who
    reveals as Infected loses the clearance"."""
    t = shadow(("jon", "luba", "michihiro", "chaya"), infected={3: INFECTED})
    t.g.clearances = [1, 3]
    t.turn(0)
    t.do(0, "action", "vote", 1)
    t.vote({0: "weak", 1: "weak", 2: "weak", 3: "abstain"})
    assert t.g.clearances == [3]
    t.turn(3)
    t.do(3, "action", "reveal")
    assert t.g.clearances == []


def test_evac_ship_and_research_lab_block_the_new_votes():
    """facts §8b.4: "the Research Lab token blocks them as it blocks Call Vote ... Evac Ship
    (the 7th outpost token) also blocks clearance and take-off." facts §7: "Evac Ship, which
    blocks clearance and take-off votes"."""
    t = shadow()
    put(t, "outpost", EVAC_SHIP)
    t.turn(0)
    blocked = dict(t.g.pending.blocked[0])
    assert blocked[("clearance", 1)] == "blocked_by:evac_ship"
    assert ("amputate", 1) in t.waits("action", 0)
    put(t, "outpost", "research_lab")
    t.turn(0)
    blocked = dict(t.g.pending.blocked[0])
    assert blocked[("amputate", 1)] == "blocked_by:research_lab"


def test_lincoln_decides_one_clearance_vote_himself():
    """facts §4 Lincoln: "Once per game, instead of a clearance vote being counted, decides
    its outcome himself (approve or deny)." """
    t = shadow(("lincoln", "luba", "jon"))
    t.turn(1)
    t.do(1, "action", "clearance", 2)
    assert t.waits("lincoln", 0) == [("decide", "clear"), ("decide", "deny"), ("count",)]
    t.do(0, "lincoln", "decide", "clear")
    assert t.g.clearances == [2] and t.g.lincoln_used
    t.g.clearances = []
    t.turn(2)
    t.do(2, "action", "clearance", 1)
    assert t.pending.kind == "vote"  # once a game: now the votes are counted


# --- take-off and refuelling ---------------------------------------------------------

def test_no_take_off_until_the_first_full_round_is_over():
    """ESOG Refueling: "During the first full round of the game, the evacuation ship cannot
    take off ... When every player has had one turn and the active player token has returned
    to the initial start player, discard the refueling card"."""
    g = replay(start(Setup(NAMES[:3], variants=SC), random.Random(3)))
    g.clearances = [0]
    g.outpost_pile += g.outpost_board  # nothing blocks a vote: only the refuelling
    g.outpost_board = []
    from companion.tools.simulate import helpful_choice
    from companion.darkmoon import Chance, Ctx, play
    rng = random.Random(3)
    seen_blocked = False
    while g.turn <= 3 and g.outcome is None:
        p = g.pending
        if p.kind == "action" and g.turn >= 1:
            seen_blocked |= dict(p.blocked[p.seats[0]]).get(("takeoff",)) == "refuelling"
        seat, command = helpful_choice(g, rng)
        if command["option"] == ["takeoff"]:
            command = {"decision": "action", "option": ["pass"]}
        play(g, seat, command, Ctx(Chance(rng=rng)))
    assert seen_blocked
    if g.outcome is None:
        assert g.turn == 4 and g.refuelled


@pytest.mark.parametrize("aboard_infected, winner, condition", [
    (False, "uninfected", "evacuated"), (True, "infected", "infected_aboard")])
def test_take_off_ends_the_game_and_the_passengers_decide_it(aboard_infected, winner,
                                                            condition):
    """ESOG Evacuation: "If the evacuation ship takes off, the game immediately ends ...
    If all players are uninfected, the uninfected team wins. If only a single infected player
    made it onto the ship, the infected team wins." """
    t = shadow(infected={1: INFECTED} if aboard_infected else {2: INFECTED})
    t.g.clearances, t.g.refuelled = [1], True
    t.turn(0)
    t.do(0, "action", "takeoff")
    t.vote({0: "strong", 1: "strong", 2: "weak"})
    assert (t.g.outcome.winner, t.g.outcome.condition) == (winner, condition)
    (took_off,) = t.facts_of("took_off")
    assert took_off["seats"] == [1]


def test_take_off_needs_a_full_board():
    """ESOG Vote to take off: "If the evacuation clearance board has filled, you may call a
    vote for the evacuation ship to take off." """
    t = shadow(("jon", "luba", "michihiro", "chaya"))   # 4 players: two seats
    t.g.clearances, t.g.refuelled = [1], True
    t.turn(0)
    assert dict(t.g.pending.blocked[0])[("takeoff",)] == "clearance_board_not_full"


# --- the evacuation track ------------------------------------------------------------

def test_evacuate_tasks_move_the_cube_and_force_a_vote():
    """ESOG Forced clearance and take off votes: "Whenever an !!!EVACUATE EVACUATE!!! task card
    is played, move the evacuation cube 1 space forward ... regardless of whether the task
    succeeded or failed. When the cube reaches the last space, the active player must call
    either a clearance vote or (if ship is ready for takeoff) a take off vote"."""
    t = shadow()
    assert TASKS["acceptable_loss"].evacuate and not TASKS["acceptable_loss"].suspicious
    t.g.evacuation = 3
    t.task("acceptable_loss", active=0)
    t.do(0, "damage_kind", "outpost")
    assert t.g.evacuation == 4
    assert t.waits("evacuation_vote", 0) == [("clearance", 0), ("clearance", 1),
                                             ("clearance", 2)]
    t.do(0, "evacuation_vote", "clearance", 1)
    t.vote({0: "strong", 1: "strong", 2: "strong"})
    assert t.g.clearances == [1] and t.g.evacuation == 1


def test_both_forced_votes_due_the_active_player_picks_the_order():
    """ESOG: "If a forced quarantine and clearance/take off vote both occur on the same turn,
    the active player chooses the order of voting." """
    t = shadow()
    assert TASKS["failure_to_lead"].evacuate and TASKS["failure_to_lead"].suspicious
    t.g.evacuation, t.g.suspicion = 3, 3
    t.g.commander = 1
    t.task("failure_to_lead", active=0)
    t.do(0, "choose_player", "player", 2)
    t.do(1, "agree", "agree")
    assert t.waits("vote_order", 0) == [("suspicion",), ("evacuation",)]
    t.do(0, "vote_order", "evacuation")
    t.waits("evacuation_vote", 0)


# --- the Evacuation Failure card ------------------------------------------------------

def test_evacuation_failure_joins_the_final_deck_and_recalls_the_ship():
    """ESOG: "Add the evacuation failure card ... The player who draws the evacuation failure
    card must immediately reveal it. Discard the evacuation clearance and evacuation vote
    boards ... as well as any clearance tokens. Players may no longer call clearance or take
    off votes, and ignore !!!EVACUATE EVACUATE!!!"; facts §8b.5: the drawer draws again."""
    t = shadow(event="tactical_prep")
    t.g.completed_events = ["lockdown", "divert_power"]
    t.g.event_cubes = 3
    t.g.clearances = [2]
    t.go(("add_event_cube", {}), ("turn_start", {"seat": 1}))
    assert t.g.final_active and EVACUATION_FAILURE in t.g.task_deck
    t.stack_tasks(EVACUATION_FAILURE, "shield_5", "outpost_5")
    t.g.stack = []
    t.go(("task_phase", {}))
    assert t.g.evacuation is None and t.g.clearances == []
    assert sorted(t.g.task_drawn) == ["outpost_5", "shield_5"]
    assert EVACUATION_FAILURE not in t.g.task_deck + t.g.task_discard
    t.turn(0)
    assert not any(o[0] in ("clearance", "takeoff") for o in t.waits("action", 0))


# --- events --------------------------------------------------------------------------

def complete(t, card):
    t.g.event, t.g.event_cubes = card, 0
    t.g.stack = []
    t.go((f"event:{card}", {}), ("turn_start", {"seat": 1}))


def test_accelerated_evac_clears_one_player():
    """facts §6a Accelerated Evac: "Commander grants clearance to one eligible player"."""
    t = shadow()
    t.g.seats[2].quarantined = True
    complete(t, "accelerated_evac")
    assert t.waits("grant_clearance", 0) == [("player", 0), ("player", 1)]
    t.do(0, "grant_clearance", "player", 1)
    assert t.g.clearances == [1]


def test_accident_and_electrical_fire_amputate():
    """facts §6a: Accident, "Commander amputates one player who has not been amputated yet";
    Electrical Fire, "The active player is amputated"."""
    t = shadow()
    t.g.seats[1].amputated = True
    complete(t, "accident")
    assert t.waits("accident", 0) == [("player", 0), ("player", 2)]
    t.do(0, "accident", "player", 2)
    assert t.g.seats[2].amputated
    t.g.active = 0
    complete(t, "electrical_fire")
    assert t.g.seats[0].amputated


def test_evac_lottery_redeals_the_clearances_at_random():
    """facts §6a Evac Lottery: "Remove all clearances, then give the same number at random
    to eligible players"."""
    t = shadow(("jon", "luba", "michihiro", "chaya", "enver", "steve"))
    t.g.clearances = [0, 4]
    complete(t, "evac_lottery")
    assert len(t.g.clearances) == 2 and len(t.facts_of("clearance_lost")) == 2


def test_hold_trials_holds_three_votes_in_the_commanders_order():
    """facts §6a Hold Trials: "Commander holds an amputation vote, a quarantine vote and a
    clearance vote, in any order"."""
    t = shadow()
    complete(t, "hold_trials")
    kinds = {o[0] for o in t.waits("trial", 0)}
    assert kinds == {"amputate", "vote", "clearance"}
    t.do(0, "trial", "clearance", 1)
    t.vote({0: "strong", 1: "strong", 2: "strong"})
    assert {o[0] for o in t.waits("trial", 0)} == {"amputate", "vote"}
    t.do(0, "trial", "vote", 2)
    t.vote({0: "strong", 1: "strong", 2: "strong"})
    assert {o[0] for o in t.waits("trial", 0)} == {"amputate"}


def test_risk_assessment_makes_the_next_event_longer():
    """facts §6a Risk Assessment: "The next event needs 1 extra cube"; §8 q1: the final
    event too, when it was the 3rd event."""
    t = shadow(event="risk_assessment")
    t.g.event_cubes = 1
    t.go(("add_event_cube", {}), ("turn_start", {"seat": 1}))
    t.do(0, "event", *t.waits("event", 0)[0])
    assert public_view(t.g)["event"]["needed"] == EVENTS[t.g.event].cubes + 1
    t.g.event_cubes = EVENTS[t.g.event].cubes - 1
    t.go(("add_event_cube", {}), ("turn_start", {"seat": 1}))
    assert not t.facts_of("event_completed")[1:]  # one cube more to go
    t.go(("add_event_cube", {}), ("turn_start", {"seat": 1}))
    assert len(t.facts_of("event_completed")) == 2


def test_vote_tampering_spends_the_voting_dice():
    """facts §6a Vote Tampering: "Dice used to vote are submitted to the pool"."""
    t = shadow(event="vote_tampering")
    t.turn(0)
    t.do(0, "action", "vote", 1)
    t.vote({0: "weak", 1: "strong", 2: "weak"})
    assert held(t, 0)[1] == 1 and held(t, 1)[0] == 1 and held(t, 2)[1] == 1


def test_explosions_amputate_after_each_successful_task():
    """facts §6b Explosions: "after each successful task, the active player is amputated"
    (§8 q8: successful tasks only)."""
    t = shadow(final_event="explosions", event=None)
    t.g.final_active = True
    t.task("strategic_compromise", active=1)  # always succeeds; removes the shield token
    t.do(1, "compromise_kind", "outpost")
    t.do(1, "compromise_kind", "outpost")
    assert t.g.seats[1].amputated


def test_toxic_gas_empties_every_hand():
    """facts §6b Toxic Gas: "At start, every unrevealed player discards all active dice; the
    commander also discards the commander die"."""
    t = shadow(final_event="toxic_gas", event="tactical_prep")
    t.g.completed_events = ["lockdown", "divert_power"]
    t.g.event_cubes = 3
    t.go(("add_event_cube", {}), ("turn_start", {"seat": 1}))
    dropped = {f["seat"]: (f["strong"], f["weak"], f["commander"])
               for f in t.facts_of("discarded_dice") if f["reason"] == "toxic_gas"}
    assert dropped == {0: (2, 2, 1), 1: (2, 2, 0), 2: (2, 2, 0)}
    assert held(t, 0) == held(t, 2) == (0, 0, 0)  # seat 1's turn has begun: it retrieves


# --- complications and the Clearance power --------------------------------------------

def test_cut_it_off_fails_when_nobody_is_amputated():
    """facts §6c Cut It Off!: "Hold an amputation vote. If the player is not amputated, draw
    1 outpost token and the task fails." """
    t = shadow()
    t.task("cut_it_off", active=0)
    assert t.waits("vote_target", 0) == [("target", 1), ("target", 2)]
    t.do(0, "vote_target", "target", 1)
    assert t.pending.data["kind"] == "amputation"
    t.vote({0: "strong", 1: "strong", 2: "weak"})
    assert t.g.task is None and len(t.g.outpost_board) == 1
    assert t.facts_of("task_result")[-1]["success"] is False


def test_vote_for_clearance_succeeds_when_cleared():
    """facts §6c Vote for Clearance: "Hold a clearance vote. Denial draws 1 fatigue token and
    the task fails." """
    t = shadow()
    t.task("vote_for_clearance", active=0)
    t.do(0, "vote_target", "target", 2)
    t.vote({0: "strong", 1: "strong", 2: "weak"})
    assert t.g.clearances == [2] and t.facts_of("task_result")[-1]["success"] is True


def test_vote_for_clearance_with_one_target_is_settled_by_its_own_vote():
    """facts §6c Vote for Clearance: "Hold a clearance vote. Denial draws 1 fatigue token and
    the task fails."; ESOG: "If the evacuation clearance board is full ... you can only call a
    clearance vote on a player that already has their evacuation clearance token on the
    board." At 3 players one cleared player fills the board, so the rules name the target
    themselves; the card must still be settled by the vote held for it, not by the one
    before (which cleared that player)."""
    t = shadow()
    t.g.clearances = [1]
    t.g.last_vote = {"target": 1, "result": "clear"}
    t.task("vote_for_clearance", active=0)
    assert [f for f in t.facts_of("ruled") if f.get("decision") == "vote_target"]
    t.waits("vote", 0)
    t.vote({0: "weak", 1: "strong", 2: "weak"})
    assert t.facts_of("vote_result")[-1]["result"] == "deny"
    assert t.g.clearances == [] and len(t.g.fatigue_board) == 1
    assert t.facts_of("task_result")[-1]["success"] is False


def test_cut_it_off_with_one_target_and_no_earlier_vote_holds_its_vote():
    """facts §6c Cut It Off!: "Hold an amputation vote. If the player is not amputated, draw
    1 outpost token and the task fails."; ESOG Vote for amputation: one token each, so with
    the only other player already amputated the rules name the target themselves. The
    card's result waits for that vote, even with no vote held before it in the game."""
    t = shadow()
    t.g.seats[2].amputated = True
    t.g.last_vote = None
    t.task("cut_it_off", active=0)
    t.waits("vote", 0)
    assert t.pending.data == {"target": 1, "caller": 0, "kind": "amputation"}
    t.vote({0: "weak", 1: "strong", 2: "weak"})
    assert t.g.seats[1].amputated and not t.g.outpost_board
    t.do(1, "discard", *t.waits("discard", 1)[0])  # a die over the lowered limit
    assert t.facts_of("task_result")[-1]["success"] is True


def test_clearance_power_grants_or_revokes():
    """facts §5 Infected – Clearance: "Grant evacuation clearance to one uncleared,
    unquarantined player, or revoke one player's clearance." """
    t = shadow(("jon", "luba", "michihiro", "chaya"), infected={0: INFECTED_CLEARANCE})
    t.g.clearances = [2]
    t.turn(0)
    t.do(0, "action", "reveal")
    assert t.waits("clearance_power", 0) == [("grant", 1), ("grant", 3), ("revoke", 2)]
    t.do(0, "clearance_power", "revoke", 2)
    assert t.g.clearances == []


def test_a_refused_new_vote_changes_nothing():
    """Bad input: an amputation of oneself is not an option, and is refused."""
    t = shadow()
    t.turn(0)
    with pytest.raises(IllegalOption):
        t.do(0, "action", "amputate", 0)


# --- host corrections --------------------------------------------------------------------

def correct(t, *option):
    return play(t.g, HOST, {"decision": "correct", "option": list(option)}, t.ctx())


def test_the_host_corrects_clearances_amputations_and_the_evacuation_cube():
    """Issue 13: "Host corrections cover the new public facts (clearances, amputations,
    evacuation track)"; ESOG: "You cannot call a clearance vote on a player in quarantine",
    and an amputation "permanently reduces their die limit by 1"."""
    t = shadow(("jon", "luba", "michihiro", "chaya"))
    t.turn(0)
    correct(t, "clearance", 1, "on")
    correct(t, "evacuation", 3)
    assert t.g.clearances == [1] and t.g.evacuation == 3
    correct(t, "amputation", 2, "on")
    assert t.g.seats[2].amputated and t.g.die_limit(2) == 3
    t.do(0, "action", "pass")
    t.waits("discard", 2)  # four dice, a limit of three: the owner picks the one to drop
    with pytest.raises(IllegalOption):
        correct(t, "amputation", 2, "off")  # not while it discards by that limit
    t.do(2, "discard", "discard", 0, 1, 0)
    t.g.seats[3].quarantined = True
    with pytest.raises(IllegalOption):
        correct(t, "clearance", 3, "on")  # quarantined: no clearance
    correct(t, "quarantine", 1, "on")
    assert t.g.clearances == []  # quarantine takes the clearance away
    assert t.facts_of("clearance_lost")[-1]["reason"] == "quarantined"
    correct(t, "outpost", EVAC_SHIP, "on")  # the seventh token is the game's own
    assert EVAC_SHIP in t.g.outpost_board


def test_a_base_game_refuses_the_expansions_corrections():
    t = Table()
    t.turn(0)
    before = t.g.clone()
    for option in (("clearance", 1, "on"), ("amputation", 1, "on"), ("evacuation", 2)):
        with pytest.raises(IllegalOption):
            correct(t, *option)
    assert public_view(t.g) == public_view(before)


# --- the Company Man module ---------------------------------------------------------------

CM = SC + ("company_man_module",)


def test_the_company_man_card_joins_the_uninfected_cards():
    """ESOG COMPANY MAN: "take the original 4 uninfected status cards and shuffle them with the
    additional 3 uninfected status cards and the company man status card ... In a 3 player
    game, there will be a 25% chance that the company man is in play ... 6-7 player game, a
    50% chance." """
    with pytest.raises(BadSetup):
        Setup(NAMES[:5], variants=("company_man_module",)).validate()
    for n, share in ((3, 0.25), (7, 0.5)):
        dealt = 0
        for seed in range(400):
            g = replay(start(Setup(NAMES[:n], variants=CM), random.Random(seed)))
            statuses = [s.status for s in g.seats]
            infected = {3: 1, 7: 3}[n]
            assert sum(s.infected for s in g.seats) == infected
            assert statuses.count("company_man") <= 1
            dealt += "company_man" in statuses
        assert abs(dealt / 400 - share) < 0.08, (n, dealt)


def company_man_table(**kw):
    return shadow(("jon", "luba", "michihiro", "chaya"), variants=CM[1:],
                  infected={1: INFECTED, 2: "company_man"}, **kw)


def test_the_company_man_wins_alone_when_an_infected_lost_an_arm():
    """ESOG: "If the game ends with the completion of the final event, first check to see if
    any infected players have an amputation token. If any infected player had their arm
    amputated, the company man is the sole winner. However, if no infected players have an
    amputation token, the uninfected team wins as normal"."""
    for amputated, winner in ((True, "company_man"), (False, "uninfected")):
        t = company_man_table(final_event="escape", event=None)
        t.g.final_active, t.g.final_cubes = True, 2
        t.g.seats[1].amputated = amputated
        t.go(("add_event_cube", {}), ("turn_start", {"seat": 1}))
        assert t.g.outcome.winner == winner


@pytest.mark.parametrize("aboard, winner", [([1, 3], "company_man"), ([2, 3], "uninfected"),
                                            ([0, 2], "uninfected")])
def test_the_company_man_and_the_take_off(aboard, winner):
    """ESOG: "If a single infected player was on the ship, the company man is the sole
    winner ... If the company man is on the evacuation ship when it takes off but no infected
    players are, the company man still loses the game along with the infected team." """
    t = company_man_table()
    t.g.clearances, t.g.refuelled = list(aboard), True
    t.turn(0)
    t.do(0, "action", "takeoff")
    t.vote({0: "strong", 1: "strong", 2: "strong", 3: "strong"})
    assert t.g.outcome.winner == winner


def test_the_company_man_never_reveals_and_telepathy_never_shows_him():
    """facts §8b.7: "Telepathic Infected never tells the Infected about him"; the Company
    Man is not on the Infected team, so he has no reveal."""
    t = company_man_table()
    t.turn(2)
    assert ("reveal",) not in t.waits("action", 2)
    for seed in range(60):
        g = replay(start(Setup(NAMES[:7], variants=CM + ("telepathic_infected",)),
                         random.Random(seed)))
        man = [i for i, s in enumerate(g.seats) if s.status == "company_man"]
        if man:
            team = seat_view(g, next(i for i, s in enumerate(g.seats) if s.infected))
            assert man[0] not in team["you"]["infected_team"]
            return
    raise AssertionError("no seed dealt the Company Man")


# --- the Threats module --------------------------------------------------------------------

THREATS = SC + ("threats_module",)


def threats_table(**kw):
    t = shadow(("jon", "luba", "michihiro", "chaya"), variants=THREATS[1:], **kw)
    t.g.refuelled = True
    return t


def test_threat_cards_are_dealt_once_the_first_round_is_over():
    """ESOG THREATS: "After the refueling card is discarded but before the original start
    player begins their second turn, deal a threat card to each player."; facts §8b.8:
    revealed Infected get none."""
    g = replay(start(Setup(NAMES[:5], variants=THREATS), random.Random(8)))
    from companion.darkmoon import Chance, Ctx, play
    from companion.tools.simulate import helpful_choice
    rng = random.Random(8)
    while not g.threats and g.outcome is None:
        assert g.turn <= 6
        seat, command = helpful_choice(g, rng)
        play(g, seat, command, Ctx(Chance(rng=rng)))
    if g.outcome is None:
        assert g.turn == 6 and g.refuelled
        assert sorted(g.threats) == [i for i, s in enumerate(g.seats) if not s.revealed]
        for seat in range(5):  # each sees its own card only
            you = seat_view(g, seat)["you"]
            assert you["threat"] == g.threats.get(seat)
            assert public_view(g)["threats"]["cards"] is None


def test_retrieve_sample_the_active_callers_red_vote_takes_the_token():
    """ESOG: "Retrieve Sample (x3): Once per game, when you are the active player, call an
    amputation vote on another player and vote with a red weak die ... A player may only ever
    take 1 threat token." """
    t = threats_table()
    t.g.threats = {0: "retrieve_sample", 1: "exposure", 2: "retrieve_sample", 3: "exposure"}
    t.turn(0)
    t.do(0, "action", "amputate", 1)
    t.vote({0: "weak", 1: "strong", 2: "strong", 3: "strong"})
    assert t.waits("threat_claim", 0) == [("claim",), ("pass",)]
    t.do(0, "threat_claim", "claim")
    assert t.g.threat_tokens == {0: ("retrieve_sample", False)}
    assert public_view(t.g)["threats"]["tokens"] == {"0": ["retrieve_sample", False]}
    t.turn(0)  # once: a second red vote asks nothing
    t.do(0, "action", "amputate", 2)
    t.vote({0: "weak", 1: "strong", 2: "strong", 3: "strong"})
    assert t.pending.kind != "threat_claim"


def test_a_wild_token_when_the_kind_is_gone_and_exposure_shows_the_card():
    """ESOG: "If ... a player cannot take the appropriate threat token (because another player
    took the last one), that player should take one of the wild threat tokens"; "Exposure
    (x1): ... you must reveal your status card to another player"."""
    t = threats_table(infected={1: INFECTED})
    t.g.threats = {0: "exposure", 1: "exposure", 2: "act_recklessly", 3: "retrieve_sample"}
    t.turn(0)
    t.do(0, "action", "expose", 2)
    (shown,) = t.facts_of("status_shown")
    assert shown["to"] == [2] and shown["seat"] == 0
    t.do(0, "threat_claim", "claim")
    t.turn(1)
    t.do(1, "action", "expose", 3)
    t.do(1, "threat_claim", "claim")
    assert t.g.threat_tokens[1] == ("exposure", True)


def test_exposure_is_not_an_action_and_a_quarantined_player_may_expose():
    """facts §8b.10: "Exposure (threat card) is not an action: the active player reveals their
    status card to another player during their turn, besides their action, quarantined or
    not."; ESOG "Exposure (x1): Once per game, when you are the active player, you must
    reveal your status card to another player"."""
    t = threats_table()
    t.g.threats = {0: "exposure", 1: "act_recklessly", 2: "retrieve_sample", 3: "exposure"}
    t.g.seats[0].quarantined = True
    t.turn(0)
    assert ("expose", 2) in t.waits("action", 0)
    t.do(0, "action", "expose", 2)
    assert t.facts_of("status_shown")[-1]["to"] == [2]
    t.do(0, "threat_claim", "claim")
    options = t.waits("action", 0)  # the turn's action is still to take
    assert not [o for o in options if o[0] == "expose"]  # shown once a turn
    assert not t.facts_of("action")
    t.do(0, "action", "vote", 1)
    assert t.pending.kind == "vote"
    t.turn(3)  # without a claim the action comes next as well
    t.do(3, "action", "expose", 1)
    t.do(3, "threat_claim", "pass")
    assert t.waits("action", 3)


def test_threats_are_dealt_even_when_the_ship_was_recalled_in_the_first_round():
    """ESOG THREATS: "After the refueling card is discarded but before the original start
    player begins their second turn, deal a threat card to each player."; the Evacuation
    Failure card (facts §8b.5) takes the boards away, not the threats: they are dealt at the
    end of the first round all the same, so the Final Event still checks them."""
    t = shadow(("jon", "luba", "michihiro", "chaya"), variants=THREATS[1:])
    t.g.evacuation, t.g.clearances, t.g.refuelled = None, [], False  # recalled
    t.g.turn = 4  # the fourth player's turn is over: the start player's second begins
    t.turn(0)
    assert sorted(t.g.threats) == [0, 1, 2, 3] and not t.g.refuelled
    assert [f["seat"] for f in t.facts_of("threat_dealt")] == [0, 1, 2, 3]


def test_act_recklessly_every_die_into_one_malfunction():
    """ESOG: "Act Recklessly (x2): ... submit all of your dice during a single malfunction
    task (all at once or over the course of multiple re-rolls)"."""
    t = threats_table(event="electrical_storm")  # no corporation dice to answer first
    t.g.threats = {0: "act_recklessly"}
    t.dice(0, 1, 1, 0)
    t.task("outpost_5", active=0)
    t.do(0, "participation", "in")
    t.fix(2, 1)
    all_out(t, 1, 2, 3)
    t.submit(0, 2, 1)
    assert t.waits("threat_claim", 0) == [("claim",), ("pass",)]


@pytest.mark.parametrize("token, winner", [(("act_recklessly", False), "uninfected"),
                                           (("exposure", True), "infected"), (None, "infected")])
def test_at_the_final_event_every_uninfected_shows_their_threat(token, winner):
    """ESOG Ending the game: "If the game ends by completing the final event, all uninfected
    players must show that they correctly fulfilled the requirements on their threat card
    ... the infected team wins." A wild token on the card's own space counts."""
    t = threats_table(final_event="escape", event=None, infected={1: INFECTED})
    t.g.threats = {0: "act_recklessly", 1: "exposure"}
    t.g.threat_tokens = {} if token is None else {0: token}
    t.g.final_active, t.g.final_cubes = True, 2
    t.go(("add_event_cube", {}), ("turn_start", {"seat": 1}))
    assert t.g.outcome.winner == winner
    if winner == "infected":
        (missed,) = t.facts_of("threats_missed")
        assert missed["seats"] == [0]  # the Infected seat 1 need not act on its card
        for lang in ("en", "es"):
            from companion.lang.facts import describe
            from companion.lang.words import Words
            assert "{" not in describe(Words(lang, public_view(t.g)), missed)


def test_the_log_says_what_each_colour_meant_in_the_vote():
    """ESOG Vote for amputation: "A red weak die is a vote to amputate": the revealed ballots
    read so in the log, in both languages, never as a quarantine's."""
    from companion.lang.facts import describe
    from companion.lang.words import Words
    t = shadow()
    t.turn(0)
    t.do(0, "action", "amputate", 1)
    t.vote({0: "weak", 1: "strong", 2: "abstain"})
    (revealed,) = t.facts_of("vote_revealed")
    view = public_view(t.g)
    assert "Amputate (weak die, RED)" in describe(Words("en", view), revealed)
    assert "Quarantine" not in describe(Words("en", view), revealed)
    assert "Amputar (dado débil, ROJO)" in describe(Words("es", view), revealed)
