"""Fair dealing in Chromium (issue 14): each seat page gives the browser's own randomness when
it claims and shows the commitment before statuses are dealt; at game over the verify page
checks the record, served by the Pi and, saved, from file:// with the network off."""
from __future__ import annotations

import asyncio
import json
import random

import aiohttp

from companion.simulate import choice_for

from test_browser_kit import (NAMES, WAIT, Phones, browser, seat_path, served,  # noqa: F401
                              showing)


async def test_phones_give_randomness_see_the_commitment_and_check_the_deal_offline(
        served, browser, tmp_path):
    room = served.room
    room.seed = None  # the kit's room is seeded: this one deals fair, from a secret
    phones = Phones(browser, served.base)
    await room.new_game({"names": NAMES})
    fingerprint = room.room_view()["fair"]["fingerprint"]
    pages = [await phones.open(seat_path(s["token"])) for s in room.lobby["seats"]]
    for page in pages:  # before the deal: the commitment, and this phone's part given
        await page.wait_for_selector(".lobby .fair-given")
        await page.wait_for_function(
            "() => document.querySelector('.fair-given').textContent.includes('has added')")
        assert fingerprint in await page.locator(".lobby .fair").inner_text()
    given = room.lobby["fair"]["contributions"]
    assert all(len(g) == 64 for g in given) and len(set(given)) == len(NAMES)
    await room.start()
    assert room.table.fair.contributions == given  # the browsers' bytes went into the deal
    await showing(pages, room.table.state_id)
    assert fingerprint in await pages[0].locator("#fair").inner_text()
    # the next game's secret is committed at the deal: every phone gives for it at once, so
    # "play again" deals from randomness given after its commitment
    async with asyncio.timeout(WAIT):
        while None in room.lobby["fair"]["contributions"]:
            await asyncio.sleep(0.05)
    assert not set(room.lobby["fair"]["contributions"]) & set(given)
    for page in pages[1:]:  # one phone watches the game to its end
        await page.context.close()
    rng = random.Random(1)
    while not room.table.over:
        g = room.table.state
        seat = rng.choice(g.pending.seats)
        await room.submit(seat, choice_for(g, seat, rng))
    await showing(pages[:1], room.table.state_id)
    link = pages[0].locator("#fair a[href='/fair']")
    assert await link.count() == 1

    # Served by the Pi: the page fetches the game's record itself.
    check = await phones.open("/fair")
    await check.wait_for_selector("#result[data-result]")
    assert await check.get_attribute("#result", "data-result") == "verified"
    assert f"game {room.table.game_id}" in await check.inner_text("#result")

    # Saved: the page and the record as files, opened with no network at all.
    async with aiohttp.ClientSession() as session:
        async with session.get(f"{served.base}/fair") as response:
            (tmp_path / "verify.html").write_text(await response.text(), encoding="utf-8")
        async with session.get(f"{served.base}/api/fair/record") as response:
            record = await response.json()
    (tmp_path / "record.json").write_text(json.dumps(record))
    tampered = json.loads(json.dumps(record))
    e, m = next((e, m) for e, draws in enumerate(tampered["draws"]) for m, d in enumerate(draws)
                if d["op"] == "pick" and len(set(d["from"])) > 1)
    tampered["events"][e]["chance"][m] = next(
        v for v in tampered["draws"][e][m]["from"] if v != tampered["events"][e]["chance"][m])
    (tmp_path / "tampered.json").write_text(json.dumps(tampered))
    await served.stop()  # no Pi
    context = await browser.new_context(offline=True)  # no internet
    offline = await context.new_page()
    offline.set_default_timeout(WAIT * 1000)
    errors = []
    offline.on("pageerror", lambda error: errors.append(str(error)))
    await offline.goto((tmp_path / "verify.html").as_uri())
    await offline.set_input_files("#file", str(tmp_path / "record.json"))
    await offline.wait_for_selector("#result[data-result]")
    assert await offline.get_attribute("#result", "data-result") == "verified"
    said = await offline.inner_text("#result")
    assert record["commitment"] in said and "dealt fairly" in said
    assert "The browser's own SHA-256 agrees." in said  # file:// has SubtleCrypto: it agrees
    await offline.set_input_files("#file", str(tmp_path / "tampered.json"))
    await offline.wait_for_selector("#result[data-result=failed]")
    assert f"event {e}, outcome {m}" in await offline.inner_text("#result")
    assert not errors and not phones.errors
    await context.close()
    await served.start()  # the fixture stops it again


async def test_the_page_and_the_verify_command_judge_every_record_alike(served, browser):
    """A secret or contribution that is not exactly 64 lowercase hex digits (spaces that
    bytes.fromhex skips, capitals) is refused by both; an honest record verifies on both."""
    from test_fair import fair_record, odd_records

    from companion.verify import verify
    records = {"honest": fair_record(3, seed=5), **odd_records()}
    phones = Phones(browser, served.base)
    page = await phones.open("/fair")
    for name, rec in records.items():
        await page.evaluate("() => document.getElementById('result').removeAttribute("
                            "'data-result')")
        await page.fill("#pasted", json.dumps(rec))
        await page.click("#check")
        await page.wait_for_selector("#result[data-result]")
        judged = await page.get_attribute("#result", "data-result")
        assert judged == ("verified" if not verify(rec) else "failed"), name
        assert judged == ("verified" if name == "honest" else "failed"), name
        if name != "honest":  # said as a problem of the record, not as a crash of the page
            said = await page.inner_text("#result")
            assert "64 lowercase hex digits" in said and "damaged" not in said, said
    assert not phones.errors
