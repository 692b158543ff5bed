"""What the host's code can do, sealed (companion/web/server.py opens each request and seals
its answer): the new-game form, start, play again, corrections, re-binds and hand-overs, the
host's own seat, the language and the game record. Every change is the room's to check against
the host as it stands when it is acted on."""
from __future__ import annotations

from ..tools.replay import summary
from ..core.room import BadRequest, NotReady, Room
from .payloads import host_payload
from .requests import Call, saved


def host_of(call: Call) -> tuple[str, str]:
    """Who claims to be the host: checked by the room under its lock, so a replaced host
    phone cannot act afterwards."""
    return call.token, call.phone


def host_room(call: Call) -> Room:
    room = call.room
    room.check_host(call.token, call.phone)
    return room


async def host_claim(call: Call) -> dict:
    await saved(call, call.room.claim_host(call.token, call.phone))
    return {"host": True}


async def host_view(call: Call) -> dict:
    room = host_room(call)
    return host_payload(room, call.lang)


async def host_game(call: Call) -> dict:
    body, room = call.body, call.room
    bots = body.get("bots", [])
    if not isinstance(bots, list) or any(isinstance(b, bool) for b in bots):
        raise BadRequest("bots must be a list of seat numbers")
    await saved(call, room.new_game(body.get("setup"), lang=body.get("lang"), bots=bots,
                                    replace=body.get("replace") is True, host=host_of(call)))
    return host_payload(room, call.lang)


def dealt(room: Room, before: int | None) -> dict:
    """What start and play again answer: the new game's state, or (the phones revealing
    their bytes first) no state yet and `revealing`."""
    if room.revealing or room.table is None or room.table.game_id == before:
        return {"state_id": None, "revealing": room.revealing}
    return {"state_id": room.table.state_id}


async def host_start(call: Call) -> dict:
    room = call.room
    await saved(call, room.start(host=host_of(call)))
    return dealt(room, None)


async def host_again(call: Call) -> dict:
    room = call.room
    before = room.table and room.table.game_id
    await saved(call, room.play_again(host=host_of(call)))
    return dealt(room, before)


async def host_correct(call: Call) -> dict:
    body = call.body
    command = {"decision": "correct", "option": body.get("option")}
    if "state_id" in body:
        command["state_id"] = body["state_id"]
    return await saved(call, call.room.submit("host", command, host=host_of(call)))


async def host_my_seat(call: Call) -> dict:
    """The seat the host's phone plays (its number and code), or nulls: the host's page opens
    that seat's page, where the host controls are too."""
    seat, token = call.room.host_seat(call.phone, host=host_of(call))
    return {"seat": seat, "token": token}


async def host_sit(call: Call) -> dict:
    """The host's phone takes a seat to play it too, as if it had scanned the seat's code."""
    body = call.body
    seat, token = await saved(call, call.room.host_sits(
        body.get("seat"), call.phone, body.get("commitment"), body.get("pledge"),
        host=host_of(call)))
    return {"seat": seat, "token": token}


async def host_rebind(call: Call) -> dict:
    """A lost phone's seat: a new code for it on the kiosk, announced everywhere."""
    return await _new_code(call, call.room.rebind)


async def host_hand_over(call: Call) -> dict:
    """A bot's seat to a person: a new code for it on the kiosk, announced everywhere."""
    return await _new_code(call, call.room.hand_over)


async def _new_code(call: Call, change) -> dict:
    seat = call.body.get("seat")
    if not isinstance(seat, int) or isinstance(seat, bool):
        raise BadRequest("seat must be a seat number")
    await saved(call, change(seat, host=host_of(call)))
    return {"seat": seat}


async def host_lang(call: Call) -> dict:
    room = call.room
    await saved(call, room.set_lang(call.body.get("lang"), host=host_of(call)))
    return {"lang": room.lang}


async def host_record(call: Call) -> dict:
    """The whole game in words (replay's summary: every roll, card and vote), as a file the
    host's phone saves. Only once the game is over: until then it holds every secret."""
    room = host_room(call)
    if room.phase != "over":
        raise NotReady("the game record holds every secret: it can be saved once the game "
                       "is over")
    text = summary(room.table.game_id, room.public_view(), call.lang)
    return {"name": f"darkmoon-game-{room.table.game_id}.txt", "text": text + "\n"}


HOST_OPS = {"claim": host_claim, "view": host_view, "game": host_game, "start": host_start,
            "again": host_again, "correct": host_correct, "my_seat": host_my_seat,
            "sit": host_sit, "rebind": host_rebind, "handover": host_hand_over,
            "lang": host_lang, "record": host_record}
