"""Fair records for the tests of their checking: genuine ones from real Table games dealt by
companion.chance.fair and played to their end, and tampered ones, as a modified Pi or a host with
the data file could hand them out. This file holds no test."""
from __future__ import annotations

import copy
import hashlib
import json
import random
from pathlib import Path

from companion.darkmoon.data import FACES, STRONG, WEAK
from companion.chance.fair import (FILLER, PHONE, Fair, code, commitment, draw_secret, draw_value,
                            pledge)
from companion.tools.simulate import helpful_choice
from companion.core.store import EventStore
from companion.core.table import Table
from companion.chance.verify import record

NAMES = ["Ana", "Ben", "Cai", "Dee", "Eva"]


def genuine_game(tmp: Path, seed: int) -> dict:
    """A whole game at a real table on a real store, dealt from a committed secret: seats 0
    and 1 pledged and revealed, seat 2 pledged and never revealed, seats 3 and 4 bots. Each
    secret deals another game: the first with everything the corpus tampers with (a vote,
    an action, a strong die rolled, a chance outcome of 1, which JSON's true could pass
    for)."""
    for attempt in range(50):
        rec = one_game(tmp / f"game-{seed}-{attempt}.db", seed)
        commands = [e["command"] for e in rec["events"][1:]]
        if ({"vote", "action"} <= {c["decision"] for c in commands}
                and any(d["from"] == list(FACES[STRONG]) for draws in rec["draws"]
                        for d in draws)
                and any(outcome == 1 and outcome is not True
                        for event in rec["events"] for outcome in event["chance"])):
            return rec
    raise AssertionError("50 games without a vote, an action, a strong die and a 1")


def one_game(path: Path, seed: int, phones: bool = True) -> dict:
    """`phones`: seats 0 and 1 revealed, seat 2 pledged and never did; else every seat a bot
    (dealt by the box alone)."""
    store = EventStore(path)
    try:
        box, game, secret = store.box(), (store.latest_game() or 0) + 1, draw_secret()
        shown = commitment(box, game, secret)
        values = [draw_value() for _ in range(3)]
        fair = (Fair(box, game, secret, [values[0], values[1], None, None, None],
                     [PHONE, PHONE, FILLER, FILLER, FILLER],
                     [pledge(shown, v) for v in values] + [None, None]) if phones
                else Fair(box, game, secret, [None] * 5, [FILLER] * 5))
        table = Table.new(store, {"names": NAMES}, fair=fair)
        rng = random.Random(seed)
        while not table.over:
            table.submit(*helpful_choice(table.state, rng))
        events = [e for stored in store.load(table.game_id) for e in stored]
        return json.loads(json.dumps(record(table.game_id, store.meta(table.game_id), events)))
    finally:
        store.close()


def rechanced(rec: dict, e: int) -> None:
    """Event e's chance made again from the record's own draws, as the stream gives them: a
    record whose chance the page cannot fault, whatever the draws say they were made from."""
    values = [c["value"] for c in rec["contributions"]]
    # every seat as a phone's: the same key, whatever the record says of its seats
    fair = Fair(rec["box"], rec["game"], rec["secret"], values, [PHONE] * len(values),
                [pledge(rec["commitment"], v) for v in values])
    stream = fair.stream(e)
    chance = []
    for draw in rec["draws"][e]:
        if draw["op"] == "pick":
            chance.append(stream.choice(list(draw["from"])))
        else:
            items = list(draw["from"])
            stream.shuffle(items)
            chance.append(items)
    rec["events"][e]["chance"] = chance


def where(rec: dict, test) -> int:
    return next(e for e, event in enumerate(rec["events"]) if test(event))


def corpus(tmp: Path) -> dict[str, tuple[str, str]]:
    """name -> (the record's text, the --commitment given or "")."""
    rec = genuine_game(tmp, seed=3)
    other = genuine_game(tmp, seed=4)  # another game: another box, secret and commitment
    cases: dict[str, tuple[dict | str, str]] = {"genuine, over": (rec, "")}

    def tampered(name: str, change, given: str = "") -> None:
        bad = copy.deepcopy(rec)
        change(bad)
        cases[name] = (bad, given)

    def die_face(bad):  # one die face changed in the log
        e, m = next((e, m) for e, draws in enumerate(bad["draws"]) for m, d in enumerate(draws)
                    if d["from"] == list(FACES[STRONG]))
        bad["events"][e]["chance"][m] = next(f for f in FACES[STRONG]
                                             if f != bad["events"][e]["chance"][m])
    tampered("changed die face", die_face)

    def swapped_die(bad):  # a strong die rolled as a weak one, its face what the stream gives
        e, m = next((e, m) for e, draws in enumerate(bad["draws"]) for m, d in enumerate(draws)
                    if d["from"] == list(FACES[STRONG]))
        bad["draws"][e][m]["from"] = list(FACES[WEAK])
        rechanced(bad, e)
    tampered("swapped die", swapped_die)

    def changed_command(bad):
        e = where(bad, lambda ev: ev["type"] == "command"
                  and ev["command"]["decision"] == "action")
        option = bad["events"][e]["command"]["option"]
        bad["events"][e]["command"]["option"] = (["pass"] if option != ["pass"]
                                                 else ["repair", "shield"])
    tampered("changed command", changed_command)

    def flipped_vote(bad):
        e = where(bad, lambda ev: ev["type"] == "command"
                  and ev["command"]["decision"] == "vote")
        option = bad["events"][e]["command"]["option"]
        option[0] = {"strong": "weak"}.get(option[0], "strong")
    tampered("flipped vote", flipped_vote)

    def status_facts(bad):  # two seats' statuses swapped in what the deal says it did
        dealt = [f for f in bad["events"][0]["facts"] if f["k"] == "status_dealt"]
        a = dealt[0]
        b = next(f for f in dealt if f["status"] != a["status"])
        a["status"], b["status"] = b["status"], a["status"]
    tampered("changed status deal (facts)", status_facts)

    def status_chance(bad):  # the statuses' shuffle itself changed
        m = next(m for m, d in enumerate(bad["draws"][0])
                 if d["op"] == "shuffle" and "uninfected" in d["from"])
        shuffled = bad["events"][0]["chance"][m]
        i = next(i for i in range(1, len(shuffled)) if shuffled[i] != shuffled[0])
        shuffled[0], shuffled[i] = shuffled[i], shuffled[0]
    tampered("changed status deal (chance)", status_chance)

    def cut(bad, end):
        bad["events"], bad["draws"] = bad["events"][:end], bad["draws"][:end]
    last_roll = max(e for e, event in enumerate(rec["events"])
                    if any(f["k"] == "rolled" for f in event["facts"]))
    tampered("cut short before the last roll", lambda bad: cut(bad, last_roll))
    tampered("cut short before the end", lambda bad: cut(bad, len(rec["events"]) - 1))

    def made_up_end(bad):  # cut short, and its last event made to say the game ended
        cut(bad, last_roll)
        bad["events"][-1]["facts"].append(
            {"winner": "uninfected", "condition": "cure", "k": "game_over"})
    tampered("made-up end", made_up_end)

    tampered("event numbered wrong",
             lambda bad: bad["events"][5].update(state_id=6))
    tampered("draws of an event left out", lambda bad: bad["draws"].pop(3))

    def outcome_added(bad):  # one more die face than the draws listed
        e = where(bad, lambda ev: ev["chance"] and ev["type"] == "command")
        bad["events"][e]["chance"].append(bad["events"][e]["chance"][-1])
    tampered("outcome added", outcome_added)

    def secret_swapped(bad):
        bad["secret"] = draw_secret()
    tampered("secret swapped", secret_swapped)

    def secret_and_commitment(bad):  # a new secret, its commitment made to match it
        bad["secret"] = draw_secret()
        bad["commitment"] = commitment(bad["box"], bad["game"], bad["secret"])
    tampered("secret and commitment swapped", secret_and_commitment)

    def commitment_swapped(bad):  # another commitment, the phones' pledges made to match it
        bad["commitment"] = other["commitment"]
        for c in bad["contributions"][:2]:
            c["pledge"] = pledge(bad["commitment"], c["value"])
    tampered("commitment swapped, pledges made to match", commitment_swapped)

    def other_number(bad):  # the record presented as another game of this box
        bad["game"] += 1
    tampered("game number changed", other_number)

    def phone_value(bad):
        bad["contributions"][0]["value"] = draw_value()
    tampered("phone value swapped", phone_value)

    def phone_value_and_pledge(bad):  # the Pi's own bytes, pledged by the Pi
        value = draw_value()
        bad["contributions"][1].update(value=value, pledge=pledge(bad["commitment"], value))
    tampered("phone value and pledge swapped", phone_value_and_pledge)

    def filler_value(bad):
        bad["contributions"][3]["value"] = draw_value()
    tampered("filler value swapped", filler_value)

    def filler_chosen(bad):  # a bot's bytes chosen by the Pi, every outcome made to match
        filler_value(bad)
        for e in range(len(bad["events"])):
            rechanced(bad, e)
    tampered("filler chosen, chance made to match", filler_chosen)

    def relabelled(bad):  # a bot's seat said to be a phone's
        bad["contributions"][4]["from"] = PHONE
    tampered("seat relabelled phone", relabelled)

    def relabelled_pledged(bad):
        # Relabelled with a pledge of its own filler: the chance is untouched and the pledge
        # matches, so both pass it; only a phone sitting there (it kept its own bytes and the
        # pledges it saw) can tell, and the seat page does.
        c = bad["contributions"][4]
        c.update({"from": PHONE, "pledge": pledge(bad["commitment"], c["value"])})
    tampered("seat relabelled phone, pledged", relabelled_pledged)

    # The receipt every phone was shown before the deal, against the deal's contributions.
    def receipt_names_a_filler(bad):  # seat 2 pledged, never revealed, yet named on it
        bad["receipt"][2] = bad["contributions"][2]["pledge"]
    tampered("receipt names a pledge the deal left out", receipt_names_a_filler)
    tampered("receipt leaves out a phone the deal used",
             lambda bad: bad["receipt"].__setitem__(0, None))
    tampered("receipt names another pledge",
             lambda bad: bad["receipt"].__setitem__(1, draw_value()))
    tampered("receipt one seat short", lambda bad: bad["receipt"].pop())
    tampered("phones' deal marked box alone", lambda bad: bad.update(box_alone=True))
    tampered("record without receipt", lambda bad: bad.pop("receipt"))
    cases["box alone, genuine"] = (one_game(tmp / "box-alone.db", 5, phones=False), "")
    cases["box alone, marked as the phones'"] = (
        {**cases["box alone, genuine"][0], "box_alone": False}, "")

    tampered("draw with a field of its own", lambda bad: bad["draws"][0][0].update(note=1))
    tampered("record without game", lambda bad: bad.pop("game"))
    tampered("game not a number", lambda bad: bad.update(game="1"))
    tampered("contribution without pledge", lambda bad: bad["contributions"][2].pop("pledge"))
    tampered("events not a list", lambda bad: bad.update(events={"0": rec["events"][0]}))

    def first_format(bad):  # as darkmoon-fair/1 wrote it
        bad.update(format="darkmoon-fair/1",
                   commitment=hashlib.sha256(bytes.fromhex(bad["secret"])).hexdigest())
        del bad["box"]
        for c in bad["contributions"]:
            c["from"] = "pi" if c["from"] == FILLER else c["from"]
            del c["pledge"]
    tampered("v1 record", first_format)

    tampered("wrong --commitment", lambda bad: None, code(other["commitment"]))
    cases["right --commitment code"] = (rec, code(rec["commitment"]).lower())
    cases["right --commitment whole"] = (rec, rec["commitment"].upper())
    cases["--commitment too short"] = (rec, rec["commitment"][:15])
    cases["unfinished, right --commitment"] = (cases["cut short before the end"][0],
                                               code(rec["commitment"]))
    cases["other genuine game"] = (other, "")
    texts = {name: (json.dumps(r) if isinstance(r, dict) else r, given)
             for name, (r, given) in cases.items()}
    # the secret nested 5,000 lists deep (json.dumps itself cannot write that)
    secret = json.dumps(rec["secret"])
    texts["nested deep"] = (texts["genuine, over"][0].replace(
        secret, "[" * 5000 + secret + "]" * 5000), "")
    # Numbers as JSON may write them but the command's Python reads as no whole number.
    whole = texts["genuine, over"][0]
    assert whole.count(f'"game": {rec["game"]},') == 1
    texts["game written 1.0"] = (whole.replace(f'"game": {rec["game"]},',
                                               f'"game": {rec["game"]}.0,'), "")
    first = '"contributions": [{"seat": 0,'
    assert whole.count(first) == 1
    texts["seat written 0e0"] = (whole.replace(first, first.replace("0,", "0e0,")), "")
    texts["non-record JSON"] = (json.dumps([1, 2, 3]), "")
    texts["JSON null"] = ("null", "")
    texts["not JSON"] = ('{"format": "darkmoon-fair/2", ', "")
    return texts
