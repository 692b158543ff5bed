"""The address put in the join codes: one a phone on the same network can reach, found
cheaply enough to ask every few seconds. Besides this machine's own network, the cases a Pi
meets (no network yet at boot, Wi-Fi coming up later, its own hotspot with no default route)
run in a fresh network namespace (`unshare --net`, root only) with a veth pair named wlan0."""
from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from companion.appliance import net

ROOT = Path(__file__).resolve().parents[1]


def bindable(address: str) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.bind((address, 0))
        except OSError:
            return False
    return True


def test_the_lan_address_belongs_to_this_machine():
    address = net.lan_address()
    assert bindable(address), address  # an address of ours, not a guess
    interfaces = net.interface_addresses()
    if interfaces:  # this machine is on a network: the codes must not say 127.0.0.1
        assert net.has_network(address)
        assert address in {a for _, a in interfaces}
    else:
        assert address == net.NO_NETWORK


def test_interface_addresses_leave_out_loopback_and_are_ours():
    assert net.interface_address("lo") == "127.0.0.1"
    assert net.interface_address("nosuchif0") is None
    for name, address in net.interface_addresses():
        assert name != "lo" and net.has_network(address) and bindable(address)


def test_which_addresses_a_phone_could_use():
    assert not net.has_network("127.0.0.1") and not net.has_network("127.0.1.1")
    assert not net.has_network("0.0.0.0")
    assert net.has_network("10.42.0.1") and net.has_network("192.168.1.20")
    assert net.has_network("pi.example")  # a name given by hand is trusted
    assert net.base_url(8080, "10.42.0.1") == "http://10.42.0.1:8080"


# --- the Pi's situations, in a network namespace of their own ---

STORY = r"""
import json, subprocess, sys
sys.path.insert(0, sys.argv[1])
from companion.appliance import net
def ip(*args):
    subprocess.run(["ip", *args], check=True, capture_output=True)
seen = {"boot": net.lan_address()}
ip("link", "set", "lo", "up")
ip("link", "add", "wlan0", "type", "veth", "peer", "name", "wlan0p")
ip("link", "set", "wlan0", "up"); ip("link", "set", "wlan0p", "up")
seen["link_up_no_address"] = net.lan_address()
# NetworkManager's shared mode: the Pi is 10.42.0.1 and there is no default route
ip("addr", "add", "10.42.0.1/24", "dev", "wlan0")
seen["hotspot"] = net.lan_address()
seen["wlan0"] = net.interface_address("wlan0")
ip("addr", "flush", "dev", "wlan0")
# joined a home network later: an address from its DHCP and a default route
ip("addr", "add", "192.168.1.20/24", "dev", "wlan0")
ip("route", "add", "default", "via", "192.168.1.1", "dev", "wlan0")
seen["home_wifi"] = net.lan_address()
print(json.dumps(seen))
"""


def in_namespace(script: str) -> dict:
    if shutil.which("unshare") is None or shutil.which("ip") is None:
        pytest.skip("needs unshare and ip (util-linux, iproute2)")
    done = subprocess.run(["unshare", "--net", sys.executable, "-c", script, str(ROOT)],
                          capture_output=True, text=True, timeout=60)
    if done.returncode and ("Operation not permitted" in done.stderr
                            or "Unknown device type" in done.stderr):
        pytest.skip(f"network namespaces are not allowed here: {done.stderr.strip()[-200:]}")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_a_pi_from_boot_to_hotspot_to_home_wifi():
    seen = in_namespace(STORY)
    assert seen["boot"] == "127.0.0.1"  # nothing up yet: the kiosk says "no network yet"
    assert seen["link_up_no_address"] == "127.0.0.1"
    assert seen["hotspot"] == seen["wlan0"] == "10.42.0.1"  # no default route, still found
    assert seen["home_wifi"] == "192.168.1.20"
