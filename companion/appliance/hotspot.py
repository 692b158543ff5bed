"""Hotspot mode: the Pi as its own Wi-Fi access point, for tables with no Wi-Fi to share.

NetworkManager does the work (the default on Raspberry Pi OS bookworm); we drive it with
`nmcli device wifi hotspot`, which makes a "shared" connection: the Pi takes 10.42.0.1 and
hands out addresses to the phones. The network's name and password are kept in
DATA_DIR/hotspot.json, made on first use, so they stay the same across boots and the kiosk can
show them (and a Wi-Fi QR code) to the table. Edit that file to choose your own; then
`darkmoon-companion hotspot on` applies it.

Nothing here may take the kiosk down: every nmcli failure becomes a HotspotError whose `kind`
the kiosk words for the table ("missing", "not_running", "timeout", "failed", "settings").

On the Pi: the Wi-Fi country must be set (raspi-config), or the radio stays blocked; the
Wi-Fi device stops being a client of any other network while it is the access point; and a
service user outside a desktop session needs polkit's leave to change NetworkManager's
connections (a rule for org.freedesktop.NetworkManager.* actions), or nmcli answers "Not
authorized to control networking", which the kiosk then shows.
"""
from __future__ import annotations

import argparse
import json
import logging
import os
import secrets
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from . import net

log = logging.getLogger(__name__)

CONNECTION = "darkmoon-hotspot"  # NetworkManager's name for the profile we make
SHARED_ADDRESS = "10.42.0.1"     # NetworkManager's address for the Pi in shared mode
SETTINGS_FILE = "hotspot.json"
# Easy to read off a screen and type on a phone: no i/l/1, no o/0.
ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"
WAIT = 30          # seconds NetworkManager may take to bring the access point up
SLACK = 10         # and nmcli itself, on top, before we give up on it
QUICK = 10         # seconds for the quick questions (status, stop)
OFF, STARTING, ON, FAILED = "off", "starting", "on", "failed"


class HotspotError(Exception):
    def __init__(self, kind: str, detail: str = ""):
        super().__init__(f"{kind}: {detail}" if detail else kind)
        self.kind = kind
        self.detail = detail


@dataclass(frozen=True)
class Settings:
    ssid: str
    password: str


@dataclass(frozen=True)
class State:
    """What the kiosk shows. Replaced whole, so a reader on another thread sees one state."""
    status: str = OFF
    settings: Settings | None = None
    error: HotspotError | None = None


def new_password(groups: int = 3, size: int = 4) -> str:
    """"k7dq-m2xp-9wtr": about 59 random bits, 14 characters, grouped for reading aloud."""
    return "-".join("".join(secrets.choice(ALPHABET) for _ in range(size))
                    for _ in range(groups))


def wifi_escape(value: str) -> str:
    """Backslash before the characters the WIFI: format reserves."""
    for char in "\\;,:\"":  # the backslash first, or it would escape the others' escapes
        value = value.replace(char, "\\" + char)
    return value


def wifi_join_string(ssid: str, password: str) -> str:
    """What a phone camera reads as "join this network" (the format Android and iOS know)."""
    return f"WIFI:T:WPA;S:{wifi_escape(ssid)};P:{wifi_escape(password)};;"


def check_settings(settings: Settings) -> Settings:
    if not 1 <= len(settings.ssid.encode()) <= 32:
        raise HotspotError("settings", "the network name (ssid) must be 1 to 32 bytes")
    if not (8 <= len(settings.password) <= 63 and settings.password.isascii()
            and settings.password.isprintable()):
        raise HotspotError("settings", "the password must be 8 to 63 plain characters (WPA2)")
    return settings


def load_settings(data_dir: str | os.PathLike) -> Settings:
    """The hotspot's name and password, made (readable by us only) on first use. A broken
    file is refused, never overwritten: someone may have chosen that password."""
    path = Path(data_dir) / SETTINGS_FILE
    if not path.exists():
        settings = Settings(f"DarkMoon-{new_password(1)}", new_password())
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(descriptor, "w", encoding="utf-8") as out:
                json.dump({"ssid": settings.ssid, "password": settings.password}, out,
                          indent=1)
                out.write("\n")
        except FileExistsError:
            pass  # made by another process in the meantime: read theirs
        except OSError as error:
            raise HotspotError("settings", f"cannot write {path}: {error.strerror}") from error
        else:
            return settings
    try:
        stored = json.loads(path.read_text(encoding="utf-8"))
        settings = Settings(str(stored["ssid"]), str(stored["password"]))
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise HotspotError("settings", f"{path} is unreadable: {error}") from error
    try:
        return check_settings(settings)
    except HotspotError as error:
        raise HotspotError("settings", f"{path}: {error.detail}") from None


def nmcli(*args: str, timeout: float = QUICK) -> str:
    """Run nmcli; its output, or a HotspotError that says plainly what went wrong."""
    try:
        done = subprocess.run(["nmcli", *args], capture_output=True, text=True,
                              timeout=timeout, stdin=subprocess.DEVNULL)
    except FileNotFoundError:
        raise HotspotError("missing", "nmcli is not installed") from None
    except subprocess.TimeoutExpired:
        raise HotspotError("timeout", f"no answer in {timeout:.0f} s") from None
    except OSError as error:
        raise HotspotError("failed", f"cannot run nmcli: {error.strerror}") from None
    if done.returncode == 8:  # nmcli's code for "NetworkManager is not running"
        raise HotspotError("not_running", last_line(done.stderr))
    if done.returncode != 0:
        raise HotspotError("failed", last_line(done.stderr) or last_line(done.stdout)
                           or f"nmcli exited with {done.returncode}")
    return done.stdout


def last_line(output: str) -> str:
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    return lines[-1].removeprefix("Error: ") if lines else ""


def terse_fields(line: str) -> list[str]:
    """One line of nmcli's terse output: fields split on ':', "\\:" and "\\\\" unescaped."""
    fields, field, chars = [], [], iter(line)
    for char in chars:
        if char == "\\":
            field.append(next(chars, ""))
        elif char == ":":
            fields.append("".join(field))
            field = []
        else:
            field.append(char)
    fields.append("".join(field))
    return fields


class Hotspot:
    """The Pi's own access point on one Wi-Fi device. start/stop/is_active talk to
    NetworkManager and may take seconds: the kiosk calls bring_up() in a thread of its own."""

    def __init__(self, data_dir: str | os.PathLike, ifname: str = "wlan0", *,
                 wait: int = WAIT,
                 interface_address: Callable[[str], str | None] = net.interface_address):
        self.data_dir = data_dir
        self.ifname = ifname
        self.wait = wait
        self.interface_address = interface_address
        self.state = State()

    def start(self, force: bool = False) -> Settings:
        """Bring the access point up with the stored name and password. One already up with
        the same name and password is left alone (a kiosk restart must not drop the phones),
        unless `force`."""
        settings = load_settings(self.data_dir)
        self.state = State(STARTING, settings)
        if force or not self.running_with(settings):
            nmcli("-w", str(self.wait), "device", "wifi", "hotspot", "ifname", self.ifname,
                  "con-name", CONNECTION, "ssid", settings.ssid, "band", "bg",
                  "password", settings.password, timeout=self.wait + SLACK)
        self.state = State(ON, settings)
        log.info("Wi-Fi hotspot %s is up on %s", settings.ssid, self.ifname)
        return settings

    def bring_up(self) -> State:
        """start() for the kiosk: never raises; the state says what happened."""
        try:
            self.start()
        except HotspotError as error:
            log.warning("the Wi-Fi hotspot did not start: %s", error)
            self.state = State(FAILED, self.state.settings, error)
        except Exception as error:  # the kiosk must keep running whatever happens here
            log.exception("the Wi-Fi hotspot did not start")
            self.state = State(FAILED, self.state.settings, HotspotError("failed", str(error)))
        return self.state

    def stop(self) -> bool:
        """Take the access point down; False if it was not up."""
        try:
            nmcli("connection", "down", CONNECTION)
            stopped = True
        except HotspotError as error:
            if error.kind != "failed" or self.is_active():
                raise
            stopped = False  # nmcli: "not an active connection"
        self.state = State(OFF, self.state.settings)
        return stopped

    def is_active(self) -> bool:
        out = nmcli("-t", "-f", "NAME,DEVICE", "connection", "show", "--active")
        return [CONNECTION, self.ifname] in (terse_fields(line) for line in out.splitlines())

    def running_with(self, settings: Settings) -> bool:
        if not self.is_active():
            return False
        try:  # -s: the password is a secret; without the right to read it we start afresh
            out = nmcli("-s", "-g", "802-11-wireless.ssid,802-11-wireless-security.psk",
                        "connection", "show", CONNECTION)
        except HotspotError:
            return False
        # one line per setting, or both on one line: the same fields in order either way
        values = [field for line in out.splitlines() for field in terse_fields(line)]
        return values == [settings.ssid, settings.password]

    def address(self) -> str:
        """Where phones reach the Pi: on the hotspot, the Wi-Fi device's own address
        (NetworkManager's 10.42.0.1 unless configured otherwise); otherwise the LAN's."""
        if self.state.status == ON:
            return self.interface_address(self.ifname) or SHARED_ADDRESS
        return net.lan_address()

    def join_string(self) -> str | None:
        settings = self.state.settings
        return wifi_join_string(settings.ssid, settings.password) if settings else None


# --- the command line (companion/cli.py adds these) ---

def add_arguments(parser, suppress: bool = False) -> None:
    """--hotspot and --wifi-device, for the kiosk's options (defaults SUPPRESSed under a
    subcommand: see companion.cli.serving_options)."""
    quiet = argparse.SUPPRESS
    parser.add_argument("--hotspot", action="store_true", default=quiet if suppress else False,
                        help="make the Pi its own Wi-Fi network (NetworkManager) and show its "
                             f"code on the kiosk; name and password in DATA_DIR/{SETTINGS_FILE}")
    parser.add_argument("--wifi-device", default=quiet if suppress else "wlan0", metavar="NAME",
                        help="the Wi-Fi device for --hotspot (default wlan0)")


def add_command(commands) -> None:
    """`darkmoon-companion hotspot on|off|status`. Its options default to SUPPRESS, so that
    the same options given before the command (`--data-dir X hotspot on`) are not reset by
    the subcommand's defaults, as argparse does with a shared parent parser."""
    command = commands.add_parser("hotspot",
                                  help="start, stop or show the Pi's own Wi-Fi network")
    command.add_argument("action", choices=("on", "off", "status"))
    quiet = argparse.SUPPRESS
    command.add_argument("--data-dir", default=quiet,
                         help=f"where {SETTINGS_FILE} is kept (default: ./data)")
    command.add_argument("--wifi-device", default=quiet, metavar="NAME",
                         help="the Wi-Fi device (default wlan0)")
    command.add_argument("--port", type=int, default=quiet,
                         help="the phones' web port, for the address shown (8080)")


def for_kiosk(args) -> tuple[Callable[[], str] | None, Hotspot | None]:
    """(address_source, hotspot) for KioskApp: with --address the address stays fixed."""
    spot = Hotspot(args.data_dir, args.wifi_device) if args.hotspot else None
    if args.address:
        return None, spot
    return (spot.address if spot else net.lan_address), spot


def hotspot_command(args) -> int:
    spot = Hotspot(args.data_dir, args.wifi_device)
    try:
        if args.action == "on":
            settings = spot.start(force=True)
        elif args.action == "off":
            print("the Wi-Fi hotspot is off" if spot.stop() else "the Wi-Fi hotspot was not on")
            return 0
        else:
            settings = load_settings(args.data_dir)
            if not spot.is_active():
                print(f"the Wi-Fi hotspot is off (it would be {settings.ssid}, "
                      f"password {settings.password})")
                return 0
            spot.state = State(ON, settings)
    except HotspotError as error:
        print(f"hotspot: {error.kind}: {error.detail}", file=sys.stderr)
        return 1
    print(f"the Wi-Fi hotspot {settings.ssid} is on, password {settings.password}\n"
          f"phones reach the kiosk at {net.base_url(args.port, spot.address())}\n"
          f"Wi-Fi code: {spot.join_string()}")
    return 0
