"""Bad input through the referee's interface, `decide(state, actor, command, rng)`: each kind
gets its typed refusal with a stable `code`, and a refused command changes nothing (neither
the state given to `decide`, nor a state played in place, nor the rng). Host corrections:
valid ones change only their counter and are logged; invalid ones are refused."""
from __future__ import annotations

import json
import pickle
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.darkmoon import (HOST, BadSetup, Chance, Ctx, GameOver, IllegalOption,
                                MalformedCommand, NotYourDecision, RulesError, Setup,
                                StaleState, UnknownSeat, WrongDecision, decide, evolve, play,
                                public_view, replay, start, waiting_for)
from companion.darkmoon.data import (EVENTS, FATIGUE_TOKENS, FINAL_EVENTS, OUTPOST_TOKENS,
                                     VARIANTS)
from companion.darkmoon.engine import as_option
from companion.tools.simulate import bot_choice

NAMES5 = ("Ana", "Ben", "Cai", "Dee", "Eli")
CODES = {UnknownSeat: "unknown_seat", NotYourDecision: "not_your_decision",
         WrongDecision: "wrong_decision", IllegalOption: "illegal_option",
         StaleState: "stale_state", MalformedCommand: "malformed_command",
         GameOver: "game_over", BadSetup: "bad_setup"}


# --- positions ---

def advance(until, players: int = 5, seeds=range(500), variants=(), limit: int = 2000):
    """A real game (bots from a seed) stopped at the first state where `until(g)` holds."""
    names = NAMES5 if players == 5 else tuple(f"P{i}" for i in range(players))
    for seed in seeds:
        rng = random.Random(seed)
        g = replay(start(Setup(names, variants=variants), rng))
        for _ in range(limit):
            if g.outcome is None and until(g):
                return g
            if g.outcome is not None:
                break
            seat, command = bot_choice(g, rng)
            play(g, seat, command, Ctx(Chance(rng=rng)))
    raise AssertionError("no game reached the position")


def waiting(kind: str):
    return lambda g: g.pending is not None and g.pending.kind == kind


def finish(players: int, seed: int):
    """A whole bot game, played to its end."""
    rng = random.Random(seed)
    names = tuple(f"P{i}" for i in range(players))
    g = replay(start(Setup(names), rng))
    while g.outcome is None:
        seat, command = bot_choice(g, rng)
        play(g, seat, command, Ctx(Chance(rng=rng)))
    return g


def some_option(g, seat: int) -> list:
    return list(g.pending.options[seat][0])


def command(g, seat: int | None = None, **over) -> dict:
    """A well-formed command that the game would accept from `seat` (the first waiting seat
    by default), with fields replaced by `over`."""
    seat = g.pending.seats[0] if seat is None else seat
    cmd = {"decision": g.pending.kind, "option": some_option(g, seat), "state_id": g.state_id}
    cmd.update(over)
    return cmd


# --- the refusal check ---

def refused(g, actor, cmd, error: type) -> RulesError:
    """`cmd` from `actor` raises `error` with its code, and changes nothing: not the state
    given to decide, not a copy played in place, not the rng."""
    before = pickle.dumps(g)
    rng = random.Random(99)
    rng_before = rng.getstate()
    with pytest.raises(error) as caught:
        decide(g, actor, cmd, rng)
    assert type(caught.value) is error
    assert caught.value.code == CODES[error]
    assert caught.value.message and str(caught.value) == caught.value.message
    assert pickle.dumps(g) == before, "decide changed its state on a refusal"
    assert rng.getstate() == rng_before, "a refusal drew from the rng"
    # play() applies a command in place (the Table's replay and the bots use it): a refusal
    # must come before the first change there too.
    copy = g.clone()
    copy_before = pickle.dumps(copy)
    with pytest.raises(error):
        play(copy, actor, cmd, Ctx(Chance(rng=rng)))
    assert pickle.dumps(copy) == copy_before, "play changed the state before refusing"
    return caught.value


def accepted(g, actor, cmd):
    events = decide(g, actor, cmd, random.Random(7))
    json.dumps(events)  # a log entry is JSON
    return evolve(g, events), events


# --- unknown seat, wrong seat, wrong decision ---

@pytest.fixture(scope="module")
def at_action():
    return advance(waiting("action"))


@pytest.mark.parametrize("actor", [7, 5, 99, -1, "x", "0", True, False, None, 1.0, [0]])
def test_unknown_seat(at_action, actor):
    err = refused(at_action, actor, command(at_action), UnknownSeat)
    assert repr(actor) in err.message


def test_seat_not_waited_for(at_action):
    g = at_action
    (active,) = g.pending.seats
    for seat in range(g.players):
        if seat != active:
            err = refused(g, seat, command(g, active), NotYourDecision)
            assert f"seat {seat}" in err.message and str(active) in err.message


def test_seat_that_already_voted_is_not_waited_for_but_may_change_its_vote():
    """RB Call a vote: "All players then hold out a closed fist and simultaneously reveal":
    the table no longer waits for a seat that has voted, and its fist stays closed (it may
    vote again) until the last vote is in. A vote that is not its to cast stays refused."""
    g = advance(lambda g: waiting("vote")(g) and len(g.pending.seats) >= 3)
    first = g.pending.seats[0]
    g2, _ = accepted(g, first, command(g, first))
    assert first not in g2.pending.seats and g2.pending.kind == "vote"
    g3, _ = accepted(g2, first, command(g, first, state_id=g2.state_id))
    assert first not in g3.pending.seats and g3.pending.answers == g2.pending.answers
    refused(g2, first, command(g, first, state_id=g2.state_id, option=["green"]),
            IllegalOption)
    refused(g2, first, command(g, first), StaleState)  # from the view before its vote


@pytest.mark.parametrize("decision", ["vote", "submit", "take_dice", "correct", "", "ACTION",
                                      "action "])
def test_wrong_decision(at_action, decision):
    err = refused(at_action, at_action.pending.seats[0],
                  command(at_action, decision=decision), WrongDecision)
    assert "'action'" in err.message


def test_host_may_only_correct(at_action):
    refused(at_action, HOST, command(at_action), MalformedCommand)


# --- illegal options ---

@pytest.mark.parametrize("option", [["pass", 1], ["fly"], ["repair", "kitchen"], ["vote", 9],
                                    ["order", -1], [], "pass!", 3, ["pass", "pass"]])
def test_illegal_option(at_action, option):
    err = refused(at_action, at_action.pending.seats[0],
                  command(at_action, option=option), IllegalOption)
    assert "not allowed" in err.message


def test_blocked_option_says_why():
    """A repair of the shield with the Shield Control outpost token out is blocked, and the
    refusal names the token; the host puts the token out if the deal did not."""
    g = advance(lambda g: waiting("action")(g) and g.shield_tokens
                and not g.seats[g.active].quarantined and g.seats[g.active].all_dice
                and not g.seats[g.active].revealed)
    if "shield_control" not in g.outpost_board:
        g, _ = accepted(g, HOST, {"decision": "correct",
                                  "option": ["outpost", "shield_control", "on"]})
    seat = g.active
    assert ("repair", "shield") not in g.pending.options[seat]
    assert [["repair", "shield"], "blocked_by:shield_control"] in [
        [list(o), why] for o, why in waiting_for(g)["blocked"][seat]]
    err = refused(g, seat, command(g, option=["repair", "shield"]), IllegalOption)
    assert "blocked_by:shield_control" in err.message
    # taking the token off opens the repair again, in the same pending decision
    g, _ = accepted(g, HOST, {"decision": "correct",
                              "option": ["outpost", "shield_control", "off"]})
    assert ("repair", "shield") in g.pending.options[seat]
    accepted(g, seat, command(g, option=["repair", "shield"]))


def test_ballot_with_a_colour_the_seat_does_not_hold():
    g = advance(lambda g: waiting("vote")(g) and any(
        not g.seats[s].dice["weak"] or not g.seats[s].dice["strong"] for s in g.pending.seats))
    seat = next(s for s in g.pending.seats
                if not g.seats[s].dice["weak"] or not g.seats[s].dice["strong"])
    colour = "weak" if not g.seats[seat].dice["weak"] else "strong"
    refused(g, seat, command(g, seat, option=[colour]), IllegalOption)
    refused(g, seat, command(g, seat, option=["commander"]), IllegalOption)


# --- stale state ---

@pytest.mark.parametrize("delta", [-1, 1, -1000, 10**9])
def test_stale_state(at_action, delta):
    g = at_action
    err = refused(g, g.pending.seats[0], command(g, state_id=g.state_id + delta), StaleState)
    assert str(g.state_id) in err.message


def test_state_id_is_optional_and_rises_by_one(at_action):
    g = at_action
    cmd = command(g)
    del cmd["state_id"]
    g2, events = accepted(g, g.pending.seats[0], cmd)
    assert g2.state_id == g.state_id + 1 == events[0]["state_id"]
    # the command seen at the old state is now stale
    refused(g2, g.pending.seats[0], command(g, state_id=g.state_id), StaleState)


def test_stale_host_correction(at_action):
    refused(at_action, HOST, {"decision": "correct", "option": ["shield", 3],
                              "state_id": at_action.state_id - 1}, StaleState)


# --- malformed commands ---

MALFORMED = [
    ("not a dict: list", ["action", ["pass"]]),
    ("not a dict: str", '{"decision": "action", "option": ["pass"]}'),
    ("not a dict: None", None),
    ("not a dict: int", 5),
    ("missing decision", {"option": ["pass"]}),
    ("missing option", {"decision": "action"}),
    ("empty", {}),
    ("option null", {"decision": "action", "option": None}),
    ("decision not a str", {"decision": 5, "option": ["pass"]}),
    ("decision a list", {"decision": ["action"], "option": ["pass"]}),
    ("extra field", {"decision": "action", "option": ["pass"], "seat": 1}),
    ("extra fields", {"decision": "action", "option": ["pass"], "x": 1, "y": 2}),
    ("option a dict", {"decision": "action", "option": {"a": 1}}),
    ("option a float", {"decision": "action", "option": 1.5}),
    ("option a bool", {"decision": "action", "option": True}),
    ("float in option", {"decision": "action", "option": ["vote", 1.0]}),
    ("bool in option", {"decision": "action", "option": ["vote", True]}),
    ("dict in option", {"decision": "action", "option": [{"a": 1}]}),
    ("None in option", {"decision": "action", "option": ["pass", None]}),
    ("nested dict in option", {"decision": "action", "option": [["vote", {"a": 1}]]}),
    ("state_id a str", {"decision": "action", "option": ["pass"], "state_id": "3"}),
    ("state_id a bool", {"decision": "action", "option": ["pass"], "state_id": True}),
    ("state_id a float", {"decision": "action", "option": ["pass"], "state_id": 1.0}),
]


@pytest.mark.parametrize("cmd", [c for _, c in MALFORMED], ids=[n for n, _ in MALFORMED])
def test_malformed_command(at_action, cmd):
    refused(at_action, at_action.pending.seats[0], cmd, MalformedCommand)


@pytest.mark.parametrize("actor", [3, HOST])
def test_malformed_wins_over_other_refusals(at_action, actor):
    """The command is read before anything else: garbage is called garbage whoever sends it."""
    refused(at_action, actor, {"decision": "x", "option": [1.5]}, MalformedCommand)


def test_floats_and_bools_never_reach_the_state():
    """2.0 == 2 and True == 1 in Python: a dice count taken as ["take", 2.0, 0.0] would pass
    the legality test and put floats into the dice counts (a bug found by this file)."""
    g = advance(lambda g: waiting("take_dice")(g) and any(
        o[1] + o[2] for o in g.pending.options[g.pending.seats[0]]))
    seat = g.pending.seats[0]
    legal = next(o for o in g.pending.options[seat] if o[1] + o[2])
    refused(g, seat, command(g, option=[legal[0], float(legal[1]), float(legal[2])]),
            MalformedCommand)
    if 1 in legal[1:]:
        refused(g, seat, command(g, option=[legal[0]] + [x == 1 or x for x in legal[1:]]),
                MalformedCommand)
    assert as_option(["take", 1, 0]) == ("take", 1, 0)
    assert as_option([["a", 1], "b"]) == (("a", 1), "b")
    assert as_option("in") == ("in",) and as_option(4) == (4,)


# --- after the game ---

def test_commands_after_game_over():
    g = finish(5, 3)
    assert g.outcome is not None and g.pending is None
    for seat in range(5):
        refused(g, seat, {"decision": "action", "option": ["pass"]}, GameOver)
        refused(g, seat, {"decision": "action", "option": ["pass"], "state_id": g.state_id},
                GameOver)
    refused(g, HOST, {"decision": "correct", "option": ["shield", 1]}, GameOver)


# --- bad setups ---

BAD_SETUPS = [
    ("2 players", Setup(("A", "B"))),
    ("8 players", Setup(tuple("ABCDEFGH"))),
    ("0 players", Setup(())),
    ("duplicate characters", Setup(("A", "B", "C"), characters=("jon", "jon", "luba"))),
    ("too few characters", Setup(("A", "B", "C"), characters=("jon", "luba"))),
    ("unknown character", Setup(("A", "B", "C"), characters=("jon", "luba", "gandalf"))),
    ("unknown variant", Setup(("A", "B", "C"), variants=("easy_mode",))),
    ("variant twice", Setup(("A", "B", "C"), variants=("safe_orders", "safe_orders"))),
    ("telepathic with 4", Setup(("A", "B", "C", "D"), variants=("telepathic_infected",))),
    ("telepathic with 3", Setup(("A", "B", "C"), variants=("telepathic_infected",))),
    ("unknown final event", Setup(("A", "B", "C"), final_event="picnic")),
    ("empty name", Setup(("A", "", "C"))),
    ("blank name", Setup(("A", "   ", "C"))),
    ("long name", Setup(("A", "B" * 25, "C"))),
    ("name not a str", Setup(("A", 2, "C"))),
    ("dict: unknown field", {"names": ["A", "B", "C"], "seed": 1}),
    ("dict: names a str", {"names": "ABC"}),
    ("dict: no names", {"variants": []}),
    ("dict: variants a str", {"names": ["A", "B", "C"], "variants": "safe_orders"}),
    ("dict: characters a str", {"names": ["A", "B", "C"], "characters": "jon"}),
    ("not a dict", ["A", "B", "C"]),
]


@pytest.mark.parametrize("setup", [s for _, s in BAD_SETUPS], ids=[n for n, _ in BAD_SETUPS])
def test_bad_setup(setup):
    rng = random.Random(1)
    before = rng.getstate()
    with pytest.raises(BadSetup) as caught:
        start(setup, rng)
    assert caught.value.code == "bad_setup" and caught.value.message
    assert rng.getstate() == before


def test_good_setups_at_the_edges():
    for setup in (Setup(("A", "B", "C")), Setup(tuple("ABCDEFG")),
                  Setup(tuple("ABCDE"), variants=("telepathic_infected",)),
                  Setup(tuple("ABC"), characters=("daniel", "jon", "luba"),
                        final_event=sorted(FINAL_EVENTS)[0], variants=VARIANTS[:2]),
                  {"names": ["A", "B", "C"]}):
        g = replay(start(setup, random.Random(2)))
        assert g.outcome is None and g.pending is not None


# --- host corrections ---

GAME_FIELDS = {
    "shield": {"shield_tokens"},
    "outpost": {"outpost_board", "outpost_pile"},
    "fatigue": {"fatigue_board", "fatigue_pile"},
    "sabotage": {"sabotage"},
    "suspicion": {"suspicion"},
    "event_cubes": {"event_cubes"},
    "final_cubes": {"final_cubes"},
}
VIEW_FIELDS = {
    "shield": {"shield"}, "outpost": {"outpost"}, "fatigue": {"fatigue", "seats"},
    "sabotage": {"sabotage"}, "suspicion": {"suspicion"}, "event_cubes": {"event"},
    "final_cubes": {"final_event"},
}


def changed_fields(a, b) -> set:
    return {f for f in a.__dataclass_fields__
            if pickle.dumps(getattr(a, f)) != pickle.dumps(getattr(b, f))}


def valid_corrections(g) -> list[list]:
    """Every correction that changes something (setting a counter to its own value is a
    harmless no-op, accepted for the counters, refused for a token already in place)."""
    out = [["shield", n] for n in range(7) if n != g.shield_tokens]
    out += [["outpost", t, "off" if t in g.outpost_board else "on"] for t in OUTPOST_TOKENS]
    out += [["fatigue", t, "off" if t in g.fatigue_board else "on"] for t in FATIGUE_TOKENS]
    out += [["sabotage", a] for a in ("shield", "outpost", "fatigue", "none")
            if a != (g.sabotage or "none")]
    out += [["suspicion", n] for n in (1, 2, 3) if n != g.suspicion]
    if g.event:
        out += [["event_cubes", n] for n in range(EVENTS[g.event].cubes) if n != g.event_cubes]
    out += [["final_cubes", n] for n in range(FINAL_EVENTS[g.final_event].cubes)
            if n != g.final_cubes]
    return out


def test_valid_corrections_change_only_their_counter(at_action):
    g = at_action
    assert g.event  # the first event is out by the first action
    for option in valid_corrections(g):
        what = option[0]
        g2, events = accepted(g, HOST, {"decision": "correct", "option": option,
                                        "state_id": g.state_id})
        (event,) = events
        assert event["actor"] == HOST and event["command"]["option"] == option
        corrected = [f for f in event["facts"] if f["k"] == "corrected"]
        assert corrected == [{"k": "corrected", "what": what, "to_value": option[1:]}]
        assert "to" not in corrected[0]  # corrections are public
        if option == ["shield", 6]:
            assert g2.outcome.winner == "infected" and g2.outcome.condition == "shield"
            continue
        assert g2.outcome is None
        # the action offered may open or close (a repair with nothing to repair, a blocked
        # action, the area already sabotaged), but the decision stays the same
        allowed = GAME_FIELDS[what] | {"state_id", "pending"}
        assert changed_fields(g, g2) <= allowed, (option, changed_fields(g, g2))
        p, p2 = g.pending, g2.pending
        assert (p.kind, p.data, p.seats) == (p2.kind, p2.data, p2.seats)
        assert g2.state_id == g.state_id + 1
        before, after = public_view(g), public_view(g2)
        changed = {k for k in before if before[k] != after[k]}
        assert changed <= VIEW_FIELDS[what] | {"state_id"}, (option, changed)
        assert changed - {"state_id"}, f"{option} changed nothing on the board"
        if what == "fatigue":
            assert [dict(s, fatigued=None) for s in before["seats"]] == \
                [dict(s, fatigued=None) for s in after["seats"]]


INVALID_CORRECTIONS = [
    (["shield", 7], MalformedCommand), (["shield", -1], MalformedCommand),
    (["shield"], MalformedCommand), (["shield", "2"], MalformedCommand),
    (["shield", 2, 3], MalformedCommand),
    (["outpost", "kitchen", "on"], IllegalOption), (["fatigue", "gandalf", "on"], IllegalOption),
    (["outpost", "command", "sideways"], MalformedCommand),
    (["outpost", "command"], MalformedCommand),
    (["sabotage", "kitchen"], MalformedCommand), (["suspicion", 0], MalformedCommand),
    (["suspicion", 4], MalformedCommand), (["event_cubes", 99], MalformedCommand),
    (["event_cubes", -1], MalformedCommand), (["final_cubes", 3], MalformedCommand),
    (["dice", 3], MalformedCommand), ([], MalformedCommand), ("shield", MalformedCommand),
    (["commander", "2"], MalformedCommand), (["shield", 2.0], MalformedCommand),
]


@pytest.mark.parametrize("option, error", INVALID_CORRECTIONS,
                         ids=[json.dumps(o) for o, _ in INVALID_CORRECTIONS])
def test_invalid_correction(at_action, option, error):
    refused(at_action, HOST, {"decision": "correct", "option": option}, error)


def test_correction_to_a_token_already_there(at_action):
    g = at_action
    on = g.outpost_board[0]  # two outpost tokens are out from the start
    refused(g, HOST, {"decision": "correct", "option": ["outpost", on, "on"]}, IllegalOption)
    off = next(t for t in FATIGUE_TOKENS if t not in g.fatigue_board)
    refused(g, HOST, {"decision": "correct", "option": ["fatigue", off, "off"]}, IllegalOption)


def test_correction_of_suspicion_after_the_cube_left():
    g = advance(lambda g: g.suspicion is None, players=3)
    refused(g, HOST, {"decision": "correct", "option": ["suspicion", 2]}, IllegalOption)


def test_correction_to_six_shield_tokens_ends_the_game(at_action):
    g, events = accepted(at_action, HOST, {"decision": "correct", "option": ["shield", 6]})
    assert g.outcome.winner == "infected" and g.outcome.condition == "shield"
    assert g.pending is None
    assert {"k": "game_over", "winner": "infected", "condition": "shield"} in events[0]["facts"]
    view = public_view(g)
    assert view["outcome"] == {"winner": "infected", "condition": "shield"}
    assert all(s["status"] is not None for s in view["seats"])  # everything shown at the end
    refused(g, at_action.pending.seats[0], command(at_action, state_id=None), GameOver)


def test_sixth_outpost_token_by_correction_ends_the_game(at_action):
    g = at_action
    for token in OUTPOST_TOKENS:
        if token not in g.outpost_board:
            g, _ = accepted(g, HOST, {"decision": "correct", "option": ["outpost", token, "on"]})
    assert g.outcome.winner == "infected" and g.outcome.condition == "outpost"


# --- fuzz: any JSON from anyone is refused cleanly or is a legal option ---

json_atoms = st.one_of(st.none(), st.booleans(), st.integers(-3, 12), st.floats(-3, 12),
                       st.sampled_from(["pass", "in", "out", "strong", "weak", "abstain",
                                        "repair", "shield", "vote", "take", "submit", "roll",
                                        "discard", "event", "task", "player", "agree"]))
json_values = st.recursive(json_atoms, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.sampled_from(["a", "option"]), inner,
                                                 max_size=2)), max_leaves=8)


@pytest.fixture(scope="module")
def positions():
    out = []
    for seed in range(6):
        rng = random.Random(1000 + seed)
        g = replay(start(Setup(NAMES5, variants=VARIANTS), rng))
        while g.outcome is None:
            out.append(g.clone())
            seat, cmd = bot_choice(g, rng)
            play(g, seat, cmd, Ctx(Chance(rng=rng)))
        out.append(g)
    return out[::3]


@settings(max_examples=400, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_fuzzed_commands(positions, data):
    g = data.draw(st.sampled_from(positions))
    kinds = [g.pending.kind] if g.pending else ["action"]
    actor = data.draw(st.one_of(st.integers(-1, 6), st.just(HOST), json_atoms))
    cmd = data.draw(st.one_of(
        json_values,
        st.fixed_dictionaries({"decision": st.one_of(st.sampled_from(kinds + ["correct"]),
                                                     json_atoms),
                               "option": json_values},
                              optional={"state_id": st.one_of(st.just(g.state_id),
                                                              json_atoms),
                                        "extra": json_atoms})))
    before = pickle.dumps(g)
    try:
        events = decide(g, actor, cmd, random.Random(5))
    except RulesError as err:
        assert err.code in CODES.values() or err.code == "refused"
        assert pickle.dumps(g) == before
        return
    assert pickle.dumps(g) == before
    # accepted: a well-formed command answering what the game waits for (or a correction)
    assert isinstance(cmd, dict) and set(cmd) <= {"decision", "option", "state_id"}
    option = as_option(cmd["option"])
    if actor == HOST:
        assert cmd["decision"] == "correct"
    else:
        assert actor in g.pending.seats and cmd["decision"] == g.pending.kind
        assert option in g.pending.options[actor]
    json.dumps(events)
    assert evolve(g, events).state_id == g.state_id + 1


def test_no_token_correction_while_a_decision_names_the_tokens():
    """Found by this file: with a 'remove a shield token' option pending, the host setting
    the shield to 0 let the answer take the track to -1; taking an offered outpost token off
    the board made the answer crash (ValueError). Such corrections now wait for the answer."""
    g = advance(lambda g: waiting("remove_token")(g) or waiting("bonus")(g), seeds=range(2000))
    for option in (["shield", 0], ["shield", 5], ["outpost", "command",
                                                   "off" if "command" in g.outpost_board
                                                   else "on"],
                   ["fatigue", "jon", "off" if "jon" in g.fatigue_board else "on"]):
        err = refused(g, HOST, {"decision": "correct", "option": option}, IllegalOption)
        assert g.pending.kind in err.message
    # other counters may still be corrected meanwhile
    accepted(g, HOST, {"decision": "correct",
                       "option": ["sabotage", "none" if g.sabotage else "shield"]})


@pytest.mark.parametrize("area", ["shield", "outpost"])
def test_host_empties_the_area_during_a_repair_roll(area):
    """Found by the random games with corrections: the host clearing the area while a repair
    roll is pending took the shield track to -1, or asked for an outpost token to remove
    with none on the board (an AssertionError). A successful repair now removes nothing."""
    def rolling_a_success(g):
        p = g.pending
        return (waiting("submit")(g) and p.data.get("purpose") == "repair"
                and p.data.get("area") == area
                and any(face > 0 for _, face in g.seats[p.seats[0]].rolled))
    g = advance(rolling_a_success, seeds=range(3000))
    seat = g.pending.seats[0]
    if area == "shield":
        g, _ = accepted(g, HOST, {"decision": "correct", "option": ["shield", 0]})
    for token in list(g.outpost_board if area == "outpost" else []):
        g, _ = accepted(g, HOST, {"decision": "correct", "option": ["outpost", token, "off"]})
    option = next(o for o in g.pending.options[seat]
                  if o != ("reroll",) and g.seats[seat].rolled[o[1]][1] > 0)
    g, events = accepted(g, seat, {"decision": "submit", "option": list(option)})
    assert {"k": "repair", "seat": seat, "area": area, "success": True} in events[0]["facts"]
    assert g.shield_tokens >= 0 and (area != "outpost" or not g.outpost_board)
