#!/usr/bin/env bash
# Make .venv ready for ./darkmoon and ./run-tests: create it if absent, (re)install the
# project when pyproject.toml changed since the last install. Safe to run any number of times.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$root/.venv"
stamp="$venv/.darkmoon-installed"   # holds the sha256 of the pyproject.toml last installed
python="${PYTHON:-python3}"

say() { printf 'bootstrap: %s\n' "$*" >&2; }

# Two commands started at once (a test run and the kiosk) must not build the venv together.
exec 9>"$root/.venv.lock"
flock 9

if ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
  say "error: $python is not Python 3.11 or newer (set PYTHON=/path/to/python3.11 to choose one)"
  exit 1
fi

# A venv without pip is a half-made one (Debian's venv fails after creating bin/python).
if [[ ! -x "$venv/bin/python" || ! -x "$venv/bin/pip" ]]; then
  rm -rf "$venv"
  say "creating $venv"
  if ! err="$("$python" -m venv "$venv" 2>&1)"; then
    rm -rf "$venv"
    if [[ "$err" == *ensurepip* || "$err" == *"No module named venv"* ]]; then
      say "error: '$python -m venv' does not work here; install it with: sudo apt-get install python3-venv"
    else
      say "error: could not create $venv: $err"
    fi
    exit 1
  fi
fi

wanted="$(sha256sum "$root/pyproject.toml" | cut -d' ' -f1)"
if [[ "$(cat "$stamp" 2>/dev/null)" != "$wanted" ]]; then
  say "installing the project and its test tools into $venv (pyproject.toml changed)"
  (cd "$root" && "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -e '.[test]') >&2
  # Written only after a successful install, so a failed one is retried next time.
  printf '%s\n' "$wanted" >"$stamp"
fi
