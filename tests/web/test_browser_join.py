"""Where the kiosk cannot show every seat's own code (seven seats at 120x36), every
phone scans one table code and taps its own seat, listed in seat order (the number of its
buttons); that opens the seat's page, which claims the seat as its own code would."""
from __future__ import annotations

import aiohttp
import pytest

from companion.codes import readable
from companion.web.client import Refused, SealedPhone
from test_browser_kit import Phones, browser, served  # noqa: F401

NAMES = ["Ana", "Ben", "Cai", "Dee", "Eli", "Fay", "Gus"]


async def test_one_table_code_lists_every_seat_in_order_and_a_tap_claims_it(served, browser):
    room = served.room
    await room.new_game({"names": NAMES}, bots=[6])
    table = f"/j#{room.kiosk_view()['table_token']}"
    phones = Phones(browser, served.base)
    cai = await phones.open(table)
    choices = cai.locator("#seats li")
    await choices.nth(6).wait_for()
    assert [" ".join((await c.inner_text()).split()) for c in await choices.all()] == \
        [f"Seat {i + 1} {name}" for i, name in enumerate(NAMES[:6])] + ["Seat 7 Gus demo bot"]
    tokens = [s["token"] for s in room.lobby["seats"]]
    # a bot's seat is no phone's to take: listed, with no link and no code
    assert [await a.get_attribute("href") for a in await cai.locator("#seats a").all()] == \
        [f"/s#{t}" for t in tokens[:6]]
    assert tokens[6] not in await cai.content()
    await cai.get_by_role("link", name="Seat 3 Cai").click()
    await cai.wait_for_selector(".lobby")  # Cai's seat page: the seat is claimed
    assert cai.url == f"{served.base}/s#{tokens[2]}"
    assert room.room_view()["seats"][2]["claimed"]

    ben = await phones.open(table)  # the same code, a moment later
    await ben.locator("#seats li").nth(6).wait_for()
    taken = ben.locator("#seats li").nth(2)
    assert " ".join((await taken.inner_text()).split()) == "Seat 3 Cai joined"
    assert await taken.locator("a").count() == 0 and await ben.locator("#seats a").count() == 5
    await ben.click("[data-lang='es']")
    await ben.get_by_role("heading", name="¿Cuál es tu asiento?").wait_for()
    # the heading turns Spanish at once; the seats are drawn again once fetched
    await ben.get_by_role("link", name="Asiento 2 Ben").wait_for()
    assert await ben.get_by_role("link", name="Asiento 2 Ben").count() == 1
    assert await ben.locator("#seats a").count() == 5
    assert phones.errors == []


async def test_a_wrong_table_code_shows_nothing_and_says_so(served, browser):
    room = served.room
    await room.new_game({"names": NAMES[:3]})
    phones = Phones(browser, served.base)
    page = await phones.open("/j#" + "A" * 22)
    await page.wait_for_selector(".message.error")
    assert "not the code of the game on the kiosk now" in await page.inner_text("#message")
    assert await page.locator("#seats li").count() == 0
    async with aiohttp.ClientSession() as stranger:
        with pytest.raises(Refused) as refused:  # the Pi knows no code with that id
            await SealedPhone(stranger, served.base, "A" * 22).ok("seats")
        assert (refused.value.status, refused.value.code) == (404, "unknown_token")
        table = room.kiosk_view()["table_token"]
        await room.claim_seat(room.lobby["seats"][0]["token"], "phone-ana")
        seats = (await SealedPhone(stranger, served.base, table).ok("seats"))["seats"]
    # a claimed seat's token never leaves the Pi again; the free ones are what the kiosk shows
    assert [s["token"] for s in seats] == [None] + [s["token"]
                                                    for s in room.lobby["seats"][1:]]
    assert phones.errors == []


async def test_once_every_seat_has_a_phone_the_table_code_says_so(served, browser):
    room = served.room
    await room.new_game({"names": NAMES[:3]})
    table = f"/j#{room.kiosk_view()['table_token']}"
    for seat, s in enumerate(room.lobby["seats"]):
        await room.claim_seat(s["token"], f"phone-{seat}")
    phones = Phones(browser, served.base)
    page = await phones.open(table)
    await page.wait_for_selector("#message.message")
    assert "Every seat has a phone already" in await page.inner_text("#message")
    assert await page.locator("#seats a").count() == 0
    assert phones.errors == []


async def test_an_address_typed_from_the_kiosk_in_small_letters_opens_the_same_code(
        served, browser):
    # A phone that cannot scan types the address the kiosk prints beside the code: its code
    # in groups of four joined by dashes (companion/codes.py), which a phone's keyboard may
    # give in small letters. It is the same code: the seat is claimed, the table listed.
    room = served.room
    await room.new_game({"names": NAMES[:3]})
    token = room.lobby["seats"][1]["token"]
    table = room.kiosk_view()["table_token"]
    phones = Phones(browser, served.base)
    ben = await phones.open("/s#" + readable(token).lower())
    await ben.wait_for_selector(".lobby")
    assert room.room_view()["seats"][1]["claimed"]
    ana = await phones.open("/j#" + readable(table).lower())
    await ana.get_by_role("link", name="Seat 1 Ana").wait_for()
    assert " ".join((await ana.locator("#seats li").nth(1).inner_text()).split()) == \
        "Seat 2 Ben joined"
    assert phones.errors == []
