"""The codes a person reads off the kiosk and types back (companion/codes.py): a seat's,
the host's, the table's and the seal's. Issue: "Codes that a person reads or types from the
kiosk use an alphabet without look-alikes (no 0/O, 1/l/I), in short groups"."""
from __future__ import annotations

import re

from hypothesis import given, strategies as st

from companion.chance.fair import code, commitment, draw_secret, typed_code
from companion.codes import ALPHABET, SEAT_SYMBOLS, new_seat_code, readable, spelled, typed
from companion.core.room import Room
from companion.core.store import EventStore

LOOK_ALIKES = set("0O1IL")


def test_the_alphabet_has_no_look_alikes_and_no_repeats():
    assert not LOOK_ALIKES & set(ALPHABET) and len(set(ALPHABET)) == len(ALPHABET) == 31
    assert not set(ALPHABET.lower()) & set("ol")


async def test_every_code_of_a_new_game_is_typed_from_the_alphabet(tmp_path):
    room = Room(EventStore(str(tmp_path / "games.db")), bot_delay=0)
    await room.new_game({"names": ["Ana", "Ben", "Cai", "Dee"]})
    view = room.kiosk_view()
    tokens = [s["token"] for s in room.lobby["seats"]] + [room.host_token, view["table_token"]]
    for token in tokens:
        assert len(token) == SEAT_SYMBOLS and set(token) <= set(ALPHABET), token
        # read in groups of four, and typed back in any case with or without the dashes
        assert re.fullmatch(r"[A-Z2-9]{4}(-[A-Z2-9]{4}){4}", readable(token))
        assert typed(readable(token).lower(), SEAT_SYMBOLS) == token
        assert typed(readable(token).replace("-", " "), SEAT_SYMBOLS) == token
    assert len(set(tokens)) == len(tokens)
    await room.close()


def test_seat_codes_are_not_repeated():
    made = {new_seat_code() for _ in range(2000)}
    assert len(made) == 2000
    # every symbol turns up in every place: the codes are drawn from all of the alphabet
    assert all({c[i] for c in made} == set(ALPHABET) for i in range(SEAT_SYMBOLS))


def test_a_code_with_a_look_alike_or_the_wrong_length_is_no_code():
    token = new_seat_code()
    assert typed(token[:-1], SEAT_SYMBOLS) is None
    assert typed(token + "A", SEAT_SYMBOLS) is None
    for wrong in "0O1IL":
        assert typed(wrong + token[1:], SEAT_SYMBOLS) is None
    # a code of the old kind (22 characters of base64) is shown as it is, not regrouped
    assert readable("abcdEFGH_-12345678901Q") == "abcdEFGH_-12345678901Q"


def test_the_seals_code_is_the_same_alphabet_in_four_groups_of_four():
    seal = commitment("00" * 32, 1, draw_secret())
    shown = code(seal)
    assert re.fullmatch(r"[A-Z2-9]{4}( [A-Z2-9]{4}){3}", shown) and not LOOK_ALIKES & set(shown)
    assert typed_code(shown.lower().replace(" ", "")) == shown
    assert typed_code(shown.replace(" ", "-")) == shown
    assert typed_code(shown.replace(shown[0], "0", 1)) is None


@given(st.integers(min_value=0, max_value=31 ** 20 - 1))
def test_spelling_is_one_to_one(number):
    symbols = spelled(number, SEAT_SYMBOLS)
    assert len(symbols) == SEAT_SYMBOLS
    back = 0
    for s in symbols:
        back = back * 31 + ALPHABET.index(s)
    assert back == number
