"""docs/fair.md's worked example is what the code gives: every number in it, and the status
deal for every player count from 3 to 7.

Someone writing a checker of their own has only that page; if it and companion/chance/fair.py ever
disagree, the page would teach them to reject genuine records. So each number is computed here
twice where it can be (with the module, and from the page's byte layout with nothing but
hashlib and hmac) and must appear in the page as written.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import re
import struct
from pathlib import Path

import pytest

from companion.darkmoon import Chance, Setup, start
from companion.darkmoon.data import COMMANDER, FACES, STRONG, WEAK
from companion.chance.fair import (FILLER, LABEL, PHONE, Fair, code, commitment, filler, pledge)
from companion.lang import catalogue

DOC = " ".join((Path(__file__).parents[1] / "docs" / "fair.md").read_text().split())
EXAMPLE = DOC[DOC.index("## A worked example"):DOC.index("## What it costs")]

# The example's inputs, as the page states them.
BOX = bytes(range(0xe0, 0x100)).hex()
GAME = 12
SECRET = bytes(range(0x00, 0x20)).hex()
VALUES = [bytes(range(32 * k, 32 * k + 32)).hex() for k in (1, 2, 3)]  # seats 0, 1, 2
NAMES = ["Ana", "Ben", "Cai", "Dee", "Eli", "Fay", "Gus"]
COMMIT = commitment(BOX, GAME, SECRET)
CODE_GROUP_RE = "[A-HJKMNP-Z2-9]{4}"  # four symbols of the code's alphabet: no 0, O, 1, I, L


def fair_for(players: int) -> Fair:
    """The example's game with `players` seats: three phones, then bots (fillers)."""
    bots = players - len(VALUES)
    return Fair(BOX, GAME, SECRET, VALUES + [None] * bots, [PHONE] * 3 + [FILLER] * bots,
                [pledge(COMMIT, v) for v in VALUES] + [None] * bots)


def key_of(fair: Fair) -> bytes:
    return bytes.fromhex(SECRET) + b"".join(bytes.fromhex(c) for c in fair.contributions)


def test_the_inputs_are_the_ones_the_page_states():
    assert "The box is the bytes 0xe0 to 0xff (`e0e1…feff`)" in EXAMPLE
    assert f"the game is number {GAME} (8 bytes: `{struct.pack('>Q', GAME).hex()}`)" in EXAMPLE
    assert "the secret is the bytes 0x00 to 0x1f (`0001…1e1f`)" in EXAMPLE
    assert "seats 0, 1 and 2 give the bytes 0x20–0x3f, 0x40–0x5f and 0x60–0x7f" in EXAMPLE


def test_the_commitment_and_its_code():
    message = LABEL + bytes.fromhex(BOX) + struct.pack(">Q", GAME) + bytes.fromhex(SECRET)
    assert len(message) == 87 and "(15 + 32 + 8 + 32 = 87 bytes hashed)" in DOC
    assert hashlib.sha256(message).hexdigest() == COMMIT  # the page's layout is the code's
    assert f"the 87 bytes `{LABEL.hex()}` (LABEL)" in EXAMPLE
    assert f"commitment = `{COMMIT}`, code `{code(COMMIT)}`" in EXAMPLE
    # 79 bits: four groups of four symbols of the code's alphabet, no look-alikes, from the
    # number the commitment's first 10 bytes make, as the page works it out
    assert re.fullmatch(rf"{CODE_GROUP_RE}( {CODE_GROUP_RE}){{3}}", code(COMMIT))
    number = int(COMMIT[:20], 16)
    assert (f"its first 10 bytes, `{COMMIT[:20]}`, are the number {number}, below 31¹⁶"
            in EXAMPLE) and number < 31 ** 16
    alphabet = re.search(r"character \(from 0\) of `([A-Z0-9]+)`", DOC).group(1)
    digits = ""
    for _ in range(16):
        number, d = divmod(number, 31)
        digits = alphabet[d] + digits
    assert " ".join(digits[i:i + 4] for i in range(0, 16, 4)) == code(COMMIT)


def test_the_pledges_and_a_phones_own_code():
    for seat, value in enumerate(VALUES):
        mine = hashlib.sha256(bytes.fromhex(COMMIT) + bytes.fromhex(value)).hexdigest()
        assert mine == pledge(COMMIT, value)
        assert f"seat {seat} `{mine}`" in EXAMPLE
    assert f"shows its own bytes' code `{code(VALUES[0])}`" in EXAMPLE


def test_the_examples_receipt_names_the_three_phones_pledges():
    # docs/fair.md, "At the table", 5: the receipt names the pledge of each seat whose bytes
    # the deal uses, null for a filler seat; `box_alone` is false with any phone's bytes in.
    fair = fair_for(4)
    assert fair.receipt == [pledge(COMMIT, v) for v in VALUES] + [None]
    assert not fair.box_alone
    assert ("the receipt is these three pledges and a null for every bot, and `box_alone` "
            "is false") in EXAMPLE


def test_the_fillers_of_every_bot_seat():
    label = b"darkmoon-fair/2 filler"
    assert len(label) == 22 and "the 22 ASCII bytes `darkmoon-fair/2 filler`" in DOC
    for seat in range(3, 7):
        mine = hmac.new(bytes.fromhex(SECRET), label + struct.pack(">Q", seat),
                        hashlib.sha256).hexdigest()
        assert mine == filler(SECRET, seat)
        assert f"seat {seat} `{mine}`" in EXAMPLE


def test_the_key_a_block_and_its_words():
    fair = fair_for(4)
    key = key_of(fair)
    assert len(key) == 160 and "3's filler, 160 bytes" in EXAMPLE
    assert f"HMAC uses SHA-256(key) = `{hashlib.sha256(key).hexdigest()}`" in EXAMPLE
    message = bytes.fromhex(BOX) + struct.pack(">QQQ", GAME, 5, 0)
    assert len(message) == 56
    assert f"Event 5, block 0: message `{message.hex()}` (56 bytes)" in EXAMPLE
    block = hmac.new(key, message, hashlib.sha256).digest()
    words = struct.unpack(">8I", block)
    assert f"HMAC = `{block.hex()}`, words {', '.join(map(str, words))}." in EXAMPLE
    stream = fair.stream(5)
    assert tuple(stream.word() for _ in range(8)) == words  # the module reads them alike


def test_two_dice_rolled_on_event_5():
    words = struct.unpack(">2I", hmac.new(key_of(fair_for(4)),
                                          bytes.fromhex(BOX) + struct.pack(">QQQ", GAME, 5, 0),
                                          hashlib.sha256).digest()[:8])
    limit = 2**32 - 2**32 % 6
    assert f"for n = 6, limit = {limit}" in EXAMPLE and max(words) < limit
    chance = Chance(rng=fair_for(4).stream(5))
    strong, weak = chance.roll(STRONG), chance.roll(WEAK)
    assert (FACES[STRONG][words[0] % 6], FACES[WEAK][words[1] % 6]) == (strong, weak)
    for die in (STRONG, WEAK, COMMANDER):  # the faces in the order the page lists them
        assert f"{die} `{list(FACES[die])}`" in DOC
    sign = lambda face: f"{face}".replace("-", "−")  # the page's minus sign
    assert (f"{words[0]} mod 6 = {words[0] % 6}: the strong die shows face {words[0] % 6}, "
            f"**{sign(strong)}**") in EXAMPLE
    assert (f"{words[1]} mod 6 = {words[1] % 6}: the weak die shows face {words[1] % 6}, "
            f"**{sign(weak)}**") in EXAMPLE


def test_a_shuffle_step_by_step_on_event_7():
    stream = fair_for(4).stream(7)
    words = [stream.word() for _ in range(4)]
    assert f"Its words begin {', '.join(map(str, words))}." in EXAMPLE
    items = list("abcde")
    for i, word in zip(range(4, 0, -1), words):
        assert word < 2**32 - 2**32 % (i + 1)  # "no word was thrown away"
        j = word % (i + 1)
        items[i], items[j] = items[j], items[i]
        assert f"i = {i}: {word} mod {i + 1} = {j}, swap" in EXAMPLE
    shuffled = list("abcde")
    fair_for(4).stream(7).shuffle(shuffled)
    assert shuffled == items
    assert f"Result: **`{' '.join(items)}`**" in EXAMPLE


STATUS = {"uninfected": None, "infected_shields": "Infected (Shields)",
          "infected_outpost": "Infected (Outpost)",
          "infected_life_support": "Infected (Life Support)"}
IN_USE = {3: 1, 4: 1, 5: 2, 6: 2, 7: 3}  # "the first one (3 or 4 players), two (5 or 6) or three (7)"


def deal_paragraph(players: int) -> str:
    start_at = EXAMPLE.index(f"- **{players} players**")
    end = EXAMPLE.find("- **", start_at + 4)
    return EXAMPLE[start_at:end if end != -1 else len(EXAMPLE)]


@pytest.mark.parametrize("players", [3, 4, 5, 6, 7])
def test_the_status_deal_for_every_player_count(players):
    tap: list = []
    deal = start(Setup(tuple(NAMES[:players])), fair_for(players).stream(0, tap))[0]["chance"]
    said = deal_paragraph(players)
    characters, infected, statuses = deal[:3]
    assert [t["op"] for t in tap[:3]] == ["shuffle"] * 3
    assert tap[0]["from"] == ["chaya", "daniel", "enver", "jon", "luba", "michihiro", "steve"]
    assert tap[1]["from"] == ["infected_shields", "infected_outpost", "infected_life_support"]
    assert json.dumps(tap[0]["from"]) in EXAMPLE and json.dumps(tap[1]["from"]) in EXAMPLE
    assert f"Characters `{json.dumps(characters)}`" in said
    assert f"Infected cards `{json.dumps(infected)}`" in said
    assert f"statuses `{json.dumps(statuses)}`" in said
    # the statuses are a shuffle of the Infected cards in use and an uninfected for the rest
    assert sorted(tap[2]["from"]) == sorted(infected[:IN_USE[players]]
                                            + ["uninfected"] * (players - IN_USE[players]))
    # who plays whom, and who is Infected, in the page's plain words
    words = catalogue("en")
    first = [words[f"game.character.{c}"].split()[0] for c in characters[:players]]
    assert "Ana plays " + ", ".join(f"{n} {c}" for n, c in zip(NAMES, first)).removeprefix(
        "Ana ") in said
    infected_seats = [f"{NAMES[s]} {'is ' if k == 0 else ''}{STATUS[st]}" for k, (s, st) in
                      enumerate((s, st) for s, st in enumerate(statuses) if STATUS[st])]
    assert "; " + ", ".join(infected_seats) + "." in said
    # the bots (seats from 3 on) are named as such: their bytes are fillers
    assert all(name in said.split(".")[0] for name in NAMES[3:players])
    assert len(deal) == 3 + 6 and "Six more draws follow" in EXAMPLE


def test_every_code_on_the_page_is_one_of_the_examples():
    shown = set(re.findall(rf"`({CODE_GROUP_RE}(?: {CODE_GROUP_RE}){{3}})`", DOC))
    assert shown == {code(COMMIT), code(VALUES[0])}
    old_form = re.findall(r"`[0-9A-F]{4} [0-9A-F]{4} [0-9A-F]{4} [0-9A-F]{4}`", DOC)
    assert not set(old_form) - shown  # no hex code of before is left on the page
