"""systemd/install.sh, run into a throwaway root that looks like a fresh Raspberry Pi OS
(see conftest.py: installed once, the buttons file edited, installed again)."""
from __future__ import annotations

import os
import shutil
import signal
import stat
import subprocess
import tempfile
from pathlib import Path

import pytest

import children

from .conftest import USER_EDIT
from .throwaway_root import (INSTALL, REPO, SOURCE_UNIT, UNIT_NAME, free_port,
                             make_fresh_root, read_unit, read_until, run_install,
                             spawn_on_pty, stop, unit_launch)

VENV_BIN = "opt/darkmoon-companion/venv/bin/darkmoon-companion"


def fields(text: str, name: str) -> list[list[str]]:
    return [line.split(":") for line in text.splitlines() if line.split(":")[0] == name]


def test_the_venv_runs_the_installed_command(installed):
    done = subprocess.run([str(installed.root / VENV_BIN), "--help"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "--kiosk" in done.stdout and "--data-dir" in done.stdout


def test_the_installed_program_is_the_checkout_not_a_link_to_it(installed):
    """The Pi keeps working if the checkout is moved or deleted: pip copied the code."""
    python = installed.root / "opt/darkmoon-companion/venv/bin/python"
    where = subprocess.run([str(python), "-c", "import companion, screens, hardware; "
                            "print(companion.__file__, screens.__file__, hardware.__file__)"],
                           capture_output=True, text=True, timeout=60, cwd="/")
    assert where.returncode == 0, where.stderr
    for path in where.stdout.split():
        assert path.startswith(str(installed.root / "opt/darkmoon-companion/venv/lib/"))
    assert not installed.littered, "pip built inside the checkout"


def test_every_module_of_the_program_is_byte_compiled_at_install_time(installed):
    """The kiosk's user cannot write the root-owned venv: a module without its byte code
    there would be compiled again at every start, and the start loads no other code."""
    python = installed.root / "opt/darkmoon-companion/venv/bin/python"
    where = subprocess.run([str(python), "-c", "import sys, sysconfig; print(sysconfig."
                            "get_paths()['purelib'], sys.implementation.cache_tag)"],
                           capture_output=True, text=True, timeout=60, cwd="/")
    site, tag = where.stdout.split()
    missing = [str(source) for package in ("companion", "screens", "hardware")
               for source in Path(site, package).rglob("*.py")
               if not (source.parent / "__pycache__" / f"{source.stem}.{tag}.pyc").is_file()]
    assert not missing, missing


def test_the_unit_is_installed_and_enabled_at_boot(installed):
    unit = installed.root / "etc/systemd/system" / UNIT_NAME
    assert unit.read_text() == SOURCE_UNIT.read_text()
    wants = installed.root / "etc/systemd/system/multi-user.target.wants" / UNIT_NAME
    assert os.readlink(wants) == f"/etc/systemd/system/{UNIT_NAME}"
    state = subprocess.run(["systemctl", f"--root={installed.root}", "is-enabled", UNIT_NAME],
                           capture_output=True, text=True)
    assert state.stdout.strip() == "enabled"


def test_no_login_prompt_competes_for_tty1(installed):
    """A getty on tty1 would take the console back from the kiosk at boot."""
    state = subprocess.run(["systemctl", f"--root={installed.root}", "is-enabled",
                            "getty@tty1.service"], capture_output=True, text=True)
    assert state.stdout.strip() == "masked"
    assert not (installed.root / "etc/systemd/system/getty.target.wants/getty@tty1.service"
                ).exists()


def test_the_console_helper_is_installed_where_the_unit_runs_it(installed):
    service = read_unit(installed.root / "etc/systemd/system" / UNIT_NAME)["Service"]
    helper = service["ExecStartPre"][0].lstrip("-+").split()[0]
    path = installed.root / helper.lstrip("/")
    assert path.is_file() and os.access(path, os.X_OK)


# install.sh makes the service user with `useradd --root`, which only root may run; run by
# anyone else it says so and goes on without the user.
needs_root_for_the_user = pytest.mark.skipif(
    os.geteuid() != 0, reason="install.sh makes the service user only as root (useradd --root)")


@needs_root_for_the_user
def test_the_service_user_is_in_the_gpio_dialout_and_audio_groups(installed):
    passwd = installed.after["files"]["etc/passwd"]
    group = installed.after["files"]["etc/group"]
    [user] = fields(passwd, "darkmoon")
    assert user[5] == "/var/lib/darkmoon-companion"
    assert user[6] == "/usr/sbin/nologin"       # a service, not a login
    assert int(user[2]) < 1000                  # a system user
    # gpio and audio made, dialout already there; audio: the narrator's sound card
    for name in ("gpio", "dialout", "audio"):
        [line] = fields(group, name)
        assert "darkmoon" in line[3].split(",")
    assert fields(group, "dialout")[0][2] == "20"  # the existing group was kept, not remade


def test_the_buttons_file_is_copied_once_and_a_users_edit_survives(installed):
    example = (REPO / "hardware" / "buttons.example.toml").read_text()
    etc = installed.root / "etc/darkmoon-companion"
    assert (etc / "buttons.example.toml").read_text() == example
    assert installed.before["files"]["etc/darkmoon-companion/buttons.toml"] == example + USER_EDIT
    assert installed.after["files"]["etc/darkmoon-companion/buttons.toml"] == example + USER_EDIT
    assert "keeping your /etc/darkmoon-companion/buttons.toml" in installed.second["stdout"]


def test_console_blanking_is_off_from_boot(installed):
    cmdline = installed.after["files"]["boot/firmware/cmdline.txt"]
    assert cmdline.count("\n") == 1                       # the Pi reads one line
    assert cmdline.split().count("consoleblank=0") == 1
    assert "root=PARTUUID=4e639091-02" in cmdline and "rootwait" in cmdline
    backup = installed.root / "boot/firmware/cmdline.txt.before-darkmoon"
    assert "consoleblank" not in backup.read_text()


@needs_root_for_the_user
def test_a_second_run_succeeds_and_changes_nothing_it_should_keep(installed):
    second = installed.second
    assert second["returncode"] == 0, second["stderr"][-3000:]
    assert installed.after == installed.before
    assert "user darkmoon is already there" in second["stdout"]
    assert "already has consoleblank=0" in second["stdout"]


@needs_root_for_the_user
def test_it_says_what_it_could_not_do_in_a_throwaway_root(installed):
    out = installed.first["stdout"]
    assert "skipped: apt-get install" in out
    assert out.rstrip().splitlines()[-1].startswith("install.sh:   - apt-get install")


def kiosk_drawn(installed, **options) -> tuple[subprocess.Popen, int]:
    """The unit's ExecStart on a 120x36 pty, once its start screen shows the address;
    `options` go to Popen."""
    argv, env, cwd = unit_launch(installed.root, ["--port", str(free_port()),
                                                  "--address", "192.168.1.23"])
    proc, master = spawn_on_pty(argv, env, cwd, **options)
    try:
        read_until(master, [b"192.168.1.23"])
    except BaseException:
        stop(proc, master, 5)
        raise
    return proc, master


def test_the_units_command_shows_the_kiosk_on_the_console_and_stops_on_sigterm(installed):
    """ExecStart as systemd runs it (paths moved into the root): on a 120x36 TERM=linux
    terminal the start screen with the host's code comes up, and SIGTERM (what
    `systemctl stop` sends) ends it cleanly, well within TimeoutStopSec."""
    service = read_unit(installed.root / "etc/systemd/system" / UNIT_NAME)["Service"]
    proc, master = kiosk_drawn(installed)
    took = stop(proc, master, float(service["TimeoutStopSec"][0]))
    assert took is not None, "the kiosk ignored SIGTERM: systemd would SIGKILL it"
    assert proc.returncode == 0
    assert (installed.root / "var/lib/darkmoon-companion/games.db").exists()


def test_the_units_command_keeps_the_games_readable_by_its_user_alone(installed):
    """Whatever umask it is started with (022 here, where systemd's UMask= would give 0077)
    and however open an older unit (StateDirectoryMode=0750) or a hand left the games
    folder, the installed program closes it and its files to everyone else: games.db holds
    every seat's code and the secret of the next deal."""
    state = installed.root / "var/lib/darkmoon-companion"
    state.mkdir(parents=True, exist_ok=True)
    for path in [state, *state.iterdir()]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    proc, master = kiosk_drawn(installed, umask=0o022)
    assert stop(proc, master, 15) is not None and proc.returncode == 0
    found = {p.name: stat.S_IMODE(p.lstat().st_mode) for p in state.iterdir()}
    assert "games.db" in found
    assert stat.S_IMODE(state.stat().st_mode) == 0o700
    assert {name: f"{mode:04o}" for name, mode in found.items() if mode != 0o600} == {}


def test_the_kiosk_stops_when_its_terminal_goes_away(installed):
    """A terminal emulator (foot, in the Wayland alternative) or a harness that closes its end
    of the kiosk's pseudo-terminal sends no hang-up signal: the kiosk notices and exits
    instead of running on with nobody able to see or stop it (Textual's input thread would
    spin on end-of-file at full CPU)."""
    proc, master = kiosk_drawn(installed)
    os.close(master)
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        pytest.fail("the kiosk kept running on a terminal that had gone away")
    finally:
        children.end(proc, signal.SIGKILL, 0)


@pytest.mark.parametrize("args, says", [
    (["--colour", "blue"], "unknown option: --colour"),
    (["--root"], "--root needs a directory"),
    (["--root", "/nonexistent/pi"], "no such directory"),
])
def test_bad_arguments_are_refused_before_anything_is_done(tmp_path, args, says):
    done = subprocess.run(["bash", str(INSTALL), *args], capture_output=True, text=True,
                          timeout=30, cwd=tmp_path)
    assert done.returncode != 0
    assert says in done.stderr
    assert "installing" not in done.stdout
    assert list(tmp_path.iterdir()) == []


def test_without_root_and_without_root_rights_it_refuses():
    """`systemd/install.sh` without sudo must not half-install the Pi.

    The other user must be able to read the script wherever the checkout is (a private 0700
    directory included): it runs a copy in a directory of its own that anyone may read."""
    if os.geteuid() != 0:
        pytest.skip("needs root to drop to another user")
    with tempfile.TemporaryDirectory(prefix="darkmoon-install-") as readable:
        os.chmod(readable, 0o755)
        copy = Path(readable) / "systemd" / "install.sh"
        copy.parent.mkdir()
        os.chmod(copy.parent, 0o755)
        shutil.copy(INSTALL, copy)
        os.chmod(copy, 0o755)
        done = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                               "bash", str(copy)], capture_output=True, text=True, timeout=30,
                              cwd=readable)
    assert done.returncode != 0
    assert "run it as root: sudo" in done.stderr


def test_a_python_too_old_or_missing_is_refused_before_anything_changes(tmp_path):
    root = make_fresh_root(tmp_path / "root")
    passwd = (root / "etc" / "passwd").read_text()
    done = run_install(root, "--python", str(tmp_path / "no-python"))
    assert done.returncode != 0
    assert "is not Python 3.11 or newer" in done.stderr
    assert (root / "etc" / "passwd").read_text() == passwd
    assert not (root / "opt").exists() and not (root / "etc" / "darkmoon-companion").exists()
