"""Nothing to a glance: outside the held Status card, an Infected and an Uninfected seat's
phone pages are the same at every moment.

Twin games make "side by side" exact. Room A deals a seeded game; room B, on its own SQLite
file, gets the same stored events except that the observed seat's Status card is swapped
with an Uninfected seat's (the deal records the statuses as a shuffle: swapping two entries
and their status facts changes nothing else). Room B replays them at start, as after a power
cut. Both tables then get the same commands in lockstep (a seeded game draws the same dice
for the same state), so the two games differ only in who holds which card. The observed
seat's page is open in Chromium on both servers, as the same phone (its secret); the seat taps
only options legal in both games (never the reveal), on both pages, and at each of its
decisions everything visible on the two pages is compared: text, and every visible
element's tag, attributes and box.

Then: the Infected twin reveals through "Reveal yourself…" and the Status card, the
Uninfected twin's same gesture says there is nothing to reveal, the private notes open on a
tap and close by themselves, and an idle phone veils its dice and options until a tap.
"""
from __future__ import annotations

import asyncio
import copy
import difflib
import json
import random
import secrets

import pytest
from playwright.async_api import Page

from companion.darkmoon.data import UNINFECTED
from companion.lang import catalogue
from companion.core.room import SETTING, Room
from companion.core.store import EventStore
from companion.web.sealing import phone_id
from companion.web.server import start_server

from test_browser_decisions import on_screen
from test_browser_kit import PHONE, WAIT, browser, compact, word  # noqa: F401

NAMES = ["Ana", "Ben", "Cai", "Dee", "Eli"]
MAX_STEPS = 400
LONG = 3_600_000  # ms: the page's own timers never fire while the test compares
SHORT = 150       # ms: a timer the test waits for, never measures
EN = catalogue("en")
PRIVATE = EN["game.private"].split("{text}")[0]  # "(secret) ": how a private fact begins

# Everything a person can see on the page: the text, and each visible element's tag,
# attributes and box (in page coordinates: a tap may have scrolled one page), in order.
VISIBLE = """() => {
  const rows = [];
  const walk = (node, depth) => {
    for (const child of node.children) {
      if (!child.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })) continue;
      const box = child.getBoundingClientRect();
      const attrs = [...child.attributes].map((a) => `${a.name}=${a.value}`).sort().join(" ");
      rows.push(`${depth} ${child.tagName} ${attrs} disabled=${child.disabled === true} `
                + `${Math.round(box.left + scrollX)},${Math.round(box.top + scrollY)} `
                + `${Math.round(box.width)}x${Math.round(box.height)}`);
      walk(child, depth + 1);
    }
  };
  walk(document.body, 0);
  // A phone's own fair codes (its random bytes, fair-line.js) differ between any two phones,
  // whatever their status: set aside, in a fixed width that moves nothing else.
  let text = document.body.innerText;
  for (const code of document.querySelectorAll("code.fair-own")) {
    text = text.split(code.textContent).join("(this phone's code)");
  }
  return { title: document.title, text, rows };
}"""


def swap_status(start: dict, seat: int) -> tuple[dict, int]:
    """The deal with `seat`'s Status card swapped with a seat of the other side; that seat."""
    start = copy.deepcopy(start)
    n = len(start["setup"]["names"])
    statuses = next(o for o in start["chance"]
                    if isinstance(o, list) and len(o) == n and UNINFECTED in o)
    other = next(i for i, s in enumerate(statuses)
                 if (s == UNINFECTED) != (statuses[seat] == UNINFECTED))
    statuses[seat], statuses[other] = statuses[other], statuses[seat]
    for fact in start["facts"]:
        if fact["k"] == "status_dealt":
            fact["status"] = statuses[fact["seat"]]
        elif fact["k"] == "infected_team":
            fact["to"] = fact["seats"] = [i for i, s in enumerate(statuses) if s != UNINFECTED]
    return start, other


class Twin:
    """One side: a room on its own SQLite file, its web server, the observed seat's page."""

    def __init__(self, room: Room, store: EventStore):
        self.room = room
        self.store = store
        self.observed = None
        self.runner = None
        self.page: Page | None = None
        self.context = None
        self.errors: list[str] = []  # script errors on the page

    async def serve(self) -> None:
        self.runner = await start_server(self.room, "127.0.0.1", 0)

    @property
    def base(self) -> str:
        return "http://127.0.0.1:%d" % self.runner.addresses[0][1]

    async def open(self, browser, phone: str, token: str) -> None:
        self.context = await browser.new_context(**PHONE)
        # the phone's secret, kept as a page keeps it: the same phone on both servers
        await self.context.add_init_script(
            f"localStorage.setItem('dm_phone_key', {json.dumps(phone)})")
        self.page = await self.context.new_page()
        self.page.set_default_timeout(WAIT * 1000)
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        await self.page.goto(f"{self.base}/s?idle={LONG}&shut={LONG}#{token}")

    async def close(self) -> None:
        if self.context is not None:
            await self.context.close()
        if self.runner is not None:
            await self.runner.cleanup()
        await self.room.close()
        self.store.close()


@pytest.fixture
async def twins(tmp_path, browser):
    """twins(names, variants, seed) -> (A, B, observed): the observed seat is Infected in A
    and Uninfected in B; every room, server and page is closed after the test."""
    made: list[Twin] = []

    async def deal(names, variants, seed):
        loop = asyncio.get_running_loop()
        store_a = EventStore(tmp_path / f"a{seed}.db")
        a = Twin(Room(store_a, seed=seed, bot_delay=0), store_a)
        made.append(a)
        a.room.attach(loop)
        await a.room.new_game({"names": names, "variants": variants})
        tokens = a.room.kiosk_view()["seat_tokens"]
        phones = [secrets.token_urlsafe(16) for _ in names]
        for token, phone in zip(tokens, phones):
            await a.room.claim_seat(token, phone_id(phone))
        await a.room.start()
        game = a.room.table.game_id
        observed = next(i for i, s in enumerate(a.room.table.state.seats) if s.infected)

        store_b = EventStore(tmp_path / f"b{seed}.db")
        assert store_b.new_game(store_a.meta(game)) == game
        (start,), = store_a.load(game)
        swapped, other = swap_status(start, observed)
        store_b.append(game, 1, [swapped])
        store_b.put_setting(SETTING, store_a.setting(SETTING))  # the same seats and phones
        b = Twin(Room(store_b, seed=seed, bot_delay=0), store_b)
        made.append(b)
        b.room.attach(loop)
        seats_a, seats_b = a.room.table.state.seats, b.room.table.state.seats
        assert seats_b[observed].status == UNINFECTED
        assert seats_b[other].status == seats_a[observed].status
        assert [s.status for i, s in enumerate(seats_a) if i not in (observed, other)] == \
            [s.status for i, s in enumerate(seats_b) if i not in (observed, other)]
        a.observed = b.observed = observed
        for twin in (a, b):
            await twin.serve()
            await twin.open(browser, phones[observed], tokens[observed])
        return a, b, observed

    yield deal
    for twin in made:
        await twin.close()


# --- playing the twins in lockstep ---

SCORE = {  # a helpful player most of the time, so games end; the same for either status
    "participation": lambda o: o == ["in"],
    "action": lambda o: {"repair": 3, "lone_wolf": 2, "pass": 1}.get(o[0], 0),
    "bonus": lambda o: o != ["skip"],
    "vote": lambda o: {"strong": 2, "weak": 1}.get(o[0], 0),
    "agree": lambda o: o == ["agree"],
    "order_response": lambda o: o == ["actions"],
}


def pick(kind: str, legal: list, rolled: list, rng: random.Random) -> list:
    if kind == "submit":
        return max(legal, key=lambda o: -1 if o == ["reroll"] else sum(rolled[i][1] for i in o[1:]))
    if kind in SCORE and rng.random() < 0.75:
        return max(legal, key=SCORE[kind])
    return rng.choice(legal)


async def showing(twin: Twin, state_id: int) -> None:
    await twin.page.wait_for_selector(f'body[data-state="{state_id}"]', state="attached")


async def moved(room: Room, before: int) -> None:
    async with asyncio.timeout(WAIT):
        while room.table.state_id == before:
            await asyncio.sleep(0.01)


async def visible(page: Page) -> dict:
    return await page.evaluate(VISIBLE)


async def closes_by_itself(page: Page, opener: str, panel: str) -> None:
    """Tap `opener` with a short `shut` delay: `panel` opens, then goes away untouched.
    A watcher in the page records the opening, so a panel that never opened cannot pass."""
    await page.evaluate("""(panel) => {
      window.panelSeen = false;
      new MutationObserver(() => { window.panelSeen ||= Boolean(document.querySelector(panel)); })
        .observe(document.body, { subtree: true, childList: true, attributes: true });
    }""", panel)
    await page.evaluate(f"document.body.dataset.shut = '{SHORT}'")
    await page.click(opener)
    await page.wait_for_selector(panel, state="detached")
    await page.evaluate(f"document.body.dataset.shut = '{LONG}'")
    assert await page.evaluate("window.panelSeen"), f"{panel} never opened"


async def same_pages(a: Twin, b: Twin, where: str) -> dict:
    """Both pages show the current state and look the same; what they show."""
    state = a.room.table.state_id
    await showing(a, state)
    await showing(b, state)
    seen_a, seen_b = await visible(a.page), await visible(b.page)
    for part in ("title", "text", "rows"):
        lines_a, lines_b = (str(seen[part]).splitlines() if part != "rows" else seen[part]
                            for seen in (seen_a, seen_b))
        diff = "\n".join(difflib.unified_diff(lines_a, lines_b, "Infected", "Uninfected",
                                              lineterm="", n=1))
        assert lines_a == lines_b, f"{where}: the pages' {part} differ:\n{diff}"
    # Nothing private in plain view: the server marks a private fact's sentence so.
    assert PRIVATE not in seen_a["text"], f"{where}: a private fact is in plain view"
    return seen_a


async def tap(page: Page, kind: str, option: list) -> None:
    if kind == "submit" and option != ["reroll"]:
        one_tap = await page.locator(".picker[data-one-tap]").count()  # one die: a tap sends it
        for i in option[1:]:
            await page.click(f'#rolled .die[data-index="{i}"]')
        if not one_tap:
            await page.click("#submit-dice")
    elif kind in ("roll_dice", "take_dice", "discard"):
        # The dice to roll, take or discard, as dice: each colour's count stepped to the
        # option's, then the one button.
        for colour, wanted in zip(("strong", "weak", "commander"), option[1:]):
            if not await page.locator(f"#decision [data-count={colour}]").count():
                continue
            while (shown := int(await page.inner_text(f"#decision [data-count={colour}]"))) \
                    != wanted:
                step = "+" if shown < wanted else "-"
                await page.click(f"#decision [data-step='{colour}{step}']")
        go = "#decision .count-picker button.go"
        assert await page.get_attribute(go, "data-option") == compact(option)
        await page.click(go)
    else:
        await page.click(f"#decision button.option[data-option='{compact(option)}']")


async def play(a: Twin, b: Twin, observed: int, seed: int, at=None, stop=None) -> dict:
    """Play both tables in lockstep; compare the pages at every decision of the observed
    seat; `at(kind)` runs extra checks there first and `stop(kind)` ends the play. Under
    Safe Orders another seat orders the observed seat once, so its reveal is greyed."""
    rng = random.Random(seed)
    seen = {"compared": 0, "kinds": set(), "ordered": False, "veiled": set()}
    for step in range(MAX_STEPS):
        ra, rb = a.room, b.room
        if ra.table.over:
            assert rb.table.over
            return seen
        assert ra.public_view() == rb.public_view(), "the twins went out of step"
        wa, wb = ra.table.waiting_for(), rb.table.waiting_for()
        kind, seat = wa["decision"], wa["seats"][0]
        legal = [list(o) for o in wa["options"][seat]
                 if o in wb["options"][seat] and o[0] != "reveal"]
        option = pick(kind, legal, [list(d) for d in ra.table.state.seats[seat].rolled], rng)
        if kind == "action" and seat != observed and ["order", observed] in legal \
                and not seen["ordered"] and "safe_orders" in ra.public_view()["variants"]:
            option, seen["ordered"] = ["order", observed], True
        before = ra.table.state_id
        if seat == observed:
            await same_pages(a, b, f"step {step}, {kind}")
            # The question, its context and every choice on a phone's screen, no scrolling.
            await on_screen(a.page, f"step {step}, {kind}")
            if kind in VEILED_KINDS and kind not in seen["veiled"]:
                await answered_from_the_veil_alike(a, b, kind)
                seen["veiled"].add(kind)
            seen["compared"] += 1
            seen["kinds"].add(kind)
            if at is not None:
                await at(kind)
            if stop is not None and stop(kind):
                return seen
            for twin in (a, b):
                await tap(twin.page, kind, option)
                await moved(twin.room, before)
        else:
            for room in (ra, rb):
                await room.submit(seat, {"decision": kind, "option": option,
                                         "state_id": before})
    raise AssertionError("the game did not end")


# --- the checks at one moment ---

async def veil_hides_and_a_tap_shows(a: Twin, b: Twin) -> None:
    """An idle phone shows whose turn it is ("Your turn: …") and "Tap to show", the same for
    both; one tap brings the dice and the options back."""
    for twin in (a, b):
        page = twin.page
        await page.evaluate(f"document.body.dataset.idle = '{SHORT}'")
        await page.keyboard.press("Shift")  # a key re-arms the idle timer with the new delay
        await page.wait_for_selector("#unveil")
        await page.evaluate(f"document.body.dataset.idle = '{LONG}'")
        for hidden in (".die", "#decision", ".my-dice", ".hand", "#notes-toggle", ".board"):
            assert await page.locator(hidden).count() == 0, f"{hidden} shows under the veil"
        assert await page.locator("#peek").is_hidden()
        text = await page.inner_text("body")
        assert EN["phone.veil.tap"] in text
        # Whose turn it is, said to its player: "Your turn: …", never "Waiting for <self>".
        turn = await page.inner_text("#unveil")
        assert turn.startswith(EN["phone.your_turn_to"].split("{")[0])
        assert NAMES[a.observed] not in turn
    await same_pages(a, b, "veiled")
    rolled = [list(d) for d in a.room.table.state.seats[a.observed].rolled]
    for twin in (a, b):
        await twin.page.click("#unveil")
        await twin.page.wait_for_selector("#decision")
        shown = await twin.page.eval_on_selector_all(
            "#rolled .die", "els => els.map(e => [e.dataset.colour, Number(e.dataset.face)])")
        assert shown == rolled


# The decisions an idle phone shows on its veil, answered there with one tap.
VEILED_KINDS = ("participation", "vote", "action")


async def answered_from_the_veil_alike(a: Twin, b: Twin, kind: str) -> None:
    """An idle phone asked IN/OUT, a ballot or its action shows the question and every
    choice on the veil, and nothing of its dice, hand or notes: the same on both, and all on
    the screen. A tap on "Tap to show" brings back the rest."""
    for twin in (a, b):
        page = twin.page
        await page.evaluate(f"document.body.dataset.idle = '{SHORT}'")
        await page.keyboard.press("Shift")
        await page.wait_for_selector("#decision[data-veiled]")
        await page.evaluate(f"document.body.dataset.idle = '{LONG}'")
        for hidden in (".die", ".die-count", ".my-dice", ".hand", "#notes-toggle", ".board"):
            assert await page.locator(hidden).count() == 0, f"{hidden} shows under the veil"
        assert await page.locator("#peek").is_hidden()
        await on_screen(page, f"veiled {kind}")
    await same_pages(a, b, f"veiled {kind}")
    for twin in (a, b):
        await twin.page.click("#unveil")
        await twin.page.wait_for_selector("#decision:not([data-veiled])")
    await same_pages(a, b, f"unveiled again at {kind}")


async def notes_open_and_close_by_themselves(a: Twin, b: Twin) -> None:
    """"Your private notes": the same button on both; a tap lists this seat's own secret
    facts (never in the open log); they close again by themselves."""
    for twin in (a, b):
        page = twin.page
        public = await page.inner_text(".log")
        await page.click("#notes-toggle")
        notes = await page.eval_on_selector_all("#notes li", "els => els.map(e => e.innerText)")
        assert notes, "the notes list this seat's roll"
        assert all(line not in public for line in notes), "a private fact is in the open log"
        await page.click("#notes-toggle")
        assert await page.locator("#notes").count() == 0
        await closes_by_itself(page, "#notes-toggle", "#notes")
    await same_pages(a, b, "notes closed again")


async def reveal_gesture(a: Twin, b: Twin) -> None:
    """The same "Reveal yourself…" on both; the Uninfected's card says there is nothing to
    reveal (and closes by itself); the Infected's card holds the real reveal."""
    observed = a.observed
    page = b.page
    await page.click("#reveal-ask")
    await page.wait_for_selector("#reveal-nothing")
    assert await page.inner_text("#reveal-nothing") == EN["phone.reveal.nothing"]
    assert await page.inner_text("#peek-content .status-name") == word("status", UNINFECTED)
    await page.click("#card-close")
    await page.wait_for_selector("#reveal-box", state="hidden")
    await same_pages(a, b, "after the card closed")
    await closes_by_itself(page, "#reveal-ask", "#reveal-nothing")
    assert await page.inner_text("#peek-content") == ""
    await same_pages(a, b, "after the card closed by itself")

    status = a.room.table.state.seats[observed].status
    before = a.room.table.state_id
    await a.page.click("#reveal-ask")
    assert await a.page.inner_text("#peek-content .status-name") == word("status", status)
    await a.page.click("#reveal-confirm")
    await moved(a.room, before)
    assert a.room.table.state.seats[observed].revealed
    assert a.room.public_view()["seats"][observed]["status"] == status


# --- the tests ---

async def test_an_infected_and_an_uninfected_phone_look_the_same_through_a_game(twins):
    a, b, observed = await twins(NAMES[:4], [], seed=1)
    done = set()

    async def checks(kind):
        if kind == "submit" and "veil" not in done:
            await veil_hides_and_a_tap_shows(a, b)
            await notes_open_and_close_by_themselves(a, b)
            done.add("veil")

    seen = await play(a, b, observed, seed=1, at=checks)
    assert done == {"veil"}
    assert seen["veiled"] == {"participation", "vote", "action"}, seen
    assert {"action", "submit", "vote", "take_dice"} <= seen["kinds"], seen
    assert a.errors == b.errors == []


async def test_the_glance_test_holds_with_shadow_corporation(twins):
    """The corporation dice are rolled by whoever is active, whatever their card,
    the new votes and tracks are public, and the threat card is held with the Status card:
    still nothing to a glance."""
    a, b, observed = await twins(NAMES[:5], ["shadow_corporation", "threats_module",
                                             "company_man_module"], seed=5)
    seen = await play(a, b, observed, seed=5)
    assert {"action", "vote", "corporation", "take_dice"} <= seen["kinds"], seen
    assert a.errors == b.errors == []


async def test_the_reveal_is_one_gesture_that_looks_the_same_for_both(twins):
    """Five seats, Telepathic Infected and Safe Orders: the observed seat is ordered (its
    reveal greyed, the same on both), then on its own turn the gesture reveals the Infected."""
    a, b, observed = await twins(NAMES[:5], ["telepathic_infected", "safe_orders"], seed=2)
    greyed = []

    async def checks(kind):
        if kind != "action":
            return
        ordered = a.room.table.state.pending.data["ordered"]
        ask = [await twin.page.is_disabled("#reveal-ask") for twin in (a, b)]
        assert ask == [ordered, ordered]
        if ordered:
            text = await a.page.inner_text("#reveal-ask")
            assert EN["game.reason.safe_orders"] in text
            greyed.append(text)

    def stop(kind):
        return kind == "action" and not a.room.table.state.pending.data["ordered"] and greyed

    seen = await play(a, b, observed, seed=2, at=checks, stop=stop)
    assert greyed, "the observed seat was ordered under Safe Orders"
    assert "order_response" in seen["kinds"]
    await reveal_gesture(a, b)
    assert a.errors == b.errors == []
