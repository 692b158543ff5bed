"""Which phone holds what: the host's code and phone, each seat's code and phone, a lost
phone's seat re-bound to a new code, and the randomness each seat's phone gives the next deal.
Part of the Room (companion/room.py), under its lock and with its save-then-change commit:
a claim is on disk before anyone is shown it, and a refused one changes nothing.

A phone is told apart by its cookie (`phone`), a seat or the host by a secret
code (`token`) compared in constant time. One phone holds one seat: it cannot hold two
seats' secrets at once. A refused claim is announced on the kiosk, never unseen. A bot's seat
is no phone's to claim: the host hands it to a person (a new code, announced), as a re-bind.
"""
from __future__ import annotations

import copy
import secrets

from .fairdeal import add_contribution, checked_contribution
from .refusals import (BadRequest, BotSeat, NotYourSeat, OneSeatPerPhone, SeatClaimed,
                       UnknownToken)


def new_token() -> str:
    return secrets.token_urlsafe(16)  # 128 random bits, 22 characters: a small QR code


class Claims:
    """The Room's claims (mixed into Room, whose lock, record, notices and listeners they
    use)."""

    def seat_of(self, token: str) -> int:
        if self.lobby and isinstance(token, str):
            for i, seat in enumerate(self.lobby["seats"]):
                if secrets.compare_digest(seat["token"].encode(), token.encode("utf-8", "replace")):
                    return i
        raise UnknownToken("no seat has this code; scan the code on the kiosk again")

    def check_host(self, token: str, phone: str | None) -> None:
        if not secrets.compare_digest(self.host_token.encode(), token.encode("utf-8", "replace")):
            raise UnknownToken("this is not the host's code")
        if self.host_phone is None:
            raise NotYourSeat("open the host's code first: the first phone to open it hosts")
        if phone != self.host_phone:
            raise NotYourSeat("another phone is the host")

    def _as_host(self, host: tuple | None) -> None:
        """A host's request (token, phone) is checked under the lock, against the host as
        it stands when the request is acted on."""
        if host is not None:
            self.check_host(*host)

    async def claim_host(self, token: str, phone: str) -> None:
        async with self._lock:
            if not secrets.compare_digest(self.host_token.encode(),
                                          token.encode("utf-8", "replace")):
                raise UnknownToken("this is not the host's code")
            if self.host_phone not in (None, phone):
                self._notice("host_claim_refused")
                raise SeatClaimed("another phone is already the host")
            if self.host_phone is None:
                await self._commit(self._record(host_phone=phone), "room")

    async def new_host_code(self) -> None:
        """Someone at the Pi replaces a lost host phone: a new host code (shown on the kiosk
        until a phone opens it); the old code and the old host phone stop working at once.
        Announced, so it never happens unseen. The game in play goes on."""
        async with self._lock:
            await self._commit(self._record(host_token=new_token(), host_phone=None))
            self._notice("host_replaced")

    async def claim_seat(self, token: str, phone: str, given: str | None = None) -> int:
        """`given`: the phone's randomness for the deal (64 hex digits), if it sent some."""
        given = checked_contribution(given)
        async with self._lock:
            seat = self.seat_of(token)
            entry = self.lobby["seats"][seat]
            if entry["bot"]:
                # A bot's seat is never taken by a scan, unseen: the host hands it over.
                self._notice("bot_claim_refused", seat=seat)
                raise BotSeat("a bot plays this seat; the host can hand it to a person "
                              "on the host's page")
            if entry["phone"] not in (None, phone):
                self._notice("seat_claim_refused", seat=seat)
                raise SeatClaimed("this seat is already held by another phone; "
                                  "the host can re-bind it")
            if entry["phone"] is None:
                # One phone, one seat: a phone cannot hold two seats' secrets at once.
                if any(s["phone"] == phone for s in self.lobby["seats"]):
                    self._notice("seat_claim_refused", seat=seat)
                    raise OneSeatPerPhone("this phone already holds another seat")
                lobby = copy.deepcopy(self.lobby)
                lobby["seats"][seat].update(phone=phone)
                add_contribution(lobby, seat, given)
                await self._commit(self._record(lobby=lobby), "room")
            elif given is not None and self.lobby["fair"]["contributions"][seat] is None:
                await self._contribute(seat, given)
            return seat

    async def contribute(self, token: str, phone: str | None, given: str) -> None:
        """A seat's phone adds its randomness to the next deal (once per commitment: the
        first one stands). How a phone takes part in a game dealt by "play again"."""
        given = checked_contribution(given)
        if given is None:
            raise BadRequest("send 'contribution': 64 hex digits of the phone's randomness")
        async with self._lock:
            seat = self.check_seat(token, phone)
            if self.lobby["fair"]["contributions"][seat] is None:
                await self._contribute(seat, given)

    async def _contribute(self, seat: int, given: str) -> None:
        lobby = copy.deepcopy(self.lobby)
        add_contribution(lobby, seat, given)
        await self._commit(self._record(lobby=lobby), "room")

    def check_seat(self, token: str, phone: str | None) -> int:
        seat = self.seat_of(token)
        if phone is None or self.lobby["seats"][seat]["phone"] != phone:
            raise NotYourSeat("this seat belongs to another phone")
        return seat

    async def hand_over(self, seat: int, *, host: tuple | None = None) -> None:
        """The host gives a bot's seat to a person: the bot stops playing it and the seat gets
        a new code, shown on the kiosk, for the person's phone to claim. As a re-bind: the
        seat's old code is dead, and it is announced on the kiosk and every phone."""
        await self._new_code(seat, host, "seat_handed_over", from_bot=True)

    async def rebind(self, seat: int, *, host: tuple | None = None) -> None:
        """The host frees a seat whose phone was lost. The seat gets a new code, shown on the
        kiosk: the old code and the old phone are dead for good, so the kicked phone cannot
        claim the seat back. Announced on the kiosk and every phone, never unseen."""
        await self._new_code(seat, host, "seat_rebound", from_bot=False)

    async def _new_code(self, seat: int, host: tuple | None, notice: str,
                        from_bot: bool) -> None:
        """A new code for the seat and no phone on it (from a bot's hands too, `from_bot`),
        on disk before the kiosk and the phones are told (`notice`)."""
        async with self._lock:
            self._as_host(host)
            if not self.lobby or not 0 <= seat < len(self.lobby["seats"]):
                raise UnknownToken(f"no seat {seat}")
            if from_bot and not self.lobby["seats"][seat]["bot"]:
                raise BadRequest(f"seat {seat} is not a bot's; a lost phone's seat is re-bound")
            lobby = copy.deepcopy(self.lobby)
            lobby["seats"][seat].update(token=new_token(), phone=None)
            if from_bot:
                lobby["seats"][seat]["bot"] = False
            await self._commit(self._record(lobby=lobby))
            self._notice(notice, seat=seat)
            if self.table is not None:
                self._tell(seat)  # the old phone's stream ends at its next message
