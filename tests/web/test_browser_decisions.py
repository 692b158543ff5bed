"""The phone's decisions cost no more taps than the physical act, and fit a phone's screen.

Real server, real Chromium at 390x844 (PHONE). The games are seeded (the room's seed deals,
MOVES seeds the bots' moves), so each moment below comes up at the same place every run:

- an idle, veiled phone answers IN/OUT and a ballot with one tap, and two seats with different
  secrets show the same veiled page; a ballot the seat's dice do not allow, tapped on the
  veil, is not sent: the veil lifts and the phone says why;
- at every decision of a whole game (base and Shadow Corporation) the question, its context
  and every choice are on the screen, none below or above it;
- one die to submit is one tap; the dice to roll, to take and to discard are chosen as dice
  (a count per colour and one button);
- blocked actions collapse to one line per kind and reason;
- IN/OUT and ballots are coloured like the seat buttons and name them;
- a cast ballot is marked and can be changed until the last one is in;
- at game over the phone says "You won" or "You lost" first.
"""
from __future__ import annotations

import json
import random

from companion.lang import catalogue
from companion.tools.simulate import choice_for

from test_browser_kit import (Phones, browser, compact, seated_pages, served,  # noqa: F401
                              showing)

EN = catalogue("en")
MOVES = 1  # the bots' moves: with the room's seed, a vote comes while two seats lack a colour
SHORT = 150  # ms: the veil's delay where a test wants it, waited for, never measured
LONG = 3_600_000

# Everything of the decision a player needs: its question, its context, every choice. Any of
# them outside the screen (a player would have to scroll) is listed.
OFF_SCREEN = """() => {
  const decision = document.getElementById("decision");
  if (!decision) return { missing: true };
  const parts = [...decision.querySelectorAll(
      "h2, .your-turn, .context p, .options button, #rolled .die, .count-row, "
      + ".count-picker button.go, "
      + "#submit-dice, .pick-hint, .option-blocked, #own-choice")]
    .filter((e) => e.checkVisibility());
  const off = parts.filter((e) => {
    const r = e.getBoundingClientRect();
    return r.top < 0 || r.bottom > innerHeight || r.left < 0 || r.right > innerWidth;
  }).map((e) => e.outerHTML.slice(0, 160));
  return { missing: false, count: parts.length, off, height: innerHeight };
}"""


async def on_screen(page, where: str) -> None:
    """The decision's question, context and every choice are inside the screen."""
    seen = await page.evaluate(OFF_SCREEN)
    assert not seen["missing"], f"{where}: no decision on the page"
    assert seen["count"] >= 2, f"{where}: a decision with no choices"
    assert seen["height"] == 844
    assert seen["off"] == [], f"{where}: off the screen: {seen['off']}"


def asked(g, seat: int) -> bool:
    return g.pending is not None and bool(g.pending.options.get(seat)) \
        and seat not in g.pending.answers


async def play_until(room, pages, until, rng, check=None):
    """The bots' moves until `until(g)`; `check(g)` at each state first. The pages follow."""
    for _ in range(3000):
        g = room.table.state
        if check is not None:
            await check(g)
        if until(g):
            await showing(pages, room.table.state_id)
            return g
        assert g.outcome is None, "the game ended before the wanted moment"
        seat = next(s for s in g.pending.seats if asked(g, s))
        await room.submit(seat, choice_for(g, seat, rng))
    raise AssertionError("the wanted moment never came")


async def veil(page) -> None:
    await page.evaluate(f"document.body.dataset.idle = '{SHORT}'")
    await page.keyboard.press("Shift")  # a key re-arms the idle timer with the new delay
    await page.wait_for_selector("body.veiled")
    await page.evaluate(f"document.body.dataset.idle = '{LONG}'")


def vote_with_a_lacking_seat(g) -> bool:
    return g.pending.kind == "vote" and not g.pending.answers and any(
        ("strong",) not in o or ("weak",) not in o for o in g.pending.options.values())


async def moved(room, before: int) -> None:
    import asyncio
    async with asyncio.timeout(10):
        while room.table.state_id == before:
            await asyncio.sleep(0.01)


# --- the tests ---

async def test_a_veiled_phone_answers_in_out_and_a_ballot_with_one_tap(served, browser):
    room = served.room
    phones = Phones(browser, served.base)
    pages = await seated_pages(room, phones)
    rng = random.Random(MOVES)
    for page in pages:  # every phone lies idle on the table, counting its vibrations
        await page.evaluate("() => { window.vibrations = 0; "
                            "navigator.vibrate = () => { window.vibrations += 1; return true; }; }")
        await veil(page)

    g = await play_until(room, pages, lambda g: g.pending.kind == "participation", rng)
    (seat,) = g.pending.seats
    page = pages[seat]
    await page.wait_for_selector("#decision[data-veiled]")
    assert await page.evaluate("window.vibrations") >= 1, "the turn came without a buzz"
    # The question and the choices are on the veil, in the second person; the dice are not.
    assert await page.inner_text("#decision .your-turn") == EN["phone.your_turn"]
    assert await page.inner_text("#decision h2") == EN["game.question.participation"]
    assert await page.locator(".die, .die-count, .my-dice, #peek:visible").count() == 0
    choice = ["in"] if ("in",) in g.pending.options[seat] else ["out"]
    before = room.table.state_id
    await page.click(f"#decision button[data-option='{compact(choice)}']")  # the one tap
    await moved(room, before)
    assert room.table.state.task.participation[seat] == choice[0]

    g = await play_until(room, pages, vote_with_a_lacking_seat, rng)
    voters = sorted(g.pending.options)
    for voter in voters:
        await veil(pages[voter])
    # Under the veil every voter's ballot looks the same, whatever its dice and card.
    lacking = next(v for v in voters if len(g.pending.options[v]) < 3)
    holding = next(v for v in voters if len(g.pending.options[v]) == 3
                   and g.seats[v].status != g.seats[lacking].status) \
        if any(len(g.pending.options[v]) == 3 and g.seats[v].status != g.seats[lacking].status
               for v in voters) else next(v for v in voters if v != lacking)
    shown = [await pages[v].inner_html("#private") for v in (lacking, holding)]
    assert shown[0] == shown[1], "two seats' veiled ballots differ"
    assert await pages[lacking].locator("#decision button.seat-choice").count() == 3

    # A ballot the seat cannot cast, tapped on the veil: not sent; the veil lifts and says why.
    colour = next(c for c in ("strong", "weak") if (c,) not in g.pending.options[lacking])
    before = room.table.state_id
    await pages[lacking].click(f"#decision button[data-option='{compact([colour])}']")
    await pages[lacking].wait_for_selector("body:not(.veiled)")
    assert EN[f"phone.vote.no_{colour}"] in await pages[lacking].inner_text(".toast.refusal")
    assert room.table.state_id == before and lacking not in room.table.state.pending.answers

    # A legal ballot is one tap on the veil.
    page = pages[holding]
    before = room.table.state_id
    await page.click("#decision button[data-option='[\"abstain\"]']")
    await moved(room, before)
    assert room.table.state.pending.answers[holding] == ("abstain",)
    assert phones.errors == []


async def test_every_decision_of_a_game_fits_the_screen(served, browser):
    room = served.room
    phones = Phones(browser, served.base)
    pages = await seated_pages(room, phones)
    rng = random.Random(MOVES)
    seen = set()

    async def check(g):
        if g.pending is None:
            return
        for seat in sorted(s for s in g.pending.options if asked(g, s)):
            await showing([pages[seat]], room.table.state_id)
            await on_screen(pages[seat], f"{g.pending.kind} on seat {seat}")
            seen.add(g.pending.kind)

    await play_until(room, pages, lambda g: g.outcome is not None, rng, check)
    assert {"action", "roll_dice", "submit", "participation", "vote"} <= seen, seen
    assert phones.errors == []


async def test_every_decision_of_a_shadow_corporation_game_fits_the_screen(served, browser):
    """The expansion's action list (four kinds of vote and an order on every player, and
    their blocked lines) is the tallest decision: it fits too, on phones speaking Spanish,
    whose words are the longer."""
    room = served.room
    phones = Phones(browser, served.base, locale="es-ES")
    pages = await seated_pages(room, phones, ("shadow_corporation",))
    assert {await page.get_attribute("html", "lang") for page in pages} == {"es"}
    rng = random.Random(MOVES)
    seen = {"kinds": set(), "most": 0}

    async def check(g):
        if g.pending is None:
            return
        for seat in sorted(s for s in g.pending.options if asked(g, s)):
            await showing([pages[seat]], room.table.state_id)
            await on_screen(pages[seat], f"{g.pending.kind} on seat {seat}")
            seen["kinds"].add(g.pending.kind)
            if g.pending.kind == "action":
                seen["most"] = max(seen["most"], len(g.pending.options[seat])
                                   + len(g.pending.blocked.get(seat, [])))

    await play_until(room, pages, lambda g: g.outcome is not None, rng, check)
    assert {"action", "corporation", "vote"} <= seen["kinds"], seen
    assert seen["most"] >= 18, "an action list as long as the expansion's"
    assert phones.errors == []


async def test_one_die_is_one_tap_and_the_dice_to_roll_are_chosen_as_dice(served, browser):
    room = served.room
    phones = Phones(browser, served.base)
    pages = await seated_pages(room, phones)
    rng = random.Random(MOVES)

    g = await play_until(room, pages, lambda g: g.pending.kind == "roll_dice", rng)
    (seat,) = g.pending.seats
    page = pages[seat]
    options = [list(o) for o in g.pending.options[seat]]
    # No list of every combination: a count per colour and one Roll button, set to the most
    # dice the seat may roll, strong ones first.
    assert await page.locator("#decision button[data-option^='[\"roll\"']").count() == 1
    best = max(options, key=lambda o: (sum(o[1:]), o[1]))
    assert await page.get_attribute("#roll-dice", "data-option") == compact(best)
    assert await page.inner_text("#decision [data-count=strong]") == str(best[1])
    # One strong die fewer, then Roll: the combination sent is the one shown.
    await page.click("#decision [data-step='strong-']")
    wanted = [best[0], best[1] - 1, *best[2:]]
    if wanted in options:
        assert await page.get_attribute("#roll-dice", "data-option") == compact(wanted)
    else:
        assert await page.is_disabled("#roll-dice")
        await page.click("#decision [data-step='strong+']")
        wanted = best
    before = room.table.state_id
    await page.click("#roll-dice")
    await moved(room, before)
    rolled = [c for c, _ in room.table.state.seats[seat].rolled]
    assert [rolled.count(c) for c in ("strong", "weak", "commander")][:len(wanted) - 1] \
        == wanted[1:]

    g = await play_until(room, pages, lambda g: g.pending.kind == "submit"
                         and g.pending.data.get("most") == 1
                         and len(g.seats[g.pending.seats[0]].rolled) > 1, rng)
    (seat,) = g.pending.seats
    page = pages[seat]
    # Nothing greyed to press: the phone says what to do, and the tap on a die is the choice.
    assert await page.is_hidden("#submit-dice")
    assert await page.inner_text("#pick-hint") in (EN["phone.pick.one"],
                                                   EN["phone.pick.one_fatigued"])
    face = list(g.seats[seat].rolled[1])
    before = room.table.state_id
    await page.click("#rolled .die[data-index='1']")
    await moved(room, before)
    submitted = [f for f in room.table.facts if f["k"] == "submitted"][-1]
    assert submitted["seat"] == seat and submitted["dice"] == [face]

    g = await play_until(room, pages, lambda g: g.pending.kind == "submit"
                         and g.pending.data.get("most", 1) > 1
                         and len(g.seats[g.pending.seats[0]].rolled) > 1, rng)
    page = pages[g.pending.seats[0]]
    # Several dice to submit: "Tap the dice you submit" until one is picked, no "Submit 0".
    assert await page.is_hidden("#submit-dice")
    assert await page.inner_text("#pick-hint") == EN["phone.pick.some"]
    await page.click("#rolled .die[data-index='0']")
    assert await page.is_visible("#submit-dice")
    assert await page.inner_text("#submit-dice") == "Submit 1 die"
    assert phones.errors == []


async def counts_to(page, option: list) -> None:
    """Step each colour's count on the page to the option's."""
    for colour, wanted in zip(("strong", "weak", "commander"), option[1:]):
        count = f"#decision [data-count={colour}]"
        if not await page.locator(count).count():
            continue
        while (shown := int(await page.inner_text(count))) != wanted:
            await page.click(f"#decision [data-step='{colour}{'+' if shown < wanted else '-'}']")


async def test_the_dice_to_take_and_to_discard_are_chosen_as_dice(served, browser):
    """Taking dice from the pool and discarding them: a count per colour and one button, as
    the roll, set beforehand to the most dice to take (strong first) and to the weak dice to
    discard; a fixed number of dice stays fixed (a step swaps colours); the option sent is
    the one the button holds."""
    room = served.room
    phones = Phones(browser, served.base)
    pages = await seated_pages(room, phones, ("shadow_corporation",))
    rng = random.Random(MOVES)
    g = await play_until(room, pages, lambda g: g.pending.kind == "take_dice"
                         and len(g.pending.options[g.pending.seats[0]]) > 2, rng)
    (seat,) = g.pending.seats
    page = pages[seat]
    options = [list(o) for o in g.pending.options[seat]]
    go = "#decision .count-picker button.go"
    assert await page.locator("#decision button[data-option^='[\"take\"']").count() == 1
    best = max(options, key=lambda o: (o[1] + o[2], o[1]))
    assert await page.get_attribute(go, "data-option") == compact(best)
    assert await page.inner_text(go) == EN["game.option.take_dice"].format(
        dice=word_counts(best[1:]))
    # Stepped to another choice, then to the bots' own (the game goes on as seeded).
    chosen = choice_for(g, seat, rng)["option"]
    other = next(o for o in options if o not in (best, chosen))
    for option in (other, chosen):
        await counts_to(page, option)
        assert await page.get_attribute(go, "data-option") == compact(option)
    before = room.table.state_id
    await page.click(go)
    await moved(room, before)
    took = [f for f in room.table.facts if f["k"] == "took_dice"][-1]
    assert (took["seat"], took["strong"], took["weak"]) == (seat, *chosen[1:])

    g = await play_until(room, pages, lambda g: g.pending.kind == "discard", rng)
    (seat,) = g.pending.seats
    page = pages[seat]
    options = [list(o) for o in g.pending.options[seat]]
    lightest = min(options, key=lambda o: (o[3], o[1]))
    assert await page.get_attribute(go, "data-option") == compact(lightest)
    # The number to discard is fixed: one die more of a colour is one fewer of another.
    more = None
    for colour in ("strong", "weak", "commander"):
        if await page.locator(f"#decision [data-step='{colour}+']:not([disabled])").count():
            more = more or colour
    assert more is not None, "a discard with a choice of colours"
    await page.click(f"#decision [data-step='{more}+']")
    swapped = json.loads(await page.get_attribute(go, "data-option"))
    assert swapped in options and swapped != lightest
    await page.click(f"#decision [data-step='{more}-']")
    assert await page.get_attribute(go, "data-option") == compact(lightest)
    before = room.table.state_id
    await page.click(go)
    await moved(room, before)
    gone = [f for f in room.table.facts if f["k"] == "discarded_dice"][-1]
    assert [gone["strong"], gone["weak"], gone["commander"]] == lightest[1:]
    assert phones.errors == []


def word_counts(counts: list) -> str:
    """'2 strong dice and 1 weak die', as the catalogue words them."""
    parts = [EN[f"game.dice.{c}.{'one' if n == 1 else 'many'}"].format(n=n)
             for c, n in zip(("strong", "weak", "commander"), counts) if n]
    if len(parts) < 2:
        return parts[0] if parts else EN["game.dice.none"]
    return EN["game.list.and"].format(first=", ".join(parts[:-1]), last=parts[-1])


def several_blocked_alike(g) -> bool:
    if g.pending is None or g.pending.kind != "action":
        return False
    blocked = g.pending.blocked.get(g.pending.seats[0], [])
    keys = [(o[0], why) for o, why in blocked]
    return any(keys.count(k) > 1 for k in keys)


async def test_blocked_actions_collapse_to_one_line_per_kind_and_reason(served, browser):
    """The expansion's action list blocks a kind of vote on every player at once: one line."""
    room = served.room
    phones = Phones(browser, served.base)
    pages = await seated_pages(room, phones, ("shadow_corporation",))
    rng = random.Random(MOVES)
    g = await play_until(room, pages, several_blocked_alike, rng)
    (seat,) = g.pending.seats
    page = pages[seat]
    blocked = g.pending.blocked[seat]
    lines = await page.eval_on_selector_all(
        "#blocked-list .option-blocked", "els => els.map(e => e.innerText)")
    assert len(lines) == len({(o[0], why) for o, why in blocked}) < len(blocked)
    kind, why = next((o[0], why) for o, why in blocked
                     if sum(1 for p, w in blocked if (p[0], w) == (o[0], why)) > 1)
    token = EN["game.token." + why.split(":")[1]] if why.startswith("blocked_by:") else None
    reason = (EN["game.reason.blocked_by"].format(token=token) if token
              else EN[f"game.reason.{why}"])
    assert EN["game.blocked"].format(option=EN[f"phone.kind.{kind}"], reason=reason) in lines
    # The open choices on one player each are one line of player buttons.
    groups = await page.eval_on_selector_all(
        "#decision .choice-group", "els => els.map(e => e.dataset.kind)")
    assert len(groups) == len(set(groups))
    assert phones.errors == []


async def test_in_out_and_ballots_look_like_the_seat_buttons(served, browser):
    room = served.room
    phones = Phones(browser, served.base)
    pages = await seated_pages(room, phones)
    rng = random.Random(MOVES)

    async def looks(page, option, button, words):
        node = page.locator(f"#decision button[data-option='{compact(option)}']")
        assert await node.get_attribute("data-button") == button
        assert words in await node.inner_text()
        return await node.evaluate("e => getComputedStyle(e).backgroundColor")

    g = await play_until(room, pages, lambda g: g.pending.kind == "participation", rng)
    seat = g.pending.seats[0]
    page = pages[seat]
    # Its own turn, said to the player: never "Waiting for <their own name>".
    banner = await page.inner_text("#banner")
    assert banner == EN["phone.your_turn_to"].format(
        decision=EN["game.question.participation"])
    assert room.table.state.seats[seat].name not in banner
    black = await looks(page, ["in"], "black", "BLACK button")
    red = await looks(page, ["out"], "red", "RED button")
    assert black == "rgb(5, 5, 5)" and red == "rgb(194, 59, 59)"
    # Beside IN and OUT: the malfunction, how far it is, and the seat's own dice.
    context = await page.inner_text("#decision .context")
    assert f"difficulty {g.task.difficulty}" in context
    assert await page.locator("#decision #context-dice .die-count").count() == 3

    g = await play_until(room, pages, lambda g: g.pending.kind == "vote", rng)
    page = pages[sorted(g.pending.options)[0]]
    for colour, button, word in (("strong", "black", "BLACK"), ("weak", "red", "RED"),
                                 ("abstain", "grey", "GREY")):
        await looks(page, [colour], button, word)
    assert phones.errors == []


async def test_a_cast_ballot_can_be_changed_until_the_last_is_in(served, browser):
    room = served.room
    phones = Phones(browser, served.base)
    pages = await seated_pages(room, phones)
    rng = random.Random(MOVES)
    g = await play_until(room, pages, lambda g: g.pending.kind == "vote", rng)
    voter = sorted(g.pending.options)[0]
    page = pages[voter]
    await page.wait_for_selector("body:not(.turn-flash)")  # the vote's own signal is over
    await page.evaluate("""() => {
      let was = false;
      window.flashes = 0;
      new MutationObserver(() => {
        const now = document.body.classList.contains("turn-flash");
        if (now && !was) window.flashes += 1;
        was = now;
      }).observe(document.body, { attributes: true, attributeFilter: ["class"] }); }""")
    before = room.table.state_id
    await page.click("#decision button[data-option='[\"abstain\"]']")
    await moved(room, before)
    await showing([page], room.table.state_id)
    ballot = EN["game.option.vote.abstain"]
    assert await page.inner_text("#own-choice") == EN["phone.vote.yours_change"].format(
        ballot=ballot)
    assert await page.get_attribute("#decision button[data-option='[\"abstain\"]']",
                                    "aria-pressed") == "true"
    assert await page.evaluate("window.flashes") == 0, "an answered ballot is not a new turn"
    assert EN["phone.your_turn_to"].split("{")[0] not in await page.inner_text("#banner")
    # Changed: the new ballot replaces the first, and is the one marked.
    other = ["strong"] if ("strong",) in g.pending.options[voter] else ["weak"]
    before = room.table.state_id
    await page.click(f"#decision button[data-option='{compact(other)}']")
    await moved(room, before)
    await showing([page], room.table.state_id)
    assert room.table.state.pending.answers[voter] == tuple(other)
    assert await page.get_attribute(f"#decision button[data-option='{compact(other)}']",
                                    "aria-pressed") == "true"
    assert phones.errors == []


async def test_game_over_says_won_or_lost_first(served, browser):
    room = served.room
    phones = Phones(browser, served.base)
    pages = await seated_pages(room, phones)
    rng = random.Random(MOVES)
    g = await play_until(room, pages, lambda g: g.outcome is not None, rng)
    for seat, page in enumerate(pages):
        side = "uninfected" if g.seats[seat].status == "uninfected" else "infected"
        wanted = EN["phone.result.won" if side == g.outcome.winner else "phone.result.lost"]
        first = await page.evaluate(
            "() => document.getElementById('private').firstElementChild.innerText")
        assert first == wanted
    assert phones.errors == []
