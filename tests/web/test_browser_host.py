"""The host's page and a phone's language and reconnection, in a real browser."""
from __future__ import annotations

import random

from companion.lang import catalogue
from companion.tools.simulate import choice_for

from test_browser_kit import (NAMES, Phones, browser, peek, private_html, sealed_op,  # noqa: F401
                              seat_path, served, showing, word)


async def test_host_sets_up_starts_corrects_and_rebinds(served, browser):
    room = served.room
    phones = Phones(browser, served.base)
    host = await phones.open(f"/h#{room.host_token}")
    await host.wait_for_selector("#setup #create")
    await host.select_option("#players", "3")
    for i, name in enumerate(["Ana", "Ben", "Cai"]):
        await host.fill(f"[name=name-{i}]", name)
    await host.select_option("[name=character-0]", "luba")
    await host.select_option("[name=final_event]", "escape")
    await host.check("[name=variant][value=safe_orders]")
    await host.select_option("[name=lang]", "es")
    await host.click("#create")
    await host.wait_for_selector("ul.join li[data-seat='2']")
    setup = room.lobby["setup"]
    assert setup["names"] == ["Ana", "Ben", "Cai"]
    assert setup["characters"][0] == "luba" and len(set(setup["characters"])) == 3
    assert setup["final_event"] == "escape" and setup["variants"] == ["safe_orders"]
    assert room.lang == "es"
    assert await host.is_disabled("#start"), "status cards wait for every seat"

    # Seats join; the host sees it live, and may start once all three are in.
    seats = [await phones.open(seat_path(s["token"])) for s in room.lobby["seats"]]
    await host.wait_for_selector("#start:not([disabled])")
    # Once every seat is in, the pages say so and what comes next
    en = catalogue("en")
    assert await host.inner_text("#start-hint") == en["phone.host.everyone"]
    await seats[0].wait_for_selector("#lobby-state")
    assert await seats[0].inner_text("#lobby-state") == en["phone.lobby.everyone"]
    await host.click("#start")
    await host.wait_for_selector('.board[data-state="0"]')
    html = await private_html(host)
    for s in room.table.state.seats:
        assert s.status not in html and word("status", s.status) not in html, \
            "the host sees no Status card"

    # Corrections: the host sets what the physical board shows; everyone sees it.
    await host.click("details.corrections > summary")
    before = room.table.state_id
    await host.select_option("[data-correct=shield]", "4")
    await host.click("[data-set=shield]")
    await host.wait_for_selector(f'.board[data-state="{before + 1}"]')
    assert room.table.state.shield_tokens == 4
    off = next(t for t in ("research_lab", "communications", "life_support")
               if t not in room.table.state.outpost_board)
    await host.click(f"[data-token='outpost:{off}']")
    await host.wait_for_selector(f".board[data-state='{before + 2}']")
    assert off in room.table.state.outpost_board
    assert await host.get_attribute(f"[data-token='outpost:{off}']", "aria-pressed") == "true"
    await host.select_option("[data-correct=sabotage]", '"fatigue"')
    await host.click("[data-set=sabotage]")
    await host.wait_for_selector(f".board[data-state='{before + 3}']")
    assert room.table.state.sabotage == "fatigue"
    board = await phones.open("/board")
    await board.wait_for_selector(f".board[data-state='{before + 3}']")
    assert "4/6" in await board.inner_text(".tracks")

    # Re-binding a lost phone's seat takes a second, confirming tap.
    await host.click("[data-rebind='2']")
    assert room.lobby["seats"][2]["phone"] is not None
    await host.click("[data-rebind='2']")
    await host.wait_for_selector("ul.join li.not_joined[data-seat='2']")
    assert room.lobby["seats"][2]["phone"] is None
    await seats[2].wait_for_selector(".message.error")  # the old phone is told, and shows nothing
    assert await seats[2].locator("#mine").is_hidden()
    assert phones.errors == []


async def test_a_phone_keeps_its_language_and_catches_up_after_an_outage(served, browser):
    room = served.room
    phones = Phones(browser, served.base)
    await room.new_game({"names": NAMES})
    page = await phones.open(seat_path(room.lobby["seats"][0]["token"]))
    await page.wait_for_selector(".lobby")
    for seat in room.lobby["seats"][1:]:
        await room.claim_seat(seat["token"], f"phone-{seat['token']}")
    await room.start()
    await page.wait_for_selector('body[data-state="0"]')
    en, es = catalogue("en"), catalogue("es")
    assert await page.inner_text("#peek-hint") == en["phone.peek.hint"]
    await page.click(".lang-toggle [data-lang=es]")
    await page.wait_for_selector(f"text={es['phone.peek.hint']}")
    assert es["phone.track.shield"] in await page.inner_text(".tracks")
    await page.reload()  # the choice is kept on the phone
    await page.wait_for_selector('body[data-state="0"]')
    assert await page.inner_text("#peek-hint") == es["phone.peek.hint"]
    assert (await peek(page)).startswith(word("status", room.table.state.seats[0].status, "es"))

    # The server goes away (a restart, the Wi-Fi drops) while the game moves on; when it is
    # back the phone reconnects by itself and shows where the game is now.
    await served.stop()
    await room.submit("host", {"decision": "correct", "option": ["shield", 5]})
    await served.start()
    await page.wait_for_selector('body[data-state="1"]', state="attached")
    assert "5/6" in await page.inner_text(".tracks")
    assert phones.errors == []


async def test_host_corrects_command_quarantine_lost_dice_and_events_in_both_languages(
        served, browser):
    """Every public fact can be corrected from the host page, in plain words in English and
    in Spanish, and each correction reaches the public log in the reader's language."""
    room = served.room
    phones = Phones(browser, served.base)
    await room.new_game({"names": NAMES})
    for seat in room.lobby["seats"]:
        await room.claim_seat(seat["token"], f"phone-{seat['token']}")
    await room.start()
    host = await phones.open(f"/h#{room.host_token}")
    await host.wait_for_selector('.board[data-state="0"]')
    while room.table.state.pending.kind != "action":  # the first event is placed
        g = room.table.state
        (seat,) = g.pending.seats
        await room.submit(seat, {"decision": g.pending.kind,
                                 "option": list(g.pending.options[seat][0])})
    en, es = catalogue("en"), catalogue("es")
    state = room.table.state_id
    await host.wait_for_selector(f'.board[data-state="{state}"]')
    await host.click("details.corrections > summary")
    for key in ("commander", "quarantine", "die_tokens", "lost_dice", "event", "completed"):
        assert en[f"phone.correct.{key}"] in await host.inner_text(f"[data-row={key}]")

    # The commander card moves: the old commander's die goes back to the pool.
    g = room.table.state
    heir = next(i for i in range(4) if i != g.commander)
    await host.select_option("[data-correct=commander]", str(heir))
    await host.click("[data-set=commander]")
    state += 1
    await host.wait_for_selector(f'.board[data-state="{state}"]')
    assert room.table.state.commander == heir
    assert f"{NAMES[heir]} is the commander" in await host.inner_text(".log")

    # A quarantine toggle, and a die lost under the table (then found again).
    await host.click(f"[data-token='quarantine:{heir}']")
    state += 1
    await host.wait_for_selector(f'.board[data-state="{state}"]')
    assert room.table.state.seats[heir].quarantined
    await host.click("[data-lose=strong]")
    state += 1
    await host.wait_for_selector(f'.board[data-state="{state}"]')
    assert room.table.state.lost["strong"] == 1
    assert sum(room.table.state.dice_total().values()) == 29
    assert en["phone.track.lost"] in await host.inner_text(".board")  # the board says so

    # In Spanish: the same controls in Spanish words, and the log sentence too.
    await host.click(".lang-toggle [data-lang=es]")
    await host.wait_for_selector(f"text={es['phone.correct.lost_dice']}")
    for key in ("commander", "quarantine", "die_tokens", "event", "completed"):
        assert es[f"phone.correct.{key}"] in await host.inner_text(f"[data-row={key}]")
    await host.click("[data-found=strong]")
    state += 1
    await host.wait_for_selector(f'.board[data-state="{state}"]')
    assert room.table.state.lost["strong"] == 0
    assert es["phone.track.lost"] not in await host.inner_text(".board")
    card = next(c for c in room.table.state.event_deck if c != room.table.state.event)
    await host.click(f"[data-token='completed:{card}']")
    state += 1
    await host.wait_for_selector(f'.board[data-state="{state}"]')
    assert room.table.state.completed_events == [card]
    await host.wait_for_selector(f"text={word('event', card, 'es')} es un Evento completado")
    assert phones.errors == []


async def test_play_again_deals_a_new_game_to_the_same_phones_and_the_form_remembers(
        served, browser):
    """After a game, one tap deals the next one to the same phones on the same
    seats; and a host page opened later offers the last table's names."""
    room = served.room
    phones = Phones(browser, served.base)
    host = await phones.open(f"/h#{room.host_token}")
    await host.wait_for_selector("#setup #create")
    for i, name in enumerate(NAMES):
        await host.fill(f"[name=name-{i}]", name)
    await host.click("#create")
    await host.wait_for_selector("ul.join li[data-seat='3']")
    seats = [await phones.open(seat_path(s["token"])) for s in room.lobby["seats"]]
    await host.wait_for_selector("#start:not([disabled])")
    await host.click("#start")
    await showing(seats, 0)
    rng = random.Random(1)
    while room.table.state.outcome is None:
        g = room.table.state
        seat = rng.choice(g.pending.seats)
        await room.submit(seat, choice_for(g, seat, rng))
    first = room.table.game_id
    # A seat re-bound after the game waits for its new phone: no deal to a seat nobody holds
    await room.rebind(1)
    await host.wait_for_selector("#again[disabled]")
    assert "A seat waits for its phone" in await host.inner_text("#again-hint")
    seats[1] = await phones.open(seat_path(room.kiosk_view()["seat_tokens"][1]))
    await host.wait_for_selector("#again:not([disabled])")
    await host.click("#again")
    await showing(seats, 0)  # every phone, still on its seat, shows the new deal
    assert room.table.game_id != first and room.phase == "play"
    for page in seats:
        assert not await page.locator(".message.error").count()
    await host.reload()  # the host's phone remembers the table it set up
    await host.wait_for_selector("#setup #create", state="attached")
    assert [await host.input_value(f"[name=name-{i}]") for i in range(4)] == NAMES
    assert phones.errors == []


async def test_the_host_saves_the_whole_game_record_only_once_the_game_is_over(served, browser):
    """The whole game record (every roll, card and vote) can be saved from the
    host's phone as a readable file, in the host's language. Before the game is over it holds
    every secret: refused, and only the host's phone may fetch it at all."""
    room = served.room
    phones = Phones(browser, served.base)
    host = await phones.open(f"/h#{room.host_token}")
    await host.wait_for_selector("#setup #create")
    await room.new_game({"names": NAMES})
    seats = [await phones.open(seat_path(s["token"])) for s in room.lobby["seats"]]
    await host.wait_for_selector("#start:not([disabled])")
    await host.click("#start")
    await showing(seats, 0)
    early = await sealed_op(host, room.host_token, "record")
    assert (early.get("status"), early.get("code")) == (409, "not_ready")
    assert not await host.locator("#record").count()

    rng = random.Random(1)
    while room.table.state.outcome is None:
        g = room.table.state
        seat = rng.choice(g.pending.seats)
        await room.submit(seat, choice_for(g, seat, rng))
    await host.click(".lang-toggle [data-lang=es]")  # the host reads Spanish
    es = catalogue("es")
    await host.wait_for_selector(f"#record:text('{es['phone.host.save_record']}')")
    async with host.expect_download() as saving:
        await host.click("#record")
    download = await saving.value
    assert download.suggested_filename == f"darkmoon-game-{room.table.game_id}.txt"
    saved = (await download.path()).read_text(encoding="utf-8")

    # Every roll, said in Spanish, and every Status card with its owner.
    facts = room.table.facts
    rolls = [f for f in facts if f["k"] == "rolled"]
    assert rolls and saved.count(" tira ") == len(rolls)
    for s in room.table.state.seats:
        status = es["game.fact.status_dealt"].format(seat=s.name, status=word("status", s.status,
                                                                               "es"))
        assert status in saved
    votes = [f for f in facts if f["k"] == "vote_revealed"]
    assert len(votes) == saved.count(es["game.fact.vote_revealed"].split("{")[0].strip())

    # A seat's phone and a stranger are refused, even after the game.
    for page in (seats[0], await phones.open("/board")):
        refused = await sealed_op(page, room.host_token, "record")
        assert refused.get("status") == 403 and "data" not in refused
    assert phones.errors == []


async def test_the_host_ticks_shadow_corporation_and_its_cards_appear(served, browser):
    """"the host ticks 'Shadow Corporation' on the new-game page": its characters
    and final events are offered only then, and the game is dealt with the expansion."""
    room = served.room
    phones = Phones(browser, served.base)
    host = await phones.open(f"/h#{room.host_token}")
    await host.wait_for_selector("#setup #create")
    options = "[name=character-0] option"
    assert "serene" not in await host.locator(options).evaluate_all(
        "(os) => os.map((o) => o.value)")
    await host.select_option("#players", "3")
    for i, name in enumerate(["Ana", "Ben", "Cai"]):
        await host.fill(f"[name=name-{i}]", name)
    assert await host.is_disabled("[name=module][value=company_man_module]")
    await host.check("#expansion")
    await host.check("[name=module][value=company_man_module]")
    await host.select_option("[name=character-0]", "serene")
    await host.select_option("[name=final_event]", "toxic_gas")
    assert await host.input_value("[name=name-1]") == "Ben"  # typing survives the tick
    await host.click("#create")
    await host.wait_for_selector("ul.join li[data-seat='2']")
    setup = room.lobby["setup"]
    assert setup["variants"] == ["shadow_corporation", "company_man_module"]
    assert setup["characters"][0] == "serene"
    assert setup["final_event"] == "toxic_gas"
    # Unticked again, the expansion's cards leave the form: a chosen one goes back to random.
    await host.click("#setup-box > summary")
    await host.uncheck("#expansion")
    assert await host.input_value("[name=character-0]") == ""
    assert await host.input_value("[name=final_event]") == ""
    assert phones.errors == []


async def test_a_correction_picked_survives_the_board_moving_on(served, browser):
    """The corrections panel is redrawn at every change of the room: a value the host has
    picked but not yet set stays picked (a seat playing meanwhile must not undo it)."""
    room = served.room
    phones = Phones(browser, served.base)
    host = await phones.open(f"/h#{room.host_token}")
    await room.new_game({"names": NAMES})
    for i, seat in enumerate(room.lobby["seats"]):
        await room.claim_seat(seat["token"], f"phone-{i}")
    await room.start()
    await host.wait_for_selector('.board[data-state="0"]')
    await host.click("details.corrections > summary")
    await host.select_option("[data-correct=shield]", "4")
    g = room.table.state
    (seat,) = g.pending.seats
    await room.submit(seat, {"decision": g.pending.kind,
                             "option": list(g.pending.options[seat][0])})
    await host.wait_for_selector(f'.board[data-state="{room.table.state_id}"]')
    assert await host.input_value("[data-correct=shield]") == "4"
    before = room.table.state_id
    await host.click("[data-set=shield]")
    await host.wait_for_selector(f'.board[data-state="{before + 1}"]')
    assert room.table.state.shield_tokens == 4
    assert phones.errors == []
