"""docs/table-api.md cannot fall behind the engine: every id it lists is compared with the
rules' own tables, every fact kind with what the rules' source can emit (read with ast, and
checked again against the facts of real games), every decision detail with SAFE_DATA, every
refusal with the classes that raise it, every Room call with the Room, and every field of the
views with what whole games' views hold."""
from __future__ import annotations

import ast
import random
import re
from pathlib import Path

import pytest

import companion.darkmoon as rules
import companion.core.refusals as refusals
from companion.darkmoon import Setup, start_from
from companion.darkmoon.data import (CHARACTERS, COMPANY_MAN, EVAC_SHIP, EVENTS, EXPANSIONS,
                                     FATIGUE,
                                     FINAL_EVENTS, INFECTED_CARDS, INFECTED_CLEARANCE, OUTPOST,
                                     OUTPOST_TOKENS, TASKS, THREAT_CARDS, UNINFECTED,
                                     VARIANTS)
from companion.darkmoon.reveal import POWER_KIND
from companion.darkmoon.views import SAFE_DATA
from companion.core.room import Room
from companion.tools.simulate import helpful_choice, play_game

ROOT = Path(__file__).resolve().parents[1]
DOCS = (ROOT / "docs" / "table-api.md").read_text(encoding="utf-8")
RULES = ROOT / "companion" / "darkmoon"
# place_token and remove_token name their facts f"{kind}_placed" / f"{kind}_removed"; they
# serve the two kinds made of tokens (the shield track has its own literal names).
TOKEN_KINDS = (OUTPOST, FATIGUE)


def section(heading: str) -> str:
    """The text under a heading, up to the next heading of the same or a higher level (a
    `#` comment inside a code block is not a heading)."""
    level = len(heading.split(" ", 1)[0])
    lines = DOCS.splitlines(keepends=True)
    start = lines.index(heading + "\n") + 1
    fenced, out = False, []
    for line in lines[start:]:
        fenced ^= line.startswith("```")
        if not fenced and re.match(r"#{1,%d} " % level, line):
            break
        out.append(line)
    return "".join(out)


def rows(text: str) -> list[list[str]]:
    """A markdown table's body rows, as cells (an escaped \\| stays inside its cell)."""
    lines = text.splitlines() + [""]
    return [[c.strip() for c in re.split(r"(?<!\\)\|", line.strip()[1:-1])]
            for line, after in zip(lines, lines[1:])
            if line.startswith("|") and not line.startswith("|---")
            and not after.startswith("|---")]  # not a header row


def first_ids(heading: str) -> list[str]:
    return [re.fullmatch(r"`([^`]+)`", r[0]).group(1) for r in rows(section(heading))]


def ticked(cell: str) -> set[str]:
    return set(re.findall(r"`([^`]+)`", cell))


# --- the ids ---

def test_every_id_is_listed_once_and_nothing_else():
    for heading, table in [("### Task cards", TASKS), ("### Events", EVENTS),
                           ("### Final events", FINAL_EVENTS),
                           ("### Outpost tokens", OUTPOST_TOKENS + (EVAC_SHIP,)),
                           ("### Characters and fatigue tokens", CHARACTERS),
                           ("### Variants", VARIANTS),
                           ("### Statuses and infection powers",
                            INFECTED_CARDS + (INFECTED_CLEARANCE, UNINFECTED, COMPANY_MAN))]:
        ids = first_ids(heading)
        assert len(ids) == len(set(ids)), f"{heading}: an id listed twice"
        assert set(ids) == set(table), f"{heading}: {set(ids) ^ set(table)}"


def test_fatigue_tokens_and_infection_powers_are_the_engines():
    chars = rows(section("### Characters and fatigue tokens"))
    assert {t for r in chars for t in ticked(r[2])} == {
        c for c, character in CHARACTERS.items() if character.has_fatigue_token}
    powers = {re.sub("`", "", r[0]): ticked(r[1]) for r in
              rows(section("### Statuses and infection powers"))}
    assert powers == {UNINFECTED: set(), COMPANY_MAN: set(), INFECTED_CLEARANCE: {"clearance"},
                      **{s: {k} for s, k in POWER_KIND.items()}}


def test_blocked_actions_and_task_details_are_the_engines():
    from companion.darkmoon.data import BLOCKED_BY
    blocks = {r[0].strip("`"): ticked(r[1]) for r in rows(section("### Outpost tokens"))}
    assert {t: b for t, b in blocks.items() if b} == {t: {a} for t, a in BLOCKED_BY.items()}
    for r in rows(section("### Task cards")):
        task = TASKS[r[0].strip("`")]
        assert r[1] == task.kind and (r[5] == "yes") == task.suspicious
        if task.kind == "malfunction":
            assert (r[2], int(r[3]), int(r[4]), r[6] == "yes") == (
                task.type, task.difficulty, task.consequence, task.bonus)
    for heading, table in [("### Events", EVENTS), ("### Final events", FINAL_EVENTS)]:
        for r in rows(section(heading)):
            card = table[r[0].strip("`")]
            assert (int(r[1]), r[2]) == (card.cubes, card.timing)


def test_the_setup_table_lists_the_same_ids():
    setup = {r[0].strip("`"): ticked(r[1]) for r in rows(section("## Opening a game"))
             if r[0].startswith("`")}
    assert setup["characters"] == set(CHARACTERS)
    assert setup["final_event"] == set(FINAL_EVENTS)
    assert setup["variants"] == set(VARIANTS + EXPANSIONS)


# --- the fact kinds ---

def fact_calls() -> dict[str, set]:
    """Every ctx.fact(KIND, FIELD=...) in the rules' source: kind -> fields (without `to`)."""
    kinds: dict[str, set] = {}
    for path in sorted(RULES.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "fact" and node.args):
                continue
            name = node.args[0]
            where = f"{path.name}:{node.lineno}"
            if isinstance(name, ast.Constant):
                names = [name.value]
            elif isinstance(name, ast.IfExp) and all(
                    isinstance(b, ast.Constant) for b in (name.body, name.orelse)):
                names = [name.body.value, name.orelse.value]
            elif isinstance(name, ast.JoinedStr):
                template = "".join(v.value if isinstance(v, ast.Constant) else "{}"
                                   for v in name.values)
                assert template.count("{}") == 1, f"{where}: a fact name this test cannot read"
                names = [template.format(k) for k in TOKEN_KINDS]
            else:
                raise AssertionError(f"{where}: a fact name this test cannot read")
            # `**counts` (discarded_dice) spells out fields another call names explicitly
            fields = {k.arg for k in node.keywords if k.arg not in (None, "to")}
            for n in names:
                kinds.setdefault(n, set()).update(fields)
    return kinds


def documented_facts() -> dict[str, set]:
    table = rows(section("### Fact kinds"))
    kinds = [r[0].strip("`") for r in table]
    assert len(kinds) == len(set(kinds)), "a fact kind listed twice"
    return {r[0].strip("`"): ticked(r[1]) for r in table}


def test_every_fact_kind_the_rules_can_emit_is_documented_with_its_fields():
    emitted, documented = fact_calls(), documented_facts()
    assert set(emitted) == set(documented), (
        f"undocumented: {sorted(set(emitted) - set(documented))}, "
        f"documented but never emitted: {sorted(set(documented) - set(emitted))}")
    for kind, fields in emitted.items():
        assert documented[kind] == fields, f"{kind}: docs {documented[kind]}, rules {fields}"


def test_the_facts_of_real_games_match_the_documented_kinds():
    """The source scan above cannot see a fact built another way: real games' facts are
    checked against the same table (dealt games with every variant, and a position)."""
    documented = documented_facts()
    logs = []
    for seed in range(24):
        players = 3 + seed % 5
        variants = tuple(v for v in VARIANTS if players >= 5 or v != "telepathic_infected") \
            if seed % 2 else ()
        logs.append(play_game(Setup(tuple("ABCDEFG"[:players]), variants=variants), seed,
                              choose=helpful_choice).events)
    logs.append(start_from({"seats": [{"name": n} for n in "ABCDE"], "commander": 1},
                           random.Random(1)))
    seen = set()
    for events in logs:
        for fact in (f for e in events for f in e["facts"]):
            kind = fact["k"]
            assert kind in documented, f"undocumented fact kind {kind!r}"
            assert set(fact) - {"k", "to"} <= documented[kind], (kind, sorted(fact))
            seen.add(kind)
    assert len(seen) >= 40, sorted(seen)  # the games did reach most of the rules


# --- decisions, refusals, the room ---

def test_every_decision_detail_a_seat_sees_is_documented():
    text = section("## Reading a decision: `you.decision` and `you.rolled`")
    keys = {r[0].strip("`") for r in rows(text)}
    assert keys == set(SAFE_DATA)
    # Every reason and purpose the rules give a decision or a fact is explained there.
    named = set()
    for path in sorted(RULES.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            pairs = []
            if isinstance(node, ast.Dict):
                pairs = [(k.value, v) for k, v in zip(node.keys, node.values)
                         if isinstance(k, ast.Constant)]
            elif isinstance(node, ast.Call):
                pairs = [(k.arg, k.value) for k in node.keywords]
                if getattr(node.func, "id", None) == "ask_roll":
                    pairs.append(("purpose", node.args[3]))
            named |= {v.value for k, v in pairs
                      if k in ("reason", "purpose") and isinstance(v, ast.Constant)}
    assert named, "the scan found no reasons: the rules changed shape"
    missing = {n for n in named if f"`{n}`" not in text}
    assert not missing, f"reasons or purposes not explained: {sorted(missing)}"


REFUSALS = [name for name in dir(refusals)
            if isinstance(getattr(refusals, name), type)
            and issubclass(getattr(refusals, name), refusals.RoomError)
            and getattr(refusals, name) is not refusals.RoomError
            and name not in ("BadRequest", "TooManyStreams", "TooSlow", "CrossOrigin",
                             "UnknownHost", "StoreSlow")]  # the web layer's own: docs/http-api.md


def documented_exceptions(heading: str) -> dict[str, str]:
    return {m.group(1): m.group(2) for r in rows(section(heading))
            for m in [re.match(r"`(\w+)` \(`(\w+)`\)", r[0])] if m}


def test_every_refusal_is_documented_with_its_code_and_importable_from_where_it_says():
    table = documented_exceptions("## Sending a command")
    assert table, "no exceptions listed"
    for name, code in table.items():
        assert getattr(rules, name).code == code, name  # from companion.darkmoon import ...
    assert {c.__name__ for c in rules.RulesError.__subclasses__()} - {"BadSetup"} == set(table)
    assert "from companion.darkmoon import" in section("## Sending a command")
    room = documented_exceptions("## The Room: seats, phones, buttons and the host")
    assert set(room) == set(REFUSALS)
    for name, code in room.items():
        assert getattr(refusals, name).code == code


@pytest.mark.parametrize("name", sorted(n for n in dir(Room) if not n.startswith("_")))
def test_every_room_call_is_documented(name):
    text = section("## The Room: seats, phones, buttons and the host")
    assert re.search(r"`(await )?%s\b" % name, text), f"Room.{name} is not documented"


# --- the views ---

# Objects whose keys are data, not fields: seat numbers, dice colours, threat kinds. Each is
# one documented field; a decision's `data` has its own table (SAFE_DATA, above).
VALUE_KEYS = {"strong", "weak", "commander", "wild"} | set(THREAT_CARDS)
VALUE_OBJECTS = {"you.decision.data"}
# The Table adds these to the rules' views (companion/core/table.py).
ADDED_BY_THE_TABLE = {"log", "you.private_log"}


def field_paths(value, path: str, found: set) -> None:
    """Every field of a view as a dotted path; `[]` for the dicts inside a list."""
    if isinstance(value, dict):
        if path in VALUE_OBJECTS or (value and (all(k.isdigit() for k in value)
                                                or set(value) <= VALUE_KEYS)):
            return
        for key, inner in value.items():
            found.add(f"{path}.{key}" if path else key)
            field_paths(inner, f"{path}.{key}" if path else key, found)
    elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        for inner in value:
            field_paths(inner, path + "[]", found)


def test_every_field_the_views_hold_is_documented_and_nothing_else():
    """Whole games of the base game with every variant and of Shadow Corporation with both
    modules (each view at every step, and the game-over views) hold exactly the fields the
    Views table lists, so an expansion's field cannot be left out of the docs again."""
    documented = set().union(*(ticked(r[0]) for r in rows(section("## Views"))))
    found = set(ADDED_BY_THE_TABLE)

    def collect(g, _event=None):
        field_paths(rules.public_view(g), "", found)
        for seat in range(g.players):
            field_paths({"you": rules.seat_view(g, seat)["you"]}, "", found)

    for seed in range(8):
        players = 3 + seed % 5
        base = tuple(v for v in VARIANTS if players >= 5 or v != "telepathic_infected")
        for variants in (base, EXPANSIONS):
            play_game(Setup(tuple("ABCDEFG"[:players]), variants=variants), seed,
                      after_each=collect, choose=helpful_choice)
    assert found - documented == set(), "fields the docs do not list"
    assert documented - found == set(), "documented fields no view held"


def test_the_readme_shows_every_screenshot_and_each_one_it_shows_is_there():
    """A newcomer reads the README before installing: every picture it points at opens, and
    every picture kept in docs/screens is one it shows."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    shown = set(re.findall(r"\]\((docs/screens/[^)]+)\)", readme))
    kept = {f"docs/screens/{p.name}" for p in (ROOT / "docs" / "screens").iterdir()}
    assert shown, "the README shows the kiosk and the phones"
    assert shown <= kept, f"missing pictures: {sorted(shown - kept)}"
    assert kept <= shown, f"pictures the README does not show: {sorted(kept - shown)}"
    assert {"120x36", "240x67"} <= {m for p in shown for m in re.findall(r"\d+x\d+", p)}
