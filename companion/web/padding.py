"""How long a seat's message is: never a tell of its secrets.

WPA2 hides what a phone is sent, not how much. A seat's payload carries its status card, the
dice behind its screen, its private roll, the cards it drew and the private lines of its log,
and each of those changes the payload's length by a few bytes ("uninfected" is shorter than
"infected_life_support"): a device near the table that counts bytes would read the teams. So
while the game is on, every seat's payload is padded with spaces (JSON ignores them) to a
length that only public things decide:

    the public pieces every audience shares (room, board, log, sentences, banner, mirror)
    + the room for the seat's own part while the game waits for this kind of decision
    + the room for each private fact the seat was told, by the fact's kind

What a seat is told privately happens in public (everybody sees who rolls, who draws, who is
shown a status card), so which kinds of private facts a seat holds is public; only the
Infected's opening of eyes under Telepathic Infected is told to a secret set of seats, and
every seat is given room for it whether it was told or not.

Each room is the most its part was seen to take in 360 whole random games of every variant,
module, player count and kind of bot, in English and Spanish (Spanish is the longer), with
half as much again to spare for a decision and a quarter for a fact, whose words vary less;
tests/web/test_payload_lengths.py plays such games again and fails if a part outgrows its room.
Should a part ever outgrow its room, the payload is still sent whole, longer, and the Pi's
log says so: a lost move would be worse than a byte count.
"""
from __future__ import annotations

import logging

log = logging.getLogger(__name__)

# The seat's own part while the game waits for a decision of this kind: its `you` block (its
# status, dice, roll, cards, the decision's options) and the words of its choices. The
# decision waited for is on the kiosk for all to see, whoever it is for.
DECISION_ROOM = {
    "accident": 1024, "action": 7168, "agree": 1024, "blood_testing": 1280, "bonus": 1536,
    "choose_player": 1024, "clearance_power": 1024, "compromise_kind": 1024, "continue": 1024,
    "corporation": 1280, "damage_kind": 1024, "discard": 1024, "evacuation_vote": 1536,
    "event": 1280, "grant_clearance": 1280, "interference": 5120, "lincoln": 1024,
    "malfunction_type": 1024, "order_response": 1024, "participation": 768,
    "pass_command": 1024, "power_token": 1024, "remove_token": 1792, "resupply": 1024,
    "roll_dice": 2048, "second_power": 1024, "submit": 6144, "system_reboot": 1024,
    "take_dice": 1792, "task": 1536, "threat_claim": 1024, "tie_break": 1024, "trial": 2304,
    "vote": 1024, "vote_order": 1024, "vote_target": 1280,
}
# The longest decision's room, for a kind no game has shown yet.
MOST_DECISION_ROOM = max(DECISION_ROOM.values())
# One private fact: its JSON in the log and in the private log, and its sentence.
FACT_ROOM: dict[str, int] = {
    "corporation_rolled": 320, "demoralized": 256, "event_bottom": 320, "event_discarded": 320,
    "events_drawn": 384, "infected_team": 256, "rolled": 512, "ruled": 384,
    "status_dealt": 320, "status_shown": 320, "task_discarded": 576, "tasks_drawn": 704,
    "threat_dealt": 320,
}
MOST_FACT_ROOM = max(FACT_ROOM.values())
# Facts told to seats that are themselves a secret: every seat gets their room.
TOLD_TO_A_SECRET_SET = ("infected_team",)


def seat_room(decision: str | None, own_facts, facts_for_all) -> int:
    """Bytes set aside for a seat's own part: `own_facts` the seat's private facts,
    `facts_for_all` the facts of TOLD_TO_A_SECRET_SET in the game, told to it or not."""
    room = DECISION_ROOM.get(decision, MOST_DECISION_ROOM)
    for fact in own_facts:
        if fact["k"] not in TOLD_TO_A_SECRET_SET:
            room += FACT_ROOM.get(fact["k"], MOST_FACT_ROOM)
    for fact in facts_for_all:
        room += FACT_ROOM.get(fact["k"], MOST_FACT_ROOM)
    return room


def padded(payload: bytes, length: int) -> bytes:
    """`payload` with spaces after it up to `length` bytes."""
    short = length - len(payload)
    if short < 0:
        log.error("a seat's message outgrew its padding by %d bytes: its length may tell "
                  "a secret (companion/web/padding.py)", -short)
        return payload
    return payload + b" " * short
