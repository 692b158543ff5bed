"""The host's part of the phones' web server: the new-game form, start, play again,
corrections, re-binds and hand-overs, the host's own seat, the language and the game record.
Every change is the room's to check against the host as it stands when it is acted on."""
from __future__ import annotations

from aiohttp import web

from ..tools.replay import summary
from ..core.room import PUBLIC, BadRequest, NotReady, Room
from .payloads import host_payload
from .requests import PAYLOADS_KEY, PHONE, ROOM_KEY, body_of, lang_of, new_phone, saved
from .streams import stream


def host_of(request: web.Request) -> tuple[str, str | None]:
    """Who claims to be the host: checked by the room under its lock, once the whole request
    is here, so a replaced host phone holding a request open cannot act afterwards."""
    return request.match_info["token"], request[PHONE]


def host_room(request: web.Request) -> Room:
    room = request.app[ROOM_KEY]
    room.check_host(request.match_info["token"], request[PHONE])
    return room


async def host_claim(request: web.Request) -> web.Response:
    room = request.app[ROOM_KEY]
    await saved(request, room.claim_host(request.match_info["token"],
                                         request[PHONE] or new_phone(request)))
    return web.json_response({"host": True})


async def host_get(request: web.Request) -> web.Response:
    room = host_room(request)
    return web.json_response(host_payload(room, lang_of(request, room)))


async def host_game(request: web.Request) -> web.Response:
    body = await body_of(request)
    room = request.app[ROOM_KEY]
    bots = body.get("bots", [])
    if not isinstance(bots, list) or any(isinstance(b, bool) for b in bots):
        raise BadRequest("bots must be a list of seat numbers")
    await saved(request, room.new_game(body.get("setup"), lang=body.get("lang"), bots=bots,
                                       replace=body.get("replace") is True,
                                       host=host_of(request)))
    return web.json_response(host_payload(room, lang_of(request, room)))


def dealt(room: Room, before: int | None) -> dict:
    """What start and play again answer: the new game's state, or (the phones revealing
    their bytes first) no state yet and `revealing`."""
    if room.revealing or room.table is None or room.table.game_id == before:
        return {"state_id": None, "revealing": room.revealing}
    return {"state_id": room.table.state_id}


async def host_start(request: web.Request) -> web.Response:
    room = request.app[ROOM_KEY]
    await saved(request, room.start(host=host_of(request)))
    return web.json_response(dealt(room, None))


async def host_again(request: web.Request) -> web.Response:
    room = request.app[ROOM_KEY]
    before = room.table and room.table.game_id
    await saved(request, room.play_again(host=host_of(request)))
    return web.json_response(dealt(room, before))


async def host_correct(request: web.Request) -> web.Response:
    body = await body_of(request)
    command = {"decision": "correct", "option": body.get("option")}
    if "state_id" in body:
        command["state_id"] = body["state_id"]
    return web.json_response(await saved(request, request.app[ROOM_KEY].submit(
        "host", command, host=host_of(request))))


async def host_seat_get(request: web.Request) -> web.Response:
    """The seat the host's phone plays (its number and code), or nulls: the host's page opens
    that seat's page, where the host controls are too."""
    room = request.app[ROOM_KEY]
    seat, token = room.host_seat(request[PHONE], host=host_of(request))
    return web.json_response({"seat": seat, "token": token})


async def host_sit(request: web.Request) -> web.Response:
    """The host's phone takes a seat to play it too, as if it had scanned the seat's code."""
    body = await body_of(request)
    room = request.app[ROOM_KEY]
    seat, token = await saved(request, room.host_sits(
        body.get("seat"), request[PHONE], body.get("commitment"), body.get("pledge"),
        host=host_of(request)))
    return web.json_response({"seat": seat, "token": token})


async def host_rebind(request: web.Request) -> web.Response:
    """A lost phone's seat: a new code for it on the kiosk, announced everywhere."""
    return await _new_code(request, request.app[ROOM_KEY].rebind)


async def host_hand_over(request: web.Request) -> web.Response:
    """A bot's seat to a person: a new code for it on the kiosk, announced everywhere."""
    return await _new_code(request, request.app[ROOM_KEY].hand_over)


async def _new_code(request: web.Request, change) -> web.Response:
    body = await body_of(request)
    seat = body.get("seat")
    if not isinstance(seat, int) or isinstance(seat, bool):
        raise BadRequest("seat must be a seat number")
    await saved(request, change(seat, host=host_of(request)))
    return web.json_response({"seat": seat})


async def host_lang(request: web.Request) -> web.Response:
    body = await body_of(request)
    room = request.app[ROOM_KEY]
    await saved(request, room.set_lang(body.get("lang"), host=host_of(request)))
    return web.json_response({"lang": room.lang})


async def host_record(request: web.Request) -> web.Response:
    """The whole game in words (replay's summary: every roll, card and vote), as a file the
    host's phone saves. Only once the game is over: until then it holds every secret."""
    room = host_room(request)
    if room.phase != "over":
        raise NotReady("the game record holds every secret: it can be saved once the game "
                       "is over")
    body = summary(room.table.game_id, room.public_view(), lang_of(request, room))
    name = f"darkmoon-game-{room.table.game_id}.txt"
    return web.Response(text=body + "\n", content_type="text/plain", charset="utf-8",
                        headers={"Content-Disposition": f'attachment; filename="{name}"',
                                 "Cache-Control": "no-store"})


async def host_events(request: web.Request) -> web.StreamResponse:
    room = host_room(request)
    token, phone = request.match_info["token"], request[PHONE]
    payloads = request.app[PAYLOADS_KEY]
    return await stream(request, room, (PUBLIC, "room"),
                        lambda: payloads.host(lang_of(request, room)),
                        lambda: room.check_host(token, phone))


def add_host_routes(app: web.Application) -> None:
    app.router.add_post("/api/host/{token}/claim", host_claim)
    app.router.add_get("/api/host/{token}", host_get)
    app.router.add_post("/api/host/{token}/game", host_game)
    app.router.add_post("/api/host/{token}/start", host_start)
    app.router.add_post("/api/host/{token}/again", host_again)
    app.router.add_post("/api/host/{token}/correct", host_correct)
    app.router.add_get("/api/host/{token}/seat", host_seat_get)
    app.router.add_post("/api/host/{token}/seat", host_sit)
    app.router.add_post("/api/host/{token}/rebind", host_rebind)
    app.router.add_post("/api/host/{token}/handover", host_hand_over)
    app.router.add_post("/api/host/{token}/lang", host_lang)
    app.router.add_get("/api/host/{token}/events", host_events)
    app.router.add_get("/api/host/{token}/record", host_record)
