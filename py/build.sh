#!/usr/bin/env bash
# Builds the Python package from source and installs it into py/.venv (with the tools its checks
# use). py/test.sh runs it first; the soak and the demo use the venv's interpreter.
# Needs Rust, Python 3 and pip; installs the rest.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(dirname "$here")"
cd "$repo"

python="${PYTHON:-python3}"
venv="$here/.venv"
# `dev` reuses the debug artifacts of `cargo test`; LEASEQ_PY_PROFILE=release for a release build.
profile="${LEASEQ_PY_PROFILE:-dev}"

sudo_if_needed() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# A virtualenv of our own (Debian ships venv's pip in a separate package).
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -m pip --version >/dev/null 2>&1; then
  rm -rf "$venv"
  if ! "$python" -m venv "$venv" >/dev/null 2>&1; then
    echo "py/build.sh: installing python3-venv from Debian's packages" >&2
    sudo_if_needed apt-get update -qq
    sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null
    rm -rf "$venv"
    "$python" -m venv "$venv"
  fi
fi
py="$venv/bin/python"
# The maturin build backend runs the `maturin` executable of this venv.
export PATH="$venv/bin:$PATH"
"$py" -m pip install -q --disable-pip-version-check \
  "maturin>=1.9,<2" "pytest>=8" "pytest-timeout>=2" "mypy>=1.10" "redis>=5" "ruff==0.17.6"

echo "py: building and installing the package (profile $profile)"
MATURIN_PEP517_ARGS="--profile $profile" \
  "$py" -m pip install -q --disable-pip-version-check --no-build-isolation --force-reinstall --no-deps ./py

