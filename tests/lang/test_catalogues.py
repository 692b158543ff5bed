"""The catalogues: English and Spanish say the same things, and every card, token, decision
and fact the rules know has words in both."""
from __future__ import annotations

import json
import string

import pytest

from companion.darkmoon.data import (CHARACTERS, EVENTS, FATIGUE_TOKENS, FINAL_EVENTS,
                                     INFECTED_CARDS, OUTPOST_TOKENS, TASKS, UNINFECTED,
                                     VARIANTS)
from companion.darkmoon.engine import ANSWERS
from companion.lang import LANGS, catalogue, label
from companion.lang.catalogues import HERE

from .games import emitted_kinds

FILES = sorted(p.name for p in (HERE / "en").glob("*.json"))


def placeholders(sentence: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(sentence) if name}


def load(lang: str, name: str) -> dict:
    return json.loads((HERE / lang / name).read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", FILES)
def test_every_file_has_the_same_keys_in_both_languages(name):
    assert sorted(p.name for p in (HERE / "es").glob("*.json")) == FILES
    english, spanish = load("en", name), load("es", name)
    assert set(english) == set(spanish), set(english) ^ set(spanish)
    prefix = name.removesuffix(".json") + "."
    assert all(key.startswith(prefix) for key in english)


def test_game_sentences_fill_the_same_placeholders_in_both_languages():
    english, spanish = load("en", "game.json"), load("es", "game.json")
    for key, sentence in english.items():
        assert sentence.strip() and spanish[key].strip(), key
        assert placeholders(sentence) == placeholders(spanish[key]), key


def test_every_fact_kind_the_rules_record_has_a_sentence_in_both_languages():
    kinds = emitted_kinds()
    assert {"rolled", "submitted", "participation", "vote_revealed", "task_result",
            "shield_placed", "outpost_placed", "corrected"} <= kinds  # the scan works
    for lang in LANGS:
        keys = catalogue(lang)
        missing = {k for k in kinds
                   if f"game.fact.{k}" not in keys
                   and not any(key.startswith(f"game.fact.{k}.") for key in keys)}
        assert not missing, (lang, missing)


def test_every_decision_has_a_name_a_question_and_a_banner():
    for lang in LANGS:
        keys = catalogue(lang)
        for decision in ANSWERS:
            assert f"game.decision.{decision}" in keys, decision
            assert f"game.question.{decision}" in keys, decision
            assert decision == "vote" or f"game.waiting.{decision}" in keys, decision


@pytest.mark.parametrize("kind, ids", [
    ("character", CHARACTERS), ("task", TASKS), ("event", EVENTS), ("final", FINAL_EVENTS),
    ("token", OUTPOST_TOKENS + FATIGUE_TOKENS), ("variant", VARIANTS),
    ("status", (UNINFECTED,) + INFECTED_CARDS), ("area", ("shield", "outpost", "fatigue")),
])
def test_every_component_has_a_name_in_both_languages(kind, ids):
    for ident in ids:
        assert label("en", kind, ident) and label("es", kind, ident)


def test_labels_use_the_spanish_rulebook_words():
    assert label("es", "status", "uninfected") == "No infectado"
    assert label("es", "status", "infected_outpost").startswith("Infectado")
    assert label("es", "decision", "participation") == "DENTRO o FUERA"
    assert label("en", "token", "hangar_bay") == "Hangar Bay"
    assert label("es", "token", "research_lab") == "Laboratorio de investigación"
    assert label("en", "final", "protect_codes") == "Protect Self-Destruct Codes"
    assert label("en", "character", "luba") == "Luba Zheleznyak"
    with pytest.raises(KeyError):
        label("en", "event", "no_such_event")


def test_no_spanish_game_sentence_is_left_in_english():
    english, spanish = load("en", "game.json"), load("es", "game.json")
    # Proper names and bare layouts ("{seat}: {ballot}") read the same in both; nothing else.
    same = {k for k in english if english[k] == spanish[k]}
    layouts = {"game.seating", "game.blocked", "game.task.flagged", "game.ballot.cast",
               "game.option.choose_player"}
    names = ("game.character.", "game.token.")
    assert {k for k in same if k not in layouts and not k.startswith(names)} == set()
