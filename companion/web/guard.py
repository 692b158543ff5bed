"""The phones' web server against a stranger on the table's Wi-Fi: connection caps, slow
requests, public stream quotas, request origins and what a private answer may leave behind.

The threat is one laptop on the same network: a thousand idle sockets (half-sent request heads,
or the public board stream that anyone may open) used to take every file descriptor and lock
every phone out. So:

- each client address may hold `per_address` connections, and the server `total`; a
  connection past either is closed at once, before aiohttp sees a byte of it (`Door`);
- a request head must arrive whole within `head_seconds` of the connection (or of the last
  answer on a kept-alive connection), and a body within `body_seconds` of its head;
- the public board stream, which needs no token, is capped overall and per address
  (`429 too_many_streams`); seat and host streams are not, so a seat phone always gets in
  (from any address that is not the stranger's);
- a JSON body nested deeper than `max_depth` is refused at the boundary (`400 bad_request`):
  900 levels passed `json.loads` and then blew the rules' recursion (a 500 and a traceback);
- a POST from another site's page (an `Origin` that is not the `Host`) and an API request with
  a `Host` that is a domain name (DNS rebinding: evil.example made to resolve to the Pi) are
  refused (`403 cross_origin`, `403 unknown_host`);
- seat and host answers say `Cache-Control: no-store`: a shared phone's browser keeps no copy.
"""
from __future__ import annotations

import asyncio
import ipaddress
import logging
import re
import socket
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass, field

from aiohttp import web

from ..refusals import BadRequest, CrossOrigin, TooManyStreams, TooSlow, UnknownHost

log = logging.getLogger(__name__)
PRIVATE_PATHS = ("/api/seat/", "/api/host/", "/api/join/")
# host[:port] or [v6]:port, as a Host header or an Origin's authority carries it; anything
# else (user info, paths, spaces) is not a host a browser would send.
AUTHORITY = re.compile(r"(?:\[(?P<v6>[0-9a-f:.]+)\]|(?P<name>[a-z0-9._\-]+))"
                       r"(?::(?P<port>\d{1,5}))?")


def own_names() -> frozenset[str]:
    """The names this machine answers to besides IP literals: a phone may use the Pi's
    hostname or its mDNS `.local` name (an iPhone can), and a browser on the Pi localhost."""
    name = socket.gethostname().lower().rstrip(".")
    return frozenset({"localhost", name, f"{name}.local"})


@dataclass(frozen=True)
class Limits:
    """Every cap the server enforces. The defaults suit a real table: seven phones, the host
    and a handful of board viewers may all reach the Pi from one address (a NAT, or the tests
    and benches on 127.0.0.1, twenty board viewers among them). Tests pass smaller ones."""
    per_address: int = 64           # connections held by one client address
    total: int = 2048               # all connections: well under the unit's LimitNOFILE
    public_streams: int = 64        # open board streams, all addresses together
    public_streams_per_address: int = 24
    head_seconds: float = 10.0      # a whole request head; also how long an idle socket stays
    body_seconds: float = 10.0      # a whole request body, from the end of its head
    linger_seconds: float = 2.0     # reading the rest of a body answered early, then close
    max_depth: int = 16             # JSON nesting; a command's option is 2 or 3 levels deep
    host_names: frozenset[str] = field(default_factory=own_names)


class Guard:
    """The counts behind the caps, shared by the connections (`Door`) and the handlers."""

    def __init__(self, limits: Limits):
        self.limits = limits
        self.connections: Counter[str] = Counter()
        self.streams: Counter[str] = Counter()
        self._warned: set[str] = set()  # one log line per flood, not one per socket

    def admit(self, address: str) -> bool:
        limits = self.limits
        if (self.connections[address] >= limits.per_address
                or self.connections.total() >= limits.total):
            if address not in self._warned:
                self._warned.add(address)
                log.warning("refusing connections from %s: %d open (%d in all)", address,
                            self.connections[address], self.connections.total())
            return False
        if not self.connections[address]:
            self._warned.discard(address)  # refused only by the total, now let in
        self.connections[address] += 1
        return True

    def leave(self, address: str) -> None:
        self.connections[address] -= 1
        if self.connections[address] <= 0:
            del self.connections[address]
            self._warned.discard(address)

    @contextmanager
    def public_stream(self, address: str | None):
        """Hold one of the public stream places for the `with` block, or refuse."""
        address = address or "?"
        limits = self.limits
        if self.streams.total() >= limits.public_streams:
            raise TooManyStreams("too many board streams are open; close one and try again")
        if self.streams[address] >= limits.public_streams_per_address:
            raise TooManyStreams("this device has too many board streams open; close one")
        self.streams[address] += 1
        try:
            yield
        finally:
            self.streams[address] -= 1
            if self.streams[address] <= 0:
                del self.streams[address]


GUARD_KEY = web.AppKey("guard", Guard)


# --- connections ---

class Door(asyncio.Protocol):
    """One accepted connection. Past its address's cap (or the total) it is aborted at once,
    which frees its file descriptor before aiohttp makes anything of it; otherwise every call
    goes on to aiohttp's own protocol, and its close gives the place back."""

    def __init__(self, guard: Guard, make_protocol):
        self.guard = guard
        self.make_protocol = make_protocol
        self.inner: asyncio.Protocol | None = None
        self.address = "?"

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        peer = transport.get_extra_info("peername")
        self.address = peer[0] if isinstance(peer, tuple) and peer else "?"
        if not self.guard.admit(self.address):
            transport.abort()
            return
        self.inner = self.make_protocol()
        self.inner.connection_made(transport)

    def connection_lost(self, exc: Exception | None) -> None:
        if self.inner is not None:
            self.guard.leave(self.address)
            inner, self.inner = self.inner, None
            inner.connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self.inner is not None:
            self.inner.data_received(data)

    def eof_received(self) -> bool | None:
        return self.inner.eof_received() if self.inner is not None else None

    def pause_writing(self) -> None:
        if self.inner is not None:
            self.inner.pause_writing()

    def resume_writing(self) -> None:
        if self.inner is not None:
            self.inner.resume_writing()


class GuardedSite(web.BaseSite):
    """A TCP site whose connections pass through a `Door` (aiohttp's TCPSite hands them to its
    server directly and has no per-address cap)."""

    def __init__(self, runner: web.BaseRunner, host: str, port: int, guard: Guard):
        super().__init__(runner)
        self._host, self._port, self._guard = host, port, guard

    @property
    def name(self) -> str:
        return f"http://{self._host}:{self._port}"

    async def start(self) -> None:
        await super().start()
        server = self._runner.server
        guard = self._guard
        self._server = await asyncio.get_running_loop().create_server(
            lambda: Door(guard, server), self._host, self._port, backlog=self._backlog)


def runner_settings(limits: Limits) -> dict:
    """aiohttp's own timers, for web.AppRunner. aiohttp (3.14 here) has no separate head
    timeout, but arms its keep-alive timer when a connection opens and again after each
    answer, and when it fires closes the connection if no whole request head has arrived:
    that is both the head timeout and the idle one, and it leaves a request being handled
    (an event stream) alone. tests/web/test_http_guard.py checks all three."""
    return {"keepalive_timeout": limits.head_seconds, "lingering_time": limits.linger_seconds}


# --- requests ---

async def read_body(request: web.Request) -> bytes:
    """The whole body, or `408 too_slow` if it does not arrive in time (a body trickled a
    byte at a time would hold the connection and its handler forever)."""
    try:
        async with asyncio.timeout(request.app[GUARD_KEY].limits.body_seconds):
            return await request.read()
    except TimeoutError:
        raise TooSlow("the request body did not arrive in time") from None


def check_depth(value, limit: int) -> None:
    """Refuse JSON nested deeper than `limit`, walking it without recursion (a recursive
    walk is just what a deep body breaks)."""
    level = [value]
    for _ in range(limit):
        level = [child for item in level if isinstance(item, (dict, list))
                 for child in (item.values() if isinstance(item, dict) else item)]
        if not level:
            return
    if any(isinstance(item, (dict, list)) for item in level):
        raise BadRequest(f"the body is nested more than {limit} levels deep")


def split_authority(text: str) -> tuple[str, int | None] | None:
    """(host, port) of `host[:port]`, lower-cased and without a trailing dot; None if it is
    not a plain host."""
    match = AUTHORITY.fullmatch(text.strip().lower())
    if not match:
        return None
    port = int(match["port"]) if match["port"] else None
    return (match["v6"] or match["name"].rstrip(".")), port


def is_ip_literal(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def same_origin(origin: str, host_header: str | None, scheme: str = "http") -> bool:
    """Whether a browser's `Origin` is the very site the request was sent to: the same
    scheme, host and port ("null", from a sandboxed frame or a file, never is)."""
    sent_scheme, _, authority = origin.partition("://")
    if sent_scheme != scheme or host_header is None:
        return False
    sent, to = split_authority(authority), split_authority(host_header)
    if sent is None or to is None:
        return False
    default = 443 if scheme == "https" else 80
    return (sent[0], sent[1] or default) == (to[0], to[1] or default)


@web.middleware
async def check_origin(request: web.Request, handler):
    """A browser sends `Origin` with every POST; only the Pi's own pages may change anything.
    Clients that send none (curl, scripts, the tests) are not browsers another site can
    drive. The Host check stops a rebinding page, whose Origin and Host do match."""
    limits = request.app[GUARD_KEY].limits
    host_header = request.headers.get("Host")
    if request.path.startswith("/api/") and host_header is not None:
        parts = split_authority(host_header)
        name = parts[0] if parts else ""
        if not (is_ip_literal(name) or name in limits.host_names
                or name.endswith(".localhost")):
            raise UnknownHost("reach the Pi by its address, as in the QR codes")
    origin = request.headers.get("Origin")
    if request.method not in ("GET", "HEAD", "OPTIONS") and origin is not None \
            and not same_origin(origin, host_header, request.scheme):
        raise CrossOrigin("only the Pi's own pages may send this")
    return await handler(request)


async def no_store(request: web.Request, response: web.StreamResponse) -> None:
    """on_response_prepare: every seat and host answer, refusals included, is kept by no
    cache (a browser's back button or a shared phone must not show a seat's secrets)."""
    if request.path.startswith(PRIVATE_PATHS):
        response.headers["Cache-Control"] = "no-store"


def install(app: web.Application, limits: Limits) -> None:
    """The guard's parts of `app`: its counts, the Cache-Control hook. The origin middleware
    is in the app's middleware list, inside the one that turns refusals into JSON."""
    app[GUARD_KEY] = Guard(limits)
    app.on_response_prepare.append(no_store)
