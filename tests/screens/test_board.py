"""The board during play, the seat keys, the live panels, game over, help and language."""
from __future__ import annotations

from screens.capture import record_frames

from .conftest import SIZE, kiosk, region_text, settle
from table_play import advance, call_votes, seated_room, waiting_for

BLACK_KEYS, GREY_KEYS = "1234567", "asdfghj"


async def test_board_shows_tracks_seats_and_what_the_game_waits_for(tmp_path):
    room = await seated_room(tmp_path, seed=7)
    view = await advance(room, waiting_for("participation"))
    app = kiosk(room)
    async with app.run_test(size=SIZE) as pilot:
        text = await settle(app, pilot)
        seat = view["waiting"]["seats"][0]
        name = view["seats"][seat]["name"]
        assert f"Waiting for {name}" in text or name in text.splitlines()[1]
        assert "SHIELDS" in text and f"{view['shield']['tokens']}/6" in text
        assert "OUTPOST" in text and "LIFE SUPPORT" in text and "SUSPICION" in text
        commander = view["seats"][view["commander"]]["name"]
        assert f"Commander: {view['commander'] + 1} {commander}" in text
        for s in view["seats"]:
            assert f"{s['seat'] + 1} {s['name']}" in text
        active = view["seats"][view["active"]]["name"]
        assert f"▶ {view['active'] + 1} {active}" in text
        assert "Infected" not in text  # nobody has revealed: no status is on the board


async def test_black_key_sends_in_for_the_seat_deciding_and_the_panel_flips_its_token(
        tmp_path):
    room = await seated_room(tmp_path, seed=7)
    view = await advance(room, waiting_for("participation"))
    seat = view["waiting"]["seats"][0]
    app = kiosk(room)
    async with app.run_test(size=SIZE) as pilot:
        text = await settle(app, pilot)
        label = f"{seat + 1} {view['seats'][seat]['name']} "
        assert f"{label}[…]" in text
        await pilot.press(BLACK_KEYS[seat])
        text = await settle(app, pilot)
        after = room.public_view()
        assert after["task"]["participation"][str(seat)] == "in"
        assert f"{label}[IN]" in text


async def test_a_press_that_means_nothing_now_changes_nothing(tmp_path):
    room = await seated_room(tmp_path, seed=7)
    view = await advance(room, waiting_for("participation"))
    seat = view["waiting"]["seats"][0]
    other = (seat + 1) % view["players"]
    app = kiosk(room)
    async with app.run_test(size=SIZE) as pilot:
        before = await settle(app, pilot)
        for key in (BLACK_KEYS[other], GREY_KEYS[seat], "8", "z"):
            await pilot.press(key)
        after = await settle(app, pilot)
        # the board is as it was; only the bottom line says why the last press did nothing
        assert after.splitlines()[:-1] == before.splitlines()[:-1]
        assert "GREY does nothing now, that button is not a choice here" in \
            region_text(app, "#buttons-line")
        assert room.public_view()["state_id"] == view["state_id"]


async def test_vote_panel_shows_who_has_chosen_then_every_ballot_in_one_frame(tmp_path):
    room = await seated_room(tmp_path, seed=7)
    view = await advance(room, waiting_for("vote"), prefer=call_votes)
    voters = view["waiting"]["voters"]
    app = kiosk(room)
    async with app.run_test(size=SIZE) as pilot:
        for seat in voters[:-1]:
            await pilot.press(GREY_KEYS[seat])  # abstaining is open to every voter
        text = await settle(app, pilot)
        panel = region_text(app, "#live")
        assert panel.count("√ has chosen") == len(voters) - 1
        assert panel.count("… not yet") == 1
        assert "Abstain (no die, GREY)" not in text and "free: 0" not in text
        frames: list[str] = []
        record_frames(app, lambda a: frames.append(region_text(a, "#live")))
        await pilot.press(GREY_KEYS[voters[-1]])
        await settle(app, pilot)
        panel = region_text(app, "#live")
        assert panel.count("Abstain (no die, GREY)") == len(voters)
        assert "free: 0 · quarantine: 0" in panel
        showing = [f.count("Abstain") for f in frames if "Abstain" in f]
        assert showing and set(showing) == {len(voters)}  # never a partial reveal


async def test_game_over_shows_every_status_and_roll(tmp_path):
    room = await seated_room(tmp_path, seed=11, players=5)
    view = await advance(room, lambda v: v["outcome"] is not None)
    app = kiosk(room)
    async with app.run_test(size=SIZE) as pilot:
        text = await settle(app, pilot)
        assert "Game over" in text
        lines = region_text(app, "#over-seats").splitlines()
        for s in view["seats"]:
            status = "Uninfected" if s["status"] == "uninfected" else "Infected"
            row = next(i for i, x in enumerate(lines) if f"{s['seat'] + 1} {s['name']}" in x)
            assert status in lines[row + 1]  # the status under the seat's name
        assert "rolled" in text and "Every roll" in text


async def test_help_lists_each_seats_keys(tmp_path):
    room = await seated_room(tmp_path, players=4)
    app = kiosk(room)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f1")
        text = await settle(app, pilot)
        for n, (black, red, grey) in enumerate(zip("1234", "qwer", "asdf"), start=1):
            line = next(x for x in text.splitlines() if f"Seat {n} " in x)
            assert f"BLACK [{black}]" in line and f"RED [{red}]" in line \
                and f"GREY [{grey}]" in line
        await pilot.press("escape")
        assert "BLACK [1]" not in await settle(app, pilot)  # the help has closed


async def test_f2_switches_the_kiosk_to_spanish(tmp_path):
    room = await seated_room(tmp_path, players=4)
    app = kiosk(room)
    async with app.run_test(size=SIZE) as pilot:
        assert "SHIELDS" in await settle(app, pilot)
        await pilot.press("f2")
        text = await settle(app, pilot)
        assert room.lang == "es"
        assert "ESCUDOS" in text and "Jugadores" in text and "SHIELDS" not in text


async def test_dice_the_host_reports_lost_show_on_the_board(tmp_path):
    """A die lost under the table is corrected by the host (the 29 stay counted);
    the kiosk says the pool is short, in both languages, and says nothing once it is found."""
    room = await seated_room(tmp_path, seed=7, players=4)
    app = kiosk(room)
    async with app.run_test(size=SIZE) as pilot:
        text = await settle(app, pilot)
        assert "Lost dice" not in text
        await room.submit("host", {"decision": "correct", "option": ["lost_dice", "strong", 1]})
        text = await settle(app, pilot)
        assert "Lost dice: 1 strong die" in region_text(app, "#tracks").replace("\n", " ")
        await pilot.press("f2")
        text = await settle(app, pilot)
        assert "Dados perdidos: 1 dado fuerte" in region_text(app, "#tracks").replace("\n", " ")
        await room.submit("host", {"decision": "correct", "option": ["lost_dice", "strong", 0]})
        await settle(app, pilot)
        assert "perdidos" not in region_text(app, "#tracks")  # the log still says both
