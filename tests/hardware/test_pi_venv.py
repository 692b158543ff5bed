"""./darkmoon on a Raspberry Pi: the developer's .venv (scripts/bootstrap.sh) sees the system's
packages, so Raspberry Pi OS's python3-lgpio drives the seat buttons where pip has no lgpio
for that Python; on any other machine the venv stays as it was.

bootstrap.sh runs for real on a copy of the checkout, with a stand-in Python that makes a
stand-in venv and says what it was asked, and a model file that says which machine it is."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

FAKE_PYTHON = """#!/usr/bin/env bash
# the system's python3: `-m venv [options] DIR` makes a venv of stand-ins; the rest succeeds
here="$(cd "$(dirname "$0")" && pwd)"
echo "$*" >>"$here/asked"
if [[ "$1 $2" == "-m venv" ]]; then
  dir="${@: -1}"
  mkdir -p "$dir/bin"
  cp "$here/venv-python" "$dir/bin/python"; cp "$here/venv-python" "$dir/bin/pip"
  site=false; [[ " $* " == *" --system-site-packages "* ]] && site=true
  printf 'home = /usr/bin\\ninclude-system-site-packages = %s\\nversion = 3.13.5\\n' \\
    "$site" >"$dir/pyvenv.cfg"
fi
exit 0
"""
VENV_PYTHON = "#!/usr/bin/env bash\nexit 0\n"


@pytest.fixture
def checkout(tmp_path) -> Path:
    for name in ("darkmoon", "scripts/bootstrap.sh", "pyproject.toml"):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        shutil.copy2(ROOT / name, tmp_path / name)
    system = tmp_path / "system"
    system.mkdir()
    for name, text in (("python3", FAKE_PYTHON), ("venv-python", VENV_PYTHON)):
        (system / name).write_text(text)
        (system / name).chmod(0o755)
    return tmp_path


def bootstrap(checkout: Path, model: bytes | None) -> str:
    """Run bootstrap.sh on a machine whose device tree names `model` (None: no device tree,
    as on a PC); returns the venv's pyvenv.cfg."""
    model_file = checkout / "model"
    if model is not None:
        model_file.write_bytes(model)
    env = {**os.environ, "PYTHON": str(checkout / "system" / "python3"),
           "DARKMOON_PI_MODEL": str(model_file)}
    result = subprocess.run([str(checkout / "scripts" / "bootstrap.sh")], cwd=checkout,
                            env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return (checkout / ".venv" / "pyvenv.cfg").read_text()


@pytest.mark.parametrize("model", [b"Raspberry Pi 4 Model B Rev 1.5\0",
                                   b"Raspberry Pi 5 Model B Rev 1.0\0"])
def test_on_a_pi_the_venv_sees_the_systems_lgpio(checkout, model):
    # Before: made without --system-site-packages, so the Pi's python3-lgpio was not seen.
    assert "include-system-site-packages = true" in bootstrap(checkout, model)
    assert "--system-site-packages" in (checkout / "system" / "asked").read_text()


@pytest.mark.parametrize("model", [None, b"Hardkernel ODROID-N2Plus\0"])
def test_anywhere_else_the_venv_stays_closed(checkout, model):
    assert "include-system-site-packages = false" in bootstrap(checkout, model)
    assert "--system-site-packages" not in (checkout / "system" / "asked").read_text()


def test_a_venv_made_on_a_pi_before_is_opened_to_the_system_once(checkout):
    bootstrap(checkout, None)  # made as before this change: closed
    config = bootstrap(checkout, b"Raspberry Pi 5 Model B Rev 1.0\0")
    assert "include-system-site-packages = true" in config
    assert (checkout / "system" / "asked").read_text().count("-m venv") == 1  # not remade
