"""The seal as a phone's page keeps it, in Chromium (static/seal.js): what crosses the Wi-Fi
names no code, no phone and no op, and a page trusts nothing it cannot open.

Before, a seat's page sent its token in every URL and its phone in a cookie, and read its
status card from plain JSON: anyone on the Wi-Fi could copy both and act for the seat, or
answer the page in the Pi's place.
"""
from __future__ import annotations

import asyncio
import json

from companion.lang import catalogue
from companion.web import guard
from companion.web.sealing import b64url, code_id

from test_browser_kit import (NAMES, PHONE, WAIT, Phones, browser, seat_path,  # noqa: F401
                              served, showing)

EN = catalogue("en")


async def watched_page(phones: Phones, path: str, heard: list):
    """A phone's page, every request it makes (method, URL, body bytes) noted in `heard`."""
    context = await phones.browser.new_context(**PHONE)
    context.on("request", lambda r: heard.append((r.method, r.url, r.post_data_buffer or b"")))
    page = await context.new_page()
    page.set_default_timeout(WAIT * 1000)
    page.on("pageerror", lambda error: phones.errors.append(f"{path}: {error}"))
    await page.goto(phones.base + path)
    return page


async def test_a_seats_traffic_names_no_code_phone_or_op_and_its_play_still_works(served,
                                                                                   browser):
    room = served.room
    await room.new_game({"names": NAMES})
    token = room.lobby["seats"][0]["token"]
    for seat, s in enumerate(room.lobby["seats"][1:], start=1):
        await room.claim_seat(s["token"], f"phone-{seat}")
    phones = Phones(browser, served.base)
    heard: list = []
    page = await watched_page(phones, seat_path(token), heard)
    await page.wait_for_selector(".lobby")
    await room.start()
    await page.wait_for_selector("body:not([data-state=lobby])[data-state]", state="attached")
    await showing([page], room.table.state_id)
    secret = await page.evaluate("() => localStorage.getItem('dm_phone_key')")
    assert secret and len(secret) == 22
    status = room.table.state.seats[0].status
    wire = b"\n".join(f"{method} {url}".encode() + b" " + body for method, url, body in heard)
    # the code travels as its id only, and nothing else of it, the phone or the ops shows
    assert code_id(token).encode() in wire
    for clear in (token, secret, "claim", "pledge", "commitment", status):
        assert clear.encode() not in wire, clear
    sealed = [body for method, url, body in heard if url.endswith("/api/sealed")]
    assert sealed and all(len(body) % 1024 == 16 + 8 + 16 for body in sealed)
    assert phones.errors == []


async def test_a_page_answered_by_a_device_that_does_not_know_its_code_sends_it_nothing(
        served, browser):
    """A stranger's device on the Wi-Fi answers the hello in the Pi's place: it cannot make
    the proof (the tag of nothing under keys bound to the code), so the page stops there and
    says so; not one sealed request, claim or pledge goes out to it."""
    room = served.room
    await room.new_game({"names": NAMES})
    token = room.lobby["seats"][0]["token"]
    phones = Phones(browser, served.base)
    heard: list = []
    context = await browser.new_context(**PHONE)
    context.on("request", lambda r: heard.append(r.url))

    async def impostor(route):
        if route.request.method == "GET":  # a fresh value of its own making
            await route.fulfill(status=200, content_type="application/json",
                                body=json.dumps({"fresh": b64url(bytes(24))}))
            return
        await route.fulfill(status=200, content_type="application/json", body=json.dumps({
            "session": b64url(bytes(16)), "pub": b64url(bytes([9]) + bytes(31)),
            "proof": b64url(bytes(16))}))
    await context.route("**/api/hello", impostor)
    page = await context.new_page()
    page.set_default_timeout(WAIT * 1000)
    page.on("pageerror", lambda error: phones.errors.append(str(error)))
    await page.goto(served.base + seat_path(token))
    await page.wait_for_selector(".message.error")
    assert await page.inner_text(".message.error") == EN["phone.error.bad_proof"]
    await asyncio.sleep(0.3)
    assert not [url for url in heard if "/api/sealed" in url]
    assert room.lobby["seats"][0]["phone"] is None  # nothing claimed
    assert phones.errors == []


async def test_a_stream_message_the_page_cannot_open_is_dropped_and_a_new_stream_opened(
        served, browser):
    """Someone on the Wi-Fi answers the page's stream with a message of their own making (they
    hold no key): the page opens nothing of it, drops that stream and opens a new one under a
    new ticket (the old one is spent), which brings the room's news."""
    room = served.room
    await room.new_game({"names": NAMES})
    token = room.lobby["seats"][0]["token"]
    phones = Phones(browser, served.base)
    context = await browser.new_context(**PHONE)
    tickets: list[str] = []

    async def forged_once(route):
        tickets.append(route.request.url)
        if len(tickets) > 1:
            await route.continue_()
            return
        forged = b64url(bytes(range(256)) * 4 + bytes(16))  # a block and a tag, no key
        await route.fulfill(status=200, content_type="text/event-stream",
                            body=f"retry: 2000\n\nevent: m\ndata: {forged}\n\n")
    await context.route("**/api/sealed/events?*", forged_once)
    page = await context.new_page()
    page.set_default_timeout(WAIT * 1000)
    page.on("pageerror", lambda error: phones.errors.append(str(error)))
    await page.goto(served.base + seat_path(token))
    await page.wait_for_selector(".lobby")
    async with asyncio.timeout(WAIT):
        while len(tickets) < 2:
            await asyncio.sleep(0.05)
    assert tickets[0] != tickets[1]
    await room.claim_seat(room.lobby["seats"][1]["token"], "phone-ben")
    await page.wait_for_selector(".lobby li:nth-child(2).joined")  # the new stream's news
    assert await page.locator(".message.error").count() == 0
    assert phones.errors == []


async def test_another_code_put_in_the_address_opens_that_codes_page(served, browser):
    """A seat page whose address gets another code after "#" (a seat link tapped on a page at
    /s, a code typed in) is that seat's page: a change of fragment alone loads nothing, so
    the page loads itself afresh rather than go on speaking for the first code."""
    room = served.room
    await room.new_game({"names": NAMES})
    first, second = (s["token"] for s in room.lobby["seats"][:2])
    phones = Phones(browser, served.base)
    page = await phones.open(seat_path(first))
    await page.wait_for_selector("#lobby-you")
    assert await page.inner_text("#who") == NAMES[0]
    await room.leave_seat(first, room.lobby["seats"][0]["phone"])  # one seat per phone
    await page.evaluate("(code) => { window.before = true; location.hash = code; }", second)
    await page.wait_for_function("() => !window.before")  # loaded afresh
    await page.wait_for_selector("#lobby-you")
    assert await page.inner_text("#who") == NAMES[1]
    assert room.lobby["seats"][1]["phone"] is not None
    assert phones.errors == []


async def test_a_page_told_to_wait_before_its_hello_waits_and_then_gets_its_seat(served,
                                                                                browser):
    """Phones that say hello more often than the Pi lets one address (here: one a second, after
    a burst of two) are told to wait a second or so; their pages wait as long as the Pi says
    and then join, with no error on the screen."""
    await served.stop()
    served.limits = guard.Limits(hello_burst=1, hellos_per_second=0.5)
    await served.start()
    room = served.room
    await room.new_game({"names": NAMES})
    phones = Phones(browser, served.base)
    told: list = []
    pages = []
    for seat in range(3):  # three players scan their codes at once
        context = await browser.new_context(**PHONE)
        context.on("response", lambda r: told.append(r.status) if "/api/hello" in r.url else 0)
        page = await context.new_page()
        page.set_default_timeout(3 * WAIT * 1000)
        page.on("pageerror", lambda error: phones.errors.append(str(error)))
        pages.append(page)
    await asyncio.gather(*(page.goto(served.base + seat_path(seat["token"]))
                           for page, seat in zip(pages, room.lobby["seats"])))
    for page in pages:
        await page.wait_for_selector("#lobby-you")
        assert await page.locator(".message.error").count() == 0
    assert [seat["phone"] is not None for seat in room.lobby["seats"][:3]] == [True] * 3
    assert 429 in told  # one page at least was told to wait
    assert phones.errors == []


async def test_a_page_whose_session_reaches_its_counters_top_says_hello_again_by_itself(
        served, browser):
    """The page's seal at the top of its session's counter: the next request goes under a new
    session, without a word to the player, and nothing is sent above the top."""
    room = served.room
    await room.new_game({"names": NAMES})
    token = room.lobby["seats"][0]["token"]
    phones = Phones(browser, served.base)
    heard: list = []
    page = await watched_page(phones, "/board", heard)
    result = await page.evaluate("""async (token) => {
      const { openCode, COUNTER_TOP } = await import('/static/seal.js');
      const code = openCode(token);
      const first = await code.hello();
      first.requests = COUNTER_TOP;
      const answer = await code.call("claim", {});
      return { answer, first: first.requests };
    }""", token)
    assert result["answer"] == {"seat": 0} and result["first"] == 2 ** 32 - 1
    hellos = [url for method, url, _ in heard if method == "POST" and url.endswith("/api/hello")]
    assert len(hellos) == 2
    assert room.lobby["seats"][0]["phone"] is not None
    assert phones.errors == []
