"""The first run: `./darkmoon` installs what the kiosk needs and nothing more; `./run-tests`
adds the test tools. Both reinstall only when pyproject.toml changed, and never build the
venv at the same moment.

The scripts run for real on a copy of the checkout, with a stand-in venv whose python logs
what it was asked to do (pip installs, the kiosk, pytest) instead of reaching the network."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

FAKE_PYTHON = """#!/usr/bin/env bash
# a stand-in for the venv's python: says what it was asked, takes its time installing
echo "$*" >>"$(dirname "$0")/../asked"
if [[ "$1 $2 $3" == "-m pip install" ]]; then
  [[ -e "$(dirname "$0")/../fail" ]] && exit 1
  log="$(dirname "$0")/../installs"
  echo "begin" >>"$log"; sleep 0.3; echo "end" >>"$log"
fi
exit 0
"""


@pytest.fixture
def checkout(tmp_path) -> Path:
    for name in ("darkmoon", "run-tests", "scripts/bootstrap.sh", "pyproject.toml"):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        shutil.copy2(ROOT / name, tmp_path / name)
    bin_ = tmp_path / ".venv" / "bin"
    bin_.mkdir(parents=True)
    for name in ("python", "pip", "darkmoon-companion"):
        (bin_ / name).write_text(FAKE_PYTHON)
        (bin_ / name).chmod(0o755)
    return tmp_path


def run(checkout: Path, command: str, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHON": sys.executable}
    return subprocess.run([str(checkout / command), *args], cwd=checkout, env=env,
                          capture_output=True, text=True, timeout=60)


def installs(checkout: Path) -> list[str]:
    asked = checkout / ".venv" / "asked"
    lines = asked.read_text().splitlines() if asked.exists() else []
    return [line.split()[-1] for line in lines if line.startswith("-m pip install")]


def test_the_kiosk_installs_the_product_alone_and_the_tests_add_their_tools(checkout):
    assert run(checkout, "darkmoon", "--help").returncode == 0
    assert installs(checkout) == ["."]  # no pytest, Playwright, hypothesis or axe
    assert "--help" in (checkout / ".venv" / "asked").read_text()  # then the kiosk ran
    assert run(checkout, "darkmoon").returncode == 0
    assert installs(checkout) == ["."]  # nothing changed: nothing installed
    assert run(checkout, "run-tests", "tests/test_x.py").returncode == 0
    assert installs(checkout) == [".", ".[test]"]  # the kiosk's venv gets the test tools once
    assert "-m pytest -n 2 -q tests/test_x.py" in (checkout / ".venv" / "asked").read_text()
    for command in ("run-tests", "darkmoon", "run-tests"):
        assert run(checkout, command).returncode == 0
    assert installs(checkout) == [".", ".[test]"]  # and the kiosk after the tests, nothing


def test_a_changed_pyproject_reinstalls_what_each_command_needs(checkout):
    run(checkout, "run-tests")
    with open(checkout / "pyproject.toml", "a") as pyproject:
        pyproject.write("\n# a new dependency\n")
    run(checkout, "darkmoon")
    run(checkout, "darkmoon")
    run(checkout, "run-tests")
    assert installs(checkout) == [".[test]", ".", ".[test]"]


def test_a_venv_installed_before_the_split_keeps_its_test_tools(checkout):
    # its stamp holds the hash alone: it was installed with the test tools
    digest = subprocess.run(["sha256sum", str(checkout / "pyproject.toml")], text=True,
                            capture_output=True).stdout.split()[0]
    (checkout / ".venv" / ".darkmoon-installed").write_text(digest + "\n")
    run(checkout, "run-tests")
    run(checkout, "darkmoon")
    assert installs(checkout) == []


def test_a_failed_install_is_tried_again_next_time(checkout):
    (checkout / ".venv" / "fail").touch()
    assert run(checkout, "darkmoon").returncode != 0
    (checkout / ".venv" / "fail").unlink()
    assert run(checkout, "darkmoon").returncode == 0
    assert installs(checkout) == [".", "."]


def test_two_commands_at_once_install_one_after_the_other(checkout):
    env = {**os.environ, "PYTHON": sys.executable}
    both = [subprocess.Popen([str(checkout / command)], cwd=checkout, env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for command in ("run-tests", "darkmoon")]
    assert [p.wait(timeout=60) for p in both] == [0, 0]
    steps = (checkout / ".venv" / "installs").read_text().split()
    # never two installs under way at once; the kiosk, second or first, needs at most one
    assert steps in (["begin", "end"], ["begin", "end", "begin", "end"])


def test_ci_runs_the_test_command_the_readme_gives():
    readme = (ROOT / "README.md").read_text()
    assert "./run-tests         # the whole test suite" in readme
    ci = [line for line in (ROOT / ".ci" / "run").read_text().splitlines()
          if line.strip() and not line.startswith("#")]
    assert ci[-1] == "./run-tests"
