"""Cold start of the installed unit to the join screen.

systemd/install.sh installs the product into a throwaway root, as tests/systemd does; then the
unit's own ExecStart line (read from the installed unit file, its paths moved into the root,
with the unit's Environment= and working directory) runs on a 120x36 TERM=linux
pseudo-terminal, as StandardInput/Output/Error=tty give it tty1, with a seven-seat game set up.
Prints the seconds from spawning it to the join screen with every seat's code:
  warm: the program's files in the page cache (a restart after a crash);
  cold: those files evicted from the page cache first (a boot). By default only the files the
        kiosk reads are evicted (posix_fadvise DONTNEED on the venv, Python's library and the
        shared libraries the kiosk maps), so other programs on this machine keep their cache;
        --drop-caches drops the whole page cache instead (root only).
With cage and foot installed, also the memory of the Wayland alternative (cage + foot + the
kiosk, headless, software rendering) against the kiosk alone.

    .venv/bin/python bench/bench_boot.py [--runs N] [--drop-caches] [--quick] [--pi-class]

--quick (what the test suite runs): no install.sh (its venv and pip take most of a minute);
the unit file is copied into the throwaway root as install.sh copies it and its venv is this
checkout's .venv; one warm and one cold start, no cage. --pi-class: on a Pi-4-class CPU budget
(bench/budget.py), the kiosk included.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from budget import parse  # noqa: E402
from systemd.throwaway_root import (UNIT_NAME, command_of, environment_of, free_port,  # noqa: E402
                                    make_fresh_root, read_unit, read_until, run_install,
                                    SOURCE_UNIT, seven_seat_game, spawn_on_pty, stop,
                                    unit_launch)

# the last seat's name, and a QR code's half blocks
JOIN_SCREEN = [b"Gus", "▄▄▄▄▄".encode()]


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def mapped_files(pid: int) -> set[str]:
    files = set()
    for line in Path(f"/proc/{pid}/maps").read_text().splitlines():
        parts = line.split(maxsplit=5)
        if len(parts) == 6 and parts[5].startswith("/"):
            files.add(parts[5])
    return files


def files_under(*tops: str) -> list[str]:
    found = []
    for top in tops:
        if os.path.isfile(top):
            found.append(top)
        for folder, _, names in os.walk(top):
            found += [os.path.join(folder, n) for n in names]
    return found


def evict(paths: list[str]) -> None:
    for path in paths:
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError:
            continue
        try:
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        except OSError:
            pass
        finally:
            os.close(fd)


def resident_mb(paths: list[str]) -> float | None:
    """Page-cache residency of the files, by util-linux's fincore; None without it."""
    if not shutil.which("fincore"):
        return None
    total = 0
    for i in range(0, len(paths), 500):
        done = subprocess.run(["fincore", "--bytes", "--noheadings", "--output", "RES",
                               *paths[i:i + 500]], capture_output=True, text=True)
        total += sum(int(x) for x in done.stdout.split() if x.isdigit())
    return total / 2**20


def drop_whole_page_cache() -> bool:
    os.sync()
    try:
        Path("/proc/sys/vm/drop_caches").write_text("3\n")
        return True
    except OSError:
        return False


def start_once(root: Path) -> tuple[float, float | None, set[str], float]:
    """Seconds to the join screen, seconds to stop on SIGTERM, the files it mapped and its
    resident memory once up."""
    service = read_unit(root / "etc/systemd/system" / UNIT_NAME)["Service"]
    argv, env, cwd = unit_launch(root, ["--port", str(free_port())])
    proc, master = spawn_on_pty(argv, env, cwd)
    try:
        took, _ = read_until(master, JOIN_SCREEN)
        files, rss = mapped_files(proc.pid), rss_mb(proc.pid)
    except BaseException:
        stop(proc, master, 5)
        raise
    stopped = stop(proc, master, float(service["TimeoutStopSec"][0]))
    return took, stopped, files, rss


def spread(label: str, times: list[float]) -> str:
    times = sorted(times)
    return (f"{label:<34} {len(times)} runs: best {times[0]:.2f} s, "
            f"median {times[len(times) // 2]:.2f} s, worst {times[-1]:.2f} s")


def parent(pid: int) -> int | None:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return None


def cage_memory(root: Path, work: Path) -> str:
    """cage + foot + the kiosk, headless with software rendering, as user nobody (cage will
    not run as root); the sum of their resident memory once the kiosk is up."""
    if not (shutil.which("cage") and shutil.which("foot")) or os.geteuid() != 0:
        return ("cage + foot: not measured (needs cage and foot installed, and root to "
                "drop to nobody)")
    cage_unit = read_unit(ROOT / "systemd" / "darkmoon-companion-cage.service")["Service"]
    _, argv = command_of(cage_unit["ExecStart"][0])
    data, runtime = work / "cage-data", work / "cage-run"
    for folder in (data, runtime):
        folder.mkdir(mode=0o700)
        shutil.chown(folder, "nobody")
    seven_seat_game(data)
    for name in os.listdir(data):
        shutil.chown(data / name, "nobody")
    moved = []
    for arg in argv:
        if arg.startswith("--config="):
            arg = f"--config={ROOT / 'systemd' / 'foot.ini'}"
        elif arg == "/var/lib/darkmoon-companion":
            arg = str(data)
        elif arg.startswith("/opt/"):
            arg = str(root) + arg
        moved.append(arg)
    moved += ["--port", str(free_port())]
    env = {**environment_of(cage_unit), "HOME": str(data), "XDG_RUNTIME_DIR": str(runtime),
           "WLR_BACKENDS": "headless", "WLR_RENDERER": "pixman", "WLR_LIBINPUT_NO_DEVICES": "1",
           "PATH": os.environ["PATH"]}
    env = {k: (str(runtime) if v.startswith("/run/darkmoon-companion") else v)
           for k, v in env.items()}
    proc = subprocess.Popen(["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups",
                             *moved], env=env, cwd=runtime, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        time.sleep(8)  # no screen to read text from: give the kiosk time to come up
        tree = {proc.pid}
        for _ in range(4):  # setpriv -> cage -> foot -> the kiosk
            for pid in filter(str.isdigit, os.listdir("/proc")):
                if parent(int(pid)) in tree:
                    tree.add(int(pid))
        named = {}
        for pid in tree:
            try:
                name = Path(f"/proc/{pid}/comm").read_text().strip()
                named[name] = named.get(name, 0.0) + rss_mb(pid)
            except OSError:
                pass
    finally:
        os.killpg(proc.pid, 15)
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 9)
            proc.wait()
    parts = ", ".join(f"{name} {mb:.0f} MB" for name, mb in sorted(named.items()) if mb)
    if not parts:  # not a figure: nothing of it was running after 8 s
        return (f"cage + foot + kiosk: not measured (nothing of it was running after 8 s; "
                f"exit status {proc.returncode})")
    return f"cage + foot + kiosk, resident memory: {sum(named.values()):.0f} MB ({parts})"


def quick_root(root: Path) -> None:
    """What install.sh would leave for the unit's command, without its venv and pip: the unit
    file where it installs it, and the checkout's own .venv where the unit looks for one."""
    units = root / "etc/systemd/system"
    units.mkdir(parents=True, exist_ok=True)
    shutil.copy(SOURCE_UNIT, units / UNIT_NAME)
    venv = root / "opt/darkmoon-companion/venv"
    venv.parent.mkdir(parents=True)
    venv.symlink_to(ROOT / ".venv")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--drop-caches", action="store_true",
                        help="drop the whole page cache before each cold run (root)")
    args = parse(parser)
    if args.quick:
        args.runs = 1
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        os.chmod(work, 0o755)
        root = make_fresh_root(work / "root")
        if args.quick:
            quick_root(root)
            print("--quick: no install.sh; the unit's command runs on this checkout's .venv")
        else:
            began = time.perf_counter()
            done = run_install(root)
            if done.returncode:
                sys.exit(f"install.sh failed:\n{done.stdout}\n{done.stderr}")
            print(f"install.sh into a throwaway root: {time.perf_counter() - began:.1f} s "
                  "(venv + pip from the local checkout)")
        seven_seat_game(root / "var/lib/darkmoon-companion")

        warm, stops, rss = [], [], []
        _, _, files, _ = start_once(root)           # fills the cache, finds what it maps
        for _ in range(args.runs):
            took, stopped, files_now, mb = start_once(root)
            warm.append(took)
            rss.append(mb)
            files |= files_now
            if stopped is not None:
                stops.append(stopped)

        kiosk_files = sorted(set(files_under(str(root / "opt/darkmoon-companion/venv"),
                                             "/usr/lib/python3.11", "/usr/lib/python3",
                                             os.path.realpath(sys.executable))) | files)
        cold, method = [], ""
        for _ in range(args.runs):
            if args.drop_caches and drop_whole_page_cache():
                method = "whole page cache dropped (/proc/sys/vm/drop_caches)"
            else:
                if args.drop_caches and not method:
                    print("cannot write /proc/sys/vm/drop_caches here: evicting the kiosk's "
                          "files instead")
                evict(kiosk_files)
                method = f"the kiosk's {len(kiosk_files)} files evicted (posix_fadvise)"
            left = resident_mb(kiosk_files)
            cold.append(start_once(root)[0])
        print(f"the unit's command: {' '.join(unit_launch(root, [])[0]).replace(str(root), '')}")
        print("screen 120x36, TERM=linux, 7 seats set up; the join screen = every seat's code")
        print(spread("start -> join screen, warm cache", warm))
        print(spread("start -> join screen, cold cache", cold)
              + f"  ({method}"
              + (f"; {left:.1f} MB of them still cached at the last start)" if left is not None
                 else ")"))
        if stops:
            print(spread("SIGTERM -> exited", stops))
        print(f"kiosk resident memory at the join screen: {max(rss):.0f} MB")
        print("cage + foot: not measured in --quick" if args.quick else cage_memory(root, work))


if __name__ == "__main__":
    main()
