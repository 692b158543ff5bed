"""Typed refusals: every rejected command raises one of these and changes nothing."""


class RulesError(ValueError):
    """A command the rules refuse. `code` is stable for clients; the message says why."""

    code = "refused"

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class MalformedCommand(RulesError):
    code = "malformed_command"


class UnknownSeat(RulesError):
    code = "unknown_seat"


class NotYourDecision(RulesError):
    code = "not_your_decision"


class WrongDecision(RulesError):
    code = "wrong_decision"


class IllegalOption(RulesError):
    code = "illegal_option"


class StaleState(RulesError):
    code = "stale_state"


class GameOver(RulesError):
    code = "game_over"


class BadSetup(RulesError):
    code = "bad_setup"


class ReplayMismatch(RuntimeError):
    """A stored game does not replay: the log and the rules disagree (never a user error)."""
