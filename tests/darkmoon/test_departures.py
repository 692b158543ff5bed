"""The rulings of issue 10: five places where the engine departed from the rulebook, and
where the second drawn Event goes in play. Each test quotes the passage it checks.

RB = the rulebook (rules/darkmoon-rulebook-en.txt); facts = darkmoon-facts.md.
"""
import pytest

from companion.darkmoon.data import (COMMANDER, EVENTS, FATIGUE, OUTPOST, SHIELD, STRONG,
                                     WEAK)

from .position import Table, held, put

SEVEN = ("steve", "enver", "michihiro", "jon", "luba", "chaya", "daniel")


def complete_event(t, event, seat=0):
    """Add the last cube to `event` on `seat`'s turn, then play on into the next turn."""
    t.g.event = event
    t.g.event_cubes = EVENTS[event].cubes - 1
    t.g.active = seat
    t.go(("add_event_cube", {}), ("turn_start", {"seat": t.g.left_of(seat)}))


def new_commander_without_the_die(t, seat):
    """The commander card has just passed to `seat`: the die waits in the pool (RB "If the
    Commander role changes to another player, the previous Commander immediately places
    the Commander die on the Available Resources pool")."""
    old = t.g.commander
    t.g.commander = seat
    d = t.g.seats[old].dice
    t.dice(old, d[STRONG], d[WEAK], 0)
    assert t.g.pool[COMMANDER] == 1


# --- 1. the commander die comes with every retrieval -----------------------------------

def test_a_new_commander_takes_the_commander_die_when_going_out():
    """DIE LIMITS: "they do NOT immediately retrieve their new dice (including the
    Commander die if a player has just received the Commander card). A player may only
    retrieve dice at the beginning of their turn, when passing during a Malfunction Task,
    when issued an order by another player, or when a completed Event card allows them to."
    Facts §7: "Each of those retrievals may include it." """
    t = Table(("jon", "luba", "chaya"), commander=0)
    new_commander_without_the_die(t, 2)
    t.dice(2, 1, 1)
    t.task("outpost_5", active=0)
    t.do(0, "participation", "out")          # seats 0 and 1 are full: nothing to take
    t.do(1, "participation", "out")
    assert held(t, 2)[2] == 0                # not before the retrieval
    t.do(2, "participation", "out")
    assert held(t, 2)[2] == 1 and t.g.pool[COMMANDER] == 0
    assert t.facts_of("took_commander_die") == [{"k": "took_commander_die", "seat": 2}]
    t.do(2, "take_dice", "take", 1, 1)       # and the ordinary dice, within the limit
    assert held(t, 2) == (2, 2, 1)


def test_a_new_commander_takes_the_commander_die_when_ordered_to_retrieve():
    """DIE LIMITS: "A player may only retrieve dice ... when issued an order by another
    player"; facts §7: "Each of those retrievals may include it." """
    t = Table(("jon", "luba", "chaya"), commander=0)
    new_commander_without_the_die(t, 2)
    t.dice(2, 1, 1)
    t.turn(1)
    t.do(1, "action", "order", 2)
    t.do(2, "order_response", "retrieve")
    assert held(t, 2)[2] == 1 and t.g.pool[COMMANDER] == 0
    t.do(2, "take_dice", "take", 0, 2)
    assert held(t, 2) == (1, 3, 1)


def test_only_the_commander_takes_the_die_when_going_out():
    """TURN STEP 1: "Only the Commander may retrieve the Commander die." """
    t = Table(("jon", "luba", "chaya"), commander=0)
    new_commander_without_the_die(t, 2)
    t.dice(1, 1, 1)
    t.task("outpost_5", active=0)
    t.do(0, "participation", "out")
    t.do(1, "participation", "out")
    assert held(t, 1)[2] == 0 and t.g.pool[COMMANDER] == 1
    assert not t.facts_of("took_commander_die")


# --- 2. Steve, Enver and Michihiro take back the die they just submitted ---------------

@pytest.mark.parametrize("character, area, token", [
    ("steve", SHIELD, None), ("enver", OUTPOST, "command"), ("michihiro", FATIGUE, "jon")])
def test_repair_ability_retrieves_after_the_submitted_die_is_back(character, area, token):
    """Facts §4: Michihiro (Enver, Steve alike) "takes 1 die back from the pool ... only
    after the submitted dice have gone back to the pool, so he may take back the very die
    he submitted ("repair without submitting dice")"; RB Strategy: "Rely on character
    abilities that allow you to repair without submitting dice". At seven players the 28
    dice are all behind the screens: the submitted die is the only one to take back."""
    t = Table(SEVEN, commander=6)
    seat = t.seat(character)
    if token:
        put(t, area, token)
    assert t.g.pool[STRONG] == t.g.pool[WEAK] == 0
    t.turn(seat)
    t.do(seat, "action", "repair", area)
    t.fix(4)
    t.roll(seat, 1, 0)
    t.submit(seat, 4)                        # the only die to take: taken without asking
    took = [(f["seat"], f["strong"], f["weak"]) for f in t.facts_of("took_dice")
            if f["reason"] == "ability"]
    assert took == [(seat, 1, 0)]
    assert held(t, seat) == (2, 2, 0)        # he repaired without losing a die
    assert t.g.pool[STRONG] == 0 and sum(t.g.spent.values()) == 0
    assert t.waits("task", seat)


# --- 3. Recovery is an at-start effect: its draws are not capped -----------------------

def test_recovery_sixth_fatigue_token_ends_the_game():
    """Facts §6a, Recovery: "An *at start* effect: the "stop just before a loss" cap of step
    6 applies only to events when *completed*, so Recovery's draws can end the game." RB
    Complete the Event: "If the Event card, when completed, calls for Damage tokens to be
    added, add them until doing so would cause the game to end"."""
    t = Table(("jon", "luba", "chaya"), commander=2)
    put(t, FATIGUE, "enver", "steve", "michihiro", "chaya", "luba")
    t.g.event_deck = [c for c in t.g.event_deck if c not in ("recovery", "lockdown")] + [
        "lockdown", "recovery"]
    complete_event(t, "food_rationing")
    t.do(2, "event", "event", "recovery")    # the last fatigue token, "jon", is drawn
    assert len(t.g.fatigue_board) == 6
    assert (t.g.outcome.winner, t.g.outcome.condition) == ("infected", "fatigue")
    assert not t.facts_of("damage_withheld")


# --- 4. Restore Comm: each player chooses how many dice to take ------------------------

def test_restore_comm_lets_each_player_take_any_number_up_to_the_limit():
    """RESTORE COMM (Card notes): "They may still retrieve dice up to their full die
    limit." Facts §6a: "Every player, starting with the active player, *may* take dice up
    to their die limit ... each chooses how many, 0 to the maximum." """
    t = Table(("jon", "luba", "chaya"), commander=2)
    t.dice(0, 0, 1)
    t.dice(1, 1, 0)
    complete_event(t, "restore_comm", seat=0)
    options = t.waits("take_dice", 0)
    assert ("take", 0, 0) in options and ("take", 1, 0) in options
    assert max(s + w for _, s, w in options) == 3
    t.do(0, "take_dice", "take", 0, 0)       # Jon keeps his one die
    assert ("take", 0, 1) in t.waits("take_dice", 1)
    t.do(1, "take_dice", "take", 0, 1)
    assert held(t, 0) == (0, 1, 0) and held(t, 1) == (1, 1, 0)
    took = [(f["seat"], f["strong"], f["weak"]) for f in t.facts_of("took_dice")]
    assert took[:2] == [(0, 0, 0), (1, 0, 1)]


def test_restore_comm_gives_a_new_commander_the_commander_die():
    """DIE LIMITS: "A player may only retrieve dice ... when a completed Event card allows
    them to"; facts §7: "Each of those retrievals may include it." """
    t = Table(("jon", "luba", "chaya"), commander=0)
    new_commander_without_the_die(t, 1)
    complete_event(t, "restore_comm", seat=0)
    assert held(t, 1) == (2, 2, 1) and t.g.pool[COMMANDER] == 0


# --- 5. Acceptable Loss and Strategic Compromise never draw a sixth token --------------

def test_acceptable_loss_never_offers_a_kind_with_five_tokens():
    """Facts §6c, Acceptable Loss: "NMWS never offers a kind that already has 5 tokens (the
    draw may not be the 6th of its kind) ... otherwise an Infected active player wins on the
    spot with a card the Uninfected drew." RB Card notes: "drawing a Damage token is not
    optional. Therefore, this card will always result in a successful Task." """
    t = Table(("jon", "luba", "chaya"), commander=2, infected={0: "infected_shields"})
    t.g.shield_tokens = 5
    put(t, OUTPOST, "command", "hangar_bay", "research_lab")
    t.task("acceptable_loss", active=0)
    assert t.waits("damage_kind", 0) == [(OUTPOST,), (FATIGUE,)]


def test_acceptable_loss_simply_succeeds_when_every_kind_has_five_tokens():
    """Facts §6c, Acceptable Loss: "if all three are at 5, the task simply succeeds." """
    t = Table(("jon", "luba", "chaya"), commander=2, infected={0: "infected_shields"})
    t.g.shield_tokens = 5
    put(t, OUTPOST, "command", "hangar_bay", "research_lab", "communications", "life_support")
    put(t, FATIGUE, "enver", "steve", "michihiro", "chaya", "luba")
    t.task("acceptable_loss", active=0)
    assert t.g.outcome is None
    assert (t.g.shield_tokens, len(t.g.outpost_board), len(t.g.fatigue_board)) == (5, 5, 5)
    result, = t.facts_of("task_result")
    assert result["success"]
    declined, = t.facts_of("damage_declined")
    assert declined["reason"] == "acceptable_loss"
    assert t.waits("action", 1)              # the game goes on to the next turn


def test_strategic_compromise_never_draws_a_sixth_token():
    """Facts §6c, Strategic Compromise: "Remove 1 damage token, then draw 2 damage tokens of
    any types; it always succeeds. As with Acceptable Loss, NMWS never lets a chosen token
    be the 6th of its kind." RB Card notes: "this card will always result in a successful
    Task." """
    t = Table(("jon", "luba", "chaya"), commander=2, infected={0: "infected_shields"})
    t.g.shield_tokens = 5
    put(t, OUTPOST, "command", "hangar_bay", "research_lab", "communications", "life_support")
    put(t, FATIGUE, "enver", "steve", "michihiro", "chaya", "luba")
    t.task("strategic_compromise", active=0)
    t.fix("steve")
    t.do(0, "remove_token", FATIGUE, "steve")
    # Fatigue was the only kind short of five: drawn without asking; then none is left.
    chosen = [f["kind"] for f in t.facts_of("damage_chosen")]
    assert chosen == [FATIGUE] and t.g.fatigue_board[-1] == "steve"
    assert t.g.outcome is None
    assert (t.g.shield_tokens, len(t.g.outpost_board), len(t.g.fatigue_board)) == (5, 5, 5)
    assert [f["reason"] for f in t.facts_of("damage_declined")] == ["strategic_compromise"]
    result, = t.facts_of("task_result")
    assert result["success"]
    assert t.waits("action", 1)


# --- in play, the second drawn Event is discarded, not put at the bottom ---------------

def test_in_play_the_second_event_is_discarded_face_down():
    """SELECT A NEW EVENT (turn step 7): "the Commander draws two more Event cards, placing
    one faceup on the board in the next spot and discarding the second facedown." (At
    setup, step 15, the other goes "at the bottom of the Event deck".)"""
    t = Table(("jon", "luba", "chaya"), commander=2)
    rest = [c for c in t.g.event_deck if c not in ("recovery", "lockdown")]
    t.g.event_deck = rest + ["recovery", "lockdown"]
    complete_event(t, "food_rationing")
    t.do(2, "event", "event", "lockdown")
    assert t.g.event == "lockdown"
    assert "recovery" not in t.g.event_deck and t.g.event_deck == rest
    discarded, = t.facts_of("event_discarded")
    assert discarded == {"k": "event_discarded", "to": [2], "seat": 2, "card": "recovery"}
    assert not t.facts_of("event_bottom")
    placed, = t.facts_of("event_placed")     # public: which card, and that one was discarded
    assert placed == {"k": "event_placed", "seat": 2, "card": "lockdown",
                      "other": "discarded"}
