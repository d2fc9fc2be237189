#!/usr/bin/env bash
# `make vectors`: the shared conformance vectors (spec/vectors) in all four languages, one after
# another; a case that fails in any language fails the whole run, and the runner's message names
# the language, the case and the step. (Each language's own test suite runs them too.)
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
target="$root/target/debug"
export LEASEQ_TEST_REDIS="${LEASEQ_TEST_REDIS:-$target/leaseq-test-redis}"
export LEASEQ_VECTOR_TOOL="${LEASEQ_VECTOR_TOOL:-$target/leaseq-vector-tool}"
failed=()

echo "== vectors: rust"
cargo test -q -p leaseq-vectors || failed+=(rust)

echo "== vectors: c"
work="$(mktemp -d)"
coproc LAUNCHER { "$LEASEQ_TEST_REDIS"; }
read -r line <&"${LAUNCHER[0]}"
url="$(sed -E 's/.*"url": "([^"]+)".*/\1/' <<<"$line")"
if gcc -Wall -Wextra -Werror -std=c11 -Iffi-c/include ffi-c/tests/vectors.c -o "$work/vectors" \
     -L"$target" -lleaseq -Wl,-rpath,"$target" -lcjson -lm -pthread; then
  "$work/vectors" "$url" "$LEASEQ_VECTOR_TOOL" spec/vectors || failed+=(c)
else
  failed+=(c)
fi
exec {LAUNCHER[1]}>&-
rm -rf "$work"

echo "== vectors: python"
py/.venv/bin/python -m pytest -q py/tests/test_vectors.py || failed+=(python)

echo "== vectors: node"
(cd node && node --test test/vectors.test.js) || failed+=(node)

if [ ${#failed[@]} -gt 0 ]; then
  echo "vectors failed in: ${failed[*]}"
  exit 1
fi
echo "vectors: all four languages passed"
