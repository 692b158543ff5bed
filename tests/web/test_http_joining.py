"""Joining through the API: a phone gives back a seat it took by mistake (before the game
starts only), the host who plays takes a seat from the host's page, and the host's code
reaches only the host's own seat page. The codes these answers name travel sealed only
(tests/web/phone.py sends each old route as its sealed op)."""
from __future__ import annotations

NAMES = ["Ana", "Ben", "Cai", "Dee"]


async def refused(response, status: int, code: str) -> None:
    assert response.status == status, await response.text()
    assert (await response.json())["error"]["code"] == code


async def test_a_phone_leaves_a_seat_in_the_lobby_and_nobody_else_scans_again(
        room, set_up_game, new_phone, open_stream):
    table = await set_up_game(NAMES, start=False)
    codes = [token for _, token in table.seats]
    kiosk = room.kiosk_view()
    wrong, _ = table.seats[1]
    cai = await open_stream(table.seats[2][0], table.seat_url(2, "/events"))
    await cai.next_view()
    mine = await open_stream(wrong, table.seat_url(1, "/events"))
    await mine.next_view()
    # only the seat's own phone leaves it
    await refused(await new_phone().post(table.seat_url(1, "/leave")), 403, "not_your_seat")
    await refused(await table.seats[0][0].post(table.seat_url(1, "/leave")), 403,
                  "not_your_seat")
    left = await wrong.post(table.seat_url(1, "/leave"))
    assert left.status == 200 and left.headers["Cache-Control"] == "no-store"
    assert left.sealed and kiosk["table_token"].encode() not in left.wire
    # the answer names the table code, the same as before: the phone picks again there
    assert await left.json() == {"seat": 1, "table": kiosk["table_token"]}
    assert room.kiosk_view()["table_token"] == kiosk["table_token"]
    assert room.kiosk_view()["seat_tokens"] == [None, codes[1], None, None]
    # the leaving phone's stream ends; Cai's goes on and shows the seat free
    event, payload = await mine.next()
    assert event == "refused" and payload["error"]["code"] == "not_your_seat"
    view = await cai.next_view()
    assert [s["claimed"] for s in view["room"]["seats"]] == [True, False, True, True]
    # the phone that left can no longer act for the seat
    await refused(await wrong.get(table.seat_url(1)), 403, "not_your_seat")
    pledge = {"commitment": room.lobby["fair"]["commitment"], "pledge": "a" * 64}
    await refused(await wrong.post(table.seat_url(1, "/pledge"), json=pledge), 403,
                  "not_your_seat")
    # the rightful phone claims it with the code the kiosk showed from the start
    ben = new_phone()
    assert await (await ben.post(f"/api/seat/{codes[1]}/claim")).json() == {"seat": 1}
    assert (await table.host.post(f"{table.host_url}/start")).status == 200
    payload = await (await ben.get(table.seat_url(1))).json()
    assert payload["view"]["you"]["status"] == room.table.state.seats[1].status


async def test_leaving_is_refused_once_the_game_has_started(room, set_up_game, open_stream):
    table = await set_up_game(NAMES)
    phone, token = table.seats[1]
    stream = await open_stream(phone, table.seat_url(1, "/events"))
    first = await stream.next_view()
    before = (room.lobby, room.table.state_id)
    answer = await phone.post(table.seat_url(1, "/leave"))
    await refused(answer, 409, "game_in_progress")
    assert "re-bind" in (await answer.json())["error"]["message"]
    assert (room.lobby, room.table.state_id) == before
    payload = await (await phone.get(table.seat_url(1))).json()
    assert payload["view"]["state_id"] == first["view"]["state_id"]  # still this phone's seat


async def test_a_leave_from_another_sites_page_is_refused(room, set_up_game):
    table = await set_up_game(NAMES, start=False)
    phone, _ = table.seats[0]
    answer = await phone.post(table.seat_url(0, "/leave"),
                              headers={"Origin": "http://evil.example"})
    await refused(answer, 403, "cross_origin")
    assert not answer.sealed  # refused before anything was opened
    assert room.lobby["seats"][0]["phone"] is not None


async def test_the_host_takes_a_seat_from_the_hosts_page_and_only_its_seat_page_hosts(
        room, set_up_game, new_phone):
    table = await set_up_game(NAMES, start=False, claim=False)
    host = table.host
    codes = [token for _, token in table.seats]
    assert await (await host.get(f"{table.host_url}/seat")).json() == {"seat": None,
                                                                      "token": None}
    ana = new_phone()
    assert (await ana.post(f"/api/seat/{codes[0]}/claim")).status == 200
    await refused(await host.post(f"{table.host_url}/seat", json={"seat": 0}), 409,
                  "seat_claimed")
    await refused(await host.post(f"{table.host_url}/seat", json={"seat": "1"}), 400,
                  "bad_request")
    await refused(await host.post(f"{table.host_url}/seat", json={"seat": 7}), 404,
                  "unknown_token")
    await refused(await host.post(f"{table.host_url}/seat",
                                  json={"seat": 1, "commitment": "XYZ", "pledge": "d" * 64}),
                  400, "bad_request")
    stale = "e" * 64  # a commitment no longer pending: the host's page must look again
    await refused(await host.post(f"{table.host_url}/seat",
                                  json={"seat": 1, "commitment": stale, "pledge": "d" * 64}),
                  409, "commitment_changed")
    # only the host's phone
    await refused(await ana.post(f"{table.host_url}/seat", json={"seat": 1}), 403,
                  "not_your_seat")
    await refused(await ana.get(f"{table.host_url}/seat"), 403, "not_your_seat")
    assert [s["phone"] is None for s in room.lobby["seats"]] == [False, True, True, True]
    sat = await host.post(f"{table.host_url}/seat", json={
        "seat": 1, "commitment": room.lobby["fair"]["commitment"], "pledge": "d" * 64})
    assert sat.headers["Cache-Control"] == "no-store"
    assert await sat.json() == {"seat": 1, "token": codes[1]}
    assert codes[1].encode() not in sat.wire  # the seat's code, sealed
    assert room.lobby["fair"]["pledges"][1] == "d" * 64
    assert await (await host.get(f"{table.host_url}/seat")).json() == {"seat": 1,
                                                                      "token": codes[1]}
    # the host's seat page is told the host's code; any other seat page is told none
    mine = await host.get(f"/api/seat/{codes[1]}/host")
    assert mine.headers["Cache-Control"] == "no-store"
    assert await mine.json() == {"host": room.host_token}
    assert room.host_token.encode() not in mine.wire
    assert await (await ana.get(f"/api/seat/{codes[0]}/host")).json() == {"host": None}
    await refused(await ana.get(f"/api/seat/{codes[1]}/host"), 403, "not_your_seat")
    await refused(await new_phone().get(f"/api/seat/{codes[2]}/host"), 403, "not_your_seat")
    await refused(await host.post(f"{table.host_url}/seat", json={"seat": 2}), 409,
                  "one_seat_per_phone")
