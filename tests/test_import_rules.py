"""DESIGN.md's import rules hold: pure rules, a core without UI or hardware, hardware without game."""

import json
import shutil
import subprocess
import sys
import textwrap
import tomllib
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


# The expansion's modules, and the two that put the rules together (they import both sides).
EXPANSION = {"companion.darkmoon.shadow", "companion.darkmoon.shadow_cards",
             "companion.darkmoon.threats"}
COMPOSITION = {"companion.darkmoon", "companion.darkmoon.rules"}


def expansion_contract() -> dict:
    config = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())
    (contract,) = [c for c in config["tool"]["importlinter"]["contracts"]
                   if set(c.get("forbidden_modules", ())) == EXPANSION]
    return contract


@needs_rules
def test_every_base_module_of_the_rules_is_held_to_the_expansion_contract():
    """A base module added later is held to the contract too, or this fails."""
    rules_dir = REPO_ROOT / "companion" / "darkmoon"
    modules = {f"companion.darkmoon.{p.stem}" for p in rules_dir.glob("*.py")
               if p.stem != "__init__"}
    contract = expansion_contract()
    assert contract["type"] == "forbidden" and not contract.get("allow_indirect_imports")
    assert set(contract["source_modules"]) == modules - EXPANSION - COMPOSITION


@needs_rules
def test_a_base_module_importing_the_expansion_even_inside_a_function_breaks_the_contract(
        tmp_path):
    """turn.py used to import shadow.py inside its functions, behind a check that the game
    was Shadow Corporation's: nothing noticed the loop. Plant that import again in a copy of
    the tree: the contract breaks and names it."""
    for top in ("companion", "hardware", "screens"):
        shutil.copytree(REPO_ROOT / top, tmp_path / top,
                        ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO_ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    lint_imports = Path(sys.executable).with_name("lint-imports")

    def lint():
        return subprocess.run([str(lint_imports), "--no-cache"], cwd=tmp_path,
                              capture_output=True, text=True, timeout=300)

    assert lint().returncode == 0  # the copy keeps every contract, as the tree does
    turn = tmp_path / "companion" / "darkmoon" / "turn.py"
    turn.write_text(turn.read_text() + textwrap.dedent(
        """

        def refuelled_late(g, ctx):
            from .shadow import refuel
            refuel(g, ctx)
        """))
    result = lint()
    assert result.returncode != 0
    assert "companion.darkmoon.turn -> companion.darkmoon.shadow" in result.stdout
