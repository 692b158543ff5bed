"""What every benchmark shares: the CPU budget it runs on, and its quick mode.

Every bench takes
  --quick     a few samples, no targets judged: it must still run end to end and print its
              figures. tests/test_benches.py runs each bench this way, so a change that breaks
              a bench fails the test suite instead of rotting unseen.
  --pi-class  run again under ../shared/tools/pi-class (one core at 20%: a Raspberry Pi 4's
              speed for pure Python). It needs root and a writable cpu cgroup; without them
              the bench says so and exits non-zero rather than print this machine's figures
              as if they were a Pi's.
and prints the budget it actually ran on, read from its own cpu cgroup rather than from the
flag, so a bench started under pi-class by hand says so too.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# The shared tools folder sits beside the checkout (../shared/tools); DARKMOON_PI_CLASS points
# elsewhere for a checkout that lives somewhere else.
PI_CLASS = Path(os.environ.get("DARKMOON_PI_CLASS", ROOT.parent / "shared" / "tools" / "pi-class"))
CGROUP_NAME = "pi-class-"  # the script names its cgroup pi-class-<its pid>


def add_options(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    parser.add_argument("--quick", action="store_true",
                        help="a few samples, no targets judged (what the test suite runs)")
    parser.add_argument("--pi-class", action="store_true",
                        help=f"run on a Pi-4-class budget under {PI_CLASS} (root)")
    return parser


def _cpu_cgroup() -> str | None:
    """This process's cgroup path in the cpu controller (v1) or the unified hierarchy (v2)."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    v1 = [line.split(":", 2)[2] for line in lines
          if "cpu" in line.split(":", 2)[1].split(",")]
    v2 = [line.split(":", 2)[2] for line in lines if line.startswith("0::")]
    return (v1 or v2 or [None])[0]


def _quota(cgroup: str) -> float | None:
    """The cgroup's CPU quota as a share of one core, or None when unlimited or unreadable."""
    v1 = Path("/sys/fs/cgroup/cpu") / cgroup.lstrip("/")
    v2 = Path("/sys/fs/cgroup") / cgroup.lstrip("/") / "cpu.max"
    try:
        if (v1 / "cpu.cfs_quota_us").exists():
            quota = int((v1 / "cpu.cfs_quota_us").read_text())
            period = int((v1 / "cpu.cfs_period_us").read_text())
        else:
            quota_text, period_text = v2.read_text().split()
            if quota_text == "max":
                return None
            quota, period = int(quota_text), int(period_text)
    except (OSError, ValueError):
        return None
    return quota / period if quota > 0 else None


def on_pi_class() -> bool:
    cgroup = _cpu_cgroup()
    return bool(cgroup) and CGROUP_NAME in cgroup


def target(here: float, pi_class: float) -> float:
    """A target for the budget this bench runs on: the issue's Pi-class figure under pi-class,
    else the one for this machine (about five times faster per core)."""
    return pi_class if on_pi_class() else here


def describe() -> str:
    """The budget line every bench prints first."""
    cores = len(os.sched_getaffinity(0))
    cgroup = _cpu_cgroup() or ""
    share = _quota(cgroup) if cgroup else None
    plural = "core" if cores == 1 else "cores"
    if on_pi_class():
        at = f" at {share:.0%}" if share is not None else " (quota unreadable)"
        return f"budget: pi-class ({cores} {plural}{at})"
    limit = f", CPU quota {share:.0%} of a core" if share is not None else ""
    return f"budget: this machine ({cores} {plural}{limit})"


def pi_class_prefix() -> list[str]:
    """The command words that start a program on the pi-class budget (exits with the reason
    when this machine cannot)."""
    reason = None
    if not os.access(PI_CLASS, os.X_OK):
        reason = f"{PI_CLASS} is not there (set DARKMOON_PI_CLASS to the script)"
    elif os.geteuid() != 0:
        reason = "it needs root to make a cpu cgroup"
    if reason:
        sys.exit(f"--pi-class: cannot run on the pi-class budget: {reason}")
    return [str(PI_CLASS)]


def begin(args: argparse.Namespace) -> None:
    """With --pi-class, re-run this very command under pi-class and exit with its status;
    otherwise print the budget line and return."""
    if args.pi_class and not on_pi_class():
        argv = [*pi_class_prefix(), sys.executable, os.path.abspath(sys.argv[0]),
                *sys.argv[1:]]
        # pi-class itself says why when it cannot limit the CPU, and exits non-zero
        sys.exit(subprocess.run(argv).returncode)
    print(describe(), flush=True)


def parse(parser: argparse.ArgumentParser, argv: list[str] | None = None) -> argparse.Namespace:
    """Parse the bench's options (with --quick and --pi-class), then begin()."""
    args = add_options(parser).parse_args(argv)
    begin(args)
    return args
