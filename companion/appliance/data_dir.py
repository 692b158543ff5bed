"""The data directory, readable by the companion's own user and nobody else: games.db holds
every seat's and the host's code and the secret of the next deal, hotspot.json the Wi-Fi
password, and the log, demo.db and the damaged stores set aside hold as much.

Every way of starting the companion (the kiosk, `demo`, `--headless`, the `hotspot` command,
the systemd service) calls `make_private` first, before anything is written there:

- the process's umask becomes 0o077, so every file and folder the companion makes from then
  on is its user's alone, whatever umask the shell, the login or systemd's UMask= gave it:
  SQLite makes games.db (and its -wal and -shm, which take the database's own mode), logging
  makes companion.log and each rotation, and a salvage makes its fresh copy, each with
  "0666 less the umask". One setting here rather than a mode at every place that makes a
  file, so that a file added later is private without anyone remembering to make it so;
- the folder is made 0700, or, found open to others (made by an older version, by hand,
  or by the unit's StateDirectoryMode=), tightened to it, and so is every file in it (made
  before this, or copied in): each loses what it gave the group and others. One log line
  (companion/cli.py logs it) says what was open, and what could not be closed (a file of
  another user's, say).
"""
from __future__ import annotations

import os
import pwd
import stat

UMASK = 0o077     # nothing for the group or others, in every mode this process makes
OTHERS = 0o077    # the bits of a mode that give the group or others any access


def make_private(path: str | os.PathLike) -> str | None:
    """Set the process's umask, then make `path` (0700) or close it and the files in it to
    everyone but this user. What was found open, in words for the log (None if nothing
    was); OSError if the folder can be neither found nor made."""
    os.umask(UMASK)
    os.makedirs(path, mode=0o700, exist_ok=True)
    found = [_close(path, "the folder")]
    with os.scandir(path) as entries:
        for entry in sorted(entries, key=lambda e: e.name):
            if entry.is_file(follow_symlinks=False):
                found.append(_close(entry.path, entry.name))
    found = [f for f in found if f is not None]
    if not found:
        return None
    user = _user()
    said = (f"the data directory {os.path.abspath(path)} was open to other users of this "
            f"machine ({', '.join(what for what, _ in found)})")
    if any(why is None for _, why in found):
        said += f"; now only {user} can read it"
    for what, why in found:
        if why is not None:
            said += f"; {user} cannot close {what.rsplit(' ', 1)[0]}: {why}"
    return said


def _close(path: str | os.PathLike, name: str) -> tuple[str, str | None] | None:
    """Take the group's and others' bits off `path`'s mode: None if there were none, else
    (its name and mode as found, why it could not be closed or None)."""
    mode = stat.S_IMODE(os.stat(path).st_mode)
    if not mode & OTHERS:
        return None
    try:
        os.chmod(path, mode & ~OTHERS)
    except OSError as error:
        return f"{name} {mode:04o}", error.strerror
    return f"{name} {mode:04o}", None


def _user() -> str:
    try:
        return pwd.getpwuid(os.geteuid()).pw_name
    except KeyError:  # a user id with no name (a container's)
        return f"user {os.geteuid()}"
