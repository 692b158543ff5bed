#!/usr/bin/env bash
# Make .venv ready: `bootstrap.sh` for the kiosk (./darkmoon: the product's dependencies
# only), `bootstrap.sh test` for ./run-tests (the test tools too: pytest, Playwright,
# hypothesis, axe). Creates .venv if absent and installs only when pyproject.toml changed
# since the last install, or when the test tools are asked for and were never installed.
# Safe to run any number of times.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$root/.venv"
# Holds the sha256 of the pyproject.toml last installed and what was installed with it
# ("runtime" or "test"). A stamp with the hash alone was written when every install
# included the test tools.
stamp="$venv/.darkmoon-installed"
python="${PYTHON:-python3}"
wants="${1:-runtime}"

say() { printf 'bootstrap: %s\n' "$*" >&2; }

# On a Raspberry Pi the venv sees the system's packages, as the appliance's does: where pip
# has no lgpio wheel for this Python (a 32-bit system, a Python newer than 3.13), Raspberry Pi
# OS's python3-lgpio drives the seat buttons instead of gpiozero's experimental fallback (Pi 4)
# or nothing (Pi 5). Whatever pyproject.toml pins still goes into the venv and wins over the
# system's copy. Anywhere else the venv stays closed. DARKMOON_PI_MODEL: another model file
# to read (the tests play a Pi with it).
venv_options=()
if [[ "$(tr -d '\0' 2>/dev/null <"${DARKMOON_PI_MODEL:-/proc/device-tree/model}")" \
      == "Raspberry Pi"* ]]; then
  venv_options=(--system-site-packages)
fi

case "$wants" in
  runtime) target='.' ;;
  test) target='.[test]' ;;
  *) say "error: unknown argument '$wants' (nothing, or 'test')"; exit 2 ;;
esac

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
  if ! err="$("$python" -m venv ${venv_options[@]+"${venv_options[@]}"} "$venv" 2>&1)"; then
    rm -rf "$venv"
    if [[ "$err" == *ensurepip* || "$err" == *"No module named venv"* ]]; then
      say "error: '$python -m venv' does not work here; install it with: sudo apt-get install python3-venv"
    else
      say "error: could not create $venv: $err"
    fi
    exit 1
  fi
fi

# A venv made on a Pi before it saw the system's packages: let it see them now.
if (( ${#venv_options[@]} )) \
   && grep -q '^include-system-site-packages = false' "$venv/pyvenv.cfg" 2>/dev/null; then
  say "letting $venv see the system's packages (python3-lgpio for the seat buttons)"
  sed -i 's/^include-system-site-packages = false/include-system-site-packages = true/' \
    "$venv/pyvenv.cfg"
fi

wanted="$(sha256sum "$root/pyproject.toml" | cut -d' ' -f1)"
read -r had had_what 2>/dev/null <"$stamp" || true
had_what="${had_what:-test}"
if [[ "${had:-}" == "$wanted" && ( "$wants" == runtime || "$had_what" == test ) ]]; then
  exit 0
fi
if [[ "$wants" == test ]]; then
  say "installing the project and its test tools into $venv"
else
  say "installing the project into $venv"
fi
(cd "$root" && "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -e "$target") >&2
# Written only after a successful install, so a failed one is retried next time.
printf '%s %s\n' "$wanted" "$wants" >"$stamp"
