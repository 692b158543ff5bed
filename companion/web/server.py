"""The phones' web server: seat pages, the host's pages and the public board page, with a JSON
API and Server-Sent Events. The table host (companion/core/host.py) runs it inside its asyncio
loop (AppRunner + TCPSite, never web.run_app); it only talks to the Room.

What a seat's, the host's or the table code's page says and is told is sealed
(companion/web/sessions.py): the page says hello with its code's id, then every request is one
sealed POST /api/sealed naming an op (seat_ops.py, host_ops.py), and its stream is one sealed
GET /api/sealed/events. Nothing on the Wi-Fi names a code, a phone, an op or an answer's
status. The pages themselves (/s, /h, /j) are the same for every code: the code is in the
address's fragment, which the browser never sends. Only public things travel plain: the
board, its stream, the new-game form's choices, the words, the fair-play records.

A phone is named by a secret it keeps and sends only sealed (sealing.phone_id); a seat or the
host role belongs to the first phone that claims it. Each stream sends a whole view every time,
so a phone that slept or lost Wi-Fi is up to date with its first message after reconnecting.
"""
from __future__ import annotations

import asyncio
import json
from contextlib import nullcontext

from aiohttp import web

from ..darkmoon.data import (CHARACTERS, EVENTS, FACES, FATIGUE_TOKENS, FINAL_EVENTS,
                             COMPANY_MAN_MODULE, OUTPOST_TOKENS, SHADOW_CORPORATION,
                             THREATS_MODULE, VARIANTS)
from ..core.joining import table_token
from ..core.pacing import PhonesFirst
from ..lang import LANGS, catalogue
from ..core.room import PUBLIC, BadRequest, Room, RoomError, UnknownToken
from . import guard, headers
from .files import Files
from .host_ops import HOST_OPS
from .payloads import Payloads, board_payload
from .requests import (MAX_BODY, PACING_KEY, PAYLOADS_KEY, ROOM_KEY, STATIC, Call, UnknownOp,
                       body_of, checked_object, error_response, holds_a_place, lang_of,
                       read_limited, refusal, refusals)
from .saving import SAVING_KEY, Saving
from .seat_ops import SEAT_OPS, TABLE_OPS
from .sealing import code_id, phone_id
from .ratelimit import PerAddress, TooManyHellos
from .sessions import SESSIONS_KEY, Session, Sessions
from .streams import STREAMS_KEY, Streams, close_streams, stream

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


# --- fair dealing: the records that may be revealed, and the page that checks them ---

async def fair_record(request: web.Request) -> web.Response:
    """?game=N: that game's record; without it, the room's game. Refused for the game in
    play (its secret holds every future die)."""
    game = request.query.get("game")
    if game is not None:
        if not game.isascii() or not game.isdigit() or len(game) > 18:
            raise BadRequest("game must be a game's number")
        game = int(game)
    record = await request.app[ROOM_KEY].fair_record(game)
    return web.json_response(record, headers={"Cache-Control": "no-store"})


async def verify_page(request: web.Request) -> web.Response:
    """The verify page with its scripts (the checker the phones share, then the page's own)
    and words inlined: one file, so a saved copy checks a saved record with no Pi and no
    internet."""
    room = request.app[ROOM_KEY]
    lang = lang_of(request, room)
    words = {k: v for k, v in catalogue(lang).items() if k.startswith("phone.verify.")}
    text = json.dumps(words, ensure_ascii=False).replace("</", "<\\/")
    html = (STATIC / "verify.html").read_text(encoding="utf-8")
    html = html.replace('<html lang="en">', f'<html lang="{lang}">').replace(
        "<!--TEXT-->", f'<script type="application/json" id="verify-text">{text}</script>')
    for name in ("fair-check.js", "verify.js"):  # the scripts its policy allows by their hash
        html = html.replace(f'<script src="{name}"></script>',
                            f"<script>{headers.inlined_script(STATIC, name)}</script>")
    return web.Response(text=html, content_type="text/html")


# --- sealed: the traffic of a seat's, the host's and the table code's pages ---

HELLOS_KEY = web.AppKey("hellos", PerAddress)

OPS = {"seat": SEAT_OPS, "host": HOST_OPS, "table": TABLE_OPS}


def live_tokens(room: Room) -> dict[str, str]:
    """Every code a phone may open now, with its kind: each seat's (a bot's too: the host may
    hand it over), the host's, and the table's."""
    kinds = {room.host_token: "host"}
    if room.lobby:
        seats = [seat["token"] for seat in room.lobby["seats"]]
        kinds.update(dict.fromkeys(seats, "seat"))
        table = table_token(seats)
        if table:
            kinds[table] = "table"
    return kinds


def live_codes(room: Room) -> tuple[dict[str, tuple[str, str]], dict[str, str]]:
    """The live codes by their ids: (token, kind); and the seat codes re-binds and hand-overs
    retired, by their ids, whose old phone is told its seat was given away."""
    retired = {code_id(token): token for token in (room.lobby or {}).get("retired", ())}
    return ({code_id(token): (token, kind) for token, kind in live_tokens(room).items()},
            retired)


def retiring(room: Room, sessions: Sessions):
    """A room listener: when a code stops working (a re-bind, a hand-over, a new game, a new
    host code) its sessions' keys go at once, before the old phone's next request."""
    def heard(_audience, _payload) -> None:
        if len(sessions):
            sessions.prune(live_tokens(room))
    return heard


async def fresh(request: web.Request) -> web.Response:
    """One of the Pi's fresh values, which the phone's next hello carries (sessions.Fresh)."""
    return web.json_response({"fresh": request.app[SESSIONS_KEY].fresh.issue()})


async def hello(request: web.Request) -> web.Response:
    """A phone opens a session for the code in its page's address (sessions.py), at most so
    often from one address (ratelimit.py)."""
    try:
        request.app[HELLOS_KEY].take(request.remote)
    except TooManyHellos as error:
        return error_response(error.code, error.message, error.status,
                              headers={"Retry-After": str(error.retry_after)})
    body = await body_of(request)
    codes, retired = live_codes(request.app[ROOM_KEY])
    return web.json_response(request.app[SESSIONS_KEY].hello(codes, retired, body))


def call_of(request: web.Request, session: Session, message: dict) -> Call:
    """The opened request as its op sees it. A phone that holds a place proves its
    connection is the table's (guard.py), as only its own sealed requests can."""
    app = request.app
    phone = phone_id(message["phone"])
    if holds_a_place(app[ROOM_KEY], phone):
        guard.prove(request, phone)
    body = checked_object(message["body"], app[guard.GUARD_KEY].limits)
    return Call(app, request, session.token, session.kind, phone, body, message["lang"])


def retire_if_dead(request: web.Request, error: Exception, session: Session) -> None:
    """A code refused as unknown (re-bound, handed over, a new game or host code): its
    sessions go, so the phone that held it can neither read nor send any more."""
    room = request.app[ROOM_KEY]
    if isinstance(error, UnknownToken) and session.token not in live_tokens(room):
        request.app[SESSIONS_KEY].retire(session.token)


def sealed_answer(sessions: Sessions, session: Session, counter: int, status: int,
                  body) -> web.Response:
    """HTTP 200 whatever the op's status: that is only inside the seal. `body` as JSON bytes
    (a seat's view, padded already) goes in as it is."""
    return web.Response(body=sessions.seal_response(session, counter, status, body),
                        content_type="application/octet-stream")


def _refused(error: Exception, where: str) -> tuple[int, dict]:
    status, code, message = refusal(error, where)
    return status, {"error": {"code": code, "message": message}}


async def sealed_request(request: web.Request) -> web.Response:
    """One sealed request: refused plain only before it is opened (unknown_session, replayed,
    bad_seal: sessions.py); from then on every answer, a refusal too, is sealed."""
    sessions = request.app[SESSIONS_KEY]
    raw = await read_limited(request)
    try:
        session, counter, message = sessions.open_request(raw)
    except BadRequest as error:  # opened, but not a request: said inside the seal
        if getattr(error, "session", None) is None:
            raise
        return sealed_answer(sessions, error.session, error.counter, *_refused(error, ""))
    op = OPS[session.kind].get(message["op"])
    try:
        call = call_of(request, session, message)
        if op is None:
            raise UnknownOp(f"a {session.kind} code has no op {message['op'][:32]!r}")
        status, body = 200, await op(call)
    except (asyncio.CancelledError, ConnectionError):
        raise
    except Exception as error:
        status, body = _refused(error, f"the {session.kind} op {message['op'][:32]!r}")
        retire_if_dead(request, error, session)
    return sealed_answer(sessions, session, counter, status, body)


async def sealed_events(request: web.Request) -> web.StreamResponse:
    """A seat's or the host's stream, sealed message by message under the ticket's counter.
    A refusal once the ticket is opened (not this phone's seat, a code with no stream) is the
    stream's one sealed message; a phone that holds no place is capped as a board viewer."""
    app = request.app
    room, sessions, payloads = app[ROOM_KEY], app[SESSIONS_KEY], app[PAYLOADS_KEY]
    placed, session, n = False, None, 0
    try:
        try:
            session, n, message = sessions.open_ticket(request.query.get("t", ""))
        except BadRequest as error:  # opened, but not a ticket: said inside the seal
            session, n = getattr(error, "session", None), getattr(error, "counter", 0)
            raise
        call = call_of(request, session, message)
        placed = holds_a_place(room, call.phone)
        if message["op"] != "events" or session.kind not in ("seat", "host"):
            raise UnknownOp(f"a {session.kind} code has no stream")
        token, phone = call.token, call.phone
        if session.kind == "seat":
            seat = room.check_seat(token, phone)
            audiences, check = (seat, "room"), lambda: room.check_seat(token, phone)
            build = lambda: payloads.seat(seat, call.lang)  # noqa: E731
        else:
            room.check_host(token, phone)
            audiences, check = (PUBLIC, "room"), lambda: room.check_host(token, phone)
            build = lambda: payloads.host(call.lang)  # noqa: E731
    except RoomError as error:
        if session is None:
            raise  # not opened: a plain refusal, nothing sealed
        retire_if_dead(request, error, session)
        audiences, check, build = (), _raiser(error), lambda: b"null"

    def allowed() -> None:
        try:
            check()
        except UnknownToken as error:
            retire_if_dead(request, error, session)
            raise

    with nullcontext() if placed else app[guard.GUARD_KEY].public_stream(request.remote):
        return await stream(request, room, audiences, build, allowed,
                            seal=sessions.stream_sealer(session, n))


def _raiser(error: Exception):
    def check() -> None:
        raise error
    return check


# --- the public board ---

async def board_get(request: web.Request) -> web.Response:
    room = request.app[ROOM_KEY]
    return web.json_response(board_payload(room, lang_of(request, room)))


async def board_events(request: web.Request) -> web.StreamResponse:
    room, payloads = request.app[ROOM_KEY], request.app[PAYLOADS_KEY]
    with request.app[guard.GUARD_KEY].public_stream(request.remote):  # no token: capped
        return await stream(request, room, (PUBLIC, "room"),
                            lambda: payloads.board(lang_of(request, room)))


def _stop_listening(stop):
    async def cleanup(_app: web.Application) -> None:
        stop()
    return cleanup


def make_app(room: Room, limits: guard.Limits | None = None,
             pacing: PhonesFirst | None = None) -> web.Application:
    """`pacing`: the table host's, which a kiosk asks when to redraw; without a host (the
    web tests) the streams report to one nobody asks."""
    app = web.Application(middlewares=[refusals, guard.check_origin], client_max_size=MAX_BODY)
    guard.install(app, limits or guard.Limits())
    app.on_response_prepare.append(headers.protect(STATIC))  # every answer's headers
    app[SAVING_KEY] = Saving(app[guard.GUARD_KEY].limits.write_seconds)
    files = Files(STATIC)
    app[ROOM_KEY] = room
    app[PAYLOADS_KEY] = Payloads(room)
    app[PACING_KEY] = pacing if pacing is not None else PhonesFirst(room)
    app[STREAMS_KEY] = Streams()
    app[SESSIONS_KEY] = Sessions()
    limits = app[guard.GUARD_KEY].limits
    app[HELLOS_KEY] = PerAddress(limits.hellos_per_second, limits.hello_burst)
    app.on_cleanup.append(_stop_listening(room.listen("room", retiring(room, app[SESSIONS_KEY]))))
    app.on_shutdown.append(close_streams)
    app.router.add_get("/", files.page("index.html"))
    app.router.add_get("/board", files.page("board.html"))
    # one page for every code of a kind: the code is in the fragment, never sent
    app.router.add_get("/h", files.page("host.html"))
    app.router.add_get("/s", files.page("seat.html"))
    app.router.add_get("/j", files.page("join.html"))
    app.router.add_get("/lang/{lang}.json", lang_file)
    app.router.add_get("/api/choices", choices)
    app.router.add_get("/api/board", board_get)
    app.router.add_get("/api/board/events", board_events)
    app.router.add_get("/api/hello", fresh)
    app.router.add_post("/api/hello", hello)
    app.router.add_post("/api/sealed", sealed_request)
    app.router.add_get("/api/sealed/events", sealed_events)
    app.router.add_get("/fair", verify_page)
    app.router.add_get("/api/fair/record", fair_record)
    # every path under /static/, odd ones too: an unknown one is the usual JSON 404
    app.router.add_get("/static/{name:.*}", files.static)
    return app


async def start_server(room: Room, host: str = "0.0.0.0", port: int = 8080,
                       limits: guard.Limits | None = None, *,
                       pacing: PhonesFirst | None = None) -> web.AppRunner:
    """Serve inside the running loop. shutdown_timeout=1: open event streams would otherwise
    hold a shutdown for minutes. The site caps connections per address (guard.GuardedSite).
    The process may open as many files as it is allowed to (started from a shell its soft
    limit is often 1,024), and the caps are cut to fit that many."""
    limits = guard.within_files(limits or guard.Limits(), guard.raise_file_limit())
    app = make_app(room, limits, pacing)
    runner = web.AppRunner(app, shutdown_timeout=1, access_log=None,
                           **guard.runner_settings(limits))
    await runner.setup()
    await guard.GuardedSite(runner, host, port, app[guard.GUARD_KEY]).start()
    return runner
