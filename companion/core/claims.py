"""Which phone holds what: the host's code and phone, each seat's code and phone, a lost
phone's seat re-bound to a new code, and the pledge each seat's phone makes for the next deal
(companion/core/fairdeal.py: a hash of its bytes, revealed only once every pledge is public).
One of the room's parts (companion/core/room.py says what a part may use of the room): under
its lock and with its save-then-change record, a claim is on disk before anyone is shown it,
and a refused one changes nothing.

A phone is told apart by its name (`phone`: companion/web/sealing.py's phone_id of a secret
the phone keeps and sends only sealed), a seat or the host by a secret code (`token`)
compared in constant time. One phone holds one seat: it cannot hold two
seats' secrets at once. A refused claim is announced on the kiosk, never unseen. A bot's seat
is no phone's to claim: the host hands it to a person (a new code, announced), as a re-bind.

A mis-tap is not final: before the game starts, a phone may leave the seat it holds. The seat
is free again with the same code (the table code and every other seat's code stay as they
are: nobody else scans again), and the leaving phone can no longer act for it. Once the game
is dealt only the host moves a seat (a re-bind, with a new code). A code retired by a re-bind
or a hand-over is remembered for the game, so the phone that held it is told plainly that
its seat went to another phone, not that its code means nothing.
"""
from __future__ import annotations

import copy
import secrets

from ..codes import new_seat_code
from .fairdeal import checked_pledge, cleared, pledge_accepted, same_commitment, with_pledge
from .refusals import (BadRequest, BotSeat, GameInProgress, NotYourSeat, OneSeatPerPhone,
                       SeatClaimed, UnknownToken)

RETIRED = 32  # codes a game's re-binds and hand-overs retired, remembered to explain a refusal


class SeatGivenAway(UnknownToken):
    """A code the host retired (a re-bind or a hand-over): the seat now has another code, for
    another phone. Still an unknown code, said so that its old phone understands."""
    code = "seat_given_away"


def new_token() -> str:
    return new_seat_code()  # companion/codes.py: typed right from the kiosk, or not at all


def _same(known: str, token) -> bool:
    return isinstance(token, str) and secrets.compare_digest(
        known.encode(), token.encode("utf-8", "replace"))


class Claims:
    """Who holds what. `room`: the room whose part this is."""

    def __init__(self, room):
        self.room = room

    def seat_of(self, token: str) -> int:
        lobby = self.room.lobby
        if lobby and isinstance(token, str):
            for i, seat in enumerate(lobby["seats"]):
                if _same(seat["token"], token):
                    return i
            if any(_same(old, token) for old in lobby.get("retired", ())):
                raise SeatGivenAway("the host gave this seat a new code for another phone; "
                                    "this phone no longer plays it")
        raise UnknownToken("no seat has this code; scan the code on the kiosk again")

    def seat_of_phone(self, phone: str | None) -> int | None:
        """The seat `phone` holds, if any (one phone holds one seat at most)."""
        lobby = self.room.lobby
        if lobby and phone is not None:
            for i, seat in enumerate(lobby["seats"]):
                if seat["phone"] == phone:
                    return i
        return None

    def check_host(self, token: str, phone: str | None) -> None:
        if not _same(self.room.host_token, token):
            raise UnknownToken("this is not the host's code")
        if self.room.host_phone is None:
            raise NotYourSeat("open the host's code first: the first phone to open it hosts")
        if phone != self.room.host_phone:
            raise NotYourSeat("another phone is the host")

    async def claim_host(self, token: str, phone: str) -> None:
        room = self.room
        async with room.lock:
            if not secrets.compare_digest(room.host_token.encode(),
                                          token.encode("utf-8", "replace")):
                raise UnknownToken("this is not the host's code")
            if room.host_phone not in (None, phone):
                room.notice("host_claim_refused")
                raise SeatClaimed("another phone is already the host")
            if room.host_phone is None:
                await room.save("room", host_phone=phone)

    async def new_host_code(self) -> None:
        """Someone at the Pi replaces a lost host phone: a new host code (shown on the kiosk
        until a phone opens it); the old code and the old host phone stop working at once.
        Announced, so it never happens unseen. The game in play goes on."""
        async with self.room.lock:
            await self.room.save(host_token=new_token(), host_phone=None)
            self.room.notice("host_replaced")

    async def claim_seat(self, token: str, phone: str, commitment: str | None = None,
                         pledge: str | None = None) -> int:
        """`commitment` and `pledge`: the commitment the phone saw and its pledge for that
        deal (64 hex digits each), if it sent them."""
        given = checked_pledge(commitment, pledge)
        async with self.room.lock:
            return await self._claim(token, phone, given)

    async def _claim(self, token: str, phone: str, given: tuple[str, str] | None) -> int:
        """A claim, under the lock. A pledge echoing a commitment that is no longer pending
        refuses the claim (nothing changed): the phone looks again. Once the reveal is open a
        claim still takes its seat, and its pledge is not taken (the seat gets its filler)."""
        room = self.room
        seat = self.seat_of(token)
        entry = room.lobby["seats"][seat]
        if entry["bot"]:
            # A bot's seat is never taken by a scan, unseen: the host hands it over.
            room.notice("bot_claim_refused", seat=seat)
            raise BotSeat("a bot plays this seat; the host can hand it to a person "
                          "on the host's page")
        if entry["phone"] not in (None, phone):
            room.notice("seat_claim_refused", seat=seat)
            raise SeatClaimed("this seat is already held by another phone; "
                              "the host can re-bind it")
        fair = room.lobby["fair"]
        promised = None
        if given is not None:
            same_commitment(fair, given[0])
            if not fair["revealing"] and pledge_accepted(fair, seat, given[1]):
                promised = given[1]
        if entry["phone"] is None:
            # One phone, one seat: a phone cannot hold two seats' secrets at once.
            if self.seat_of_phone(phone) is not None:
                room.notice("seat_claim_refused", seat=seat)
                raise OneSeatPerPhone("this phone already holds another seat")
            lobby = copy.deepcopy(room.lobby)
            lobby["seats"][seat].update(phone=phone)
            lobby["fair"] = with_pledge(fair, seat, promised)
            await room.save("room", lobby=lobby)
        elif promised is not None:
            await self._pledged(seat, promised)
        return seat

    async def pledge(self, token: str, phone: str | None, commitment, pledge) -> None:
        """A seat's phone pledges its bytes for the pending deal (once per commitment: the
        first pledge stands, the same one again is fine). How a phone takes part in a game
        dealt by "play again", or pledges after a claim made without one."""
        given = checked_pledge(commitment, pledge)
        if given is None:
            raise BadRequest("send 'commitment' and 'pledge': 64 hex digits each")
        async with self.room.lock:
            seat = self.check_seat(token, phone)
            same_commitment(self.room.lobby["fair"], given[0])
            if pledge_accepted(self.room.lobby["fair"], seat, given[1]):
                await self._pledged(seat, given[1])

    async def _pledged(self, seat: int, promised: str) -> None:
        lobby = self.room.lobby
        await self.room.save("room", lobby={**lobby, "fair": with_pledge(lobby["fair"], seat,
                                                                          promised)})

    async def leave_seat(self, token: str, phone: str | None) -> int:
        """The seat's phone gives it up before the game is dealt (a wrong seat tapped): the
        seat is free again under the same code, and what this phone pledged for the deal goes
        with it (the seat's rightful phone pledges its own). Refused once the host started
        the game (its reveal open) or it is dealt: then only the host moves a seat, with a
        re-bind."""
        room = self.room
        async with room.lock:
            seat = self.check_seat(token, phone)
            if room.table is not None or room.revealing:  # started: the phones reveal
                raise GameInProgress("the game has started: only the host can move a seat "
                                     "now, with a re-bind")
            lobby = copy.deepcopy(room.lobby)
            lobby["seats"][seat]["phone"] = None
            lobby["fair"] = cleared(lobby["fair"], seat)
            await room.save("room", lobby=lobby)
            return seat

    async def host_sits(self, seat, phone: str | None, commitment: str | None = None,
                        pledge: str | None = None, *, host: tuple) -> tuple[int, str]:
        """The host's phone takes a seat to play it too, from the host's page: as if it had
        scanned that seat's code (the same refusals, the same pledge). The seat's number and
        its code."""
        if not isinstance(seat, int) or isinstance(seat, bool):
            raise BadRequest("seat must be a seat number")
        given = checked_pledge(commitment, pledge)
        room = self.room
        async with room.lock:
            room.as_host(host)
            if not room.lobby or not 0 <= seat < len(room.lobby["seats"]):
                raise UnknownToken(f"no seat {seat}")
            token = room.lobby["seats"][seat]["token"]
            return await self._claim(token, phone, given), token

    def host_seat(self, phone: str | None, *, host: tuple) -> tuple[int | None, str | None]:
        """The seat the host's phone plays, and its code, so the host's page can open it."""
        self.room.as_host(host)
        seat = self.seat_of_phone(phone)
        return seat, None if seat is None else self.room.lobby["seats"][seat]["token"]

    def host_of_seat(self, token: str, phone: str | None) -> str | None:
        """The host's code, for the seat page of the phone that hosts (its host controls live
        there); None for any other seat's phone."""
        self.check_seat(token, phone)
        return self.room.host_token if phone == self.room.host_phone else None

    def check_seat(self, token: str, phone: str | None) -> int:
        seat = self.seat_of(token)
        if phone is None or self.room.lobby["seats"][seat]["phone"] != phone:
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
        on disk before the kiosk and the phones are told (`notice`). What the old phone
        pledged for the deal goes with it (fairdeal.cleared): the seat's new phone is
        another's, and a kicked phone's bytes must not stand as the new one's."""
        room = self.room
        async with room.lock:
            room.as_host(host)
            if not room.lobby or not 0 <= seat < len(room.lobby["seats"]):
                raise UnknownToken(f"no seat {seat}")
            if from_bot and not room.lobby["seats"][seat]["bot"]:
                raise BadRequest(f"seat {seat} is not a bot's; a lost phone's seat is re-bound")
            lobby = copy.deepcopy(room.lobby)
            old = lobby["seats"][seat]["token"]
            lobby["retired"] = (lobby.get("retired", []) + [old])[-RETIRED:]
            lobby["seats"][seat].update(token=new_token(), phone=None)
            lobby["fair"] = cleared(lobby["fair"], seat)
            if from_bot:
                lobby["seats"][seat]["bot"] = False
            await room.save(lobby=lobby)
            room.notice(notice, seat=seat)
            if room.table is not None:
                room.tell(seat)  # the old phone's stream ends at its next message
            await room.deals.deal_if_revealed()  # the reveal no longer waits for this seat
