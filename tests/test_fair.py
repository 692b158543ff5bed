"""Provably fair dealing, darkmoon-fair/2: the procedure (companion/chance/fair.py), the record and
its checker (companion/chance/verify.py), and the Table dealing from it, stored under the number its
commitment binds and going on with the same stream after a power cut.

Games are played by the random-games bots (tests/test_random_games.py) with every chance
outcome drawn from a Fair; the checker must accept each of them and reject a record with one
die face, one card or one shuffle changed, a swapped secret or a dropped contribution. The
attacks on the record itself (chosen fillers, records cut short, malformed records, records
moved to another game or box) are in tests/test_verify_records.py.
"""
from __future__ import annotations

import copy
import hashlib
import hmac
import json
import random
import re
import struct

import pytest

from companion.darkmoon import Chance, Setup, start
from companion.darkmoon.api import apply_event, step
from companion.darkmoon.data import (COMMANDER, FACES, FINAL_EVENTS, MIN_PLAYERS_FOR, STRONG,
                                     VARIANTS, WEAK, available)
from companion.chance.fair import (FILLER, LABEL, PHONE, Fair, Stream, code, commitment,
                            contribution, draw_value, filler, pledge)
from companion.tools.simulate import bot_choice, helpful_choice
from companion.core.store import EventStore, GameTaken
from companion.core.table import OtherRules, Table
from companion.chance.verify import NotVerifiable, check, record, verify

BOX = "b0" * 32
SECRET = "00" * 31 + "01"
GIVEN = ["11" * 32, "22" * 32, "33" * 32]
GAME = 7


def phones_fair(players: int, phones: int, box: str = BOX, game: int = GAME,
                secret: str = SECRET) -> Fair:
    """Seats 0..phones-1 gave (pledged, then revealed) bytes of their own; the rest fillers."""
    commit = commitment(box, game, secret)
    values = [GIVEN[s % 3] if s < phones else None for s in range(players)]
    return Fair(box, game, secret, values,
                [PHONE if s < phones else FILLER for s in range(players)],
                [pledge(commit, v) if v else None for v in values])


def fair_game(players: int, variants: tuple = (), seed: int = 1, choose=bot_choice,
              fair: Fair | None = None) -> tuple[Fair, list[dict]]:
    """A whole game between bots whose every chance outcome comes from `fair`; the bots'
    choices come from their own seeded generator."""
    fair = fair or Fair.draw(players, BOX, GAME)
    rng = random.Random(seed)
    setup = Setup(tuple(f"P{i}" for i in range(players)), variants=variants)
    events = start(setup, fair.stream(0))
    g = apply_event(None, events[0])
    while g.outcome is None:
        seat, command = choose(g, rng)
        new, g = step(g, seat, command, fair.stream(len(events)))
        events += new
    return fair, json.loads(json.dumps(events))  # as the store gives them back


def fair_record(players=5, variants=(), seed=1, choose=helpful_choice,
                fair: Fair | None = None) -> dict:
    fair, events = fair_game(players, variants, seed, choose, fair)
    return json.loads(json.dumps(record(fair.game, {"fair": fair.to_json()}, events)))


# --- the procedure ---

def test_the_commitment_binds_the_box_and_the_games_number_to_the_secret():
    made = hashlib.sha256(b"darkmoon-fair/2" + bytes.fromhex(BOX) + struct.pack(">Q", GAME)
                          + bytes.fromhex(SECRET)).hexdigest()
    assert LABEL == b"darkmoon-fair/2" and commitment(BOX, GAME, SECRET) == made
    assert commitment(BOX, GAME + 1, SECRET) != made
    assert commitment("b1" + BOX[2:], GAME, SECRET) != made


def test_a_code_has_no_look_alikes_and_is_sixteen_symbols_in_four_groups_of_four():
    # docs/fair.md, "The procedure": code(h) is h's first 10 bytes as a big-endian number,
    # modulo 31^16, in 16 base-31 digits written with ABCDEFGHJKMNPQRSTUVWXYZ23456789.
    # Before, it was 16 hex digits, where a 0 reads as an O and a 1 as an I or an l.
    alphabet = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
    assert not set("0O1IL") & set(alphabet) and len(set(alphabet)) == 31

    def by_the_page(h: str) -> str:
        n, digits = int(h[:20], 16) % 31 ** 16, ""
        for _ in range(16):
            n, d = divmod(n, 31)
            digits = alphabet[d] + digits
        return " ".join(digits[i:i + 4] for i in range(0, 16, 4))

    hashes = [hashlib.sha256(i.to_bytes(2, "big")).hexdigest() for i in range(2000)]
    codes = [code(h) for h in hashes]
    assert codes == [by_the_page(h) for h in hashes]
    assert len(set(codes)) == len(codes)  # 79 bits: no two of 2,000 alike
    for shown in codes:
        assert re.fullmatch(r"[A-HJKMNP-Z2-9]{4}( [A-HJKMNP-Z2-9]{4}){3}", shown)
    assert not set("0O1IL") & set("".join(codes))
    assert {c for shown in codes for c in shown.replace(" ", "")} == set(alphabet)
    h = hashes[0]
    assert code(h[:20] + "f" * 44) == code(h)  # only the first 10 bytes are written
    assert code(h[:19] + ("1" if h[19] != "1" else "2") + h[20:]) != code(h)


def test_a_pledge_and_a_filler_are_the_hashes_the_spec_names():
    commit, value = commitment(BOX, GAME, SECRET), GIVEN[1]
    assert pledge(commit, value) == hashlib.sha256(bytes.fromhex(commit + value)).hexdigest()
    assert filler(SECRET, 3) == hmac.new(bytes.fromhex(SECRET),
                                         b"darkmoon-fair/2 filler" + struct.pack(">Q", 3),
                                         hashlib.sha256).hexdigest()
    assert len({filler(SECRET, s) for s in range(7)}) == 7


def test_a_stream_is_hmac_sha256_of_box_game_position_and_counter_read_as_32_bit_words():
    fair = phones_fair(4, 3)
    assert fair.contributions == [*GIVEN, filler(SECRET, 3)]
    key = bytes.fromhex(SECRET + "".join(GIVEN) + filler(SECRET, 3))
    words = []
    for counter in range(2):
        message = bytes.fromhex(BOX) + struct.pack(">QQQ", GAME, 5, counter)
        assert len(message) == 56
        words += struct.unpack(">8I", hmac.new(key, message, hashlib.sha256).digest())
    stream = fair.stream(5)
    assert [stream.word() for _ in range(16)] == words


def test_a_stored_fair_comes_back_as_it_was_and_one_of_darkmoon_fair_1_is_refused():
    fair = phones_fair(5, 2)
    fair.pledges[4] = pledge(fair.commitment, draw_value())  # pledged, never revealed
    stored = json.loads(json.dumps(fair.to_json()))
    assert stored["format"] == 2 and stored["game"] == GAME and stored["box"] == BOX
    again = Fair.from_json(stored)
    assert (again.contributions, again.sources, again.pledges, again.commitment) == (
        fair.contributions, fair.sources, fair.pledges, fair.commitment)
    with pytest.raises(ValueError):  # what darkmoon-fair/1 stored
        Fair.from_json({"secret": SECRET, "contributions": GIVEN, "sources": ["pi"] * 3})


def test_a_fair_refuses_a_chosen_filler_and_a_phone_value_that_is_not_its_pledge():
    with pytest.raises(ValueError):
        Fair(BOX, GAME, SECRET, ["44" * 32], [FILLER])
    with pytest.raises(ValueError):
        Fair(BOX, GAME, SECRET, [GIVEN[0]], [PHONE], [pledge(commitment(BOX, GAME, SECRET),
                                                             GIVEN[1])])
    with pytest.raises(ValueError):
        Fair(BOX, GAME, SECRET, [GIVEN[0]], [PHONE])  # a phone that pledged nothing
    with pytest.raises(ValueError):
        Fair(BOX, 0, SECRET, [None], [FILLER])  # games are numbered from 1


class Words(Stream):
    """A stream that hands out given words: the draws' arithmetic, seen exactly."""

    def __init__(self, words):
        super().__init__(None, b"")
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
    fair = phones_fair(3, 3)
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
    fair = phones_fair(3, 3)
    counts: dict = {}
    for position in range(24_000):
        order = tuple(Chance(rng=fair.stream(position)).shuffle(["a", "b", "c", "d"]))
        counts[order] = counts.get(order, 0) + 1
    assert len(counts) == 24
    # 23 degrees of freedom, 0.1% critical value 49.73
    assert chi_squared(counts, {k: 1000 for k in counts}) < 49.73


# --- the checker ---

def sizes_and_variants():
    for players in range(3, 8):
        fits = tuple(v for v in VARIANTS if players >= MIN_PLAYERS_FOR.get(v, 0))
        yield pytest.param(players, (), id=f"{players}p")
        yield pytest.param(players, fits, id=f"{players}p-all")
    for v in VARIANTS:
        yield pytest.param(5, (v,), id=f"5p-{v}")


@pytest.mark.parametrize("players,variants", list(sizes_and_variants()))
def test_verify_accepts_every_honest_game_played_to_its_end(players, variants):
    for seed, choose, fair in ((players, bot_choice, None),
                               (players + 100, helpful_choice, phones_fair(players, 2))):
        verdict = check(fair_record(players, variants, seed, choose, fair))
        assert verdict.problems == [] and verdict.over, (players, variants, seed)
    assert (verdict.phones, verdict.fillers) == (2, players - 2)


def test_a_seat_that_pledged_and_never_revealed_shows_as_a_filler_with_its_pledge():
    fair = phones_fair(4, 2)
    fair = Fair(BOX, GAME, SECRET, fair.contributions, fair.sources,
                fair.pledges[:3] + [pledge(fair.commitment, draw_value())])
    rec = fair_record(4, fair=fair)
    assert rec["contributions"][3]["from"] == "filler" and rec["contributions"][3]["pledge"]
    verdict = check(rec)
    assert verdict.problems == [] and verdict.unrevealed == [3] and verdict.fillers == 2


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
    rec = fair_record(fair=phones_fair(5, 2))
    other = copy.deepcopy(rec)
    other["secret"] = "ab" * 32
    assert verify(other) == ["the secret does not match the commitment shown before the deal "
                             f"(for game {GAME} of this box)"]
    # a new secret with its own commitment: the phones' pledges were to the old one
    other["commitment"] = commitment(BOX, GAME, other["secret"])
    assert verify(other) == ["seat 0's bytes are not the ones its phone pledged"]


def test_verify_rejects_a_dropped_or_replaced_contribution():
    rec = fair_record()
    rec["contributions"].pop(2)
    assert verify(rec) and "contributions for seats [0, 1, 3, 4]" in verify(rec)[0]
    rec = fair_record(fair=phones_fair(5, 3))
    rec["contributions"][2]["value"] = "00" * 32  # one phone's randomness replaced
    assert verify(rec) == ["seat 2's bytes are not the ones its phone pledged"]


# Secrets and contributions that bytes.fromhex reads (it skips spaces and takes capitals) and
# the verify page does not: the command and the page must judge each of these records alike,
# so each is refused by both (tests/web/test_browser_fair.py holds the page to the same).
ODD_VALUES = {"spaces": "ab" * 31 + "  ", "all_spaces": " " * 64, "capitals": "AB" * 32,
              "tab_newline": "ab" * 31 + "\t\n"}


def odd_records() -> dict[str, dict]:
    """Records of real games whose seat 1 (a phone's) holds an odd value, as a phone could
    send it (or, last, with the secret in capitals)."""
    records = {}
    honest = fair_record(3, seed=5, fair=phones_fair(3, 2, secret="5e" * 32))
    for name, value in ODD_VALUES.items():
        rec = copy.deepcopy(honest)
        rec["contributions"][1]["value"] = value  # as the phone sent it
        records[name] = rec
    rec = copy.deepcopy(honest)
    rec["secret"] = rec["secret"].upper()
    records["secret_in_capitals"] = rec
    return records


@pytest.mark.parametrize("name", [*ODD_VALUES, "secret_in_capitals"])
def test_verify_refuses_a_secret_or_contribution_that_is_not_64_lowercase_hex_digits(name):
    problems = verify(odd_records()[name])
    if name == "secret_in_capitals":
        assert problems == ['the record\'s "secret" is not 64 lowercase hex digits']
    else:
        assert problems == ['seat 1\'s contribution ("value") is not 64 lowercase hex digits']
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


def stored_events(store: EventStore, game_id: int) -> list[dict]:
    return [e for records in store.load(game_id) for e in records]


def test_an_unseeded_table_deals_from_its_fair_stored_under_the_number_committed_to(tmp_path):
    store = EventStore(tmp_path / "g.db")
    fair = phones_fair(4, 1, box=store.box(), game=3)
    table = Table.new(store, {"names": ["A", "B", "C", "D"]}, fair=fair)
    assert table.game_id == 3 == store.latest_game()
    play(table, 10_000, random.Random(3))
    rec = record(3, store.meta(3), stored_events(store, 3))
    assert table.over and check(rec).problems == [] and check(rec).over
    assert rec["commitment"] == fair.commitment and rec["box"] == store.box()


def test_a_number_already_taken_is_refused_and_nothing_is_stored(tmp_path):
    store = EventStore(tmp_path / "g.db")
    Table.new(store, {"names": ["A", "B", "C"]})
    before = store.meta(1)
    with pytest.raises(GameTaken):
        Table.new(store, {"names": ["X", "Y", "Z"]}, fair=Fair.draw(3, store.box(), 1))
    assert store.meta(1) == before and store.latest_game() == 1


def test_without_a_fair_the_table_draws_one_for_this_box_and_the_next_number(tmp_path):
    store = EventStore(tmp_path / "g.db")
    Table.new(store, {"names": ["A", "B", "C"]}, seed=4)  # game 1: seeded
    table = Table.new(store, {"names": ["A", "B", "C"]})
    assert table.game_id == 2 and table.fair.game == 2 and table.fair.box == store.box()
    assert table.fair.sources == [FILLER] * 3
    position = Table.from_position(store, {"seats": [{"name": n} for n in "ABC"],
                                           "commander": 0})
    assert position.game_id == 3 and position.fair.game == 3


def test_a_game_resumed_after_a_power_cut_goes_on_with_the_same_stream(tmp_path):
    """"Resume after a power cut continues the same stream (no re-roll)"."""
    fair = phones_fair(5, 2, game=1)
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
    assert resumed.fair.secret == fair.secret and resumed.fair.pledges == fair.pledges
    play(resumed, 30, rng)
    # every roll and draw the same as without the cut (the resumed facts came back through
    # the store's JSON, whose ballots are keyed by strings)
    assert json.loads(json.dumps(resumed.facts)) == json.loads(json.dumps(whole.facts))
    assert resumed_store.load(resumed.game_id) == whole.store.load(whole.game_id)


def test_a_game_dealt_under_darkmoon_fair_1_is_not_resumed_and_gives_no_record(tmp_path):
    store = EventStore(tmp_path / "g.db")
    setup = Setup(("A", "B", "C"))
    events = start(setup, random.Random(1))
    old = {"secret": SECRET, "contributions": GIVEN, "sources": ["phone", "pi", "pi"]}
    game_id = store.new_game({"setup": setup.to_json(), "seed": None, "rules_version": 3,
                              "fair": old})
    store.append(game_id, 1, events)
    with pytest.raises(OtherRules):  # the room treats it as stored under other rules
        Table.resume(store, game_id)
    with pytest.raises(NotVerifiable):
        record(game_id, store.meta(game_id), events)


def test_a_seeded_game_deals_what_it_always_dealt_and_is_not_verifiable(tmp_path):
    store = EventStore(tmp_path / "g.db")
    table = Table.new(store, {"names": ["A", "B", "C"]}, seed=5)
    assert table.fair is None and "fair" not in store.meta(table.game_id)
    assert store.load(table.game_id)[0] == start(Setup(("A", "B", "C")),
                                                  random.Random("5:0"))
    with pytest.raises(NotVerifiable):
        record(table.game_id, store.meta(table.game_id), store.load(table.game_id)[0])
