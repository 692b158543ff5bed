"""The kiosk read from a chair two or three metres away: what the game waits for in letters
several rows tall (read back here from the drawn blocks, as an eye would), the colours of a
vote while it is open, the task being played (a repair too, never last turn's result), table
words instead of machine words through whole games, the threat cards under their own heading,
and a seat's address beside its code for a phone that cannot scan."""
from __future__ import annotations

import re
from types import SimpleNamespace

import pytest

from companion.codes import SEAT_SYMBOLS, typed
from companion.core.room import Room
from companion.core.store import EventStore
from hardware.source import KeyboardSource
from screens.bigtext import FONT
from screens.banner import banner
from screens.buttons import ButtonState
from screens.capture import screen_text
from screens.qr import QrCode
from screens.words import name_of, sentences

from .conftest import BASE, SIZE, kiosk, region_text, settle
from .test_qr_scan import needs_zbar, scan
from table_play import NAMES, advance, call_votes, seated_room, waiting_for

WIDE = (240, 67)
SIZES = [SIZE, WIDE]
GLYPHS = {rows: ch for ch, rows in FONT.items() if ch != " "}
TOP, BOTTOM = "█▀", "█▄"


def big_letters(app) -> str:
    """The banner's big letters read back into text, as an eye would: whichever size they
    are drawn at (a dot is one column and half a row at 120x36; two or three columns and as
    many half rows on a big screen), letters one blank dot apart, words more."""
    lines = region_text(app, "#banner").splitlines()
    for scale in (3, 2, 1):
        for start in range(len(lines) - 3 * scale + 1):
            words = read(lines[start:start + 3 * scale], scale)
            if words and "�" not in words:
                return words
    return ""


def read(lines: list[str], scale: int) -> str:
    halves = []  # half rows of cells, True where lit
    for line in lines:
        halves.append([c in TOP for c in line])
        halves.append([c in BOTTOM for c in line])
    lit = [x for row in halves for x, on in enumerate(row) if on]
    if not lit:
        return ""
    first, width = min(lit), max(map(len, halves))
    grid = [[row[x] if x < len(row) else False for x in range(first, width, scale)]
            for row in halves[::scale]]
    columns = [any(row[c] for row in grid) for c in range(len(grid[0]))]
    words, c, blank = "", 0, 0
    while c < len(columns):
        if not columns[c]:
            blank, c = blank + 1, c + 1
            continue
        end = c
        while end < len(columns) and columns[end]:
            end += 1
        if words and blank >= 3:
            words += " "
        glyph = tuple("".join("#" if row[x] else "." for x in range(c, end)) for row in grid)
        words += GLYPHS.get(glyph, "�")
        c, blank = end, 0
    return words


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("lang, asked", [("en", "{name}: IN OR OUT?"),
                                         ("es", "{name}: ¿DENTRO O FUERA?")])
async def test_who_the_game_waits_for_is_in_big_letters(tmp_path, size, lang, asked):
    room = await seated_room(tmp_path, seed=7, players=5, lang=lang)
    view = await advance(room, waiting_for("participation"))
    name = view["seats"][view["waiting"]["seats"][0]]["name"]
    app = kiosk(room)
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        assert big_letters(app) == asked.format(name=name.upper())
        banner_rows = region_text(app, "#banner").splitlines()
        tall = [row for row in banner_rows if set(row) & set(TOP + BOTTOM)]
        assert len(tall) >= (6 if size == WIDE else 3)  # letters 3 rows tall, more if room
        # the whole sentence in ordinary letters under them
        under = banner_rows[banner_rows.index(tall[-1]) + 1:]
        assert any(sentences(view, lang)["banner"] in row for row in under)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_a_vote_counts_in_big_letters_and_shows_its_colours_while_open(tmp_path, size):
    """The base game's quarantine vote once showed what BLACK and RED mean only with the
    result; now from the call, as the expansion's votes do."""
    room = await seated_room(tmp_path, seed=7, players=5)
    view = await advance(room, waiting_for("vote"), prefer=call_votes)
    target = view["seats"][view["waiting"]["target"]]["name"].upper()
    voters = view["waiting"]["voters"]
    app = kiosk(room)
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        assert big_letters(app) == f"VOTE ON {target}: 0 OF {len(voters)}"
        panel = region_text(app, "#live")
        for key in ("BLACK = FREE (strong die)", "RED = QUARANTINE (weak die)",
                    "GREY = ABSTAIN (no die)"):
            assert key in panel
        assert "Abstain (no die, GREY)" not in panel  # no ballot is shown before the reveal
        await pilot.press("asdfghj"[voters[0]])
        await settle(app, pilot)
        assert big_letters(app) == f"VOTE ON {target}: 1 OF {len(voters)}"
        assert "GREY = ABSTAIN (no die)" in region_text(app, "#live")


async def test_the_vote_key_in_spanish(tmp_path):
    room = await seated_room(tmp_path, seed=7, players=5, lang="es")
    await advance(room, waiting_for("vote"), prefer=call_votes)
    app = kiosk(room)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        panel = region_text(app, "#live")
        assert "NEGRO = LIBRE (dado fuerte)" in panel and "ROJO = CUARENTENA (dado débil)" \
            in panel and "GRIS = ABSTENCIÓN (sin dado)" in panel
        assert big_letters(app).startswith("VOTO SOBRE ")


async def test_a_sentence_that_cannot_be_big_keeps_its_words_and_the_banner_its_height(
        tmp_path):
    room = await seated_room(tmp_path, seed=7, players=5)
    view = await advance(room, waiting_for("participation"))
    said = sentences(view, "en")
    drawn = banner(view, "en", said, 118, (1,))
    assert rows(drawn) == 4 and set(drawn.plain) & set("█▀▄")
    seat = view["waiting"]["seats"][0]
    for name, columns in (("Zoë", 118), ("Ana", 30)):  # a letter the font lacks; too narrow
        named = dict(view, seats=[dict(s, name=name) if s["seat"] == seat else s
                                  for s in view["seats"]])
        small = banner(named, "en", sentences(named, "en"), columns, (1,))
        assert not set(small.plain) & set("█▀▄")
        assert sentences(named, "en")["banner"] in small.plain
        assert rows(small) == rows(drawn)  # no jump of the board below it


def rows(text) -> int:
    return text.plain.count("\n") + 1


def repairing_after_a_malfunction(view) -> bool:
    log = view["log"]
    if (view["waiting"] or {}).get("decision") not in ("roll_dice", "submit"):
        return False
    acts = [i for i, f in enumerate(log) if f["k"] == "action" and f["action"][0] == "repair"]
    results = [i for i, f in enumerate(log) if f["k"] == "malfunction_result"]
    return bool(acts and results) and acts[-1] > results[-1] and \
        not any(f["k"] == "repair" for f in log[acts[-1]:])


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_the_repair_being_rolled_is_shown_and_not_last_turns_malfunction(tmp_path, size):
    room = await seated_room(tmp_path, seed=7, players=5)
    view = await advance(room, repairing_after_a_malfunction)
    seat = view["waiting"]["seats"][0]
    app = kiosk(room)
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        live = app.query_one("#live")
        panel = region_text(app, "#live")
        assert live.border_title == "Repair"
        assert re.search(r"REPAIR (SHIELDS|LIFE SUPPORT|THE OUTPOST)", panel)
        assert f"{seat + 1} {view['seats'][seat]['name']} submits one die" in panel
        assert "in progress" in panel
        assert "REPAIRED" not in panel and "FAILED" not in panel  # not the finished one
        assert "no task in play" not in screen_text(app)
        # the repair done, the next task in play takes the panel
        after = await advance(room, lambda v: v["task"] is not None or
                              (v["waiting"] or {}).get("decision") in ("vote", "vote_target"))
        await settle(app, pilot)
        panel = region_text(app, "#live")
        if after["task"] is not None:
            assert app.query_one("#live").border_title == "Malfunction"
            assert "REPAIR SHIELDS" not in panel and "submits one die" not in panel


# Machine words and signs a player at the table should never have to read.
JARGON = ["dealt on this box", "Seeded game", "not verifiable", "commitment", "Randomness",
          "randomness", "[·]", "≤", "★", "/etc/", ".toml", "no phone:", "compromiso",
          "semilla", "en este aparato", "Azar aportado", "sin teléfono:"]


def jargon_in(shown: str) -> list[str]:
    found = [word for word in JARGON if word in shown]
    if "▶" in shown and "(▶ plays)" not in shown and "(▶ juega)" not in shown:
        found.append("▶ without its key")
    return found


@pytest.mark.parametrize("variants, lang, size", [
    ((), "en", SIZE),
    (("shadow_corporation", "threats_module", "company_man_module"), "es", WIDE)],
    ids=["base", "expansion"])
async def test_no_machine_words_on_the_kiosk_through_a_demo_game(tmp_path, variants, lang,
                                                                size):
    """As `darkmoon demo` plays it: every seat a bot, a seeded deal; the screens drawn after
    the moves, then game over."""
    room = Room(EventStore(str(tmp_path / "games.db")), seed=11, bot_delay=0.005, demo=True)
    players = 5
    await room.new_game({"names": NAMES[:players], "variants": list(variants)},
                        bots=list(range(players)), lang=lang)
    await room.start()
    app = kiosk(room)
    seen = 0
    async with app.run_test(size=size) as pilot:
        for _ in range(20000):
            await pilot.pause(0.005)
            shown = screen_text(app)
            assert not jargon_in(shown), (jargon_in(shown), shown)
            seen += 1
            if room.table.over:
                break
        shown = await settle(app, pilot)
        assert room.table.over and seen > 100  # many moments of the game, not its end alone
        assert not jargon_in(shown), shown
        over = app.query_one("#over-cards")._shown.plain + shown
        assert not jargon_in(over)
    await room.close()


async def test_no_machine_words_on_the_join_screen_of_a_fair_deal(tmp_path):
    room = Room(EventStore(str(tmp_path / "games.db")), bot_delay=0)  # no seed: dealt fair
    await room.new_game({"names": NAMES[:3]})
    app = kiosk(room)
    async with app.run_test(size=SIZE) as pilot:
        shown = await settle(app, pilot)
        assert "Fair deal sealed: " in shown
        assert "0 of 3 phones added to the shuffle" in shown
        assert not jargon_in(shown)
    await room.close()


@pytest.mark.parametrize("reason, detail", [
    ("unconfigured", "/etc/darkmoon-companion/buttons.toml"),
    ("config", "buttons.toml: line 3: expected '='"), ("gpio", "lgpio: cannot open chip")])
def test_the_buttons_line_names_no_file_and_no_error_text(reason, detail):
    line = ButtonState(KeyboardSource(), SimpleNamespace(reason=reason, detail=detail)).line(
        "en").plain
    assert line.startswith("Seat buttons: the keyboard") and detail not in line
    assert not jargon_in(line)


async def test_the_button_box_file_is_named_in_the_help_not_on_the_board(tmp_path):
    room = await seated_room(tmp_path, players=4)
    path = "/etc/darkmoon-companion/buttons.toml"
    app = kiosk(room, buttons=KeyboardSource(),
                buttons_fallback=SimpleNamespace(reason="unconfigured", detail=path))
    async with app.run_test(size=SIZE) as pilot:
        assert path not in await settle(app, pilot)
        await pilot.press("f1")
        assert f"No button box is set up in {path}" in await settle(app, pilot)


async def test_a_demos_bot_seats_are_not_called_seats_without_a_phone(tmp_path):
    room = Room(EventStore(str(tmp_path / "games.db")), seed=4, bot_delay=60, demo=True)
    await room.new_game({"names": NAMES[:5]}, bots=list(range(5)))
    await room.start()
    app = kiosk(room)
    async with app.run_test(size=SIZE) as pilot:
        shown = await settle(app, pilot)
        assert "phone" not in region_text(app, "#seats") and "F3" not in shown
    await room.close()


async def test_threat_cards_are_listed_under_their_own_heading_at_game_over(tmp_path):
    room = await seated_room(tmp_path, seed=6, players=4, variants=(
        "shadow_corporation", "threats_module"))
    await advance(room, lambda v: (v.get("threats") or {}).get("dealt"))
    cards = dict(room.table.state.threats)
    await advance(room, lambda v: v["outcome"] is not None)
    app = kiosk(room)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert app.query_one("#over-cards-box").border_title == "Cards"
        lines = [line.strip() for line in app.query_one("#over-cards")._shown.plain.split("\n")]
        first = lines.index("THREAT CARDS")
        assert lines.index("CARDS PUT AWAY UNSEEN") < first
        listed = " ".join(lines[first + 1:first + 1 + 2 * len(cards)])
        view = room.public_view()
        for seat, card in cards.items():
            name = f"{seat + 1} {view['seats'][seat]['name']}"
            assert f"{name}: {name_of('en', 'threat', card)}" in listed
        assert "threat card" not in " ".join(lines[:first])  # none among the discards


def printed_address(url: str, shown: list[str]) -> str:
    """The address the screen prints for a code that scans as `url`: its code in groups of
    four joined by dashes, none of 0, O, 1, I or L in it, and typed back (in small letters,
    as a phone's keyboard may give it) the very code the QR holds."""
    page, token = url.split("#")
    found = re.findall(re.escape(page) + r"#([A-Z2-9]{4}(?:-[A-Z2-9]{4})+)", "\n".join(shown))
    printed = [code for code in found if typed(code.lower(), SEAT_SYMBOLS) == token]
    assert len(printed) == 1, (url, found)
    assert not set(printed[0]) & set("0O1IL")
    return f"{page}#{printed[0]}"


def drawn_codes(app) -> list[QrCode]:
    return sorted((qr for qr in app.query(QrCode) if qr.region.area),
                  key=lambda qr: (qr.region.y, qr.region.x))


@needs_zbar
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_each_seats_address_is_printed_with_its_code_and_scans_the_same(tmp_path, size):
    room = Room(EventStore(str(tmp_path / "games.db")), seed=5, bot_delay=0)
    await room.new_game({"names": NAMES[:3]})
    app = kiosk(room)
    async with app.run_test(size=size) as pilot:
        shown = (await settle(app, pilot)).splitlines()
        codes = drawn_codes(app)
        assert len(codes) == 3
        for seat, qr in enumerate(codes):
            url = scan(app, qr, tmp_path)
            assert url == qr.data and url.startswith(f"{BASE}/s#")
            # on one line of the screen, whole, after the seat's name, its code in groups
            # a person types right: the same code, with no look-alikes in it
            printed = printed_address(url, shown)
            line = next(line for line in shown if printed in line)
            assert f"{seat + 1} {NAMES[seat]}" in line and len(line.rstrip()) <= size[0]
    await room.close()


@needs_zbar
async def test_the_table_codes_address_is_printed_beside_it_at_120x36(tmp_path):
    room = Room(EventStore(str(tmp_path / "games.db")), seed=5, bot_delay=0)
    await room.new_game({"names": NAMES[:5]})
    app = kiosk(room)
    async with app.run_test(size=SIZE) as pilot:
        shown = await settle(app, pilot)
        [qr] = drawn_codes(app)
        url = scan(app, qr, tmp_path)
        assert url == f"{BASE}/j#{room.kiosk_view()['table_token']}"
        printed = printed_address(url, shown.splitlines())
        line = next(line for line in shown.splitlines() if printed in line)
        assert line.find(printed) > qr.region.right  # beside the code, whole, on the screen
        assert line.find(printed) + len(printed) <= SIZE[0]
    await room.close()
