#!/usr/bin/env bash
# Makes a Python virtualenv at the path given (unless one that runs pip is there) with the tools of
# py/requirements-dev.txt. py/build.sh makes py/.venv with it (then builds the package into it);
# `make check` makes py/.check-venv, the tools only: ruff and mypy read the sources and the
# hand-written stubs, so no wheel is built.
# Needs Python 3 and pip; python3-venv is installed from Debian's packages when missing.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
venv="${1:?usage: py/venv.sh <directory>}"
python="${PYTHON:-python3}"

sudo_if_needed() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# A virtualenv of our own (Debian ships venv's pip in a separate package).
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -m pip --version >/dev/null 2>&1; then
  rm -rf "$venv"
  if ! "$python" -m venv "$venv" >/dev/null 2>&1; then
    echo "py/venv.sh: installing python3-venv from Debian's packages" >&2
    sudo_if_needed apt-get update -qq
    sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null
    rm -rf "$venv"
    "$python" -m venv "$venv"
  fi
fi

# The tools, unless this venv already has this list's versions (a copy of the list marks it).
stamp="$venv/requirements-dev.txt"
if ! cmp -s "$here/requirements-dev.txt" "$stamp"; then
  "$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$here/requirements-dev.txt"
  cp "$here/requirements-dev.txt" "$stamp"
fi
