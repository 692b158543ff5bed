"""Accessibility and touch: every page, in both languages and in the states a player
meets (the lobby, a decision, the dice picker, the Status card held, the host's form and
corrections, the board, the game over), passes axe-core with no serious or critical
violation; every tap target is at least 44x44 CSS px (a checkbox counts by the label around
it); and a greyed-out option, which axe does not check, is as readable (4.5:1) as any text.

axe-core comes from axe-playwright-python, which bundles axe.min.js: nothing is fetched.
"""
from __future__ import annotations

import random

from axe_playwright_python.async_playwright import Axe
from playwright.async_api import Page

from companion.tools.simulate import choice_for

from test_browser_kit import (NAMES, Phones, browser, seat_path, seated_pages,  # noqa: F401
                              served, showing)

SERIOUS = {"serious", "critical"}
TAP = 44  # CSS px, each way
AXE = Axe()

# Every visible tap target smaller than TAP either way, unless an enclosing tap target (the
# label around a checkbox) is big enough.
SMALL_TARGETS = """(tap) => {
  const TARGETS = 'button, input:not([type=hidden]), select, textarea, label, summary, '
                  + 'a[href], [role=button]';
  const big = (node) => {
    const box = node.getBoundingClientRect();
    return box.width >= tap && box.height >= tap;
  };
  const small = [];
  for (const node of document.querySelectorAll(TARGETS)) {
    if (!node.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })) continue;
    const area = node.parentElement && node.parentElement.closest(TARGETS);
    if (big(node) || (area && big(area))) continue;
    const box = node.getBoundingClientRect();
    small.push(`${node.tagName.toLowerCase()} "${node.textContent.trim().slice(0, 30)}" `
               + `${Math.round(box.width)}x${Math.round(box.height)}`);
  }
  return small;
}"""

# The contrast of each visible disabled button's text as seen: its colours composed over what
# is behind it, with the opacity of it and its parents (WCAG's relative luminance).
DISABLED_CONTRAST = """() => {
  const rgba = (css) => {
    const [r, g, b, a] = css.match(/[\\d.]+/g).map(Number);
    return [r, g, b, a === undefined ? 1 : a];
  };
  const over = (top, under) => [0, 1, 2].map((i) => top[i] * top[3] + under[i] * (1 - top[3]))
                                         .concat(1);
  const channel = (v) => (v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  const luminance = (c) => 0.2126 * channel(c[0]) + 0.7152 * channel(c[1])
                           + 0.0722 * channel(c[2]);
  const rows = [];
  for (const node of document.querySelectorAll("button:disabled")) {
    if (!node.checkVisibility({ checkVisibilityCSS: true })) continue;
    const chain = [];
    for (let n = node; n; n = n.parentElement) chain.unshift(n);
    let under = [255, 255, 255, 1];
    for (const n of chain.slice(0, -1)) under = over(rgba(getComputedStyle(n).backgroundColor), under);
    const style = getComputedStyle(node);
    const opacity = chain.reduce((o, n) => o * Number(getComputedStyle(n).opacity), 1);
    const own = over(rgba(style.backgroundColor), under);
    const text = over(rgba(style.color), own);
    const seen = (c) => luminance(over([c[0], c[1], c[2], opacity], under));
    const [hi, lo] = [seen(text), seen(own)].sort((a, b) => b - a);
    rows.push([node.textContent.trim().slice(0, 40), (hi + 0.05) / (lo + 0.05)]);
  }
  return rows;
}"""


class Audit:
    """What a player would stumble on, page by page; asserted all at once at the end."""

    def __init__(self):
        self.problems: list[str] = []
        self.pages = 0

    async def check(self, page: Page, where: str) -> None:
        self.pages += 1
        # The turn flash is over first: what is checked is the page a player reads.
        await page.wait_for_selector("body:not(.turn-flash)", state="attached")
        found = (await AXE.run(page)).response["violations"]
        for v in found:
            if v["impact"] in SERIOUS:
                targets = [node["target"] for node in v["nodes"]][:4]
                self.problems.append(f"{where}: axe {v['id']} ({v['impact']}): {v['help']} "
                                     f"at {targets}")
        for small in await page.evaluate(SMALL_TARGETS, TAP):
            self.problems.append(f"{where}: tap target under {TAP}x{TAP}: {small}")
        for text, ratio in await page.evaluate(DISABLED_CONTRAST):
            if ratio < 4.5:
                self.problems.append(f"{where}: greyed-out {text!r} has contrast {ratio:.1f}:1")


async def play_until(room, rng: random.Random, done) -> int | None:
    """The seats play the simulator's choices until `done(state, seat)` holds, `seat` being
    the first seat the game waits for (None once it is over); that seat."""
    for _ in range(5000):
        g = room.table.state
        seat = g.pending.seats[0] if g.outcome is None else None
        if done(g, seat):
            return seat
        await room.submit(seat, choice_for(g, seat, rng))
    raise AssertionError("the game never got there")


def a_roll(g, seat) -> bool:
    """A roll of two dice or more waits to be submitted, more than one of them may go (with
    one die to submit, a tap on it submits it: there is no picker to look at)."""
    return g.pending.kind == "submit" and len(g.seats[seat].rolled) >= 2 \
        and g.pending.data.get("most", 1) > 1


def over(g, seat) -> bool:
    return g.outcome is not None


async def spanish(page: Page) -> None:
    await page.click("[data-lang='es']")
    await page.wait_for_selector("html[lang='es']", state="attached")


async def test_the_index_the_board_and_the_host_form_are_accessible(served, browser):
    room = served.room
    phones = Phones(browser, served.base)
    audit = Audit()
    index = await phones.open("/")
    await index.wait_for_selector(".lang-toggle button")
    await audit.check(index, "index")
    await spanish(index)
    await audit.check(index, "index (es)")

    host = await phones.open(f"/h#{room.host_token}")
    await host.wait_for_selector("#create")
    await host.check("#setup [name=variant]")  # a checked box is drawn differently
    await audit.check(host, "host form")
    await spanish(host)
    await audit.check(host, "host form (es)")

    await seated_pages(room, phones)
    board = await phones.open("/board")
    await board.wait_for_selector("#legend")
    await audit.check(board, "board")
    await board.click("#legend summary")
    await audit.check(board, "board, dice legend open")
    assert not audit.problems, "\n".join(audit.problems)
    assert phones.errors == []


async def test_the_seat_and_host_pages_are_accessible_through_a_game(served, browser):
    room = served.room
    phones = Phones(browser, served.base)
    audit = Audit()
    await room.new_game({"names": NAMES})
    # the table code's seat chooser (the kiosk's one code at 120x36), every seat still free
    chooser = await phones.open(f"/j#{room.kiosk_view()['table_token']}")
    await chooser.wait_for_selector("#seats a.button")
    await audit.check(chooser, "table code's seat chooser")
    await spanish(chooser)
    await audit.check(chooser, "table code's seat chooser (es)")
    host = await phones.open(f"/h#{room.host_token}")
    pages = [await phones.open(seat_path(s["token"])) for s in room.lobby["seats"]]
    for page in pages:
        await page.wait_for_selector(".lobby")
    await audit.check(pages[0], "seat in the lobby")
    await host.wait_for_selector("#start:not([disabled])")
    await audit.check(host, "host, everyone joined")
    await host.click("#start")
    await showing(pages, 0)

    (seat, *_) = room.table.state.pending.seats
    await audit.check(pages[seat], f"seat at a {room.table.state.pending.kind} decision")
    await spanish(pages[seat])
    await audit.check(pages[seat], "seat at a decision (es)")
    other = pages[(seat + 1) % len(pages)]
    box = await other.locator("#peek").bounding_box()
    await other.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    await other.mouse.down()  # the Status card held while axe reads the page
    await other.wait_for_selector("#peek.open")
    await audit.check(other, "seat, Status card held")
    await other.mouse.up()

    await host.wait_for_selector("#corrections details")
    await host.click("#corrections summary")
    await audit.check(host, "host during a game, corrections open")

    rng = random.Random(3)
    page = pages[await play_until(room, rng, a_roll)]
    await showing([page], room.table.state_id)
    assert await page.is_hidden("#submit-dice"), "no die picked: no Submit to press yet"
    assert await page.is_visible("#pick-hint"), "the phone says to tap the dice"
    await audit.check(page, "dice picker, nothing picked")
    await page.click("#rolled .die[data-index='0']")
    await audit.check(page, "dice picker, a die picked")

    await play_until(room, rng, over)
    await showing(pages, room.table.state_id)
    await audit.check(pages[0], "seat at game over")
    # the Pi's verify page (this seeded game has no record: a pasted one is checked)
    check = await phones.open("/fair")
    await check.fill("#pasted", '{"game": 1}')
    await check.click("#check")
    await check.wait_for_selector("#result[data-result='failed']")
    await audit.check(check, "verify page, a record checked")
    assert not audit.problems, "\n".join(audit.problems)
    assert phones.errors == []


# --- a phone on its side ---

LANDSCAPE = {"width": 844, "height": 390}

# The pending decision as laid out: what is cut off, spills out of it or overlaps, where its
# question and first answer are on the screen, and where the board is beside it.
LAYOUT = """() => {
  const box = (node) => node.getBoundingClientRect();
  const decision = document.getElementById("decision");
  const d = box(decision);
  const parts = [decision.querySelector("h2"),
                 ...decision.querySelectorAll("button, [role=button], .why, p")]
    .filter((node) => node.checkVisibility());
  const name = (node) => `${node.tagName.toLowerCase()} "${node.textContent.trim().slice(0, 30)}"`;
  const clipped = parts.filter((n) => n.scrollWidth > n.clientWidth + 1
                                      || n.scrollHeight > n.clientHeight + 1).map(name);
  const outside = parts.filter((n) => { const b = box(n);
    return b.left < d.left || b.right > d.right || b.top < d.top || b.bottom > d.bottom; })
    .map(name);
  const taps = parts.filter((n) => n.matches("button, [role=button]"));
  const overlaps = [];
  taps.forEach((a, i) => taps.slice(i + 1).forEach((b) => {
    const p = box(a), q = box(b);
    if (p.left < q.right && q.left < p.right && p.top < q.bottom && q.top < p.bottom) {
      overlaps.push(`${name(a)} / ${name(b)}`);
    }
  }));
  const first = taps[0] ? box(taps[0]) : box(parts[0]);
  const mine = box(document.getElementById("mine"));
  const board = box(document.getElementById("public"));
  return {
    spill: document.documentElement.scrollWidth - innerWidth, clipped, outside, overlaps,
    question_top: box(parts[0]).top, first_bottom: first.bottom, height: innerHeight,
    board_beside: board.left >= mine.right, board_below: board.top >= mine.bottom,
    board_width: board.width,
  };
}"""


async def laid_out(page: Page, where: str) -> None:
    shown = await page.evaluate(LAYOUT)
    assert shown["spill"] <= 0, f"{where}: the page scrolls sideways"
    assert shown["clipped"] == [] and shown["outside"] == [] and shown["overlaps"] == [], \
        f"{where}: {shown}"
    assert 0 <= shown["question_top"] and shown["first_bottom"] <= shown["height"], \
        f"{where}: the question and its first answer are not both on the screen: {shown}"
    assert (shown["board_beside"] or shown["board_below"]) and shown["board_width"] > 0, \
        f"{where}: the board is not beside or below the seat's part: {shown}"


async def test_a_phone_on_its_side_shows_the_decision_whole_and_the_board_beside(served,
                                                                                browser):
    """A decision arriving on a phone held sideways (844x390) while its player reads the log
    far below: it comes into view from its question down, nothing in it is cut off or
    overlapping, and the board is beside it; the dice picker too."""
    room = served.room
    phones = Phones(browser, served.base)
    pages = await seated_pages(room, phones)
    for page in pages:
        await page.set_viewport_size(LANDSCAPE)
    g = room.table.state
    watcher = next(s for s in range(len(NAMES)) if s not in g.pending.seats)
    await pages[watcher].evaluate("() => window.scrollTo(0, document.body.scrollHeight)")
    rng = random.Random(4)
    await play_until(room, rng, lambda g, seat: g.pending.kind == "action" and seat == watcher)
    page = pages[watcher]
    await showing([page], room.table.state_id)
    options = await page.locator("#decision button").count()
    assert options >= 5, "a decision taller than a phone on its side"
    await laid_out(page, "an action to choose")

    page = pages[await play_until(room, rng, a_roll)]
    await showing([page], room.table.state_id)
    await page.click("#rolled .die[data-index='0']")
    await laid_out(page, "the dice picker")
    assert phones.errors == []
