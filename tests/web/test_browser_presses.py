"""Issue 11, in a real browser: a seat button that means nothing now is answered on that
player's phone, in their language, and on nobody else's."""
from __future__ import annotations

from companion.lang import catalogue

from test_browser_kit import NAMES, Phones, browser, seat_path, served, showing  # noqa: F401


async def test_a_press_out_of_turn_is_answered_on_that_phone_only(served, browser):
    phones = Phones(browser, served.base)
    room = served.room
    await room.new_game({"names": NAMES})
    pages = [await phones.open(seat_path(s["token"])) for s in room.lobby["seats"]]
    for page in pages:
        await page.wait_for_selector(".lobby")
    await room.start()
    await showing(pages, room.table.state_id)
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
    """Issue 11: "Roll again or stop?" is a question about the track: the phone shows the
    success so far and the difficulty with it."""
    import random

    from companion.simulate import choice_for
    phones = Phones(browser, served.base)
    room = served.room
    await room.new_game({"names": NAMES})
    pages = [await phones.open(seat_path(s["token"])) for s in room.lobby["seats"]]
    for page in pages:
        await page.wait_for_selector(".lobby")
    await room.start()
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
