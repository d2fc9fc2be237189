#!/usr/bin/env bash
# `make check`: a contributor's loop in a few minutes, with no Redis: formatting and lint in every
# language, then the unit tests of the default members (the quick steps first). `make test` is
# the full run.
#   samples: every code block of the READMEs and docs/ is its example file (check-samples.py);
#   rustfmt --check;
#   workspace-hack/ up to date with the dependencies (`cargo hakari generate --diff`, when
#       cargo-hakari is installed);
#   py: ruff check, ruff format --check, mypy --strict (package, its tests, its examples, the
#       soak's worker),
#       from py/.check-venv, a venv of the tools only (py/venv.sh; no wheel is built);
#   node: tsc --strict --noEmit (node/tsconfig.json: the JS layer, the .d.ts files, the type
#       example), with the dev tools of node/package-lock.json (npm ci when they changed);
#   clippy -D warnings (default members, then leaseq-cli, leaseq-node and leaseq-py; every
#   target), cargo test --lib (default members).
# Needs Rust, Python 3 and pip, Node and npm; installs the rest. Prints each step's time.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
cargo="${CARGO:-cargo}"

step() {
  printf '\n== check: %s\n' "$*"
  SECONDS=0
}
took() { printf '   (%ss)\n' "$SECONDS"; }

step "samples: each code block of the READMEs and docs/ is its example file"
python3 scripts/test_check_samples.py -q
python3 scripts/check-samples.py
took

step "rustfmt --check"
"$cargo" fmt --all -- --check
took

step "workspace-hack: the features every suite shares (cargo hakari, when installed)"
if "$cargo" hakari --version >/dev/null 2>&1; then
  "$cargo" hakari generate --diff
  if grep -q leaseq-workspace-hack core/Cargo.toml; then
    echo "core/Cargo.toml must not depend on leaseq-workspace-hack (the core is published)" >&2
    exit 1
  fi
else
  echo "   skipped: cargo-hakari is not installed (cargo install cargo-hakari)"
fi
took

step "py: ruff, mypy --strict"
py/venv.sh py/.check-venv
py="$repo/py/.check-venv/bin/python"
# As py/test.sh runs them, with the package's settings; the soak's Python worker too.
soak_worker="$repo/integration-tests/soak/workers/soak_worker.py"
(cd py &&
  "$py" -m ruff check -q --config pyproject.toml python tests examples "$soak_worker" &&
  "$py" -m ruff format -q --check --config pyproject.toml python tests examples "$soak_worker" &&
  "$py" -m mypy --strict --cache-dir "$repo/py/.check-venv/mypy-cache" python/leaseq tests examples \
    "$soak_worker")
took

step "node: tsc --noEmit --strict"
# npm ci (scripts off: no addon is built) when node_modules is missing or older than
# package-lock.json (npm writes node_modules/.package-lock.json as it installs).
if [ ! -e node/node_modules/.package-lock.json ] ||
  [ node/package-lock.json -nt node/node_modules/.package-lock.json ]; then
  (cd node && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
fi
(cd node && npx --no-install tsc -p tsconfig.json --noEmit --strict)
took

step "clippy -D warnings (default members, every target)"
"$cargo" clippy --quiet --all-targets -- -D warnings
took

step "clippy -D warnings (the CLI and the Python and Node bindings, every target)"
# As `make lint` does (it adds the bench); checked only, so neither libpython nor Node is linked.
"$cargo" clippy --quiet -p leaseq-cli -p leaseq-node -p leaseq-py --all-targets -- -D warnings
took

step "unit tests (cargo test --lib, default members)"
"$cargo" test --quiet --lib
took
