#!/usr/bin/env bash
# Turns a fresh Raspberry Pi OS (bookworm) into a Dark Moon table: the kiosk on the screen
# from boot. Run from a checkout, as root:
#
#     sudo systemd/install.sh
#
# and reboot. Running it again is safe: it updates the program from the checkout and keeps
# your settings (/etc/darkmoon-companion/buttons.toml).
#
#     systemd/install.sh --root DIR
#
# does all it can inside DIR instead of on this machine, for CI and for checking: files under
# DIR, users in DIR/etc/passwd (needs root), the unit enabled with `systemctl --root`; no apt.
# The virtual environment it makes there works at its DIR path, not in an image.
set -euo pipefail
umask 022

SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PREFIX=/opt/darkmoon-companion          # the program: venv and the console helper
VENV="$PREFIX/venv"
ETC=/etc/darkmoon-companion              # the table's settings
UNIT=darkmoon-companion.service
SERVICE_USER=darkmoon                    # the unit's User=
STATE=/var/lib/darkmoon-companion        # the unit's StateDirectory=: the games
PYTHON=/usr/bin/python3                  # the system Python: apt's lgpio is built for it
ROOT=""                                  # "" = this machine
R=""                                     # prefix for every path written: "$ROOT" or ""

say() { printf 'install.sh: %s\n' "$*"; }
fail() { printf 'install.sh: error: %s\n' "$*" >&2; exit 1; }
skipped=()
skip() { skipped+=("$*"); say "skipped: $*"; }

usage() {
  cat <<EOF
usage: sudo $0 [--python PATH]
       $0 --root DIR [--python PATH]

Installs the Dark Moon table companion as the kiosk of this Raspberry Pi: apt packages, the
'$SERVICE_USER' user (groups gpio, dialout and audio), a virtual environment in $VENV with the
program from this checkout, $ETC/buttons.toml, and $UNIT enabled.
  --root DIR     install into DIR instead of this machine (no apt; users need root)
  --python PATH  the Python that makes the virtual environment (default $PYTHON)
EOF
}

while (( $# )); do
  case "$1" in
    --root)
      (( $# >= 2 )) || { usage >&2; fail "--root needs a directory"; }
      [[ -d "$2" ]] || fail "--root $2: no such directory"
      ROOT="$(cd "$2" && pwd)"; R="$ROOT"; shift ;;
    --python)
      (( $# >= 2 )) || { usage >&2; fail "--python needs a path"; }
      PYTHON="$2"; shift ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; fail "unknown option: $1" ;;
  esac
  shift
done

[[ -n "$ROOT" || $(id -u) -eq 0 ]] || fail "run it as root: sudo $0"
[[ -f "$SRC/pyproject.toml" && -f "$SRC/systemd/$UNIT" ]] \
  || fail "$SRC is not a darkmoon-companion checkout"
[[ "$ROOT" != "/" ]] || fail "--root / is this machine: leave --root out"
# On a fresh Raspberry Pi OS python3-venv may be missing, but python3 is there.
"$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null \
  || fail "$PYTHON is not Python 3.11 or newer (choose one with --python)"
if [[ -n "$ROOT" ]]; then
  say "installing into $ROOT (a throwaway root), from $SRC"
else
  say "installing on this machine, from $SRC"
fi

# --- apt packages --------------------------------------------------------------------------
# python3-venv: the virtual environment; kbd: setfont; console-setup-linux: the console fonts
# with the half blocks the QR codes need; python3-lgpio: GPIO on Raspberry Pi OS bookworm (its
# own archive has it, Debian's does not).
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q '^install ok installed'; }
install_packages() {
  # espeak-ng speaks the narrator's lines; alsa-utils' aplay plays them on ALSA (the jack or
  # HDMI, as the Pi is set: Raspberry Pi OS Lite has no desktop sound server)
  local wanted=(python3-venv kbd console-setup-linux espeak-ng alsa-utils) missing=() p
  for p in "${wanted[@]}"; do installed "$p" || missing+=("$p"); done
  # Refresh the package lists only when something is to be installed (a re-run at a table
  # with no internet must still work); a fresh image may have none.
  if (( ${#missing[@]} )) || ! installed python3-lgpio; then
    say "apt-get update"
    apt-get update || (( ${#missing[@]} == 0 )) || fail "apt-get update failed (network?)"
  fi
  if installed python3-lgpio; then
    :
  elif apt-cache show python3-lgpio >/dev/null 2>&1; then
    missing+=(python3-lgpio)
  else
    say "python3-lgpio is not in this system's archives (not Raspberry Pi OS?):" \
        "on a 64-bit Pi the program gets lgpio from pip instead (docs/pi-setup.md)"
  fi
  if (( ${#missing[@]} )); then
    say "apt-get install ${missing[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
  else
    say "the apt packages it needs are there"
  fi
}
if [[ -n "$ROOT" ]]; then
  skip "apt-get install (packages cannot be installed into a throwaway root)"
elif ! command -v apt-get >/dev/null; then
  skip "apt-get install (no apt-get here: install python3-venv, kbd and console fonts yourself)"
else
  install_packages
fi

# --- the service user ----------------------------------------------------------------------
# A system user with no login and no home of its own; gpio opens /dev/gpiochip*, dialout a
# USB-serial button box, audio the sound card the narrator speaks through. The groups exist on Raspberry Pi OS; made here where they do not.
rootopt=()
[[ -z "$ROOT" ]] || rootopt=(--root "$ROOT")
in_group() {  # in_group GROUP USER: is USER listed as a member of GROUP?
  local members
  members="$(awk -F: -v g="$1" '$1 == g { print $4 }' "$R/etc/group")"
  [[ ",$members," == *",$2,"* ]]
}
make_user() {
  local group
  for group in gpio dialout audio; do
    if ! grep -q "^$group:" "$R/etc/group"; then
      say "adding the system group $group"
      groupadd "${rootopt[@]}" --system "$group"
    fi
  done
  if grep -q "^$SERVICE_USER:" "$R/etc/passwd"; then
    say "user $SERVICE_USER is already there"
  else
    say "adding the system user $SERVICE_USER"
    useradd "${rootopt[@]}" --system --user-group --no-create-home --home-dir "$STATE" \
      --shell /usr/sbin/nologin --comment "Dark Moon table companion" "$SERVICE_USER"
  fi
  for group in gpio dialout audio; do
    if ! in_group "$group" "$SERVICE_USER"; then
      say "adding $SERVICE_USER to the group $group"
      usermod "${rootopt[@]}" --append --groups "$group" "$SERVICE_USER"
    fi
  done
}
if [[ ! -f "$R/etc/passwd" || ! -f "$R/etc/group" ]]; then
  skip "the user $SERVICE_USER and its groups ($R/etc/passwd or $R/etc/group is missing)"
elif [[ $(id -u) -ne 0 ]]; then
  skip "the user $SERVICE_USER and its groups (useradd --root needs root)"
else
  make_user
fi

# --- the program: a virtual environment ----------------------------------------------------
# --system-site-packages lets the venv see apt's python3-lgpio; everything pyproject.toml
# pins is installed into the venv itself and wins over the system's copies.
venv="$R$VENV"
base_version="$("$PYTHON" -c 'import sys; print(sys.version_info[:2])')"
if [[ -x "$venv/bin/python" ]] \
   && [[ "$("$venv/bin/python" -c 'import sys; print(sys.version_info[:2])' 2>/dev/null)" \
         == "$base_version" ]] \
   && "$venv/bin/python" -m pip --version >/dev/null 2>&1; then
  say "virtual environment $venv is there"
else
  say "making the virtual environment $venv"
  rm -rf "$venv"
  "$PYTHON" -m venv --system-site-packages "$venv" \
    || fail "'$PYTHON -m venv' failed: apt-get install python3-venv"
fi
# pip builds inside the source folder it is given: hand it a copy, so the checkout stays clean.
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
tar -C "$SRC" --exclude=./.venv --exclude=./.git --exclude=./data --exclude=./build \
  --exclude='*.egg-info' --exclude=__pycache__ --exclude=./tests --exclude=./.pytest_cache \
  --exclude=./.hypothesis -cf - . | tar -C "$work" -xf -
say "installing the program and its pinned dependencies into $venv (pip)"
# --compile: pip writes every module's byte code now, as root, into the root-owned venv. It is
# the only compiled code a start loads (the kiosk's user can write none of it, and nothing is
# loaded as code from the data directory), so no start has a module to compile again.
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --compile \
  --no-warn-script-location "$work" \
  || fail "pip could not install the program (is the network up?)"
# Run from / and not the checkout: nothing a kiosk may have left in the checkout is near it.
(cd / && "$venv/bin/darkmoon-companion" --help >/dev/null) \
  || fail "$venv/bin/darkmoon-companion does not run"
install -D -m 0755 "$SRC/systemd/kiosk-console" "$R$PREFIX/bin/kiosk-console"
# For the people at the table: `darkmoon-companion buttons --test` on the command line.
mkdir -p "$R/usr/local/bin"
ln -sfn "$VENV/bin/darkmoon-companion" "$R/usr/local/bin/darkmoon-companion"

# --- settings ------------------------------------------------------------------------------
# buttons.toml is the table's own: copied once, never overwritten. The example beside it is
# always the latest, to compare with.
example="$SRC/hardware/buttons.example.toml"
if [[ -f "$example" ]]; then
  install -D -m 0644 "$example" "$R$ETC/buttons.example.toml"
  if [[ -e "$R$ETC/buttons.toml" ]]; then
    say "keeping your $ETC/buttons.toml (the latest example is $ETC/buttons.example.toml)"
  else
    say "seat buttons: $ETC/buttons.toml, the GPIO pin map of hardware/WIRING.md"
    install -m 0644 "$example" "$R$ETC/buttons.toml"
  fi
else
  mkdir -p "$R$ETC"
  skip "$ETC/buttons.toml ($example is missing): the kiosk uses the keyboard"
fi

# Hotspot mode drives NetworkManager, whose polkit rules let only a logged-in user change
# the network: the service user gets the few actions a hotspot needs.
install -D -m 0644 "$SRC/systemd/50-darkmoon-companion.rules" \
  "$R/etc/polkit-1/rules.d/50-darkmoon-companion.rules"

# --- no screen blanking from boot ----------------------------------------------------------
cmdline=""
for candidate in "$R/boot/firmware/cmdline.txt" "$R/boot/cmdline.txt"; do
  if [[ -f "$candidate" ]] && grep -q 'root=' "$candidate"; then cmdline="$candidate"; break; fi
done
if [[ -z "$cmdline" ]]; then
  skip "consoleblank=0 in cmdline.txt (none here: not a Raspberry Pi?)"
else
  read -r -a words <"$cmdline" || true   # one line, perhaps with no newline at its end
  kept=()
  for word in "${words[@]}"; do [[ "$word" == consoleblank=* ]] || kept+=("$word"); done
  if [[ "${kept[*]} consoleblank=0" == "${words[*]}" ]]; then
    say "$cmdline already has consoleblank=0"
  else
    say "adding consoleblank=0 to $cmdline (the old one is kept as cmdline.txt.before-darkmoon)"
    [[ -e "$cmdline.before-darkmoon" ]] || cp -p "$cmdline" "$cmdline.before-darkmoon"
    printf '%s consoleblank=0\n' "${kept[*]}" >"$cmdline.new"
    mv "$cmdline.new" "$cmdline"
  fi
fi

# --- the unit ------------------------------------------------------------------------------
# Enabling and masking only write links under /etc/systemd/system, which systemctl does by
# itself where systemd is not running (a chroot, a container, an SD-card image being built);
# only reloading and starting need the running systemd. It runs when /run/systemd/system
# exists: the test sd_booted(3) makes.
running=no
[[ -z "$ROOT" && -d /run/systemd/system ]] && running=yes
install -D -m 0644 "$SRC/systemd/$UNIT" "$R/etc/systemd/system/$UNIT"
if ! command -v systemctl >/dev/null; then
  skip "systemctl enable $UNIT (no systemctl here)"
else
  sysctl_=(systemctl)
  [[ -z "$ROOT" ]] || sysctl_=(systemctl --root="$ROOT")
  if [[ $running == yes ]]; then
    systemctl daemon-reload
  elif [[ -z "$ROOT" ]]; then
    say "systemd is not running here: the service starts at the next boot"
  fi
  "${sysctl_[@]}" enable "$UNIT"
  # The kiosk owns tty1: no login prompt there at boot (Alt+F2 still gives one on tty2).
  if "${sysctl_[@]}" is-enabled --quiet getty@tty1.service 2>/dev/null; then
    "${sysctl_[@]}" disable getty@tty1.service
  fi
  if [[ "$("${sysctl_[@]}" is-enabled getty@tty1.service 2>/dev/null)" != masked ]]; then
    "${sysctl_[@]}" mask getty@tty1.service
  fi
  say "$UNIT enabled; getty@tty1 masked"
fi

say "done."
if (( ${#skipped[@]} )); then
  say "skipped, as said above:"
  for s in "${skipped[@]}"; do say "  - $s"; done
fi
if [[ $running == yes ]]; then
  say "reboot (sudo reboot) and the kiosk comes up on the screen; to start it now instead:"
  say "  sudo systemctl start $UNIT    (it takes over tty1 from anyone logged in there)"
  say "logs: journalctl -u darkmoon-companion"
elif [[ -z "$ROOT" ]]; then
  say "the kiosk comes up on the screen when the Pi next boots this system"
  say "logs, once it has: journalctl -u darkmoon-companion"
fi
