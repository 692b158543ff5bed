"""The kiosk's join codes follow the Pi's address: a Pi's Wi-Fi often comes up
after the kiosk, and a Pi that is its own access point brings its hotspot up as it starts.
Part of the kiosk app (screens/app.py), which draws the codes with `sync`."""
from __future__ import annotations

import logging
import threading

from companion.appliance import net

log = logging.getLogger(__name__)


class NetworkWatch:
    """Mixed into the kiosk app: reads its `port` and `base_url`, and redraws with `sync`;
    `follow_network()` once mounted (not `watch_*`: Textual's name for reactives' watchers).

    Set by the composition root (companion.appliance.hotspot.for_kiosk) after construction:
    address_source() gives the address for the codes and is asked every ADDRESS_EVERY s;
    None keeps base_url as given (--address). hotspot: a companion.appliance.hotspot.Hotspot when the
    Pi is its own access point. screens/join.py reads `offline` and `hotspot` to draw the
    codes, or say why not."""

    address_source = None
    hotspot = None
    offline = False  # the watched address is loopback: no phone could use a code
    ADDRESS_EVERY = 5.0  # seconds; a check costs a routing look-up (~15 us)

    def follow_network(self) -> None:
        if self.hotspot is not None:  # NetworkManager takes seconds: off the loop, and
            threading.Thread(target=self._bring_up_hotspot, name="hotspot",  # never waited
                             daemon=True).start()                         # for at exit
        if self.address_source is not None:
            self.check_address()
            self.set_interval(self.ADDRESS_EVERY, self.check_address)

    def _bring_up_hotspot(self) -> None:
        self.hotspot.bring_up()  # never raises: its state says what happened
        try:
            self.call_from_thread(self.check_address, True)
        except RuntimeError:
            pass  # the kiosk has gone meanwhile

    def check_address(self, redraw: bool = False) -> None:
        """Redraw the codes when the address changed (or `redraw`)."""
        if self.address_source is not None:
            try:
                address = self.address_source()
            except Exception:  # a failed look-up keeps the codes we have
                log.exception("cannot read this machine's address")
                return
            url = net.base_url(self.port, address)
            offline = not net.has_network(address)
            if (url, offline) != (self.base_url, self.offline):
                log.info("join codes now use %s%s", url, " (no network)" if offline else "")
                self.base_url, self.offline, redraw = url, offline, True
        if redraw:
            self.sync()
