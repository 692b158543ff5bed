"""What the GPIO buttons need from the machine (hardware/pi.py): knowing a Raspberry Pi, a
folder of ours for lgpio's pipe files (LG_WD) set before lgpio is imported, and the one
package to install when lgpio is missing, said on the kiosk's line."""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest

from hardware import pi
from hardware.config import GpioSeat
from hardware.gpio import GpioSource, GpioUnavailable
from hardware.source import FallbackReason, open_source

ROOT = Path(__file__).resolve().parents[2]
PI5 = b"Raspberry Pi 5 Model B Rev 1.0\0"

# Stands in for lgpio where no Pi is: at import it does what the real module does (lgpio's
# C library reads LG_WD, changes into that folder and makes its .lgd-nfyN pipe there; the
# Python side then opens the pipe by its relative name), then no chip opens.
FAKE_LGPIO = '''
import os
SEEN_LG_WD = os.environ.get("LG_WD")
with open(os.environ["FAKE_LGPIO_REPORT"], "w") as report:
    report.write(repr(SEEN_LG_WD))
os.chdir(SEEN_LG_WD or os.getcwd())
os.mkfifo(".lgd-nfy0")
_pipe = os.open(".lgd-nfy0", os.O_RDONLY | os.O_NONBLOCK)
class error(Exception):
    pass
def gpiochip_open(chip):
    raise error("no gpiochip here")
'''


def model_file(tmp_path: Path, content: bytes) -> str:
    path = tmp_path / "model"
    path.write_bytes(content)
    return str(path)


def test_a_raspberry_pi_is_known_by_its_device_tree_model(tmp_path, monkeypatch):
    assert pi.pi_model(model_file(tmp_path, PI5)) == "Raspberry Pi 5 Model B Rev 1.0"
    assert pi.pi_model(model_file(tmp_path, b"Hardkernel ODROID-C4\0")) is None
    assert pi.pi_model(str(tmp_path / "missing")) is None  # a PC has no device tree
    monkeypatch.setenv("DARKMOON_PI_MODEL", model_file(tmp_path, PI5))
    assert pi.pi_model() == "Raspberry Pi 5 Model B Rev 1.0"


def test_lgpio_gets_a_private_folder_in_the_users_runtime_dir(tmp_path):
    runtime = tmp_path / "run-user"
    runtime.mkdir(mode=0o700)
    env = {"XDG_RUNTIME_DIR": str(runtime)}
    folder = pi.lgpio_workdir(env)
    assert folder == str(runtime / "darkmoon-companion") == env["LG_WD"]
    assert os.stat(folder).st_mode & 0o777 == 0o700
    assert pi.lgpio_workdir(env) == folder  # the same folder again, as it is
    env = {"XDG_RUNTIME_DIR": str(runtime), "LG_WD": "/run/darkmoon-companion"}
    assert pi.lgpio_workdir(env) == "/run/darkmoon-companion"  # the service's, kept


def test_without_a_runtime_dir_it_is_a_temp_folder_nobody_else_can_enter(tmp_path,
                                                                         monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    folder = pi.lgpio_workdir({})
    assert folder == str(tmp_path / f"darkmoon-companion-{os.getuid()}")
    assert os.stat(folder).st_mode & 0o777 == 0o700
    # A folder of that name that others can write (made by someone else, say) is not used.
    os.chmod(folder, 0o777)
    other = pi.lgpio_workdir({})
    assert other != folder and Path(other).parent == tmp_path
    assert os.stat(other).st_mode & 0o777 == 0o700


def run_gpio(tmp_path: Path, script: str, **env: str) -> subprocess.CompletedProcess:
    """`script` in a fresh Python (gpiozero's driver choice is made once a process), from a
    folder of its own, with the fake lgpio importable."""
    fake = tmp_path / "fake"
    fake.mkdir()
    (fake / "lgpio.py").write_text(FAKE_LGPIO)
    here = tmp_path / "here"
    here.mkdir()
    environ = {k: v for k, v in os.environ.items()
               if k not in ("LG_WD", "GPIOZERO_PIN_FACTORY", "XDG_RUNTIME_DIR")}
    environ.update(PYTHONPATH=os.pathsep.join([str(fake), str(ROOT)]), **env)
    return subprocess.run([sys.executable, "-c", textwrap.dedent(script)], cwd=here,
                          env=environ, capture_output=True, text=True, timeout=60)


def test_the_buttons_set_lg_wd_before_lgpio_is_imported_and_stay_in_their_folder(tmp_path):
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700)
    report = tmp_path / "report"
    result = run_gpio(tmp_path, """
        import os
        from hardware.config import GpioSeat
        from hardware.gpio import GpioSource, GpioUnavailable
        try:
            GpioSource([GpioSeat(black=4, red=17)])
        except GpioUnavailable as error:
            print("refused:", error)
        print("cwd:", os.getcwd())
        """, XDG_RUNTIME_DIR=str(runtime), FAKE_LGPIO_REPORT=str(report))
    assert result.returncode == 0, result.stderr
    folder = runtime / "darkmoon-companion"
    # Before: LG_WD unset, the pipe went into the current folder (and failed where that
    # cannot be written: "No such file or directory: '.lgd-nfy-3'").
    assert report.read_text() == repr(str(folder))
    assert (folder / ".lgd-nfy0").exists()
    assert not list((tmp_path / "here").iterdir())  # nothing left where the command ran
    # lgpio's import moved the process into LG_WD; the buttons put it back (./data).
    assert f"cwd: {tmp_path / 'here'}" in result.stdout
    assert "refused:" in result.stdout  # no chip here: the keyboard, with a reason


def test_on_a_pi_without_lgpio_the_kiosk_is_told_the_one_package_to_install(
        tmp_path, no_default_factory, monkeypatch):
    if _importable("lgpio"):
        pytest.skip("lgpio is installed here")
    monkeypatch.delenv("GPIOZERO_PIN_FACTORY", raising=False)
    monkeypatch.setenv("LG_WD", str(tmp_path))
    monkeypatch.setenv("DARKMOON_PI_MODEL", model_file(tmp_path, PI5))
    with pytest.raises(GpioUnavailable) as refusal:
        GpioSource([GpioSeat(black=4, red=17)])
    assert refusal.value.install == "sudo apt install python3-lgpio"
    config = tmp_path / "buttons.toml"
    config.write_text("[gpio]\nseats = [{ black = 4, red = 17 }]\n")
    source, fallback = open_source(str(config))
    assert source.kind == "keyboard"
    assert (fallback.reason, fallback.detail) == (FallbackReason.NO_LGPIO,
                                                   "sudo apt install python3-lgpio")


def test_off_a_pi_a_missing_lgpio_is_not_blamed(tmp_path, no_default_factory, monkeypatch):
    if _importable("lgpio"):
        pytest.skip("lgpio is installed here")
    monkeypatch.delenv("GPIOZERO_PIN_FACTORY", raising=False)
    monkeypatch.setenv("LG_WD", str(tmp_path))
    monkeypatch.setenv("DARKMOON_PI_MODEL", str(tmp_path / "no-device-tree"))
    with pytest.raises(GpioUnavailable) as refusal:
        GpioSource([GpioSeat(black=4, red=17)])
    assert refusal.value.install is None and "lgpio" in str(refusal.value)


def _importable(name: str) -> bool:
    import importlib.util
    return importlib.util.find_spec(name) is not None
