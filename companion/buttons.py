"""What a seat button means now. Hardware knows nothing of the game: a button source reports
(seat, colour) and this turns it into a command according to what the game waits for.

BLACK is IN on a malfunction and the strong die in a vote, RED is OUT and the weak die, GREY
(or BLACK and RED held together, which a button box reports as GREY) abstains. A press that
means nothing at this moment is ignored, so a nervous finger between decisions does nothing.
"""
from __future__ import annotations

BLACK, RED, GREY = "black", "red", "grey"
COLOURS = (BLACK, RED, GREY)

_MEANING = {
    "participation": {BLACK: "in", RED: "out"},
    "vote": {BLACK: "strong", RED: "weak", GREY: "abstain"},
}


def press_command(waiting: dict | None, seat: int, colour: str) -> dict | None:
    """The command a press of `colour` at `seat` sends, or None if it means nothing now.

    `waiting` is the public view's `waiting` block. The command may still be refused by the
    rules (a vote with a die colour the seat does not hold); the caller tells that seat only.
    """
    if colour not in COLOURS or waiting is None:
        return None
    meaning = _MEANING.get(waiting["decision"], {}).get(colour)
    if meaning is None or seat not in waiting["seats"]:
        return None
    if waiting["decision"] == "vote" and seat in waiting.get("chosen", ()):
        return None  # a second press after voting: the first vote stands, silently
    return {"decision": waiting["decision"], "option": [meaning]}


def lit_seats(waiting: dict | None) -> frozenset[int]:
    """Seats whose button LED is on: whose turn it is to choose IN or OUT, or who still has
    to vote. Only what the public view already says (who is waited for), never a choice."""
    if waiting is None or waiting["decision"] not in _MEANING:
        return frozenset()
    return frozenset(waiting["seats"]) - frozenset(waiting.get("chosen", ()))
