"""Fair dealing on the phones, in Chromium (darkmoon-fair/2): each seat page keeps 32 bytes of
its own for the seal it saw, pledges their hash before it gives anything, opens them once
every pledge is public, and at game over checks the record by itself and says so.

Before, a phone sent its bytes in the clear at its claim and forgot them: the Pi could swap
them for its own unseen, every reload sent new ones, and the record still verified.
"""
from __future__ import annotations

import asyncio
import copy
import random
import re

from playwright.async_api import Page

from companion.darkmoon.data import FACES
from companion.darkmoon.errors import RulesError
from companion.chance.fair import code, pledge
from companion.lang import catalogue
from companion.web.sessions import SESSIONS_KEY
from companion.tools.simulate import choice_for

from dealers import SwapsAPhonesBytes
from served_by import served_by
from test_browser_kit import (NAMES, PHONE, WAIT, Phones, browser, dealt,  # noqa: F401
                              seat_path, served, showing)

EN = catalogue("en")


def opened(served, monkeypatch) -> list:
    """Every sealed request the Pi opens from now on, as (its code's token, op, body): what a
    page sent, read where only the Pi can read it (the Wi-Fi carries it sealed)."""
    sessions = served.runner.app[SESSIONS_KEY]
    seen: list = []
    real = sessions.open_request

    def noted(raw):
        session, counter, message = real(raw)
        seen.append((session.token, message["op"], message["body"]))
        return session, counter, message
    monkeypatch.setattr(sessions, "open_request", noted)
    return seen


def sent(seen: list, token: str, *ops: str) -> list:
    """The bodies of the ops `ops` that the page holding `token` sent, in order."""
    return [body for held, op, body in seen if held == token and op in ops]


async def open_seat(phones: Phones, token: str) -> Page:
    """A seat's page on a phone of its own."""
    context = await phones.browser.new_context(**PHONE)
    page = await context.new_page()
    page.set_default_timeout(WAIT * 1000)
    page.on("pageerror", lambda error: phones.errors.append(f"{token}: {error}"))
    await page.goto(phones.base + seat_path(token))
    return page


async def sealed(page: Page) -> None:
    """The page's own bytes are kept and their pledge is in the room."""
    await page.wait_for_function(
        "(words) => { const p = document.querySelector('.lobby .fair-given');"
        " return p && p.textContent === words; }", arg=EN["phone.fair.sealed"])


async def sealed_table(served, browser) -> tuple:
    """A three-player game dealt fair (the kit's room is seeded), a phone on every seat, each
    with its bytes kept and pledged: the room, the phones and their pages."""
    room = served.room
    room.seed = None
    phones = Phones(browser, served.base)
    await room.new_game({"names": NAMES[:3]})
    pages = [await phones.open(seat_path(s["token"])) for s in room.lobby["seats"]]
    for page in pages:
        await sealed(page)
    return room, phones, pages


async def play_to_the_end(room, humans: list[int], pages: list[Page]) -> None:
    """The players' moves (the simulator's helpful player, for the seats with a phone; the
    bots play their own), every phone watching."""
    rng = random.Random(3)
    async with asyncio.timeout(120):
        while not room.table.over:
            g = room.table.state
            seats = [s for s in g.pending.seats if s in humans]
            if not seats:
                await asyncio.sleep(0.01)  # a bot's move
                continue
            seat = rng.choice(seats)
            try:
                await room.submit(seat, {**choice_for(g, seat, rng), "state_id": g.state_id})
            except RulesError:
                pass  # a bot moved first: look again
    await showing(pages, room.table.state_id)


async def checked(page: Page) -> tuple[str, str]:
    """The phone's own verdict on the deal, once it has one, and what it says."""
    result = page.locator("#fair-result:not([data-fair-check=checking])")
    await result.wait_for()
    return await result.get_attribute("data-fair-check"), await result.inner_text()


async def fair_section(page: Page, mine: list[str]) -> str:
    """The fair section as a glance sees it, with this phone's own random codes masked."""
    html = await page.inner_html("#fair")
    for code_ in mine:
        html = html.replace(code_, "MINE")
    return html


async def test_every_phone_checks_the_whole_game_by_itself_and_finds_it_fair(served, browser,
                                                                            monkeypatch):
    room = served.room
    room.seed = None  # the kit's room is seeded: this one deals fair, from a secret
    phones = Phones(browser, served.base)
    await room.new_game({"names": NAMES + ["Eve"]}, bots=[4])  # 2 Infected in 5: both kinds
    pending = room.room_view()["fair"]["pending"]
    commit = pending["commitment"]
    seen = opened(served, monkeypatch)
    tokens = [s["token"] for s in room.lobby["seats"][:4]]
    pages = [await open_seat(phones, token) for token in tokens]
    for page in pages:
        await sealed(page)
        fair = await page.inner_text(".lobby .fair")  # the seal it saw, and its own bytes' code
        assert f"Seal of game {pending['game']}: {code(commit)}" in fair
        assert re.search(r"Your phone's own part: [A-HJKMNP-Z2-9]{4}( [A-HJKMNP-Z2-9]{4}){3}",
                         fair)

    # A reload while joining sends the same pledge again: the bytes it kept, not new ones.
    pledged = room.lobby["fair"]["pledges"][2]
    await pages[2].reload()
    await sealed(pages[2])
    for seat, token in enumerate(tokens):
        claims = sent(seen, token, "claim", "pledge")
        assert claims and {(b["commitment"], b["pledge"]) for b in claims} == \
            {(commit, room.lobby["fair"]["pledges"][seat])}, seat
    assert len(sent(seen, tokens[2], "claim")) == 2
    assert room.lobby["fair"]["pledges"][2] == pledged
    assert room.lobby["fair"]["pledges"][4] is None  # the bot's seat: its filler

    await room.start()  # the reveal opens; the deal follows the last phone's bytes
    await dealt(room)
    for page in pages:  # the game is on (the bot may have moved already)
        await page.wait_for_selector("body:not([data-state=lobby])[data-state]", state="attached")
    values = room.table.fair.contributions
    for seat, token in enumerate(tokens):
        reveals = sent(seen, token, "reveal")
        assert reveals and all(b == {"commitment": commit, "value": values[seat]}
                               for b in reveals)
        assert pledge(commit, values[seat]) == room.table.fair.pledges[seat]

    # During play every phone pledges for the next game's seal as soon as it is published.
    async with asyncio.timeout(WAIT):
        while None in room.lobby["fair"]["pledges"][:4]:
            await asyncio.sleep(0.05)
    following = room.lobby["fair"]["pledges"]
    assert not set(following[:4]) & set(room.table.fair.pledges)
    upcoming = room.lobby["fair"]["commitment"]
    for page in pages:
        await page.wait_for_function(
            "(words) => [...document.querySelectorAll('#fair .fair-given')]"
            ".some((p) => p.textContent === words)", arg=EN["phone.fair.sealed"])

    # Nothing to a glance: an Infected and an Uninfected phone's fair sections are alike but
    # for each phone's own random codes (its bytes for this game and for the next).
    statuses = [s.infected for s in room.table.state.seats[:4]]
    assert True in statuses and False in statuses
    looks = set()
    for seat, page in enumerate(pages):
        mine = await page.evaluate(
            "(seal) => JSON.parse(localStorage.getItem(`darkmoon-fair:${seal}`)).value", upcoming)
        assert pledge(upcoming, mine) == following[seat]  # kept on the phone, as pledged
        looks.add(await fair_section(page, [code(values[seat]), code(mine)]))
    assert len(looks) == 1, looks
    look = looks.pop()
    assert code(commit) in look and code(upcoming) in look and look.count("MINE") == 2

    await play_to_the_end(room, [0, 1, 2, 3], pages)
    for seat, page in enumerate(pages):
        verdict, said = await checked(page)
        assert verdict == "ok", said
        assert said.startswith("This phone checked the deal: fair.")
        fair = await page.inner_text("#fair")
        assert code(commit) in fair and code(values[seat]) in fair
        assert await page.locator(f"#fair a[href='/fair?game={room.table.game_id}']").count() == 1

    # "Play again": the phones open the bytes they pledged during the game, and it is dealt
    # from them (a phone that had not shown its bytes in time would be a filler).
    game = room.table.game_id
    await room.play_again()
    await dealt(room, game)
    assert room.table.fair.pledges[:4] == following[:4]
    assert room.table.fair.sources == ["phone"] * 4 + ["filler"]
    assert not phones.errors


async def test_a_phone_whose_bytes_the_pi_swapped_says_the_deal_failed(tmp_path, browser):
    """A modified Pi deals seat 1 from bytes of its own (tests/dealers.py). Before, a phone
    forgot its bytes once sent, and such a swap verified everywhere."""
    async with served_by(tmp_path, SwapsAPhonesBytes(1)) as served:
        room, phones, pages = await sealed_table(served, browser)
        kept = list(room.lobby["fair"]["pledges"])
        await room.start()
        await dealt(room)
        assert room.table.fair.pledges[1] != kept[1]  # the swap happened
        await play_to_the_end(room, [0, 1, 2], pages)

        verdicts = [await checked(page) for page in pages]
        assert verdicts[1][0] == "failed" and EN["phone.fair.result.failed"] in verdicts[1][1]
        assert await pages[1].locator("#fair-result [data-problem=mine]").count() == 1
        said = EN["phone.fair.problem.mine"].replace("{seat}", "2")
        assert said in verdicts[1][1]
        for seat in (0, 2):  # every phone kept the pledges it saw: seat 1's isn't the record's
            assert verdicts[seat][0] == "failed", verdicts[seat]
            assert await pages[seat].locator("#fair-result [data-problem=pledges]").count() == 1
        # The verify page's checks alone pass this record: the Pi's own bytes, its own pledge.
        game = room.table.game_id
        problems = await pages[0].evaluate(
            """async (game) => {
                 const rec = await (await fetch(`/api/fair/record?game=${game}`)).json();
                 return DarkMoonFair.checkRecord(rec).problems; }""", game)
        assert problems == []
        assert not phones.errors


async def test_the_phone_says_its_check_in_spanish(served, browser):
    room = served.room
    room.seed = None
    phones = Phones(browser, served.base, locale="es-ES")
    await room.new_game({"names": NAMES[:3]})
    pages = [await phones.open(seat_path(s["token"])) for s in room.lobby["seats"]]
    es = catalogue("es")
    for page in pages:
        await page.wait_for_function(
            "(words) => { const p = document.querySelector('.lobby .fair-given');"
            " return p && p.textContent === words; }", arg=es["phone.fair.sealed"])
    await room.start()
    await dealt(room)
    await play_to_the_end(room, [0, 1, 2], pages)
    verdict, said = await checked(pages[0])
    assert verdict == "ok" and said.startswith("Este móvil ha comprobado el reparto: limpio.")
    assert not phones.errors


def showing_another_die(room, seat: int):
    """A modified Pi's record: one die the seat rolled reads another face in the record's
    facts, its chance outcomes left as the stream gives them. The verify page cannot tell
    (it does not replay the rules); the phone that was shown that roll can."""
    honest = room.fair_record

    async def record(game=None):
        rec = copy.deepcopy(await honest(game))
        for event in rec["events"]:
            for fact in event["facts"]:
                if fact["k"] == "rolled" and fact["seat"] == seat:
                    colour, face = fact["dice"][0]
                    fact["dice"][0][1] = next(f for f in FACES[colour] if f != face)
                    return rec
        raise AssertionError("the seat never rolled")
    return record


async def test_a_phone_shown_other_dice_than_the_records_says_the_deal_failed(served, browser):
    room, phones, pages = await sealed_table(served, browser)
    await room.start()
    await dealt(room)
    await play_to_the_end(room, [0, 1, 2], pages)
    seat = next(f["seat"] for f in room.table.facts if f["k"] == "rolled")
    room.fair_record = showing_another_die(room, seat)
    await pages[seat].reload()  # it checks again, against the record the Pi gives now
    verdict, said = await checked(pages[seat])
    assert verdict == "failed", said
    assert await pages[seat].locator("#fair-result [data-problem=dice]").count() == 1
    assert await pages[seat].locator("#fair-result [data-problem=shown]").count() == 1
    problems = await pages[seat].evaluate(
        """async (game) => {
             const rec = await (await fetch(`/api/fair/record?game=${game}`)).json();
             return DarkMoonFair.checkRecord(rec).problems; }""", room.table.game_id)
    assert problems == []  # the chance is the stream's: only the rules, or the phone, tell
    assert not phones.errors


async def test_a_claim_told_the_seal_changed_looks_again_and_pledges_to_the_new_one(
        served, browser, monkeypatch):
    """The seal the page read is gone by the time its claim arrives (a game set up again
    meanwhile): refused, nothing taken; the page reads the room again and pledges anew."""
    room = served.room
    phones = Phones(browser, served.base)
    await room.new_game({"names": NAMES[:3]})
    stale = room.room_view()["fair"]["pending"]["commitment"]
    await room.new_game({"names": NAMES[:3]}, replace=True)
    token = room.lobby["seats"][0]["token"]
    seen = opened(served, monkeypatch)
    context = await browser.new_context(**PHONE)
    answered = []

    async def first_board_is_stale(route):  # the room as the page read it a moment ago
        response = await route.fetch()
        board = await response.json()
        if not answered:
            board["room"]["fair"]["pending"]["commitment"] = stale
        answered.append(board)
        await route.fulfill(response=response, json=board)
    await context.route("**/api/board", first_board_is_stale)
    page = await context.new_page()
    page.set_default_timeout(WAIT * 1000)
    page.on("pageerror", lambda error: phones.errors.append(str(error)))
    await page.goto(served.base + seat_path(token))
    await sealed(page)
    claims = [body["commitment"] for body in sent(seen, token, "claim")]
    fresh = room.lobby["fair"]["commitment"]
    assert claims == [stale, fresh]
    mine = await page.evaluate(
        "(seal) => JSON.parse(localStorage.getItem(`darkmoon-fair:${seal}`)).pledge", fresh)
    assert room.lobby["fair"]["pledges"] == [mine, None, None]
    assert not phones.errors


async def test_the_hosts_sit_carries_the_pledge_the_seat_page_then_keeps(served, browser,
                                                                        monkeypatch):
    room = served.room
    phones = Phones(browser, served.base)
    await room.new_game({"names": NAMES[:3]})
    seen = opened(served, monkeypatch)
    context = await browser.new_context(**PHONE)
    host = await context.new_page()
    host.set_default_timeout(WAIT * 1000)
    host.on("pageerror", lambda error: phones.errors.append(str(error)))
    await host.goto(f"{served.base}/h#{room.host_token}")
    await host.click("[data-sit='1']")
    await sealed(host)  # now the seat's page, on the same phone
    commit = room.lobby["fair"]["commitment"]
    sat = sent(seen, room.host_token, "sit")
    claims = sent(seen, room.lobby["seats"][1]["token"], "claim")
    pledged = room.lobby["fair"]["pledges"][1]
    assert sat == [{"seat": 1, "commitment": commit, "pledge": pledged}]
    assert claims == [{"commitment": commit, "pledge": pledged}]  # the same bytes, kept
    assert not phones.errors


async def test_a_phone_that_could_not_show_its_bytes_in_time_says_it_cannot_vouch(served,
                                                                                  browser):
    """Its reveal never reaches the Pi (a phone asleep, out of the Wi-Fi): the deal goes on
    with the fixed filler for its seat and its pledge, and the phone says so, not "fair"."""
    room, phones, pages = await sealed_table(served, browser)
    room.reveal_wait = 1.0
    # Every sealed request of that phone is lost (the Wi-Fi carries no op's name to pick
    # the reveal out by): its stream still shows the game.
    await pages[2].route("**/api/sealed", lambda route: route.abort())
    await room.start()
    await dealt(room)
    assert room.table.fair.sources == ["phone", "phone", "filler"]
    await play_to_the_end(room, [0, 1, 2], pages)
    verdicts = [await checked(page) for page in pages]
    assert [v for v, _ in verdicts] == ["ok", "ok", "late"], verdicts
    assert EN["phone.fair.result.late"] in verdicts[2][1]
    assert not phones.errors


async def test_a_phone_whose_pledge_the_pi_took_out_before_the_reveal_says_so(served, browser,
                                                                             monkeypatch):
    """A modified Pi takes seat 1's pledge out as the reveal opens, so that seat is dealt its
    filler and the Pi need not face that phone's bytes. The phone saw its pledge in its seat's
    place before: it keeps its bytes to itself, and at game over says its part is not in."""
    room = served.room
    honest = room.deals._open_reveal

    async def open_without_seat_1():
        room.lobby["fair"]["pledges"][1] = None  # the modified Pi's one change
        await honest()
    monkeypatch.setattr(room.deals, "_open_reveal", open_without_seat_1)
    room, phones, pages = await sealed_table(served, browser)
    await room.start()
    await dealt(room)
    assert room.table.fair.sources == ["phone", "filler", "phone"]
    await play_to_the_end(room, [0, 1, 2], pages)
    verdict, said = await checked(pages[1])
    assert verdict == "failed", said
    assert EN["phone.fair.problem.mine"].replace("{seat}", "2") in said
    assert not phones.errors


async def test_every_page_announces_that_a_replaced_games_deal_is_open_to_checking(served,
                                                                                   browser):
    """The host replaces a game in play: its record is public at once, and the board page
    (as every live page) says so, in the room's language, naming the game."""
    room, phones, pages = await sealed_table(served, browser)
    await room.start()
    await dealt(room)
    board = await phones.open("/board")
    await board.wait_for_selector(f".board[data-state='{room.table.state_id}']")
    replaced = room.table.game_id
    await room.new_game({"names": NAMES[:3]}, replace=True)
    toast = board.locator(".toast.announce")
    await toast.wait_for()
    assert EN["phone.notice.game_revealed"].replace("{game}", str(replaced)) in \
        await toast.inner_text()
    assert not phones.errors
