"""A game's fair record (darkmoon-fair/2), revealed at game over, and its checking
(`darkmoon-companion verify`).

The record holds the box's identity and the game's number on it, the commitment shown before
the deal, the secret, every seat's pledge and bytes, the receipt every phone was shown before
the deal (the pledges it uses) and whether no phone's bytes went in at all (dealt by the box
alone: nothing then shows the deal was not chosen), the whole log, and for each event what
each draw was made from (the die's faces, the pile, the cards shuffled). The verify page
checks the derivation from the record alone; this checker also plays the rules again, so it
checks what each draw was made from as well: that from the setup and the commands alone, the
procedure gives exactly the logged game. A record is only "Verified" when that game is over:
a record cut short proves nothing about the rolls it leaves out.
"""
from __future__ import annotations

import hmac
import json
import re
from dataclasses import dataclass, field

from ..darkmoon import Chance, Ctx, Position, RulesError, Setup, play, replay, start, start_from
from .fair import (FILLER, FORMAT, PHONE, EarlierFormat, Fair, code, commitment, filler,
                   is_hex_32_bytes, pledge, typed_code)

FORMAT_1 = "darkmoon-fair/1"
# What `verify` answers besides 0 (verified, over), 1 (not verified) and 2 (unreadable).
IN_PROGRESS = 3  # checked, but the game did not end
BOX_ALONE = 4  # checked, but no phone's bytes went into the deal: nothing shows it fair


class NotVerifiable(Exception):
    """The game has no record this version can give: it was seeded, or dealt before
    darkmoon-fair/2."""


def players_of(first: dict) -> int:
    if first["type"] == "start":
        return len(first["setup"]["names"])
    return len(first["position"]["seats"])


def record(game_id: int, meta: dict, events: list[dict]) -> dict:
    """The whole record of a stored game (reveal it only once the game is over, or once it
    was replaced)."""
    if not meta.get("fair"):
        raise NotVerifiable("this game was dealt from a seed (tests, demos): nothing to verify")
    try:
        fair = Fair.from_json(meta["fair"])
    except EarlierFormat:
        raise NotVerifiable(f"this game was dealt under {FORMAT_1}: this version gives and "
                            f"checks {FORMAT} records") from None
    if fair.game != game_id:
        raise ValueError(f"game {game_id} holds the fair secret of game {fair.game}")
    return {"format": FORMAT, "box": fair.box, "game": fair.game,
            "commitment": fair.commitment, "secret": fair.secret,
            "contributions": [{"seat": seat, "from": source, "pledge": promised,
                               "value": value}
                              for seat, (value, source, promised)
                              in enumerate(zip(fair.contributions, fair.sources,
                                               fair.pledges))],
            "receipt": list(fair.receipt), "box_alone": fair.box_alone,
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
                new = [play(state, logged["actor"], logged["command"],
                            Ctx(Chance(rng=stream)))]
        except (RulesError, KeyError, TypeError, ValueError, IndexError,
                AttributeError) as error:
            raise Mismatch(position, f"the rules refuse it: {error}") from None
        derived.append(_plain(new[0]))
        draws.append(_plain(tap))
        if strict and not _same(derived[-1], logged):
            raise Mismatch(position, _difference(derived[-1], logged))
    return derived, draws


class Mismatch(Exception):
    def __init__(self, position: int, why: str):
        super().__init__(f"event {position}: {why}")
        self.position = position


@dataclass
class Verdict:
    """What checking a record found. Verified only with no problems and `over`."""
    problems: list[str] = field(default_factory=list)
    over: bool = False
    events: int = 0  # events checked
    outcomes: int = 0  # chance outcomes checked
    phones: int = 0  # seats whose bytes a phone pledged and revealed
    fillers: int = 0  # seats given the filler the secret fixes
    unrevealed: list[int] = field(default_factory=list)  # pledged, never revealed
    box_alone: bool = False  # the receipt names no pledge: no phone's bytes went in


def seen_commitment(text) -> str:
    """The commitment someone saw, as they type it: its code as the kiosk shows it (16
    letters and digits) or the whole 64 hex digits, spaces and case ignored. The code as
    code() writes it, or the 64 digits in lower case; ValueError saying why if neither."""
    if not isinstance(text, str):
        raise ValueError("the commitment you saw is its code or its 64 hex digits")
    whole = re.sub(r"\s+", "", text).lower()
    if is_hex_32_bytes(whole):
        return whole
    typed = typed_code(text)
    if typed is None:
        raise ValueError("the commitment you saw is its code as the kiosk shows it (16 "
                         "letters and digits in four groups, like EMVZ WGN6 WZUJ P58T; there "
                         "is no 0, O, 1, I or L in a code) or all 64 hex digits")
    return typed


def check(rec, commitment_seen: str | None = None) -> Verdict:
    """Every problem found in a record, in order, and whether the game it holds is over.
    `commitment_seen`: the commitment (or a code of it) shown before the deal."""
    verdict = Verdict()
    try:
        problem = _schema(rec)
        if problem is None and commitment_seen is not None:
            problem = _seen(rec, commitment_seen)
        if problem is None:
            problem = _contributions(rec, verdict)
        if problem is not None:
            verdict.problems.append(problem)
            return verdict
        _replay(rec, verdict)
    except RecursionError:
        verdict.problems = ["the record is nested too deep to be a record"]
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as error:
        verdict.problems = [f"the record is malformed: {error!r}"]
    return verdict


def verify(rec) -> list[str]:
    """Every problem found in a record, in order; an empty list: the game was dealt fairly
    (whether it is over is `check`'s `over`)."""
    return check(rec).problems


def _schema(rec) -> str | None:
    """One line naming the first field that is missing or not of its type."""
    if not isinstance(rec, dict):
        return "the record is not a JSON object"
    if rec.get("format") == FORMAT_1:
        return (f"this is a {FORMAT_1} record (dealt by an earlier version): this version "
                f"checks {FORMAT} records only")
    if rec.get("format") != FORMAT:
        return f'the record\'s "format" is not "{FORMAT}"'
    for name in ("box", "game", "commitment", "secret", "contributions", "receipt",
                 "box_alone", "events", "draws"):
        if name not in rec:
            return f'the record has no "{name}"'
    for name in ("box", "commitment", "secret"):
        if not is_hex_32_bytes(rec[name]):
            return f'the record\'s "{name}" is not 64 lowercase hex digits'
    if type(rec["game"]) is not int or rec["game"] < 1:
        return 'the record\'s "game" is not a whole number from 1'
    for name in ("contributions", "receipt", "events", "draws"):
        if not isinstance(rec[name], list):
            return f'the record\'s "{name}" is not a list'
    if type(rec["box_alone"]) is not bool:
        return 'the record\'s "box_alone" is neither true nor false'
    for seat, named in enumerate(rec["receipt"]):
        if named is not None and not is_hex_32_bytes(named):
            return f'"receipt" item {seat} is neither null nor 64 lowercase hex digits'
    for seat, c in enumerate(rec["contributions"]):
        where = f'"contributions" item {seat}'
        if not isinstance(c, dict):
            return f"{where} is not an object"
        for name in ("seat", "from", "pledge", "value"):
            if name not in c:
                return f'{where} has no "{name}"'
        if type(c["seat"]) is not int:
            return f'{where}: "seat" is not a whole number'
        if c["from"] not in (PHONE, FILLER):
            return f'{where}: "from" is neither "{PHONE}" nor "{FILLER}"'
        if c["pledge"] is not None and not is_hex_32_bytes(c["pledge"]):
            return f'{where}: "pledge" is neither null nor 64 lowercase hex digits'
        if not is_hex_32_bytes(c["value"]):
            return f'seat {seat}\'s contribution ("value") is not 64 lowercase hex digits'
    if not rec["events"]:
        return "the record holds no events"
    for position, event in enumerate(rec["events"]):
        if not isinstance(event, dict):
            return f'"events" item {position} is not an object'
        if not isinstance(event.get("chance", []), list):
            return f'"events" item {position}: "chance" is not a list'
    first = rec["events"][0]
    if first.get("type") == "start":
        if not (isinstance(first.get("setup"), dict)
                and isinstance(first["setup"].get("names"), list)):
            return 'the first event has no "setup" with a list of "names"'
    elif not (isinstance(first.get("position"), dict)
              and isinstance(first["position"].get("seats"), list)):
        return 'the first event is neither a "start" with a setup nor one with a "position"'
    if not all(isinstance(d, list) for d in rec["draws"]):
        return 'an item of "draws" is not a list'
    return None


def _seen(rec: dict, seen: str) -> str | None:
    try:
        given = seen_commitment(seen)
    except ValueError as error:
        return str(error)
    if given not in (rec["commitment"], code(rec["commitment"])):
        shown = code(given) if is_hex_32_bytes(given) else given
        return (f"the record's commitment ({code(rec['commitment'])}) is not the one you saw "
                f"({shown}): this is another game's record")
    return None


def _contributions(rec: dict, verdict: Verdict) -> str | None:
    """The commitment recomputed, then every seat's bytes: a phone's match its pledge, a
    filler is the one the secret fixes (nobody chose it after seeing the others')."""
    made = commitment(rec["box"], rec["game"], rec["secret"])
    if not hmac.compare_digest(made, rec["commitment"]):
        return (f"the secret does not match the commitment shown before the deal "
                f"(for game {rec['game']} of this box)")
    contributions = rec["contributions"]
    players = players_of(rec["events"][0])
    if [c["seat"] for c in contributions] != list(range(players)):
        return (f"{players} seats but contributions for seats "
                f"{[c['seat'] for c in contributions]}")
    for seat, c in enumerate(contributions):
        if c["from"] == PHONE:
            if c["pledge"] is None:
                return f"seat {seat} is marked as a phone's but no pledge was made for it"
            if not hmac.compare_digest(pledge(rec["commitment"], c["value"]), c["pledge"]):
                return f"seat {seat}'s bytes are not the ones its phone pledged"
            verdict.phones += 1
        else:
            if not hmac.compare_digest(filler(rec["secret"], seat), c["value"]):
                return (f"seat {seat}'s filler is not the one the secret gives: "
                        "its bytes were chosen")
            verdict.fillers += 1
            if c["pledge"] is not None:
                verdict.unrevealed.append(seat)
    return _receipt(rec, verdict)


def _receipt(rec: dict, verdict: Verdict) -> str | None:
    """The deal used exactly the pledges of the receipt every phone was shown before it: not
    one fewer (a phone's bytes taken, then left out to pick another deal), not one more."""
    receipt, contributions = rec["receipt"], rec["contributions"]
    if len(receipt) != len(contributions):
        return f"the receipt names {len(receipt)} seats, the game has {len(contributions)}"
    for seat, (named, c) in enumerate(zip(receipt, contributions)):
        used = c["pledge"] if c["from"] == PHONE else None
        if named == used:
            continue
        if used is None:
            return (f"the deal left out seat {seat}'s bytes: the receipt shown before the "
                    "deal says it uses that seat's pledge, but the seat got its filler")
        if named is None:
            return (f"the deal used seat {seat}'s bytes, which the receipt shown before the "
                    "deal leaves out")
        return (f"seat {seat}'s pledge on the receipt shown before the deal is not the one "
                "its bytes were dealt from")
    verdict.box_alone = all(named is None for named in receipt)
    if rec["box_alone"] != verdict.box_alone:
        return ('the record\'s "box_alone" says the opposite of its receipt (which names '
                f'{"no" if verdict.box_alone else "a"} pledge)')
    return None


def _replay(rec: dict, verdict: Verdict) -> None:
    contributions = rec["contributions"]
    fair = Fair(rec["box"], rec["game"], rec["secret"], [c["value"] for c in contributions],
                [c["from"] for c in contributions], [c["pledge"] for c in contributions])
    events = rec["events"]
    for position, event in enumerate(events):
        if event.get("state_id") != position:
            verdict.problems.append(f"event {position} says it is event "
                                    f"{event.get('state_id')}")
    try:
        derived, draws = derive(fair, events, strict=True)
    except Mismatch as error:
        verdict.problems.append(str(error))
        return
    if not _same(draws, rec["draws"]):
        first = next(i for i, (a, b) in enumerate(zip(draws, rec["draws"] + [None] * len(draws)))
                     if not _same(a, b))
        verdict.problems.append(f"event {first}: the draws listed are not what the rules "
                                "drew from")
    verdict.events = len(derived)
    verdict.outcomes = sum(len(e.get("chance") or ()) for e in derived)
    verdict.over = any(f.get("k") == "game_over" for f in derived[-1].get("facts", ()))


def _difference(mine: dict, theirs: dict) -> str:
    if not _same(mine.get("chance"), theirs.get("chance")):
        for i, (a, b) in enumerate(zip(mine["chance"], theirs.get("chance") or [])):
            if not _same(a, b):
                return f"chance outcome {i} is {b!r} in the record, the procedure gives {a!r}"
        return (f"{len(theirs.get('chance') or [])} chance outcomes in the record, "
                f"the procedure gives {len(mine['chance'])}")
    return "the record's facts are not what the rules give for these outcomes"


def _same(mine, theirs) -> bool:
    """Equal as JSON writes them, type for type: Python's True == 1 and 1 == 1.0 would let a
    die face written `true` or `1.0` through, where the verify page (and JSON) tells them
    apart."""
    return json.dumps(mine, sort_keys=True) == json.dumps(theirs, sort_keys=True)


def _plain(value):
    """As JSON has it (tuples become lists), to compare with a record read from a file."""
    return json.loads(json.dumps(value))


# --- `darkmoon-companion verify FILE [--commitment CODE]` ---

def add_command(commands) -> None:
    ver = commands.add_parser("verify", help="check a game's fair record (the file the Pi "
                                             "gives at game over)")
    ver.add_argument("path", metavar="FILE", help="the record, as downloaded (JSON)")
    ver.add_argument("--commitment", metavar="CODE",
                     help="the commitment you saw before the deal: its code as the kiosk "
                          "shows it (16 letters and digits), or all 64 hex digits (spaces "
                          "and case do not matter)")


def verify_command(args) -> int:
    """Prints one sentence. Exit status 0: dealt fairly and played to its end; 1: not
    verified; 2: unreadable; 3: checked, but the game did not end; 4: checked, but dealt by
    the box alone (no phone's bytes went in), so not shown fair, whether it ended or not."""
    seen = getattr(args, "commitment", None)
    if seen is not None:
        try:
            seen_commitment(seen)
        except ValueError as error:
            print(f"darkmoon-companion verify: --commitment refused: {error}")
            return 2
    try:
        with open(args.path, encoding="utf-8") as f:
            rec = json.load(f)
    except OSError as error:
        print(f"darkmoon-companion verify: cannot read {args.path}: {error.strerror}")
        return 2
    except RecursionError:
        print(f"darkmoon-companion verify: {args.path} is nested too deep to be a record")
        return 2
    except (ValueError, UnicodeDecodeError):
        print(f"darkmoon-companion verify: {args.path} is not a record (not JSON)")
        return 2
    verdict = check(rec, seen)
    if verdict.problems:
        print(f"NOT verified: {verdict.problems[0]}")
        return 1
    if verdict.box_alone:
        ended = ("the rules replay every command" if verdict.over else
                 f"checked up to event {verdict.events - 1}: the game did not end")
        print(f"Dealt by the box alone, so NOT shown fair: no phone's bytes went into game "
              f"{rec['game']}'s deal (its receipt names no pledge), and the box chose its "
              f"secret knowing the seats, so it could have chosen this deal. The record "
              f"adds up: the secret matches the commitment {rec['commitment']}, all "
              f"{verdict.outcomes} chance outcomes of its {verdict.events} events are what "
              f"the procedure gives, {ended}{_unrevealed(verdict)}.")
        return BOX_ALONE
    if not verdict.over:
        print(f"Checked up to event {verdict.events - 1}: the game did not end (cut short or "
              f"replaced), so this record proves nothing about the rolls and cards after it. "
              f"Every chance outcome up to there ({verdict.outcomes}) is what the procedure "
              f"gives for game {rec['game']} on box {code(rec['box'])}.")
        return IN_PROGRESS
    print(f"Verified: game {rec['game']} on box {code(rec['box'])} was dealt fairly and "
          f"played to its end. The secret matches the commitment {rec['commitment']}; all "
          f"{verdict.outcomes} chance outcomes of its {verdict.events} events are what the "
          f"procedure gives, and the rules replay every command. Bytes from "
          f"{verdict.phones} phones, each as pledged and as the receipt shown before the "
          f"deal names them; {verdict.fillers} seats got the filler "
          f"the secret fixed{_unrevealed(verdict)}.")
    return 0


def _unrevealed(verdict: Verdict) -> str:
    if not verdict.unrevealed:
        return ""
    seats = ", ".join(str(s) for s in verdict.unrevealed)
    return f" (seats {seats} pledged and never revealed)"
