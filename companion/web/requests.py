"""What every handler of the phones' web server shares: the room and this request's phone
(its cookie), refusals answered as JSON with a stable code, bodies read within their limits,
and changes awaited within seconds even when the store is slow."""
from __future__ import annotations

import asyncio
import json
import logging
import secrets
from pathlib import Path

from aiohttp import web

from ..darkmoon import RulesError
from ..lang import LANGS
from ..core.pacing import PhonesFirst
from ..core.room import BadRequest, Room, RoomError
from . import guard
from .payloads import Payloads
from .saving import SAVING_KEY

STATIC = Path(__file__).parent / "static"
COOKIE = "dm_phone"
MAX_BODY = 16 * 1024  # a command is a few dozen bytes; anything big is not ours
ROOM_KEY = web.AppKey("room", Room)
PAYLOADS_KEY = web.AppKey("payloads", Payloads)
PACING_KEY = web.AppKey("pacing", PhonesFirst)  # the host's: streams report their writes
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
    return room.seat_of_phone(phone) is not None


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


def new_phone(request: web.Request) -> str:
    request[PHONE] = secrets.token_urlsafe(16)  # the middleware sets it as the cookie
    return request[PHONE]
