"""One name for each button's meaning: the kiosk, its help, the phone's options
and the log call a choice the same, in both languages. Once the kiosk said "BLACK:
release", the phone "Strong die: not infected, free" and the log "strong (free)" for the
same press."""
from __future__ import annotations

import pytest

from companion.lang import text

# What each seat button means, by decision: the kiosk's words and the phone's for it.
MEANINGS = [  # (kiosk key, phone/game keys that must read the same)
    ("kiosk.vote.ballot_strong", ["game.option.vote.strong", "game.ballot.strong"]),
    ("kiosk.vote.ballot_weak", ["game.option.vote.weak", "game.ballot.weak"]),
    ("kiosk.vote.ballot_abstain", ["game.option.vote.abstain", "game.ballot.abstain"]),
    ("kiosk.task.in", ["game.option.participation.in"]),
    ("kiosk.task.out", ["game.option.participation.out"]),
]
BUTTON = {"strong": "black", "weak": "red", "abstain": "grey"}


@pytest.mark.parametrize("lang", ["en", "es"])
def test_the_kiosk_and_the_phone_name_each_button_meaning_alike(lang):
    hint = text(lang, "kiosk.help.buttons_hint")
    for kiosk_key, phone_keys in MEANINGS:
        kiosk = text(lang, kiosk_key, target="")
        for key in phone_keys:
            assert text(lang, key, target="") == kiosk, (key, kiosk)
        assert kiosk in hint  # the help's key to the buttons says it the same way


@pytest.mark.parametrize("lang", ["en", "es"])
def test_each_ballot_names_its_button_and_its_die(lang):
    """The words carry the colour too: read on a console or by a colour-blind player, the
    ballot still says which button and which die it was."""
    for ballot, button in BUTTON.items():
        said = text(lang, f"kiosk.vote.ballot_{ballot}")
        assert text(lang, f"kiosk.help.{button}") in said
    for ballot in ("strong", "weak"):
        assert text(lang, f"kiosk.die.{ballot}") in text(lang, f"kiosk.vote.ballot_{ballot}")


def test_the_release_of_a_vote_is_called_free_everywhere():
    """The rulebook's vote frees or quarantines: "release" is the Blood Testing card's own
    choice, never a button's name."""
    for key in ("kiosk.vote.ballot_strong", "kiosk.vote.tally", "kiosk.help.buttons_hint",
                "game.option.vote.strong", "game.ballot.strong", "game.fact.vote_revealed"):
        assert "release" not in text("en", key, target="", release=0, quarantine=0,
                                     ballots="").lower()
        assert "free" in text("en", key, target="", release=0, quarantine=0,
                              ballots="").lower()


@pytest.mark.parametrize("lang", ["en", "es"])
@pytest.mark.parametrize("kind", ["amputation", "clearance", "takeoff"])
def test_shadow_corporations_ballots_name_their_button_alike_everywhere(lang, kind):
    """In each kind of vote the kiosk and the phones give a colour the same meaning,
    and each ballot still names its button and its die."""
    for ballot, button in BUTTON.items():
        kiosk = text(lang, f"kiosk.vote.{kind}.ballot_{ballot}")
        assert kiosk == text(lang, f"game.option.vote.{kind}.{ballot}")
        assert text(lang, f"kiosk.help.{button}") in kiosk
        if ballot != "abstain":
            assert text(lang, f"kiosk.die.{ballot}") in kiosk
