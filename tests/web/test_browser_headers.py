"""The pages under their Content-Security-Policy in real Chromium: a whole start of a game
(the host sets it up on the host page, a player taps their seat on the join page, the seats
claim, the host starts, a seat holds its Status card, the board shows the deal) and the
verify page checking a record, with not one violation of the policy; and a script
slipped into a seat's page, as a name that got through as markup would be, never runs.

What a player would notice if the policy broke a page: a dead button, a page stuck on
"Connecting…", a verify page that never says "checked". If there were no policy: whatever
an injected script wanted, such as another seat's code read off the page.
"""
from __future__ import annotations

import json

from playwright.async_api import Page

from fair_corpus import genuine_game
from test_browser_kit import (NAMES, Phones, browser, peek, seat_path, served,  # noqa: F401
                              word)

# Every violation the page reports, from its first byte (Playwright's init scripts run
# before the page's own and are not held to its policy).
LISTEN = """document.addEventListener("securitypolicyviolation", (e) => window.cspViolated(
  [e.effectiveDirective, e.blockedURI, e.sourceFile, e.lineNumber].join(" ")), true);"""


class Violations:
    """Phones.watch: what every page reported breaking its policy, by page, from its events
    and from the console (Chromium says "Content Security Policy" there for each one)."""

    def __init__(self):
        self.seen: list[str] = []

    async def __call__(self, page: Page, path: str) -> None:
        def said(message) -> None:
            if "Content Security Policy" in message.text:
                self.seen.append(f"{path}: console: {message.text}")
        await page.expose_function("cspViolated", lambda what: self.seen.append(f"{path}: {what}"))
        await page.add_init_script(LISTEN)
        page.on("console", said)


async def test_the_pages_run_under_their_policy_and_nothing_else_runs(served, browser, tmp_path):
    room = served.room
    seen = Violations()
    phones = Phones(browser, served.base, watch=seen)
    index = await phones.open("/")
    await index.get_by_role("link", name="Watch the board").wait_for()

    host = await phones.open(f"/h#{room.host_token}")  # the form, drawn by host.js
    await host.wait_for_selector("#setup #create")
    await host.select_option("#players", str(len(NAMES)))
    for i, name in enumerate(NAMES):
        await host.fill(f"[name=name-{i}]", name)
    await host.click("#create")
    await host.wait_for_selector(f"ul.join li[data-seat='{len(NAMES) - 1}']")

    chooser = await phones.open(f"/j#{room.kiosk_view()['table_token']}")
    await chooser.get_by_role("link", name=f"Seat 1 {NAMES[0]}").click()
    await chooser.wait_for_selector(".lobby")  # the join page led to the seat, now claimed
    seats = [chooser] + [await phones.open(seat_path(s["token"]))
                         for s in room.lobby["seats"][1:]]
    for page in seats[1:]:
        await page.wait_for_selector(".lobby")
    board = await phones.open("/board")
    await host.wait_for_selector("#start:not([disabled])")
    await host.click("#start")
    for page in seats:
        await page.wait_for_selector('body[data-state="0"]')
    await board.wait_for_selector('.board[data-state="0"]')
    status = room.table.state.seats[1].status
    assert (await peek(seats[1])).startswith(word("status", status)), "held, the card shows"

    verify = await phones.open("/fair")
    await verify.fill("#pasted", json.dumps(genuine_game(tmp_path, seed=3)))
    await verify.click("#check")
    await verify.wait_for_selector("#result[data-result]")
    assert await verify.get_attribute("#result", "data-result") == "checked"
    assert seen.seen == [], "the policy blocked something a page needs"
    assert phones.errors == []

    # An injected script and an injected style attribute: blocked, and said so.
    page = seats[1]
    ran = await page.evaluate("""() => new Promise((done) => {
        document.addEventListener("securitypolicyviolation", () => done(
          document.body.dataset.injected || "blocked"), { once: true });
        const script = document.createElement("script");
        script.textContent = "document.body.dataset.injected = 'ran'";
        document.body.append(script);  // an inline script allowed runs right here
        if (document.body.dataset.injected) done("ran");
    })""")
    assert ran == "blocked"
    said = await page.evaluate("""() => new Promise((done) => {
        document.addEventListener("securitypolicyviolation", (e) => done(e.effectiveDirective),
                                  { once: true });
        const who = document.querySelector("#who");
        who.setAttribute("style", "color: rgb(255, 0, 0)");
        if (getComputedStyle(who).color === "rgb(255, 0, 0)") done("applied");
    })""")
    assert said == "style-src-attr"
    colour = await page.evaluate("() => getComputedStyle(document.querySelector('#who')).color")
    assert colour != "rgb(255, 0, 0)"
    assert any("script-src-elem" in v for v in seen.seen), seen.seen  # the watch heard it too
