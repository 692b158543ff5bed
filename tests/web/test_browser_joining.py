"""In a real browser: a wrong seat tapped at joining is given back from the seat's own page
and its player takes it with the code everyone scanned (nobody scans again); a phone whose
seat the host gave to another phone says so plainly, in its own language; and a host who
plays has the host's controls on their own seat page, one page for both jobs, with nothing
of anyone's secrets in them."""
from __future__ import annotations

import asyncio

from companion.lang import catalogue

from test_browser_a11y import Audit
from test_browser_kit import (NAMES, PHONE, WAIT, Phones, browser, sealed_op,  # noqa: F401
                              seat_path, seated_pages, served, showing, word)

SEVEN = ["Ana", "Ben", "Cai", "Dee", "Eli", "Fay", "Gus"]
LOBBY_TAKEN = catalogue("en")["phone.error.seat_claimed_lobby"]


def lines(text: str) -> str:
    return " ".join(text.split())


async def until(check) -> None:
    async with asyncio.timeout(WAIT):
        while not check():
            await asyncio.sleep(0.02)


async def test_a_wrong_seat_is_left_and_its_player_takes_it_with_the_same_table_code(
        served, browser):
    room = served.room
    await room.new_game({"names": SEVEN})
    codes = [s["token"] for s in room.lobby["seats"]]
    table_token = room.kiosk_view()["table_token"]
    table = f"/j#{table_token}"
    phones = Phones(browser, served.base)
    cai = await phones.open(table)
    await cai.get_by_role("link", name="Seat 3 Cai").click()
    await cai.wait_for_selector(".lobby")
    ben = await phones.open(table)  # Ben has scanned the table code too, like everyone
    await ben.get_by_role("link", name="Seat 2 Ben").wait_for()
    # Ana taps Ben's seat by mistake: her page says whose seat this phone now is
    ana = await phones.open(table)
    await ana.get_by_role("link", name="Seat 2 Ben").click()
    await ana.wait_for_selector("#lobby-you")
    assert await ana.inner_text("#lobby-you") == "This phone is seat 2: Ben."
    assert await ana.inner_text("#leave") == "Not Ben? Leave this seat"
    audit = Audit()
    await audit.check(ana, "a seat's lobby, its leave button")
    assert not audit.problems, "\n".join(audit.problems)
    await cai.wait_for_selector(".lobby li:nth-child(2).joined")
    # Ben taps his seat: taken, and his page says what can be done about it, under no name
    await ben.get_by_role("link", name="Seat 2 Ben").click()
    await ben.wait_for_selector(f"#message:has-text('{LOBBY_TAKEN[:40]}')")
    assert await ben.inner_text("#who") == "Dark Moon"
    assert room.lobby["seats"][1]["phone"] != room.lobby["seats"][0]["phone"]

    # One tap gives it back: Ana is on the seat list again, with the same table code
    await ana.click("#leave")
    await ana.wait_for_url(f"{served.base}/j?left=2#{table_token}")
    await ana.get_by_role("link", name="Seat 2 Ben").wait_for()
    assert await ana.inner_text("#message") == \
        "You left seat 2: it is free again for its player. Tap your own seat."
    assert room.lobby["seats"][1]["phone"] is None
    # the kiosk and the other phones show Ben's seat free again, its code the one it had
    assert room.kiosk_view()["seat_tokens"][1] == codes[1]
    assert room.kiosk_view()["table_token"] == table_token
    await cai.wait_for_selector(".lobby li:nth-child(2):not(.joined)")
    assert "not joined yet" in await cai.inner_text(".lobby li:nth-child(2)")
    await ana.get_by_role("link", name="Seat 1 Ana").click()
    await ana.wait_for_selector("#lobby-you")
    assert ana.url == f"{served.base}/s#{codes[0]}"
    assert await ana.inner_text("#who") == "Ana"

    # Ben never scans again: back to the list he had, and his seat is his
    await ben.click("#back-to-seats")
    await ben.get_by_role("link", name="Seat 2 Ben").click()
    await ben.wait_for_selector("#lobby-you")
    assert ben.url == f"{served.base}/s#{codes[1]}"
    await until(lambda: room.lobby["seats"][1]["phone"] is not None)
    # nobody's code changed; Cai never left the page the first tap opened
    assert [s["token"] for s in room.lobby["seats"]] == codes
    assert cai.url == f"{served.base}/s#{codes[2]}"
    assert await cai.locator(".message.error").count() == 0
    await cai.wait_for_selector(".lobby li:nth-child(1).joined")
    await cai.wait_for_selector(".lobby li:nth-child(2).joined")
    # the page Ana left behind does not come back to take Ben's seat again
    holders = [s["phone"] for s in room.lobby["seats"]]
    await ana.go_back()
    await ana.wait_for_url(f"{served.base}/j?left=2#{table_token}")
    await ana.get_by_role("link", name="Seat 4 Dee").wait_for()
    assert [s["phone"] for s in room.lobby["seats"]] == holders
    assert phones.errors == []


async def test_the_leave_button_is_gone_once_the_game_starts(served, browser):
    phones = Phones(browser, served.base)
    room = served.room
    pages = await seated_pages(room, phones)
    assert await pages[1].locator("#leave").count() == 0
    assert await pages[1].locator("#lobby-you").count() == 0
    assert phones.errors == []


async def test_a_phone_whose_seat_was_given_to_another_says_so_in_its_own_language(
        served, browser):
    phones = Phones(browser, served.base)
    room = served.room
    pages = await seated_pages(room, phones)
    await pages[2].click("[data-lang='es']")
    await pages[2].wait_for_selector("html[lang='es']", state="attached")
    await room.rebind(1)
    await room.rebind(2)
    es, en = catalogue("es"), catalogue("en")
    for page, words in ((pages[1], en), (pages[2], es)):
        await page.wait_for_selector(".message.error")
        assert await page.inner_text(".message.error") == words["phone.error.seat_given_away"]
        # no player's name over it, and nothing of the seat it held
        assert await page.inner_text("#who") == "Dark Moon"
        assert await page.locator("#mine").is_hidden()
        assert await page.inner_text("#public") == ""
    assert "Este asiento se dio a otro teléfono" in await pages[2].inner_text(".message.error")
    await pages[1].reload()  # its old code brings nothing back, and says why
    await pages[1].wait_for_selector(".message.error")
    assert await pages[1].inner_text(".message.error") == en["phone.error.seat_given_away"]
    assert await pages[1].inner_text("#who") == "Dark Moon"
    assert phones.errors == []


async def open_watched(phones: Phones, path: str):
    """A phone's page, opened once its question "is this phone the host?" is answered."""
    context = await phones.browser.new_context(**PHONE)
    page = await context.new_page()
    page.set_default_timeout(WAIT * 1000)
    page.on("pageerror", lambda error: phones.errors.append(f"{path}: {error}"))
    await page.goto(phones.base + path)
    await page.wait_for_selector("body[data-host]", state="attached")
    return page


DRAWER = """() => {
  const copy = document.querySelector('#host-drawer').cloneNode(true);
  // what tells which seat is the host's own: its place, never its status
  for (const mark of copy.querySelectorAll('.you, [data-rebind]')) mark.remove();
  return copy.innerHTML;
}"""


async def test_a_host_who_plays_does_both_on_one_page_and_sees_no_secret(served, browser):
    room = served.room
    phones = Phones(browser, served.base)
    host = await phones.open(f"/h#{room.host_token}")
    await host.wait_for_selector("#setup #create")
    await host.select_option("#players", "4")
    for i, name in enumerate(NAMES):
        await host.fill(f"[name=name-{i}]", name)
    await host.click("#create")
    await host.wait_for_selector("ul.join li[data-seat='3'] [data-sit='3']")
    assert await host.locator("#sit-hint").count() == 1
    audit = Audit()
    await audit.check(host, "host's page, seats to sit in")
    # The host plays Ana: one tap, and this page becomes Ana's seat page
    await host.click("[data-sit='0']")
    code = room.lobby["seats"][0]["token"]
    await host.wait_for_url(f"{served.base}/s#{code}")
    await host.wait_for_selector("#host-drawer[open] #start[disabled]")
    assert room.lobby["seats"][0]["phone"] == room.host_phone
    assert await host.inner_text("#lobby-you") == "This phone is seat 1: Ana."
    assert await host.locator("#host-drawer ul.join li[data-seat]").count() == 4
    assert await host.locator("#host-drawer [data-sit]").count() == 0
    assert await host.locator("#host-drawer .you").count() == 1
    await audit.check(host, "host's seat page, lobby")

    # The other seats' pages get no host controls
    others = [await open_watched(phones, seat_path(s["token"]))
              for s in room.lobby["seats"][1:]]
    for page in others:
        await page.wait_for_selector("#lobby-you")
        await page.evaluate("() => new Promise((done) => setTimeout(done, 100))")
        assert await page.locator("#host-drawer, #start, [data-rebind]").count() == 0
    await host.wait_for_selector("#host-drawer summary.ready")
    assert "everyone has joined" in await host.inner_text("#host-drawer summary")
    await host.click("#host-drawer #start")
    await showing([host, *others], 0)
    assert room.phase == "play"
    # its own seat's private screen and the host's controls, on the one page
    # (veiled by now or not: the page came without the tests' long idle delay)
    await host.wait_for_selector("#private .my-dice, #private #unveil")
    await host.wait_for_selector("#host-drawer details.corrections")
    await host.wait_for_selector("#host-drawer #host-page")
    for s in room.table.state.seats:  # the controls show no one's Status card
        text = await host.inner_text("#host-drawer")
        assert word("status", s.status) not in text and s.status not in text
    before = room.table.state_id
    await host.click("#host-drawer details.corrections > summary")
    await host.select_option("#host-drawer [data-correct=shield]", "4")
    await host.click("#host-drawer [data-set=shield]")
    await showing([host], before + 1)
    assert room.table.state.shield_tokens == 4
    await audit.check(host, "host's seat page, corrections open")
    assert not audit.problems, "\n".join(audit.problems)
    await host.click("#host-drawer details.corrections > summary")  # folded again

    # An Infected and an Uninfected host's seat page show the same host controls
    statuses = [s.status for s in room.table.state.seats]
    other = next(i for i in range(1, 4) if (statuses[i] == "uninfected")
                 != (statuses[0] == "uninfected"))
    await host.click("#host-drawer > summary")  # folded, as a page that opens mid-game
    await host.wait_for_selector("#host-drawer:not([open])", state="attached")
    mine = (await host.evaluate(DRAWER)).replace(room.host_token, "<host code>")
    await room.new_host_code()  # the host role moves to the other seat's phone
    await host.wait_for_selector("#host-drawer", state="detached")  # and leaves this page
    page = others[other - 1]
    answer = await sealed_op(page, room.host_token, "claim")
    assert answer == {"data": {"host": True}}
    await page.reload()
    await page.wait_for_selector("#host-drawer #host-page", state="attached")
    await page.wait_for_selector("#host-drawer .corrections-box details", state="attached")
    assert (await page.evaluate(DRAWER)).replace(room.host_token, "<host code>") == mine
    # in the language the page is read in
    await page.click("[data-lang='es']")
    await page.wait_for_selector("#host-drawer > summary:text-is('Anfitrión')")
    assert phones.errors == []


async def test_the_hosts_page_leads_to_the_seat_it_plays(served, browser):
    room = served.room
    phones = Phones(browser, served.base)
    host = await phones.open(f"/h#{room.host_token}")
    await host.wait_for_selector("#setup #create")
    await room.new_game({"names": NAMES})
    await host.click("[data-sit='2']")
    code = room.lobby["seats"][2]["token"]
    await host.wait_for_url(f"{served.base}/s#{code}")
    await host.wait_for_selector("#host-drawer #host-page")
    await host.click("#host-drawer #host-page")  # back on the host's page, in the same tab
    await host.wait_for_selector("#my-seat")
    assert await host.get_attribute("#my-seat", "href") == f"/s#{code}"
    assert await host.locator("[data-sit]").count() == 0
    assert "Cai" in await host.inner_text("#my-seat")
    assert phones.errors == []
