"""The rules at hand, on the phone: what the current Event, the Final Event and the
cards in hand do, in the reader's language; the Status card's text only while it is held;
and the log saying which rule answered a decision by itself."""
from __future__ import annotations

from companion.darkmoon.data import INFECTED_CARDS, UNINFECTED
from companion.lang import catalogue
from companion.lang.facts import describe
from companion.lang.words import Words

from test_browser_kit import (Phones, browser, peek, seated_pages, served,  # noqa: F401
                              showing)

EN, ES = catalogue("en"), catalogue("es")
STATUS_TEXTS = {s: (EN[f"game.text.status.{s}"], ES[f"game.text.status.{s}"])
                for s in (UNINFECTED,) + INFECTED_CARDS}


def squeeze(text: str) -> str:
    return " ".join(text.split())


async def about(page, kind: str, card: str) -> str:
    """Open "What does it do?" under a card on the board; what it says."""
    box = page.locator(f'details.card-text[data-kind="{kind}"][data-card="{card}"]')
    await box.locator("summary").click()
    return squeeze(await box.locator("p").inner_text())


async def test_the_current_event_and_final_event_say_what_they_do_in_both_languages(
        served, browser):
    phones = Phones(browser, served.base)
    room = served.room
    pages = await seated_pages(room, phones)
    g = room.table.state
    commander = pages[g.commander]
    # The commander chooses the first Event: each card in hand says what it does.
    hand = squeeze(await commander.inner_text(".hand"))
    for card in g.event_drawn:
        assert squeeze(EN[f"game.text.event.{card}"]) in hand
    (seat,) = g.pending.seats
    await room.submit(seat, {"decision": "event", "option": ["event", g.event_drawn[0]]})
    g = room.table.state
    page = pages[(g.commander + 1) % len(pages)]   # any seat: the board is public
    await showing([page], g.state_id)
    summary = page.locator(f'details.card-text[data-card="{g.event}"] summary')
    assert await summary.inner_text() == EN["phone.card.what"]
    assert await about(page, "event", g.event) == squeeze(EN[f"game.text.event.{g.event}"])
    final = g.final_event
    assert await about(page, "final", final) == squeeze(EN[f"game.text.final.{final}"])
    # Opened, it stays open while the game moves on and the board is redrawn.
    (seat,) = g.pending.seats
    await room.submit(seat, {"decision": g.pending.kind,
                             "option": list(g.pending.options[seat][0])})
    await showing([page], room.table.state_id)
    assert await page.locator(f'details.card-text[data-card="{g.event}"]').get_attribute(
        "open") is not None
    await page.click("[data-lang='es']")
    await page.wait_for_selector("html[lang='es']", state="attached")
    box = page.locator(f'details.card-text[data-card="{g.event}"]')
    assert squeeze(await box.locator("p").inner_text()) == \
        squeeze(ES[f"game.text.event.{g.event}"])
    assert await box.locator("summary").inner_text() == ES["phone.card.what"]
    # The characters at the table, with their abilities, in Spanish too.
    await page.click("#characters summary")
    for s in g.seats:
        said = squeeze(await page.inner_text(f'#characters dd[data-character="{s.character}"]'))
        assert said == squeeze(ES[f"game.text.character.{s.character}"])
    assert phones.errors == []


async def test_the_status_text_is_on_the_page_only_while_the_card_is_held(served, browser):
    phones = Phones(browser, served.base)
    room = served.room
    pages = await seated_pages(room, phones)
    statuses = [s.status for s in room.table.state.seats]
    assert UNINFECTED in statuses and set(statuses) - {UNINFECTED}
    for page, status in zip(pages, statuses):
        html = await page.content()   # every node, hidden or not: no status text anywhere
        assert not any(text in html for pair in STATUS_TEXTS.values() for text in pair)
        # The commander's page scrolled its decision into view: the card is at the top.
        await page.wait_for_function("() => { scrollTo(0, 0); return scrollY === 0; }")
        held = squeeze(await peek(page))
        assert squeeze(STATUS_TEXTS[status][0]) in held
        others = [en for s, (en, _) in STATUS_TEXTS.items() if s != status]
        assert not any(squeeze(text) in held for text in others)
        html = await page.content()   # let go: gone again
        assert not any(text in html for pair in STATUS_TEXTS.values() for text in pair)
    page = pages[statuses.index(UNINFECTED)]
    await page.click("[data-lang='es']")
    await page.wait_for_selector("html[lang='es']", state="attached")
    assert squeeze(STATUS_TEXTS[UNINFECTED][1]) in squeeze(await peek(page))
    assert phones.errors == []


async def test_the_phone_log_says_which_rule_answered_by_itself(served, browser):
    """Every seat starts at its die limit: the first player is not asked to take dice, and
    the log says why, in English and in Spanish."""
    phones = Phones(browser, served.base)
    room = served.room
    pages = await seated_pages(room, phones)
    g = room.table.state
    (seat,) = g.pending.seats
    await room.submit(seat, {"decision": "event", "option": ["event", g.event_drawn[0]]})
    view = room.public_view()
    fact = next(f for f in reversed(view["log"]) if f["k"] == "ruled")
    assert fact["rule"] == "at_die_limit"
    page = pages[0]
    await showing([page], room.table.state_id)
    english = describe(Words("en", view), fact)
    assert "Die Limits" in english
    assert english in await page.inner_text(".log")
    await page.click("[data-lang='es']")
    await page.wait_for_selector("html[lang='es']", state="attached")
    await page.wait_for_function("(said) => document.querySelector('.log').innerText"
                                 ".includes(said)", arg=describe(Words("es", view), fact))
    assert phones.errors == []
