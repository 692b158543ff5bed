"""What the GPIO buttons need from the machine: is it a Raspberry Pi, where lgpio may write its
pipe files, and what to install when lgpio is missing. Standard library only: the command
calls it before anything imports gpiozero or lgpio.
"""
from __future__ import annotations

import os
import stat
import tempfile

MODEL_PATH = "/proc/device-tree/model"
# The one package that gives a Raspberry Pi OS's Python the GPIO driver gpiozero prefers
# (the venvs see it: install.sh's always, bootstrap.sh's on a Pi).
LGPIO_PACKAGE = "python3-lgpio"
INSTALL_LGPIO = f"sudo apt install {LGPIO_PACKAGE}"
FOLDER = "darkmoon-companion"
RUN_FOLDER = "/run/darkmoon-companion"  # the service's RuntimeDirectory


def pi_model(path: str | None = None) -> str | None:
    """The board's name ("Raspberry Pi 5 Model B Rev 1.0") on a Raspberry Pi, else None.
    DARKMOON_PI_MODEL names another file to read (as scripts/bootstrap.sh does): the tests
    play a Pi with it."""
    path = path or os.environ.get("DARKMOON_PI_MODEL") or MODEL_PATH
    try:
        with open(path, "rb") as file:
            model = file.read(200).split(b"\0")[0].decode("ascii", "replace").strip()
    except OSError:
        return None
    return model if model.startswith("Raspberry Pi") else None


def lgpio_workdir(env=None) -> str:
    """Set LG_WD (unless it is set already) to a folder only this user can write, and return
    the folder lgpio will use.

    Importing lgpio makes a pipe file (.lgd-nfyN) in its working directory, the current one
    unless LG_WD says otherwise, and changes into it: started from a folder the user cannot
    write (/, a root-owned checkout), the import fails and the buttons with it although the
    pins work. So every way in sets LG_WD before gpiozero can import lgpio."""
    env = os.environ if env is None else env
    if env.get("LG_WD"):
        return env["LG_WD"]
    folder = _private_folder(env)
    env["LG_WD"] = folder
    return folder


def _private_folder(env) -> str:
    runtime = env.get("XDG_RUNTIME_DIR")
    if runtime and os.path.isabs(runtime) and _ours(runtime, create=False):
        folder = os.path.join(runtime, FOLDER)
        if _ours(folder, create=True):
            return folder
    if os.access(RUN_FOLDER, os.W_OK | os.X_OK) and _ours(RUN_FOLDER, create=False,
                                                          private=False):
        return RUN_FOLDER
    # /tmp is shared: the per-user name is used only when it is a folder of ours that nobody
    # else can enter; otherwise a fresh one.
    folder = os.path.join(tempfile.gettempdir(), f"{FOLDER}-{os.getuid()}")
    if _ours(folder, create=True):
        return folder
    return tempfile.mkdtemp(prefix=f"{FOLDER}-")


def _ours(folder: str, *, create: bool, private: bool = True) -> bool:
    """`folder` is a real folder (not a link), owned by this user and, when `private`, closed
    to everyone else; made 0700 first when `create` and it is missing."""
    if create:
        try:
            os.mkdir(folder, 0o700)
        except FileExistsError:
            pass
        except OSError:
            return False
    try:
        status = os.lstat(folder)
    except OSError:
        return False
    return (stat.S_ISDIR(status.st_mode) and status.st_uid == os.getuid()
            and not (private and status.st_mode & 0o077))
