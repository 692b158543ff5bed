"""What every handler of the phones' web server shares: the room, refusals answered with a
stable code (as plain JSON, or inside the seal of a seat's, host's or table code's traffic),
bodies read within their limits, and changes awaited within seconds even when the store is
slow. A sealed request becomes a `Call`: the code it was sealed under, its phone's name and
its body, all from inside the seal (the routes in companion/web/server.py, the ops in
seat_ops.py and host_ops.py)."""
from __future__ import annotations

import asyncio
import json
import logging
from dataclasses import dataclass
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
MAX_BODY = 16 * 1024  # a command is a few dozen bytes, one block sealed; anything big is not ours
ROOM_KEY = web.AppKey("room", Room)
PAYLOADS_KEY = web.AppKey("payloads", Payloads)
PACING_KEY = web.AppKey("pacing", PhonesFirst)  # the host's: streams report their writes
# Refusals aiohttp itself raises (no route, wrong method, body too big), with stable codes.
HTTP_CODES = {404: "not_found", 405: "method_not_allowed", 413: "too_large"}
log = logging.getLogger(__name__)


def error_response(code: str, message: str, status: int, **options) -> web.Response:
    return web.json_response({"error": {"code": code, "message": message}}, status=status,
                             **options)


def refusal(error: Exception, where: str) -> tuple[int, str, str]:
    """(status, code, message) of a refusal, the same whether it is answered plain or sealed;
    anything that is no refusal is a bug of ours: said as `500 internal_error`, the details
    kept in the log (`where` says what failed)."""
    if isinstance(error, RoomError):
        return error.status, error.code, error.message
    if isinstance(error, RulesError):
        status = 400 if error.code in ("malformed_command", "bad_setup") else 409
        return status, error.code, error.message
    if isinstance(error, web.HTTPRequestEntityTooLarge):
        return 413, "too_large", f"bodies are at most {MAX_BODY} bytes"
    if isinstance(error, web.HTTPException) and error.status >= 400:
        return error.status, HTTP_CODES.get(error.status, "http_error"), error.reason.lower()
    log.error("%s failed", where, exc_info=error)
    return 500, "internal_error", "something went wrong on the Pi"


@web.middleware
async def refusals(request: web.Request, handler):
    """Every plain refusal is JSON with a stable code."""
    try:
        return await handler(request)
    except web.HTTPException as error:
        if error.status < 400:
            raise
        return error_response(*_coded(refusal(error, request.path)))
    except (asyncio.CancelledError, ConnectionError):
        raise
    except Exception as error:
        return error_response(*_coded(refusal(error, f"{request.method} {request.path}")))


def _coded(answer: tuple[int, str, str]) -> tuple[str, str, int]:
    status, code, message = answer
    return code, message, status


class UnknownOp(RoomError):
    """An op the session's code has not: a seat's code cannot start the game."""
    code, status = "unknown_op", 404


def holds_a_place(room: Room, phone: str) -> bool:
    """Whether `phone` (a phone's name) holds a seat or the host role now."""
    if phone == room.host_phone:
        return True
    return room.seat_of_phone(phone) is not None


@dataclass
class Call:
    """One sealed request (or stream opening), as its op sees it: `token` is the code the
    session was opened with (never sent: the phone proved it knows it), `kind` that code's
    ("seat", "host" or "table"), `phone` the room's name for the phone that sealed it
    (sealing.phone_id of its secret), `body` the op's JSON object, `asked` the language the
    phone asked for (None: the room's)."""
    app: web.Application
    request: web.Request
    token: str
    kind: str
    phone: str
    body: dict
    asked: str | None = None

    @property
    def room(self) -> Room:
        return self.app[ROOM_KEY]

    @property
    def lang(self) -> str:
        """Asked again every time: a stream opened without a language follows the room's
        when the host changes it."""
        return pick_lang(self.asked, self.room)


async def saved(call: Call, change):
    """Await a room `change` for the call's seat or host code, answered within seconds
    even when the store is slow (companion/web/saving.py: `503 store_slow`)."""
    return await call.app[SAVING_KEY].within(call.token, change)


async def read_limited(request: web.Request) -> bytes:
    """The whole body, refused past MAX_BODY before a byte of it is read if its length says
    so (client_max_size stops a body without a length)."""
    if request.content_length is not None and request.content_length > MAX_BODY:
        raise web.HTTPRequestEntityTooLarge(max_size=MAX_BODY,
                                            actual_size=request.content_length)
    return await guard.read_body(request)


def json_object(raw: bytes | str | None, limits: guard.Limits) -> dict:
    """A JSON object within the nesting limit, or `400 bad_request`."""
    try:
        body = json.loads(raw or b"{}")
    except (ValueError, UnicodeDecodeError, RecursionError):  # deep nesting: not a command
        raise BadRequest("the body is not JSON") from None
    return checked_object(body, limits)


def checked_object(body, limits: guard.Limits) -> dict:
    if not isinstance(body, dict):
        raise BadRequest("the body must be a JSON object")
    guard.check_depth(body, limits.max_depth)
    return body


async def body_of(request: web.Request) -> dict:
    return json_object(await read_limited(request), request.app[guard.GUARD_KEY].limits)


def pick_lang(asked, room: Room) -> str:
    return asked if isinstance(asked, str) and asked in LANGS else room.lang


def lang_of(request: web.Request, room: Room) -> str:
    return pick_lang(request.query.get("lang"), room)
