"""The phones' web server against a stranger on the table's Wi-Fi: connection caps, slow
requests, public stream quotas, request origins and what a private answer may leave behind.

The threat is one laptop on the same network: a thousand idle sockets (half-sent request heads,
or the public board stream that anyone may open) used to take every file descriptor and lock
every phone out. So:

- a connection is a stranger's until a sealed request on it opens to name a phone that holds
  a seat or the host role (only that phone can seal it: companion/web/sessions.py); then it
  is the table's (`Guard.promote`). The table's
  connections have places of their own (`proven`, `per_phone` for each phone) that no
  stranger can take. At accept time nobody can tell who a connection belongs to, so:
- the strangers' (unproven) connections are capped per address (`per_address`: past it a
  connection is closed at once, before aiohttp sees a byte of it) and in all (`total`).
  When they are all taken, a new connection still gets in: the oldest unproven connection
  of the address holding the most is closed instead. A phone coming back while a flood
  holds every place is one connection from an address that holds few, so it is never the
  one closed; a flood from any number of addresses only takes places from itself;
- every cap stays below the file limit the process really has (`raise_file_limit`,
  `within_files`): a server out of descriptors cannot even accept the connection it would
  close, and stops accepting for a second at a time, phones and all;
- a request head must arrive whole within `head_seconds` of the connection (or of the last
  answer on a kept-alive connection), and a body within `body_seconds` of its head;
- the public board stream, which needs no token, is capped overall and per address
  (`429 too_many_streams`), and so is a sealed stream of a phone that holds no place; a seat's
  or the host's phone's sealed stream is not, so a seat phone always gets in (from any
  address that is not the stranger's);
- a JSON body nested deeper than `max_depth` is refused at the boundary (`400 bad_request`):
  900 levels passed `json.loads` and then blew the rules' recursion (a 500 and a traceback);
- a POST from another site's page (an `Origin` that is not the `Host`) and an API request with
  a `Host` that is a domain name (DNS rebinding: evil.example made to resolve to the Pi) are
  refused (`403 cross_origin`, `403 unknown_host`);
- sealed answers and hellos say `Cache-Control: no-store` (companion/web/headers.py, with
  the other headers every answer carries): a shared phone's browser keeps no copy (sealed,
  it could not read one anyway once its page forgot the session's keys).
"""
from __future__ import annotations

import asyncio
import ipaddress
import itertools
import logging
import re
import resource
import socket
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass, field, replace

from aiohttp import web

from ..core.refusals import BadRequest, CrossOrigin, TooManyStreams, TooSlow, UnknownHost

log = logging.getLogger(__name__)
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
    and benches on 127.0.0.1, twenty board viewers among them). Tests pass smaller ones;
    start_server cuts the connection caps to the files the process may open
    (`within_files`)."""
    per_address: int = 64           # unproven connections held by one client address
    total: int = 2048               # unproven connections in all (fewer if files are few)
    proven: int = 128               # connections of phones holding a seat or the host role
    per_phone: int = 16             # of those, one phone's (a browser opens six or so)
    public_streams: int = 64        # open board streams, all addresses together
    public_streams_per_address: int = 24
    head_seconds: float = 10.0      # a whole request head; also how long an idle socket stays
    body_seconds: float = 10.0      # a whole request body, from the end of its head
    linger_seconds: float = 2.0     # reading the rest of a body answered early, then close
    write_seconds: float = 5.0      # a change not saved by then is answered 503 store_slow
    max_depth: int = 16             # JSON nesting; a command's option is 2 or 3 levels deep
    # Hellos one address may say (ratelimit.py): a burst for a table's phones behind one
    # address (the tests' loopback, a NAT) reloading at once, then a steady few a second.
    hello_burst: int = 40
    hellos_per_second: float = 5.0
    host_names: frozenset[str] = field(default_factory=own_names)


# Descriptors kept for everything but the phones' sockets: the store and its log, the
# kiosk, the buttons, the log file, and the sockets accepted in one go (asyncio accepts up to
# the listen backlog, 128, at a time) that are closed only on the loop's next turn.
FILES_KEPT = 256


def raise_file_limit() -> int:
    """Raise this process's soft limit on open files to its hard limit (started from a shell
    it is often 1,024 while the hard limit is far higher) and return the limit it has now."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return 1 << 20
    wanted = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 16)
    if soft < wanted:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
            soft = wanted
        except (ValueError, OSError) as error:
            log.warning("could not raise the limit on open files from %d: %s", soft, error)
    return soft


def within_files(limits: Limits, files: int) -> Limits:
    """`limits` with the connection caps cut to fit in `files` descriptors, FILES_KEPT kept
    aside: every connection the caps allow can then be held at once without the server
    running out of descriptors."""
    spare = max(files - FILES_KEPT, 64)
    proven = min(limits.proven, spare // 4)
    total = min(limits.total, spare - proven)
    return replace(limits, proven=proven, total=total,
                   per_address=min(limits.per_address, total),
                   per_phone=min(limits.per_phone, proven))


class Guard:
    """The counts behind the caps, shared by the connections (`Door`) and the handlers."""

    def __init__(self, limits: Limits):
        self.limits = limits
        # The strangers' connections (not yet proven), by address, oldest first.
        self.unproven: dict[str, dict[Door, None]] = {}
        self.waiting = 0  # unproven connections in all
        self.proven: Counter[str] = Counter()  # phone -> its proven connections
        self.streams: Counter[str] = Counter()
        self._warned: set[str] = set()  # one log line per flood, not one per socket
        self._crowded = False  # said in the log that every unproven place is taken

    def admit(self, door: Door) -> bool:
        """Count a new connection in, or refuse it (its address holds its cap). With every
        unproven place taken, the oldest connection of the address holding most is closed
        to make room: a flood makes room from itself, never from a phone coming back."""
        limits, address = self.limits, door.address
        mine = self.unproven.get(address)
        if mine is not None and len(mine) >= limits.per_address:
            self._warn(address, "refusing connections from %s: %d open (%d unproven in all)",
                       len(mine), self.waiting)
            return False
        if self.waiting >= limits.total:
            self._evict_one()
        else:
            self._crowded = False
        self.unproven.setdefault(address, {})[door] = None
        self.waiting += 1
        return True

    def _evict_one(self) -> None:
        busiest = max((len(doors) for doors in self.unproven.values()), default=0)
        if not busiest:
            return
        victim = min((next(iter(doors)) for doors in self.unproven.values()
                      if len(doors) == busiest), key=lambda door: door.since)
        if not self._crowded:  # one log line per flood, however many addresses it uses
            self._crowded = True
            log.warning("every unproven place is taken (%d): closing the oldest connections "
                        "of the addresses holding most (%s: %d)", self.waiting,
                        victim.address, busiest)
        self._forget(victim)
        victim.evict()

    def _warn(self, address: str, message: str, *counts: int) -> None:
        if address not in self._warned:
            self._warned.add(address)
            log.warning(message, address, *counts)

    def _forget(self, door: Door) -> None:
        doors = self.unproven.get(door.address)
        if doors is None or door not in doors:
            return
        del doors[door]
        self.waiting -= 1
        if not doors:
            del self.unproven[door.address]
            self._warned.discard(door.address)

    def promote(self, door: Door, phone: str) -> None:
        """`door`'s sealed request named `phone`, which holds a seat or the host role: the
        connection moves to the table's own places, if that phone has some left."""
        if door.phone is not None or door not in self.unproven.get(door.address, ()):
            return
        if (sum(self.proven.values()) >= self.limits.proven
                or self.proven[phone] >= self.limits.per_phone):
            return  # it stays unproven: one phone cannot take the others' places
        self._forget(door)
        door.phone = phone
        self.proven[phone] += 1

    def leave(self, door: Door) -> None:
        if door.phone is None:
            self._forget(door)
            return
        self.proven[door.phone] -= 1
        if self.proven[door.phone] <= 0:
            del self.proven[door.phone]

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
    """One accepted connection. Past its address's cap it is aborted at once, which frees its
    file descriptor before aiohttp makes anything of it; otherwise every call goes on to
    aiohttp's own protocol, and its close gives the place back. A connection closed to make
    room (`evict`) has already given its place back."""

    _order = itertools.count()  # which connection came first, to close the oldest

    def __init__(self, guard: Guard, make_protocol):
        self.guard = guard
        self.make_protocol = make_protocol
        self.inner: asyncio.Protocol | None = None
        self.transport: asyncio.BaseTransport | None = None
        self.address = "?"
        self.phone: str | None = None  # the phone it is proven to be, once it is
        self.since = next(self._order)
        self.counted = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        peer = transport.get_extra_info("peername")
        self.address = peer[0] if isinstance(peer, tuple) and peer else "?"
        self.transport = transport
        if not self.guard.admit(self):
            transport.abort()
            return
        self.counted = True
        self.inner = self.make_protocol()
        self.inner.connection_made(transport)

    def evict(self) -> None:
        """Closed to make room for a newer connection; the guard has counted it out."""
        self.counted = False
        if self.transport is not None:
            self.transport.abort()

    def connection_lost(self, exc: Exception | None) -> None:
        if self.counted:
            self.counted = False
            self.guard.leave(self)
        if self.inner is not None:
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


def prove(request: web.Request, phone: str) -> None:
    """`request`, opened, was sealed by `phone`, which holds a seat or the host role: its
    connection takes one of the table's places, out of the strangers' reach."""
    transport = request.transport
    door = transport.get_protocol() if transport is not None else None
    if isinstance(door, Door) and door.counted:
        door.guard.promote(door, phone)


def install(app: web.Application, limits: Limits) -> None:
    """The guard's parts of `app`: its counts. The origin middleware is in the app's
    middleware list, inside the one that turns refusals into JSON."""
    app[GUARD_KEY] = Guard(limits)
