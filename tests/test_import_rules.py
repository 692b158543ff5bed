"""DESIGN.md's import rules hold: pure rules, a core without UI or hardware, hardware without game."""

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]

needs_rules = pytest.mark.skipif(
    not (REPO_ROOT / "companion" / "darkmoon").is_dir(),
    reason="companion/darkmoon (the rules engine) is not written yet",
)

# Not one of these may be loaded by the rules: they are UI, IO, hardware, or the store.
FORBIDDEN_IN_RULES = ["textual", "aiohttp", "serial", "gpiozero", "qrcode", "hardware", "screens", "sqlite3"]


@needs_rules
def test_import_linter_contracts_are_kept():
    lint_imports = Path(sys.executable).with_name("lint-imports")
    result = subprocess.run(
        [str(lint_imports), "--no-cache"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr


@needs_rules
def test_importing_every_rules_module_loads_no_ui_io_or_hardware_module():
    probe = textwrap.dedent(
        """
        import importlib, json, pkgutil, sys
        import companion.darkmoon as rules

        names = ["companion.darkmoon"]
        for info in pkgutil.walk_packages(rules.__path__, "companion.darkmoon."):
            importlib.import_module(info.name)
            names.append(info.name)
        forbidden = json.loads(sys.argv[1])
        loaded = sorted(m for m in sys.modules if m.split(".")[0] in forbidden)
        print(json.dumps({"imported": names, "forbidden_loaded": loaded}))
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", probe, json.dumps(FORBIDDEN_IN_RULES)],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout.splitlines()[-1])
    assert report["forbidden_loaded"] == [], f"rules modules {report['imported']} loaded {report['forbidden_loaded']}"
