"""Every worked example of the rulebook, played move by move with the dice it shows."""
import pytest

from companion.darkmoon.data import COMMANDER, STRONG, WEAK

from .position import Table


def dice_of(t, seat):
    d = t.g.seats[seat].dice
    return d[STRONG], d[WEAK], d[COMMANDER]


@pytest.mark.parametrize("infected, submitted, tokens_after", [
    (True, -1, 3),   # what Jon does: "he submits the -1 weak die ... no Shield tokens are removed"
    (False, 2, 2),   # "If Jon was an Uninfected player, he would submit his +2 strong die"
])
def test_repair_example(infected, submitted, tokens_after):
    """REPAIR EXAMPLE (Perform an action: Repair): "There are three Shield tokens on the
    board ... he sets one of his Weak dice outside of his player shield and rolls the
    remaining three privately." A repair rolls at most three dice and submits one; a
    negative die fails and removes nothing."""
    t = Table(("jon", "luba", "chaya"), commander=1,
              infected={0: "infected_shields"} if infected else None)
    t.g.shield_tokens = 3
    t.turn(0)
    t.do(0, "action", "repair", "shield")
    rolls = t.waits("roll_dice", 0)
    assert ("roll", 2, 2, 0) not in rolls          # never more than three dice
    t.fix(2, -2, -1)                               # strong +2, strong -2, weak -1
    t.roll(0, 2, 1)
    t.submit(0, submitted)
    assert t.g.shield_tokens == tokens_after
    assert sum(dice_of(t, 0)) == 3                 # the submitted die went to the pool
    assert t.waits("task", 0)                      # the turn goes on to the task
    assert not t.unused


def test_voting_example():
    """VOTING EXAMPLE (Call a vote): "Jon has revealed a red Weak die ... Luba has obviously
    chosen a black Strong die ... Chaya's hand is empty ... a tie. Jon, however, is the
    Commander, and breaks ties. He chooses to place Luba in quarantine. Both Jon & Luba
    return their dice behind their screens." """
    t = Table(("jon", "luba", "chaya"), commander=0)
    t.turn(0)
    t.do(0, "action", "vote", 1)
    assert t.waits("vote", 0) == [("strong",), ("weak",), ("abstain",)]  # no commander die
    t.vote({0: "weak", 1: "strong", 2: "abstain"})
    assert t.waits("tie_break", 0) == [("quarantine",), ("free",)]
    t.do(0, "tie_break", "quarantine")
    assert t.g.seats[1].quarantined
    assert dice_of(t, 0) == (2, 2, 1) and dice_of(t, 1) == (2, 2, 0)   # ballots go back
    # Quarantine then lowers Luba's limit to two: she discards the excess (RB Quarantine).
    assert t.g.die_limit(1) == 2
    t.waits("discard", 1)
    t.do(1, "discard", "discard", 1, 1, 0)
    assert dice_of(t, 1) == (1, 1, 0)
    assert t.waits("task", 0)


def test_malfunction_task_example():
    """MALFUNCTION TASK EXAMPLE (Resolve task): "Jon Reed has chosen an Outpost Malfunction
    Task with a difficulty of 4 and a consequence of 3 ... Michihiro Tomoko, however, has
    only a single active die and chooses to be OUT. He retrieves two Strong dice" ... Jon
    submits (+4)(+1), rolls again and must submit a (-2): 3; Luba submits (-1), then (+4):
    "thereby ensuring the Task succeeds"."""
    t = Table(("jon", "luba", "michihiro"), commander=1,
              infected={1: "infected_outpost"})
    jon, luba, michihiro = 0, 1, 2
    t.dice(luba, 1, 2)               # the commander die is in the pool: she rolls three
    t.dice(michihiro, 0, 1)
    t.stack_tasks("outpost_4", "life_support_7")
    t.turn(jon)
    t.do(jon, "action", "pass")
    t.do(jon, "task", "task", "outpost_4")
    assert (t.g.task.difficulty, t.g.task.consequence) == (4, 3)
    for seat, choice in ((jon, "in"), (luba, "in"), (michihiro, "out")):
        t.do(seat, "participation", choice)  # the active player first, then clockwise
    assert ("take", 2, 0) in t.waits("take_dice", michihiro)
    t.fix(4, -2, -1, 1)              # Jon's four dice: (-1)(+1)(+4)(-2)
    t.do(michihiro, "take_dice", "take", 2, 0)
    assert dice_of(t, michihiro) == (2, 1, 0)
    assert t.rolled(jon) == [4, -2, -1, 1]  # every active die is rolled
    t.submit(jon, 4, 1)
    assert t.g.task.success_total == 5
    t.fix(-2, -2)
    t.do(jon, "continue", "roll_again")
    assert ("stop",) not in t.waits("submit", jon)   # rolled again: must submit one
    t.submit(jon, -2)
    assert t.g.task.success_total == 3
    t.fix(2, -1, 3)                  # Luba's three dice: (-1)(+3)(+2)
    t.do(jon, "continue", "stop")
    assert ("reroll",) not in t.waits("submit", luba)  # not the active player
    t.submit(luba, -1)
    assert t.g.task.success_total == 2
    t.fix(4, 3)                      # (+3)(+4)
    t.do(luba, "continue", "roll_again")
    t.submit(luba, 4)
    assert t.g.task.success_total == 6
    t.do(luba, "continue", "stop")

    result, = t.facts_of("malfunction_result")
    assert result["success"] and result["total"] == 6 and result["difficulty"] == 4
    assert t.g.outpost_board == [] and t.g.event_cubes == 1
    assert t.g.suspicion == 2        # the card is SUSPICIOUS ACTIVITY
    assert not t.unused


def test_testing_the_shield_example():
    """TESTING THE SHIELD (Shield malfunction): "There is a single Shield token ... The
    players fail a Malfunction Task where the consequence is to draw two Shield tokens ...
    The active player now tests the shield and rolls any die, coming up with a +2. Because
    the Failure Condition is any positive number, the active player must choose to draw
    either a Fatigue token or an Outpost token." """
    t = Table(("jon", "luba", "chaya"), commander=2)
    t.g.shield_tokens = 1
    t.task("shield_5", active=0)     # difficulty 5, consequence 2
    t.fix(2)                         # the shield test's die
    for seat in (0, 1, 2):
        t.do(seat, "participation", "out")
    assert t.waits("damage_kind", 0) == [("outpost",), ("fatigue",)]
    test, = t.facts_of("shield_test")
    assert test == {"k": "shield_test", "tokens": 3, "face": 2, "failed": True}
    t.fix("luba")
    t.do(0, "damage_kind", "fatigue")
    assert t.g.shield_tokens == 3 and t.g.fatigue_board == ["luba"] and t.g.fatigued(1)
    assert not t.unused


def test_sabotage_example():
    """SABOTAGE EXAMPLE: "Michihiro chooses REPAIR OUTPOST as his action, even though
    Outpost Control is sabotaged ... coming up with (+1)(-1)(-2). He submits the (+1) ...
    He removes the Life Support token ... Michihiro must now discard two of his active dice
    to the board. After doing so, he removes the Sabotage token." """
    t = Table(("michihiro", "luba", "chaya"), commander=1)
    t.g.sabotage = "outpost"
    for token in ("life_support", "hangar_bay"):
        t.g.outpost_pile.remove(token)
        t.g.outpost_board.append(token)
    t.g.fatigue_board, t.g.fatigue_pile = ["steve"], ["jon", "luba", "chaya", "michihiro",
                                                      "enver"]
    t.turn(0)
    assert ("repair", "fatigue") not in t.waits("action", 0)   # blocked by Life Support
    t.do(0, "action", "repair", "outpost")
    t.fix(-1, -2, 1)
    t.roll(0, 2, 1)                  # one die stays outside the roll
    t.submit(0, 1)
    t.do(0, "remove_token", "outpost", "life_support")
    assert t.g.outpost_board == ["hangar_bay"] and "life_support" in t.g.outpost_pile
    assert sum(dice_of(t, 0)) == 3
    t.do(0, "discard", "discard", 1, 1, 0)
    assert sum(dice_of(t, 0)) == 1 and t.g.sabotage is None
    t.do(0, "task", *t.waits("task", 0)[0])
    # "ensuring that life support may be repaired on future turns"
    t.turn(1)
    assert ("repair", "fatigue") in t.waits("action", 1)
    assert not t.unused


@pytest.mark.parametrize("tokens_before", [0, -1])
def test_act_of_trust_example_agreed(tokens_before):
    """ACT OF TRUST EXAMPLE (Card notes): "Steve has just played an Act of Trust card, and he
    has chosen Enver (who is currently in quarantine) ... He places a -1 Die token on his
    player shield ... (because he's quarantined, his current die limit is only one). Steve
    takes a +1 Die token ... The Task then succeeds." Quarantined (2) less a token is 1; a
    limit already at 1 stays 1: "A player is always considered to have a die limit of at
    least 1" (Die limits)."""
    t = Table(("steve", "enver", "luba"), commander=2)
    steve, enver = 0, 1
    t.g.seats[enver].quarantined = True
    t.g.seats[enver].die_tokens = tokens_before
    t.dice(enver, 1, 0)
    t.task("act_of_trust_outpost", active=steve)
    assert ("player", enver) in t.waits("choose_player", steve)   # quarantined is fine
    t.do(steve, "choose_player", "player", enver)
    t.do(enver, "agree", "agree")
    assert t.g.seats[enver].die_tokens == tokens_before - 1
    assert t.g.die_limit(enver) == 1 and dice_of(t, enver) == (1, 0, 0)
    assert t.g.die_limit(steve) == 5
    assert sum(dice_of(t, steve)) == 4    # a raised limit retrieves nothing at once
    assert t.g.event_cubes == 1           # the task succeeded
    assert t.g.outpost_board == []


def test_act_of_trust_example_refused():
    """ACT OF TRUST EXAMPLE: "If Enver refuses, an Outpost token will be drawn and the Task
    will fail." """
    t = Table(("steve", "enver", "luba"), commander=2)
    t.g.seats[1].quarantined = True
    t.dice(1, 1, 1)
    t.task("act_of_trust_outpost", active=0)
    t.do(0, "choose_player", "player", 1)
    t.fix("research_lab")
    t.do(1, "agree", "refuse")
    assert t.g.outpost_board == ["research_lab"]
    assert t.g.event_cubes == 0
    assert [s.die_tokens for s in t.g.seats] == [0, 0, 0]
    assert not t.unused


def test_becoming_quarantined_example():
    """BECOMING QUARANTINED: "Earlier in the game he received an extra Die token due to an
    ACT OF TRUST ... from four to five. He now places the Quarantine token ... Jon's new die
    limit is three dice. If he is released from quarantine, his die limit will return to
    five." Release does not retrieve dice: "they do not automatically retrieve those dice"
    (Quarantine)."""
    t = Table(("jon", "luba", "chaya"), commander=1)
    jon = 0
    t.g.seats[jon].die_tokens = 1
    t.dice(jon, 3, 2)
    assert t.g.die_limit(jon) == 5
    t.turn(1)
    t.do(1, "action", "vote", jon)
    t.vote({0: "strong", 1: "weak", 2: "weak"})
    assert t.g.seats[jon].quarantined and t.g.die_limit(jon) == 3
    t.do(jon, "discard", "discard", 1, 1, 0)          # two over the new limit
    assert sum(dice_of(t, jon)) == 3
    t.turn(2)
    t.do(2, "action", "vote", jon)
    t.vote({0: "strong", 1: "strong", 2: "abstain"})
    assert not t.g.seats[jon].quarantined and t.g.die_limit(jon) == 5
    assert sum(dice_of(t, jon)) == 3


def test_luba_card_note_example():
    """LUBA ZHELEZNYAK (Card notes): "during a Malfunction Task Luba rolls a -2, -2, and -1
    ... she chooses to use her once-per-turn special ability and reroll all of her dice ...
    she will have to submit at least one die regardless of what comes up on her reroll."
    """
    t = Table(("luba", "jon", "chaya"), commander=2)
    t.dice(0, 1, 2)
    t.task("outpost_5", active=0)
    t.do(0, "participation", "in")
    t.do(1, "participation", "out")
    t.fix(-2, -2, -1)
    t.do(2, "participation", "out")
    assert sorted(t.rolled(0)) == [-2, -2, -1]
    assert ("reroll",) in t.waits("submit", 0)
    t.fix(-1, -2, -2)
    t.do(0, "submit", "reroll")
    options = t.waits("submit", 0)
    assert ("reroll",) not in options and all(o[0] == "submit" and len(o) > 1
                                              for o in options)
    t.submit(0, -1)
    t.fix(-2, -2)
    t.do(0, "continue", "roll_again")
    assert ("reroll",) not in t.waits("submit", 0)   # once per turn
    assert not t.unused
