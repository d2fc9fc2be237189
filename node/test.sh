#!/usr/bin/env bash
# The Node binding's tests, from a fresh clone on a machine with Rust, Node and npm:
#   npm dev tools (locked versions) -> the addon (debug, by napi build) and a check that the committed
#   native.d.ts is what napi generates -> tsc --strict -> the npm packages (`leaseq` and its
#   platform package) installed in a scratch project -> node --test test/ against throwaway
#   redis-servers (among them the
#   conformance vectors of spec/vectors and the soak worker of integration-tests/soak/workers/).
set -euo pipefail
cd "$(dirname "$0")"
here=$(pwd)
repo=$(cd .. && pwd)
scratch=$(mktemp -d "${TMPDIR:-/tmp}/leaseq-node-test.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

step() { printf '\n== node: %s\n' "$*"; }

for tool in node npm cargo; do
  command -v "$tool" >/dev/null || { echo "node/test.sh needs $tool on PATH" >&2; exit 1; }
done
if ! command -v redis-server >/dev/null || ! command -v redis-cli >/dev/null; then
  "$repo/scripts/ensure-deps.sh"
fi

step "npm ci (dev tools at the versions in package-lock.json: @napi-rs/cli, typescript)"
# Scripts off: the addon is built below.
npm ci --ignore-scripts --no-audit --no-fund --loglevel=error

step "the throwaway Redis launcher and the conformance vectors' tool"
cargo build --quiet --manifest-path "$repo/Cargo.toml" -p leaseq-harness \
  --bin leaseq-test-redis --bin leaseq-vector-tool
target_dir=$(cargo metadata --format-version 1 --no-deps --manifest-path "$repo/Cargo.toml" |
  node -e 'let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => console.log(JSON.parse(s).target_directory))')
if [ -z "${LEASEQ_TEST_REDIS:-}" ]; then
  export LEASEQ_TEST_REDIS="$target_dir/debug/leaseq-test-redis"
fi
if [ -z "${LEASEQ_VECTOR_TOOL:-}" ]; then
  export LEASEQ_VECTOR_TOOL="$target_dir/debug/leaseq-vector-tool"
fi

step "the addon (napi build, debug) and its generated types"
cp native.d.ts "$scratch/native.d.ts.committed"
npx napi build --dts native.d.ts
if ! cmp -s native.d.ts "$scratch/native.d.ts.committed"; then
  diff -u "$scratch/native.d.ts.committed" native.d.ts || true
  echo "node/native.d.ts is out of date: napi build regenerated it above; commit it" >&2
  exit 1
fi

step "tsc --noEmit --strict (the JS layer, index.d.ts and test/types/example.ts)"
npx tsc -p tsconfig.json

step "the npm packages (napi-rs layout) from the debug addon, installed offline without scripts"
# node/scripts/package.js packs `leaseq` (no install script) and leaseq-linux-x64-gnu (the addon)
# as `make dist` does; a scratch project installs both and loads the addon from the second.
node scripts/package.js --addon leaseq.node --out "$scratch" --platform linux-x64-gnu
mkdir "$scratch/project"
echo '{ "name": "scratch", "private": true }' >"$scratch/project/package.json"
(cd "$scratch/project" &&
  npm install --offline --ignore-scripts --no-audit --no-fund --loglevel=error \
    "$scratch"/leaseq-linux-x64-gnu-*.tgz "$scratch"/leaseq-[0-9]*.tgz &&
  node "$here/test/helpers/packed-smoke.js")

step "node --test"
node --test test/*.test.js
