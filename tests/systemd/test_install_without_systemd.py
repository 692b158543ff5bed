"""`sudo systemd/install.sh` on a system where systemd is not running: a chroot, a container,
an SD card being made ready before its first boot. Links are all enabling and masking need,
so the Pi must come up with the kiosk at its next boot; nothing may wait on a systemd that
is not there.

Before, install.sh asked the absent systemd to reload and stopped there ("System has not been
booted with systemd as init system"): the kiosk never enabled, a login prompt left on tty1,
no summary."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from .throwaway_root import (SOURCE_UNIT, UNIT_NAME, chroot_system, read_unit,
                             run_install_in_chroot)

NOT_RUNNING = "install.sh: systemd is not running here: the service starts at the next boot"

pytestmark = [
    pytest.mark.skipif(os.geteuid() != 0, reason="chroot and mount need root"),
    pytest.mark.skipif(not (shutil.which("chroot") and shutil.which("systemctl")),
                       reason="needs chroot and systemctl (Debian's coreutils and systemd)"),
]


def links(root: Path) -> dict[str, str]:
    units = root / "etc/systemd/system"
    return {str(p.relative_to(units)): os.readlink(p)
            for p in sorted(units.rglob("*")) if p.is_symlink()}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """install.sh twice in one chroot (the second as after a failed or interrupted first),
    with the links it left after each."""
    with chroot_system(tmp_path_factory.mktemp("no-systemd")) as root:
        assert not (root / "run/systemd/system").exists()
        done = []
        for _ in range(2):
            run = run_install_in_chroot(root)
            done.append((run, links(root)))
        yield done


def test_it_finishes_where_systemd_is_not_running(runs):
    (first, _), _ = runs
    assert first.returncode == 0, f"{first.stdout[-2000:]}\n{first.stderr[-3000:]}"
    out = first.stdout.splitlines()
    assert NOT_RUNNING in out
    assert f"install.sh: {UNIT_NAME} enabled; getty@tty1 masked" in out
    assert "install.sh: done." in out
    # nothing tells the owner to start it now: there is no systemd to start it
    assert "systemctl start" not in first.stdout


def test_the_kiosk_is_enabled_for_the_next_boot(runs):
    (_, after), _ = runs
    for target in read_unit(SOURCE_UNIT)["Install"]["WantedBy"]:
        assert after.get(f"{target}.wants/{UNIT_NAME}") == f"/etc/systemd/system/{UNIT_NAME}"


def test_no_login_prompt_is_left_on_tty1(runs):
    (_, after), _ = runs
    assert after.get("getty@tty1.service") == "/dev/null"
    assert "getty.target.wants/getty@tty1.service" not in after


def test_running_it_again_finishes_too_and_leaves_the_same_links(runs):
    (_, first_links), (second, second_links) = runs
    assert second.returncode == 0, f"{second.stdout[-2000:]}\n{second.stderr[-3000:]}"
    out = second.stdout.splitlines()
    assert NOT_RUNNING in out and "install.sh: done." in out
    assert second_links == first_links
