"""Issue 11, the rules at hand: when the rules answer or skip a decision by themselves, the
log says which rule did it (a `ruled` fact), so nobody wonders why the game did not wait for
them. Each case below is a moment the engine moves on without asking, with the rulebook
passage that makes it so."""
from __future__ import annotations

from companion.darkmoon import Setup, replay
from companion.darkmoon.data import COMMANDER, FATIGUE, OUTPOST, STRONG, WEAK
from companion.darkmoon.views import public_view
from companion.tools.simulate import helpful_choice, play_game

from .position import Table, held, put

INFECTED = "infected_outpost"


def ruled(t, rule: str) -> dict:
    """The one `ruled` fact naming `rule`; it must be public unless said otherwise."""
    found = [f for f in t.facts_of("ruled") if f["rule"] == rule]
    assert len(found) == 1, (rule, t.facts_of("ruled"))
    return found[0]


def before(t, first: dict, kind: str) -> bool:
    """`first` comes before the first fact of `kind`: the reason, then what it caused."""
    kinds = [f["k"] for f in t.facts]
    return t.facts.index(first) < kinds.index(kind)


# --- quarantine and revealing: no task card ---

def test_a_quarantined_player_draws_no_task_and_the_log_says_why():
    """QUARANTINE: "On a quarantined player's turn: ... They do NOT draw Task cards at the
    end of their turn. After performing an action, play passes to the next player." """
    t = Table(("jon", "luba", "chaya"), commander=2)
    t.g.seats[0].quarantined = True
    t.dice(0, 1, 1)
    t.turn(0)
    t.do(0, "action", "pass")
    fact = ruled(t, "quarantine_no_task")
    assert fact["seat"] == 0 and "to" not in fact
    assert not t.facts_of("tasks_drawn")
    t.waits("action", 1)


def test_a_revealed_infected_draws_no_task_and_the_log_says_why():
    """REVEALING AS INFECTED: players who have openly declared for the Infected team "No
    longer draw Task cards at the end of their turn." """
    t = Table(("jon", "luba", "chaya"), commander=2, infected={0: INFECTED})
    t.g.seats[0].revealed = True
    t.dice(0, 1, 1)
    t.turn(0)
    t.do(0, "action", "pass")
    assert ruled(t, "revealed_no_task")["seat"] == 0
    assert not t.facts_of("tasks_drawn")


# --- retrieving dice: nothing to take, or one way to take it ---

def test_a_seat_at_its_die_limit_is_not_asked_to_take_dice():
    """RETRIEVE DICE: "The active player retrieves as many dice from the available dice pool
    as needed to match their die limit" — at the limit, that is none."""
    t = Table(("jon", "luba", "chaya"), commander=2)
    t.turn(0)
    fact = ruled(t, "at_die_limit")
    assert fact == {"k": "ruled", "rule": "at_die_limit", "seat": 0, "decision": "take_dice"}
    assert before(t, fact, "took_dice")
    t.waits("action", 0)


def test_an_empty_pool_gives_nothing_to_take_and_the_log_says_why():
    """RETRIEVE DICE: the dice come "from the Available Resources pool"; with none there, the
    player takes none and the turn goes on."""
    t = Table(("jon", "luba", "chaya"), commander=2)
    t.dice(0, 1, 0)
    t.dice(2, 0, 8, 1)
    t.dice(1, 13, 6)
    assert t.g.pool == {STRONG: 0, WEAK: 0, COMMANDER: 0}
    t.turn(0)
    assert ruled(t, "pool_empty")["seat"] == 0
    t.waits("action", 0)


def test_a_single_way_to_take_dice_is_taken_and_logged():
    """RETRIEVE DICE: "They may choose any combination of Weak or Strong dice" — with only
    weak dice in the pool there is one combination, and nothing to ask."""
    t = Table(("jon", "luba", "chaya"), commander=2)
    t.dice(0, 2, 1)
    t.dice(2, 0, 2, 1)
    t.dice(1, 12, 2)   # every other strong die is held: the pool has weak dice only
    assert t.g.pool[STRONG] == 0 and t.g.pool[WEAK] > 0
    t.turn(0)
    fact = ruled(t, "only_choice")
    assert (fact["seat"], fact["decision"]) == (0, "take_dice") and "to" not in fact
    assert held(t, 0) == (2, 2, 0)
    t.waits("action", 0)


def test_a_single_way_to_roll_is_told_to_the_roller_alone():
    """REPAIR: the player rolls up to three of their dice; holding one weak die, there is one
    way to do it. Which dice a player holds is theirs to know: the fact is private."""
    t = Table(("jon", "luba", "chaya"), commander=2)
    t.g.shield_tokens = 3
    t.dice(0, 0, 1)
    t.g.pool = {STRONG: 0, WEAK: 0, COMMANDER: 0}   # nothing to retrieve at turn start
    t.turn(0)
    t.do(0, "action", "repair", "shield")
    (fact,) = [f for f in t.facts_of("ruled") if f.get("decision") == "roll_dice"]
    assert fact["rule"] == "only_choice" and fact["to"] == [0]
    t.waits("submit", 0)


# --- malfunctions: nobody asked to roll again ---

def test_a_fatigued_player_is_not_asked_to_roll_again():
    """FATIGUE: "they may only submit a single die during a Malfunction" — after it, there is
    no "roll again?" to ask."""
    t = Table(("chaya", "jon", "enver"), commander=1)
    put(t, "fatigue", "chaya")
    t.task("life_support_7", active=0)      # difficulty 7: a second roll would matter
    t.fix(-1, -2, 3, -2)                    # her roll: strong dice first, then weak
    for seat in (0, 1, 2):
        t.do(seat, "participation", "in" if seat == 0 else "out")
    t.waits("submit", 0)
    t.submit(0, 3)
    fact = ruled(t, "fatigued_one_die")
    assert fact["seat"] == 0 and "to" not in fact
    assert t.facts_of("malfunction_result")[0]["total"] == 3   # over: no "roll again?"


def test_a_player_with_no_dice_left_is_not_asked_to_roll_again():
    """MALFUNCTION TASKS: a player IN "must roll and submit at least one die" each time they
    roll; with every die submitted there is nothing left to roll."""
    t = Table(("jon", "luba", "chaya"), commander=2)
    t.dice(1, 0, 1)
    t.task("outpost_5", active=0)
    t.do(0, "participation", "out")
    t.fix(3)
    t.do(1, "participation", "in")
    t.do(2, "participation", "out")
    t.submit(1, 3)
    assert ruled(t, "no_dice_left")["seat"] == 1
    assert not any(f["k"] == "stopped_rolling" for f in t.facts)


def test_a_success_bonus_with_nothing_to_remove_is_not_offered():
    """MALFUNCTION TASKS item 5, the success bonus: a token of the malfunction's type is
    removed; with none on the board there is nothing to offer."""
    t = Table(("jon", "luba", "chaya"), commander=2)
    t.task("outpost_4", active=0)            # difficulty 4, with a bonus
    t.do(0, "participation", "in")
    t.do(1, "participation", "out")
    t.fix(4, -2, -2, -2)
    t.do(2, "participation", "out")
    t.submit(0, 4)
    t.do(0, "continue", "stop")
    assert t.facts_of("malfunction_result")[0]["success"]
    assert ruled(t, "no_bonus_token")["seat"] == 0


# --- revealing, Test Commander ---

def test_a_reveal_from_quarantine_uses_no_power_and_the_log_says_why():
    """REVEALING AS INFECTED: "If not quarantined, they execute the Infection Power on their
    Status card immediately." """
    t = Table(("jon", "luba", "chaya"), commander=2, infected={0: INFECTED})
    t.g.seats[0].quarantined = True
    t.dice(0, 1, 1)
    t.turn(0)
    t.do(0, "action", "reveal")
    assert ruled(t, "quarantined_reveal")["seat"] == 0
    assert not t.facts_of("infection_power")


def test_nerfed_reveal_variants_say_what_they_take_away():
    """NERFED REVEAL - EXTREME: "they are not allowed to trigger their Infection Power at
    all". NERFED REVEAL - NORMAL: "they are NOT allowed to roll a die to see if they may
    trigger their Infection Power a second time." """
    t = Table(("jon", "luba", "chaya"), commander=2, infected={0: "infected_shields"},
              variants=("nerfed_reveal_extreme",))
    t.turn(0)
    t.do(0, "action", "reveal")
    assert ruled(t, "nerfed_reveal_extreme")["seat"] == 0
    assert not t.facts_of("infection_power")

    t = Table(("jon", "luba", "chaya"), commander=2, infected={0: "infected_shields"},
              variants=("nerfed_reveal_normal",))
    t.turn(0)
    t.fix(-2)                                # the shield test after the power's token
    t.do(0, "action", "reveal")
    assert ruled(t, "nerfed_reveal_normal")["seat"] == 0
    assert len(t.facts_of("infection_power")) == 1 and not t.facts_of("power_roll")


def test_test_commander_without_dice_fails_at_once_and_the_log_says_why():
    """TEST COMMANDER: "If the Commander has no active dice, it is an automatic failure." """
    t = Table(("jon", "luba", "chaya"), commander=2, infected={0: INFECTED})
    t.g.seats[0].revealed = True
    t.dice(0, 1, 1)
    t.dice(2, 0, 0, 0)
    t.turn(0)
    t.do(0, "action", "test_commander")
    fact = ruled(t, "commander_no_dice")
    assert fact["seat"] == 2 and before(t, fact, "commander_tested")
    assert not t.facts_of("commander_tested")[0]["success"]
    t.waits("damage_kind", 0)


# --- events and complications with nobody, or nothing, to choose ---

def test_pass_command_with_everyone_else_quarantined_keeps_the_command():
    """PASS COMMAND makes the commander hand over the card; with every other player in
    quarantine nobody can take it (facts §8 q2), and the log says so."""
    t = Table(("jon", "luba", "chaya"), commander=2)
    t.g.seats[0].quarantined = t.g.seats[1].quarantined = True
    t.go(("event:pass_command", {}), ("turn_start", {"seat": 0}))
    assert ruled(t, "command_cannot_pass")["seat"] == 2
    assert t.g.commander == 2


def test_restore_comm_skips_a_revealed_infected_and_the_log_says_why():
    """RESTORE COMM (card notes): "Revealed Infected players do not get to retrieve dice when
    this Event is completed." """
    t = Table(("jon", "luba", "chaya"), commander=2, infected={1: INFECTED})
    t.g.seats[1].revealed = True
    t.dice(0, 1, 1)
    t.dice(1, 1, 0)
    t.dice(2, 2, 2, 1)
    t.g.active = 0
    t.go(("event:restore_comm", {}))
    assert ruled(t, "restore_comm_revealed")["seat"] == 1
    t.waits("take_dice", 0)


def test_system_reboot_stops_where_any_token_would_end_the_game():
    """SYSTEM REBOOT (card notes): "The Commander cannot cause the game to end (this may mean
    that fewer than five Damage tokens are drawn)." """
    t = Table(("jon", "luba", "chaya"), commander=2)
    t.g.shield_tokens = 5
    put(t, OUTPOST, "shield_control", "life_support", "research_lab", "communications",
        "hangar_bay")
    put(t, FATIGUE, "chaya", "michihiro", "enver", "steve", "luba")
    t.go(("event:system_reboot", {}), ("turn_start", {"seat": 0}))
    assert ruled(t, "system_reboot_stops")["seat"] == 2
    assert t.g.outcome is None


def test_failure_to_lead_with_nobody_free_succeeds_and_the_log_says_why():
    """FAILURE TO LEAD: the active player names a new commander; with everyone else in
    quarantine nobody can be named, and the task succeeds (facts §8 q2)."""
    t = Table(("jon", "luba", "chaya"), commander=0)
    t.g.seats[1].quarantined = t.g.seats[2].quarantined = True
    t.task("failure_to_lead", active=0)
    fact = ruled(t, "nobody_to_lead")
    assert (fact["seat"], fact["card"]) == (0, "failure_to_lead")
    assert t.facts_of("task_result")[0]["success"]


def test_act_of_trust_with_nobody_to_ask_fails_and_the_log_says_why():
    """ACT OF TRUST: the active player chooses another player; with every other player
    revealed as Infected there is nobody, and the refusal's cost is paid (RB example)."""
    t = Table(("jon", "luba", "chaya"), commander=0,
              infected={1: INFECTED, 2: "infected_shields"})
    t.g.seats[1].revealed = t.g.seats[2].revealed = True
    t.fix("command")
    t.task("act_of_trust_outpost", active=0)
    fact = ruled(t, "nobody_to_choose")
    assert (fact["seat"], fact["card"]) == (0, "act_of_trust_outpost")
    assert not t.facts_of("task_result")[0]["success"]


def test_strategic_compromise_with_no_token_to_remove_goes_on_to_draw():
    """STRATEGIC COMPROMISE (card notes): "drawing Damage tokens is not optional"; with no
    damage token on the board there is nothing to remove first."""
    t = Table(("jon", "luba", "chaya"), commander=2)
    t.g.shield_tokens = 0
    t.task("strategic_compromise", active=0)
    fact = ruled(t, "nothing_to_remove")
    assert (fact["seat"], fact["card"]) == (0, "strategic_compromise")
    t.waits("compromise_kind", 0)


def test_a_sabotaged_repair_by_a_player_with_no_dice_left_discards_nothing():
    """SABOTAGE: "they must discard two dice to the board ... If they do not have two dice,
    they discard as many as they can." With none left, there is nothing to discard."""
    t = Table(("jon", "luba", "chaya"), commander=2)
    t.g.shield_tokens, t.g.sabotage = 3, "shield"
    t.dice(0, 0, 1)
    t.g.pool = {STRONG: 0, WEAK: 0, COMMANDER: 0}
    t.turn(0)
    t.fix(3)
    t.do(0, "action", "repair", "shield")
    t.submit(0, 3)
    assert ruled(t, "no_dice_to_discard")["seat"] == 0
    assert t.g.sabotage is None


# --- old games ---

def test_a_game_stored_before_the_fact_existed_replays_to_the_same_state():
    """Replay rebuilds a game from its commands and chance outcomes; the facts are what the
    log shows, not what the state is made of. So a game stored before `ruled` facts existed
    (the same events without them) replays exactly, and RULES_VERSION need not change."""
    played = play_game(Setup(("A", "B", "C", "D", "E")), 3, choose=helpful_choice)
    assert any(f["k"] == "ruled" for e in played.events for f in e["facts"])
    old = [{**e, "facts": [f for f in e["facts"] if f["k"] != "ruled"]}
           for e in played.events]
    assert public_view(replay(old)) == public_view(replay(played.events))
    assert replay(old).outcome == played.game.outcome


def test_ruled_facts_turn_up_in_real_games():
    """Over a few whole games the common automatic answers all happen and are logged."""
    rules = set()
    for seed in range(6):
        played = play_game(Setup(("A", "B", "C", "D", "E")), seed,
                           choose=helpful_choice)
        rules |= {f["rule"] for e in played.events for f in e["facts"] if f["k"] == "ruled"}
    assert {"at_die_limit", "fatigued_one_die", "no_dice_left"} <= rules, rules
