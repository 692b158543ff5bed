"""The phones' web server: seat pages, the host's pages and the public board page, with a JSON
API and Server-Sent Events. It runs inside the kiosk's asyncio loop (AppRunner + TCPSite,
never web.run_app) and only talks to the Room.

Phones are told apart by a random cookie (`dm_phone`); a seat or the host role belongs to the
first phone that claims it. Each stream sends a whole view every time, so a phone that slept
or lost Wi-Fi is up to date with its first message after reconnecting.
"""
from __future__ import annotations

import asyncio
import json
import logging
import secrets
from pathlib import Path

from aiohttp import web

from ..darkmoon import RulesError
from ..darkmoon.data import (CHARACTERS, EVENTS, FACES, FATIGUE_TOKENS, FINAL_EVENTS,
                             COMPANY_MAN_MODULE, OUTPOST_TOKENS, SHADOW_CORPORATION,
                             THREATS_MODULE, VARIANTS)
from ..joining import table_seats
from ..lang import LANGS, catalogue
from ..replay import summary
from ..room import PUBLIC, BadRequest, NotReady, Room, RoomError
from . import guard
from .files import Files
from .payloads import Payloads, board_payload, host_payload
from .saving import SAVING_KEY, Saving
from .streams import STREAMS_KEY, Streams, close_streams, stream

STATIC = Path(__file__).parent / "static"
COOKIE = "dm_phone"
MAX_BODY = 16 * 1024  # a command is a few dozen bytes; anything big is not ours
ROOM_KEY = web.AppKey("room", Room)
PAYLOADS_KEY = web.AppKey("payloads", Payloads)
PHONE = web.RequestKey("phone", str)  # this request's phone (its cookie), or None
# Refusals aiohttp itself raises (no route, wrong method, body too big), with stable codes.
HTTP_CODES = {404: "not_found", 405: "method_not_allowed", 413: "too_large"}
log = logging.getLogger(__name__)


def error_response(code: str, message: str, status: int) -> web.Response:
    return web.json_response({"error": {"code": code, "message": message}}, status=status)


@web.middleware
async def refusals(request: web.Request, handler):
    """Every refusal is JSON with a stable code; a new phone gets its cookie."""
    phone = request.cookies.get(COOKIE)
    known = phone if phone and len(phone) <= 64 else None
    request[PHONE] = known
    if known is not None and holds_a_place(request.app[ROOM_KEY], known):
        guard.prove(request, known)  # this connection is the table's: no stranger can take it
    try:
        response = await handler(request)
    except RoomError as error:
        response = error_response(error.code, error.message, error.status)
    except RulesError as error:
        status = 400 if error.code in ("malformed_command", "bad_setup") else 409
        response = error_response(error.code, error.message, status)
    except web.HTTPRequestEntityTooLarge:
        response = error_response("too_large", f"bodies are at most {MAX_BODY} bytes", 413)
    except web.HTTPException as error:
        if error.status < 400:
            raise
        code = HTTP_CODES.get(error.status, "http_error")
        response = error_response(code, error.reason.lower(), error.status)
    except (asyncio.CancelledError, ConnectionError):
        raise
    except Exception:  # a bug of ours: say so in JSON, keep the details in the log
        log.exception("%s %s failed", request.method, request.path)
        response = error_response("internal_error", "something went wrong on the Pi", 500)
    if known is None and not response.prepared:
        request[PHONE] = request[PHONE] or secrets.token_urlsafe(16)
        response.set_cookie(COOKIE, request[PHONE], max_age=60 * 60 * 24 * 365,
                            httponly=True, samesite="Strict")
    return response


def holds_a_place(room: Room, phone: str) -> bool:
    """Whether `phone` (a cookie) holds a seat or the host role now."""
    if phone == room.host_phone:
        return True
    return room.lobby is not None and any(s["phone"] == phone for s in room.lobby["seats"])


async def saved(request: web.Request, change):
    """Await a room `change` for the request's seat or host code, answered within seconds
    even when the store is slow (companion/web/saving.py: `503 store_slow`)."""
    return await request.app[SAVING_KEY].within(request.match_info["token"], change)


async def body_of(request: web.Request) -> dict:
    if request.content_length is not None and request.content_length > MAX_BODY:
        raise web.HTTPRequestEntityTooLarge(max_size=MAX_BODY,
                                            actual_size=request.content_length)
    raw = await guard.read_body(request)  # client_max_size stops a body without a length
    try:
        body = json.loads(raw or b"{}")
    except (ValueError, UnicodeDecodeError, RecursionError):  # deep nesting: not a command
        raise BadRequest("the body is not JSON") from None
    if not isinstance(body, dict):
        raise BadRequest("the body must be a JSON object")
    guard.check_depth(body, request.app[guard.GUARD_KEY].limits.max_depth)
    return body


def lang_of(request: web.Request, room: Room) -> str:
    lang = request.query.get("lang", room.lang)
    return lang if lang in LANGS else room.lang


# --- pages ---

async def lang_file(request: web.Request) -> web.Response:
    lang = request.match_info["lang"]
    if lang not in LANGS:
        raise web.HTTPNotFound()
    return web.json_response(catalogue(lang))


def base(table: dict) -> list[str]:
    return [k for k, v in table.items() if not v.expansion]


async def choices(request: web.Request) -> web.Response:
    """What the host's new-game form offers (public facts of the game)."""
    # The base game's cards, and apart those the Shadow Corporation expansion adds: the
    # form offers them once the host ticks the expansion.
    expansion = {"id": SHADOW_CORPORATION, "modules": [THREATS_MODULE, COMPANY_MAN_MODULE],
                 "characters": [k for k in CHARACTERS if k not in base(CHARACTERS)],
                 "final_events": [k for k in FINAL_EVENTS if k not in base(FINAL_EVENTS)]}
    return web.json_response({"characters": base(CHARACTERS), "expansion": expansion,
                              "final_events": base(FINAL_EVENTS),
                              "variants": list(VARIANTS), "langs": list(LANGS),
                              "players": [3, 7], "outpost_tokens": list(OUTPOST_TOKENS),
                              "fatigue_tokens": list(FATIGUE_TOKENS), "events": base(EVENTS),
                              "faces": {colour: list(f) for colour, f in FACES.items()}})


# --- seats ---

async def join_get(request: web.Request) -> web.Response:
    """The table code's page asks which seats there are (in seat order), and the tokens of
    the free ones: what the kiosk's screen shows anyone at the table."""
    room = request.app[ROOM_KEY]
    return web.json_response({"seats": table_seats(room.kiosk_view(),
                                                   request.match_info["token"])})


async def seat_claim(request: web.Request) -> web.Response:
    room = request.app[ROOM_KEY]
    body = await body_of(request)  # {"contribution": hex}: the phone's part of the deal
    seat = await saved(request, room.claim_seat(
        request.match_info["token"], request[PHONE] or _new_phone(request),
        body.get("contribution")))
    return web.json_response({"seat": seat})


async def seat_leave(request: web.Request) -> web.Response:
    """The seat's phone gives the seat up before the game starts (a wrong seat tapped): the
    seat is free again under its same code. The answer names the table code, whose page the
    phone goes back to, to tap its own seat: what the kiosk's screen shows anyone at the
    table."""
    room = request.app[ROOM_KEY]
    await body_of(request)  # authorised once the whole request is here
    seat = await saved(request, room.leave_seat(request.match_info["token"], request[PHONE]))
    return web.json_response({"seat": seat, "table": room.kiosk_view()["table_token"]})


async def seat_host(request: web.Request) -> web.Response:
    """The host's code for the seat page of the phone that also hosts (its host controls are
    on that page); null for any other seat's phone."""
    room = request.app[ROOM_KEY]
    return web.json_response({"host": room.host_of_seat(request.match_info["token"],
                                                        request[PHONE])})


async def seat_contribute(request: web.Request) -> web.Response:
    room = request.app[ROOM_KEY]
    body = await body_of(request)
    await saved(request, room.contribute(request.match_info["token"], request[PHONE],
                                         body.get("contribution")))
    return web.json_response({"contributed": True})


# --- fair dealing: the record at game over, and the page that checks it ---

async def fair_record(request: web.Request) -> web.Response:
    record = await request.app[ROOM_KEY].fair_record()  # refused until the game is over
    return web.json_response(record, headers={"Cache-Control": "no-store"})


async def verify_page(request: web.Request) -> web.Response:
    """The verify page with its script and words inlined: one file, so a saved copy checks
    a saved record with no Pi and no internet."""
    room = request.app[ROOM_KEY]
    lang = lang_of(request, room)
    words = {k: v for k, v in catalogue(lang).items() if k.startswith("phone.verify.")}
    text = json.dumps(words, ensure_ascii=False).replace("</", "<\\/")
    script = (STATIC / "verify.js").read_text(encoding="utf-8").replace("</script", "<\\/script")
    html = (STATIC / "verify.html").read_text(encoding="utf-8")
    html = html.replace('<html lang="en">', f'<html lang="{lang}">').replace(
        "<!--TEXT-->", f'<script type="application/json" id="verify-text">{text}</script>').replace(
        '<script src="verify.js"></script>', f"<script>\n{script}</script>")
    return web.Response(text=html, content_type="text/html")


def _new_phone(request: web.Request) -> str:
    request[PHONE] = secrets.token_urlsafe(16)  # the middleware sets it as the cookie
    return request[PHONE]


async def seat_get(request: web.Request) -> web.Response:
    room = request.app[ROOM_KEY]
    seat = room.check_seat(request.match_info["token"], request[PHONE])
    # The stream's very bytes, padded as they are: a GET must not tell by its length what a
    # stream message hides.
    body = request.app[PAYLOADS_KEY].seat(seat, lang_of(request, room))
    return web.Response(body=body, content_type="application/json")


async def seat_command(request: web.Request) -> web.Response:
    room = request.app[ROOM_KEY]
    # Authorised only once the whole body is here, against the claim as it stands then.
    body = await body_of(request)
    return web.json_response(await saved(request, room.seat_submit(
        request.match_info["token"], request[PHONE], body)))


async def seat_events(request: web.Request) -> web.StreamResponse:
    room = request.app[ROOM_KEY]
    seat = room.check_seat(request.match_info["token"], request[PHONE])
    token, phone = request.match_info["token"], request[PHONE]
    payloads = request.app[PAYLOADS_KEY]
    return await stream(request, room, (seat, "room"),
                        lambda: payloads.seat(seat, lang_of(request, room)),
                        lambda: room.check_seat(token, phone))


# --- host ---

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
                                         request[PHONE] or _new_phone(request)))
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


async def host_start(request: web.Request) -> web.Response:
    room = request.app[ROOM_KEY]
    await saved(request, room.start(host=host_of(request)))
    return web.json_response({"state_id": room.table.state_id})


async def host_again(request: web.Request) -> web.Response:
    room = request.app[ROOM_KEY]
    await saved(request, room.play_again(host=host_of(request)))
    return web.json_response({"state_id": room.table.state_id})


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
        body.get("seat"), request[PHONE], body.get("contribution"), host=host_of(request)))
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


# --- the public board ---

async def board_get(request: web.Request) -> web.Response:
    room = request.app[ROOM_KEY]
    return web.json_response(board_payload(room, lang_of(request, room)))


async def board_events(request: web.Request) -> web.StreamResponse:
    room, payloads = request.app[ROOM_KEY], request.app[PAYLOADS_KEY]
    with request.app[guard.GUARD_KEY].public_stream(request.remote):  # no token: capped
        return await stream(request, room, (PUBLIC, "room"),
                            lambda: payloads.board(lang_of(request, room)))


def make_app(room: Room, limits: guard.Limits | None = None) -> web.Application:
    app = web.Application(middlewares=[refusals, guard.check_origin], client_max_size=MAX_BODY)
    guard.install(app, limits or guard.Limits())
    app[SAVING_KEY] = Saving(app[guard.GUARD_KEY].limits.write_seconds)
    files = Files(STATIC)
    app[ROOM_KEY] = room
    app[PAYLOADS_KEY] = Payloads(room)
    app[STREAMS_KEY] = Streams()
    app.on_shutdown.append(close_streams)
    app.router.add_get("/", files.page("index.html"))
    app.router.add_get("/board", files.page("board.html"))
    app.router.add_get("/h/{token}", files.page("host.html"))
    app.router.add_get("/s/{token}", files.page("seat.html"))
    app.router.add_get("/j/{token}", files.page("join.html"))
    app.router.add_get("/lang/{lang}.json", lang_file)
    app.router.add_get("/api/choices", choices)
    app.router.add_get("/api/board", board_get)
    app.router.add_get("/api/board/events", board_events)
    app.router.add_get("/api/join/{token}", join_get)
    app.router.add_post("/api/seat/{token}/claim", seat_claim)
    app.router.add_post("/api/seat/{token}/contribute", seat_contribute)
    app.router.add_post("/api/seat/{token}/leave", seat_leave)
    app.router.add_get("/api/seat/{token}/host", seat_host)
    app.router.add_get("/fair", verify_page)
    app.router.add_get("/api/fair/record", fair_record)
    app.router.add_get("/api/seat/{token}", seat_get)
    app.router.add_post("/api/seat/{token}/command", seat_command)
    app.router.add_get("/api/seat/{token}/events", seat_events)
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
    # every path under /static/, odd ones too: an unknown one is the usual JSON 404
    app.router.add_get("/static/{name:.*}", files.static)
    return app


async def start_server(room: Room, host: str = "0.0.0.0", port: int = 8080,
                       limits: guard.Limits | None = None) -> web.AppRunner:
    """Serve inside the running loop. shutdown_timeout=1: open event streams would otherwise
    hold a shutdown for minutes. The site caps connections per address (guard.GuardedSite).
    The process may open as many files as it is allowed to (started from a shell its soft
    limit is often 1,024), and the caps are cut to fit that many."""
    limits = guard.within_files(limits or guard.Limits(), guard.raise_file_limit())
    app = make_app(room, limits)
    runner = web.AppRunner(app, shutdown_timeout=1, access_log=None,
                           **guard.runner_settings(limits))
    await runner.setup()
    await guard.GuardedSite(runner, host, port, app[guard.GUARD_KEY]).start()
    return runner
