"""A throwaway root that looks, as far as install.sh can tell, like a fresh Raspberry Pi OS;
running install.sh into it; and running the installed unit's command the way systemd would.

Shared by tests/systemd and bench/bench_boot.py.
"""
from __future__ import annotations

import contextlib
import fcntl
import os
import pty
import select
import shlex
import shutil
import signal
import socket
import struct
import subprocess
import termios
import time
from pathlib import Path

import children

REPO = Path(__file__).resolve().parents[2]
INSTALL = REPO / "systemd" / "install.sh"
UNIT_NAME = "darkmoon-companion.service"
SOURCE_UNIT = REPO / "systemd" / UNIT_NAME
HOST_UNITS = Path("/usr/lib/systemd/system")
# The Pi's kernel command line as Raspberry Pi OS Lite (bookworm) ships it.
CMDLINE = ("console=serial0,115200 console=tty1 root=PARTUUID=4e639091-02 rootfstype=ext4 "
           "fsck.repair=yes rootwait\n")


def make_fresh_root(root: Path) -> Path:
    """The parts of a fresh system install.sh reads or changes: the user and group files
    (dialout there, gpio not, as on plain Debian), systemd's own units (copied from this
    machine) with getty@tty1 enabled, and the Pi's cmdline.txt."""
    etc = root / "etc"
    etc.mkdir(parents=True)
    (etc / "passwd").write_text("root:x:0:0:root:/root:/bin/bash\n")
    (etc / "group").write_text("root:x:0:\ntty:x:5:\ndialout:x:20:\nvideo:x:44:\n")
    for name, line in (("shadow", "root:*:19700:0:99999:7:::\n"),
                       ("gshadow", "root:*::\ntty:*::\ndialout:*::\nvideo:*::\n")):
        (etc / name).write_text(line)
        (etc / name).chmod(0o640)
    (root / "usr" / "lib" / "systemd").mkdir(parents=True)
    shutil.copytree(HOST_UNITS, root / "usr" / "lib" / "systemd" / "system", symlinks=True)
    (root / "lib").symlink_to("usr/lib")  # merged /usr, as on bookworm
    wants = etc / "systemd" / "system" / "getty.target.wants"
    wants.mkdir(parents=True)
    (wants / "getty@tty1.service").symlink_to("/lib/systemd/system/getty@.service")
    (root / "boot" / "firmware").mkdir(parents=True)
    (root / "boot" / "firmware" / "cmdline.txt").write_text(CMDLINE)
    return root


def run_install(root: Path, *extra: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return children.run(["bash", str(INSTALL), "--root", str(root), *extra],
                        capture_output=True, text=True, timeout=timeout,
                        stdin=subprocess.DEVNULL)


# --- a whole system with no systemd running: a chroot ----------------------------------------

CHECKOUT_IN_CHROOT = "/home/pi/darkmoon-companion"
# What install.sh asks dpkg about, as installed: Pi OS Lite ships the first four, and the
# chroot has no archive to fetch espeak-ng from (this machine's own is what it would run).
DPKG_STATUS = "".join(f"Package: {name}\nStatus: install ok installed\nVersion: 1\n"
                      f"Architecture: all\n\n"
                      for name in ("python3-venv", "kbd", "console-setup-linux", "alsa-utils",
                                   "espeak-ng"))


@contextlib.contextmanager
def chroot_system(base: Path):
    """A root that install.sh, run inside it with chroot as on an SD card being built, takes
    for a whole Raspberry Pi OS: this machine's programs (its /usr, read-only, with an empty
    /usr/local of the root's own), a fresh /etc as make_fresh_root makes it, the checkout
    read-only at ~pi, /proc and /dev, and an empty /run, so no running systemd. Needs root
    (mount, chroot); everything is unmounted on the way out."""
    root = base / "root"
    root.mkdir(parents=True)
    make_fresh_root_etc(root)
    for name in ("bin", "sbin", "lib", "lib64"):
        if Path("/", name).is_symlink():          # merged /usr, as on bookworm
            (root / name).symlink_to(os.readlink(Path("/", name)))
    for name in ("usr", "proc", "dev", "run", "tmp", "root", "var/lib/dpkg",
                 CHECKOUT_IN_CHROOT.lstrip("/")):
        (root / name).mkdir(parents=True, exist_ok=True)
    (root / "tmp").chmod(0o1777)
    (root / "var/lib/dpkg/status").write_text(DPKG_STATUS)
    for name in ("etc/apt/apt.conf.d", "etc/apt/sources.list.d", "var/lib/apt/lists/partial",
                 "var/cache/apt/archives/partial"):   # apt with no archive to ask: a fresh Pi
        (root / name).mkdir(parents=True, exist_ok=True)   # offline
    (root / "etc/apt/sources.list").write_text("")
    etc = root / "etc"
    for name in ("alternatives", "ssl"):           # awk is a link through alternatives
        if (Path("/etc") / name).is_dir():
            shutil.copytree(Path("/etc") / name, etc / name, symlinks=True)
    for name in ("resolv.conf", "hosts", "nsswitch.conf", "login.defs", "ld.so.cache"):
        if (Path("/etc") / name).is_file():
            shutil.copy(Path("/etc") / name, etc / name)
    local = base / "usr-local"
    local.mkdir()
    mounts = [(["--bind", "/usr"], "usr"), (["-o", "remount,bind,ro"], "usr"),
              (["--bind", str(local)], "usr/local"),
              (["--bind", str(REPO)], CHECKOUT_IN_CHROOT.lstrip("/")),
              (["-o", "remount,bind,ro"], CHECKOUT_IN_CHROOT.lstrip("/")),
              (["-t", "proc", "proc"], "proc"), (["--bind", "/dev"], "dev")]
    mounted: list[Path] = []
    try:
        for options, where in mounts:
            subprocess.run(["mount", *options, str(root / where)], check=True)
            if root / where not in mounted:
                mounted.append(root / where)
        yield root
    finally:
        for where in reversed(mounted):
            subprocess.run(["umount", "--lazy", str(where)], check=False)


def make_fresh_root_etc(root: Path) -> None:
    """make_fresh_root's /etc and /boot only: the chroot brings this machine's own units."""
    scratch = root.parent / "units-scratch"
    make_fresh_root(scratch)
    shutil.copytree(scratch / "etc", root / "etc", symlinks=True)
    shutil.copytree(scratch / "boot", root / "boot", symlinks=True)
    shutil.rmtree(scratch)


def run_install_in_chroot(root: Path, timeout: float = 600) -> subprocess.CompletedProcess:
    """`sudo systemd/install.sh` from the checkout, as root inside the chroot, with the
    environment sudo would give it (its PATH; this machine's pip and certificate settings,
    the wheels folder not being there)."""
    env = {key: value for key, value in os.environ.items()
           if key.startswith(("PIP_", "SSL_", "REQUESTS_", "PYTHON")) and key != "PIP_FIND_LINKS"}
    env.update(PATH="/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
               HOME="/root", LANG="C.UTF-8", USER="root", LOGNAME="root")
    return children.run(["chroot", str(root), "bash", "-c",
                         f"cd {CHECKOUT_IN_CHROOT} && exec systemd/install.sh"],
                        capture_output=True, text=True, timeout=timeout,
                        stdin=subprocess.DEVNULL, env=env)


# --- reading a unit file ---------------------------------------------------------------------

def read_unit(path: Path) -> dict[str, dict[str, list[str]]]:
    """{section: {key: [values in order]}}, as systemd reads it: comments, repeated keys,
    backslash continuations."""
    sections: dict[str, dict[str, list[str]]] = {}
    current = None
    pending = ""
    for raw in path.read_text().splitlines():
        line = pending + raw.strip()
        pending = ""
        if line.endswith("\\"):
            pending = line[:-1] + " "
            continue
        if not line or line[0] in "#;":
            continue
        if line.startswith("[") and line.endswith("]"):
            current = sections.setdefault(line[1:-1], {})
            continue
        key, _, value = line.partition("=")
        current.setdefault(key.strip(), []).append(value.strip())
    return sections


def command_of(value: str) -> tuple[str, list[str]]:
    """An Exec*= value split into its prefix characters ("-", "+", ...) and argv."""
    prefix = ""
    while value and value[0] in "-+!@:|":
        prefix, value = prefix + value[0], value[1:]
    return prefix, shlex.split(value)


def environment_of(service: dict[str, list[str]]) -> dict[str, str]:
    env = {}
    for value in service.get("Environment", []):
        for pair in shlex.split(value):
            key, _, val = pair.partition("=")
            env[key] = val
    return env


# --- running the installed unit's command as systemd would -----------------------------------

def into(root: Path, path: str) -> str:
    return str(root) + path if path.startswith("/") else path


def unit_launch(root: Path, extra: list[str]) -> tuple[list[str], dict[str, str], Path]:
    """argv, environment and working directory of the installed unit's ExecStart, every
    absolute path moved into root; the directories systemd would make are made."""
    service = read_unit(root / "etc" / "systemd" / "system" / UNIT_NAME)["Service"]
    _, argv = command_of(service["ExecStart"][0])
    argv = [into(root, arg) for arg in argv] + extra
    env = {key: into(root, val) for key, val in environment_of(service).items()}
    for key in ("StateDirectory", "RuntimeDirectory"):
        base = "/var/lib/" if key == "StateDirectory" else "/run/"
        (root / (base + service[key][0]).lstrip("/")).mkdir(parents=True, exist_ok=True)
    cwd = Path(into(root, service["WorkingDirectory"][0]))
    return argv, env, cwd


def spawn_on_pty(argv: list[str], env: dict[str, str], cwd: Path,
                 columns: int = 120, lines: int = 36, **options) -> tuple[subprocess.Popen, int]:
    """The command with a pseudo-terminal as stdin, stdout and stderr, as StandardInput=tty,
    StandardOutput=tty and StandardError=tty give it the console; `options` go to Popen
    (`umask=`, say)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", lines, columns, 0, 0))
    os.set_blocking(master, False)
    full_env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(cwd), **env,
                "COLUMNS": str(columns), "LINES": str(lines)}
    proc = children.spawn(argv, stdin=slave, stdout=slave, stderr=slave, env=full_env,
                          cwd=cwd, close_fds=True, **options)  # a session of its own
    os.close(slave)
    return proc, master


def read_until(master: int, needles: list[bytes], timeout: float = 30.0) -> tuple[float, bytes]:
    """Seconds until every needle has been drawn, and everything drawn so far."""
    began, drawn = time.perf_counter(), b""
    while time.perf_counter() - began < timeout:
        ready, _, _ = select.select([master], [], [], 0.05)
        if ready:
            try:
                drawn += os.read(master, 65536)
            except OSError:
                break
            if all(needle in drawn for needle in needles):
                return time.perf_counter() - began, drawn
    missing = [n for n in needles if n not in drawn]
    raise TimeoutError(f"not drawn within {timeout} s: {missing}; "
                       f"last output: {drawn[-400:]!r}")


def drain(master: int) -> bytes:
    out = b""
    try:
        while select.select([master], [], [], 0)[0]:
            chunk = os.read(master, 65536)
            if not chunk:
                break
            out += chunk
    except OSError:
        pass
    return out


def stop(proc: subprocess.Popen, master: int, timeout: float) -> float | None:
    """SIGTERM, as `systemctl stop` sends (KillSignal=); seconds to exit, or None if it did
    not exit within timeout (then it is killed, as systemd would after TimeoutStopSec=)."""
    began = time.perf_counter()
    proc.terminate()
    try:
        while proc.poll() is None and time.perf_counter() - began < timeout:
            drain(master)  # a full pty would block the kiosk's last redraw
            time.sleep(0.02)
        if proc.poll() is None:
            raise subprocess.TimeoutExpired(proc.args, timeout)
        return time.perf_counter() - began
    except subprocess.TimeoutExpired:
        return None
    finally:
        children.end(proc, signal.SIGKILL, 0)  # whatever is left of its group, at once
        os.close(master)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def seven_seat_game(data_dir: Path) -> None:
    """A game set up and waiting for its seven players: the join screen shows seven codes."""
    import asyncio

    from companion.core.room import Room
    from companion.core.store import EventStore
    data_dir.mkdir(parents=True, exist_ok=True)
    store = EventStore(data_dir / "games.db")
    asyncio.run(Room(store).new_game({"names": ["Ana", "Ben", "Cai", "Dee", "Eli", "Fay",
                                                "Gus"]}))
    store.close()
