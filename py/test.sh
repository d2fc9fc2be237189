#!/usr/bin/env bash
# Builds the Python package from source into py/.venv and runs its checks: ruff, mypy.stubtest on
# the hand-written stubs, mypy --strict on the package, its tests and the soak's Python worker, and
# pytest (which also runs and type-checks the README's Python examples, and runs the conformance
# vectors of spec/vectors) against throwaway redis-servers.
# Needs Rust, Python 3 and pip; installs the rest. `make test-py` runs it.
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

# redis-server for the launcher, and the launcher itself.
./scripts/ensure-deps.sh
if [ -z "${LEASEQ_TEST_REDIS:-}" ]; then
  cargo build -q -p leaseq-harness --bin leaseq-test-redis
  export LEASEQ_TEST_REDIS="$repo/target/debug/leaseq-test-redis"
fi
# The Redis side of the conformance vectors (tests/test_vectors.py).
if [ -z "${LEASEQ_VECTOR_TOOL:-}" ]; then
  cargo build -q -p leaseq-harness --bin leaseq-vector-tool
  export LEASEQ_VECTOR_TOOL="$repo/target/debug/leaseq-vector-tool"
fi

# A virtualenv of our own (Debian ships venv's pip in a separate package).
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -m pip --version >/dev/null 2>&1; then
  rm -rf "$venv"
  if ! "$python" -m venv "$venv" >/dev/null 2>&1; then
    echo "test.sh: installing python3-venv from Debian's packages" >&2
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

# The soak's Python worker lives with the soak; it is checked with the package's settings.
soak_worker="$repo/integration-tests/soak/workers/soak_worker.py"

echo "py: ruff"
(cd "$here" && "$py" -m ruff check -q --config pyproject.toml python tests "$soak_worker" \
  && "$py" -m ruff format -q --check --config pyproject.toml python tests "$soak_worker")

echo "py: mypy.stubtest"
(cd "$(mktemp -d)" && "$py" -m mypy.stubtest leaseq)

echo "py: mypy --strict"
(cd "$here" && "$py" -m mypy --strict python/leaseq tests "$soak_worker")

echo "py: pytest"
cd "$here"
"$py" -m pytest tests
