"""A game's fair record, revealed at game over, and its checking (`darkmoon-companion verify`).

The record holds the commitment shown before the deal, the secret, every seat's contribution,
the whole log, and for each event what each draw was made from (the die's faces, the pile,
the cards shuffled). The verify page checks the derivation from the record alone; this
checker also plays the rules again, so it checks what each draw was made from as well: that
from the setup and the commands alone, the procedure gives exactly the logged game.
"""
from __future__ import annotations

import hmac
import json

from .darkmoon import Chance, Ctx, Position, RulesError, Setup, play, replay, start, start_from
from .fair import FORMAT, Fair, commitment, is_hex_32_bytes


class NotVerifiable(Exception):
    """The game has no fair record: it was seeded, or dealt before fair dealing."""


def players_of(first: dict) -> int:
    if first["type"] == "start":
        return len(first["setup"]["names"])
    return len(first["position"]["seats"])


def record(game_id: int, meta: dict, events: list[dict]) -> dict:
    """The whole record of a stored game (reveal it only once the game is over)."""
    if not meta.get("fair"):
        raise NotVerifiable("this game was dealt from a seed (tests, demos): nothing to verify")
    fair = Fair.from_json(meta["fair"])
    return {"format": FORMAT, "game": game_id, "commitment": fair.commitment,
            "secret": fair.secret,
            "contributions": [{"seat": seat, "from": source, "value": value}
                              for seat, (value, source)
                              in enumerate(zip(fair.contributions, fair.sources))],
            "events": events, "draws": derive(fair, events)[1]}


def derive(fair: Fair, events: list[dict],
           strict: bool = False) -> tuple[list[dict], list[list[dict]]]:
    """The events the procedure gives for the logged setup and commands, and what each of
    their draws was made from. `strict`: Mismatch at the first event that differs from the
    log (every later one would be derived from another game)."""
    derived, draws, state = [], [], None
    for position, logged in enumerate(events):
        tap: list[dict] = []
        stream = fair.stream(position, tap)
        try:
            if position == 0:
                if logged["type"] == "start":
                    new = start(Setup.from_json(logged["setup"]), stream)
                else:
                    new = start_from(Position.from_json(logged["position"]), stream)
                state = replay(new)
            else:  # in place, as a replay folds: a refused command raises before any change
                new = [play(state, logged["actor"], logged["command"], Ctx(Chance(rng=stream)))]
        except (RulesError, KeyError, TypeError) as error:
            raise Mismatch(position, f"the rules refuse it: {error}") from None
        derived.append(_plain(new[0]))
        draws.append(_plain(tap))
        if strict and derived[-1] != logged:
            raise Mismatch(position, _difference(derived[-1], logged))
    return derived, draws


class Mismatch(Exception):
    def __init__(self, position: int, why: str):
        super().__init__(f"event {position}: {why}")
        self.position = position


def verify(rec: dict) -> list[str]:
    """Every problem found in a record, in order; an empty list: the game was dealt fairly."""
    try:
        return _check(rec)
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as error:
        return [f"the record is malformed: {error!r}"]


def _check(rec: dict) -> list[str]:
    if rec.get("format") != FORMAT:
        return [f"not a {FORMAT} record"]
    # Read exactly as the verify page reads it, so the two never judge one record apart.
    if not is_hex_32_bytes(rec["secret"]):
        return ["the secret is not 64 lowercase hex digits"]
    if not hmac.compare_digest(commitment(rec["secret"]), rec["commitment"].lower()):
        return ["the secret does not match the commitment shown before the deal"]
    events = rec["events"]
    if not events:
        return ["the record holds no events"]
    contributions = rec["contributions"]
    players = players_of(events[0])
    if [c["seat"] for c in contributions] != list(range(players)):
        return [f"{players} seats but contributions for seats "
                f"{[c['seat'] for c in contributions]}"]
    for c in contributions:
        if not is_hex_32_bytes(c["value"]):
            return [f"seat {c['seat']}'s contribution is not 64 lowercase hex digits"]
    fair = Fair(rec["secret"], [c["value"] for c in contributions],
                [c["from"] for c in contributions])
    problems = []
    for position, event in enumerate(events):
        if event.get("state_id") != position:
            problems.append(f"event {position} says it is event {event.get('state_id')}")
    try:
        _, draws = derive(fair, events, strict=True)
    except Mismatch as error:
        return problems + [str(error)]
    if draws != rec["draws"]:
        first = next(i for i, (a, b) in enumerate(zip(draws, rec["draws"] + [None] * len(draws)))
                     if a != b)
        problems.append(f"event {first}: the draws listed are not what the rules drew from")
    return problems


def _difference(mine: dict, theirs: dict) -> str:
    if mine.get("chance") != theirs.get("chance"):
        for i, (a, b) in enumerate(zip(mine["chance"], theirs.get("chance") or [])):
            if a != b:
                return f"chance outcome {i} is {b!r} in the record, the procedure gives {a!r}"
        return (f"{len(theirs.get('chance') or [])} chance outcomes in the record, "
                f"the procedure gives {len(mine['chance'])}")
    return "the record's facts are not what the rules give for these outcomes"


def _plain(value):
    """As JSON has it (tuples become lists), to compare with a record read from a file."""
    return json.loads(json.dumps(value))


# --- `darkmoon-companion verify FILE` ---

def add_command(commands) -> None:
    ver = commands.add_parser("verify", help="check a game's fair record (the file the Pi "
                                             "gives at game over)")
    ver.add_argument("path", metavar="FILE", help="the record, as downloaded (JSON)")


def verify_command(args) -> int:
    """Prints one sentence; exit status 0 when the game was dealt fairly, 1 when not."""
    try:
        with open(args.path, encoding="utf-8") as f:
            rec = json.load(f)
    except OSError as error:
        print(f"darkmoon-companion verify: cannot read {args.path}: {error.strerror}")
        return 2
    except (ValueError, UnicodeDecodeError):
        print(f"darkmoon-companion verify: {args.path} is not a record (not JSON)")
        return 2
    if not isinstance(rec, dict):
        print(f"darkmoon-companion verify: {args.path} is not a record")
        return 2
    problems = verify(rec)
    if problems:
        print(f"NOT verified: {problems[0]}")
        return 1
    outcomes = sum(len(e["chance"]) for e in rec["events"])
    phones = sum(1 for c in rec["contributions"] if c["from"] == "phone")
    print(f"Verified: game {rec['game']} was dealt fairly. The secret matches the commitment "
          f"{rec['commitment']}; all {outcomes} chance outcomes of its {len(rec['events'])} "
          f"events are what the procedure gives. Randomness from {phones} phones; the Pi "
          f"gave it for {len(rec['contributions']) - phones} seats.")
    return 0
