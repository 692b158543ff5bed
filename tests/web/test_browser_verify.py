"""The verify page and `darkmoon-companion verify` never disagree about a record.

Genuine records come from real Table games dealt by companion.chance.fair (two phones that pledged
and revealed, one that pledged and never revealed, two fillers) and played to their end; the
tampered ones are what a modified Pi or a host with the data file could hand out. Each record
goes through the real command (its own process) and the page as a player saves it (one file,
opened from file:// with no network). Exit 0 is the page's "checked", exit 3 its "unfinished",
exit 4 (dealt by the box alone) its "alone", anything else its "failed", except the records
only a rules replay can catch (RULES_ONLY): the page checks the chance, not the rules, and
says so in as many words.

Before darkmoon-fair/2 the page said "Verified: game N was dealt fairly" for a swapped die, a
changed command or a game cut short: it checked the stream against the record's own lists and
claimed more than that.
"""
from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import aiohttp
import pytest

from companion.chance.fair import FILLER, PHONE, Fair, code, commitment, filler, pledge
from companion.lang import catalogue
from companion.chance.verify import check

from fair_corpus import corpus, genuine_game
from test_browser_kit import WAIT, browser, served  # noqa: F401

COMMAND = Path(sys.executable).parent / "darkmoon-companion"

# Tampered records whose every chance outcome is still what the stream gives for what the
# record says was drawn: only replaying the rules shows the commands, the dice or the facts
# were changed. The command refuses them; the page says "checked" AND that it did not replay
# the rules. Any other disagreement fails the test.
RULES_ONLY = {"changed command", "flipped vote", "swapped die",
              "changed status deal (facts)", "made-up end"}


async def command(path: Path, given: str) -> tuple[int, str]:
    """The real `darkmoon-companion verify`, in its own process: its exit status and line."""
    args = [str(COMMAND), "verify", str(path)] + (["--commitment", given] if given else [])
    process = await asyncio.create_subprocess_exec(*args, stdout=asyncio.subprocess.PIPE,
                                                   stderr=asyncio.subprocess.STDOUT)
    out, _ = await process.communicate()
    return process.returncode, out.decode()


async def saved_page(served, browser, tmp: Path, lang: str):
    """The verify page as a player saves it, opened from file:// with no network."""
    await served.room.set_lang(lang)
    async with aiohttp.ClientSession() as session:
        async with session.get(f"{served.base}/fair") as response:
            html = await response.text()
    assert 'src="' not in html  # both scripts inlined: nothing left to fetch
    path = tmp / f"verify-{lang}.html"
    path.write_text(html, encoding="utf-8")
    context = await browser.new_context(offline=True)
    page = await context.new_page()
    page.set_default_timeout(WAIT * 1000)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    await page.goto(path.as_uri())
    return page, errors


CHECK_ALONE = """([text, given]) => {
  const F = globalThis.DarkMoonFair;
  let rec;
  try { rec = F.parse(text); } catch (error) { return {result: "failed", verdict: null}; }
  const verdict = F.checkRecord(rec, {commitment: given});
  return {verdict, result: verdict.problems.length ? "failed" : verdict.box_alone ? "alone"
                           : verdict.over ? "checked" : "unfinished"};
}"""


async def judge(page, text: str, given: str) -> tuple[str, str]:
    await page.evaluate("() => document.getElementById('result').removeAttribute('data-result')")
    await page.fill("#commitment", given)
    await page.fill("#pasted", text)
    await page.click("#check")
    await page.wait_for_selector("#result[data-result]")
    return await page.get_attribute("#result", "data-result"), await page.inner_text("#result")


def words(lang: str, key: str, **values) -> str:
    return catalogue(lang)[f"phone.verify.{key}"].format(**values)


async def test_the_page_and_the_command_agree_on_every_record(served, browser, tmp_path):
    texts = corpus(tmp_path)
    for i, (name, (text, _)) in enumerate(texts.items()):
        (tmp_path / f"record-{i}.json").write_text(text, encoding="utf-8")
    ran = await asyncio.gather(*(command(tmp_path / f"record-{i}.json", given)
                                 for i, (_, given) in enumerate(texts.values())))
    exits = dict(zip(texts, ran))
    page, errors = await saved_page(served, browser, tmp_path, "en")
    no_replay = words("en", "no_replay")
    for name, (text, given) in texts.items():
        status, said = exits[name]
        judged, shown = await judge(page, text, given)
        # fair-check.js alone (the seat page has no SubtleCrypto to ask) judges it alike
        alone = await page.evaluate(CHECK_ALONE, [text, given])
        assert alone["result"] == judged, (name, alone, judged)
        if status in (0, 3, 4):  # and counts what the command counts
            verdict = check(json.loads(text), given or None)
            assert alone["verdict"] == {
                "problems": [], "over": verdict.over, "events": verdict.events,
                "outcomes": verdict.outcomes, "phones": verdict.phones,
                "fillers": verdict.fillers, "unrevealed": verdict.unrevealed,
                "box_alone": verdict.box_alone}, name
        assert "Verified" not in shown and "VERIFIED" not in shown, (name, shown)
        if name in RULES_ONLY:  # the command catches it; the page says it did not look
            assert status == 1 and "NOT verified" in said, (name, status, said)
            assert judged in ("checked", "unfinished"), (name, judged, shown)
            assert await page.inner_text("#no-replay") == no_replay, name
        elif status == 0:
            assert judged == "checked", (name, said, shown)
        elif status == 3:
            assert judged == "unfinished", (name, said, shown)
        elif status == 4:
            assert judged == "alone", (name, said, shown)
        else:
            assert status in (1, 2) and judged == "failed", (name, status, said, judged, shown)
    assert not errors

    # What each result says, exactly: the chance it checked, never more.
    rec = json.loads(texts["genuine, over"][0])
    assert exits["genuine, over"][0] == 0
    judged, shown = await judge(page, *texts["genuine, over"])
    phones, fillers = 2, 3
    outcomes = sum(len(e["chance"]) for e in rec["events"])
    assert await page.inner_text("#headline") == words("en", "over", game=rec["game"])
    assert await page.inner_text("#chance") == words(
        "en", "chance", code=code(rec["commitment"]), phones=phones, fillers=fillers,
        outcomes=outcomes, events=len(rec["events"]))
    assert await page.inner_text("#no-replay") == no_replay
    assert words("en", "unrevealed", seats="3") in shown  # seat 2, counted from 1 for people
    assert words("en", "subtle") in shown  # file:// has SubtleCrypto: it agrees
    cut = json.loads(texts["cut short before the end"][0])
    judged, shown = await judge(page, *texts["cut short before the end"])
    assert await page.inner_text("#headline") == words("en", "unfinished",
                                                       event=len(cut["events"]) - 1)
    assert f"Checked up to event {len(cut['events']) - 1}:" in exits[
        "cut short before the end"][1]  # the command's own words for it
    judged, shown = await judge(page, *texts["right --commitment code"])
    assert judged == "checked"
    assert await page.inner_text("#entered") == words("en", "entered",
                                                      entered=code(rec["commitment"]))
    judged, shown = await judge(page, *texts["wrong --commitment"])
    assert await page.inner_text("#problem") == words(  # the code entered was another game's
        "en", "problem.not_entered", code=code(rec["commitment"]),
        entered=texts["wrong --commitment"][1])
    # docs/fair.md, "Checking a record", 3: the deal used exactly the receipt's pledges; a
    # game with no phone's bytes is dealt by the box alone, never "fair", on both.
    assert exits["receipt names a pledge the deal left out"] == (
        1, "NOT verified: the deal left out seat 2's bytes: the receipt shown before the deal "
           "says it uses that seat's pledge, but the seat got its filler\n")
    await judge(page, *texts["receipt names a pledge the deal left out"])
    assert await page.inner_text("#problem") == words("en", "problem.left_out", seat=3)
    await judge(page, *texts["receipt leaves out a phone the deal used"])
    assert await page.inner_text("#problem") == words("en", "problem.extra", seat=1)
    status, said = exits["box alone, genuine"]
    assert status == 4 and said.startswith("Dealt by the box alone, so NOT shown fair")
    judged, shown = await judge(page, *texts["box alone, genuine"])
    alone_rec = json.loads(texts["box alone, genuine"][0])
    assert judged == "alone" and await page.inner_text("#headline") == words(
        "en", "alone", game=alone_rec["game"])
    assert words("en", "over", game=alone_rec["game"]) in shown
    for name, key in [("record without game", "problem.field"),
                      ("v1 record", "problem.old_format"),
                      ("nested deep", "problem.too_deep"),
                      ("phone value swapped", "problem.pledge"),
                      ("filler value swapped", "problem.filler"),
                      ("receipt names another pledge", "problem.receipt_pledge"),
                      ("receipt one seat short", "problem.receipt_seats"),
                      ("phones' deal marked box alone", "problem.box_alone_mark"),
                      ("record without receipt", "problem.field"),
                      ("not JSON", "not_json")]:
        await judge(page, *texts[name])  # one clear line, naming what is wrong
        problem = await page.inner_text("#problem")
        template = catalogue("en")[f"phone.verify.{key}"]
        assert problem.startswith(template.split("{")[0]), (name, problem)
    await judge(page, *texts["record without game"])
    assert await page.inner_text("#problem") == words(
        "en", "problem.field", field="game", want=words("en", "want.number"))
    assert not errors


async def test_the_page_says_what_it_checked_in_spanish(served, browser, tmp_path):
    texts = corpus(tmp_path)
    page, errors = await saved_page(served, browser, tmp_path, "es")
    rec = json.loads(texts["genuine, over"][0])
    assert (await judge(page, *texts["genuine, over"]))[0] == "checked"
    assert await page.inner_text("#headline") == words("es", "over", game=rec["game"])
    assert await page.inner_text("#no-replay") == words("es", "no_replay")
    assert (await judge(page, *texts["cut short before the last roll"]))[0] == "unfinished"
    cut = json.loads(texts["cut short before the last roll"][0])
    assert await page.inner_text("#headline") == words("es", "unfinished",
                                                       event=len(cut["events"]) - 1)
    assert (await judge(page, *texts["swapped die"]))[0] == "checked"
    assert await page.inner_text("#no-replay") == words("es", "no_replay")
    assert (await judge(page, *texts["v1 record"]))[0] == "failed"
    assert await page.inner_text("#problem") == words("es", "problem.old_format")
    assert await page.inner_text("#result p:first-child") == words("es", "failed")
    assert await page.get_attribute("html", "lang") == "es"
    assert not errors


async def test_the_shared_checker_computes_what_companion_fair_computes(served, browser):
    """fair-check.js (the verify page's and the seat page's checker) against companion.chance.fair:
    the commitment, a pledge, a filler, the code and a stream's words, for numbers past 32
    bits too."""
    async with aiohttp.ClientSession() as session:
        async with session.get(f"{served.base}/static/fair-check.js") as response:
            assert response.status == 200
            script = await response.text()
    context = await browser.new_context()
    page = await context.new_page()
    await page.set_content("<!doctype html><title>check</title>")
    await page.add_script_tag(content=script)
    box, secret, value = "c3" * 32, "00" * 31 + "01", "5a" * 32
    for game, seat, position in [(1, 0, 0), (7, 4, 275), (2 ** 40 + 3, 2 ** 33 + 1, 2 ** 35)]:
        shown = commitment(box, game, secret)
        fair = Fair(box, game, secret, [value, None], [PHONE, FILLER],
                    [pledge(shown, value), None])
        stream = fair.stream(position)
        expected = {"commitment": shown, "code": code(shown), "pledge": pledge(shown, value),
                    "filler": filler(secret, seat),
                    "words": [stream.word() for _ in range(20)]}
        got = await page.evaluate(
            """([box, game, secret, value, seat, position, filler1]) => {
                 const F = globalThis.DarkMoonFair;
                 const c = F.commitmentOf(box, game, secret);
                 return {commitment: c, code: F.code(c), pledge: F.pledgeOf(c, value),
                         filler: F.fillerOf(secret, seat),
                         words: F.words(secret, [value, filler1], box, game, position, 20)};
               }""", [box, game, secret, value, seat, position, filler(secret, 1)])
        assert got == expected, game
    await context.close()


@pytest.mark.parametrize("given", ["", "  "])
async def test_no_commitment_entered_is_not_a_problem(served, browser, tmp_path, given):
    rec = genuine_game(tmp_path, seed=3)
    page, errors = await saved_page(served, browser, tmp_path, "en")
    assert (await judge(page, json.dumps(rec), given))[0] == "checked"
    assert await page.locator("#entered").count() == 0
    assert not errors


async def test_a_die_face_written_true_is_refused_by_both(served, browser, tmp_path):
    rec = genuine_game(tmp_path, seed=3)
    e, m = next((e, m) for e, event in enumerate(rec["events"])
                for m, outcome in enumerate(event["chance"]) if outcome == 1)
    rec["events"][e]["chance"][m] = True  # the page sees true where the stream gives 1
    path = tmp_path / "true.json"
    path.write_text(json.dumps(rec), encoding="utf-8")
    status, said = await command(path, "")
    page, errors = await saved_page(served, browser, tmp_path, "en")
    judged, shown = await judge(page, json.dumps(rec), "")
    assert judged == "failed" and not errors
    assert status == 1, said


async def test_the_page_served_by_the_pi_checks_the_game_it_is_linked_to(served, browser):
    """/fair?game=N (the seat page's link at game over) fetches game N's record itself."""
    room = served.room
    room.seed = None  # the kit's room is seeded: this one deals fair, from a secret
    await room.new_game({"names": ["Ana", "Ben", "Cai"]}, bots=[0, 1, 2])
    await room.start()  # no phone pledged: dealt at once, and the bots play it to its end
    async with asyncio.timeout(WAIT * 3):
        while room.table is None or not room.table.over:
            await asyncio.sleep(0.05)
    game = room.table.game_id
    context = await browser.new_context()
    page = await context.new_page()
    page.set_default_timeout(WAIT * 1000)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    await page.goto(f"{served.base}/fair?game={game}")
    await page.wait_for_selector("#result[data-result]")
    # bots only: no phone's bytes went in, so the page never calls it fair
    assert await page.get_attribute("#result", "data-result") == "alone"
    assert await page.inner_text("#headline") == words("en", "alone", game=game)
    assert await page.inner_text("#ended") == words("en", "over", game=game)
    assert await page.inner_text("#no-replay") == words("en", "no_replay")
    assert not errors
    await context.close()
