"""The rules at hand: a legend of the dice colours and their faces on every page's
board, in the reader's language, that stays open while the game moves on."""
from __future__ import annotations

from companion.darkmoon.data import FACES
from companion.lang import catalogue

from test_browser_kit import Phones, browser, seated_pages, served, showing  # noqa: F401


def shown(faces) -> str:
    return " ".join(f"+{v}" if v > 0 else str(v) for v in faces)


async def test_the_dice_legend_shows_every_colour_and_face(served, browser):
    phones = Phones(browser, served.base)
    room = served.room
    page = (await seated_pages(room, phones))[0]
    en = catalogue("en")
    await page.click("#legend summary")
    for colour, faces in FACES.items():
        row = page.locator(f"#legend .legend-row[data-colour={colour}]")
        if colour == "corporation":  # Shadow Corporation's yellow dice: not in a base game
            assert await row.count() == 0
            continue
        assert await row.locator(".legend-name").inner_text() == en[f"phone.legend.{colour}"]
        assert " ".join((await row.locator(".rolled").inner_text()).split()) == shown(faces)
    g = room.table.state  # the game moves on: the board is redrawn, the legend stays open
    (seat,) = g.pending.seats
    await room.submit(seat, {"decision": g.pending.kind,
                             "option": list(g.pending.options[seat][0])})
    await showing([page], room.table.state_id)
    assert await page.locator("#legend").get_attribute("open") is not None
    await page.click("[data-lang='es']")
    await page.wait_for_selector("html[lang='es']", state="attached")
    es = catalogue("es")
    assert await page.inner_text("#legend summary") == es["phone.legend.title"]
    board = await phones.open("/board")  # the public board page has it too
    await board.wait_for_selector("#legend", state="attached")
    assert phones.errors == []
