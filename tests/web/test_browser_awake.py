"""Nobody misses a turn: phones do not fall asleep mid-game where the browser lets a
page prevent it, and one that slept comes back at once.

The phones reach the Pi at http://192.168.x.x, not a secure context, so the Screen Wake Lock
API is not there. The test browser reaches the same server by this machine's mDNS name,
http://<hostname>.local (mapped to 127.0.0.1 by Chromium's host resolver; the server takes
API requests for its own names), a plain-HTTP origin like the Pi's: there the page keeps the
screen on with a video it makes itself. At http://127.0.0.1 (a secure context) it takes a
wake lock. Both start on the first tap and stop at game over.

A phone that slept has a stream that may be dead without any close event (iOS drops its
sockets). Here the page's stream is cut and every new one it opens is never answered (a
socket that hangs, with no error and no end: a stream that ended would be opened again by
the page itself): only the page's own wake-up (the page shown again, back from the
back/forward cache, back online) can bring it the moves made meanwhile, and it must.
"""
from __future__ import annotations

import random
import socket

import pytest
from playwright.async_api import Page, Route, async_playwright

from companion.tools.simulate import choice_for

from test_browser_a11y import over, play_until
from test_browser_kit import (ARGS, CHROMIUM, Phones, browser, seated_pages,  # noqa: F401
                              served, showing)

# The server takes API requests for its own names only (guard.py: DNS rebinding).
PLAIN_HOST = f"{socket.gethostname().lower().rstrip('.')}.local"

# What the keep-awake video is, as each engine's rule for keeping a screen on reads it.
VIDEO = """() => {
  const v = document.querySelector("video.awake");
  if (!v) return null;
  const box = v.getBoundingClientRect();
  return {
    paused: v.paused, muted: v.muted, volume: v.volume, loop: v.loop,
    inline: v.hasAttribute("playsinline"), frames: v.readyState >= 2 && v.videoWidth > 0,
    video_tracks: v.srcObject.getVideoTracks().length,
    audio_tracks: v.srcObject.getAudioTracks().length,
    share: (box.width * box.height) / (innerWidth * innerHeight),
    secure: isSecureContext, wake_lock_api: "wakeLock" in navigator,
  };
}"""


@pytest.fixture
async def plain_browser():
    """Chromium that reaches the test server as http://PLAIN_HOST: not a secure context."""
    async with async_playwright() as playwright:
        chromium = await playwright.chromium.launch(
            executable_path=CHROMIUM,
            # As on a phone, sound and video start only from a gesture (Playwright's
            # Chromium lets pages play media without one).
            args=ARGS + [f"--host-resolver-rules=MAP {PLAIN_HOST} 127.0.0.1",
                         "--autoplay-policy=user-gesture-required"])
        yield chromium
        await chromium.close()


async def wake_up(page: Page, how: str) -> None:
    """What a phone's browser tells a page that slept: hidden then shown again
    (visibilitychange), shown from the back/forward cache (pageshow), or back online."""
    await page.evaluate("""(how) => {
      const seen = (state) => {
        Object.defineProperty(document, "visibilityState", { value: state, configurable: true });
        Object.defineProperty(document, "hidden", { value: state === "hidden",
                                                    configurable: true });
        document.dispatchEvent(new Event("visibilitychange"));
      };
      if (how === "visibilitychange") {
        seen("hidden");
        seen("visible");
      } else if (how === "pageshow") {
        window.dispatchEvent(new PageTransitionEvent("pageshow", { persisted: true }));
      } else {
        window.dispatchEvent(new Event(how));
      }
    }""", how)


async def test_plain_http_keeps_the_screen_on_with_a_video_from_the_first_tap(served,
                                                                             plain_browser):
    room = served.room
    phones = Phones(plain_browser, f"http://{PLAIN_HOST}:{served.port}")
    pages = await seated_pages(room, phones)
    page = pages[0]
    assert await page.get_attribute("html", "data-awake") is None, "nothing before a tap"
    await page.tap("#who")  # the first tap anywhere, with a finger
    # The turn signal's beep can sound from now on (a finger's pointerdown alone cannot
    # start it: its pointerup, touchend or click can).
    await page.wait_for_selector("html[data-sound='running']", state="attached")
    await page.wait_for_selector("html[data-awake='video']", state="attached")
    await page.wait_for_function("() => document.querySelector('video.awake').videoWidth > 0")
    video = await page.evaluate(VIDEO)
    assert not video["secure"] and not video["wake_lock_api"], "plain HTTP, as on the Pi"
    # Playing, with frames, inline, a video and an audio track, unmuted, no loop (WebKit),
    # covering the viewport (Blink), from a MediaStream (Gecko).
    assert video == {**video, "paused": False, "muted": False, "loop": False, "inline": True,
                     "frames": True, "video_tracks": 1, "audio_tracks": 1}
    assert video["volume"] > 0 and video["share"] >= 0.2

    # The screen went off, which stops the video; shown again, it plays again at once.
    await page.evaluate("() => document.querySelector('video.awake').pause()")
    await page.wait_for_selector("html:not([data-awake])", state="attached")
    await wake_up(page, "visibilitychange")
    await page.wait_for_selector("html[data-awake='video']", state="attached")

    await play_until(room, random.Random(5), over)  # game over: it may sleep again
    await showing([page], room.table.state_id)
    await page.wait_for_selector("html:not([data-awake])", state="attached")
    assert await page.locator("video").count() == 0
    assert phones.errors == []


async def test_a_secure_page_takes_a_wake_lock_instead(served, browser):
    room = served.room
    phones = Phones(browser, served.base)  # http://127.0.0.1: a secure context
    page = (await seated_pages(room, phones))[0]
    await page.click("#who")
    await page.wait_for_selector("html[data-awake='lock']", state="attached")
    assert await page.locator("video").count() == 0, "no video where a lock holds the screen"
    assert phones.errors == []


HUNG: list = []  # the requests of dead streams, held unanswered until the test ends


async def dead_stream(route: Route) -> None:
    """An event stream whose socket died while the phone slept: asked for, and then nothing,
    not even an end."""
    HUNG.append(route)


async def test_a_phone_that_slept_shows_the_game_at_once_when_it_wakes(served, browser):
    room = served.room
    phones = Phones(browser, served.base)
    pages = await seated_pages(room, phones)
    page = pages[0]
    await page.route("**/events*", dead_stream)
    await served.stop()   # the stream it had is gone; every new one is dead
    await served.start()
    rng = random.Random(6)
    for wake in ("visibilitychange", "pageshow", "online"):
        g = room.table.state
        (seat, *_) = g.pending.seats
        await room.submit(seat, choice_for(g, seat, rng))  # the game moves on meanwhile
        moved = room.table.state_id
        await showing(pages[1:], moved)  # the other phones, awake, follow
        assert await page.get_attribute("body", "data-state") != str(moved)
        await wake_up(page, wake)
        await showing([page], moved)
    assert phones.errors == []
