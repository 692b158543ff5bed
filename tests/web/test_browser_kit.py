"""What the browser tests share: Debian's Chromium through Playwright, phones (one browser
context each, so each keeps its own secret in its localStorage), and a real Room on a real
SQLite file behind the real web server on a loopback port. This file holds no test; it is
named so that it sits with the tests it serves.
"""
from __future__ import annotations

import asyncio
import json
import tempfile
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from playwright.async_api import Browser, Page, async_playwright

from companion.lang import catalogue
from companion.core.room import Room
from companion.core.store import EventStore
from companion.web.server import start_server

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
WAIT = 10  # seconds: a guard against a hang, never a measure of speed
NAMES = ["Ana", "Ben", "Cai", "Dee"]
# A seeded game (the policy in test_browser.py was run over seeds 1-59 without a browser) with a
# malfunction, a vote while a seat lacks a die colour, a roll, and an end in about 80 commands.
SEED = 34


# The seat page veils its private details after 10 s without a touch (nothing to a glance);
# tests that play whole games keep it up far longer, and test_browser_glance tests the veil.
AWAKE = "?idle=3600000"


def seat_path(token: str) -> str:
    return f"/s{AWAKE}#{token}"


# An op on a code, sent sealed from inside a page as that page's phone (its own
# localStorage secret), with the page's own seal.js: {"data": answer} or the refusal's
# {"status", "code", "message"}.
SEALED_OP = """async ([token, op, body]) => {
  const { openCode } = await import('/static/seal.js');
  try { return { data: await openCode(token).call(op, body || {}) }; }
  catch (e) { return { status: e.status, code: e.code, message: e.message }; }
}"""


async def sealed_op(page: Page, token: str, op: str, body: dict | None = None) -> dict:
    return await page.evaluate(SEALED_OP, [token, op, body])


def word(kind: str, ident: str, lang: str = "en") -> str:
    """What the pages call a game id: the catalogue's game.<kind>.<id>, else the id made
    readable (as common.js does)."""
    return catalogue(lang).get(f"game.{kind}.{ident}") or \
        str(ident).replace("_", " ").capitalize()


def compact(option) -> str:
    return json.dumps(option, separators=(",", ":"))  # as JSON.stringify writes it


# --- the server and the browser ---

class Served:
    """A room and its web server; `stop()` then `start()` serves again on the same port, as
    after a restart of the web server or a Wi-Fi outage."""

    def __init__(self, room: Room):
        self.room = room
        self.runner = None
        self.port = 0
        self.limits = None  # the server's caps (guard.Limits), its defaults when None

    async def start(self) -> None:
        self.runner = await start_server(self.room, "127.0.0.1", self.port, self.limits)
        self.port = self.runner.addresses[0][1]

    async def stop(self) -> None:
        await self.runner.cleanup()

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"


@asynccontextmanager
async def served_with_browser(seed: int):
    """(room, served, browser): a seeded room on a real store, served on a loopback port, and
    Debian's Chromium; what the benches that drive the pages share."""
    with tempfile.TemporaryDirectory() as tmp:
        store = EventStore(Path(tmp) / "g.db")
        room = Room(store, seed=seed, bot_delay=0)
        room.attach(asyncio.get_running_loop())
        served = Served(room)
        await served.start()
        try:
            async with async_playwright() as playwright:
                browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
                try:
                    yield room, served, browser
                finally:
                    await browser.close()
        finally:
            await served.stop()
            await room.close()
            store.close()


@pytest.fixture
async def served(tmp_path):
    store = EventStore(tmp_path / "g.db")
    room = Room(store, seed=SEED, bot_delay=0)
    room.attach(asyncio.get_running_loop())
    server = Served(room)
    await server.start()
    yield server
    await server.stop()
    await room.close()
    store.close()


@pytest.fixture
async def browser():
    async with async_playwright() as playwright:
        chromium = await playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield chromium
        await chromium.close()


class Phones:
    """Open pages, each in its own context (its own storage: its own phone), and any script
    error. `watch(page, path)`, if given, is awaited with each new page before it loads (to
    listen to it from its first byte)."""

    def __init__(self, browser: Browser, base: str, locale: str | None = None, watch=None):
        self.browser = browser
        self.base = base
        self.locale = locale  # the phone's own language: a page speaks it until told otherwise
        self.watch = watch
        self.errors: list[str] = []

    async def open(self, path: str) -> Page:
        context = await self.browser.new_context(
            **PHONE, **({"locale": self.locale} if self.locale else {}))
        page = await context.new_page()
        page.set_default_timeout(WAIT * 1000)
        page.on("pageerror", lambda error: self.errors.append(f"{path}: {error}"))
        if self.watch is not None:
            await self.watch(page, path)
        await page.goto(self.base + path)
        return page


async def changed(room: Room, before: int) -> int:
    """Wait until the table has moved past `before` (the command is stored)."""
    async with asyncio.timeout(WAIT):
        while room.table.state_id == before:
            await asyncio.sleep(0.01)
    return room.table.state_id


async def showing(pages, state_id: int) -> None:
    """Every page shows the state `state_id` (its stream delivered it)."""
    for page in pages:
        await page.wait_for_selector(f'body[data-state="{state_id}"]', state="attached")


async def dealt(room: Room, game: int | None = None) -> int:
    """Wait for the deal after a start or a play again (not game `game`): it follows the
    phones' reveal of the bytes they pledged (fair dealing). The new game's state id."""
    async with asyncio.timeout(WAIT):
        while room.table is None or room.table.game_id == game:
            await asyncio.sleep(0.01)
    return room.table.state_id


async def seated_pages(room: Room, phones: Phones, variants: tuple = ()) -> list[Page]:
    """Set up a game of NAMES, give every seat a phone page, start it; the pages once they
    show the deal."""
    await room.new_game({"names": NAMES, "variants": list(variants)})
    pages = [await phones.open(seat_path(s["token"])) for s in room.lobby["seats"]]
    for page in pages:
        await page.wait_for_selector(".lobby")  # the page has claimed its seat
    await room.start()
    await showing(pages, await dealt(room))
    return pages


# Public rules texts: what the cards and characters on the table do (the same words on every
# page; test_browser_glance shows the pages alike). They name the sides ("the Uninfected win"),
# so a search for a status word leaves them out; the held Status card is not among them.
RULES_TEXTS = ".card-text, .card-says"


async def private_html(page: Page) -> str:
    """The page's HTML without the public rules texts: where a status word must not be."""
    return await page.evaluate("""(rules) => {
        const copy = document.documentElement.cloneNode(true);
        copy.querySelectorAll(rules).forEach((node) => node.remove());
        return copy.outerHTML; }""", RULES_TEXTS)


async def peek(page: Page) -> str:
    """Press and hold the Status card, read it, let go."""
    # A decision arriving scrolls itself into view (seat.js), which can move the card:
    # bring the card into view first, as a player's thumb would find it.
    await page.locator("#peek").scroll_into_view_if_needed()
    box = await page.locator("#peek").bounding_box()
    await page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    await page.mouse.down()
    try:
        return (await page.inner_text("#peek-content")).strip()
    finally:
        await page.mouse.up()
