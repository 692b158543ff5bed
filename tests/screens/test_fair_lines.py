"""The kiosk on fair dealing, in table words: before statuses are dealt, the code the deal is
sealed under (64 bits, the same as every phone shows) and how many phones have added their
part; once "start" is pressed, how many have shown it and how soon the deal comes; during the
game that code and the games this Pi has dealt; at game over where to check the deal and the
code of the next game's seal."""
from __future__ import annotations

import asyncio
import random
import re

import pytest

from companion.chance.fair import code, draw_value, pledge
from companion.core.room import Room
from companion.tools.simulate import choice_for
from companion.core.store import EventStore
from screens.fair import fair_join, fair_over, fair_play
from screens.words import say

from .conftest import BASE, SIZE, kiosk, settle
from .test_across_the_table import jargon_in
from table_play import NAMES

PENDING = "1593598ad948fa97c6a8cbf508b97bbec62445b02c61b6b3e22bdf20e38140fb"
DEALT = "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"
PLEDGE = "11" * 32


def seat(i: int, *, bot=False, pledged=False, revealed=False) -> dict:
    return {"seat": i, "name": NAMES[i], "bot": bot, "claimed": not bot, "pledged": pledged,
            "revealed": revealed}


def view(seats: list[dict], *, phase="join", game=None, dealt=0, verifiable=True,
         revealing=False, deal_in=None, box_alone=False) -> dict:
    """A kiosk view shaped as the room gives it: room_view()["fair"] as the protocol fixes it
    (the dealt game's commitment and code; the pending one, with every seat's pledge)."""
    return {"phase": phase, "seats": seats, "notices": [], "fair": {
        "game": game, "games_dealt": dealt, "verifiable": verifiable and game is not None,
        "commitment": DEALT if game and verifiable else None,
        "code": code(DEALT) if game and verifiable else None,
        "receipt": ([None if box_alone or not s["pledged"] else PLEDGE for s in seats]
                    if game and verifiable else None),
        "box_alone": box_alone if game and verifiable else None,
        "pending": {"game": (game or dealt) + 1, "commitment": PENDING, "code": code(PENDING),
                    "revealing": revealing, "deal_in": deal_in,
                    "pledges": [PLEDGE if s["pledged"] else None for s in seats],
                    "receipt": None},
        "revealed_games": []}}


def plain(text) -> str:
    return " ".join(text.plain.split())


def test_before_the_deal_the_whole_64_bit_code_and_the_phones_that_added_their_part():
    seats = [seat(0, pledged=True), seat(1), seat(2, bot=True)]
    shown = plain(fair_join(view(seats), "en"))
    # the code a phone shows beside its own: four groups of four, not the 8 digits of before
    assert f"Fair deal sealed: {code(PENDING)}" in shown
    assert "1 of 2 phones added to the shuffle" in shown  # the bot is no phone
    assert "0 games dealt by this Pi" in shown
    assert "bots and silent phones get a part fixed by the seal" in shown
    assert not jargon_in(shown)
    seats[1]["pledged"] = True
    assert "2 of 2 phones added to the shuffle" in plain(fair_join(view(seats, dealt=1), "en"))
    assert "1 game dealt by this Pi" in plain(fair_join(view(seats, dealt=1), "en"))
    es = plain(fair_join(view(seats, dealt=3), "es"))
    assert f"Reparto justo sellado: {code(PENDING)}" in es
    assert "2 de 2 móviles pusieron su parte" in es and "3 partidas repartidas" in es
    assert not jargon_in(es)


@pytest.mark.parametrize("lang, said", [
    ("en", ["1 of 2 phones showed their part", "dealing within 8 seconds"]),
    ("es", ["1 de 2 móviles mostraron su parte", "se reparte en 8 segundos como mucho"])])
def test_once_start_is_pressed_the_reveals_and_how_soon_the_deal_comes(lang, said):
    seats = [seat(0, pledged=True, revealed=True), seat(1, pledged=True), seat(2)]
    shown = plain(fair_join(view(seats, revealing=True, deal_in=7.2), lang))
    assert all(words in shown for words in said)
    assert "added to the shuffle" not in shown  # pledges are closed: the count moved on
    assert "dealing now" in plain(fair_join(view(seats, revealing=True, deal_in=0.0), "en"))


def test_during_play_the_games_code_and_the_games_dealt_here():
    seats = [seat(i) for i in range(3)]
    shown = plain(fair_play(view(seats, phase="play", game=14, dealt=12), "en"))
    assert f"Deal sealed: {code(DEALT)}" in shown
    # a number spent on a seal thrown away leaves a gap the count shows
    assert "Game 14 · 12 games dealt by this Pi" in shown
    assert code(PENDING) not in shown  # the next seal is not this one
    practice = plain(fair_play(view(seats, phase="play", game=3, dealt=3, verifiable=False),
                               "es"))
    assert "Partida de práctica" in practice and "Partida 3 · 3 partidas" in practice


def test_at_game_over_where_to_check_and_the_next_games_code():
    seats = [seat(0, pledged=True), seat(1), seat(2, bot=True)]
    shown = plain(fair_over(view(seats, phase="over", game=5, dealt=5), "en", BASE + "/"))
    assert "Deal sealed" not in shown and f"Fair deal sealed: {code(DEALT)}" in shown
    assert f"Check this game: {BASE}/fair · Next game sealed: {code(PENDING)}" in shown
    assert not jargon_in(shown)
    # the over screen's pane holds the result and two lines, whatever the language
    for lang in ("en", "es"):
        lines = fair_over(view(seats, phase="over", game=5, dealt=5), lang, BASE).plain
        assert lines.strip("\n").count("\n") == 1 and max(map(len, lines.split("\n"))) < 118
    # "play again" pressed: the next deal's reveals take the place of where to check
    again = fair_over(view(seats, phase="over", game=5, dealt=5, revealing=True, deal_in=9.5),
                      "en", BASE).plain
    assert f"Next game sealed: {code(PENDING)}   0 of 1 phones showed their part · " \
        "dealing within 10 seconds" in again and again.strip("\n").count("\n") == 1


def test_at_game_over_a_game_no_phone_added_to_is_dealt_by_this_pi_alone_never_fair():
    # docs/fair.md, "At the table", 5, "Dealt by the box alone": the Pi chose its seal
    # knowing the seats, so with no phone's part in it nothing shows the deal was fair.
    seats = [seat(0, bot=True), seat(1), seat(2, bot=True)]
    shown = plain(fair_over(view(seats, phase="over", game=5, dealt=5, box_alone=True), "en",
                            BASE))
    assert "Dealt by this Pi alone: no phone added to the shuffle, so not shown fair" in shown
    assert "Fair deal" not in shown and "fair deal" not in shown
    assert "Game 5 · 5 games dealt by this Pi" in shown and f"{BASE}/fair" in shown
    es = plain(fair_over(view(seats, phase="over", game=5, dealt=5, box_alone=True), "es",
                         BASE))
    assert "Solo la Pi repartió, sin ningún móvil" in es and "justo" not in es
    for lang in ("en", "es"):  # still the result and two lines, as the pane holds
        lines = fair_over(view(seats, phase="over", game=5, dealt=5, box_alone=True), lang,
                          BASE).plain
        assert lines.strip("\n").count("\n") == 1 and max(map(len, lines.split("\n"))) < 118
        assert not jargon_in(lines)


async def test_the_kiosk_says_a_bots_only_game_was_dealt_by_this_pi_alone(tmp_path):
    room = Room(EventStore(str(tmp_path / "games.db")), bot_delay=0)
    await room.new_game({"names": NAMES[:3]}, bots=[0, 1, 2])
    await room.start()  # no phone: dealt at once, by the Pi alone
    app = kiosk(room)
    async with app.run_test(size=SIZE) as pilot:
        async with asyncio.timeout(60):
            while not room.table.over:  # the bots play it to its end
                await asyncio.sleep(0.05)
        text = " ".join((await settle(app, pilot)).split())
        assert "Dealt by this Pi alone: no phone added to the shuffle, so not shown fair" in text
        assert "Fair deal sealed" not in text
        assert f"Check this game: {BASE}/fair" in text
    await room.close()


def test_a_replaced_game_is_announced_in_both_languages():
    assert say("en", "notice.game_revealed", game=7, seat="", name="") == \
        "Game 7 was replaced: anyone can now check its deal"
    assert "partida 7" in say("es", "notice.game_revealed", game=7, seat="", name="")


async def test_the_kiosk_follows_a_real_room_from_the_seal_to_the_next_games(tmp_path):
    room = Room(EventStore(str(tmp_path / "games.db")), bot_delay=0, reveal_wait=60)
    await room.new_game({"names": NAMES[:3]})
    tokens = room.kiosk_view()["seat_tokens"]
    pending = room.room_view()["fair"]["pending"]
    values = [draw_value(), draw_value()]
    app = kiosk(room)
    async with app.run_test(size=SIZE) as pilot:
        text = " ".join((await settle(app, pilot)).split())
        assert f"Fair deal sealed: {pending['code']}" in text
        # 16 symbols without look-alikes (no 0, O, 1, I or L), in four groups of four
        assert re.fullmatch(r"[A-HJKMNP-Z2-9]{4}( [A-HJKMNP-Z2-9]{4}){3}", pending["code"])
        assert "0 of 3 phones added to the shuffle" in text and "0 games dealt by this Pi" in text
        for i, value in enumerate(values):
            await room.claim_seat(tokens[i], f"phone-{i}", pending["commitment"],
                                  pledge(pending["commitment"], value))
        await room.claim_seat(tokens[2], "phone-2")  # a phone that adds nothing: its filler
        text = " ".join((await settle(app, pilot)).split())
        assert "2 of 3 phones added to the shuffle" in text
        await room.start()
        text = " ".join((await settle(app, pilot)).split())
        assert "0 of 2 phones showed their part" in text and "dealing within 60 seconds" in text
        await room.reveal(tokens[0], "phone-0", pending["commitment"], values[0])
        text = " ".join((await settle(app, pilot)).split())
        assert "1 of 2 phones showed their part" in text
        assert await room.reveal(tokens[1], "phone-1", pending["commitment"], values[1])
        text = " ".join((await settle(app, pilot)).split())
        fair = room.room_view()["fair"]
        assert fair["code"] == pending["code"]  # dealt under the seal shown before
        assert f"Deal sealed: {pending['code']}" in text
        assert f"Game {pending['game']} · 1 game dealt by this Pi" in text
        rng = random.Random(2)
        while not room.table.over:
            g = room.table.state
            s = rng.choice(g.pending.seats)
            await room.submit(s, choice_for(g, s, rng))
        text = " ".join((await settle(app, pilot)).split())
        assert f"Check this game: {BASE}/fair" in text
        following = room.room_view()["fair"]["pending"]
        assert following["game"] > pending["game"]
        assert f"Next game sealed: {following['code']}" in text
        assert not jargon_in(text)
    await room.close()


async def test_a_seeded_game_is_said_to_be_a_practice_game(tmp_path):
    room = Room(EventStore(str(tmp_path / "games.db")), seed=4, bot_delay=0)
    await room.new_game({"names": NAMES[:3]}, bots=[0, 1, 2])
    await room.start()
    app = kiosk(room)
    async with app.run_test(size=SIZE) as pilot:
        text = await settle(app, pilot)
        assert "Practice game: no deal to check" in text
    await room.close()


# The join screen's notices (screens/join.py) fill in a notice's seat, name and game.
async def test_a_game_replaced_in_play_is_announced_as_open_to_checking(tmp_path):
    room = Room(EventStore(str(tmp_path / "games.db")), bot_delay=60)
    await room.new_game({"names": NAMES[:3]}, bots=[0, 1, 2])
    await room.start()  # no phone pledged: dealt at once
    replaced = room.room_view()["fair"]["game"]
    app = kiosk(room)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await room.new_game({"names": NAMES[:4]}, replace=True)
        text = " ".join((await settle(app, pilot)).split())
        assert replaced in room.room_view()["fair"]["revealed_games"]
        assert f"Game {replaced} was replaced: anyone can now check its deal" in text
    await room.close()
