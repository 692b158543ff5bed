"""Every benchmark in bench/ still runs: its quick mode, end to end, as a subprocess with the
project's Python, on this machine's budget. Nothing else runs the benches, so without this a
change to the kiosk, the room or the store can break one unseen (bench_kiosk once waited for
a mark the kiosk no longer drew). The figures are not judged here: only that they come."""
from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

import children

ROOT = Path(__file__).resolve().parents[1]
BENCHES = sorted(p.stem for p in (ROOT / "bench").glob("bench_*.py"))
HANG_GUARD = 120  # s: a guard against a hang, not a measurement (quick modes take seconds)
# a figure: a number with its unit, as each bench prints them
FIGURE = re.compile(r"\d+(\.\d+)? ?(ms|us|s|MB|KiB|%|games/s|us/event)\b")


def test_every_bench_is_covered():
    # a new bench joins the list by its name alone; this guards against the glob going empty
    assert {"bench_kiosk", "bench_web", "bench_idle"} <= set(BENCHES)


def run_quick(bench: str, cwd: Path, *extra: str) -> subprocess.CompletedProcess:
    # SIGINT, not a kill, if it must be stopped (a hang, an interrupted run, the test process
    # dying): the bench's finally blocks stop the kiosks and servers it started (each in a
    # session of its own, out of reach of a process-group kill).
    # Without PYTHONUNBUFFERED, whatever the caller exports (this machine and CI do): a bench
    # that reads its child's first line through a pipe must not hang on a shell that does not
    # (bench_web --kiosk did: the line sat in the child's buffer).
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    proc = children.spawn([sys.executable, str(ROOT / "bench" / f"{bench}.py"), "--quick",
                           *extra],
                          cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, parent_death=signal.SIGINT, env=env)
    hung = False
    try:
        out, err = proc.communicate(timeout=HANG_GUARD)
    except subprocess.TimeoutExpired:
        hung = True
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGINT)
            try:
                proc.communicate(timeout=30)
            except subprocess.TimeoutExpired:
                pass
        children.end(proc, signal.SIGKILL, 0)
    if hung:
        pytest.fail(f"{bench} --quick hung for {HANG_GUARD} s")
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


@pytest.mark.parametrize("bench", BENCHES)
def test_quick_mode_runs_and_prints_its_figures(bench, tmp_path):
    done = run_quick(bench, tmp_path)
    assert done.returncode == 0, f"{bench} --quick failed:\n{done.stdout}\n{done.stderr}"
    lines = done.stdout.splitlines()
    assert lines and lines[0].startswith("budget: this machine"), done.stdout
    figures = [line for line in lines[1:] if FIGURE.search(line)]
    assert figures, f"{bench} --quick printed no figures:\n{done.stdout}"
    # quick mode judges no target: too few samples to mean anything
    assert "MISSED" not in done.stdout and "(target" not in done.stdout, done.stdout


def test_pi_class_without_its_script_refuses_rather_than_measure_this_machine(tmp_path):
    # figures from this machine passed off as a Pi's would be worse than none
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "bench_store.py"), "--quick",
                           "--pi-class"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=HANG_GUARD, stdin=subprocess.DEVNULL,
                          env={**os.environ, "DARKMOON_PI_CLASS": str(tmp_path / "missing")})
    assert done.returncode != 0
    assert "cannot run on the pi-class budget" in done.stderr
    assert "budget:" not in done.stdout and "append latency" not in done.stdout


def test_the_whole_pi_runs_the_kiosk_beside_the_server_and_times_its_repaints(tmp_path):
    # The Pi at the table is the kiosk, the web server and the phones' streams in one
    # process; bench_web --kiosk measures a command's way to the kiosk's screen in that process
    done = run_quick("bench_web", tmp_path, "--kiosk")
    # ...and it does so on a shell without PYTHONUNBUFFERED (run_quick's): inside the kiosk's
    # Textual app the server's first line (its port and codes) goes through Textual's print
    # capture, whose flush does not reach the pipe, and the bench waited for it for ever
    # until its child ran unbuffered (python -u)
    assert done.returncode == 0, f"bench_web --quick --kiosk failed:\n{done.stdout}\n{done.stderr}"
    kiosk = [line for line in done.stdout.splitlines()
             if line.startswith("command -> kiosk repaint")]
    assert kiosk and "n=0" not in kiosk[0] and FIGURE.search(kiosk[0]), done.stdout


def test_the_taps_bench_counts_the_taps_people_make_at_setup_and_by_decision(tmp_path):
    # a scan is a tap on the camera's link, a name a tap into its field, the players' number
    # a native select's two taps: the host, who also plays a seat, makes at least 1 + 2 + 5 +
    # Create + their seat + Start; every other player a scan's tap and their seat's
    done = run_quick("bench_taps", tmp_path)
    assert done.returncode == 0, f"bench_taps --quick failed:\n{done.stdout}\n{done.stderr}"
    setup = re.search(r"\((\d+) by the host, ([\d.]+) by each other player\)", done.stdout)
    assert setup, done.stdout
    assert int(setup[1]) >= 11 and float(setup[2]) >= 2, done.stdout
    for kind in ("action", "repair/roll", "submit", "malfunction IN/OUT", "vote"):
        assert re.search(rf"^  {re.escape(kind)} ", done.stdout, re.M), done.stdout
    # the bench measured this checkout's pages and server, not an installed copy
    assert f"code: {ROOT}" in done.stdout
