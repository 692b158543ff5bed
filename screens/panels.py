"""The live panel: the malfunction being worked on, or the vote being held, drawn from the
public view and its log. Once a malfunction or a vote is over its result stays up until the
next one begins, so the table can read what just happened."""
from __future__ import annotations

from functools import lru_cache

from rich.cells import cell_len
from rich.text import Text

from companion.darkmoon.data import AREAS, FACES, TASKS, UNKNOWN
from companion.darkmoon.turn import REPAIR_ACTION
from companion.lang.words import signed as printed

from .pane import flow, heading, pad_rows, rows
from .words import name_of, say, seat_label, signed

VOTE_DECISIONS = ("vote_target", "vote", "tie_break", "lincoln")
QUARANTINE = "quarantine"
BALLOT_STYLE = {"strong": "bold bright_white", "weak": "bold red", "abstain": "bright_black"}
ROLLED_ACTIONS = ("repair", "lone_wolf")  # actions whose roll the table watches


def live_panel(view: dict, lang: str, width: int = 40) -> tuple[str, Text]:
    """The task in play: the vote being held, the malfunction or the repair being rolled;
    once over, its result, until the next one begins."""
    waiting = view["waiting"] or {}
    log = view.get("log", [])
    last_vote = _last(log, "vote_called")
    last_task = _last(log, "malfunction")
    last_roll = _last_rolled_action(log)
    latest = max((i for i in (last_vote, last_task, last_roll) if i is not None), default=None)
    if waiting.get("decision") in VOTE_DECISIONS or (
            view["task"] is None and latest is not None and latest == last_vote):
        facts = log[last_vote:] if last_vote is not None else []
        kind = vote_kind(view, facts)
        return (say(lang, "vote.title" + ("" if kind == QUARANTINE else f".{kind}")),
                vote(view, lang, facts, width))
    if view["task"] is not None:
        return say(lang, "task.title"), task(view, lang, width)
    if latest is not None and latest == last_roll:
        action = log[last_roll]["action"][0]
        return say(lang, f"task.title_{action}"), rolled_action(view, lang, log[last_roll:],
                                                                width)
    if last_task is not None:
        return say(lang, "task.title"), task_summary(view, lang, log[last_task:], width)
    return say(lang, "task.title_none"), Text.styled(say(lang, "task.none"), "bright_black")


def _last_rolled_action(log: list) -> int | None:
    for i in range(len(log) - 1, -1, -1):
        if log[i]["k"] == "action" and log[i]["action"][0] in ROLLED_ACTIONS:
            return i
    return None


def rolled_action(view: dict, lang: str, facts: list, width: int = 40) -> Text:
    """A repair (or a lone wolf) from the log: what is rolled for, by whom, what the rule
    asks, the die submitted and the result once it is known. The roll itself is the
    player's alone: only the submitted dice are public."""
    begun = facts[0]
    seat, action = begun["seat"], begun["action"]
    t = Text()
    if action[0] == "repair":
        heading(t, name_of(lang, "action", REPAIR_ACTION.get(action[1], action[1])))
    else:
        heading(t, name_of(lang, "action", action[0]))
    t.append("\n")
    _line(t, say(lang, f"task.{action[0]}_rule", seat=seat_label(view, seat)), "", width,
          first=True)
    result = next((f for f in facts[1:] if f["k"] == action[0] and f.get("seat") == seat),
                  None)
    dice = [(f["seat"], d) for f in facts if f["k"] == "submitted"
            and f.get("reason") == action[0] for d in f["dice"]]
    t.append(f"\n{say(lang, 'task.submitted')}\n", "bold")
    if dice:
        _submitted(t, view, lang, dice, width)
    else:
        t.append("…", "bright_black")
    t.append("\n")
    if result is None:
        t.append(say(lang, "task.in_progress"), "yellow")
    elif result["success"]:
        t.append(say(lang, "task.succeeded" if action[0] == "repair"
                     else "task.lone_wolf_succeeded"), "bold reverse green")
    else:
        t.append(say(lang, "task.failed"), "bold reverse red")
    return t


def vote_kind(view: dict, facts: list) -> str:
    """The kind of the vote on the panel: being held (the waiting view says), or the last
    one called (its fact says; a quarantine vote's fact names no kind)."""
    waiting = view["waiting"] or {}
    if "vote_kind" in waiting:
        return waiting["vote_kind"]
    called = _first(facts, "vote_called")
    return called.get("kind", QUARANTINE) if called else QUARANTINE


def _last(log: list, kind: str) -> int | None:
    for i in range(len(log) - 1, -1, -1):
        if log[i]["k"] == kind:
            return i
    return None


def _first(facts: list, kind: str) -> dict | None:
    return next((f for f in facts if f["k"] == kind), None)


def task(view: dict, lang: str, width: int = 40) -> Text:
    """The malfunction being played, kept at the rows it takes at its fullest (`_fullest`),
    so the pane keeps its height from the card's draw to its result: every change is a
    repaint of rows in place, never a layout pass of the whole board."""
    tv = view["task"]
    t = _task(view, lang, width)
    if tv["kind"] != "malfunction":
        return t
    printed = TASKS[tv["card"]].type if tv["card"] in TASKS else tv["type"]  # named later?
    return pad_rows(t, _fullest(_names(view), lang, width, tv["card"], printed,
                                tv["suspicious"], tv["difficulty"], tv["consequence"],
                                tuple(tv["order"]), "evacuation" in view))


def _task(view: dict, lang: str, width: int) -> Text:
    tv = view["task"]
    t = Text()
    heading(t, name_of(lang, "card", tv["card"]))
    if tv["kind"] != "malfunction":
        t.append(f"\n{say(lang, 'task.complication')}")
        return t
    flow(t, ([(name_of(lang, "area", tv["type"]), "")] if tv["type"] else []) +
         ([(say(lang, "task.suspicious"), "yellow")] if tv["suspicious"] else []),
         width, lead="  ")
    t.append("\n")
    _track(t, lang, tv["success_total"], tv["difficulty"])
    if "evacuation" in view:  # Shadow Corporation: the corporation dice shown, or not yet
        shown = [face_text(lang, f) for f in tv.get("corporation", [])]  # the label names them
        flow(t, [(say(lang, "task.corporation"), "bold")] + [(f, "yellow") for f in shown or
                                                             ["…"]], width, sep=" ",
             lead="\n")
    t.append(f"\n{say(lang, 'task.participation')}\n", "bold")
    deciding = (view["waiting"] or {}).get("seats", []) \
        if (view["waiting"] or {}).get("decision") == "participation" else []
    marks = []
    for seat in tv["order"]:  # clockwise from the active player: tokens flip in turn
        choice = tv["participation"].get(str(seat))
        if choice is None:
            # a seat not asked yet: its name alone, dimmed, until its turn to choose
            mark, style = ("…", "bold yellow reverse") if seat in deciding else (None,
                                                                                 "bright_black")
        else:
            mark, style = say(lang, f"task.{choice}"), ("bold green" if choice == "in"
                                                         else "red")
        marks.append((seat, mark, style))
    # Each press flips one seat's mark: the rows the list would take with every mark at
    # its widest are kept, so the pane keeps its height from the first press to the last.
    widest = max(("…", say(lang, "task.in"), say(lang, "task.out")), key=cell_len)
    part = Text()
    _seat_marks(part, view, marks, width)
    t.append_text(pad_rows(part, _most_rows(_names(view), tuple(tv["order"]), widest, width)))
    if tv["submitted"]:
        t.append(f"\n{say(lang, 'task.submitted')}\n", "bold")
        _submitted(t, view, lang, tv["submitted"], width)
    t.append("\n")
    _outcome(t, lang, tv["success"], tv["consequence"], width)
    return t


@lru_cache(maxsize=64)  # the same for a whole malfunction
def _fullest(names: tuple, lang: str, width: int, card: str, area: str | None,
             suspicious: bool, difficulty: int, consequence: int, order: tuple,
             shadow: bool = False) -> int:
    """The rows of the malfunction's panel at its fullest, drawn from public facts only (who
    may go in, never how many dice anyone holds): the ????????? malfunction's area named
    with the longest name, and every seat gone IN with a die at its widest."""
    if area == UNKNOWN:
        area = max(AREAS, key=lambda kind: cell_len(name_of(lang, "area", kind)))
    colour = max(FACES, key=lambda kind: cell_len(face_text(lang, (kind, -2))))
    shadow_part = {"evacuation": {}} if shadow else {}  # two corporation dice at most shown
    fullest = _named(names) | shadow_part | {"waiting": None, "task": {
        "card": card, "kind": "malfunction", "type": area, "suspicious": suspicious,
        "success_total": -difficulty, "difficulty": difficulty, "order": list(order),
        "participation": {}, "submitted": [(seat, (colour, -2)) for seat in order],
        "success": None, "consequence": consequence,
        "corporation": [-3, -3] if shadow else []}}
    return rows(_task(fullest, lang, width))


def task_summary(view: dict, lang: str, facts: list, width: int = 40) -> Text:
    """A finished malfunction, from the log: the card, who went in, the dice, the result."""
    begun = facts[0]
    t = Text()
    heading(t, name_of(lang, "card", begun["card"]))
    result = _first(facts, "malfunction_result")
    total = result["total"] if result else (
        [f for f in facts if f["k"] == "success_track"] or [{"total": 0}])[-1]["total"]
    t.append("\n")
    _track(t, lang, total, begun["difficulty"])
    went = [f for f in facts if f["k"] == "participation"]
    if went:
        t.append("\n")
        _seat_marks(t, view, [(f["seat"], say(lang, "task." + f["choice"]),
                               "bold green" if f["choice"] == "in" else "red") for f in went],
                    width)
    dice = [(f["seat"], d) for f in facts if f["k"] == "submitted" for d in f["dice"]]
    if dice:
        t.append("\n")
        _submitted(t, view, lang, dice, width)
    t.append("\n")
    _outcome(t, lang, result["success"] if result else None, begun.get("consequence"),
             width)
    return t


def _seat_marks(t: Text, view: dict, marks: list, width: int) -> None:
    """ "1 Ana [IN]  2 Ben [OUT]  3 Cai", never broken between a seat and its mark."""
    for i, (seat, mark, style) in enumerate(marks):
        unit = Text.assemble(seat_label(view, seat) + " ", (f"[{mark}]", style)) \
            if mark is not None else Text(seat_label(view, seat), style)
        flow(t, [(unit, "")], width, lead="  " if i else "")


def _submitted(t: Text, view: dict, lang: str, submitted: list, width: int) -> None:
    """Each seat's submitted dice after its name, a seat's dice kept together."""
    by_seat: dict[int, list] = {}
    for seat, face in submitted:
        by_seat.setdefault(seat, []).append(face_text(lang, face))
    for i, (seat, faces) in enumerate(by_seat.items()):
        flow(t, [(seat_label(view, seat) + ":", "bold")] + [(f, "") for f in faces], width,
             sep=" ", lead="  " if i else "")


def _track(t: Text, lang: str, total: int, difficulty: int) -> None:
    t.append(say(lang, "task.success_total", total=signed(total), difficulty=difficulty),
             "bold green" if total >= difficulty else "bold")


def face_text(lang: str, face) -> str:
    """A die's face as printed on it: "-2 weak", "+4 strong", a corporation die's "0"."""
    colour, value = face if isinstance(face, (list, tuple)) else (None, face)
    return f"{printed(value)} {say(lang, 'die.' + colour)}" if colour else printed(value)


def _outcome(t: Text, lang: str, success, consequence, width: int = 40) -> None:
    if success is None:
        t.append(say(lang, "task.in_progress"), "yellow")
    else:
        t.append(say(lang, "task.succeeded" if success else "task.failed"),
                 "bold reverse green" if success else "bold reverse red")
    if consequence:
        flow(t, [(say(lang, "task.consequence", count=consequence), "")], width, lead="  ")


def vote(view: dict, lang: str, facts: list, width: int = 40) -> Text:
    """Who has chosen (never what) until everyone has; then every ballot at once. From the
    call to the result the panel keeps the rows the reveal needs, so the press that reveals
    every ballot repaints rows, not the screen's layout."""
    t = Text()
    waiting = view["waiting"] or {}
    called = _first(facts, "vote_called")
    kind = vote_kind(view, facts)
    target = waiting.get("target", called["target"] if called else None)
    if waiting.get("decision") == "vote_target" or (target is None and kind != "takeoff"):
        t.append(say(lang, "vote.choosing_target"), "yellow")
        return t
    _line(t, _vote_on(view, lang, kind, target), "bold", width, first=True)
    _key(t, lang, kind, width)
    revealed = _first(facts, "vote_revealed") if waiting.get("decision") != "vote" else None
    if revealed is None:
        chosen = set(waiting.get("chosen", ()))
        voters = waiting.get("voters", [])
        for seat in voters:
            _voter(t, view, seat, width,
                   say(lang, "vote.has_chosen" if seat in chosen else "vote.not_chosen"),
                   "green" if seat in chosen else "bright_black")
        return pad_rows(t, _reveal_rows(view, lang, target, voters, width, kind))
    ballots = {int(seat): colour for seat, colour in revealed["ballots"].items()}
    for seat, colour in sorted(ballots.items()):
        _voter(t, view, seat, width, say(lang, _ballot_key(kind, colour)),
               BALLOT_STYLE.get(colour, ""))
    _line(t, _tally(lang, kind, revealed), "bold", width)
    tie = _first(facts, "tie_broken")
    if tie:
        _line(t, say(lang, "vote.tie_broken", commander=seat_label(view, tie["seat"]),
                     result=say(lang, f"vote.result_{tie['result']}")), "", width)
    elif waiting.get("decision") == "tie_break":
        _line(t, say(lang, "vote.tie_waiting"), "yellow", width)
    result = _first(facts, "vote_result") or _first(facts, "lincoln_decided")
    if result:
        _line(t, say(lang, "vote.result", target=_vote_target(view, lang, result["target"]),
                     result=say(lang, f"vote.result_{result['result']}")), "bold reverse",
              width)
    return pad_rows(t, _reveal_rows(view, lang, target, sorted(ballots), width, kind))


def _key(t: Text, lang: str, kind: str, width: int) -> None:
    """What each button means in this kind of vote, one colour a line, from the call to the
    result: the meaning changes from one vote to the next in Shadow Corporation."""
    for colour in BALLOT_STYLE:
        _line(t, say(lang, f"vote.key.{kind}.{colour}"), KEY_STYLE[colour], width)


KEY_STYLE = {"strong": "bold bright_white", "weak": "bold red", "abstain": "white"}


def _vote_target(view: dict, lang: str, target) -> str:
    return seat_label(view, target) if target is not None else say(lang, "vote.the_ship")


def _vote_on(view: dict, lang: str, kind: str, target) -> str:
    return say(lang, "vote.on" if kind == QUARANTINE else f"vote.on.{kind}",
               target=_vote_target(view, lang, target))


def _ballot_key(kind: str, colour: str) -> str:
    return f"vote.ballot_{colour}" if kind == QUARANTINE else f"vote.{kind}.ballot_{colour}"


def _tally(lang: str, kind: str, revealed: dict) -> str:
    if kind == QUARANTINE:
        return say(lang, "vote.tally", release=revealed["release"],
                   quarantine=revealed["quarantine"])
    return say(lang, f"vote.{kind}.tally", strong=revealed["strong"], weak=revealed["weak"])


def _names(view: dict) -> tuple:
    return tuple(s["name"] for s in view["seats"])


def _named(names: tuple) -> dict:
    """A view with only the seats' names: all that the cached row counts below read."""
    return {"seats": [{"name": name} for name in names]}


@lru_cache(maxsize=64)  # the same from a malfunction's first press to its last
def _most_rows(names: tuple, order: tuple, widest: str, width: int) -> int:
    most = Text()
    _seat_marks(most, _named(names),
                [(seat, widest, "") for seat in order], width)
    return rows(most)


def _reveal_rows(view: dict, lang: str, target: int, voters: list, width: int,
                 kind: str = QUARANTINE) -> int:
    return _most_vote_rows(_names(view), lang, target, tuple(voters), width, kind)


RESULTS = {QUARANTINE: ("free", "quarantine"), "amputation": ("amputate", "spare"),
           "clearance": ("clear", "deny"), "takeoff": ("take_off", "stay")}


@lru_cache(maxsize=64)  # the same from a vote's call to its result
def _most_vote_rows(names: tuple, lang: str, target: int, voters: tuple, width: int,
                    kind: str = QUARANTINE) -> int:
    """The most rows a vote's panel takes once revealed: every ballot at its widest, the
    tally, a tie broken or awaited, the result."""
    view = _named(names)
    widest = lambda *words: max(words, key=cell_len)  # noqa: E731
    results = [say(lang, f"vote.result_{r}") for r in RESULTS[kind]]
    t = Text()
    _line(t, _vote_on(view, lang, kind, target), "", width, first=True)
    _key(t, lang, kind, width)
    ballot = widest(*(say(lang, _ballot_key(kind, colour)) for colour in BALLOT_STYLE))
    for seat in voters:
        _voter(t, view, seat, width, ballot, "")
    _line(t, _tally(lang, kind, {"release": 9, "quarantine": 9, "strong": 9, "weak": 9}), "",
          width)
    _line(t, widest(say(lang, "vote.tie_waiting"),
                    *(say(lang, "vote.tie_broken", commander=seat_label(view, seat), result=r)
                      for seat in range(len(view["seats"])) for r in results)), "", width)
    _line(t, widest(*(say(lang, "vote.result", target=_vote_target(view, lang, target),
                          result=r) for r in results)), "", width)
    return rows(t)


def _line(t: Text, words: str, style: str, width: int, first: bool = False) -> None:
    """A sentence on a line of its own, broken between words to fit."""
    units = [(words, style)] if cell_len(words) <= width else \
        [(word, style) for word in words.split(" ")]  # one style run where it fits
    flow(t, units, width, sep=" ", lead="" if first else "\n")


def _voter(t: Text, view: dict, seat: int, width: int, words: str, style: str) -> None:
    """A voter's line: the seat in a column of its own, then what it chose (or whether)."""
    t.append("\n")
    flow(t, [(f"{seat_label(view, seat):<12}", "bold"), (words, style)], width, sep=" ",
         indent=13)
