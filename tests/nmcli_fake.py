"""A stand-in `nmcli` for the hotspot tests: NetworkManager cannot run on a test machine (no
Wi-Fi device, no D-Bus system service), so an executable script named nmcli goes first on PATH.
It records every argv, keeps which connection is up in a JSON file, answers the few commands
companion/appliance/hotspot.py sends the way NetworkManager 1.42 does (as its manual describes them;
not checked against a real one here), and fails on demand."""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

SCRIPT = r'''#!{python}
import json, sys, time
from pathlib import Path
home = Path({home!r})
argv = sys.argv[1:]
with open(home / "calls.jsonl", "a") as log:
    log.write(json.dumps(argv) + "\n")
state = json.loads((home / "state.json").read_text())
for rule in state["failures"]:
    if all(word in argv for word in rule["when"]):
        time.sleep(rule["sleep"])
        sys.stdout.write(rule["stdout"]); sys.stderr.write(rule["stderr"])
        sys.exit(rule["code"])

def esc(value):
    return value.replace("\\", "\\\\").replace(":", "\\:")

def save():
    (home / "state.json").write_text(json.dumps(state))

words, skip = [], False
for word in argv:  # the objects and their arguments, without nmcli's options
    if skip:
        skip = False
    elif word in ("-w", "-f", "-g", "--wait", "--fields", "--get-values"):
        skip = True
    elif not word.startswith("-"):
        words.append(word)
if words[:3] == ["device", "wifi", "hotspot"]:
    opts = dict(zip(argv[argv.index("hotspot") + 1::2], argv[argv.index("hotspot") + 2::2]))
    if opts.get("ifname") not in state["devices"]:
        sys.stderr.write(f"Error: Device '{{opts.get('ifname')}}' not found.\n"); sys.exit(10)
    name = opts.get("con-name", "Hotspot")
    state["active"][name] = {{"device": opts["ifname"], "ssid": opts["ssid"],
                             "psk": opts["password"]}}
    save()
    print(f"Device '{{opts['ifname']}}' successfully activated with "
          "'5b1e6d9e-3f0c-4a57-9b1e-2c4c8f0e1a11'.")
elif words[:2] == ["connection", "show"] and "--active" in argv:
    for name, active in state["active"].items():
        print(f"{{esc(name)}}:{{esc(active['device'])}}")
elif words[:2] == ["connection", "show"]:
    name = words[2]
    if name not in state["active"]:
        sys.stderr.write(f"Error: {{name}} - no such connection profile.\n"); sys.exit(10)
    print(esc(state["active"][name]["ssid"]))
    print(esc(state["active"][name]["psk"]) if "-s" in argv else "")
elif words[:2] == ["connection", "down"]:
    if state["active"].pop(words[2], None) is None:
        sys.stderr.write(f"Error: '{{words[2]}}' is not an active connection.\n"
                         "Error: no active connection provided.\n")
        sys.exit(10)
    save()
    print(f"Connection '{{words[2]}}' successfully deactivated.")
else:
    sys.stderr.write(f"Error: argument '{{argv[0] if argv else ''}}' not understood.\n")
    sys.exit(2)
'''


class FakeNmcli:
    def __init__(self, home: Path, devices=("wlan0",)):
        self.home = home
        home.mkdir(parents=True, exist_ok=True)
        self.state = {"active": {}, "devices": list(devices), "failures": []}
        self._save()
        script = home / "nmcli"
        script.write_text(SCRIPT.format(python=sys.executable, home=str(home)))
        script.chmod(0o755)

    def _save(self) -> None:
        (self.home / "state.json").write_text(json.dumps(self.state))

    def fail(self, *when: str, code: int = 1, stderr: str = "", stdout: str = "",
             sleep: float = 0.0) -> None:
        """Calls holding all the words `when` exit with `code` (after `sleep` seconds)."""
        self.state = json.loads((self.home / "state.json").read_text())
        self.state["failures"].append({"when": list(when), "code": code, "stderr": stderr,
                                       "stdout": stdout, "sleep": sleep})
        self._save()

    def activate(self, name: str, device: str, ssid: str, psk: str) -> None:
        """As if the access point had been left up by an earlier run."""
        self.state = json.loads((self.home / "state.json").read_text())
        self.state["active"][name] = {"device": device, "ssid": ssid, "psk": psk}
        self._save()

    def active(self) -> dict:
        return json.loads((self.home / "state.json").read_text())["active"]

    @property
    def calls(self) -> list[list[str]]:
        path = self.home / "calls.jsonl"
        if not path.exists():
            return []
        return [json.loads(line) for line in path.read_text().splitlines()]


def install(tmp_path: Path, monkeypatch, **kwargs) -> FakeNmcli:
    fake = FakeNmcli(tmp_path / "nmcli-bin", **kwargs)
    monkeypatch.setenv("PATH", f"{fake.home}{os.pathsep}{os.environ.get('PATH', '')}")
    return fake
