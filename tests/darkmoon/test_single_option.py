"""A choice with one legal answer is not asked (the rules answer it and the log says so), unless
whether it has one answer depends on a secret. RB ROLLING & SUBMITTING DICE: "Dice rolls are
always private" and "The number of active dice a player has behind their screen as well as
what kinds of dice (either Strong or Weak) is also private." A choice that has one answer only
because of what a seat holds, rolled or is is still asked: answered for the seat, it would show
the table (the game would move on without waiting for it) what the seat holds. These are the
decisions random games ask with a single option; each is checked here to be asked, and to look
to every other seat like the same decision with more options."""
from __future__ import annotations

from companion.darkmoon import public_view, seat_view

from .position import Table, put

INFECTED = "infected_outpost"


def others_see_the_same(t, seat: int, other: Table) -> None:
    """What the game waits for, as every other seat and the board see it, is the same as in
    `other`, where the seat had more than one option."""
    for s in range(t.g.players):
        if s != seat:
            assert seat_view(t.g, s)["you"] == seat_view(other.g, s)["you"], s
    assert public_view(t.g)["waiting"] == public_view(other.g)["waiting"]
    assert t.g.state_id == other.g.state_id


def test_a_seat_with_no_die_to_show_still_votes_with_an_empty_fist():
    """RB CALL A VOTE: "All players then hold out a closed fist and simultaneously reveal what
    they've concealed inside": a player without dice holds out an empty fist like the rest."""
    t, full = Table(), Table()
    for table in (t, full):
        table.turn(1)
    t.dice(0, 0, 0)
    for table in (t, full):
        table.do(1, "action", "vote", 2)
    assert t.waits("vote", 0) == [("abstain",)]
    assert full.waits("vote", 0) == [("strong",), ("weak",), ("abstain",)]
    assert not [f for f in t.facts_of("ruled") if f.get("decision") == "vote"]
    assert t.g.pending.seats == [0, 1, 2]
    others_see_the_same(t, 0, full)


def test_a_roll_of_a_single_die_is_still_submitted_by_its_player():
    """RB ROLLING & SUBMITTING DICE: "The only dice that are seen publicly are the ones that a
    player chooses to submit": a seat that rolled one die chooses to submit it, as one that
    rolled three would (how many dice it rolled is its own)."""
    t = Table()
    put(t, "outpost", "life_support")
    t.turn(0)
    t.do(0, "action", "repair", "outpost")
    t.fix(2)
    t.roll(0, 1, 0)
    assert t.waits("submit", 0) == [("submit", 0)]
    assert not [f for f in t.facts_of("ruled") if f.get("decision") == "submit"]
    t.do(0, "submit", "submit", 0)
    assert t.facts_of("repair")[0]["success"]


def test_corporation_dice_showing_the_same_face_are_still_submitted_by_their_roller():
    """ESOG CHOOSE A TASK CARD: the active player must "secretly roll 2 of the yellow
    corporation dice and publicly submit one": when both show the same face there is one
    choice, still asked, or the table would learn that they matched."""
    t = Table(variants=("shadow_corporation",))
    t.fix(-1, -1)
    t.task("outpost_5", active=0)
    assert t.waits("corporation", 0) == [("submit", 0)]
    assert not t.facts_of("ruled")


def test_an_uninfected_seat_with_every_action_blocked_is_still_asked_to_pass():
    """QUARANTINE: "If CALL VOTE and ISSUE ORDER have been blocked by Outpost tokens and the
    player is not Infected, then they have no available actions." An Infected player in the
    same place may still REVEAL AS INFECTED, so passing is asked of everyone alike: the game
    moving on by itself would tell the table the seat is Uninfected."""
    seen = {}
    for status in ("uninfected", INFECTED):
        t = Table(infected={0: INFECTED} if status == INFECTED else None)
        put(t, "outpost", "research_lab", "communications")
        t.g.seats[0].quarantined = True
        t.turn(0)
        seen[status] = (t.waits("action", 0), public_view(t.g)["waiting"])
    assert seen["uninfected"][0] == [("pass",)]
    assert seen[INFECTED][0] == [("reveal",), ("pass",)]
    assert seen["uninfected"][1] == seen[INFECTED][1]
