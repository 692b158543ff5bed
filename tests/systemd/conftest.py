"""One Pi, installed once per test session (install.sh makes a venv and pip-installs the
product: about 20 s), shared by every test here and by every xdist worker.

The fixture plays what a person does: a fresh system, `install.sh`, an edit to the buttons
file, `install.sh` again (after a `git pull`, say). Tests only read what it left.
"""
from __future__ import annotations

import fcntl
import json
import os
from dataclasses import dataclass
from pathlib import Path

import pytest

from .throwaway_root import REPO, make_fresh_root, run_install

USER_EDIT = "\n# our table: seat 7 has a GREY button on GPIO 11\n"


@dataclass(frozen=True)
class Installed:
    root: Path
    first: dict      # {"returncode", "stdout", "stderr"} of the first run
    second: dict     # and of the second
    before: dict     # snapshot of what the second run might touch, taken before it
    after: dict      # and after it
    littered: bool   # the first run left a build/ folder in the checkout


def snapshot(root: Path) -> dict:
    etc = root / "etc"
    links = {str(p.relative_to(root)): os.readlink(p)
             for p in sorted((etc / "systemd" / "system").rglob("*")) if p.is_symlink()}
    files = {}
    for rel in ("etc/passwd", "etc/group", "etc/shadow", "etc/gshadow",
                "etc/darkmoon-companion/buttons.toml", "boot/firmware/cmdline.txt",
                "etc/systemd/system/darkmoon-companion.service"):
        path = root / rel
        files[rel] = path.read_text() if path.exists() else None
    return {"links": links, "files": files}


def _install(base: Path) -> dict:
    root = make_fresh_root(base / "root")
    litter = REPO / "build"     # where pip would build, given the checkout itself
    litter_before = litter.exists()
    first = run_install(root)
    result = {"root": str(root), "first": vars_of(first),
              "littered": litter.exists() and not litter_before}
    if first.returncode == 0:
        buttons = root / "etc" / "darkmoon-companion" / "buttons.toml"
        if buttons.exists():
            with buttons.open("a") as f:
                f.write(USER_EDIT)
        result["before"] = snapshot(root)
        result["second"] = vars_of(run_install(root))
        result["after"] = snapshot(root)
    return result


def vars_of(done) -> dict:
    return {"returncode": done.returncode, "stdout": done.stdout, "stderr": done.stderr}


@pytest.fixture(scope="session")
def installed(tmp_path_factory, worker_id) -> Installed:
    # Under xdist each worker has its own base temp dir; their parent is shared.
    shared = tmp_path_factory.getbasetemp()
    if worker_id != "master":
        shared = shared.parent
    done = shared / "pi-install.json"
    with open(shared / "pi-install.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.exists():
            done.write_text(json.dumps(_install(shared / "pi-install")))
    result = json.loads(done.read_text())
    first = result["first"]
    assert first["returncode"] == 0, (
        f"install.sh failed:\n{first['stdout']}\n{first['stderr'][-3000:]}")
    return Installed(root=Path(result["root"]), first=first, second=result["second"],
                     before=result["before"], after=result["after"],
                     littered=result["littered"])
