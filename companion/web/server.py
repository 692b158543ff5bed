"""The phones' web server: seat pages, the host's pages and the public board page, with a JSON
API and Server-Sent Events (the host's routes are in hosting.py, what every handler shares in
requests.py). The table host (companion/core/host.py) runs it inside its asyncio loop
(AppRunner + TCPSite, never web.run_app); it only talks to the Room.

Phones are told apart by a random cookie (`dm_phone`); a seat or the host role belongs to the
first phone that claims it. Each stream sends a whole view every time, so a phone that slept
or lost Wi-Fi is up to date with its first message after reconnecting.
"""
from __future__ import annotations

import json

from aiohttp import web

from ..darkmoon.data import (CHARACTERS, EVENTS, FACES, FATIGUE_TOKENS, FINAL_EVENTS,
                             COMPANY_MAN_MODULE, OUTPOST_TOKENS, SHADOW_CORPORATION,
                             THREATS_MODULE, VARIANTS)
from ..core.joining import table_seats
from ..core.pacing import PhonesFirst
from ..lang import LANGS, catalogue
from ..core.room import PUBLIC, BadRequest, Room
from . import guard
from .files import Files
from .hosting import add_host_routes
from .payloads import Payloads, board_payload
from .requests import (MAX_BODY, PACING_KEY, PAYLOADS_KEY, PHONE, ROOM_KEY, STATIC, body_of,
                       lang_of, new_phone, refusals, saved)
from .saving import SAVING_KEY, Saving
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


# --- seats ---

async def join_get(request: web.Request) -> web.Response:
    """The table code's page asks which seats there are (in seat order), and the tokens of
    the free ones: what the kiosk's screen shows anyone at the table."""
    room = request.app[ROOM_KEY]
    return web.json_response({"seats": table_seats(room.kiosk_view(),
                                                   request.match_info["token"])})


async def seat_claim(request: web.Request) -> web.Response:
    room = request.app[ROOM_KEY]
    # {"commitment": hex, "pledge": hex}: the commitment the phone saw and its pledge to
    # its bytes for that deal (both or neither)
    body = await body_of(request)
    seat = await saved(request, room.claim_seat(
        request.match_info["token"], request[PHONE] or new_phone(request),
        body.get("commitment"), body.get("pledge")))
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


async def seat_pledge(request: web.Request) -> web.Response:
    """The seat's phone pledges its bytes for the pending deal: {"commitment", "pledge"}."""
    room = request.app[ROOM_KEY]
    body = await body_of(request)
    await saved(request, room.pledge(request.match_info["token"], request[PHONE],
                                     body.get("commitment"), body.get("pledge")))
    return web.json_response({"pledged": True})


async def seat_reveal(request: web.Request) -> web.Response:
    """The seat's phone reveals the bytes it pledged, once the reveal is open:
    {"commitment", "value"}. `dealt`: this was the last reveal, and the game is dealt."""
    room = request.app[ROOM_KEY]
    body = await body_of(request)
    dealt = await saved(request, room.reveal(request.match_info["token"], request[PHONE],
                                             body.get("commitment"), body.get("value")))
    return web.json_response({"revealed": True, "dealt": dealt})


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
    for name in ("fair-check.js", "verify.js"):
        script = (STATIC / name).read_text(encoding="utf-8").replace("</script", "<\\/script")
        html = html.replace(f'<script src="{name}"></script>', f"<script>\n{script}</script>")
    return web.Response(text=html, content_type="text/html")


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


# --- the public board ---

async def board_get(request: web.Request) -> web.Response:
    room = request.app[ROOM_KEY]
    return web.json_response(board_payload(room, lang_of(request, room)))


async def board_events(request: web.Request) -> web.StreamResponse:
    room, payloads = request.app[ROOM_KEY], request.app[PAYLOADS_KEY]
    with request.app[guard.GUARD_KEY].public_stream(request.remote):  # no token: capped
        return await stream(request, room, (PUBLIC, "room"),
                            lambda: payloads.board(lang_of(request, room)))


def make_app(room: Room, limits: guard.Limits | None = None,
             pacing: PhonesFirst | None = None) -> web.Application:
    """`pacing`: the table host's, which a kiosk asks when to redraw; without a host (the
    web tests) the streams report to one nobody asks."""
    app = web.Application(middlewares=[refusals, guard.check_origin], client_max_size=MAX_BODY)
    guard.install(app, limits or guard.Limits())
    app[SAVING_KEY] = Saving(app[guard.GUARD_KEY].limits.write_seconds)
    files = Files(STATIC)
    app[ROOM_KEY] = room
    app[PAYLOADS_KEY] = Payloads(room)
    app[PACING_KEY] = pacing if pacing is not None else PhonesFirst(room)
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
    app.router.add_post("/api/seat/{token}/pledge", seat_pledge)
    app.router.add_post("/api/seat/{token}/reveal", seat_reveal)
    app.router.add_post("/api/seat/{token}/leave", seat_leave)
    app.router.add_get("/api/seat/{token}/host", seat_host)
    app.router.add_get("/fair", verify_page)
    app.router.add_get("/api/fair/record", fair_record)
    app.router.add_get("/api/seat/{token}", seat_get)
    app.router.add_post("/api/seat/{token}/command", seat_command)
    app.router.add_get("/api/seat/{token}/events", seat_events)
    add_host_routes(app)
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
