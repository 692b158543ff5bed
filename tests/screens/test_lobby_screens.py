"""Start and join screens: the host's code, each seat's code, who has joined, notices."""
from __future__ import annotations

import pytest
from rich.color import ColorType

from companion.core.room import Room, SeatClaimed, UnknownToken
from companion.core.store import EventStore
from screens.capture import screen_text
from screens.join import typed_form
from screens.qr import QrCode, size

from .conftest import BASE, SIZE, kiosk, settle
from table_play import NAMES


def shown_codes(app) -> list[str]:
    return [qr.data for qr in app.query(QrCode) if qr.display and qr.parent.display
            and qr.region.area]


@pytest.fixture
def room(tmp_path):
    return Room(EventStore(str(tmp_path / "games.db")), seed=5, bot_delay=0)


async def test_start_screen_shows_the_hosts_code_until_the_host_claims(room):
    app = kiosk(room)
    async with app.run_test(size=SIZE) as pilot:
        text = await settle(app, pilot)
        url = f"{BASE}/h#{room.host_token}"
        # printed in groups of four, for a phone that cannot scan
        assert "Scan to host" in text and typed_form(url) in text
        assert shown_codes(app) == [url]
        await room.claim_host(room.host_token, "phone-host")
        text = await settle(app, pilot)
        assert "setting up the game on their phone" in text
        assert typed_form(url) not in text and shown_codes(app) == []


async def test_join_screen_shows_seat_codes_and_claims_as_they_happen(room):
    await room.new_game({"names": NAMES[:3]}, bots=[2])
    tokens = room.kiosk_view()["seat_tokens"]
    app = kiosk(room)
    async with app.run_test(size=SIZE) as pilot:
        text = await settle(app, pilot)
        # a bot's seat has no code (no phone may take it unseen): the host hands it over
        assert tokens[2] is None
        assert shown_codes(app) == [f"{BASE}/s#{t}" for t in tokens[:2]]
        for name in NAMES[:3]:
            assert name in text
        assert "3 Cai          bot" in text and "Seat 3 Cai" not in text
        assert "A bot's seat has no code: the host hands it to a person on the host's page." \
            in text
        await room.claim_seat(tokens[1], "phone-ben")
        text = await settle(app, pilot)
        assert "2 Ben          √ joined" in text
        assert shown_codes(app) == [f"{BASE}/s#{tokens[0]}"]
        with pytest.raises(SeatClaimed):
            await room.claim_seat(tokens[1], "phone-intruder")
        text = await settle(app, pilot)
        assert "Seat 2 (Ben) was scanned by a second phone: refused" in text
        assert "Scan your seat's code" in text and "Everyone has joined" not in text
        await room.claim_seat(tokens[0], "phone-ana")  # the last human seat (Cai is a bot)
        text = await settle(app, pilot)
        # The join screen used to keep asking for scans once everyone was in
        assert "Everyone has joined. The host starts the game on their phone." in text
        assert "Scan your seat's code" not in text


def fully_shown(app, qr: QrCode) -> bool:
    """The whole code is on the screen: its region is as big as the code and inside it."""
    width, height = size(qr.data)
    region, screen = qr.region, app.size
    return (region.width, region.height) == (width, height) and region.x >= 0 and \
        region.y >= 0 and region.right <= screen.width and region.bottom <= screen.height


def lines_with(text: str, words: list[str]) -> list[int]:
    """The screen line of each of `words` (the first line holding it)."""
    lines = text.splitlines()
    return [next(i for i, line in enumerate(lines) if word in line) for word in words]


@pytest.mark.parametrize("players", [5, 7])
async def test_at_120x36_every_seat_joins_from_one_table_code_without_paging(room, players):
    """3 of 5 seat codes fitted at 120x36 and the rest waited behind PgDn. Seven
    seat codes cannot fit there (4 x 31 columns are more than 120), so one table code is
    shown with every seat beside it in seat order: the number a player taps on the phone."""
    await room.new_game({"names": NAMES[:players]}, bots=[players - 1])
    kiosk_view = room.kiosk_view()
    app = kiosk(room)
    async with app.run_test(size=SIZE) as pilot:
        text = await settle(app, pilot)
        table = f"{BASE}/j#{kiosk_view['table_token']}"
        assert shown_codes(app) == [table]
        assert fully_shown(app, app.query_one("#table-code QrCode", QrCode))
        assert "Everyone scans this one code, then taps their own seat on the phone" in text
        labels = [f"Seat {i + 1}  {name}" for i, name in enumerate(NAMES[:players])]
        rows = lines_with(text, labels)
        assert rows == sorted(rows) and len(set(rows)) == players  # one a line, in order
        assert f"Seat {players}  {NAMES[players - 1]}           bot" in text
        assert "PgDn" not in text and "Seat 1  Ana           waiting" in text
        await room.claim_seat(kiosk_view["seat_tokens"][1], "phone-ben")
        await room.claim_seat(kiosk_view["seat_tokens"][2], "phone-cai")
        text = await settle(app, pilot)
        # two seats left: they would fit as seat codes, but the way to join stays the same
        # while the table is joining (a phone may be scanning the table code right now)
        assert shown_codes(app) == [table]
        assert "Seat 2  Ben           √ joined" in text


@pytest.mark.parametrize("players", [5, 7])
async def test_at_240x67_every_seat_has_its_own_code_in_seat_order(room, players):
    await room.new_game({"names": NAMES[:players]}, bots=[0])
    tokens = room.kiosk_view()["seat_tokens"]
    app = kiosk(room)
    async with app.run_test(size=(240, 67)) as pilot:
        text = await settle(app, pilot)
        assert tokens[0] is None  # seat 1 is a bot's: no code, no phone may take it
        assert shown_codes(app) == [f"{BASE}/s#{t}" for t in tokens[1:]]  # in seat order
        codes = [qr for qr in app.query(QrCode) if qr.data in shown_codes(app)]
        assert all(fully_shown(app, qr) for qr in codes)
        lines = text.splitlines()
        for seat, qr in enumerate(codes, start=1):
            label = lines[qr.region.y - 1][qr.region.x:qr.region.right]  # just above its code
            assert label.startswith(f"Seat {seat + 1} {NAMES[seat]}")
        assert "1 Ana          bot" in text
        # reading order is seat order: left to right, then the next row
        places = [(qr.region.y, qr.region.x) for qr in codes]
        assert places == sorted(places)
        assert "PgDn" not in text


async def test_a_rebound_seat_gets_its_code_back_during_play(tmp_path):
    from table_play import seated_room
    room = await seated_room(tmp_path, players=4)
    app = kiosk(room)
    async with app.run_test(size=SIZE) as pilot:
        text = await settle(app, pilot)
        assert "SHIELDS" in text and shown_codes(app) == []
        await room.rebind(2)
        text = await settle(app, pilot)
        assert "No phone yet: seat 3 (F3)" in text
        await pilot.press("f3")
        text = await settle(app, pilot)
        assert shown_codes(app) == [f"{BASE}/s#{room.kiosk_view()['seat_tokens'][2]}"]
        assert "Seat 3 (Cai) was freed by the host for a new phone" in text
        await pilot.press("f3")
        assert "SHIELDS" in screen_text(app)


async def test_a_rebind_during_play_is_announced_on_the_board_itself(tmp_path):
    """A re-bind can never happen unseen: the play screen says whose phone is out,
    in both languages, without anyone pressing a key."""
    from table_play import seated_room
    room = await seated_room(tmp_path, players=4)
    app = kiosk(room)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await room.rebind(2)
        text = await settle(app, pilot)
        assert "SHIELDS" in text  # still the board
        assert "Seat 3 (Cai) was re-bound by the host: its old phone is out" in text
        await pilot.press("f2")
        text = await settle(app, pilot)
        assert "El anfitrión reasignó el asiento 3 (Cai)" in text


async def test_f5_at_the_pi_makes_a_new_host_code_and_the_game_goes_on(tmp_path):
    """A lost host phone is replaced by whoever stands at the Pi, mid-game: F5
    shows a new host code (the old one is dead), a phone opens it, the board comes back."""
    from table_play import seated_room
    room = await seated_room(tmp_path, players=4)
    await room.claim_host(room.host_token, "phone-lost")
    old, state = room.host_token, room.table.state_id
    app = kiosk(room)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("f5")
        text = await settle(app, pilot)
        assert room.host_token != old
        assert shown_codes(app) == [f"{BASE}/h#{room.host_token}"]
        assert "Scan to become the host" in text and "old host phone no longer works" in text
        with pytest.raises(UnknownToken):
            room.check_host(old, "phone-lost")
        await room.claim_host(room.host_token, "phone-new")
        text = await settle(app, pilot)
        assert "SHIELDS" in text and shown_codes(app) == []
        assert "A new host code was made at the Pi" in text  # said on the board, too
        assert room.table.state_id == state and room.phase == "play"


async def test_f5_pressed_again_hides_the_new_host_code(tmp_path):
    from table_play import seated_room
    room = await seated_room(tmp_path, players=3)
    app = kiosk(room)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("f5")
        await settle(app, pilot)
        assert shown_codes(app) == [f"{BASE}/h#{room.host_token}"]
        await pilot.press("f5")
        text = await settle(app, pilot)
        assert "SHIELDS" in text and shown_codes(app) == []


async def test_a_name_stored_by_an_older_version_never_reaches_the_terminal_raw(tmp_path):
    """An escape sequence in a name blanked the join screen and an OSC sequence
    retitled the terminal. Names are refused at the boundary now; a game stored before that
    is still drawn harmlessly, with its codes."""
    store = EventStore(str(tmp_path / "games.db"))
    hostile = ["\x1b[2J\x1b]0;owned\x07Ana", "Ben\u202e", "Cai\x9b2J"]
    store.put_setting("room", {"host_token": "h" * 22, "host_phone": "p", "lang": "en",
                               "lobby": {"setup": {"names": hostile, "characters": None,
                                                   "final_event": None, "variants": []},
                                         "game_id": None,
                                         "seats": [{"token": f"{i}" * 22, "phone": None,
                                                    "bot": False} for i in range(3)]}})
    room = Room(store, seed=5, bot_delay=0)
    app = kiosk(room)
    async with app.run_test(size=SIZE) as pilot:
        text = await settle(app, pilot)
        assert len(shown_codes(app)) == 3
        assert not any(ch in text for ch in "\x1b\x07\x9b\u202e")
        assert "Ana" in text and "Ben" in text


async def test_the_kiosk_draws_only_the_16_colours_the_pi_console_shows(room):
    """The Linux console has 16 colours; a true colour would be guessed at, or lost. The theme
    is chosen before the first frame (choosing it after re-styles every widget at start)."""
    app = kiosk(room)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        kinds = {colour.type for y in range(SIZE[1]) for x in range(SIZE[0])
                 for colour in (app.screen.get_style_at(x, y).color,
                                app.screen.get_style_at(x, y).bgcolor) if colour is not None}
        assert kinds <= {ColorType.DEFAULT, ColorType.STANDARD}, kinds


async def test_a_demos_bot_seats_have_no_code_and_the_host_hands_one_over_in_public(tmp_path):
    """A bot's seat showed under "no phone" all game long and its code let any phone take it
    unseen. Now it has no code; in a demo the join screen says how to get one (F5: the host's
    code, then the host's page); the hand-over gives the seat a code and is said on the
    board."""
    room = Room(EventStore(str(tmp_path / "games.db")), seed=5, bot_delay=600, demo=True)
    await room.new_game({"names": NAMES[:4]}, bots=[0, 1, 2, 3])  # as `demo` deals it
    await room.start()
    app = kiosk(room)
    async with app.run_test(size=SIZE) as pilot:
        text = await settle(app, pilot)
        assert "SHIELDS" in text and "No phone" not in text
        await pilot.press("f3")
        text = await settle(app, pilot)
        assert shown_codes(app) == []
        assert "A bot's seat has no code. To play one: F5 shows the host's code" in text
        await pilot.press("f3")
        await pilot.press("f5")
        await settle(app, pilot)
        assert shown_codes(app) == [f"{BASE}/h#{room.host_token}"]
        await room.claim_host(room.host_token, "newcomer")
        await room.hand_over(1, host=(room.host_token, "newcomer"))
        text = await settle(app, pilot)
        assert "The host gave seat 2 (Ben), a bot's, to a person. Its new code: F3" in text
        assert "No phone yet: seat 2 (F3)" in text
        await pilot.press("f3")
        text = await settle(app, pilot)
        assert shown_codes(app) == [f"{BASE}/s#{room.kiosk_view()['seat_tokens'][1]}"]
        assert "A bot's seat has no code: the host hands it to a person on the host's page." \
            in text  # the host is claimed now: the way in is their page


async def test_f5_on_a_full_disk_says_on_screen_that_no_new_host_code_was_made(tmp_path):
    """F5 with the store unwritable (SQLite's "database or disk is full") did nothing on
    the screen; only the log said why. Now the bottom line says it, in the kiosk's language,
    and the board stays: the old host code still works."""
    import sqlite3

    from table_play import seated_room
    room = await seated_room(tmp_path, players=4)
    await room.claim_host(room.host_token, "host-phone")
    host = room.host_token

    def full(*_args):
        raise sqlite3.OperationalError("database or disk is full")

    app = kiosk(room)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        room.store.put_setting = full
        await pilot.press("f5")
        text = await settle(app, pilot)
        assert "No new host code: the Pi cannot save (its storage is full or failing)" in text
        assert "SHIELDS" in text and shown_codes(app) == []
        assert room.host_token == host and room.host_phone == "host-phone"
        await pilot.press("f2")  # the language cannot be saved either: said, in English
        text = await settle(app, pilot)
        assert "That key changed nothing: the Pi cannot save" in text and room.lang == "en"
        del room.store.put_setting  # the card writes again: Spanish, then full once more
        await pilot.press("f2")
        await settle(app, pilot)
        room.store.put_setting = full
        await pilot.press("f5")
        text = await settle(app, pilot)
        assert "Sin código de anfitrión nuevo: la Pi no puede guardar" in text
        assert room.host_token == host and shown_codes(app) == []
        del room.store.put_setting
        await pilot.press("f5")
        text = await settle(app, pilot)
        assert "Sin código de anfitrión nuevo" not in text  # this time it was made
        assert shown_codes(app) == [f"{BASE}/h#{room.host_token}"] and room.host_token != host
