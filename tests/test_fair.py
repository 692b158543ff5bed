"""Provably fair dealing (issue 14): the procedure (companion/fair.py), the record and its
checker (companion/verify.py), the Table dealing from it and going on with the same stream
after a power cut, and `darkmoon-companion verify`.

Games are played by the random-games bots (tests/test_random_games.py) with every chance
outcome drawn from a Fair; the checker must accept each of them and reject a record with one
die face, one card or one shuffle changed, a swapped secret or a dropped contribution.
"""
from __future__ import annotations

import copy
import hashlib
import hmac
import json
import random
import struct

import pytest

from companion.cli import main
from companion.darkmoon import Chance, Setup, start
from companion.darkmoon.api import apply_event, step
from companion.darkmoon.data import (COMMANDER, FACES, FINAL_EVENTS, MIN_PLAYERS_FOR, STRONG,
                                     VARIANTS, WEAK, available)
from companion.fair import Fair, Stream, commitment, contribution, fingerprint
from companion.simulate import bot_choice, helpful_choice
from companion.store import EventStore
from companion.table import Table
from companion.verify import NotVerifiable, record, verify

SECRET = "00" * 31 + "01"
GIVEN = ["11" * 32, "22" * 32, "33" * 32]


def fair_game(players: int, variants: tuple = (), seed: int = 1, choose=bot_choice,
              fair: Fair | None = None) -> tuple[Fair, list[dict]]:
    """A whole game between bots whose every chance outcome comes from `fair`; the bots'
    choices come from their own seeded generator."""
    fair = fair or Fair.draw(players)
    rng = random.Random(seed)
    setup = Setup(tuple(f"P{i}" for i in range(players)), variants=variants)
    events = start(setup, fair.stream(0))
    g = apply_event(None, events[0])
    while g.outcome is None:
        seat, command = choose(g, rng)
        new, g = step(g, seat, command, fair.stream(len(events)))
        events += new
    return fair, json.loads(json.dumps(events))  # as the store gives them back


def fair_record(players=5, variants=(), seed=1, choose=helpful_choice) -> dict:
    fair, events = fair_game(players, variants, seed, choose)
    return json.loads(json.dumps(record(7, {"fair": fair.to_json()}, events)))


# --- the procedure ---

def test_a_stream_is_hmac_sha256_of_the_position_and_a_counter_read_as_32_bit_words():
    fair = Fair(SECRET, GIVEN)
    key = bytes.fromhex(SECRET + "".join(GIVEN))
    words = []
    for counter in range(2):
        block = hmac.new(key, struct.pack(">QQ", 5, counter), hashlib.sha256).digest()
        words += struct.unpack(">8I", block)
    stream = fair.stream(5)
    assert [stream.word() for _ in range(16)] == words
    assert fair.commitment == hashlib.sha256(bytes.fromhex(SECRET)).hexdigest()


class Words(Stream):
    """A stream that hands out given words: the draws' arithmetic, seen exactly."""

    def __init__(self, words):
        super().__init__(None, 0)
        self._given = list(words)

    def word(self) -> int:
        return self._given.pop(0)


def test_a_word_in_the_top_sliver_that_would_favour_low_faces_is_thrown_away():
    # 2**32 = 715827882 * 6 + 4: the last 4 words would make faces 0-3 likelier than 4-5.
    assert Words([2**32 - 1, 2**32 - 4, 11]).below(6) == 11 % 6
    assert Words([2**32 - 5]).below(6) == (2**32 - 5) % 6


def test_fisher_yates_swaps_each_place_from_the_last_with_one_drawn_below_it():
    # i = 3: below(4) = 1, swap d and b: a d c b; i = 2: below(3) = 2, c stays;
    # i = 1: below(2) = 0, swap d and a: d a c b
    items = ["a", "b", "c", "d"]
    Words([1, 2, 0]).shuffle(items)
    assert items == ["d", "a", "c", "b"]


def chi_squared(counts: dict, expected: dict) -> float:
    return sum((counts.get(k, 0) - e) ** 2 / e for k, e in expected.items())


@pytest.mark.parametrize("colour", [STRONG, WEAK, COMMANDER])
def test_derived_dice_are_fair_by_a_chi_squared_test(colour):
    """Dice faces (rulebook, "Dice": six faces, three of them -2): 60,000 rolls of a die
    drawn the way the Table draws them, one event's stream after another."""
    fair = Fair(SECRET, GIVEN)
    rolls, counts = 60_000, {}
    for position in range(rolls // 6):
        chance = Chance(rng=fair.stream(position))
        for _ in range(6):
            face = chance.roll(colour)
            counts[face] = counts.get(face, 0) + 1
    faces = FACES[colour]
    expected = {f: rolls * faces.count(f) / len(faces) for f in set(faces)}
    # 4 distinct faces, 3 degrees of freedom: 16.27 is the 0.1% critical value. The secret
    # is fixed, so the test is deterministic; a biased draw would be far above it.
    assert chi_squared(counts, expected) < 16.27


def test_derived_shuffles_give_every_order_as_often():
    fair = Fair(SECRET, GIVEN)
    counts: dict = {}
    for position in range(24_000):
        order = tuple(Chance(rng=fair.stream(position)).shuffle(["a", "b", "c", "d"]))
        counts[order] = counts.get(order, 0) + 1
    assert len(counts) == 24
    # 23 degrees of freedom, 0.1% critical value 49.73
    assert chi_squared(counts, {k: 1000 for k in counts}) < 49.73


def test_the_fingerprint_is_the_commitments_first_eight_digits():
    assert fingerprint("3fa9c01b" + "0" * 56) == "3FA9 C01B"


# --- the checker ---

def sizes_and_variants():
    for players in range(3, 8):
        fits = tuple(v for v in VARIANTS if players >= MIN_PLAYERS_FOR.get(v, 0))
        yield pytest.param(players, (), id=f"{players}p")
        yield pytest.param(players, fits, id=f"{players}p-all")
    for v in VARIANTS:
        yield pytest.param(5, (v,), id=f"5p-{v}")


@pytest.mark.parametrize("players,variants", list(sizes_and_variants()))
def test_verify_accepts_every_honest_game(players, variants):
    for seed, choose in ((players, bot_choice), (players + 100, helpful_choice)):
        rec = fair_record(players, variants, seed, choose)
        assert verify(rec) == [], (players, variants, seed)


def draws_where(rec, wanted):
    """(event, index) of every draw `wanted(draw)` accepts."""
    return [(e, m) for e, draws in enumerate(rec["draws"]) for m, d in enumerate(draws)
            if wanted(d)]


def test_verify_rejects_one_die_face_changed():
    rec = fair_record()
    e, m = draws_where(rec, lambda d: d["op"] == "pick" and d["from"] == list(FACES[STRONG]))[3]
    was = rec["events"][e]["chance"][m]
    rec["events"][e]["chance"][m] = next(f for f in FACES[STRONG] if f != was)
    problems = verify(rec)
    assert problems and problems[0].startswith(f"event {e}: chance outcome {m}")


def test_verify_rejects_one_card_changed():
    rec = fair_record()
    finals = available(FINAL_EVENTS, False)  # the base game's final events
    (e, m), = draws_where(rec, lambda d: d["from"] == finals)  # the final event
    rec["events"][e]["chance"][m] = next(c for c in finals
                                         if c != rec["events"][e]["chance"][m])
    assert verify(rec) and verify(rec)[0].startswith("event 0: chance outcome")


def test_verify_rejects_one_shuffle_changed():
    rec = fair_record()
    e, m = draws_where(rec, lambda d: d["op"] == "shuffle" and len(d["from"]) > 5)[-1]
    deck = rec["events"][e]["chance"][m]
    deck[0], deck[1] = deck[1], deck[0]  # two cards swapped: the same cards, another order
    assert verify(rec)


def test_verify_rejects_a_swapped_secret():
    rec = fair_record()
    other = copy.deepcopy(rec)
    other["secret"] = "ab" * 32
    assert verify(other) == ["the secret does not match the commitment shown before the deal"]
    # a new secret with its own commitment: the outcomes are not what it gives
    other["commitment"] = commitment(other["secret"])
    assert verify(other) and verify(other)[0].startswith("event 0: chance outcome")


def test_verify_rejects_a_dropped_contribution():
    rec = fair_record()
    rec["contributions"].pop(2)
    assert verify(rec) and "contributions for seats [0, 1, 3, 4]" in verify(rec)[0]
    rec = fair_record()
    rec["contributions"][2]["value"] = "00" * 32  # one seat's randomness replaced
    assert verify(rec)


# Secrets and contributions that bytes.fromhex reads (it skips spaces and takes capitals) and
# the verify page does not: the command and the page must judge each of these records alike,
# so each is refused by both (tests/web/test_browser_fair.py holds the page to the same).
ODD_VALUES = {"spaces": "ab" * 31 + "  ", "all_spaces": " " * 64, "capitals": "AB" * 32,
              "tab_newline": "ab" * 31 + "\t\n"}


def odd_records() -> dict[str, dict]:
    """Records of games really dealt with an odd contribution from seat 1 (or, last, with
    the secret in capitals): as a phone could once have had it stored at its claim."""
    records = {}
    for name, value in ODD_VALUES.items():
        fair, events = fair_game(3, seed=5, choose=helpful_choice,
                                 fair=Fair(SECRET, [GIVEN[0], value, GIVEN[2]]))
        rec = json.loads(json.dumps(record(7, {"fair": fair.to_json()}, events)))
        rec["contributions"][1]["value"] = value  # as the phone sent it
        records[name] = rec
    rec = copy.deepcopy(fair_record(3, seed=5))
    rec["secret"] = rec["secret"].upper()
    records["secret_in_capitals"] = rec
    return records


@pytest.mark.parametrize("name", [*ODD_VALUES, "secret_in_capitals"])
def test_verify_refuses_a_secret_or_contribution_that_is_not_64_lowercase_hex_digits(name):
    problems = verify(odd_records()[name])
    if name == "secret_in_capitals":
        assert problems == ["the secret is not 64 lowercase hex digits"]
    else:
        assert problems == ["seat 1's contribution is not 64 lowercase hex digits"]
        with pytest.raises(ValueError):
            contribution(ODD_VALUES[name])  # and a phone's claim refuses it


def test_verify_rejects_draws_that_are_not_what_the_rules_drew_from():
    rec = fair_record()
    e, m = draws_where(rec, lambda d: d["from"] == list(FACES[WEAK]))[0]
    rec["draws"][e][m]["from"] = list(FACES[STRONG])
    assert verify(rec) == [f"event {e}: the draws listed are not what the rules drew from"]


# --- the Table deals from it ---

def play(table: Table, commands: int, rng: random.Random) -> None:
    for _ in range(commands):
        if table.over:
            return
        seat, command = helpful_choice(table.state, rng)
        table.submit(seat, command)


def test_an_unseeded_table_deals_every_outcome_from_its_fair_secret(tmp_path):
    store = EventStore(tmp_path / "g.db")
    fair = Fair.draw(4)
    table = Table.new(store, {"names": ["A", "B", "C", "D"]}, fair=fair)
    play(table, 10_000, random.Random(3))
    events = [e for records in store.load(table.game_id) for e in records]
    assert table.over and verify(record(table.game_id, store.meta(table.game_id), events)) == []
    assert store.meta(table.game_id)["fair"]["secret"] == fair.secret


def test_a_game_resumed_after_a_power_cut_goes_on_with_the_same_stream(tmp_path):
    """"Resume after a power cut continues the same stream (no re-roll)" (issue 14)."""
    fair = Fair.draw(5)
    setup = {"names": ["A", "B", "C", "D", "E"]}
    whole = Table.new(EventStore(tmp_path / "a.db"), setup, fair=fair)
    play(whole, 60, random.Random(9))
    cut_store = EventStore(tmp_path / "b.db")
    cut = Table.new(cut_store, setup, fair=fair)
    play(cut, 30, random.Random(9))
    rng = random.Random(9)
    play(Table.new(EventStore(tmp_path / "c.db"), setup, fair=fair), 30, rng)  # rng moves on
    cut_store.close()
    resumed_store = EventStore(tmp_path / "b.db")
    resumed = Table.resume(resumed_store)
    assert resumed.fair.secret == fair.secret
    play(resumed, 30, rng)
    # every roll and draw the same as without the cut (the resumed facts came back through
    # the store's JSON, whose ballots are keyed by strings)
    assert json.loads(json.dumps(resumed.facts)) == json.loads(json.dumps(whole.facts))
    assert resumed_store.load(resumed.game_id) == whole.store.load(whole.game_id)


def test_a_seeded_game_deals_what_it_always_dealt_and_is_not_verifiable(tmp_path):
    store = EventStore(tmp_path / "g.db")
    table = Table.new(store, {"names": ["A", "B", "C"]}, seed=5)
    assert table.fair is None and "fair" not in store.meta(table.game_id)
    assert store.load(table.game_id)[0] == start(Setup(("A", "B", "C")),
                                                  random.Random("5:0"))
    with pytest.raises(NotVerifiable):
        record(table.game_id, store.meta(table.game_id), store.load(table.game_id)[0])


# --- darkmoon-companion verify FILE ---

def test_the_verify_command_says_whether_a_saved_record_was_dealt_fairly(tmp_path, capsys):
    rec = fair_record(4, seed=2)
    path = tmp_path / "record.json"
    path.write_text(json.dumps(rec))
    assert main(["verify", str(path)]) == 0
    said = capsys.readouterr().out
    assert said.startswith("Verified: game 7 was dealt fairly.") and rec["commitment"] in said
    rec["events"][0]["chance"][0] = list(reversed(rec["events"][0]["chance"][0]))
    path.write_text(json.dumps(rec))
    assert main(["verify", str(path)]) == 1
    assert capsys.readouterr().out.startswith("NOT verified: event 0: chance outcome 0")
    path.write_text("not json")
    assert main(["verify", str(path)]) == 2
    assert "is not a record" in capsys.readouterr().out


# --- docs/fair.md's worked example ---

def test_the_worked_example_in_the_docs_is_what_the_code_gives():
    from pathlib import Path
    doc = " ".join((Path(__file__).parents[1] / "docs" / "fair.md").read_text().split())
    secret = bytes(range(32)).hex()
    fair = Fair(secret, [bytes(range(32 * k, 32 * k + 32)).hex() for k in (1, 2, 3)])
    key = bytes(range(128))
    assert f"`{fair.commitment}`, fingerprint `{fingerprint(fair.commitment)}`" in doc
    assert f"SHA-256(key) = `{hashlib.sha256(key).hexdigest()}`" in doc
    block = hmac.new(key, struct.pack(">QQ", 5, 0), hashlib.sha256).digest()
    assert f"HMAC = `{block.hex()}`, words " + ", ".join(
        map(str, struct.unpack(">8I", block))) in doc
    chance = Chance(rng=fair.stream(5))
    assert (chance.roll(STRONG), chance.roll(WEAK)) == (-2, -1)
    assert "face 0, **−2**" in doc and "face 3, **−1**" in doc
    items = ["a", "b", "c", "d", "e"]
    fair.stream(7).shuffle(items)
    assert f"Result: **`{' '.join(items)}`**" in doc
    words = fair.stream(7)
    assert f"Its words begin {', '.join(str(words.word()) for _ in range(4))}" in doc
    deal = start(Setup(("Ana", "Ben", "Cai")), fair.stream(0))[0]["chance"]
    for outcome in deal[:3]:
        assert json.dumps(outcome) in doc
    assert len(deal) == 3 + 6 and "Six more draws follow" in doc
