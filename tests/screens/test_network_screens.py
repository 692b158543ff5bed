"""The codes follow the network: when the Pi's address changes the drawn codes scan to the
new URLs, with no network yet the kiosk says so instead of drawing codes no phone could use,
and when the Pi is its own Wi-Fi network its code is drawn beside the seats' codes.

The address comes from a function the test controls (KioskApp.address_source), as
companion.appliance.net.lan_address would give it on the Pi; the hotspot drives the recording
stand-in for nmcli (tests/nmcli_fake.py), since NetworkManager cannot run here."""
from __future__ import annotations

import shutil
import subprocess

import pytest

from companion.appliance.hotspot import FAILED, ON, Hotspot, load_settings, wifi_join_string
from companion.core.room import Room
from companion.core.store import EventStore
from nmcli_fake import install
from screens.app import KioskApp
from screens.capture import screen_text
from screens.join import TableCode, WifiCode, typed_form
from screens.qr import QrCode

from .conftest import SIZE, settle, table_host
from table_play import NAMES
from .test_qr_scan import code_image

pytestmark = pytest.mark.skipif(shutil.which("zbarimg") is None,
                                reason="zbarimg (Debian package zbar-tools) is not installed")

HOME, HOTSPOT = "192.168.1.20", "10.42.0.1"


class Address:
    """What the network would say now; the test changes it."""

    def __init__(self, now: str):
        self.now = now

    def __call__(self) -> str:
        return self.now


@pytest.fixture
def room(tmp_path):
    return Room(EventStore(str(tmp_path / "games.db")), seed=5, bot_delay=0)


def watched_kiosk(room, source) -> KioskApp:
    app = KioskApp(table_host(room))
    app.address_source = source
    app.ADDRESS_EVERY = 0.05  # the Pi looks every 5 s; a test need not wait that long
    return app


async def until(app, pilot, condition, tries: int = 200) -> str:
    """Let the watcher (and a hotspot thread) run until `condition(screen text)` holds."""
    for _ in range(tries):
        text = await settle(app, pilot)
        if condition(text):
            return text
        await pilot.pause(0.02)
    raise AssertionError(f"the screen never changed as expected:\n{screen_text(app)}")


def scanned(app, tmp_path) -> list[str]:
    """Every code on the screen, read by zbar from the drawn cells, left to right (at
    120x36 the codes stand in one row; the Wi-Fi code sits a line lower, under its
    two-line label)."""
    found = []
    codes = [qr for qr in app.query(QrCode)
             if qr.display and qr.parent.display and qr.region.area]
    for n, qr in enumerate(sorted(codes, key=lambda q: q.region.x)):
        image = tmp_path / f"code-{n}.pgm"
        image.write_bytes(code_image(app, qr))
        done = subprocess.run(["zbarimg", "--raw", "-q", str(image)],
                              capture_output=True, text=True, timeout=30)
        found.append(done.stdout.strip())
    return found


async def test_a_new_address_redraws_the_hosts_code_and_link(room, tmp_path):
    address = Address(HOME)
    app = watched_kiosk(room, address)
    token = room.host_token
    async with app.run_test(size=SIZE) as pilot:
        text = await settle(app, pilot)
        assert typed_form(f"http://{HOME}:8080/h#{token}") in text
        assert scanned(app, tmp_path) == [f"http://{HOME}:8080/h#{token}"]
        address.now = HOTSPOT
        text = await until(app, pilot, lambda t: HOTSPOT in t)
        assert typed_form(f"http://{HOTSPOT}:8080/h#{token}") in text and HOME not in text
        assert scanned(app, tmp_path) == [f"http://{HOTSPOT}:8080/h#{token}"]


async def test_a_new_address_redraws_every_seats_code(room, tmp_path):
    await room.new_game({"names": NAMES[:3]})
    tokens = room.kiosk_view()["seat_tokens"]
    address = Address(HOME)
    app = watched_kiosk(room, address)
    async with app.run_test(size=SIZE) as pilot:
        text = await settle(app, pilot)
        assert f"Phones reach the Pi at http://{HOME}:8080" in text
        assert scanned(app, tmp_path) == [f"http://{HOME}:8080/s#{t}" for t in tokens]
        address.now = HOTSPOT
        text = await until(app, pilot, lambda t: HOTSPOT in t)
        assert f"Phones reach the Pi at http://{HOTSPOT}:8080" in text and HOME not in text
        assert scanned(app, tmp_path) == [f"http://{HOTSPOT}:8080/s#{t}" for t in tokens]


async def test_wifi_not_up_at_boot_says_so_until_the_pi_has_an_address(room, tmp_path):
    address = Address("127.0.0.1")  # a Pi whose Wi-Fi is not up yet
    app = watched_kiosk(room, address)
    async with app.run_test(size=SIZE) as pilot:
        text = await settle(app, pilot)
        assert "No network yet" in text
        assert "Connect the Pi to Wi-Fi or a network cable" in text
        assert scanned(app, tmp_path) == [] and "127.0.0.1" not in text
        await room.new_game({"names": NAMES[:3]})  # the join screen says the same
        text = await settle(app, pilot)
        assert "No network yet" in text and scanned(app, tmp_path) == []
        assert "1 Ana" in text  # who is seated is still shown
        address.now = HOME  # the Wi-Fi came up
        text = await until(app, pilot, lambda t: "No network yet" not in t)
        tokens = room.kiosk_view()["seat_tokens"]
        assert "Scan your seat's code" in text
        assert scanned(app, tmp_path) == [f"http://{HOME}:8080/s#{t}" for t in tokens]


async def test_no_network_in_spanish(tmp_path):
    room = Room(EventStore(str(tmp_path / "games.db")), seed=5, bot_delay=0)
    await room.set_lang("es")
    app = watched_kiosk(room, Address("127.0.0.1"))
    async with app.run_test(size=SIZE) as pilot:
        text = await settle(app, pilot)
        assert "Aún no hay red" in text and "los códigos aparecerán aquí" in text


async def test_hotspot_mode_draws_the_wifi_code_beside_the_table_code(
        room, tmp_path, monkeypatch):
    fake = install(tmp_path, monkeypatch)
    await room.new_game({"names": NAMES[:3]})
    # no wlan0 here: the Pi's address is NetworkManager's shared-mode default
    spot = Hotspot(tmp_path / "data", "wlan0", interface_address=lambda _name: None)
    app = watched_kiosk(room, spot.address)
    app.hotspot = spot
    async with app.run_test(size=SIZE) as pilot:
        text = await until(app, pilot, lambda t: "Wi-Fi Dark" in t)
        settings = load_settings(tmp_path / "data")
        assert any("hotspot" in call for call in fake.calls) and spot.state.status == ON
        assert f"Wi-Fi {settings.ssid}" in text  # for people who type
        assert f"password {settings.password}" in text
        assert "Join the Wi-Fi first, then:" in text
        codes = scanned(app, tmp_path)
        # the Wi-Fi code comes first; only two seat codes would fit beside it, so the three
        # seats join from one table code, with nothing behind a page key (issue 11)
        assert codes == [wifi_join_string(settings.ssid, settings.password),
                         f"http://{HOTSPOT}:8080/j#{room.kiosk_view()['table_token']}"]
        assert "Seat 1  Ana" in text and "Seat 3  Cai" in text and "PgDn" not in text
        wifi = app.query_one("#join-wifi", WifiCode).region
        table = app.query_one("#table-code", TableCode).region
        assert wifi.right <= table.x and wifi.y <= table.y + 1  # beside, not above


async def test_a_pi_with_no_network_at_boot_waits_for_its_own_hotspot(
        room, tmp_path, monkeypatch):
    fake = install(tmp_path, monkeypatch)
    fake.fail("hotspot", code=0, sleep=1.0)  # NetworkManager takes its time, then succeeds
    spot = Hotspot(tmp_path, "wlan0", interface_address=lambda _name: None)
    app = watched_kiosk(room, lambda: spot.address() if spot.state.status == ON
                        else "127.0.0.1")
    app.hotspot = spot
    async with app.run_test(size=SIZE) as pilot:
        text = await until(app, pilot, lambda t: "Starting the Pi's own Wi-Fi" in t)
        assert "No network yet" in text and scanned(app, tmp_path) == []
        assert "Connect the Pi" not in text  # nothing for anyone to do but wait
        text = await until(app, pilot, lambda t: "Wi-Fi Dark" in t)
        assert "No network yet" not in text and "Starting" not in text
        settings = load_settings(tmp_path)
        assert scanned(app, tmp_path) == [wifi_join_string(settings.ssid, settings.password),
                                          f"http://{HOTSPOT}:8080/h#{room.host_token}"]


async def test_hotspot_mode_shows_the_wifi_code_on_the_start_screen_too(
        room, tmp_path, monkeypatch):
    install(tmp_path, monkeypatch)
    spot = Hotspot(tmp_path, "wlan0", interface_address=lambda _name: None)
    app = watched_kiosk(room, spot.address)
    app.hotspot = spot
    async with app.run_test(size=SIZE) as pilot:
        await until(app, pilot, lambda t: "Wi-Fi Dark" in t)
        settings = load_settings(tmp_path)
        assert scanned(app, tmp_path) == [wifi_join_string(settings.ssid, settings.password),
                                          f"http://{HOTSPOT}:8080/h#{room.host_token}"]


async def test_a_hotspot_that_fails_is_explained_and_the_lan_codes_stay(
        room, tmp_path, monkeypatch):
    fake = install(tmp_path, monkeypatch)
    fake.fail("hotspot", code=4, stderr="Error: Connection activation failed: "
                                        "802.1X supplicant took too long to authenticate.\n")
    await room.new_game({"names": NAMES[:3]})
    tokens = room.kiosk_view()["seat_tokens"]
    spot = Hotspot(tmp_path, "wlan0")
    app = watched_kiosk(room, lambda: HOME if spot.state.status == FAILED else spot.address())
    app.hotspot = spot
    async with app.run_test(size=SIZE) as pilot:
        text = await until(app, pilot, lambda t: "did not start" in t)
        assert ("The Pi's own Wi-Fi network did not start: Connection activation failed: "
                "802.1X supplicant took too long to authenticate.") in " ".join(text.split())
        assert not app.query_one("#join-wifi", WifiCode).display
        assert scanned(app, tmp_path) == [f"http://{HOME}:8080/s#{t}" for t in tokens]


async def test_without_networkmanager_the_kiosk_keeps_running_and_says_why(
        room, tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    spot = Hotspot(tmp_path, "wlan0")
    app = watched_kiosk(room, spot.address)
    app.hotspot = spot
    async with app.run_test(size=SIZE) as pilot:
        text = await until(app, pilot, lambda t: "did not start" in t)
        assert "nmcli (NetworkManager) is not installed" in text
        assert "Scan to host the game" in text  # the host's code is still there
