"""The rules at hand: what every card does, in both languages and in this project's
own words; and the sentence of every rule that answers a decision by itself."""
from __future__ import annotations

import ast
import hashlib
import re
from pathlib import Path

import pytest

from companion.darkmoon.data import (CHARACTERS, COMPANY_MAN, EVENTS, FINAL_EVENTS,
                                     INFECTED_CARDS, INFECTED_CLEARANCE, THREAT_CARDS,
                                     MALFUNCTION, TASKS, UNINFECTED)
from companion.lang import LANGS, catalogue
from companion.lang.facts import describe
from companion.lang.words import Words

ROOT = Path(__file__).resolve().parents[2]
# The rulebook is not part of this repository (it is not ours to copy), so the suite keeps
# only a fingerprint of it: a short hash of every run of eight of its words. Where the
# rulebook sits beside the checkout (../shared/rules), a test checks the fingerprint still
# matches it.
RULEBOOK = ROOT.parent / "shared" / "rules" / "darkmoon-rulebook-en.txt"
RUNS = Path(__file__).with_name("rulebook-runs.txt")
RUN = 8


def text_key(kind: str, ident: str) -> str:
    """The catalogue key a page reads for a card (board-view.js cardText): a malfunction's
    text is its type's, named by the card id without its difficulty (life_support_6)."""
    if kind == "task" and TASKS[ident].kind == MALFUNCTION:
        return "game.text.malfunction." + re.sub(r"_\d+$", "", ident)
    return f"game.text.{kind}.{ident}"


CARDS = ([("event", e) for e in EVENTS] + [("final", f) for f in FINAL_EVENTS]
         + [("task", t) for t in TASKS]
         + [("status", s) for s in (UNINFECTED, COMPANY_MAN) + INFECTED_CARDS
            + (INFECTED_CLEARANCE,)]
         + [("character", c) for c in CHARACTERS] + [("threat", c) for c in THREAT_CARDS])


@pytest.mark.parametrize("kind, ident", CARDS, ids=[f"{k}-{i}" for k, i in CARDS])
def test_every_card_of_the_game_data_says_what_it_does_in_both_languages(kind, ident):
    english, spanish = catalogue("en"), catalogue("es")
    key = text_key(kind, ident)
    assert english.get(key, "").strip() and spanish.get(key, "").strip(), key
    assert english[key] != spanish[key], f"{key} is not translated"
    assert "{" not in english[key] + spanish[key]  # read as they are, nothing to fill in


def test_no_card_text_is_left_over_from_a_card_the_game_lacks():
    known = {text_key(kind, ident) for kind, ident in CARDS}
    texts = {k for k in catalogue("en") if k.startswith("game.text.")}
    assert texts == known, texts ^ known


def words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9+-]+", text.lower())


def run_hash(run: list[str]) -> str:
    return hashlib.blake2b(" ".join(run).encode(), digest_size=5).hexdigest()


def fingerprint(text: str) -> set[str]:
    said = words(text)
    return {run_hash(said[i:i + RUN]) for i in range(len(said) - RUN + 1)}


def test_the_card_texts_are_our_own_words_not_the_rulebooks():
    """No run of eight words of a card text is the rulebook's (its card notes included)."""
    runs = set(RUNS.read_text(encoding="ascii").split())
    english = catalogue("en")
    for kind, ident in CARDS:
        said = words(english[text_key(kind, ident)])
        copied = [" ".join(said[i:i + RUN]) for i in range(len(said) - RUN + 1)
                  if run_hash(said[i:i + RUN]) in runs]
        assert not copied, (ident, copied)


@pytest.mark.skipif(not RULEBOOK.exists(), reason="the rulebook is not beside this checkout")
def test_the_rulebooks_fingerprint_is_the_rulebooks():
    assert set(RUNS.read_text(encoding="ascii").split()) == \
        fingerprint(RULEBOOK.read_text(encoding="utf-8"))


def rules_named() -> set[str]:
    """Every rule a `ruled` fact can name, read from the rules' source: the strings in any
    `rule=...` argument, `rule = ...` assignment or `rule` parameter default."""
    names: set[str] = set()

    def strings(node) -> set[str]:  # a name, or the names an `a if ... else b` can give
        if isinstance(node, ast.IfExp):
            return strings(node.body) | strings(node.orelse)
        return {node.value} if isinstance(node, ast.Constant) else set()

    for path in (ROOT / "companion" / "darkmoon").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.keyword) and node.arg == "rule":
                names |= strings(node.value)
            elif isinstance(node, ast.Assign) and any(
                    isinstance(t, ast.Name) and t.id == "rule" for t in node.targets):
                names |= strings(node.value)
            elif isinstance(node, ast.arguments):
                params = node.args + node.kwonlyargs
                defaults = [None] * (len(node.args) - len(node.defaults)) + node.defaults \
                    + node.kw_defaults
                names |= {d.value for a, d in zip(params, defaults)
                          if a.arg == "rule" and isinstance(d, ast.Constant)}
    return names


def test_every_rule_that_answers_by_itself_has_a_sentence_in_both_languages():
    names = rules_named()
    assert {"only_choice", "at_die_limit", "quarantine_no_task", "fatigued_one_die",
            "no_dice_left", "commander_no_dice"} <= names  # the scan works
    view = {"seats": [{"name": n} for n in ("Ana", "Ben", "Cai")]}
    for lang in LANGS:
        keys = catalogue(lang)
        missing = {n for n in names if f"game.fact.ruled.{n}" not in keys}
        assert not missing, (lang, missing)
        for name in names:
            fact = {"k": "ruled", "rule": name, "seat": 2, "decision": "take_dice",
                    "card": "failure_to_lead"}
            sentence = describe(Words(lang, view), fact)
            assert "{" not in sentence and "None" not in sentence, sentence
            if "{seat}" in keys[f"game.fact.ruled.{name}"]:
                assert "Cai" in sentence


def test_a_ruled_fact_names_its_rule_in_the_readers_language():
    view = {"seats": [{"name": n} for n in ("Ana", "Ben", "Cai")]}
    fact = {"k": "ruled", "rule": "quarantine_no_task", "seat": 2}
    assert describe(Words("en", view), fact) == \
        "Cai is in quarantine: no task card this turn (Quarantine rule)"
    assert describe(Words("es", view), fact) == \
        "Cai está en cuarentena: no roba carta de tarea este turno (regla de Cuarentena)"
    secret = {"k": "ruled", "rule": "only_choice", "seat": 0, "decision": "roll_dice",
              "to": [0]}
    assert describe(Words("en", view), secret).startswith("(secret) Ana has a single")
