"""The data directory is the companion's user's alone (companion/appliance/data_dir.py). The
real command, started under umask 022 in every way that runs here (the kiosk and its demo
on a pseudo-terminal, `--headless` until SIGTERM, `demo --headless` to its game's end, the
hotspot command), leaves the folder 0700 and every file in it 0600; a folder and files
found open to others are closed and the log says so in one line; a damaged store's
set-aside copy is 0600.

What a player would notice otherwise: anyone else with an account on the Pi (a guest's
login, another program's user) could read games.db, with every seat's code in it (so take a
seat and hold its Status card) and the secret of the next deal (so know every die to come),
or the Wi-Fi password in hotspot.json.
"""
from __future__ import annotations

import json
import os
import signal
import stat
import sys
import time
import urllib.request
from pathlib import Path

import pytest

import children
import damaged_store as damage
from nmcli_fake import FakeNmcli
from power.product import Product
from test_headless import free_port

COMMAND = Path(sys.executable).with_name("darkmoon-companion")
WAIT = 60  # seconds: only a guard against a hang, never a measure of speed
OPEN = 0o022  # the usual login umask: files 0644, folders 0755


def modes(data: Path) -> dict[str, int]:
    """The mode of the folder ("."), and of everything in it, by name."""
    found = {".": stat.S_IMODE(data.stat().st_mode)}
    for path in data.rglob("*"):
        found[str(path.relative_to(data))] = stat.S_IMODE(path.lstat().st_mode)
    return found


def assert_private(data: Path, *expected: str) -> dict[str, int]:
    found = modes(data)
    assert set(expected) <= set(found), found
    wrong = {name: f"{mode:04o}" for name, mode in found.items()
             if mode != (0o700 if (data / name).is_dir() else 0o600)}
    assert wrong == {}, wrong
    return found


def log_of(data: Path) -> str:
    if os.path.exists("/dev/log"):  # the product logs to the journal then, not to a file
        pytest.skip("this machine has a syslog socket: the log line is in the journal")
    return (data / "companion.log").read_text(encoding="utf-8")


def serve(argv: list[str], cwd: Path, port: int, **options):
    """The command started under umask 022 and once the phones are served: its process."""
    proc = children.spawn(argv, cwd=cwd, umask=OPEN, stdin=open(os.devnull),
                          stdout=open(os.devnull, "w"), **options)
    began = time.monotonic()
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/board", timeout=2):
                return proc
        except OSError:
            if proc.poll() is not None or time.monotonic() - began > WAIT:
                children.end(proc)
                raise AssertionError("the phones were never served")
            time.sleep(0.05)


def options(data: Path, port: int, tmp_path: Path) -> list[str]:
    return ["--data-dir", str(data), "--port", str(port), "--listen", "127.0.0.1",
            "--address", "127.0.0.1", "--buttons", str(tmp_path / "no-box.toml")]


def test_the_headless_demo_keeps_its_files_private(tmp_path):
    data = tmp_path / "data"
    done = children.run([str(COMMAND), *options(data, free_port(), tmp_path), "demo",
                         "--headless", "--players", "3", "--seed", "2", "--pace", "0"],
                        capture_output=True, timeout=120, cwd=tmp_path, umask=OPEN,
                        stdin=open(os.devnull))
    assert done.returncode == 0, done.stderr.decode()[-3000:]
    assert_private(data, "demo.db")
    if not os.path.exists("/dev/log"):
        assert "open to other users" not in log_of(data), "a folder it made itself was private"


def test_a_headless_table_closes_an_open_folder_says_so_and_salvages_privately(tmp_path):
    """A data directory an older version left 0755 with a games file 0644 (and a rotated log
    and an older set-aside copy beside it), the games file damaged: once served, every file
    is 0600, the fresh games file and the new set-aside copy too, and one log line says what
    was open."""
    data = tmp_path / "data"
    damage.played(data, games=1, moves=12)
    damage.alter_record(data / "games.db", 1, 6)
    for name in ("companion.log.1", "games.db.damaged-2024-01-01T00-00-00Z"):
        (data / name).write_text("from before\n")
    for path in [data, *data.iterdir()]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    port = free_port()
    proc = serve([str(COMMAND), *options(data, port, tmp_path), "--headless"], tmp_path, port)
    try:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0
    finally:
        children.end(proc)
    found = assert_private(data, "games.db", "companion.log", "companion.log.1")
    aside = [p.name for p in damage.damaged_beside(data / "games.db") if "2024" not in p.name]
    assert aside, found  # set aside today, beside the older one: both 0600
    lines = [line for line in log_of(data).splitlines() if "open to other users" in line]
    assert len(lines) == 1, lines
    assert f"the data directory {data} was open to other users of this machine (the folder " \
           "0755, companion.log.1 0644, games.db 0644, games.db.damaged-2024-01-01T00-00-00Z " \
           "0644); now only " in lines[0], lines


@pytest.mark.parametrize("command", [(), ("demo",)], ids=["kiosk", "demo"])
async def test_the_kiosk_keeps_its_files_private(tmp_path, command):
    data = tmp_path / "data"
    product = Product(data, free_port(), command=command, umask=OPEN)
    await product.start()
    try:
        assert product.stop() == 0
    finally:
        product.cut()
    assert_private(data, "demo.db" if command else "games.db")


def test_the_hotspot_command_keeps_the_wifi_password_private(tmp_path):
    data = tmp_path / "data"
    fake = FakeNmcli(tmp_path / "nmcli-bin")
    env = dict(os.environ, PATH=f"{fake.home}{os.pathsep}{os.environ.get('PATH', '')}")
    done = children.run([str(COMMAND), "--data-dir", str(data), "hotspot", "on"],
                        capture_output=True, timeout=60, cwd=tmp_path, umask=OPEN, env=env,
                        stdin=open(os.devnull))
    assert done.returncode == 0, done.stderr.decode()[-3000:]
    assert json.loads((data / "hotspot.json").read_text())["password"] in done.stdout.decode()
    assert_private(data, "hotspot.json")
