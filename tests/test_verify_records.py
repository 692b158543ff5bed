"""`darkmoon-companion verify` against the attacks on a game's record: every game here is
really dealt by a Table into an EventStore and played to its end (or not) by the helpful bots,
and each attack is made on what that store gives.

What a player notices: the command's one line and its exit status (0 verified and over, 1 not
verified, 2 unreadable, 3 checked but not over).
"""
from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from companion.cli import main
from companion.darkmoon import Setup, start
from companion.darkmoon.data import FACES
from companion.chance.fair import (FILLER, PHONE, Fair, code, commitment, draw_secret,
                                   draw_value, pledge)
from companion.tools.simulate import helpful_choice
from companion.core.store import EventStore
from companion.core.table import Table
from companion.chance.verify import check, record

ROOT = Path(__file__).parents[1]
NAMES = ("Ana", "Ben", "Cai", "Dee")


def two_phones(box: str, game: int, secret: str | None = None) -> Fair:
    """Game `game` of `box` as two phones (seats 0 and 1) pledged and revealed their bytes
    for it, the other seats bots: a deal the box did not make alone."""
    secret = secret or draw_secret()
    commit = commitment(box, game, secret)
    values = [draw_value(), draw_value(), None, None]
    return Fair(box, game, secret, values, [PHONE, PHONE, FILLER, FILLER],
                [pledge(commit, v) for v in values[:2]] + [None, None])


def played(store: EventStore, fair: Fair | None = None, seed: int = 3,
           commands: int = 10_000) -> tuple[Table, dict]:
    """A game dealt by a real Table (from `fair`, or as two phones gave bytes to it) and
    played by the bots; its record as the store gives it (built whether the game ended or
    not)."""
    fair = fair or two_phones(store.box(), (store.latest_game() or 0) + 1)
    table = Table.new(store, {"names": list(NAMES)}, fair=fair)
    rng = random.Random(seed)
    for _ in range(commands):
        if table.over:
            break
        table.submit(*helpful_choice(table.state, rng))
    events = [e for records in store.load(table.game_id) for e in records]
    return table, json.loads(json.dumps(record(table.game_id, store.meta(table.game_id),
                                               events)))


@pytest.fixture
def verify_cmd(tmp_path, capsys):
    """The command in this process on a record saved to a file: (exit status, its words)."""
    def go(rec, *options):
        path = tmp_path / "record.json"
        path.write_text(rec if isinstance(rec, str) else json.dumps(rec))
        status = main(["verify", str(path), *options])
        return status, capsys.readouterr().out
    return go


@pytest.fixture(scope="module")
def box_store(tmp_path_factory):
    """One box with two whole games (1 and 2), as the Pi stores them."""
    store = EventStore(tmp_path_factory.mktemp("box") / "games.db")
    one, rec1 = played(store, seed=3)
    two, rec2 = played(store, seed=4)
    assert one.over and two.over and (one.game_id, two.game_id) == (1, 2)
    return store, rec1, rec2


# --- a silent seat's bytes ---

def grind(box: str, game: int, secret: str, seat: int) -> tuple[str, int]:
    """What a modified Pi did: try bytes for a silent seat until the deal suits it (here:
    seat 0 is dealt an infected status). Returns the bytes and the tries taken."""
    commit = commitment(box, game, secret)
    for tries in range(1, 1000):
        value = draw_value()
        sources = [FILLER] * len(NAMES)
        sources[seat] = PHONE  # the only way the honest Fair takes other bytes for it
        pledges = [None] * len(NAMES)
        pledges[seat] = pledge(commit, value)
        values = [None] * len(NAMES)
        values[seat] = value
        fair = Fair(box, game, secret, values, sources, pledges)
        deal = start(Setup(NAMES), fair.stream(0))[0]
        if next(f for f in deal["facts"] if f["k"] == "status_dealt")["status"] != "uninfected":
            return value, tries
    raise AssertionError("no bytes suited the grinder")


def test_a_silent_seat_given_bytes_the_pi_ground_is_not_verified(tmp_path, verify_cmd):
    # On darkmoon-fair/1 a bot's bytes were drawn by the Pi at the deal, after every phone's
    # were in: a modified Pi looped until the deal suited it and the record verified, as
    # "pi" or relabelled "phone". Now a silent seat's bytes are fixed by the secret.
    store = EventStore(tmp_path / "games.db")
    secret, seat = "5e" * 32, 3
    value, tries = grind(store.box(), 1, secret, seat)
    commit = commitment(store.box(), 1, secret)
    sources, pledges, values = [FILLER] * 4, [None] * 4, [None] * 4
    sources[seat], pledges[seat], values[seat] = PHONE, pledge(commit, value), value
    table, rec = played(store, Fair(store.box(), 1, secret, values, sources, pledges))
    assert table.over
    dealt = rec["contributions"][seat]
    dealt.update({"from": "filler", "pledge": None})  # as the modified Pi presents it
    status, out = verify_cmd(rec)
    assert (status, out) == (1, f"NOT verified: seat {seat}'s filler is not the one the "
                                "secret gives: its bytes were chosen\n")
    dealt["from"] = "phone"  # relabelled: a phone's, but no phone pledged it
    assert verify_cmd(rec) == (1, f"NOT verified: seat {seat} is marked as a phone's but no "
                                  "pledge was made for it\n")
    dealt["pledge"] = pledge(commit, draw_value())  # a pledge that is not to these bytes
    assert verify_cmd(rec) == (1, f"NOT verified: seat {seat}'s bytes are not the ones its "
                                  "phone pledged\n")
    # (A pledge the Pi made up for a bot's seat after the reveals matches; it is the phones
    # that refuse it: every seat's pledge was public before anyone revealed, and each phone
    # compares the record's pledges with the ones it kept.)


# --- a record cut short ---

def test_a_record_cut_short_is_never_verified_and_says_so_plainly(tmp_path, verify_cmd,
                                                                   box_store):
    # On darkmoon-fair/1 a record stopping before the last roll, or before the end, was
    # "Verified": the checker only compared the events it was given.
    _, rec, _ = box_store
    rolls = [e for e, draws in enumerate(rec["draws"])
             if any(d["op"] == "pick" and d["from"] in [list(f) for f in FACES.values()]
                    for d in draws)]
    for cut in (rolls[-1], len(rec["events"]) - 1):  # before the last roll; before the end
        short = {**rec, "events": rec["events"][:cut], "draws": rec["draws"][:cut]}
        status, out = verify_cmd(short)
        assert status == 3 and "erified" not in out, out
        assert out.startswith(f"Checked up to event {cut - 1}: the game did not end (cut "
                              "short or replaced)")
    status, out = verify_cmd(rec)
    assert status == 0
    assert out.startswith(f"Verified: game 1 on box {code(rec['box'])} was dealt fairly and "
                          "played to its end.")


def test_a_game_still_in_progress_is_checked_up_to_its_last_event(tmp_path, verify_cmd):
    table, rec = played(EventStore(tmp_path / "games.db"), commands=25)
    assert not table.over and check(rec).problems == [] and not check(rec).over
    status, out = verify_cmd(rec)
    assert status == 3 and out.startswith(f"Checked up to event {table.state_id}:")


# --- malformed records: one line each, never a traceback ---

def command(path: Path, *options) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "companion.cli", "verify", str(path),
                           *options], cwd=ROOT, capture_output=True, text=True, timeout=60)


def test_malformed_records_get_one_clear_line_from_the_real_command(tmp_path, box_store):
    # On darkmoon-fair/1 a record without "game" ended in a KeyError traceback and a secret
    # nested 5,000 deep in a RecursionError.
    _, rec, _ = box_store
    no_game = {k: v for k, v in rec.items() if k != "game"}
    cases = {
        "no_game": (no_game, 1, 'NOT verified: the record has no "game"'),
        "a_list": ([rec], 1, "NOT verified: the record is not a JSON object"),
        "contributions": ({**rec, "contributions": {"0": rec["contributions"][0]}}, 1,
                          'NOT verified: the record\'s "contributions" is not a list'),
        "game_as_text": ({**rec, "game": "1"}, 1,
                         'NOT verified: the record\'s "game" is not a whole number from 1'),
        "deep": (json.dumps({**rec, "secret": "X"}).replace('"X"', "[" * 5000 + "]" * 5000),
                 2, "is nested too deep to be a record"),
        "version_1": ({**rec, "format": "darkmoon-fair/1"}, 1,
                      "NOT verified: this is a darkmoon-fair/1 record"),
    }
    for name, (body, status, words) in cases.items():
        path = tmp_path / f"{name}.json"
        path.write_text(body if isinstance(body, str) else json.dumps(body))
        done = command(path)
        assert (done.returncode, done.stderr) == (status, ""), (name, done.stderr)
        assert done.stdout.count("\n") == 1 and words in done.stdout, (name, done.stdout)


def test_a_record_nested_deep_inside_is_one_problem_for_check(box_store):
    _, rec, _ = box_store
    deep: list = []
    for _ in range(5000):
        deep = [deep]
    rec = {**rec, "events": [*rec["events"][:-1], {**rec["events"][-1], "command": deep}]}
    verdict = check(rec)
    assert len(verdict.problems) == 1 and not verdict.over


# --- a record moved to another game or box ---

def test_a_revealed_secret_passed_off_as_another_game_or_box_is_refused(tmp_path, verify_cmd,
                                                                        box_store):
    # On darkmoon-fair/1 the commitment was SHA-256(secret) and the streams depended on the
    # event's position alone: game 1's revealed secret, with other moves played on the same
    # streams, gave a second record that verified as any game of any box.
    _, rec1, rec2 = box_store
    as_two = {**rec1, "game": 2}
    assert verify_cmd(as_two) == (1, "NOT verified: the secret does not match the commitment "
                                     "shown before the deal (for game 2 of this box)\n")
    elsewhere = {**rec1, "box": EventStore(tmp_path / "other.db").box()}
    assert verify_cmd(elsewhere)[0] == 1
    # the commitment recomputed for game 2: the logged outcomes are not game 2's streams
    recommitted = {**as_two, "commitment": commitment(rec1["box"], 2, rec1["secret"])}
    recommitted["contributions"] = [  # the phones' pledges made again to match it
        {**c, "pledge": pledge(recommitted["commitment"], c["value"])} if c["from"] == PHONE
        else c for c in rec1["contributions"]]
    recommitted["receipt"] = [c["pledge"] if c["from"] == PHONE else None
                              for c in recommitted["contributions"]]
    status, out = verify_cmd(recommitted)
    assert status == 1 and out.startswith("NOT verified: event 0: chance outcome")
    # a whole game played anew on game 2's streams of that secret checks by itself, but not
    # against the commitment the players of game 2 saw
    replayed = two_phones(rec1["box"], 2, rec1["secret"])
    _, forged = played(EventStore(tmp_path / "forger.db"), replayed, seed=8)
    assert verify_cmd(forged)[0] == 0
    status, out = verify_cmd(forged, "--commitment", code(rec2["commitment"]))
    assert status == 1 and out == ("NOT verified: the record's commitment "
                                   f"({code(forged['commitment'])}) is not the one you saw "
                                   f"({code(rec2['commitment'])}): this is another game's "
                                   "record\n")
    assert verify_cmd(rec1, "--commitment", rec2["commitment"])[0] == 1
    assert verify_cmd(rec2, "--commitment", rec2["commitment"])[0] == 0


# --- the commitment people saw ---

def test_the_commitment_you_saw_is_checked_from_the_code_the_kiosk_shows(verify_cmd,
                                                                        box_store):
    # docs/fair.md, "Checking a record", 2: `--commitment` takes the code (16 letters and
    # digits, spaces and case ignored) or the whole 64 hex digits. On darkmoon-fair/1 people
    # saw 8 hex digits (32 bits): a second secret with the same ones took 0.5-1.8 s to find.
    # The hex code of after could be misread (0 or O? 1 or I?) and typed wrong.
    store, rec, _ = box_store
    shown = Fair.from_json(store.meta(1)["fair"]).commitment  # what the kiosk showed
    assert rec["commitment"] == shown == commitment(store.box(), 1, rec["secret"])
    typed = code(shown)
    for seen in (typed, typed.replace(" ", "").lower(), f"  {typed.lower()} ", shown,
                 shown.upper()):
        status, out = verify_cmd(rec, "--commitment", seen)
        assert status == 0 and out.startswith("Verified: game 1"), seen
    refused = {"half a code": typed[:9], "the old hex form": "630D CD29 66C4 3366",
               "a look-alike typed": "O" + typed[1:], "not a code at all": "not a code",
               "63 hex digits": shown[:63]}
    for name, seen in refused.items():
        status, out = verify_cmd(rec, "--commitment", seen)
        assert status == 2 and out.count("\n") == 1 and "Verified" not in out, name
        assert "code as the kiosk shows it" in out and "no 0, O, 1, I or L" in out, name
        assert "64 hex digits" in out, name
