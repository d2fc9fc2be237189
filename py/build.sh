#!/usr/bin/env bash
# Builds the Python package from source and installs it into py/.venv (with the tools its checks
# use). py/test.sh runs it first; the soak and the demo use the venv's interpreter.
# Needs Rust, Python 3 and pip; installs the rest (py/venv.sh).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(dirname "$here")"
cd "$repo"

venv="$here/.venv"
# `dev` reuses the debug artifacts of `cargo test`; LEASEQ_PY_PROFILE=release for a release build.
profile="${LEASEQ_PY_PROFILE:-dev}"

# The venv and the checks' tools (py/requirements-dev.txt), then the build backend.
"$here/venv.sh" "$venv"
py="$venv/bin/python"
# The maturin build backend runs the `maturin` executable of this venv.
export PATH="$venv/bin:$PATH"
"$py" -m pip install -q --disable-pip-version-check "maturin>=1.9,<2"

echo "py: building and installing the package (profile $profile)"
MATURIN_PEP517_ARGS="--profile $profile" \
  "$py" -m pip install -q --disable-pip-version-check --no-build-isolation --force-reinstall --no-deps ./py

