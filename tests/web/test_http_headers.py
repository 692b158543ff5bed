"""Every answer of the phones' server tells the browser to protect the page it shows
(companion/web/headers.py): every route the app has (read from its router, so a route
added later is walked too), the static files, the verify page, the streams and the
refusals the middlewares answer, on a real server on a real port.

What a player would notice without them: a name that slipped through as markup could run a
script in a seat's page and read its code; another site could frame a seat's page and make
a player tap on it; a shared phone's back button or cache could bring a seat's page back.
"""
from __future__ import annotations

import asyncio
import base64
import hashlib
import re
from html.parser import HTMLParser

import aiohttp
import pytest
from multidict import CIMultiDict
from yarl import URL

from companion.web.server import start_server

NAMES = ["Ana", "Ben", "Cai", "Dee"]
WAIT = 10  # seconds: only a guard against a hang, never a measure of speed
# A value for each named part of a route's path. A route with a part not listed here fails
# the walk by name, so whoever adds it says what to ask it.
SAMPLES = {"lang": "en", "name": "style.css"}
# The pages opened with a code in the address's fragment, and the answers that may carry a
# secret: kept by no cache.
CODE_PAGES = {"/s", "/h", "/j"}
PRIVATE = ("/api/hello", "/api/sealed")
# The policy every page but /fair has: the Pi's own scripts and styles and nothing else.
PAGES = {"default-src": ["'none'"], "script-src": ["'self'"], "style-src": ["'self'"],
         "connect-src": ["'self'"], "frame-ancestors": ["'none'"], "object-src": ["'none'"],
         "base-uri": ["'none'"], "form-action": ["'self'"]}


@pytest.fixture
async def app_server(room):
    """(app, base URL): the real server for `room` on a loopback port, and its app."""
    runner = await start_server(room, "127.0.0.1", 0)
    host, port = runner.addresses[0][:2]
    yield runner.app, f"http://{host}:{port}"
    await runner.cleanup()


def directives(header: str) -> dict[str, list[str]]:
    parsed = {}
    for part in header.split(";"):
        name, *sources = part.split()
        assert name not in parsed, f"{name} given twice: {header}"
        parsed[name] = sources
    return parsed


def routes(app) -> list[tuple[str, str]]:
    """(method, path) of every route of the app, with SAMPLES in its named parts."""
    walked = []
    for route in app.router.routes():
        info = route.resource.get_info()
        path = info.get("path")
        if path is None:
            names = re.findall(r"\{(\w+)\}", info["formatter"])
            missing = [n for n in names if n not in SAMPLES]
            assert not missing, f"no sample for {missing} in {info['formatter']}: add one"
            path = info["formatter"].format_map(SAMPLES)
        walked.append((route.method, path))
    return walked


class InlineParts(HTMLParser):
    """The inline scripts a browser would run and the style elements of a page."""

    def __init__(self):
        super().__init__(convert_charrefs=False)
        self.scripts, self.styles, self._in = [], [], None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "style" or (tag == "script" and "src" not in attrs and
                              attrs.get("type") in (None, "", "text/javascript", "module")):
            self._in = (tag, [])

    def handle_data(self, data):
        if self._in:
            self._in[1].append(data)

    def handle_endtag(self, tag):
        if self._in and self._in[0] == tag:
            (self.scripts if tag == "script" else self.styles).append("".join(self._in[1]))
            self._in = None


async def head(base: str, path: str) -> tuple[int, CIMultiDict]:
    """HEAD `path`, read up to the end of the answer's head only: the event streams send
    their messages after a HEAD's head too, which aiohttp's client refuses to read."""
    url = URL(base)
    reader, writer = await asyncio.open_connection(url.host, url.port)
    try:
        writer.write(f"HEAD {path} HTTP/1.1\r\nHost: {url.authority}\r\n"
                     "Connection: close\r\n\r\n".encode())
        lines = (await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), WAIT)).decode()
    finally:
        writer.close()
    status, *fields = lines.rstrip("\r\n").split("\r\n")
    return int(status.split()[1]), CIMultiDict(f.split(": ", 1) for f in fields)


def hashed(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def check(headers, path: str, what: str, body: str | None = None) -> None:
    """The headers every answer to `path` carries; `body` the verify page's HTML as served,
    for /fair's hashes."""
    assert headers.get("X-Content-Type-Options") == "nosniff", what
    assert headers.get("Referrer-Policy") == "no-referrer", what
    csp = headers.get("Content-Security-Policy")
    assert csp, f"{what}: no Content-Security-Policy"
    for loose in ("'unsafe-inline'", "'unsafe-eval'", "*", "http:", "https:", "blob:"):
        assert loose not in csp.split(), (what, csp)
    policy = directives(csp)
    if path == "/fair":
        assert body is not None, "the verify page's HTML is needed to check its hashes"
        parts = InlineParts()
        parts.feed(body)
        assert len(parts.scripts) == 2 and len(parts.styles) == 1, what  # checker, page; style
        expected = dict(PAGES, **{"script-src": [hashed(s) for s in parts.scripts],
                                  "style-src": [hashed(s) for s in parts.styles]})
        assert {k: sorted(policy.get(k, [])) for k in expected} == \
            {k: sorted(v) for k, v in expected.items()}, what
    else:
        assert {k: policy.get(k) for k in PAGES} == PAGES, (what, csp)
    if path in CODE_PAGES or path.startswith(PRIVATE):
        assert headers.get("Cache-Control") == "no-store", what


async def test_every_route_of_the_app_answers_with_the_headers(app_server, room):
    app, base = app_server
    await room.new_game({"names": NAMES})  # /j, /s and the fair record have a game to show
    walked = routes(app)
    # the routes a player's phone and the board page use, at least, are among them
    assert {("GET", p) for p in ("/", "/board", "/s", "/h", "/j", "/fair",
                                 "/api/board/events", "/api/sealed/events")} <= set(walked)
    # a connection each: a stream's goes on after its headers, and must not be reused
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(force_close=True)) as http:
        async with http.get(base + "/fair") as response:
            page = await response.text()
        for method, path in walked:
            if method == "HEAD":
                status, headers = await head(base, path)
                check(headers, path, f"HEAD {path} ({status})", page)
                continue
            body = {} if method == "POST" else None
            async with http.request(method, base + path, json=body) as response:
                # a stream answers its headers and goes on: they are checked as it starts
                check(response.headers, path, f"{method} {path} ({response.status})", page)


async def test_refusals_and_streams_carry_them_too(server, room, set_up_game, new_phone):
    """The answers no handler writes: an unknown path's 404, refusals made by the
    middlewares (another site's POST, a domain name in Host, a wrong method, a body too
    big), a refused stream, and the board's and a seat's streams as they start."""
    table = await set_up_game(NAMES)
    big = b"x" * (64 * 1024)
    asked = [("GET", "/nope", {}, None, 404),
             ("GET", "/static/nope.js", {}, None, 404),
             ("GET", "/api/nope", {}, None, 404),
             ("PUT", "/board", {}, None, 405),
             ("POST", "/api/sealed", {"Origin": "http://evil.example"}, b"{}", 403),
             ("GET", "/api/board", {"Host": "evil.example"}, None, 403),
             ("POST", "/api/sealed", {}, big, 413),
             ("GET", "/api/sealed/events?t=AAAA", {}, None, 400)]
    async with aiohttp.ClientSession() as http:
        for method, path, headers, data, status in asked:
            async with http.request(method, server + path, headers=headers,
                                    data=data) as response:
                assert response.status == status, (path, await response.text())
                check(response.headers, response.url.path, f"{method} {path} ({status})")
        async with http.get(server + "/api/board/events") as response:
            assert response.headers["Content-Type"].startswith("text/event-stream")
            check(response.headers, "/api/board/events", "the board's stream")
    phone, _ = table.seats[0]
    stream = await phone.open_stream(table.seat_url(0, "/events"))
    try:
        check(stream.response.headers, "/api/sealed/events", "a seat's sealed stream")
    finally:
        await stream.close()
    answer = await phone.get(table.seat_url(0))  # a sealed answer: its view
    assert answer.sealed and answer.status == 200
    check(answer.headers, "/api/sealed", "a sealed answer")
