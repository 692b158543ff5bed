"""The rules put together, in one place: every module's steps, answers and actions go into
the engine's registry, and the expansion and its modules are hooked into the base turn's
seams. Importing a module registers nothing; `register_all()` (called once by the package)
does it all, and calling it again changes nothing.

The base game's modules never import the expansion's (an import-linter contract in
pyproject.toml says so): the expansion sits beside the base game, at these seams.
"""
from __future__ import annotations

from . import (complications, damage, dice, events, malfunction, reveal, shadow, shadow_cards,
               threats, turn, votes)
from .engine import on

# The base game, then Shadow Corporation and its modules.
BASE = (dice, damage, votes, turn, malfunction, complications, events, reveal)
EXPANSION = (shadow, shadow_cards, threats)


def register_base() -> None:
    """The base game's rules alone: all a game without the expansion needs."""
    for module in BASE:
        module.RULES.install()


def register_expansion() -> None:
    """Shadow Corporation and its Company Man and Threats modules, beside the base game:
    their rules, and their hooks in the order they act at each seam."""
    for module in EXPANSION:
        module.RULES.install()
    on("turn_start", shadow.refuel)  # which deals the threats when the refuelling is over
    on("action_options", shadow.shadow_action_options)
    on("action_options", threats.exposure_offered)
    on("recall_drawn", shadow.recall)
    on("forced_vote_due", shadow.advance_evacuation)
    on("ballots_shown", threats.after_ballots)
    on("faces_counted", shadow.bribed)
    on("malfunction_submitted", threats.after_submission)
    on("final_completed", threats.threats_missed)
    on("public_view", threats.threats_view)
    on("position_built", threats.position_threats)


def register_all() -> None:
    register_base()
    register_expansion()
