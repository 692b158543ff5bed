"""The address phones use to reach the Pi. An IP address, not a .local name: many Android
phones cannot resolve mDNS names."""
from __future__ import annotations

import socket


def lan_address() -> str:
    """The IP address of the interface that carries the default route, or 127.0.0.1 with no
    network. Connecting a UDP socket sends nothing; it only picks the route."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("10.255.255.255", 1))
            return probe.getsockname()[0]
        except OSError:
            return "127.0.0.1"


def base_url(port: int, address: str | None = None) -> str:
    return f"http://{address or lan_address()}:{port}"
