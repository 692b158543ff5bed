"""The room's refusals: what a phone, the host or a seat button is told when the room (not the
rules) says no. Each has a stable `code` for clients and the HTTP `status` the web layer
answers with."""
from __future__ import annotations


class RoomError(Exception):
    """A refusal outside the rules: unknown token, someone else's seat, a game not started.
    `code` is stable for clients; `status` is the HTTP status the web layer answers with."""
    code = "room_error"
    status = 409

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class UnknownToken(RoomError):
    code, status = "unknown_token", 404


class SeatClaimed(RoomError):
    code, status = "seat_claimed", 409


class NotYourSeat(RoomError):
    code, status = "not_your_seat", 403


class NotReady(RoomError):
    code, status = "not_ready", 409


class BadRequest(RoomError):
    code, status = "bad_request", 400


class CommitmentChanged(RoomError):
    """A phone pledged or revealed to a commitment that is no longer the pending one (a new
    game was set up, or a game dealt, since it looked): nothing changed; it looks again."""
    code, status = "commitment_changed", 409


class UnknownGame(RoomError):
    """No game with that number on this box."""
    code, status = "unknown_game", 404


class GameInProgress(RoomError):
    code, status = "game_in_progress", 409


class OneSeatPerPhone(RoomError):
    code, status = "one_seat_per_phone", 409


class BotSeat(RoomError):
    """A bot's seat is no phone's to take: the host hands it to a person, in public."""
    code, status = "bot_seat", 409


class StorageFailed(RoomError):
    """The store refused a write (disk full, a failing card): nothing changed."""
    code, status = "storage_failed", 503


class StoreSlow(RoomError):
    """The store has not finished a write within seconds (a frozen SD card). The change is
    still queued and counts if the write lands (every screen shows it then); if it never
    does, nothing changed. Either way nothing is lost, and nothing is done twice."""
    code, status = "store_slow", 503


# The web server's own refusals (companion/web/guard.py): a stranger on the Wi-Fi.
class TooManyStreams(RoomError):
    code, status = "too_many_streams", 429


class TooSlow(RoomError):
    code, status = "too_slow", 408


class CrossOrigin(RoomError):
    code, status = "cross_origin", 403


class UnknownHost(RoomError):
    code, status = "unknown_host", 403
