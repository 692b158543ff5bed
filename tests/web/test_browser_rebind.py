"""Issue 9, in a real browser: a re-bind is announced on every phone, so it can never happen
unseen; the kicked phone is out for good, and the seat's new code works for a new phone."""
from __future__ import annotations

from test_browser_kit import (Phones, browser, seat_path, seated_pages, served,  # noqa: F401
                              showing)


async def seated(served, phones):
    room = served.room
    host = await phones.open(f"/h/{room.host_token}")
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
