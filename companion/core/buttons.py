"""What a seat button means now. Hardware knows nothing of the game: a button source reports
(seat, colour) and this turns it into a command according to what the game waits for.

BLACK is IN on a malfunction and the strong die in a vote, RED is OUT and the weak die, GREY
(or BLACK and RED held together, which a button box reports as GREY) abstains. A press that
means nothing at this moment changes nothing, and gets an answer that says why
(press_refusal), so a player can tell a refused press from a dead button.
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
    # A seat that has voted may press again until the last vote is in: its fist is still
    # closed, and the new colour replaces the old (the same colour again changes nothing).
    if meaning is None or seat not in waiting["seats"] + waiting.get("chosen", []):
        return None
    return {"decision": waiting["decision"], "option": [meaning]}


# Why a press means nothing now, for API clients; the pages and the kiosk have their words.
REFUSALS = {
    "nothing_now": "no game is waiting for a button now",
    "not_your_turn": "the game is not waiting for this seat",
    "phone_decision": "this decision is made on the phone",
    "not_this_colour": "this button means nothing in this decision",
}


def press_refusal(waiting: dict | None, seat: int, colour: str) -> str:
    """Why a press that press_command turned down means nothing: one of REFUSALS. Made only
    of what the public waiting block says, so the kiosk may show it as well as the phone."""
    if waiting is None:
        return "nothing_now"
    if seat not in waiting["seats"] + waiting.get("chosen", []):
        return "not_your_turn"
    if waiting["decision"] not in _MEANING:
        return "phone_decision"  # a tie-break, an action: the phone has the options
    return "not_this_colour"  # GREY on a malfunction


def lit_seats(waiting: dict | None) -> frozenset[int]:
    """Seats whose button LED is on: whose turn it is to choose IN or OUT, or who still has
    to vote (a seat that has voted may still change its vote, but its light is out: it is
    lit only while its vote is missing). Only what the public view already says (who is
    waited for), never a choice."""
    if waiting is None or waiting["decision"] not in _MEANING:
        return frozenset()
    return frozenset(waiting["seats"]) - frozenset(waiting.get("chosen", ()))
