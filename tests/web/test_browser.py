"""The phone pages in a real browser: four phones join through their seat URLs and play a
whole game. Each reads its Status card by pressing and holding it, a malfunction's IN/OUT comes
from the seat buttons, the rolls are submitted on the phones, a vote is revealed on every
phone at once, one phone reloads in the middle of a roll, and a fifth phone is turned away
from a seat that is taken. A small policy reads the pending decision off each page and taps
a legal option until the game ends.
"""
from __future__ import annotations

from playwright.async_api import Page

from companion.lang import catalogue
from companion.core.room import Room

from test_browser_kit import (NAMES, Phones, browser, changed, compact, peek, private_html,  # noqa: F401
                              seat_path, served, showing, word)

MAX_STEPS = 400


# --- the policy: which legal option a player taps ---

def submit_candidates(rolled: list) -> list[list[int]]:
    """Dice to tap, best first: every positive die, the highest die alone, all of them."""
    faces = [face for _, face in rolled]
    best = max(range(len(rolled)), key=lambda i: faces[i]) if rolled else None
    picks = [[i for i, f in enumerate(faces) if f > 0], [best] if rolled else [],
             list(range(len(rolled)))]
    return [p for p in picks if p]


def choose(kind: str, options: list, you: dict, task: dict | None, plan: dict) -> list:
    """A helpful player: repairs, goes IN, keeps rolling until the malfunction is fixed,
    votes its side's colour; calls one vote once a seat lacks a die colour (so that seat's
    button can be refused)."""
    if kind == "action" and not plan["vote_called"] and plan["someone_lacks"]:
        votes = [o for o in options if o[0] == "vote" and o[1] != you["seat"]]
        if votes:
            plan["vote_called"] = True
            return votes[0]
    if kind == "action":
        rank = {"repair": 3, "lone_wolf": 2, "pass": 1}
        return max(options, key=lambda o: rank.get(o[0], 0))
    if kind == "participation":
        return ["in"] if ["in"] in options else options[0]
    if kind == "continue":
        behind = task is not None and task["success_total"] < task["difficulty"]
        return ["roll_again"] if behind and ["roll_again"] in options else ["stop"]
    if kind == "vote":
        mine = ["strong", "abstain"] if you["status"] == "uninfected" else ["weak", "abstain"]
        return next(o for o in ([c] for c in mine) if o in options)
    if kind == "bonus":
        return next((o for o in options if o != ["skip"]), options[0])
    if kind == "agree" and ["agree"] in options:
        return ["agree"]
    return options[0]


async def rolled_on(page: Page) -> list[list]:
    return await page.eval_on_selector_all(
        "#rolled .die", "els => els.map(e => [e.dataset.colour, Number(e.dataset.face)])")


def others_statuses(room: Room, seat: int) -> set[str]:
    """Words that would give away another seat's Status card on `seat`'s phone."""
    seats = room.table.state.seats
    words = set()
    for other, s in enumerate(seats):
        if other != seat and s.status != seats[seat].status and not s.revealed:
            words |= {s.status, word("status", s.status), word("status", s.status, "es")}
    return words


async def check_secrecy(room: Room, pages: list[Page]) -> None:
    if room.table.over:
        return  # after the game every card is shown to everyone
    for seat, page in enumerate(pages):
        html = await private_html(page)
        leaked = {w for w in others_statuses(room, seat) if w in html}
        where = [html[max(0, html.find(w) - 200):html.find(w) + 40] for w in leaked]
        assert not leaked, f"seat {seat}'s phone shows another seat's status: {where}"


async def tap_choice(room: Room, page: Page, seat: int, plan: dict) -> None:
    """Read the decision off the page and tap the policy's choice."""
    await page.wait_for_selector("#decision")
    kind = await page.get_attribute("#decision", "data-decision")
    options = await page.eval_on_selector_all(
        "#decision button.option[data-option]:not([disabled])",
        "els => els.map(e => JSON.parse(e.dataset.option))")
    view = room.table.seat_view(seat)  # for the roll's faces and the task's totals
    plan["someone_lacks"] = any(s.dice[c] == 0 for s in room.table.state.seats
                                if not s.revealed for c in ("strong", "weak"))
    if kind == "submit" and view["you"]["rolled"] \
            and await page.locator(".picker[data-one-tap]").count():
        # One die to submit: tapping it submits it.
        best = submit_candidates(view["you"]["rolled"])[1][0]
        await page.click(f'#rolled .die[data-index="{best}"]')
        return
    if kind == "submit" and view["you"]["rolled"]:
        for picks in submit_candidates(view["you"]["rolled"]):
            for die in await page.query_selector_all("#rolled .die.picked"):
                await die.click()
            for i in picks:
                await page.click(f'#rolled .die[data-index="{i}"]')
            if await page.is_enabled("#submit-dice"):
                await page.click("#submit-dice")
                return
    choice = choose(kind, options, view["you"], view["task"], plan)
    await page.click(f"#decision button.option[data-option='{compact(choice)}']")


async def test_four_phones_play_a_game(served, browser):
    room = served.room
    phones = Phones(browser, served.base)
    await room.new_game({"names": NAMES})
    tokens = [s["token"] for s in room.lobby["seats"]]
    pages = [await phones.open(seat_path(token)) for token in tokens]
    for page in pages:
        await page.wait_for_selector(".lobby")
    assert all(s["phone"] for s in room.lobby["seats"]), "every seat is claimed by its phone"

    # A second phone that scans a taken seat is told so, and gets nothing of the seat; in
    # the lobby it is told the other phone can give the seat back.
    intruder = await phones.open(seat_path(tokens[0]))
    lobby_words = catalogue("en")["phone.error.seat_claimed_lobby"]
    await intruder.wait_for_function(
        "words => document.querySelector('#message').innerText.includes(words)", arg=lobby_words)
    assert await intruder.locator("#mine").is_hidden()

    host = await phones.open(f"/h#{room.host_token}")
    await host.wait_for_selector("#start:not([disabled])")
    await host.click("#start")
    await showing(pages, 0)
    statuses = [s.status for s in room.table.state.seats]

    # The Status card: not in the page until held; held, it is this seat's card.
    for seat, page in enumerate(pages):
        assert word("status", statuses[seat]) not in await private_html(page)
        assert (await peek(page)).startswith(word("status", statuses[seat]))
        assert await page.inner_text("#peek-content") == ""
    await check_secrecy(room, pages)

    plan = {"vote_called": False, "buttons": 0, "button_task": None, "reloaded": False,
            "voted": False, "refused": False}
    for _ in range(MAX_STEPS):
        if room.table.over:
            break
        before = room.table.state_id
        waiting = room.table.waiting_for()
        kind, seat = waiting["decision"], waiting["seats"][0]
        task = (room.table.state.turn, room.table.state.task and room.table.state.task.card)
        if kind == "participation" and plan["button_task"] in (None, task):
            # The first malfunction is played on the seat buttons: BLACK is IN, RED is OUT.
            plan["button_task"] = task
            legal = room.table.seat_view(seat)["you"]["decision"]["options"]
            colour = "red" if plan["buttons"] == 1 or ["in"] not in legal else "black"
            assert await room.press(seat, colour) is not None
            plan["buttons"] += 1
            await showing(pages, await changed(room, before))
            said = catalogue("en")["phone.participation." + ("out" if colour == "red" else "in")]
            assert said in await pages[0].inner_text(".participation")
            continue
        if kind == "vote" and not plan["voted"]:
            await play_vote(room, pages, room.table.public_view()["waiting"], plan)
            continue
        rolled = room.table.state.seats[seat].rolled
        if kind == "submit" and rolled and not plan["reloaded"]:
            await reload_mid_roll(room, pages[seat], seat)
            plan["reloaded"] = True
        await tap_choice(room, pages[seat], seat, plan)
        await showing(pages, await changed(room, before))
        await check_secrecy(room, pages)
    assert room.table.over, "the game ended"
    assert plan["buttons"] >= 2 and plan["voted"] and plan["reloaded"] and plan["refused"]

    # After the game every phone shows every seat's status.
    final = room.table.state_id
    await showing(pages, final)
    for seat, page in enumerate(pages):
        assert await page.inner_text(".status-open .status-name") == word("status", statuses[seat])
        for other, status in enumerate(statuses):
            row = await page.inner_text(f'table.seats tr[data-seat="{other}"]')
            assert word("status", status) in row
    assert phones.errors == []


async def play_vote(room: Room, pages: list[Page], waiting: dict, plan: dict) -> None:
    """Each phone votes; no phone shows a ballot before the last one, then all show all."""
    voters = waiting["voters"]
    state = room.table.state
    # A seat button press with a colour the seat does not hold: refused on that phone only.
    lacking = [(v, c) for v in voters for c, button in (("strong", "black"), ("weak", "red"))
               if state.seats[v].dice[c] == 0]
    if lacking:
        seat, colour = lacking[0]
        before = room.table.state_id
        assert await room.press(seat, "black" if colour == "strong" else "red") is None
        await pages[seat].wait_for_selector(".toast.refusal")
        for other, page in enumerate(pages):
            if other != seat:
                assert await page.locator(".toast.refusal").count() == 0
        assert room.table.state_id == before, "a refused press changes nothing"
        plan["refused"] = True
    ballots = {}
    for n, voter in enumerate(voters):
        for page in pages:
            assert await page.locator("#ballots").count() == 0
        before = room.table.state_id
        page = pages[voter]
        view = room.table.seat_view(voter)
        choice = choose("vote", view["you"]["decision"]["options"], view["you"], None, plan)
        await page.click(f"#decision button.option[data-option='{compact(choice)}']")
        ballots[voter] = choice[0]
        await showing(pages, await changed(room, before))
        if n < len(voters) - 1:  # a voter sees its own ballot; nobody else sees any
            for other, other_page in enumerate(pages):
                assert await other_page.locator(".own-choice").count() == (other in ballots)
    for page in pages:
        shown = await page.eval_on_selector_all(
            "#ballots li", "els => els.map(e => [Number(e.dataset.ballot), e.innerText])")
        assert [seat for seat, _ in shown] == sorted(ballots)
        for seat, text in shown:
            assert word("ballot", ballots[seat]) in text
    plan["voted"] = True


async def reload_mid_roll(room: Room, page: Page, seat: int) -> None:
    """A phone reloads with a roll waiting to be submitted: the same dice come back."""
    before = room.table.state_id
    shown = await rolled_on(page)
    assert shown == [list(d) for d in room.table.state.seats[seat].rolled]
    await page.reload()
    await page.wait_for_selector(f'body[data-state="{before}"]', state="attached")
    assert await rolled_on(page) == shown
    assert room.table.state_id == before, "reconnecting never re-rolls"
