"""Hotspot mode: the Wi-Fi join string, the password, the stored settings, and the nmcli
commands. NetworkManager cannot run here: nmcli is a recording stand-in (tests/nmcli_fake.py)
that answers as NetworkManager's manual says, so these tests check what we send and how we
read the answers and failures, not NetworkManager itself."""
from __future__ import annotations

import argparse
import json
import os
import re
import stat

import pytest

from companion.appliance import hotspot, net
from companion.appliance.hotspot import (ALPHABET, CONNECTION, FAILED, ON, SHARED_ADDRESS, Hotspot,
                               HotspotError, load_settings, new_password, nmcli,
                               wifi_escape, wifi_join_string)
from nmcli_fake import install

NO_DEVICE = "dmtest0"  # no such interface here: the address falls back to NetworkManager's


def wifi_fields(join: str) -> dict:
    """Read a WIFI: string back the way a phone does: fields split on unescaped ';'."""
    assert join.startswith("WIFI:") and join.endswith(";;")
    fields, field, chars = {}, "", iter(join[5:-1])
    for char in chars:
        if char == "\\":
            field += next(chars)
        elif char == ";":
            key, _, value = field.partition(":")
            fields[key] = value
            field = ""
        else:
            field += char
    return fields


# --- the Wi-Fi join string ---

def test_a_plain_network_needs_no_escapes():
    assert (wifi_join_string("DarkMoon-x7k2", "k7dq-m2xp-9wtr")
            == "WIFI:T:WPA;S:DarkMoon-x7k2;P:k7dq-m2xp-9wtr;;")


@pytest.mark.parametrize("ssid, password, expected", [
    ("Bar; Grill", "pass;word", r"WIFI:T:WPA;S:Bar\; Grill;P:pass\;word;;"),
    ("Casa, planta 2", "a,b,c,d,e", r"WIFI:T:WPA;S:Casa\, planta 2;P:a\,b\,c\,d\,e;;"),
    ("Table:1", "http://x", r"WIFI:T:WPA;S:Table\:1;P:http\://x;;"),
    ('Joe\'s "Den"', 'say "hi"!', r'WIFI:T:WPA;S:Joe' + "'" + r's \"Den\";P:say \"hi\"!;;'),
    ("C:\\games", "back\\slash;", r"WIFI:T:WPA;S:C\:\\games;P:back\\slash\;;;"),
    ("Ñandú-ñ", "contraseña", "WIFI:T:WPA;S:Ñandú-ñ;P:contraseña;;"),
])
def test_reserved_characters_are_escaped_and_read_back(ssid, password, expected):
    join = wifi_join_string(ssid, password)
    assert join == expected
    assert wifi_fields(join) == {"T": "WPA", "S": ssid, "P": password}


def test_a_backslash_is_escaped_once_not_again_by_the_later_escapes():
    assert wifi_escape("\\;") == "\\\\\\;"  # \; -> \\ then \;


# --- the password ---

def test_passwords_are_long_enough_for_wpa2_and_easy_to_type():
    passwords = [new_password() for _ in range(2000)]
    assert len(set(passwords)) == len(passwords)
    shape = re.compile(f"[{ALPHABET}]{{4}}-[{ALPHABET}]{{4}}-[{ALPHABET}]{{4}}")
    for password in passwords:
        assert shape.fullmatch(password), password
        assert 8 <= len(password) <= 63
        assert not set(password) & set("01ilo" + "ABCDEFGHIJKLMNOPQRSTUVWXYZ")
    used = set("".join(passwords)) - {"-"}
    assert used == set(ALPHABET)  # every letter of the alphabet gets used


# --- the stored settings ---

def test_settings_are_made_once_private_and_kept_across_boots(tmp_path):
    first = load_settings(tmp_path)
    path = tmp_path / "hotspot.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600  # the password is a secret
    assert first.ssid.startswith("DarkMoon-") and len(first.password) == 14
    assert load_settings(tmp_path) == first
    assert json.loads(path.read_text()) == {"ssid": first.ssid, "password": first.password}


def test_chosen_settings_are_used_and_bad_ones_refused_without_touching_the_file(tmp_path):
    path = tmp_path / "hotspot.json"
    path.write_text(json.dumps({"ssid": "Mesa 3", "password": "lunaoscura"}))
    assert load_settings(tmp_path) == hotspot.Settings("Mesa 3", "lunaoscura")
    for broken, why in [({"ssid": "Mesa 3", "password": "short"}, "8 to 63"),
                        ({"ssid": "x" * 33, "password": "long enough"}, "1 to 32 bytes"),
                        ({"password": "long enough"}, "unreadable")]:
        path.write_text(json.dumps(broken))
        with pytest.raises(HotspotError) as refused:
            load_settings(tmp_path)
        assert refused.value.kind == "settings" and why in refused.value.detail
        assert str(path) in refused.value.detail
        assert json.loads(path.read_text()) == broken
    path.write_text("{not json")
    with pytest.raises(HotspotError, match="unreadable"):
        load_settings(tmp_path)
    assert path.read_text() == "{not json"


# --- nmcli ---

def test_start_asks_networkmanager_for_a_wpa2_access_point(tmp_path, monkeypatch):
    fake = install(tmp_path, monkeypatch)
    spot = Hotspot(tmp_path / "data", "wlan0", interface_address=lambda _name: None)
    settings = spot.start()
    assert fake.calls == [
        ["-t", "-f", "NAME,DEVICE", "connection", "show", "--active"],
        ["-w", "30", "device", "wifi", "hotspot", "ifname", "wlan0", "con-name", CONNECTION,
         "ssid", settings.ssid, "band", "bg", "password", settings.password]]
    assert fake.active() == {CONNECTION: {"device": "wlan0", "ssid": settings.ssid,
                                          "psk": settings.password}}
    assert spot.state.status == ON and spot.is_active()
    # NetworkManager's shared mode puts the Pi at 10.42.0.1: the join URLs use it
    assert spot.address() == SHARED_ADDRESS
    assert spot.join_string() == wifi_join_string(settings.ssid, settings.password)


def test_the_hotspot_devices_own_address_wins_over_the_default(tmp_path, monkeypatch):
    install(tmp_path, monkeypatch)
    spot = Hotspot(tmp_path, "wlan0", interface_address={"wlan0": "10.42.7.1"}.get)
    assert spot.address() == net.lan_address()  # not up yet: the LAN's address
    spot.start()
    assert spot.address() == "10.42.7.1"


def test_a_kiosk_restart_leaves_a_running_hotspot_alone(tmp_path, monkeypatch):
    fake = install(tmp_path, monkeypatch)
    settings = load_settings(tmp_path)
    fake.activate(CONNECTION, "wlan0", settings.ssid, settings.password)
    Hotspot(tmp_path, "wlan0").start()
    assert not any("hotspot" in call for call in fake.calls)  # the phones stay connected
    assert ["-s", "-g", "802-11-wireless.ssid,802-11-wireless-security.psk", "connection",
            "show", CONNECTION] in fake.calls


def test_a_running_hotspot_with_an_old_password_is_brought_up_again(tmp_path, monkeypatch):
    fake = install(tmp_path, monkeypatch)
    settings = load_settings(tmp_path)
    fake.activate(CONNECTION, "wlan0", settings.ssid, "the-old-password")
    Hotspot(tmp_path, "wlan0").start()
    assert fake.active()[CONNECTION]["psk"] == settings.password


def test_forcing_brings_it_up_again_even_when_it_runs(tmp_path, monkeypatch):
    fake = install(tmp_path, monkeypatch)
    settings = load_settings(tmp_path)
    fake.activate(CONNECTION, "wlan0", settings.ssid, settings.password)
    Hotspot(tmp_path, "wlan0").start(force=True)
    assert sum("hotspot" in call for call in fake.calls) == 1


def test_stop_takes_it_down_and_says_when_it_was_not_up(tmp_path, monkeypatch):
    fake = install(tmp_path, monkeypatch)
    spot = Hotspot(tmp_path, "wlan0")
    spot.start()
    assert spot.stop() is True
    assert ["connection", "down", CONNECTION] in fake.calls
    assert fake.active() == {} and spot.state.status == hotspot.OFF
    assert spot.stop() is False  # nmcli exits 10: not an active connection


@pytest.mark.parametrize("code, stderr, kind, detail", [
    (8, "Error: NetworkManager is not running.\n", "not_running",
     "NetworkManager is not running."),
    (4, "Error: Connection activation failed: 802.1X supplicant took too long to "
        "authenticate.\n", "failed",
     "Connection activation failed: 802.1X supplicant took too long to authenticate."),
    (1, "Error: Failed to setup a Wi-Fi hotspot: Not authorized to control networking.\n",
     "failed", "Failed to setup a Wi-Fi hotspot: Not authorized to control networking."),
    (4, "", "failed", "nmcli exited with 4"),
])
def test_nmcli_failures_become_typed_errors_with_networkmanagers_words(
        tmp_path, monkeypatch, code, stderr, kind, detail):
    fake = install(tmp_path, monkeypatch)
    fake.fail("hotspot", code=code, stderr=stderr)
    spot = Hotspot(tmp_path, "wlan0")
    with pytest.raises(HotspotError) as failed:
        spot.start()
    assert (failed.value.kind, failed.value.detail) == (kind, detail)


def test_a_missing_wifi_device_is_reported(tmp_path, monkeypatch):
    install(tmp_path, monkeypatch, devices=())
    with pytest.raises(HotspotError, match="Device 'wlan0' not found"):
        Hotspot(tmp_path, "wlan0").start()


def test_without_nmcli_the_error_says_so(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with pytest.raises(HotspotError) as failed:
        Hotspot(tmp_path, "wlan0").start()
    assert failed.value.kind == "missing"


def test_nmcli_that_hangs_is_given_up_on(tmp_path, monkeypatch):
    fake = install(tmp_path, monkeypatch)
    fake.fail("--active", sleep=5)
    with pytest.raises(HotspotError) as failed:
        nmcli("-t", "-f", "NAME,DEVICE", "connection", "show", "--active", timeout=0.5)
    assert failed.value.kind == "timeout"


def test_bring_up_never_raises_and_keeps_the_reason(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    spot = Hotspot(tmp_path, NO_DEVICE)
    state = spot.bring_up()
    assert state.status == FAILED and state.error.kind == "missing"
    assert state.settings is not None  # the name and password are still known
    assert spot.address() == net.lan_address()  # the codes fall back to the LAN


def test_bring_up_with_a_broken_settings_file(tmp_path, monkeypatch):
    install(tmp_path, monkeypatch)
    (tmp_path / "hotspot.json").write_text("[]")
    state = Hotspot(tmp_path, "wlan0").bring_up()
    assert state.status == FAILED and state.error.kind == "settings"


# --- the command line ---

def parse(argv: list[str]) -> argparse.Namespace:
    """The options as companion/cli.py declares them, with hotspot.add_* as the lead adds."""
    serving = argparse.ArgumentParser(add_help=False)
    serving.add_argument("--port", type=int, default=8080)
    serving.add_argument("--address", default=None)
    serving.add_argument("--data-dir", default="data")
    hotspot.add_arguments(serving)
    parser = argparse.ArgumentParser(parents=[serving])
    commands = parser.add_subparsers(dest="command")
    hotspot.add_command(commands)
    return parser.parse_args(argv)


def test_the_hotspot_command_starts_shows_and_stops(tmp_path, monkeypatch, capsys):
    fake = install(tmp_path, monkeypatch, devices=(NO_DEVICE,))
    data = str(tmp_path / "data")
    common = ["--data-dir", data, "--wifi-device", NO_DEVICE]
    assert hotspot.hotspot_command(parse(["hotspot", "status", *common])) == 0
    settings = load_settings(data)
    assert f"is off (it would be {settings.ssid}, password {settings.password})" in (
        capsys.readouterr().out)
    assert hotspot.hotspot_command(parse(["hotspot", "on", *common])) == 0
    out = capsys.readouterr().out
    assert f"{settings.ssid} is on, password {settings.password}" in out
    assert "http://10.42.0.1:8080" in out
    assert wifi_join_string(settings.ssid, settings.password) in out
    assert hotspot.hotspot_command(parse(["hotspot", "status", *common, "--port", "9000"])) == 0
    assert "http://10.42.0.1:9000" in capsys.readouterr().out
    # the options may come before the command too, as for the kiosk
    before = parse(["--data-dir", data, "--wifi-device", NO_DEVICE, "hotspot", "status"])
    assert (before.data_dir, before.wifi_device, before.port) == (data, NO_DEVICE, 8080)
    assert hotspot.hotspot_command(parse(["hotspot", "off", *common])) == 0
    assert "is off" in capsys.readouterr().out and fake.active() == {}


def test_the_hotspot_command_reports_failure_on_stderr(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert hotspot.hotspot_command(parse(["hotspot", "on", "--data-dir", str(tmp_path)])) == 1
    assert "hotspot: missing: nmcli is not installed" in capsys.readouterr().err


def test_the_kiosk_watches_the_address_unless_it_was_given(tmp_path):
    source, spot = hotspot.for_kiosk(parse(["--data-dir", str(tmp_path)]))
    assert source is net.lan_address and spot is None
    source, spot = hotspot.for_kiosk(parse(["--hotspot", "--data-dir", str(tmp_path)]))
    assert isinstance(spot, Hotspot) and source == spot.address and spot.ifname == "wlan0"
    source, spot = hotspot.for_kiosk(parse(["--hotspot", "--address", "10.0.0.5"]))
    assert source is None and spot is not None  # --address: the codes keep that address
    assert not os.path.exists(tmp_path / "hotspot.json")  # nothing made until it starts
