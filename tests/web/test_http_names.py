"""Names and text from people. Player names reach the kiosk's terminal: an escape
sequence in a name blanked the join screen, an OSC sequence retitled the terminal, and a lone
surrogate made the new-game request answer 500 with the game in memory already replaced and
every stream broken. What a person types is refused at the boundary with a typed error, and
nothing changes."""
from __future__ import annotations

import json

import pytest

from companion.darkmoon import BadSetup, Setup

GOOD = ["Ana", "Ben", "Cai"]
HOSTILE = {
    "clears the screen": "\x1b[2J\x1b[H",
    "retitles the terminal (OSC)": "\x1b]0;owned\x07Ana",
    "a C1 control (CSI)": "Ana\x9b2J",
    "a newline": "Ana\nBen",
    "a carriage return": "Ana\rBen",
    "a tab": "Ana\tBen",
    "a bidirectional override": "\u202eanA",
    "a bidirectional isolate": "\u2066Ana\u2069",
    "a zero-width space": "A\u200bna",
    "a lone surrogate": "\ud800",
    "a line separator": "Ana\u2028Ben",
    "a NUL": "Ana\x00",
}


@pytest.mark.parametrize("name", HOSTILE.values(), ids=HOSTILE.keys())
def test_the_rules_refuse_a_name_that_is_not_plain_text(name):
    with pytest.raises(BadSetup) as refused:
        Setup.from_json({"names": [name, "Ben", "Cai"]})
    assert "control or invisible" in refused.value.message


@pytest.mark.parametrize("name", ["Zoë", "Łukasz", "Ñandú", "李雷", "Ana-María O'Neil",
                                  "👨\u200d👩\u200d👧", "🇪🇸 Pau", "محمد"])
def test_names_people_really_have_are_taken(name):
    assert Setup.from_json({"names": [name, "Ben", "Cai"]}).names[0] == name


@pytest.mark.parametrize("name", HOSTILE.values(), ids=HOSTILE.keys())
async def test_a_hostile_name_is_refused_and_the_game_in_play_goes_on(room, set_up_game,
                                                                      open_stream, name):
    table = await set_up_game(GOOD)
    stream = await open_stream(table.seats[0][0], table.seat_url(0, "/events"))
    first = await stream.next_view()
    lobby, state = room.lobby, room.table.state_id
    # Sent as JSON text, as a browser would: the lone surrogate travels as the escape \ud800
    # (inside the seal, as the body's bytes)
    response = await table.host.post(f"{table.host_url}/game", data=json.dumps({
        "setup": {"names": [name, "Ben", "Cai"]}, "replace": True}).encode())
    assert response.status == 400 and response.sealed
    assert (await response.json())["error"]["code"] == "bad_setup"
    assert room.lobby is lobby and room.table.state_id == state and room.phase == "play"
    # every stream still works: the next change reaches it whole
    assert (await table.host.post(f"{table.host_url}/lang", json={"lang": "es"})).status == 200
    again = await stream.next_view()
    assert again["room"]["lang"] == "es" and again["view"]["state_id"] == \
        first["view"]["state_id"]
    board = await table.host.get("/api/board")
    assert board.status == 200 and name not in await board.text()
