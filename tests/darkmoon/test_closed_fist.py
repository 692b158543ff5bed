"""A vote is a die in a closed fist: RB Call a vote, "All players then hold out a closed fist
and simultaneously reveal what they've concealed inside." Until the fists open a player may
change what is in theirs; once they open, the vote is what they showed. The app's ballot is
that fist: a seat may answer the vote again, with any colour it holds, until the last seat has
answered; the reveal shows every seat's latest ballot, and nobody else learns what the ballot
is, nor whether it changed."""
from __future__ import annotations

import json
import random

import pytest

from companion.darkmoon import (Chance, Ctx, IllegalOption, NotYourDecision, Setup, StaleState,
                                WrongDecision, legal_options, play, public_view, replay,
                                seat_view, start)
from companion.darkmoon.api import waiting_for
from companion.darkmoon.views import decision_view

from .position import Table


def at_a_vote(players=("jon", "luba", "michihiro", "chaya")) -> Table:
    """Seat 1 has called a vote on seat 0; every seat holds 2 strong and 2 weak dice."""
    t = Table(players, commander=2)
    t.turn(1)
    t.do(1, "action", "vote", 0)
    t.waits("vote", 0)
    return t


def revealed(t) -> dict:
    (fact,) = t.facts_of("vote_revealed")
    return fact["ballots"]


def test_a_seat_may_change_its_ballot_until_the_last_seat_has_voted():
    t = at_a_vote()
    t.do(0, "vote", "weak")
    t.do(1, "vote", "weak")
    t.do(0, "vote", "abstain")         # the fist is still closed: seat 0 changes its die
    assert t.pending.answers[0] == ("abstain",)
    t.do(2, "vote", "abstain")
    t.do(0, "vote", "strong")          # and changes it again
    assert not t.facts_of("vote_revealed")
    t.do(3, "vote", "strong")          # the last fist closes: all open together
    assert revealed(t) == {0: "strong", 1: "weak", 2: "abstain", 3: "strong"}
    # Two BLACK against one RED: counted from the latest ballots (the first ones, two RED
    # against one BLACK, would have quarantined seat 0).
    (result,) = t.facts_of("vote_result")
    assert result["result"] == "free" and not t.g.seats[0].quarantined


def test_the_same_ballot_again_changes_nothing_and_is_no_error():
    """A phone that sends its vote twice (a retry) is answered like the first time."""
    t = at_a_vote()
    t.do(0, "vote", "weak")
    before = t.g.state_id
    t.do(0, "vote", "weak")
    assert t.g.state_id == before + 1 and t.pending.answers[0] == ("weak",)
    assert t.pending.seats == [1, 2, 3]
    t.vote({1: "strong", 2: "strong", 3: "weak"})
    assert revealed(t)[0] == "weak"


def test_a_change_may_only_be_to_a_colour_the_seat_holds():
    t = at_a_vote()
    t.dice(0, 2, 0)                    # no weak die in this hand
    t.g.pending.options[0] = [("strong",), ("abstain",)]
    t.do(0, "vote", "strong")
    with pytest.raises(IllegalOption):
        t.do(0, "vote", "weak")
    assert t.pending.answers[0] == ("strong",)


def test_a_change_after_the_reveal_is_refused():
    t = at_a_vote()
    t.vote({0: "strong", 1: "weak", 2: "weak", 3: "strong"})   # a tie: the commander breaks
    t.waits("tie_break", 2)
    state = t.g.state_id
    with pytest.raises(WrongDecision):
        t.do(2, "vote", "strong")
    with pytest.raises(NotYourDecision):
        t.do(0, "vote", "strong")
    assert t.g.state_id == state and revealed(t)[0] == "strong"


def test_a_change_from_an_old_view_is_refused():
    t = at_a_vote()
    t.do(0, "vote", "weak")
    seen = t.g.state_id
    t.do(1, "vote", "strong")
    with pytest.raises(StaleState):
        play(t.g, 0, {"decision": "vote", "option": ["strong"], "state_id": seen},
             Ctx(Chance()))
    assert t.pending.answers[0] == ("weak",)


def test_an_answered_seat_keeps_its_options_and_sees_its_ballot():
    t = at_a_vote()
    t.do(0, "vote", "weak")
    mine = decision_view(t.g, 0)
    assert mine["options"] == [["strong"], ["weak"], ["abstain"]]
    assert mine["chosen"] == ["weak"]
    assert legal_options(t.g, 0) == [("strong",), ("weak",), ("abstain",)]
    waiting = public_view(t.g)["waiting"]
    assert waiting["seats"] == [1, 2, 3] and waiting["chosen"] == [0]
    # The game still waits only for the seats that have not voted.
    assert waiting_for(t.g)["seats"] == [1, 2, 3]


@pytest.mark.parametrize("again", ["strong", "weak", "abstain"])
def test_a_change_tells_nobody_else_the_ballot_nor_whether_it_changed(again):
    """Every other seat's screen and the board are the same whatever seat 0 answers again:
    only that seat 0 answered (a `chosen` fact) is public."""
    seen = {}
    for first in ("strong", "weak"):
        t = at_a_vote()
        t.do(0, "vote", first)
        t.do(1, "vote", "strong")
        t.do(0, "vote", again)
        seen[first] = ([seat_view(t.g, s) for s in (1, 2, 3)], public_view(t.g),
                       [f for f in t.facts if "to" not in f])
        assert t.facts[-1] == {"k": "chosen", "seat": 0, "decision": "vote"}
    assert seen["strong"] == seen["weak"]
    assert again not in json.dumps(seen["strong"][1]["waiting"])


def test_a_change_replays_to_the_same_vote():
    """The stored log holds every answer in order: replaying it reveals the latest ballots."""
    rng = random.Random(4)
    events = start(Setup(("A", "B", "C")), rng)
    g = replay(events)
    while g.pending.kind != "vote":
        seat = g.pending.seats[0]
        options = g.pending.options[seat]
        option = next((o for o in options if o[0] == "vote"), options[-1])
        events.append(play(g, seat, {"decision": g.pending.kind, "option": list(option)},
                           Ctx(Chance(rng=rng))))
    first, *others = g.pending.seats
    for seat, ballot in [(first, "abstain"), (others[0], "abstain"), (first, "abstain")]:
        events.append(play(g, seat, {"decision": "vote", "option": [ballot]},
                           Ctx(Chance(rng=rng))))
    last = g.pending.options[first][0]
    events.append(play(g, first, {"decision": "vote", "option": list(last)},
                       Ctx(Chance(rng=rng))))
    for seat in others[1:]:
        events.append(play(g, seat, {"decision": "vote", "option": ["abstain"]},
                           Ctx(Chance(rng=rng))))
    facts = [f for e in events for f in e["facts"]]
    (shown,) = [f["ballots"] for f in facts if f["k"] == "vote_revealed"]
    assert shown[first] == last[0]
    again = replay(json.loads(json.dumps(events)))
    assert public_view(again) == public_view(g)
    assert seat_view(again, first) == seat_view(g, first)
