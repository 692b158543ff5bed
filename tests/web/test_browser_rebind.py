"""In a real browser: a re-bind is announced on every phone, so it can never happen
unseen; the kicked phone is out for good, and the seat's new code works for a new phone."""
from __future__ import annotations

from test_browser_kit import (Phones, browser, seat_path, seated_pages, served,  # noqa: F401
                              showing)


async def seated(served, phones):
    room = served.room
    host = await phones.open(f"/h#{room.host_token}")
    await host.wait_for_selector("#setup #create")
    return room, host, await seated_pages(room, phones)


async def test_every_phone_hears_of_a_rebind_and_the_old_phone_stays_out(served, browser):
    phones = Phones(browser, served.base)
    room, host, seats = await seated(served, phones)
    old = room.lobby["seats"][2]["token"]
    await room.rebind(2)
    said = "The host re-bound seat 3 (Cai): its old phone is out"
    for page in (host, seats[0], seats[1], seats[3]):
        toast = page.locator(".toast.announce")
        await toast.wait_for()
        assert said in await toast.inner_text()
    await seats[2].wait_for_selector(".message.error")  # the kicked phone shows nothing more
    assert await seats[2].locator("#mine").is_hidden()
    await seats[2].reload()  # reloading the old code brings nothing back
    await seats[2].wait_for_selector(".message.error")
    assert await seats[2].locator("#mine").is_hidden()
    assert room.lobby["seats"][2]["phone"] is None and room.lobby["seats"][2]["token"] != old
    fresh = await phones.open(seat_path(room.lobby["seats"][2]["token"]))
    await showing([fresh], room.table.state_id)
    assert room.lobby["seats"][2]["phone"] is not None
    assert phones.errors == []


async def test_a_new_host_code_is_announced_in_spanish_too(served, browser):
    phones = Phones(browser, served.base)
    room, host, seats = await seated(served, phones)
    await seats[1].click("[data-lang='es']")  # this player reads Spanish
    await seats[1].wait_for_selector("html[lang='es']", state="attached")
    await room.new_host_code()
    toast = seats[1].locator(".toast.announce")
    await toast.wait_for()
    assert "Se creó un código de anfitrión nuevo en la Pi" in await toast.inner_text()


async def test_the_host_hands_a_bots_seat_to_a_person_and_every_phone_hears_of_it(
        served, browser):
    """A bot's seat has no code and no phone may claim it; the host gives it to a person on
    the host page (two taps), and every phone hears of it, as of a re-bind."""
    import asyncio

    from test_browser_kit import NAMES, WAIT
    room = served.room
    phones = Phones(browser, served.base)
    host = await phones.open(f"/h#{room.host_token}")
    await host.wait_for_selector("#setup #create")
    await room.new_game({"names": NAMES}, bots=[3])
    old = room.lobby["seats"][3]["token"]
    pages = [await phones.open(seat_path(s["token"])) for s in room.lobby["seats"][:3]]
    for page in pages:
        await page.wait_for_selector(".lobby")
    assert room.kiosk_view()["seat_tokens"][3] is None
    sneaky = await phones.open(seat_path(old))  # the bot's code, had anyone noted it
    await sneaky.wait_for_selector(".message.error")
    assert "A bot plays this seat" in await sneaky.inner_text(".message.error")
    assert room.lobby["seats"][3]["phone"] is None
    button = host.locator("[data-hand-over='3']")
    await button.click()
    await host.locator("[data-hand-over='3'].danger").wait_for()  # a second tap confirms
    assert room.lobby["seats"][3]["bot"]
    await host.locator("[data-hand-over='3']").click()
    said = "The host gave seat 4 (Dee) from its bot to a person"
    for page in (host, *pages):
        toast = page.locator(".toast.announce")
        await toast.wait_for()
        assert said in await toast.inner_text()
    assert not room.lobby["seats"][3]["bot"] and room.bot_seats() == []
    fresh = room.kiosk_view()["seat_tokens"][3]
    assert fresh and fresh != old
    assert await host.locator("[data-hand-over]").count() == 0
    person = await phones.open(seat_path(fresh))
    await person.wait_for_selector(".lobby")
    async with asyncio.timeout(WAIT):
        while room.lobby["seats"][3]["phone"] is None:
            await asyncio.sleep(0.02)
    await host.wait_for_selector("#start:not([disabled])")
    assert phones.errors == []
