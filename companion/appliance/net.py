"""The address phones use to reach the Pi. An IP address, not a .local name: many Android
phones cannot resolve mDNS names.

The kiosk asks for the address every few seconds (a Pi's Wi-Fi often comes up after the
kiosk), so every function here is cheap: a routing look-up or an ioctl, never a subprocess.
"""
from __future__ import annotations

import fcntl
import ipaddress
import socket
import struct

NO_NETWORK = "127.0.0.1"
SIOCGIFADDR = 0x8915  # Linux: an interface's IPv4 address
# Interfaces phones never reach the Pi through: containers and virtual machines' bridges.
VIRTUAL = ("lo", "docker", "veth", "br-", "virbr", "tun", "tap")


def lan_address() -> str:
    """The IP address of the interface that carries the default route; with no default route
    (a Pi that is its own hotspot, a LAN without a gateway) the first real interface's
    address; 127.0.0.1 with no network at all. Connecting a UDP socket sends nothing; it only
    picks the route."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("10.255.255.255", 1))
            address = probe.getsockname()[0]
        except OSError:
            address = NO_NETWORK
    if has_network(address):
        return address
    for _name, address in interface_addresses():
        return address
    return NO_NETWORK


def interface_address(name: str) -> str | None:
    """The IPv4 address of one interface (e.g. "wlan0"), or None when it has none."""
    request = struct.pack("256s", name.encode()[:15])
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            answer = fcntl.ioctl(probe.fileno(), SIOCGIFADDR, request)
        except OSError:  # no such interface, or no IPv4 address on it (yet)
            return None
    return socket.inet_ntoa(answer[20:24])


def interface_addresses() -> list[tuple[str, str]]:
    """(interface, address) for each interface that is not loopback or virtual, in the
    kernel's order (built-in Ethernet and Wi-Fi come before USB adapters)."""
    found = []
    for _index, name in socket.if_nameindex():
        if name.startswith(VIRTUAL):
            continue
        address = interface_address(name)
        if address and has_network(address):
            found.append((name, address))
    return found


def has_network(address: str) -> bool:
    """False for loopback and unspecified addresses: no phone can reach those."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return True  # a host name given by hand: trust whoever gave it
    return not (ip.is_loopback or ip.is_unspecified)


def base_url(port: int, address: str | None = None) -> str:
    return f"http://{address or lan_address()}:{port}"
