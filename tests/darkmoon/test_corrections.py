"""Host corrections of every public fact: each one applied, logged in public, refused when it
would break an invariant or strand the pending decision, and showing nothing secret.

RB = the rulebook (rules/darkmoon-rulebook-en.txt); facts = darkmoon-facts.md.
"""
import json
import pickle
import random

import pytest

from companion.darkmoon import (HOST, IllegalOption, MalformedCommand, Setup,
                                decide, evolve, public_view, replay, start)
from companion.darkmoon.data import COMMANDER, DICE_IN_BOX, EVENTS, STRONG, WEAK
from companion.tools.simulate import bot_choice
from leaks import check_public_view

from .position import Table


def correct(t, *option):
    """A correction through the referee's interface, as the Table plays it; returns its
    facts after checking they are all public and the board shows nothing secret."""
    (event,) = decide(t.g, HOST, {"decision": "correct", "option": list(option)},
                      random.Random(3))
    json.dumps(event)
    t.g = evolve(t.g, [event])
    facts = event["facts"]
    assert facts[0] == {"k": "corrected", "what": option[0], "to_value": list(option[1:])}
    assert not any("to" in f for f in facts), "a correction's fact is private"
    view = public_view(t.g)
    check_public_view(t.g, view, json.dumps(view))
    assert t.g.dice_total() == DICE_IN_BOX
    return facts


def refused(t, option, error=IllegalOption) -> str:
    """Refused with its typed error, and nothing changed."""
    before = pickle.dumps(t.g)
    with pytest.raises(error) as caught:
        decide(t.g, HOST, {"decision": "correct", "option": list(option)}, random.Random(3))
    assert type(caught.value) is error
    assert pickle.dumps(t.g) == before
    return caught.value.message


def held(t, seat):
    d = t.g.seats[seat].dice
    return d[STRONG], d[WEAK], d[COMMANDER]


def take_most(t, seat):
    """Answer a pending retrieval with the option taking the most dice."""
    if t.pending is not None and t.pending.kind == "take_dice" and seat in t.pending.seats:
        best = max(t.pending.options[seat], key=lambda o: sum(v for v in o[1:]))
        t.do(seat, "take_dice", *best)


# --- the commander ---

def test_a_new_commander_takes_the_die_only_at_their_next_retrieval():
    """facts §7: the commander die "goes back to the pool when the commander changes, and a
    new commander takes it only when next allowed to retrieve"."""
    t = Table(("jon", "luba", "michihiro", "chaya"))
    t.turn(1)
    t.waits("action", 1)
    facts = correct(t, "commander", 2)
    assert {"k": "commander", "seat": 2, "previous": 0} in facts
    assert t.g.commander == 2
    assert held(t, 0) == (2, 2, 0) and t.g.pool[COMMANDER] == 1
    assert held(t, 2)[2] == 0, "not before the new commander may retrieve"
    view = public_view(t.g)
    assert [s["commander"] for s in view["seats"]] == [False, False, True, False]
    t.turn(2)
    take_most(t, 2)
    assert held(t, 2)[2] == 1 and t.g.pool[COMMANDER] == 0


def test_the_tie_is_broken_by_the_corrected_commander():
    """RB Hold a vote: "If there is a tie, the Commander breaks the tie however they wish."
    The card changed hands (by correction) while the ballots were out."""
    t = Table(("jon", "luba", "michihiro"))
    t.go(("vote", {"target": 1, "caller": 0}))
    correct(t, "commander", 2)
    t.vote({0: "strong", 1: "weak", 2: "abstain"})
    t.waits("tie_break", 2)


def test_commander_refusals():
    t = Table(("jon", "luba", "michihiro"))
    t.go(("vote", {"target": 1, "caller": 0}))
    t.vote({0: "strong", 1: "weak", 2: "abstain"})
    t.waits("tie_break", 0)
    # the commander is deciding as commander: the card cannot move under that decision
    assert "tie_break" in refused(t, ["commander", 1])
    assert "tie_break" in refused(t, ["commander", 2])
    t = Table(("jon", "luba", "michihiro"))
    t.turn(1)
    t.g.seats[2].revealed = True
    refused(t, ["commander", 2])  # RB: a revealed Infected "discard[s] ... the Commander card"
    refused(t, ["commander", 0])  # already
    refused(t, ["commander", 3])  # no such seat
    refused(t, ["commander", "1"], MalformedCommand)
    refused(t, ["commander"], MalformedCommand)


# --- quarantine and die tokens ---

def test_quarantine_lowers_the_limit_and_the_excess_goes_back_by_the_owners_choice():
    """RB Quarantine: "Their die limit is now reduced by two dice. If that player has more
    active dice behind their screen than their current die limit allows, they must discard
    the extra dice to the Available Resources pool." The commander die is outside the limit
    (facts §7)."""
    t = Table(("jon", "luba", "michihiro", "chaya"))
    t.turn(1)
    correct(t, "quarantine", 0, "on")
    assert t.g.die_limit(0) == 2 and public_view(t.g)["seats"][0]["quarantined"]
    # the owner discards as soon as the decision under way is answered
    t.do(1, "action", "pass")
    options = t.waits("discard", 0)
    assert all(s + w == 2 and c == 0 for _, s, w, c in options)
    t.do(0, "discard", *options[0])
    assert sum(held(t, 0)[:2]) == 2 and held(t, 0)[2] == 1


def test_release_raises_the_limit_without_taking_dice():
    """RB Quarantine: "their die limit is increased by two dice (they do not automatically
    retrieve those dice, however)"."""
    t = Table(("jon", "luba", "michihiro"))
    t.g.seats[2].quarantined = True
    t.dice(2, 1, 1)
    t.turn(1)
    correct(t, "quarantine", 2, "off")
    assert t.g.die_limit(2) == 4 and held(t, 2) == (1, 1, 0)
    assert t.g.seats[2].quarantined is False


def test_quarantine_refusals():
    t = Table(("jon", "luba", "michihiro"))
    t.dice(1, 1, 1)
    t.turn(1)
    t.waits("take_dice", 1)  # two to take, within the limit of four
    assert "take_dice" in refused(t, ["quarantine", 1, "on"])  # it would offer too many
    refused(t, ["quarantine", 2, "off"])  # not in quarantine
    refused(t, ["quarantine", 2, "sideways"], MalformedCommand)
    correct(t, "quarantine", 2, "on")  # another seat: fine
    t.g.seats[0].revealed = True
    refused(t, ["quarantine", 0, "on"])  # RB: revealed Infected "Cannot ... be quarantined"


def test_die_tokens_raise_and_lower_the_limit():
    """RB Die tokens: "Increases or decreases a player's die limit." Jon's example: an extra
    die token takes his limit "from four to five"."""
    t = Table(("jon", "luba", "michihiro"))
    t.turn(1)
    correct(t, "die_tokens", 2, 1)
    assert t.g.die_limit(2) == 5 and public_view(t.g)["seats"][2]["die_limit"] == 5
    correct(t, "die_tokens", 2, -1)
    assert t.g.die_limit(2) == 3
    t.do(1, "action", "pass")
    assert all(s + w == 1 for _, s, w, _c in t.waits("discard", 2))


def test_die_tokens_refusals():
    """RB components: "14 Die tokens"."""
    t = Table(("jon", "luba", "michihiro"))
    t.turn(1)
    correct(t, "die_tokens", 0, 14)
    refused(t, ["die_tokens", 2, 1])  # the box is empty
    refused(t, ["die_tokens", 2, 15], MalformedCommand)
    refused(t, ["die_tokens", 2, "1"], MalformedCommand)
    correct(t, "die_tokens", 0, 13)
    correct(t, "die_tokens", 2, 1)


# --- fatigue ---

def test_no_fatigue_change_under_a_submission_it_would_change():
    """RB Fatigue: a fatigued player "can't use their Character's special ability" and "may
    only submit a single die during a Malfunction". Luba's reroll is on offer here."""
    t = Table(("jon", "luba", "michihiro"))
    t.turn(1)
    t.do(1, "action", "repair", "shield")
    t.roll(1, 1, 1)
    assert ("reroll",) in t.waits("submit", 1)
    assert "submit" in refused(t, ["fatigue", "luba", "on"])
    correct(t, "fatigue", "jon", "on")  # another seat's token: fine
    assert public_view(t.g)["fatigue"]["fatigued_seats"] == [0]


# --- dice lost under the table ---

def test_a_lost_die_leaves_the_pool_and_comes_back_when_found():
    """RB components: 14 strong, 14 weak and 1 commander die; a lost one is still one of
    them, so the box always holds 29."""
    t = Table(("jon", "luba", "michihiro"))
    t.turn(1)
    pool = dict(t.g.pool)
    correct(t, "lost_dice", STRONG, 2)
    assert t.g.pool[STRONG] == pool[STRONG] - 2 and public_view(t.g)["lost"][STRONG] == 2
    correct(t, "lost_dice", STRONG, 1)  # one found again
    assert t.g.pool[STRONG] == pool[STRONG] - 1 and t.g.lost[STRONG] == 1
    refused(t, ["lost_dice", WEAK, pool[WEAK] + 1])  # only dice in the pool can be lost
    refused(t, ["lost_dice", COMMANDER, 1])  # the commander holds it
    refused(t, ["lost_dice", "green", 1], MalformedCommand)
    refused(t, ["lost_dice", WEAK, -1], MalformedCommand)


def test_no_lost_die_while_dice_are_offered_from_the_pool():
    t = Table(("jon", "luba", "michihiro"))
    t.dice(1, 1, 1)
    t.dice(0, 6, 7, 1)
    t.dice(2, 6, 4)  # the pool holds 1 strong and 2 weak dice: seat 1 is offered them
    t.turn(1)
    t.waits("take_dice", 1)
    assert "take_dice" in refused(t, ["lost_dice", WEAK, 1])


# --- events ---

def real_game(seed=4, players=5):
    """A dealt game played by bots to its first action (the first event is out)."""
    rng = random.Random(seed)
    t = Table.__new__(Table)
    t.g, t.facts, t.rng = replay(start(Setup(tuple("ABCDE")[:players]), rng)), [], rng
    return t


def to_action(t):
    while t.g.pending.kind != "action":
        seat, command = bot_choice(t.g, t.rng)
        t.g = evolve(t.g, decide(t.g, seat, command, t.rng))


def test_the_current_event_is_set_and_the_one_it_replaces_goes_under_the_deck():
    t = real_game()
    to_action(t)
    old = t.g.event
    card = next(c for c in t.g.event_deck if c != old)
    t.g.event_cubes = 1
    correct(t, "event", card)
    assert (t.g.event, t.g.event_cubes) == (card, 0)
    assert card not in t.g.event_deck and t.g.event_deck[0] == old
    assert public_view(t.g)["event"] == {"card": card, "cubes": 0,
                                         "needed": EVENTS[card].cubes}
    refused(t, ["event", card])  # already
    refused(t, ["event", "teleport"], MalformedCommand)


def test_completed_events_can_be_set_but_not_the_third():
    """RB: the Uninfected "must complete 3 before reaching the Final Event": the third
    completion begins it, which is play, not a correction."""
    t = real_game()
    to_action(t)
    a, b, c = [x for x in t.g.event_deck if x != t.g.event][:3]
    correct(t, "completed", a, "on")
    correct(t, "completed", b, "on")
    assert public_view(t.g)["completed_events"] == [a, b]
    assert a not in t.g.event_deck
    refused(t, ["completed", c, "on"])
    refused(t, ["completed", t.g.event, "on"])  # the current event
    correct(t, "completed", a, "off")
    assert t.g.completed_events == [b] and t.g.event_deck[0] == a
    refused(t, ["completed", a, "off"])
    t.g.final_active = True
    refused(t, ["completed", b, "off"])
    refused(t, ["event", a])


def test_event_refusals_never_tell_where_a_card_is():
    """While the commander holds two event cards (RB Setup: the commander draws two and
    places one), a correction naming one of them is refused exactly like one naming a card
    still in the deck: the refusal must not tell the host what the commander holds."""
    t = real_game()
    assert t.g.pending.kind == "event"
    hand = list(t.g.event_drawn)
    deck = next(c for c in t.g.event_deck)
    for what in ("event", "completed"):
        extra = ["on"] if what == "completed" else []
        messages = {refused(t, [what, card, *extra]) for card in hand + [deck]}
        assert len(messages) == 1, messages


def test_corrections_replay_from_the_stored_log():
    """Events are the truth (DESIGN): a game with corrections rebuilds exactly from its JSON
    log, lost dice and the moved commander die included."""
    rng = random.Random(9)
    events = start(Setup(tuple("ABCDE")), rng)
    g = replay(events)
    while g.pending.kind != "action":
        seat, command = bot_choice(g, rng)
        events += decide(g, seat, command, rng)
        g = evolve(g, events[-1:])
    others = [i for i in range(5) if i != g.commander and i not in g.pending.options]
    for option in (["commander", others[0]], ["die_tokens", others[1], 2],
                   ["lost_dice", WEAK, 1], ["quarantine", others[2], "on"]):
        events += decide(g, HOST, {"decision": "correct", "option": option}, rng)
        g = evolve(g, events[-1:])
    again = replay(json.loads(json.dumps(events)))
    assert public_view(again) == public_view(g)
    assert [s.dice for s in again.seats] == [s.dice for s in g.seats]
    assert again.lost == g.lost == {STRONG: 0, WEAK: 1, COMMANDER: 0}


@pytest.mark.parametrize("lang", ["en", "es"])
def test_each_correction_is_a_sentence_in_the_public_log(lang):
    """Everything a person reads exists in English and Spanish: the log says what the host
    set, naming the seat, the card or the dice."""
    from companion.lang import view_text
    t = real_game()
    to_action(t)
    card = next(c for c in t.g.event_deck if c != t.g.event)
    seat = next(i for i in range(5) if i != t.g.commander and i not in t.g.pending.options)
    facts = []
    for option in (["commander", seat], ["quarantine", seat, "on"], ["quarantine", seat, "off"],
                   ["die_tokens", seat, -1], ["lost_dice", WEAK, 2], ["event", card],
                   ["completed", t.g.event_deck[-1], "on"]):
        facts += [f for f in correct(t, *option) if f["k"] == "corrected"]
    view = public_view(t.g) | {"log": facts}
    said = view_text(view, lang)["log"]
    names = [s.name for s in t.g.seats]
    assert len(said) == len(facts) and len(set(said)) == len(said)
    for fact, sentence in zip(facts, said):
        assert "{" not in sentence and "game.fact" not in sentence, sentence
        if fact["what"] in ("commander", "quarantine", "die_tokens"):
            assert names[seat] in sentence
    assert "-1" in said[3]


# --- the cubes an event needs, and a take-off vote (Shadow Corporation) ---

SHADOW = ("shadow_corporation",)


@pytest.mark.parametrize("final", [False, True])
def test_every_cube_count_below_what_completes_the_event_is_accepted(final):
    """docs/table-api.md: event and final cubes are set "below what completes it"; after Risk
    Assessment the next event needs one more cube, the final event too when Risk Assessment
    was the third (facts §6a Risk Assessment, §8 q1): Resupply (4 cubes) then takes 0 to 4."""
    t = Table(variants=SHADOW, event=None if final else "resupply")
    t.g.completed_events, t.g.extra_cubes = ["lockdown", "recovery", "risk_assessment"][
        :3 if final else 1], 1
    t.g.final_active = final
    what = "final_cubes" if final else "event_cubes"
    needed = (3 if final else EVENTS["resupply"].cubes) + 1   # await_rescue needs 3
    assert public_view(t.g)["final_event" if final else "event"]["needed"] == needed
    for cubes in range(needed):
        correct(t, what, cubes)
        assert (t.g.final_cubes if final else t.g.event_cubes) == cubes
    refused(t, [what, needed], MalformedCommand)


def takeoff_vote(t):
    """Seat 0 calls the take-off vote with Ben cleared on a full board (one seat at three
    players), the ship refuelled (ESOG Vote to take off)."""
    t.g.clearances, t.g.refuelled = [1], True
    t.turn(0)
    take_most(t, 0)
    t.do(0, "action", "takeoff")
    assert t.pending.kind == "vote" and t.pending.data["kind"] == "takeoff"


@pytest.mark.parametrize("option", [["clearance", 1, "off"], ["quarantine", 1, "on"]])
def test_no_correction_empties_the_board_of_an_open_take_off_vote(option):
    """ESOG Vote to take off: "If the evacuation clearance board has filled, you may call a
    vote for the evacuation ship to take off". A correction taking the cleared player off the
    board (or into quarantine, which takes the clearance away) is refused until the result,
    so the ship never leaves with the board not full."""
    t = Table(variants=SHADOW)
    takeoff_vote(t)
    assert "take-off vote" in refused(t, option)
    # Other corrections go on, and once the vote is over the clearance can be corrected.
    correct(t, "shield", 3)
    t.vote({0: "weak", 1: "weak", 2: "weak"})
    assert t.g.outcome is None and t.g.clearances == [1]
    correct(t, *option)
    assert t.g.clearances == []


@pytest.mark.parametrize("variants", [(), SHADOW])
def test_the_fatigue_corrections_accept_exactly_the_pool_the_board_shows(variants):
    """The fatigue tokens are the base game's six, or with Shadow Corporation the pool built
    from the characters in play (ESOG Setup: "Build the fatigue pool by adding a fatigue
    token matching each character in play ..."): the public view shows that pool, so the host
    need not guess which tokens a correction takes."""
    t = Table.__new__(Table)
    t.g, t.facts, t.rng = replay(start(Setup(tuple("ABCD"), variants=variants),
                                       random.Random(8))), [], random.Random(8)
    to_action(t)
    pool = public_view(t.g)["fatigue"]["pool"]
    assert sorted(t.g.fatigue_board + t.g.fatigue_pile) == pool
    for token in ("jon", "luba", "chaya", "michihiro", "enver", "steve", "serene", "lincoln"):
        if token in pool:
            correct(t, "fatigue", token, "on")
            correct(t, "fatigue", token, "off")
        else:
            assert "no fatigue token" in refused(t, ["fatigue", token, "on"])
