"""One test per rule of the rulebook (and of the project's rulings), each citing its passage.

RB = the rulebook (rules/darkmoon-rulebook-en.txt); facts = darkmoon-facts.md.
"""
import random

import pytest

from companion.darkmoon import (BadSetup, Chance, Ctx, GameOver, IllegalOption, Setup, play,
                                replay, seat_view, start)
from companion.darkmoon.damage import shield_fails
from companion.darkmoon.data import (COMMANDER, COMPLICATION, EVENTS, FATIGUE_TOKENS, STRONG,
                                     TASKS, WEAK)

from .position import NAMES, Table, held, put

INFECTED = "infected_shields"


def all_out(t, *seats):
    for seat in seats:
        t.do(seat, "participation", "out")


def choose_first_event(g, card_index=0):
    """Answer the commander's first event choice of a freshly dealt game."""
    option = g.pending.options[g.commander][card_index]
    play(g, g.commander, {"decision": "event", "option": list(option)},
         Ctx(Chance(rng=random.Random(0))))


# --- setup ---------------------------------------------------------------------------

@pytest.mark.parametrize("n, infected, uninfected, deck", [
    (3, 1, 2, "silver"), (4, 1, 3, "black"), (5, 2, 3, "silver"), (6, 2, 4, "black"),
    (7, 3, 4, "silver")])
def test_setup_for_each_player_count(n, infected, uninfected, deck):
    """SETUP chart: "1 Infected Status card / 2 Uninfected" (3) ... "3 Infected / 4
    Uninfected" (7); "Silver Task deck" at 3/5/7, "Black" at 4/6; "(remove the Voluntary
    Blood Testing card)" at 3-4. "Place two Shield tokens", "draw and place two Outpost
    tokens"; the Commander "receives the Commander card and the blue Commander die"."""
    g = replay(start(Setup(NAMES[:n]), random.Random(n)))
    statuses = [s.status for s in g.seats]
    assert statuses.count("uninfected") == uninfected
    assert len(set(statuses) - {"uninfected"}) == infected    # distinct infected cards
    assert g.deck_colour == deck
    assert ("voluntary_blood_testing" in g.task_deck) == (n >= 5)
    assert len(g.task_deck) == (21 if n >= 5 else 20)
    assert g.shield_tokens == 2 and len(g.outpost_board) == 2 and not g.fatigue_board
    assert g.seats[g.commander].dice[COMMANDER] == 1 and g.pool[COMMANDER] == 0
    assert all(s.dice[STRONG] == 2 and s.dice[WEAK] == 2 for s in g.seats)
    assert g.suspicion == 1


def test_black_deck_is_two_harder():
    """SETUP: "Black Task deck" at 4 players; facts §6c models it as the silver cards with
    difficulty +2."""
    t = Table(("jon", "luba", "chaya", "steve"))
    t.task("outpost_4", active=0)
    assert t.g.task.difficulty == 6


def test_daniel_never_starts_as_commander():
    """SETUP: "Randomly draw Fatigue tokens until you've found one that matches a Character
    in play ... any player who receives the DANIEL Character card will never start the game
    as the Commander"."""
    commanders = set()
    for seed in range(40):
        g = replay(start(Setup(NAMES[:3], ("daniel", "jon", "luba")), random.Random(seed)))
        commanders.add(g.seats[g.commander].character)
    assert commanders == {"jon", "luba"}


def test_first_event_chosen_by_commander_then_left_of_commander_starts():
    """SETUP step 15: "The Commander draws two Event cards, placing one faceup ... and
    placing the other at the bottom of the Event deck ... The player to the left of the
    Commander will be the start player." """
    g = replay(start(Setup(NAMES[:4]), random.Random(5)))
    assert g.pending.kind == "event" and g.pending.seats == [g.commander]
    (_, first), (_, second) = g.pending.options[g.commander]
    choose_first_event(g, 1)
    assert g.event == second and g.event_deck[0] == first
    assert g.active == (g.commander + 1) % 4 and g.turn == 1
    assert g.pending.kind == "action" and g.pending.seats == [g.active]


def test_outpost_tokens_drawn_at_setup_take_effect_at_once():
    """SETUP: "the consequences displayed on the drawn Outpost tokens take effect
    immediately"."""
    games = (replay(start(Setup(NAMES[:3]), random.Random(seed))) for seed in range(100))
    g = next(g for g in games if "communications" in g.outpost_board)
    choose_first_event(g)
    blocked = dict(g.pending.blocked[g.active])
    assert all(blocked.get(("order", s)) == "blocked_by:communications"
               for s in range(3) if s != g.active)


# --- retrieving dice -----------------------------------------------------------------

def test_retrieve_exactly_up_to_the_die_limit_in_any_colours():
    """RETRIEVE DICE: "if a player has two dice ... and their die limit is five, they must
    retrieve three ... They may choose any combination of Weak or Strong dice. Only the
    Commander may retrieve the Commander die." """
    t = Table(commander=0)
    t.g.seats[1].die_tokens = 1
    t.dice(1, 1, 1)
    t.turn(1)
    assert t.waits("take_dice", 1) == [("take", s, 3 - s) for s in range(4)]
    t.do(1, "take_dice", "take", 0, 3)
    assert held(t, 1) == (1, 4, 0)
    # The commander takes the commander die back at the start of their turn.
    t.dice(0, 2, 2, 0)
    t.turn(0)
    assert held(t, 0) == (2, 2, 1)


def test_food_rationing_keeps_strong_dice_in_the_pool():
    """FOOD RATIONING (Card notes): "if there are five or fewer Strong dice on the Available
    Resources spot, they cannot be retrieved by the players ... This does NOT affect
    revealed Infected players." """
    t = Table(("jon", "luba", "chaya"), event="food_rationing", infected={2: INFECTED})
    t.dice(1, 0, 0)
    t.g.pool[STRONG] = 3                     # three players: 3 or fewer stay put
    t.turn(1)
    assert held(t, 1) == (0, 4, 0)           # weak only: no choice left to ask about
    t.dice(1, 0, 0)
    t.g.pool[STRONG] = 5
    t.turn(1)
    assert max(s for _, s, _ in t.waits("take_dice", 1)) == 2
    t.g.seats[2].revealed = True
    t.dice(2, 0, 0)
    t.g.pool[STRONG] = 3
    t.turn(2)
    assert ("take", 2, 0) in t.waits("take_dice", 2)


# --- outpost tokens and actions --------------------------------------------------------

def test_outpost_tokens_block_their_actions_but_never_repair_outpost():
    """OUTPOST MALFUNCTION: "Shield Control - players may not use the action REPAIR SHIELD"
    ... "Hangar Bay - ... LONE WOLF"; "REPAIR OUTPOST is the only action that is always
    available"; Command "does not affect the number of dice players retrieve at the
    beginning of their turn"."""
    t = Table(("jon", "luba", "chaya"), commander=2)
    put(t, "outpost", "shield_control", "life_support", "research_lab", "communications",
        "hangar_bay")
    put(t, "fatigue", "steve")
    t.g.shield_tokens = 3
    t.turn(0)
    legal = t.waits("action", 0)
    assert set(legal) == {("repair", "outpost"), ("pass",)}
    reasons = dict(t.pending.blocked[0])
    assert reasons[("repair", "shield")] == "blocked_by:shield_control"
    assert reasons[("repair", "fatigue")] == "blocked_by:life_support"
    assert reasons[("vote", 1)] == "blocked_by:research_lab"
    assert reasons[("order", 1)] == "blocked_by:communications"
    assert reasons[("lone_wolf",)] == "blocked_by:hangar_bay"

    t.g.outpost_board, t.g.outpost_pile = ["command"], [
        "shield_control", "life_support", "research_lab", "communications", "hangar_bay"]
    t.dice(1, 0, 0)
    t.turn(1)
    assert t.waits("take_dice", 1)[0] == ("take", 0, 4)   # still up to the full limit


def test_research_lab_does_not_block_the_suspicion_vote():
    """HOLD A VOTE: "If the Suspicion cube has reached the final space ... a vote MUST now be
    called. The active player must choose a player to vote on (they may choose themselves
    or a player already quarantined). After the vote, reset the Suspicion cube"; "Even if
    the Research Lab Outpost token is on the board, it does not prevent this mandatory
    vote"."""
    t = Table(("jon", "luba", "chaya"), commander=2)
    put(t, "outpost", "research_lab")
    t.g.seats[1].quarantined = True
    t.dice(1, 1, 1)
    t.g.suspicion = 3
    t.fix("command", "hangar_bay")           # outpost_3 fails: two outpost tokens
    t.task("outpost_3", active=0)
    all_out(t, 0, 1, 2)
    assert t.g.suspicion == 4
    assert set(t.waits("vote_target", 0)) == {("target", 0), ("target", 1), ("target", 2)}
    t.do(0, "vote_target", "target", 0)
    t.vote({0: "strong", 1: "strong", 2: "abstain"})
    assert t.g.suspicion == 1 and not t.g.seats[0].quarantined


def test_unsuspicious_task_leaves_the_suspicion_cube():
    """ADVANCE SUSPICION CUBE: only "If the Task card said SUSPICIOUS ACTIVITY!!!", and
    "regardless of whether the Task succeeded or failed"."""
    t = Table(("jon", "luba", "chaya"), commander=2)
    t.fix("command")
    t.task("outpost_5", active=0)            # not suspicious, consequence 1
    all_out(t, 0, 1, 2)
    assert t.g.suspicion == 1
    t.fix("hangar_bay", "research_lab")
    t.task("outpost_3", active=0)            # suspicious, fails
    all_out(t, 0, 1, 2)
    assert t.g.suspicion == 2


# --- quarantine ------------------------------------------------------------------------

def test_quarantined_player_has_three_actions_and_draws_no_task():
    """QUARANTINE: "They may only use the actions CALL VOTE, ISSUE ORDER, and REVEAL AS
    INFECTED ... They do NOT draw Task cards at the end of their turn. After performing an
    action, play passes to the next player." """
    t = Table(("jon", "luba", "chaya"), commander=2, infected={0: INFECTED})
    t.g.seats[0].quarantined = True
    t.g.shield_tokens = 3
    t.dice(0, 1, 1)
    t.turn(0)
    legal = set(t.waits("action", 0))
    assert legal == {("vote", 0), ("vote", 1), ("vote", 2), ("order", 1), ("order", 2),
                     ("reveal",), ("pass",)}
    assert dict(t.pending.blocked[0])[("repair", "shield")] == "quarantined"
    t.do(0, "action", "pass")
    assert not t.facts_of("tasks_drawn")
    t.waits("action", 1)                     # the next player's turn


def test_quarantined_uninfected_with_vote_and_order_blocked_has_no_action():
    """QUARANTINE: "If CALL VOTE and ISSUE ORDER have been blocked by Outpost tokens and the
    player is not Infected, then they have no available actions." """
    t = Table(("jon", "luba", "chaya"), commander=2)
    put(t, "outpost", "research_lab", "communications")
    t.g.seats[0].quarantined = True
    t.dice(0, 1, 1)
    t.turn(0)
    assert t.waits("action", 0) == [("pass",)]
    t.do(0, "action", "pass")
    t.waits("action", 1)


def test_die_limit_never_below_one():
    """DIE LIMITS: "A player is always considered to have a die limit of at least 1 ... may
    still retrieve and hold at least one die"."""
    t = Table()
    t.g.seats[1].die_tokens = -3
    t.g.seats[1].quarantined = True
    assert t.g.die_limit(1) == 1
    t.dice(1, 0, 0)
    t.turn(1)
    assert set(t.waits("take_dice", 1)) == {("take", 1, 0), ("take", 0, 1)}


# --- the commander card ----------------------------------------------------------------

def test_quarantined_commander_passes_the_card_to_the_caller_and_the_die_to_the_pool():
    """CHANGING COMMANDERS: "If the Commander is ever quarantined, the Commander card passes
    to the player who initiated the vote"; DIE LIMITS: "the previous Commander immediately
    places the Commander die on the Available Resources pool" and the new one takes it only
    when next retrieving."""
    t = Table(("jon", "luba", "chaya"), commander=0)
    t.turn(1)
    t.do(1, "action", "vote", 0)
    t.vote({0: "strong", 1: "weak", 2: "weak"})
    assert t.g.commander == 1
    assert held(t, 0)[2] == 0 and held(t, 1)[2] == 0 and t.g.pool[COMMANDER] == 1
    t.turn(1)
    assert held(t, 1)[2] == 1


@pytest.mark.parametrize("caller, quarantined, heir", [
    (2, {1, 2}, 3),   # the caller is in quarantine: first player left not in quarantine
    (0, set(), 1),    # the Commander called the vote on themselves
    (0, {1}, 2),
])
def test_commander_card_goes_left_when_the_caller_cannot_take_it(caller, quarantined, heir):
    """QUARANTINE: "If the player who called the vote is in quarantine themselves (or if the
    Commander called the vote on themselves), then the Commander card passes to the first
    player to the left who is NOT in quarantine." """
    t = Table(("jon", "luba", "chaya", "steve"), commander=0)
    for s in quarantined:
        t.g.seats[s].quarantined = True
        t.dice(s, 1, 1)
    t.turn(caller)
    t.do(caller, "action", "vote", 0)
    t.vote({s: "weak" for s in range(4)})
    assert t.g.seats[0].quarantined and t.g.commander == heir


def test_everyone_quarantined_last_keeps_command_first_released_takes_it():
    """QUARANTINE: "all players who are not revealed as Infected may end up in quarantine. If
    this happens, the last player to be quarantined retains the Commander card. The first
    player to be released from quarantine immediately assumes the Commander role." """
    t = Table(("jon", "luba", "chaya"), commander=0, infected={2: INFECTED})
    t.g.seats[2].revealed = True
    t.dice(2, 1, 1)
    t.g.seats[1].quarantined = True
    t.dice(1, 1, 1)
    t.turn(1)
    t.do(1, "action", "vote", 0)
    assert t.pending.seats == [0, 1]          # revealed Infected do not vote
    t.vote({0: "weak", 1: "weak"})
    t.do(0, "discard", "discard", 1, 1, 0)
    assert t.g.seats[0].quarantined and t.g.commander == 0
    t.turn(0)
    t.do(0, "action", "vote", 1)
    t.vote({0: "strong", 1: "strong"})
    assert not t.g.seats[1].quarantined and t.g.commander == 1


# --- votes -----------------------------------------------------------------------------

def test_commander_die_cannot_vote_and_majority_decides():
    """CALL A VOTE: "The Commander die may NOT be used to cast a vote. A player may be forced
    to abstain if they have no active dice"; "If the majority of players vote that the
    player is Infected, that player is ... placed in quarantine"."""
    t = Table(("jon", "luba", "chaya"), commander=0)
    t.dice(0, 0, 0, 1)
    t.turn(1)
    t.do(1, "action", "vote", 2)
    assert t.waits("vote", 0) == [("abstain",)]
    t.vote({0: "abstain", 1: "weak", 2: "strong"})
    t.do(0, "tie_break", "free")             # 1-1: a tie, the commander decides
    assert not t.g.seats[2].quarantined
    t.turn(2)
    t.do(2, "action", "vote", 1)
    t.vote({0: "abstain", 1: "strong", 2: "weak"})
    t.do(0, "tie_break", "quarantine")
    assert t.g.seats[1].quarantined
    t.do(1, "discard", "discard", 1, 1, 0)
    t.turn(1)
    t.do(1, "action", "vote", 2)             # a quarantined player may still call votes
    t.vote({0: "abstain", 1: "weak", 2: "weak"})
    assert t.g.seats[2].quarantined and t.pending.kind != "tie_break"


def test_ballots_return_behind_the_screen_unless_expensive_voting():
    """CALL A VOTE: "After the vote, players place any dice used in the vote behind their
    player screen"; EXPENSIVE VOTING: "All dice used in voting are submitted to the Available
    Resources pool after the vote." """
    for variants, after in (((), (2, 2, 0)), (("expensive_voting",), (1, 2, 0))):
        t = Table(("jon", "luba", "chaya"), commander=0, variants=variants)
        t.turn(1)
        t.do(1, "action", "vote", 2)
        t.vote({0: "weak", 1: "strong", 2: "strong"})
        assert held(t, 2) == after and held(t, 1) == after
        assert held(t, 0) == ((2, 2, 1) if not variants else (2, 1, 1))


# --- malfunctions ----------------------------------------------------------------------

@pytest.mark.parametrize("character, command, revealed, fatigued, most", [
    ("luba", False, False, False, 2), ("jon", False, False, False, 3),
    ("luba", True, False, False, 1), ("jon", True, False, False, 2),
    ("luba", True, True, False, 2), ("jon", False, False, True, 2)])
def test_dice_taken_when_going_out(character, command, revealed, fatigued, most):
    """MALFUNCTION TASKS: OUT players "take up to two dice"; JON REED: "retrieve up to three
    dice when passing. If the Command Outpost token is on the board, he will retrieve two";
    revealed Infected "are not affected by the Command Outpost token (when passing, they
    always retrieve two dice)"; FATIGUE: "they can't use their Character's special
    ability"."""
    t = Table((character, "chaya", "steve"), commander=2,
              infected={0: INFECTED} if revealed else None)
    t.g.seats[0].revealed = revealed
    if command:
        put(t, "outpost", "command")
    if fatigued:
        put(t, "fatigue", character)
    t.dice(0, 0, 0)
    t.task("outpost_5", active=1)
    t.do(1, "participation", "in")
    t.do(2, "participation", "out")
    t.do(0, "participation", "out")
    assert max(s + w for _, s, w in t.waits("take_dice", 0)) == most


def test_jon_going_out_still_observes_his_die_limit():
    """JON REED: "Whenever retrieving dice, Jon must observe his die limit."; "Jon does not
    retrieve an extra die ... from an ISSUE ORDER action"; the Command token does not
    "affect a player who is issued an order and chooses to retrieve dice"."""
    t = Table(("jon", "chaya", "steve"), commander=2)
    t.dice(0, 2, 1)
    t.task("outpost_5", active=0)
    t.do(0, "participation", "out")
    assert max(s + w for _, s, w in t.waits("take_dice", 0)) == 1
    t.dice(0, 0, 0)
    put(t, "outpost", "command")
    t.turn(1)
    t.do(1, "action", "order", 0)
    t.do(0, "order_response", "retrieve")
    assert max(s + w for _, s, w in t.waits("take_dice", 0)) == 2


def test_a_player_in_must_roll_and_submit_at_least_one_die_per_roll():
    """MALFUNCTION TASKS: "All players ... who are participating in the Malfunction must
    roll and submit at least one die"; "every time they roll their dice they must submit at
    least one of those dice, although they may submit more than one"."""
    t = Table(("jon", "luba", "chaya"), commander=1)
    t.dice(1, 0, 0)
    t.task("outpost_5", active=0)
    t.do(0, "participation", "out")
    assert t.waits("participation", 1) == [("out",)]    # no dice: cannot be IN
    t.do(1, "participation", "out")
    t.do(1, "take_dice", "take", 1, 1)
    t.fix(-2, -2, -1, -2)
    t.do(2, "participation", "in")
    options = t.waits("submit", 2)
    assert options and all(o[0] == "submit" and 1 <= len(o) - 1 <= 4 for o in options)
    assert ("submit", 0, 1, 2, 3) in options
    t.submit(2, -1)
    assert set(t.waits("continue", 2)) == {("roll_again",), ("stop",)}


def test_fatigued_players_submit_a_single_die():
    """FATIGUE: "they may only submit a single die during a Malfunction"."""
    t = Table(("jon", "luba", "chaya"), commander=2)
    put(t, "fatigue", "luba")
    t.task("outpost_5", active=0)
    t.do(0, "participation", "out")
    t.do(1, "participation", "in")
    t.fix(4, 2, 3, 1)
    t.do(2, "participation", "out")
    assert all(len(o) == 2 for o in t.waits("submit", 1))
    t.submit(1, 4)
    assert not t.facts_of("continue")
    assert t.g.task is None and t.facts_of("malfunction_result")[0]["total"] == 4
    assert held(t, 1) == (1, 2, 0)          # no second roll: her part is over


def test_daniel_is_never_fatigued_and_absent_characters_tokens_count():
    """LIFE SUPPORT MALFUNCTION: "If the Character on the token is not in play, the Fatigue
    token still counts toward the Infected team's win condition but does not penalize a
    player."; facts §4: Daniel "has no fatigue token"."""
    assert "daniel" not in FATIGUE_TOKENS
    t = Table(("daniel", "jon", "luba"), commander=2)
    put(t, "fatigue", "chaya", "michihiro", "enver", "steve")
    assert not any(t.g.fatigued(s) for s in range(3))
    t.fix("jon")
    t.task("life_support_6", active=0)       # consequence 1
    all_out(t, 0, 1, 2)
    assert t.g.fatigued(1) and not t.g.fatigued(0) and t.g.outcome is None
    t.fix("luba")
    t.task("life_support_6", active=0)
    all_out(t, 0, 1, 2)
    assert (t.g.outcome.winner, t.g.outcome.condition) == ("infected", "fatigue")


def test_unknown_malfunction_type_is_chosen_before_in_or_out():
    """????????? MALFUNCTION: "allow the active player to choose which Malfunction occurs ...
    This choice must be made BEFORE players and Infected players choose to participate"."""
    t = Table(("jon", "luba", "chaya"), commander=2)
    t.task("unknown_6", active=1)
    assert t.waits("malfunction_type", 1) == [("shield",), ("outpost",), ("fatigue",)]
    t.do(1, "malfunction_type", "fatigue")
    t.waits("participation", 1)
    t.fix("jon", "chaya")
    all_out(t, 1, 2, 0)
    assert sorted(t.g.fatigue_board) == ["chaya", "jon"] and t.g.shield_tokens == 2


def test_success_bonus_is_optional():
    """MALFUNCTION TASKS item 5: "Additional bonus if the Task succeeds"; facts §8 q4 rules
    the bonus optional."""
    for take in (True, False):
        t = Table(("jon", "luba", "chaya"), commander=2)
        put(t, "outpost", "command", "hangar_bay")
        t.task("outpost_4", active=0)
        t.fix(4, -2, -2, -2)
        t.do(0, "participation", "in")
        all_out(t, 1, 2)
        t.submit(0, 4)
        t.do(0, "continue", "stop")
        options = t.waits("bonus", 0)
        assert options == [("outpost", "command"), ("outpost", "hangar_bay"), ("skip",)]
        t.do(0, "bonus", *(options[0] if take else ("skip",)))
        assert t.g.outpost_board == (["hangar_bay"] if take else ["command", "hangar_bay"])
        assert t.g.event_cubes == 1


def test_spent_dice_return_to_the_pool_before_consequences():
    """RESOLVE TASK: "After the Task has been resolved (but before consequences occur or
    Event cubes are added) move all dice from the Spent Resources pool to the Available
    Resources pool." The shield test then rolls a die of the board."""
    t = Table(("jon", "luba", "chaya"), commander=2)
    t.task("shield_7", active=0)
    t.fix(-2, -2, -2, -1, 2)                 # Jon's roll, then the shield test (3 tokens)
    t.do(0, "participation", "in")
    all_out(t, 1, 2)
    t.submit(0, -2, -2, -2, -1)
    assert t.g.spent == {"strong": 0, "weak": 0, "commander": 0}
    assert t.waits("damage_kind", 0)


def test_first_is_last_order():
    """FIRST IS LAST: "the player to the left of the active player is the first to choose
    whether they are IN or OUT, as well as the first to roll ... The active player ... rolls
    and submits last." """
    t = Table(("jon", "luba", "chaya", "steve"), commander=3, variants=("first_is_last",))
    t.task("outpost_5", active=1)
    assert t.g.task.order == [2, 3, 0, 1]
    t.waits("participation", 2)


def test_blackout_makes_malfunctions_two_harder():
    """BLACKOUT (facts §6b): "During: every malfunction is 2 harder." """
    t = Table(("jon", "luba", "chaya"), final_event="blackout")
    t.g.final_active = True
    t.task("outpost_4", active=0)
    assert t.g.task.difficulty == 6


# --- the shield ------------------------------------------------------------------------

def test_shield_failure_condition_for_each_number_of_tokens():
    """TESTING THE SHIELD: "Check the current Failure Condition (-1, "ANY +", -2, and "ANY
    -" respectively)"; facts §2: 0-1 tokens pass without a roll; six tokens lose."""
    expected = {2: {-1}, 3: {2, 4}, 4: {-2}, 5: {-2, -1}}
    for tokens in range(6):
        for face in (-2, -1, 2, 4):
            assert shield_fails(tokens, face) == (face in expected.get(tokens, set()))
    for tokens in (0, 1):
        t = Table()
        t.g.shield_tokens = tokens
        t.go(("shield_test", {}), ("turn_start", {"seat": 1}))
        assert t.facts_of("shield_test")[0]["face"] is None     # no die was rolled
    t = Table()
    t.g.shield_tokens = 4
    t.fix(-2)
    t.go(("shield_test", {}), ("turn_start", {"seat": 1}))
    assert t.waits("damage_kind", 0) == [("outpost",), ("fatigue",)]
    t = Table(("jon", "luba", "chaya"), commander=2)
    t.g.shield_tokens = 5
    t.task("shield_7", active=0)
    all_out(t, 0, 1, 2)
    assert (t.g.outcome.winner, t.g.outcome.condition) == ("infected", "shield")


@pytest.mark.parametrize("kind, card", [("shield", "shield_6"), ("outpost", "outpost_4"),
                                        ("fatigue", "life_support_5")])
def test_sixth_token_ends_the_game_at_once(kind, card):
    """HOW TO WIN: "The Infected team wins the instant any one of these three conditions is
    met" (6 Shield, 6 Outpost or 6 Fatigue tokens)."""
    t = Table(("jon", "luba", "chaya"), commander=2)
    if kind == "shield":
        t.g.shield_tokens = 4
    elif kind == "outpost":
        put(t, "outpost", "command", "hangar_bay", "research_lab", "communications")
        t.fix("shield_control", "life_support")
    else:
        put(t, "fatigue", "enver", "steve", "michihiro", "chaya")
        t.fix("jon", "luba")
    t.task(card, active=0)                   # consequence 3: the third is never placed
    all_out(t, 0, 1, 2)
    assert (t.g.outcome.winner, t.g.outcome.condition) == ("infected", kind)
    assert t.g.pending is None and not t.g.stack
    count = {"shield": t.g.shield_tokens, "outpost": len(t.g.outpost_board),
             "fatigue": len(t.g.fatigue_board)}[kind]
    assert count == 6 and not t.facts_of("shield_test") and not t.unused
    with pytest.raises(GameOver):
        t.do(0, "action", "pass")


# --- events ----------------------------------------------------------------------------

def complete_event(t, event, seat=0):
    """Add the last cube to `event` on `seat`'s turn, then play on into the next turn."""
    t.g.event = event
    t.g.event_cubes = EVENTS[event].cubes - 1
    t.g.active = seat
    t.go(("add_event_cube", {}), ("turn_start", {"seat": t.g.left_of(seat)}))


@pytest.mark.parametrize("variants, outcome", [((), None), (("deadly_events",), "fatigue")])
def test_event_damage_stops_short_of_a_loss_unless_deadly_events(variants, outcome):
    """COMPLETE THE EVENT: "if the Event card calls for two Fatigue tokens to be added and
    there are already four on the board, add the first but do not add the second";
    DEADLY EVENTS: "those tokens CAN end the game"."""
    t = Table(("jon", "luba", "chaya"), commander=2, variants=variants)
    put(t, "fatigue", "enver", "steve", "michihiro", "chaya")
    t.fix("jon", "luba")
    complete_event(t, "rescue_crewman")
    assert len(t.g.fatigue_board) == (5 if outcome is None else 6)
    assert (t.g.outcome.condition if t.g.outcome else None) == outcome


def test_final_event_damage_is_not_capped():
    """COMPLETE THE EVENT: the cap "does NOT apply to Final Events. If a Final Event card
    calls for adding Damage tokens and doing so would cause the game to end in an Infected
    victory, then the Infected team wins"; FIND CURE (facts §6b): "every life-support damage
    places 1 extra fatigue token"."""
    t = Table(("jon", "luba", "chaya"), commander=2, final_event="find_cure")
    t.g.final_active = True
    put(t, "fatigue", "enver", "steve", "michihiro", "chaya")
    t.fix("jon", "luba")
    t.task("life_support_6", active=0)       # consequence 1, plus Find Cure's one
    all_out(t, 0, 1, 2)
    assert len(t.g.fatigue_board) == 6
    assert (t.g.outcome.winner, t.g.outcome.condition) == ("infected", "fatigue")


def test_system_crash_shield_test_can_end_the_game():
    """SYSTEM CRASH (Card notes): "Place all possible Damage tokens on the board BEFORE
    testing the shields (if any of the three Damage tokens would end the game, do NOT place
    them). If ... the Failure Condition is met ... the game can end because of this
    additional Damage token." """
    t = Table(("jon", "luba", "chaya"), commander=2)
    put(t, "outpost", "command", "hangar_bay", "research_lab", "communications",
        "life_support")
    t.fix("steve", 2)                        # the fatigue token; the test at 3 tokens: +2
    complete_event(t, "system_crash")
    assert len(t.g.outpost_board) == 5 and t.g.fatigue_board == ["steve"]
    assert t.g.shield_tokens == 3
    t.do(0, "damage_kind", "outpost")
    assert (t.g.outcome.winner, t.g.outcome.condition) == ("infected", "outpost")


@pytest.mark.parametrize("done_before", [0, 2])
def test_completed_event_draws_a_new_one_until_the_third_brings_the_final_event(done_before):
    """SELECT A NEW EVENT: "the Commander draws two more Event cards ... However, if it was
    the 3rd completed Event, players immediately proceed to the Final Event and the
    Commander does not draw any cards"; FINAL EVENT: "remove all Complication Tasks ...
    form a new Malfunction-only Task deck"."""
    t = Table(("jon", "luba", "chaya"), commander=2)
    t.g.completed_events = ["lockdown", "divert_power"][:done_before]
    t.g.task_discard = ["acceptable_loss", "shield_5"]
    t.g.task_deck = [c for c in t.g.task_deck if c not in t.g.task_discard]
    complete_event(t, "food_rationing")
    if done_before == 0:
        assert len(t.waits("event", 2)) == 2 and not t.g.final_active
    else:
        assert t.g.final_active and not t.facts_of("events_drawn")
        assert t.g.task_discard == [] and "shield_5" in t.g.task_deck
        assert all(TASKS[c].kind != COMPLICATION for c in t.g.task_deck)
        assert len(t.g.task_deck) == 14
        t.waits("action", 1)


def test_lone_wolf_completing_the_final_event_wins_at_once():
    """LONE WOLF: "rolls up to three dice and submits two. If both submitted dice are
    positive ... If successfully performing this action causes the Final Event to be
    completed, the Uninfected team immediately wins the game." """
    t = Table(("jon", "luba", "chaya"), commander=2)
    t.g.final_active, t.g.final_cubes = True, 2
    t.turn(0)
    t.do(0, "action", "lone_wolf")
    t.fix(2, 1, -2)
    t.roll(0, 1, 2)
    assert all(len(o) == 3 for o in t.waits("submit", 0))   # exactly two dice
    t.submit(0, 2, 1)
    assert (t.g.outcome.winner, t.g.outcome.condition) == ("uninfected", "final_event")
    assert t.g.pending is None


@pytest.mark.parametrize("status, fatigued, winner", [
    ("uninfected", False, "uninfected"), (INFECTED, False, "infected"),
    ("uninfected", True, "infected")])
def test_protect_self_destruct_codes(status, fatigued, winner):
    """PROTECT SELF-DESTRUCT CODES: "The Commander must reveal their Status card; if they
    were secretly Infected, the Infected team wins. Likewise, the Infected team wins if the
    Commander is Fatigued when the Final Event is completed." """
    t = Table(("jon", "luba", "chaya"), commander=1, final_event="protect_codes",
              infected={1: status} if status != "uninfected" else None)
    if fatigued:
        put(t, "fatigue", "luba")
    t.g.final_active, t.g.final_cubes = True, 2
    t.go(("add_event_cube", {}), ("turn_start", {"seat": 1}))
    assert t.g.outcome.winner == winner


def test_last_stand_lowers_every_unrevealed_limit():
    """LAST STAND: "each player (Uninfected and Infected who have not yet revealed) places a
    -1 Die token ... This does not affect revealed Infected players." """
    t = Table(("jon", "luba", "chaya"), commander=0, final_event="last_stand",
              infected={2: INFECTED})
    t.g.seats[2].revealed = True
    t.dice(2, 1, 1)
    t.g.completed_events = ["lockdown", "divert_power"]
    complete_event(t, "food_rationing")
    assert [s.die_tokens for s in t.g.seats] == [-1, -1, 0]
    assert [t.g.die_limit(s) for s in range(3)] == [3, 3, 2]
    t.do(1, "discard", "discard", 0, 1, 0)   # four dice, limit three
    t.do(0, "discard", "discard", 0, 1, 0)
    assert held(t, 0) == (2, 1, 1) and held(t, 2) == (1, 1, 0)


# --- revealing -------------------------------------------------------------------------

def test_reveal_power_twice_on_a_positive_roll_then_limit_two_and_turn_over():
    """REVEALING AS INFECTED: "If not quarantined, they execute the Infection Power ... They
    roll any available die; if the result is a positive number, they may execute their
    Infection Power a second time ... they discard down to two dice ... Their turn is
    immediately over"; TESTING THE SHIELD: an Infection Power drawing a Shield token tests
    the shield."""
    t = Table(("jon", "luba", "chaya"), commander=2, infected={0: "infected_shields"})
    t.turn(0)
    t.fix(-2, 2, -1)      # test at 3 (any +) passes; second roll +2; test at 4 (-2) passes
    t.do(0, "action", "reveal")
    assert t.g.shield_tokens == 3 and t.waits("second_power", 0) == [("use",), ("skip",)]
    t.do(0, "second_power", "use")   # "may execute": the revealed player's choice
    assert t.g.shield_tokens == 4 and not t.unused
    assert t.g.seats[0].revealed and t.g.die_limit(0) == 2
    t.do(0, "discard", "discard", 1, 1, 0)
    assert not t.facts_of("tasks_drawn")
    t.waits("action", 1)


def test_reveal_outpost_power_places_one_of_two_drawn_tokens():
    """Facts §5: Infected - Outpost: "Draw 2 outpost tokens, place 1 of your choice and
    return the other"; a negative second roll gives no second use."""
    t = Table(("jon", "luba", "chaya"), commander=2, infected={0: "infected_outpost"})
    t.turn(0)
    t.fix("command", "hangar_bay")
    t.do(0, "action", "reveal")
    assert t.waits("power_token", 0) == [("outpost", "command"), ("outpost", "hangar_bay")]
    t.fix(-1)
    t.do(0, "power_token", "outpost", "hangar_bay")
    assert t.g.outpost_board == ["hangar_bay"] and "command" in t.g.outpost_pile
    assert not t.unused and t.waits("discard", 0)


def test_quarantined_reveal_has_no_power_and_sheds_its_tokens():
    """REVEALING AS INFECTED: "If not quarantined, they execute the Infection Power"; "They
    discard their Character card, their Quarantine token (if they were quarantined), any
    Die tokens"."""
    t = Table(("jon", "luba", "chaya"), commander=2, infected={0: "infected_shields"})
    t.g.seats[0].quarantined = True
    t.g.seats[0].die_tokens = 1
    t.dice(0, 2, 1)
    t.turn(0)
    t.do(0, "action", "reveal")
    s = t.g.seats[0]
    assert s.revealed and not s.quarantined and s.die_tokens == 0
    assert t.g.shield_tokens == 2 and not t.facts_of("infection_power")
    assert not t.facts_of("power_roll")
    t.do(0, "discard", "discard", 1, 0, 0)
    t.waits("action", 1)


def test_revealing_commander_passes_the_card_left_and_the_die_to_the_pool():
    """REVEALING AS INFECTED: "If the Infected player who revealed was the Commander, the
    Commander card now passes to the first player to the left and the Commander die is
    placed in the Available Resources pool." """
    t = Table(("jon", "luba", "chaya"), commander=0, infected={0: "infected_shields"},
              variants=("nerfed_reveal_extreme",))
    t.turn(0)
    t.do(0, "action", "reveal")
    assert t.g.commander == 1 and held(t, 0)[2] == 0 and t.g.pool[COMMANDER] == 1


@pytest.mark.parametrize("variant, tokens, rolls", [
    ("nerfed_reveal_extreme", 2, ()), ("nerfed_reveal_normal", 3, (-2,))])
def test_nerfed_reveal(variant, tokens, rolls):
    """NERFED REVEAL - EXTREME: "they are not allowed to trigger their Infection Power at
    all"; - NORMAL: "they may trigger their Infection Power as normal, but they are NOT
    allowed to roll a die to see if they may trigger their Infection Power a second
    time"."""
    t = Table(("jon", "luba", "chaya"), commander=2, infected={0: "infected_shields"},
              variants=(variant,))
    t.turn(0)
    t.fix(*rolls)                            # the shield test after the single use
    t.do(0, "action", "reveal")
    assert t.g.shield_tokens == tokens and not t.facts_of("power_roll") and not t.unused


def test_ordered_reveal_as_first_action_allows_an_infected_action():
    """ISSUE ORDER: "If upon receiving an order, a player's first action is REVEAL AS
    INFECTED, they may immediately perform an Infected action."; "neither of those actions
    may be ISSUE ORDER"."""
    t = Table(("jon", "luba", "chaya"), commander=2, infected={1: "infected_outpost"},
              variants=("nerfed_reveal_extreme",))
    t.turn(0)
    t.do(0, "action", "order", 1)
    t.do(1, "order_response", "actions")
    options = t.waits("action", 1)
    assert ("reveal",) in options and not any(o[0] == "order" for o in options)
    t.do(1, "action", "reveal")
    t.do(1, "discard", "discard", 1, 1, 0)
    assert ("sabotage", "shield") in t.waits("action", 1)
    t.do(1, "action", "sabotage", "shield")
    assert t.g.sabotage == "shield"
    t.waits("task", 0)                       # the active player's turn goes on


def test_safe_orders_forbid_revealing_when_ordered():
    """SAFE ORDERS: "If a player is issued an order, they may not choose REVEAL AS INFECTED
    as one of their actions." """
    t = Table(("jon", "luba", "chaya"), commander=2, infected={1: "infected_outpost"},
              variants=("safe_orders",))
    t.turn(0)
    t.do(0, "action", "order", 1)
    t.do(1, "order_response", "actions")
    assert ("reveal",) not in t.waits("action", 1)
    assert dict(t.pending.blocked[1])[("reveal",)] == "safe_orders"
    with pytest.raises(IllegalOption):
        t.do(1, "action", "reveal")


def test_all_infected_revealed_removes_the_suspicion_cube():
    """IF ALL INFECTED PLAYERS REVEAL: "remove the Suspicion cube from the game and ignore
    SUSPICIOUS ACTIVITY!!! on Task cards"."""
    t = Table(("jon", "luba", "chaya", "steve", "enver"), commander=4,
              infected={0: "infected_outpost", 1: INFECTED},
              variants=("nerfed_reveal_extreme",))
    t.g.suspicion = 3
    t.turn(0)
    t.do(0, "action", "reveal")
    assert t.g.suspicion == 3                # one Infected still hidden
    t.turn(1)
    t.do(1, "action", "reveal")
    assert t.g.suspicion is None
    t.fix("command", "hangar_bay")
    t.task("outpost_3", active=2)
    all_out(t, 2, 3, 4, 0, 1)
    assert t.g.suspicion is None and not t.facts_of("vote_called")


def test_no_more_complications_once_all_infected_reveal():
    """NO MORE COMPLICATIONS: "If all Infected players have revealed themselves, gather all
    of the Task cards together and remove all of the Complication Tasks." """
    t = Table(("jon", "luba", "chaya"), commander=2, infected={0: INFECTED},
              variants=("no_more_complications", "nerfed_reveal_extreme"))
    t.turn(0)
    t.do(0, "action", "reveal")
    assert len(t.g.task_deck) == 14 and not t.g.task_discard
    assert all(TASKS[c].kind != COMPLICATION for c in t.g.task_deck)


# --- the revealed Infected's actions ---------------------------------------------------

def revealed_table(status="infected_outpost", variants=(), **kw):
    """Seat 2 is a revealed Infected, at the start of its turn."""
    t = Table(("jon", "luba", "chaya"), commander=kw.pop("commander", 0),
              infected={2: status}, variants=variants, **kw)
    t.g.seats[2].revealed = True
    t.dice(2, 1, 1)
    t.turn(2)
    return t


def test_revealed_infected_have_the_five_actions_no_task_no_vote():
    """REVEALING AS INFECTED: revealed players "No longer draw Task cards", "No longer have
    access to the normal actions" and "Are no longer allowed to participate in votes";
    "Cannot be voted on"."""
    t = revealed_table()
    assert set(t.waits("action", 2)) == {
        ("interference",), ("energy_spike",), ("sabotage", "shield"), ("sabotage", "outpost"),
        ("sabotage", "fatigue"), ("test_commander",), ("demoralize",), ("pass",)}
    t.do(2, "action", "pass")
    assert not t.facts_of("tasks_drawn")
    t.waits("action", 0)
    assert ("vote", 2) not in t.waits("action", 0)


def test_interference_discards_and_restacks_the_top_three():
    """INTERFERENCE: "Draw three Task cards. Discard as many as you want and return the
    remaining cards to the top of the Task deck in any order you choose." """
    t = revealed_table()
    t.stack_tasks("shield_5", "outpost_3", "acceptable_loss")
    t.do(2, "action", "interference")
    assert ("keep", "acceptable_loss", "shield_5") in t.waits("interference", 2)
    t.do(2, "interference", "keep", "acceptable_loss", "shield_5")
    assert t.g.task_deck[-2:] == ["shield_5", "acceptable_loss"]   # acceptable_loss on top
    assert "outpost_3" in t.g.task_discard


@pytest.mark.parametrize("tokens, after, roll", [(0, 1, None), (1, 2, -1), (2, 2, -1),
                                                 (4, 4, -2)])
def test_energy_spike(tokens, after, roll):
    """ENERGY SPIKE: "If there are 0-1 Shield tokens on the board, add one Shield token and,
    if applicable, test the shields. If there are two or more ... roll any die to test the
    shields ... If it matches, draw either a Fatigue or Outpost token"."""
    t = revealed_table()
    t.g.shield_tokens = tokens
    if roll is not None:
        t.fix(roll)
    t.do(2, "action", "energy_spike")
    assert t.g.shield_tokens == after and not t.unused
    if roll is None:
        t.waits("action", 0)                 # nothing to test with one token
    else:
        assert t.waits("damage_kind", 2) == [("outpost",), ("fatigue",)]


def test_sabotage_token_moves_and_costs_the_next_repairer_two_dice():
    """SABOTAGE: "Any player attempting to repair that area ... must discard two dice ...
    If they do not have two dice, they discard as many as they can ... there may only ever
    be one area that is sabotaged at any given time."""
    t = revealed_table()
    t.do(2, "action", "sabotage", "shield")
    t.turn(2)
    assert ("sabotage", "shield") not in t.waits("action", 2)
    t.do(2, "action", "sabotage", "outpost")
    assert t.g.sabotage == "outpost"
    put(t, "outpost", "command")
    t.g.seats[1].die_tokens = -2             # limit two, and two dice: after rolling one,
    t.dice(1, 0, 2)                          # only one is left to discard
    t.turn(1)
    t.do(1, "action", "repair", "outpost")
    t.fix(-2)
    t.roll(1, 0, 1)
    t.submit(1, -2)                          # failed, and sabotaged all the same
    assert t.g.sabotage is None and held(t, 1) == (0, 0, 0)
    assert t.g.outpost_board == ["command"]


@pytest.mark.parametrize("face, damaged", [(2, False), (-1, True)])
def test_test_commander(face, damaged):
    """TEST COMMANDER: "The Commander must roll all of their active dice and submit one. If
    positive, the Commander is successful and nothing happens. If negative ... the Infected
    player may draw a Damage token of their choice." """
    t = revealed_table()
    t.fix(face, -2, -2, -2, -2)
    t.do(2, "action", "test_commander")
    assert len(t.rolled(0)) == 5             # all active dice, the commander die too
    t.submit(0, face)
    if damaged:
        assert t.waits("damage_kind", 2) == [("shield",), ("outpost",), ("fatigue",),
                                             ("none",)]   # "may draw": optional
        t.fix("luba")
        t.do(2, "damage_kind", "fatigue")
        assert t.g.fatigue_board == ["luba"]
    else:
        t.waits("take_dice", 0)              # nothing happens: the next turn begins
        assert t.g.shield_tokens == 2 and not t.g.outpost_board and not t.g.fatigue_board
    assert sum(held(t, 0)) == 4 and not any(t.g.spent.values())   # one die spent, back


def test_test_commander_without_dice_fails():
    """TEST COMMANDER: "If the Commander has no active dice, it is an automatic failure." """
    t = revealed_table()
    t.dice(0, 0, 0, 0)
    t.do(2, "action", "test_commander")
    assert t.waits("damage_kind", 2) == [("shield",), ("outpost",), ("fatigue",), ("none",)]
    t.do(2, "damage_kind", "none")
    assert t.g.shield_tokens == 2 and not t.g.outpost_board and not t.g.fatigue_board


def test_demoralize_swaps_strong_for_weak_from_the_left_while_weak_dice_last():
    """DEMORALIZE: "All players, beginning with the first to the Infected player's left, must
    replace all of their active black Strong dice with red Weak dice until there are no more
    Weak dice in the Available Resources pool." """
    t = Table(("jon", "luba", "chaya", "steve"), commander=3, infected={1: INFECTED})
    t.g.seats[1].revealed = True
    t.dice(1, 1, 1)
    t.turn(1)
    t.g.pool[WEAK] = 3
    t.do(1, "action", "demoralize")
    assert [held(t, s)[:2] for s in (2, 3, 0)] == [(0, 4), (1, 3), (2, 2)]
    assert t.g.pool[WEAK] == 0


def test_costly_actions_need_a_die():
    """COSTLY ACTIONS: "When performing any of the five Infection actions, the Infected
    player must first submit any die to the Available Resources pool." """
    t = revealed_table(variants=("costly_actions",))
    t.g.shield_tokens = 0
    t.do(2, "action", "energy_spike")        # the price: one of its two dice, its choice
    t.do(2, "discard", "discard", 1, 0, 0)
    assert held(t, 2) == (0, 1, 0) and t.g.shield_tokens == 1
    t.dice(2, 0, 0)
    t.g.pool.update({STRONG: 0, WEAK: 0})   # nothing to retrieve either
    t.turn(2)
    assert t.waits("action", 2) == [("pass",)]
    assert dict(t.pending.blocked[2])[("energy_spike",)] == "costly_actions_no_die"


def test_fatigued_infected_submit_one_die():
    """FATIGUED INFECTED: "Revealed Infected players may only submit a single die during
    Malfunction Tasks." """
    t = Table(("jon", "luba", "chaya"), commander=0, infected={2: INFECTED},
              variants=("fatigued_infected",))
    t.g.seats[2].revealed = True
    t.dice(2, 1, 1)
    t.task("outpost_5", active=1)
    all_out(t, 1)
    t.do(2, "participation", "in")
    t.fix(2, 1)
    t.do(0, "participation", "out")
    assert all(len(o) == 2 for o in t.waits("submit", 2))


def test_flimsy_quarantine_lets_quarantined_players_choose_tasks():
    """FLIMSY QUARANTINE: "Quarantined players may draw and choose Task cards as normal at
    the end of their turn." """
    t = Table(("jon", "luba", "chaya"), commander=2, variants=("flimsy_quarantine",))
    t.g.seats[0].quarantined = True
    t.dice(0, 1, 1)
    t.turn(0)
    t.do(0, "action", "pass")
    assert len(t.waits("task", 0)) == 2


def test_telepathic_infected_see_their_team_only_from_five_players():
    """TELEPATHIC INFECTED (5-7 PLAYERS ONLY): "all Infected players may open their eyes and
    look at one another, identifying who their teammates are"."""
    with pytest.raises(BadSetup):
        start(Setup(NAMES[:4], variants=("telepathic_infected",)), random.Random(1))
    g = replay(start(Setup(NAMES[:5], variants=("telepathic_infected",)), random.Random(1)))
    team = [i for i, s in enumerate(g.seats) if s.infected]
    assert len(team) == 2
    for seat in range(5):
        assert seat_view(g, seat)["you"]["infected_team"] == (team if seat in team else [])
