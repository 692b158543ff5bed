"""Every endpoint of the HTTP API doing its job, through a real server on a real port, with one
`Phone` per player (one phone secret; its seat and host traffic sealed: tests/web/phone.py).
The refusals are in test_http_refusals.py."""
import json

from companion.darkmoon.data import (CHARACTERS, EVENTS, FATIGUE_TOKENS, FINAL_EVENTS,
                                     OUTPOST_TOKENS, VARIANTS)
from companion.lang import catalogue
from companion.web.client import SealedPhone

NAMES = ["Ana", "Ben", "Cai", "Dee"]


async def test_a_phone_is_its_secret_and_a_reload_is_the_same_phone(room, set_up_game,
                                                                    new_phone):
    """A phone is the secret its page keeps (localStorage) and sends only sealed: the same
    secret after a reload (new sessions, a new hello) still holds its seat; another phone,
    even holding the seat's code, does not."""
    table = await set_up_game(NAMES)
    phone, token = table.seats[1]
    assert len(phone.phone) >= 22 and phone.phone != table.seats[2][0].phone
    reloaded = phone.reload()  # the same browser, its sessions gone
    mine = await reloaded.get(f"/api/seat/{token}")
    assert mine.status == 200 and mine.sealed
    assert (await mine.json())["view"]["you"]["status"] == room.table.state.seats[1].status
    again = await reloaded.post(f"/api/seat/{token}/claim")  # a reload claims again, harmless
    assert again.status == 200 and await again.json() == {"seat": 1}
    other = await new_phone().get(f"/api/seat/{token}")
    assert other.status == 403 and (await other.json())["error"]["code"] == "not_your_seat"
    # the room knows the phone by a hash of its secret, never the secret itself
    assert room.lobby["seats"][1]["phone"] == phone.phone_id != phone.phone


async def test_no_answer_sets_a_cookie_and_a_copied_cookie_opens_nothing(
        room, server, set_up_game, client_session):
    """The seat cookie is gone: nothing sets `dm_phone`, and the old routes it opened do not
    exist. (Before, a `dm_phone` cookie copied off the Wi-Fi was the seat: it read the
    seat's status and played for it.)"""
    table = await set_up_game(NAMES)
    phone, token = table.seats[0]
    for answer in (await phone.get("/api/board"), await phone.get("/")):
        assert "dm_phone" not in answer.cookies and "Set-Cookie" not in answer.headers
    sealed = await phone.get(f"/api/seat/{token}")
    assert sealed.status == 200 and "Set-Cookie" not in sealed.headers
    reader = SealedPhone(phone.http, server, token)
    hello = await phone.http.post(server + "/api/hello",
                                  json=reader.hello_body(await reader.fresh()))
    assert hello.status == 200 and "Set-Cookie" not in hello.headers
    thief = client_session(cookies={"dm_phone": phone.phone})
    before = room.table.state_id
    seat = room.table.state.pending.seats[0]
    for method, path in (("GET", f"/api/seat/{token}"), ("GET", f"/api/seat/{token}/events"),
                         ("POST", f"/api/seat/{table.seats[seat][1]}/command"),
                         ("GET", f"/api/host/{room.host_token}")):
        answer = await thief.request(method, server + path, json={})
        assert answer.status == 404, path
        assert (await answer.json())["error"]["code"] == "not_found"
    assert room.table.state_id == before


async def test_every_sealed_answer_is_200_and_one_block_whatever_the_op_did(
        room, set_up_game, new_phone):
    """Whether a claim was taken or refused is only inside the seal: both answers are HTTP
    200 and exactly one block and its tag on the wire."""
    table = await set_up_game(NAMES, start=False, claim=False)
    _, token = table.seats[0]
    taken = await new_phone().post(f"/api/seat/{token}/claim")
    refused = await new_phone().post(f"/api/seat/{token}/claim")
    assert (taken.status, refused.status) == (200, 409)
    assert taken.outer_status == refused.outer_status == 200
    assert len(taken.wire) == len(refused.wire) == 1024 + 16
    assert token.encode() not in taken.wire + refused.wire


async def test_the_board_before_any_game_shows_an_empty_room(new_phone):
    response = await new_phone().get("/api/board")
    assert response.status == 200
    payload = await response.json()
    assert payload["view"] is None and payload["text"] is None
    assert payload["room"]["phase"] == "start" and payload["room"]["seats"] == []


async def test_choices_offer_the_games_public_options(new_phone):
    choices = await (await new_phone().get("/api/choices")).json()
    def base(table):  # Shadow Corporation's cards are offered apart
        return [k for k, v in table.items() if not v.expansion]
    assert choices == {"characters": base(CHARACTERS), "final_events": base(FINAL_EVENTS),
                       "expansion": {"id": "shadow_corporation",
                                     "modules": ["threats_module", "company_man_module"],
                                     "characters": ["serene", "lincoln"],
                                     "final_events": ["explosions", "toxic_gas"]},
                       "variants": list(VARIANTS), "langs": ["en", "es"], "players": [3, 7],
                       "outpost_tokens": list(OUTPOST_TOKENS),
                       "fatigue_tokens": list(FATIGUE_TOKENS), "events": base(EVENTS),
                       "faces": {"strong": [-2, -2, -2, -1, 2, 4], "weak": [-2, -2, -2, -1, 1, 3],
                                 "commander": [-2, -2, -2, -1, 3, 5],
                                 "corporation": [0, -1, -1, -2, -2, -3]}}  # facts §1
    assert len(choices["characters"]) == 7 and len(choices["events"]) == 16


async def test_each_language_file_is_the_merged_catalogue(new_phone):
    phone = new_phone()
    for lang in ("en", "es"):
        response = await phone.get(f"/lang/{lang}.json")
        assert response.status == 200 and await response.json() == catalogue(lang)
    assert catalogue("en") != catalogue("es")


async def test_the_first_phone_to_claim_the_host_code_is_the_host(room, new_phone):
    host = new_phone()
    response = await host.post(f"/api/host/{room.host_token}/claim")
    assert response.status == 200 and await response.json() == {"host": True}
    # a reload of the same phone claims again without harm
    assert (await host.post(f"/api/host/{room.host_token}/claim")).status == 200
    payload = await (await host.get(f"/api/host/{room.host_token}")).json()
    assert payload["room"]["host_claimed"] is True and payload["view"] is None
    assert payload["can_start"] is False  # no game set up yet


async def test_the_host_sets_up_a_game_and_seats_are_claimed_one_phone_each(room, set_up_game):
    table = await set_up_game(NAMES, start=False, claim=False)
    payload = await (await table.host.get(table.host_url)).json()
    assert payload["room"]["phase"] == "join" and payload["can_start"] is False
    assert [s["name"] for s in payload["room"]["seats"]] == NAMES
    assert not any(s["claimed"] for s in payload["room"]["seats"])
    for seat, (phone, token) in enumerate(table.seats):
        response = await phone.post(f"/api/seat/{token}/claim")
        assert await response.json() == {"seat": seat}
        # the seat's page before the deal: the lobby, no game
        mine = await (await phone.get(table.seat_url(seat))).json()
        assert mine["view"]["you"] == {"seat": seat} and mine["text"] is None
    payload = await (await table.host.get(table.host_url)).json()
    assert all(s["claimed"] for s in payload["room"]["seats"]) and payload["can_start"] is True


async def test_bot_seats_need_no_phone_before_the_start(room, set_up_game):
    table = await set_up_game(NAMES, start=False, claim=False, bots=[1, 2, 3])
    payload = await (await table.host.get(table.host_url)).json()
    assert [s["bot"] for s in payload["room"]["seats"]] == [False, True, True, True]
    phone, token = table.seats[0]
    await phone.post(f"/api/seat/{token}/claim")
    response = await table.host.post(f"{table.host_url}/start")
    assert response.status == 200
    assert await response.json() == {"state_id": room.table.state_id}
    assert room.phase == "play"


async def test_start_deals_and_each_seat_sees_its_own_status(room, set_up_game):
    table = await set_up_game(NAMES)
    for seat, (phone, _) in enumerate(table.seats):
        payload = await (await phone.get(table.seat_url(seat))).json()
        you = payload["view"]["you"]
        assert you["seat"] == seat and you["status"] == room.table.state.seats[seat].status
        assert payload["room"]["phase"] == "play"
        assert payload["view"]["state_id"] == room.table.state_id
    board = await (await table.host.get("/api/board")).json()
    assert "you" not in board["view"] and board["can_start"] is None
    assert board["view"]["seats"][0]["name"] == "Ana"


async def test_a_seat_command_plays_and_answers_the_new_state_id(room, set_up_game):
    table = await set_up_game(NAMES)
    seat = room.table.state.pending.seats[0]
    phone = table.seats[seat][0]
    view = (await (await phone.get(table.seat_url(seat))).json())["view"]
    decision = view["you"]["decision"]
    before = view["state_id"]
    response = await phone.post(table.seat_url(seat, "/command"), json={
        "decision": decision["decision"], "option": decision["options"][0],
        "state_id": before})
    assert response.status == 200
    after = (await response.json())["state_id"]
    assert after > before and after == room.table.state_id
    board = await (await phone.get("/api/board")).json()
    assert board["view"]["state_id"] == after


async def test_a_host_correction_changes_the_public_board(room, set_up_game):
    table = await set_up_game(NAMES)
    shield = room.table.public_view()["shield"]["tokens"]
    response = await table.host.post(f"{table.host_url}/correct",
                                     json={"option": ["shield", shield + 2],
                                           "state_id": room.table.state_id})
    assert response.status == 200
    board = await (await table.host.get("/api/board")).json()
    assert board["view"]["shield"]["tokens"] == shield + 2
    assert board["view"]["log"][-1]["k"] == "corrected"  # logged publicly


async def test_the_host_switches_the_language_for_everyone(room, set_up_game):
    table = await set_up_game(NAMES, start=False)
    response = await table.host.post(f"{table.host_url}/lang", json={"lang": "es"})
    assert await response.json() == {"lang": "es"}
    board = await (await table.host.get("/api/board")).json()
    assert board["room"]["lang"] == "es" and room.lang == "es"


async def test_rebinding_lets_a_new_phone_take_the_seat_and_shuts_the_old_one_out(
        room, set_up_game, new_phone):
    """A re-bind rotates the seat's code. The kicked phone's code and its session's keys are
    dead for good (it used to claim the seat back within 200 ms); the new code is the one the
    kiosk shows."""
    table = await set_up_game(NAMES)
    old, token = table.seats[2]
    response = await table.host.post(f"{table.host_url}/rebind", json={"seat": 2})
    assert await response.json() == {"seat": 2}
    assert room.room_view()["notices"][-1] == {"k": "seat_rebound", "seat": 2}
    # The session the old phone opened with the old code dies with it: told at most once
    # (sealed) that the seat was given away, it is then unknown, whatever it sends.
    session = old.sealed(token)
    counter, sealed = session.sealed_request("view")
    status, body = await session.post_sealed(sealed)
    if status == 200:
        told = session.open_answer(counter, body)
        assert (told.status, told.data["error"]["code"]) == (404, "seat_given_away")
        status, body = await session.post_sealed(session.sealed_request("view")[1])
    assert status == 401 and json.loads(body)["error"]["code"] == "unknown_session"
    # The old code opens nothing, for anyone: it is told apart from a wrong code only so that
    # its phone can say plainly that the seat went to another phone.
    for phone in (old, new_phone()):
        refused = await phone.post(f"/api/seat/{token}/claim")
        assert refused.status == 404
        assert (await refused.json())["error"]["code"] == "seat_given_away"
    refused = await old.get(table.seat_url(2))
    assert refused.status == 404 and (await refused.json())["error"]["code"] == "seat_given_away"
    fresh = room.kiosk_view()["seat_tokens"][2]
    assert fresh and fresh != token
    replacement = new_phone()
    assert await (await replacement.post(f"/api/seat/{fresh}/claim")).json() == {"seat": 2}
    payload = await (await replacement.get(f"/api/seat/{fresh}")).json()
    assert payload["view"]["you"]["status"] == room.table.state.seats[2].status
    # a phone that plays seat 0 (a host who plays, say) cannot take a re-bound seat too
    await table.host.post(f"{table.host_url}/rebind", json={"seat": 2})
    again = room.kiosk_view()["seat_tokens"][2]
    refused = await table.seats[0][0].post(f"/api/seat/{again}/claim")
    assert refused.status == 409
    assert (await refused.json())["error"]["code"] == "one_seat_per_phone"
    assert room.lobby["seats"][2]["phone"] is None


async def test_a_new_game_replaces_a_finished_or_abandoned_one_with_new_codes(
        room, set_up_game):
    table = await set_up_game(NAMES)
    old_tokens = [token for _, token in table.seats]
    response = await table.host.post(f"{table.host_url}/game",
                                     json={"setup": {"names": NAMES[:3]}, "replace": True})
    assert response.status == 200
    payload = await response.json()
    assert payload["room"]["phase"] == "join" and len(payload["room"]["seats"]) == 3
    assert not set(room.kiosk_view()["seat_tokens"]) & set(old_tokens)
    phone, token = table.seats[0]
    assert (await phone.get(f"/api/seat/{token}")).status == 404  # the old code is gone


async def test_play_again_answers_not_ready_while_a_re_bound_seat_waits_for_its_phone(
        room, set_up_game, new_phone):
    """Play again refuses exactly what start refuses: a seat nobody holds gets no status."""
    import random

    from companion.tools.simulate import choice_for
    table = await set_up_game(NAMES)
    rng = random.Random(3)
    while not room.table.over:
        g = room.table.state
        seat = rng.choice(g.pending.seats)
        await room.submit(seat, choice_for(g, seat, rng))
    first = room.table.game_id
    await table.host.post(f"{table.host_url}/rebind", json={"seat": 1})
    refused = await table.host.post(f"{table.host_url}/again")
    assert refused.status == 409
    assert (await refused.json())["error"]["code"] == "not_ready"
    assert room.phase == "over" and room.table.game_id == first
    fresh = room.kiosk_view()["seat_tokens"][1]
    assert (await new_phone().post(f"/api/seat/{fresh}/claim")).status == 200
    assert (await table.host.post(f"{table.host_url}/again")).status == 200
    assert room.phase == "play" and room.table.game_id != first


async def test_a_bots_seat_is_not_listed_nor_claimable_and_the_host_hands_it_over(
        room, set_up_game, new_phone):
    """The table code's page listed a bot's seat code all game long, and any phone could
    take the seat unseen. Now no phone may claim it (a typed refusal); the host hands it to
    a person on the host page: a new code, announced."""
    table = await set_up_game(NAMES, bots=[3])
    bot_token = table.seats[3][1]
    listed = await (await new_phone().get(f"/api/join/{room.kiosk_view()['table_token']}")).json()
    assert listed["seats"][3]["bot"] and listed["seats"][3]["token"] is None
    assert bot_token not in str(listed)
    sneaky = new_phone()
    refused = await sneaky.post(f"/api/seat/{bot_token}/claim")
    assert refused.status == 409
    assert (await refused.json())["error"]["code"] == "bot_seat"
    assert (await sneaky.get(f"/api/seat/{bot_token}")).status == 403  # no status, no dice
    assert room.lobby["seats"][3]["bot"] and room.lobby["seats"][3]["phone"] is None
    handed = await table.host.post(f"{table.host_url}/handover", json={"seat": 3})
    assert handed.status == 200 and await handed.json() == {"seat": 3}
    assert room.room_view()["notices"][-1] == {"k": "seat_handed_over", "seat": 3}
    fresh = room.kiosk_view()["seat_tokens"][3]
    assert fresh and fresh != bot_token
    assert (await sneaky.post(f"/api/seat/{bot_token}/claim")).status == 404  # dead code
    person = new_phone()
    assert await (await person.post(f"/api/seat/{fresh}/claim")).json() == {"seat": 3}
    payload = await (await person.get(f"/api/seat/{fresh}")).json()
    assert payload["view"]["you"]["status"] == room.table.state.seats[3].status
    not_a_bot = await table.host.post(f"{table.host_url}/handover", json={"seat": 0})
    assert not_a_bot.status == 400 and room.lobby["seats"][0]["phone"] is not None
