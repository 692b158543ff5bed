"""The product runs the code it was installed with and nothing else: no file it writes as it
runs (the data directory, or ./data beside wherever a command is typed) is ever loaded as code,
a pickle or a marshalled object, and nothing it does rewrites the standard library's own
machinery (re's compiler, the code dataclasses and named tuples generate) or Textual's.

A file that held code for the kiosk to run, in a folder the kiosk writes, would run whatever
was put there (or whatever a flipped bit on the SD card made of it) at the next start, and
`install.sh` runs the command as root from a checkout where a kiosk may have written ./data.
Python's own byte-code cache, in the root-owned install, is the only compiled code a start uses.
"""
from __future__ import annotations

import ast
import asyncio
import collections
import dataclasses
import json
import marshal
import shutil
import sys
from pathlib import Path

import _sre
import pytest

import children

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent / "darkmoon-companion"
PRODUCT = ("companion", "screens", "hardware")
# The files a start of the product could be tempted to load: the one a former version kept its
# generated code in, and the part file it wrote that through.
PLANTED = ("warm-start", "warm-start.part")

# Records the source text the standard library compiles for each dataclass as the product's
# modules load, so that the planted file holds, for each, code that leaves a marker and then
# does what the generated code does: a start that ran it would work as ever, and be caught.
RECORDER = """
import builtins, dataclasses, json, sys
seen = []
def record(source, *args, **kwargs):
    if isinstance(source, str):
        seen.append(source)
    return builtins.exec(source, *args, **kwargs)
dataclasses.exec = record
from companion import cli
cli.parse(["simulate"])
import companion.tools.replay, companion.chance.verify, companion.tools.simulate, companion.core.room
import companion.appliance.salvage, companion.web.server, hardware.source, screens.app, screens.join
json.dump(seen, sys.stdout)
"""


def hostile(marker: Path) -> bytes:
    """What the kiosk's former warm-start file held, with every dataclass method swapped for
    code that first touches `marker`."""
    done = children.run([sys.executable, "-c", RECORDER], capture_output=True, timeout=120,
                        check=True, cwd=ROOT)
    touch = f"__import__('pathlib').Path({str(marker)!r}).touch()\n"
    codes = {("exec", source): compile(touch + source, "<string>", "exec", dont_inherit=True)
             for source in json.loads(done.stdout)}
    assert codes, "the product defines dataclasses as it loads"
    form = (3, sys.version, _sre.MAGIC, _sre.CODESIZE)
    return marshal.dumps((form, {}, {}, codes, {}))


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    """A folder to type commands in, whose ./data (also the kiosk's --data-dir) holds the
    hostile files; and the marker that any of them running would leave."""
    where = tmp_path_factory.mktemp("cwd")
    marker = where / "it-ran"
    data = hostile(marker)
    (where / "data").mkdir()
    for name in PLANTED:
        (where / "data" / name).write_bytes(data)
    return where, marker


@pytest.mark.parametrize("argv", [["--help"], ["simulate", "--games", "1", "--seed", "2"],
                                  ["verify", "no-such-record.json"], ["replay", "--json"],
                                  ["buttons", "--buttons", "no-such.toml"]],
                         ids=["help", "simulate", "verify", "replay", "buttons"])
def test_no_command_runs_what_a_file_in_its_data_directory_holds(planted, argv):
    """As install.sh does (`darkmoon-companion --help`, as root, from the checkout), and as
    anyone does at the Pi's prompt: a command typed where ./data holds planted code."""
    where, marker = planted
    marker.unlink(missing_ok=True)
    done = children.run([str(BIN), *argv], capture_output=True, timeout=120, cwd=where)
    assert not marker.exists(), f"`darkmoon-companion {' '.join(argv)}` ran the planted code"
    assert b"Traceback" not in done.stderr, done.stderr.decode()[-2000:]


async def test_the_kiosk_runs_nothing_its_data_directory_holds(planted):
    """The kiosk itself (the command the unit runs), on a data directory holding planted code:
    it draws its start screen and serves the phones, and the code never runs."""
    from power.product import Product, free_port
    where, marker = planted
    marker.unlink(missing_ok=True)
    data = where / "kiosk-data"  # its own: the games it keeps are no other test's business
    shutil.copytree(where / "data", data)
    product = Product(data, free_port())
    await product.start()  # returns once the phones' server answers, after the first frame
    try:
        assert f"http://127.0.0.1:{product.port}" in product.screen(), product.screen()
    finally:
        assert product.stop() == 0
    assert not marker.exists(), "the kiosk's start ran the planted code"


def stdlib_as_python_made_it() -> dict:
    from textual.css.stylesheet import Stylesheet
    from re import _compiler
    return {"re's compiler": _compiler.compile.__module__ == "re._compiler",
            "dataclasses' exec": "exec" not in vars(dataclasses),
            "collections' eval": "eval" not in vars(collections),
            "Textual's CSS parser": Stylesheet._parse_rules.__module__ == "textual.css.stylesheet"}


def test_a_kiosk_start_leaves_the_standard_library_as_it_is(tmp_path, monkeypatch):
    """The kiosk started as the command starts it (companion.cli), driven by Textual's Pilot
    in place of the terminal: while it starts, and once its first frame is drawn, re,
    dataclasses, collections and Textual's stylesheets are their own."""
    from companion.cli import main
    from screens.app import KioskApp
    seen = {}

    def run(app, *args, **kwargs):
        app.host.serve = False  # the phones' server has its own tests: no port to find free
        async def start():
            seen["starting"] = stdlib_as_python_made_it()
            async with app.run_test(size=(120, 36)):
                await asyncio.wait_for(app.serving.wait(), 30)
                seen["serving"] = stdlib_as_python_made_it()
        asyncio.run(start())

    monkeypatch.setattr(KioskApp, "run", run)
    monkeypatch.setattr("companion.cli.log_to_journal", lambda data_dir: None)
    monkeypatch.setattr("companion.cli.port_problem", lambda address, port: None)
    monkeypatch.chdir(tmp_path)
    assert main(["--data-dir", str(tmp_path / "data"), "--address", "127.0.0.1"]) == 0
    for moment in ("starting", "serving"):
        assert all(seen[moment].values()), f"{moment}: {seen[moment]}"
    assert not list((tmp_path / "data").glob("warm-start*")), "the kiosk wrote code to keep"


FORBIDDEN = {"marshal", "pickle", "_pickle", "shelve", "dill", "copyreg", "_sre", "re._compiler",
             "re._parser", "sre_compile", "sre_parse"}


def test_no_product_module_loads_marshalled_or_pickled_objects_or_reaches_into_re():
    """A marshalled code object or a pickle is code; re's compiler is re's own."""
    found = []
    for package in PRODUCT:
        for path in sorted((ROOT / package).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                names = []
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                    names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
                found += [f"{path.relative_to(ROOT)}:{node.lineno} {name}"
                          for name in names if name in FORBIDDEN]
    assert not found, found

