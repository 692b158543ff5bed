"""Modified boxes at the dealing seam: `fairdeal.Dealer` subclasses a Room is handed
(`Room(store, dealer=...)`), each making the one change a modified Pi would make where the
room turns the lobby's fair into its receipt and then its deal. This file holds no test."""
from __future__ import annotations

import copy

from companion.chance.fair import Fair, draw_value, pledge
from companion.core.fairdeal import Dealer


class LeavesOutAShownPledge(Dealer):
    """The receipt names every revealed phone, as shown to all; the deal then leaves out
    `seat`'s bytes (its filler instead), as if that reveal had never come: one of the 2^k
    deals a box holding k reveals could pick from. The record keeps the receipt shown."""

    def __init__(self, seat: int):
        self.seat = seat

    def fair(self, box: str, fair: dict) -> Fair:
        shown = fair["receipt"]
        without = [None if s == self.seat else p for s, p in enumerate(shown)]
        dealt = super().fair(box, {**fair, "receipt": without})
        return Fair(box, dealt.game, dealt.secret, dealt.contributions, dealt.sources,
                    dealt.pledges, shown)


class ReceiptWithout(Dealer):
    """The Pi took `seat`'s reveal (and answered it), then fixes a receipt without it and
    deals from that receipt: the record holds together, and looks like a phone that was too
    late. Only the phone that was answered can tell."""

    def __init__(self, seat: int):
        self.seat = seat

    def receipt(self, fair: dict) -> list:
        return [None if s == self.seat else p for s, p in enumerate(super().receipt(fair))]


class Watching(Dealer):
    """An honest dealer that notes, as each deal is made, what the room had stored and was
    showing then: `room` is set once the room is built."""

    def __init__(self):
        self.room = None
        self.seen: list[tuple] = []  # (stored receipt, shown receipt, the deal's receipt)

    def fair(self, box: str, fair: dict) -> Fair:
        dealt = super().fair(box, fair)
        stored = self.room.store.setting("room")["lobby"]["fair"].get("receipt")
        shown = self.room.room_view()["fair"]["pending"]["receipt"]
        self.seen.append((stored, shown, dealt.receipt))
        return dealt


class SwapsAPhonesBytes(Dealer):
    """After every phone has opened its bytes, the deal gives `seat` bytes of the Pi's own,
    marked as that phone's, with a pledge to them. Its record holds together (the page's own
    checks pass it): only the phones that kept what they gave and were shown can tell."""

    def __init__(self, seat: int):
        self.seat = seat

    def fair(self, box: str, fair: dict) -> Fair:
        fair = copy.deepcopy(fair)
        fair["values"][self.seat] = draw_value()
        made = pledge(fair["commitment"], fair["values"][self.seat])
        fair["pledges"][self.seat] = fair["receipt"][self.seat] = made
        return super().fair(box, fair)
