#!/usr/bin/env bash
# `make bench`: installs what is missing, builds every client in release mode, and runs
# bench/driver.py (arguments are passed on, e.g. `bench/run.sh --runs 1 --scale 0.2`).
#   - redis-server, redis-benchmark: Debian's redis-server and redis-tools
#   - Python: bench/.venv (redis-work-queue 0.1.5, RQ, matplotlib, maturin) and the leaseq
#     binding built from py/ as a release wheel
#   - Node: bench/node_modules (BullMQ, from bench/package-lock.json) and the leaseq binding
#     from node/ with a release build of its addon
#   - Rust: target/release/leaseq-bench (leaseq and crates.io redis-work-queue 0.3)
#   - C: bench/.build/leaseq-bench-c against a release libleaseq (ffi-c/)
# A leaseq binding that does not build is reported and left out; the rest still runs. A peer
# (redis-work-queue, RQ, BullMQ) that cannot be installed stops the bench with an error: a
# comparison without it would look complete and not be.
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(dirname "$here")"
cd "$repo"
CARGO=${CARGO:-cargo}
target_dir=${CARGO_TARGET_DIR:-$repo/target}
build="$here/.build"
mkdir -p "$build"

say() { echo "bench/run.sh: $*" >&2; }
sudo_if_needed() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

# Redis and its benchmark tool.
./scripts/ensure-deps.sh || exit 1
if ! command -v redis-benchmark >/dev/null 2>&1; then
  say "installing redis-tools from Debian's packages"
  sudo_if_needed apt-get update -qq
  sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-tools >/dev/null || exit 1
fi

# Python virtualenv.
venv="$here/.venv"
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -m pip --version >/dev/null 2>&1; then
  rm -rf "$venv"
  if ! python3 -m venv "$venv" >/dev/null 2>&1; then
    say "installing python3-venv from Debian's packages"
    sudo_if_needed apt-get update -qq
    sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null
    rm -rf "$venv"
    python3 -m venv "$venv" || exit 1
  fi
fi
py="$venv/bin/python"
die() { say "error: $*"; exit 1; }
"$py" -m pip install -q --disable-pip-version-check -r "$here/requirements.txt" ||
  die "pip could not install bench/requirements.txt (the peers redis-work-queue and RQ among them)"
"$py" -c 'import redis_work_queue, rq' ||
  die "the Python peers (redis-work-queue, RQ) do not import from bench/.venv"

# Rust: the bench binary and the libraries behind the C and Node bindings, in one build.
packages=(-p leaseq-bench)
[ -f ffi-c/Cargo.toml ] && packages+=(-p leaseq-ffi)
[ -f node/Cargo.toml ] && packages+=(-p leaseq-node)
say "cargo build --release ${packages[*]}"
if ! "$CARGO" build -q --release "${packages[@]}"; then
  say "the combined build failed; building the bench binary alone"
  "$CARGO" build -q --release -p leaseq-bench ||
    die "the bench binary (leaseq and the peer redis-work-queue 0.3 from crates.io) did not build"
fi

# C: the runner against the release libleaseq.
rm -f "$build/leaseq-bench-c"
if [ -f "$target_dir/release/libleaseq.so" ] && [ -f ffi-c/include/leaseq.h ]; then
  cc -O2 -std=c11 -Wall -Wextra -I ffi-c/include "$here/c/runner.c" -o "$build/leaseq-bench-c" \
    -L "$target_dir/release" -lleaseq -Wl,-rpath,"$target_dir/release" -lpthread \
    || say "the C runner did not build; leaseq-c is left out"
else
  say "no release libleaseq.so; leaseq-c is left out"
fi

# Python binding: a release wheel of py/, installed into the venv.
if [ -f py/pyproject.toml ]; then
  say "building the Python binding (release wheel)"
  rm -rf "$build/wheels"
  if "$venv/bin/maturin" build -q --release -m py/Cargo.toml -o "$build/wheels" >&2; then
    "$py" -m pip install -q --disable-pip-version-check --force-reinstall --no-deps "$build"/wheels/*.whl \
      || say "the Python binding did not install; leaseq-python is left out"
  else
    "$py" -m pip uninstall -q -y leaseq >/dev/null 2>&1
    say "the Python binding did not build; leaseq-python is left out"
  fi
fi

# Node: BullMQ from the lockfile, and the leaseq binding's JS layer with a release addon.
if [ ! -d "$here/node_modules/bullmq" ]; then
  (cd "$here" && npm ci --no-audit --no-fund --loglevel=error) ||
    die "npm ci in bench/ failed, so the peer BullMQ is missing (bench/package-lock.json out of date?)"
fi
(cd "$here" && node -e 'require("bullmq")') || die "the peer BullMQ does not load from bench/node_modules"

rm -rf "$here/node_modules/leaseq"
if [ -f "$target_dir/release/libleaseq_node.so" ] && [ -f node/package.json ] && [ -d node/lib ]; then
  mkdir -p "$here/node_modules/leaseq"
  for f in package.json index.js index.mjs index.d.ts native.d.ts lib; do
    [ -e "node/$f" ] && cp -r "node/$f" "$here/node_modules/leaseq/"
  done
  cp "$target_dir/release/libleaseq_node.so" "$here/node_modules/leaseq/leaseq.node"
else
  say "no release Node addon; leaseq-node is left out"
fi

exec "$py" "$here/driver.py" "$@"
