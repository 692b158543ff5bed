"""The Dark Moon rules: pure Python, standard library only, no IO, no clock, no global random."""
from .api import decide, evolve, play, replay, start, waiting_for
from .corrections import HOST
from .engine import Chance, Ctx, legal_options
from .errors import (BadSetup, GameOver, IllegalOption, MalformedCommand, NotYourDecision,
                     ReplayMismatch, RulesError, StaleState, UnknownSeat, WrongDecision)
from .position import Position, start_from
from .rules import register_all
from .setup import Setup
from .state import Game
from .views import public_view, seat_view, visible_facts

register_all()  # every module's rules into the engine's registry, the expansion at its seams

__all__ = [
    "BadSetup", "Chance", "Ctx", "Game", "GameOver", "HOST", "IllegalOption",
    "MalformedCommand", "NotYourDecision", "Position", "ReplayMismatch", "RulesError", "Setup",
    "StaleState", "UnknownSeat", "WrongDecision", "decide", "evolve", "legal_options",
    "play", "public_view", "replay", "seat_view", "start", "start_from", "visible_facts",
    "waiting_for",
]
