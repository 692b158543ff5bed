"""In a real browser: a seat button that means nothing now is answered on that
player's phone, in their language, and on nobody else's."""
from __future__ import annotations

import random

from companion.darkmoon.data import FATIGUE_TOKENS
from companion.lang import catalogue
from companion.tools.simulate import choice_for

from test_browser_kit import (NAMES, Phones, browser, changed, seated_pages, served,  # noqa: F401
                              showing)


async def seated(served, browser):
    """A game started with a phone on every seat; (room, phones, their pages)."""
    phones = Phones(browser, served.base)
    return served.room, phones, await seated_pages(served.room, phones)


async def test_a_press_out_of_turn_is_answered_on_that_phone_only(served, browser):
    room, phones, pages = await seated(served, browser)
    waited = room.table.state.pending.seats
    other = next(s for s in range(len(NAMES)) if s not in waited)
    await pages[other].click("[data-lang='es']")
    await pages[other].wait_for_selector("html[lang='es']", state="attached")
    await room.press(other, "black")
    toast = pages[other].locator(".toast.refusal")
    await toast.wait_for()
    es = catalogue("es")
    said = await toast.inner_text()
    assert es["phone.refusal.not_your_turn"] in said and es["phone.button.black"] in said
    for seat, page in enumerate(pages):
        if seat != other:
            assert await page.locator(".toast").count() == 0
    assert phones.errors == []


async def test_roll_again_or_stop_shows_the_success_total_beside_the_difficulty(served,
                                                                                browser):
    """"Roll again or stop?" is a question about the track: the phone shows the
    success so far and the difficulty with it."""
    room, _, pages = await seated(served, browser)
    rng = random.Random(3)
    for _ in range(3000):
        g = room.table.state
        if g.pending.kind == "continue" or g.outcome is not None:
            break
        seat = rng.choice(g.pending.seats)
        await room.submit(seat, choice_for(g, seat, rng))
    g = room.table.state
    assert g.pending.kind == "continue", "the seeded game reached no roll-again question"
    (seat,) = g.pending.seats
    await showing([pages[seat]], g.state_id)
    shown = await pages[seat].inner_text("#task-progress")
    assert shown == (f"Success so far {g.task.success_total}, "
                     f"difficulty {g.task.difficulty}")


async def test_a_fatigued_player_is_told_why_two_dice_cannot_be_submitted(served, browser):
    """"Submit 2 dice" was greyed with no reason for a fatigued player. The picker says why
    ("Fatigued: one die only") before a die is tapped, and the one tap submits the die."""
    room, _, pages = await seated(served, browser)
    rng = random.Random(3)
    tired = None
    for _ in range(3000):
        g = room.table.state
        assert g.outcome is None, "the game ended first"
        kind, (seat, *_) = g.pending.kind, g.pending.seats
        if kind == "participation" and tired is None and g.seats[seat].all_dice >= 2 \
                and g.seats[seat].character in FATIGUE_TOKENS and not g.fatigued(seat):
            tired = seat  # the host puts this player's fatigue token on: one die from now
            await room.submit("host", {"decision": "correct", "option": [
                "fatigue", g.seats[seat].character, "on"]})
            continue
        if kind == "submit" and seat == tired and len(g.seats[seat].rolled) >= 2:
            break
        option = ["in"] if kind == "participation" and seat == tired else None
        await room.submit(seat, {"decision": kind, "option": option} if option
                          else choice_for(g, seat, rng))
    page = pages[tired]
    await showing([page], room.table.state_id)
    # One die only: the phone says why before anything is tapped, and the tap submits.
    assert await page.inner_text("#pick-hint") == \
        "Fatigued: one die only. Tap the die you submit."
    assert await page.is_hidden("#submit-dice")
    face = list(room.table.state.seats[tired].rolled[1])
    before = room.table.state_id
    await page.click("#rolled .die[data-index='1']")
    await showing([page], await changed(room, before))
    submitted = [f for f in room.table.facts if f["k"] == "submitted"][-1]
    assert submitted["seat"] == tired and submitted["dice"] == [face]


async def test_a_decision_comes_into_view_with_a_flash_when_it_arrives(served, browser):
    """A decision arriving while the player has scrolled away appeared off-screen,
    and the turn signal did nothing on an iPhone (no vibration). The decision is scrolled
    into view and the whole page flashes."""
    room, _, pages = await seated(served, browser)
    rng = random.Random(4)
    g = room.table.state
    watcher = next(s for s in range(len(NAMES)) if s not in g.pending.seats)
    page = pages[watcher]
    await page.evaluate("""() => {
        window.flashes = 0;
        new MutationObserver(() => {
          if (document.body.classList.contains("turn-flash")) window.flashes += 1;
        }).observe(document.body, { attributes: true, attributeFilter: ["class"] });
        window.scrollTo(0, document.body.scrollHeight);  // reading the log, far below
    }""")
    assert await page.evaluate("window.scrollY") > 0, "the page is too short to scroll away"
    for _ in range(3000):  # the others play until the game asks the watcher something
        g = room.table.state
        if watcher in g.pending.seats and g.pending.options.get(watcher):
            break
        seat = next(s for s in g.pending.seats)
        await room.submit(seat, choice_for(g, seat, rng))
    await showing([page], room.table.state_id)
    await page.wait_for_selector("#decision")
    box = await page.evaluate("""() => {
        const r = document.getElementById("decision").getBoundingClientRect();
        return { top: r.top, bottom: r.bottom, height: window.innerHeight };
    }""")
    assert box["top"] < box["height"] and box["bottom"] > 0, "the decision is off-screen"
    assert await page.evaluate("window.flashes") >= 1
