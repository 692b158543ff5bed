"""The systemd units and the console helper: what a Pi needs from them, each check tied to
what a table would see go wrong without it."""
from __future__ import annotations

import json
import os
import pty
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from .console_font import read_font
from .throwaway_root import (REPO, SOURCE_UNIT, UNIT_NAME, command_of, drain, environment_of,
                             free_port, read_unit, read_until, seven_seat_game, spawn_on_pty,
                             stop, unit_launch)

UNIT = read_unit(SOURCE_UNIT)
SERVICE = UNIT["Service"]
CAGE_UNIT = REPO / "systemd" / "darkmoon-companion-cage.service"
HELPER = REPO / "systemd" / "kiosk-console"
FONTS = Path("/usr/share/consolefonts")
# Screens a Pi is plugged into: a TV, a 720p monitor, an old 4:3 one, the 7" touchscreen, 4K.
SCREENS = [(1920, 1080), (1280, 720), (1024, 768), (800, 480), (3840, 2160)]


def values(section: dict, key: str) -> list[str]:
    """Every space-separated value of a key that may be given several times."""
    return [v for line in section.get(key, []) for v in line.split()]


def seconds(text: str) -> float:
    match = re.fullmatch(r"(\d+(?:\.\d+)?)(ms|s|min)?", text)
    assert match, f"not a plain time span: {text}"
    return float(match[1]) * {"ms": 0.001, "s": 1, "min": 60, None: 1}[match[2]]


# --- systemd-analyze ---------------------------------------------------------------------

def verify(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["systemd-analyze", "verify", "--man=no", *args],
                          capture_output=True, text=True, timeout=60)


def test_systemd_analyze_verify_finds_nothing_wrong_in_the_installed_unit(installed):
    """Inside the installed root, so the ExecStart program really exists. systemd ignores a
    line it cannot parse (a typo in Restart= means no restarts) and says so only as a
    warning: any output at all is a failure."""
    done = verify(f"--root={installed.root}", UNIT_NAME)
    assert done.returncode == 0 and done.stdout + done.stderr == "", done.stderr


def test_systemd_analyze_verify_finds_nothing_wrong_in_the_cage_unit(tmp_path):
    if not (shutil.which("cage") and shutil.which("foot")):
        pytest.skip("cage and foot are not installed (.ci/run installs them)")
    unit = tmp_path / CAGE_UNIT.name
    unit.write_text(CAGE_UNIT.read_text())
    done = verify(str(unit))
    assert done.returncode == 0 and done.stdout + done.stderr == "", done.stderr


# --- the console unit's properties ---------------------------------------------------------

def test_the_kiosk_owns_tty1_for_keys_and_drawing():
    """Textual draws on stderr and reads stdin: StandardError=journal (or a file) sends the
    whole screen there and the Pi shows nothing."""
    assert SERVICE["TTYPath"] == ["/dev/tty1"]
    for key in ("StandardInput", "StandardOutput", "StandardError"):
        assert SERVICE[key] == ["tty"], key
    for key in ("TTYReset", "TTYVHangup", "TTYVTDisallocate"):
        assert SERVICE[key] == ["yes"], key


def test_the_login_prompt_on_tty1_gives_way_first():
    """Two programs on one console: the kiosk's frames and the login prompt mixed up."""
    assert "getty@tty1.service" in values(UNIT["Unit"], "Conflicts")
    assert "getty@tty1.service" in values(UNIT["Unit"], "After")  # stopped before we start


def test_it_does_not_wait_for_a_network_that_may_never_come():
    """A Pi with no network at the table would show a blank screen for a minute and a half
    waiting for network-online.target; the kiosk finds its address later by itself."""
    for key in ("After", "Wants", "Requires", "BindsTo"):
        assert "network-online.target" not in values(UNIT["Unit"], key)
    assert UNIT["Install"]["WantedBy"] == ["multi-user.target"]


def test_a_crash_brings_the_kiosk_back_and_it_never_gives_up():
    assert SERVICE["Restart"][0] in ("always", "on-failure")
    assert 1 <= seconds(SERVICE["RestartSec"][0]) <= 10
    # the default (5 starts in 10 s, then give up) would leave a table with a dead screen
    assert UNIT["Unit"]["StartLimitIntervalSec"] == ["0"]


def test_systemctl_stop_sends_the_signal_the_kiosk_handles():
    assert SERVICE.get("KillSignal", ["SIGTERM"]) == ["SIGTERM"]
    assert 5 <= seconds(SERVICE["TimeoutStopSec"][0]) <= 30


@pytest.mark.parametrize("unit", [SOURCE_UNIT, CAGE_UNIT], ids=lambda path: path.name)
def test_the_file_limit_leaves_room_for_every_connection_the_server_allows(unit):
    """systemd's default soft limit, 1024 descriptors, was what a laptop's thousand idle
    sockets used up: the phones could no longer connect. The limit must hold all the
    connections the server accepts (it closes any past Limits.total at once) with room for
    the store, the kiosk and the buttons besides. Both units run the server."""
    from companion.web.guard import Limits
    service = read_unit(unit)["Service"]
    assert len(service.get("LimitNOFILE", [])) == 1, "LimitNOFILE is not set"
    soft = service["LimitNOFILE"][0].partition(":")[0]   # soft[:hard]
    assert soft.isdigit(), soft                            # not "infinity"
    assert int(soft) >= Limits().total + 1024


def test_the_service_user_can_open_gpio_pins_serial_boxes_and_the_sound_card():
    assert SERVICE["User"] == ["darkmoon"]
    assert {"gpio", "dialout", "audio"} <= set(values(SERVICE, "SupplementaryGroups"))


def test_lgpio_has_a_writable_working_directory():
    """lgpio writes its pipe files into the current directory; / is not writable."""
    runtime = "/run/" + SERVICE["RuntimeDirectory"][0]
    assert SERVICE["WorkingDirectory"] == [runtime]
    assert environment_of(SERVICE)["LG_WD"] == runtime


def test_games_are_kept_in_the_state_directory():
    """The data directory is one systemd makes writable for the service user, on /var."""
    _, argv = command_of(SERVICE["ExecStart"][0])
    assert argv[0] == "/opt/darkmoon-companion/venv/bin/darkmoon-companion"
    assert "--kiosk" in argv
    assert argv[argv.index("--data-dir") + 1] == "/var/lib/" + SERVICE["StateDirectory"][0]


@pytest.mark.parametrize("unit", [SOURCE_UNIT, CAGE_UNIT], ids=["console", "cage"])
def test_the_games_folder_and_what_is_made_in_it_are_the_service_users_alone(unit):
    """systemd makes (and at every start re-modes) the state directory as the unit says:
    0700, or the program would find it open and say so at every boot; and the umask gives
    nothing to the group or others (the program sets the same for itself)."""
    service = read_unit(unit)["Service"]
    assert service["StateDirectoryMode"] == ["0700"]
    assert service["UMask"] == ["0077"]


def test_the_console_gets_the_linux_terminal_and_no_animations():
    env = environment_of(SERVICE)
    assert env["TERM"] == "linux"
    assert env["TEXTUAL_ANIMATIONS"] == "none"   # an idle kiosk must not redraw
    assert env["LANG"].endswith("UTF-8")         # half blocks and accents


def test_the_console_is_prepared_as_root_and_a_failure_there_does_not_stop_the_kiosk():
    prefix, argv = command_of(SERVICE["ExecStartPre"][0])
    assert "+" in prefix and "-" in prefix
    assert argv == ["/opt/darkmoon-companion/bin/kiosk-console", "/dev/tty1"]


# --- the console helper ----------------------------------------------------------------------

def helper(*args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(HELPER), *args], capture_output=True, text=True, timeout=30,
                          env={**os.environ, **env})


def chosen_font(width: int, height: int) -> Path:
    done = helper("--print", "--size", f"{width},{height}")
    assert done.returncode == 0, done.stderr
    return Path(done.stdout.strip())


needs_fonts = pytest.mark.skipif(not FONTS.is_dir(),
                                 reason="Debian's console fonts (console-setup-linux) are "
                                        "not installed; .ci/run installs them")


@needs_fonts
@pytest.mark.parametrize("width, height", SCREENS)
def test_the_font_leaves_the_kiosk_its_120x36_cells_and_is_as_big_as_that_allows(width, height):
    font = read_font(chosen_font(width, height))
    if (width, height) != (800, 480):       # no font gives 120x36 below 960x576
        assert width // font.width >= 120 and height // font.height >= 36
    bigger = [read_font(p) for p in FONTS.glob("Vietnamese-TerminusBold*.psf.gz")]
    bigger = [f for f in bigger if f.height > font.height]
    assert not [f for f in bigger if width // f.width >= 120 and height // f.height >= 36]


def kiosk_glyphs(installed, tmp_path) -> set[str]:
    """Every non-ASCII character the installed kiosk draws on its way through the join screen
    and a bot-played game, plus all its words in both languages and the board's snapshot."""
    service = read_unit(installed.root / "etc/systemd/system" / UNIT_NAME)["Service"]
    _, env, cwd = unit_launch(installed.root, [])
    program = str(installed.root / "opt/darkmoon-companion/venv/bin/darkmoon-companion")
    drawn = b""
    seven_seat_game(tmp_path / "join")
    runs = [([program, "--kiosk", "--data-dir", str(tmp_path / "join")], [b"Gus"], 0.5),
            ([program, "demo", "--players", "7", "--pace", "0.02", "--seed", "4",
              "--data-dir", str(tmp_path / "demo")], [b"Gus"], 8.0)]
    for argv, needles, linger in runs:
        proc, master = spawn_on_pty(argv + ["--port", str(free_port())], env, cwd)
        try:
            drawn += read_until(master, needles)[1]
            end = time.monotonic() + linger
            while time.monotonic() < end:
                drawn += drain(master)
                time.sleep(0.05)
        finally:
            stop(proc, master, seconds(service["TimeoutStopSec"][0]))
    text = drawn.decode("utf-8", "replace")
    text += (REPO / "tests/screens/snapshots/board-120x36.txt").read_text()
    for lang in ("en", "es"):
        for catalogue in ("kiosk.json", "game.json"):
            text += json.dumps(json.loads((REPO / "companion/lang" / lang / catalogue)
                                          .read_text()), ensure_ascii=False)
    return {c for c in text if ord(c) > 127 and c != "\ufffd"}


@needs_fonts
def test_the_font_has_a_glyph_for_everything_the_kiosk_draws(installed, tmp_path):
    """Stock console fonts draw the half blocks as diamonds: QR codes nobody can scan, and
    boxes and accents turned to question marks."""
    glyphs = kiosk_glyphs(installed, tmp_path)
    assert {"▀", "▄", "╭", "─", "á"} <= glyphs      # the capture did see the kiosk
    for path in sorted({chosen_font(*size) for size in SCREENS}):
        font = read_font(path)
        missing = sorted(c for c in glyphs if ord(c) not in font.characters)
        assert not missing, (f"{path.name} has no glyph for "
                             + " ".join(f"{c} U+{ord(c):04X}" for c in missing))


def test_the_helper_turns_blanking_off_even_where_no_font_can_be_loaded():
    """On a terminal that is not a console setfont fails; the blanking is still turned off and
    the kiosk still starts (exit 0)."""
    master, slave = pty.openpty()
    try:
        done = helper(os.ttyname(slave))
        os.set_blocking(master, False)
        written = os.read(master, 1024)
    finally:
        os.close(master)
        os.close(slave)
    assert done.returncode == 0
    assert b"\x1b[9;0]" in written       # blank after 0 minutes: never
    assert b"\x1b[14;0]" in written      # power the screen down after 0 minutes: never
    assert "blanking off" in done.stderr


def test_a_font_named_by_the_table_wins():
    done = helper("--print", "--size", "1920,1080", DARKMOON_CONSOLE_FONT="Lat15-Terminus16.psf.gz")
    assert done.stdout.strip() == str(FONTS / "Lat15-Terminus16.psf.gz")


@pytest.mark.parametrize("args", [["--size", "12"], ["--size"], ["--bogus"]])
def test_the_helper_refuses_what_it_cannot_read(args):
    done = helper("--print", *args)
    assert done.returncode == 2 and done.stdout == ""
    assert "kiosk-console" in done.stderr or "usage" in done.stderr
