"""What a seat's code and the table code can do, sealed (companion/web/server.py opens each
request and seals its answer): claim the seat, leave it, pledge and reveal for a deal, look,
send a command; and the table code's list of seats. Every change is the room's to check
against the seat as it stands when it is acted on; `call.phone` is the phone that sealed the
request, known only from inside the seal."""
from __future__ import annotations

from ..core.joining import table_seats
from .requests import PAYLOADS_KEY, Call, saved


async def seat_claim(call: Call) -> dict:
    """{"commitment": hex, "pledge": hex}: the commitment the phone saw and its pledge to its
    bytes for that deal (both or neither)."""
    room, body = call.room, call.body
    seat = await saved(call, room.claim_seat(call.token, call.phone, body.get("commitment"),
                                             body.get("pledge")))
    return {"seat": seat}


async def seat_leave(call: Call) -> dict:
    """The seat's phone gives the seat up before the game starts (a wrong seat tapped): the
    seat is free again under its same code. The answer names the table code, whose page the
    phone goes back to, to tap its own seat: what the kiosk's screen shows anyone at the
    table."""
    room = call.room
    seat = await saved(call, room.leave_seat(call.token, call.phone))
    return {"seat": seat, "table": room.kiosk_view()["table_token"]}


async def seat_host(call: Call) -> dict:
    """The host's code for the seat page of the phone that also hosts (its host controls are
    on that page); null for any other seat's phone."""
    return {"host": call.room.host_of_seat(call.token, call.phone)}


async def seat_pledge(call: Call) -> dict:
    """The seat's phone pledges its bytes for the pending deal: {"commitment", "pledge"}."""
    body = call.body
    await saved(call, call.room.pledge(call.token, call.phone, body.get("commitment"),
                                       body.get("pledge")))
    return {"pledged": True}


async def seat_reveal(call: Call) -> dict:
    """The seat's phone reveals the bytes it pledged, once the reveal is open:
    {"commitment", "value"}. `dealt`: this was the last reveal, and the game is dealt."""
    body = call.body
    dealt = await saved(call, call.room.reveal(call.token, call.phone, body.get("commitment"),
                                               body.get("value")))
    return {"revealed": True, "dealt": dealt}


async def seat_view(call: Call) -> bytes:
    """The stream's very bytes, padded as they are: an answer must not tell by its length
    what a stream message hides."""
    seat = call.room.check_seat(call.token, call.phone)
    return call.app[PAYLOADS_KEY].seat(seat, call.lang)


async def seat_command(call: Call) -> dict:
    """Authorised against the claim as it stands when the room acts on it."""
    return await saved(call, call.room.seat_submit(call.token, call.phone, call.body))


async def table_list(call: Call) -> dict:
    """The table code's page asks which seats there are (in seat order), and the codes of
    the free ones: what the kiosk's screen shows anyone at the table."""
    return {"seats": table_seats(call.room.kiosk_view(), call.token)}


SEAT_OPS = {"claim": seat_claim, "leave": seat_leave, "host": seat_host,
            "pledge": seat_pledge, "reveal": seat_reveal, "view": seat_view,
            "command": seat_command}
TABLE_OPS = {"seats": table_list}
