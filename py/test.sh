#!/usr/bin/env bash
# Builds the Python package from source into py/.venv and runs its checks: ruff, mypy.stubtest on
# the hand-written stubs, mypy --strict on the package, its tests and the soak's Python worker, and
# pytest (which also runs and type-checks the programs of py/examples, the documentation's Python
# samples, and runs the conformance vectors of spec/vectors) against throwaway redis-servers.
# Needs Rust, Python 3 and pip; installs the rest. `make test-py` runs it.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(dirname "$here")"
cd "$repo"

venv="$here/.venv"

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

./py/build.sh
py="$venv/bin/python"

# The soak's Python worker lives with the soak; it is checked with the package's settings.
soak_worker="$repo/integration-tests/soak/workers/soak_worker.py"

echo "py: ruff"
(cd "$here" && "$py" -m ruff check -q --config pyproject.toml python tests examples "$soak_worker" \
  && "$py" -m ruff format -q --check --config pyproject.toml python tests examples "$soak_worker")

echo "py: mypy.stubtest"
(cd "$(mktemp -d)" && "$py" -m mypy.stubtest leaseq --allowlist "$here/stubtest-allowlist.txt")

echo "py: mypy --strict"
(cd "$here" && "$py" -m mypy --strict python/leaseq tests "$soak_worker")

echo "py: pytest"
cd "$here"
"$py" -m pytest tests
