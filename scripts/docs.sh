#!/usr/bin/env bash
# `make docs`: builds the documentation site into target/site and checks it.
#   1. the tools of docs/requirements.txt into target/docs-venv (a venv of our own);
#   2. the API references generated from the code, into target/docs-api: rustdoc of the leaseq
#      crate (warnings are errors, so a broken intra-doc link fails) and TypeDoc over
#      node/index.d.ts (node's devDependencies; warnings are errors);
#   3. the tests of the C reference's renderer, the link checker, the operations' check and the
#      griffe extension that turns the Python docstrings' Sphinx roles into code
#      (scripts/test_*.py);
#   4. mkdocs build --strict (mkdocs.yml; scripts/docs_hooks.py adds the spec, the generated
#      references and the C reference): a broken link between pages or to an anchor fails;
#   5. scripts/check_links.py over every page of target/site, the generated references included:
#      every local link and anchor, and nothing loaded from another host;
#   6. scripts/check_reference_ops.py: the Python reference and TypeDoc's Queue page document
#      every operation of the core's table (docs/reference/operations.md, rendered from it).
# Needs Rust, Python 3 and pip, Node and npm. Prints each step's time.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
cargo="${CARGO:-cargo}"
venv="$repo/target/docs-venv"
api="$repo/target/docs-api"
export LEASEQ_DOCS_API="$api"

step() {
  printf '\n== docs: %s\n' "$*"
  SECONDS=0
}
took() { printf '   (%ss)\n' "$SECONDS"; }

step "tools (docs/requirements.txt into target/docs-venv)"
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -m pip --version >/dev/null 2>&1; then
  rm -rf "$venv"
  if ! python3 -m venv "$venv" >/dev/null 2>&1; then
    echo "docs.sh: installing python3-venv from Debian's packages" >&2
    if [ "$(id -u)" -eq 0 ]; then sudo=(); else sudo=(sudo); fi
    "${sudo[@]}" apt-get update -qq
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null
    rm -rf "$venv"
    python3 -m venv "$venv"
  fi
fi
# Unless this venv already has this list's versions (a copy of the list marks it).
if ! cmp -s docs/requirements.txt "$venv/requirements.txt"; then
  "$venv/bin/python" -m pip install -q --disable-pip-version-check -r docs/requirements.txt
  cp docs/requirements.txt "$venv/requirements.txt"
fi
took

step "rustdoc (cargo doc -p leaseq --no-deps)"
# Where cargo writes (CARGO_TARGET_DIR or a config may move it from target/).
doc="$("$cargo" metadata --format-version 1 --no-deps |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')/doc"
rm -rf "$doc" "$api/rust"
mkdir -p "$api"
RUSTDOCFLAGS="${RUSTDOCFLAGS:-} -D warnings" "$cargo" doc --quiet -p leaseq --no-deps
cp -r "$doc" "$api/rust"
# The reference's root (rustdoc's settings and help pages link to ./index.html): to the crate.
cat >"$api/rust/index.html" <<'HTML'
<!DOCTYPE html><meta charset="utf-8"><title>leaseq (Rust)</title>
<meta http-equiv="refresh" content="0; url=leaseq/index.html"><a href="leaseq/index.html">leaseq</a>
HTML
took

step "TypeDoc (node/index.d.ts)"
# npm ci (scripts off: no addon is built) when node_modules is missing or older than
# package-lock.json, as `make check` does.
if [ ! -e node/node_modules/.package-lock.json ] ||
  [ node/package-lock.json -nt node/node_modules/.package-lock.json ]; then
  (cd node && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
fi
rm -rf "$api/node"
(cd node && npx --no-install typedoc --logLevel Warn --treatWarningsAsErrors \
  --tsconfig tsconfig.json --entryPoints index.d.ts --readme none --disableSources \
  --name "leaseq for Node" --out "$api/node")
took

step "the tests of the C reference's renderer, the link checker, the operations' check, the griffe extension"
(cd scripts && "$venv/bin/python" -m unittest -q test_c_header_md test_check_links \
  test_check_reference_ops test_docs_griffe)
took

step "mkdocs build --strict"
rm -rf target/site
"$venv/bin/mkdocs" build --strict --quiet
took

step "links (scripts/check_links.py target/site)"
# Not checked: the #line ids of rustdoc's source pages (made by its JavaScript); MkDocs's
# 404.html (it links from the server's root); and tracing's WithSubscriber docs, which rustdoc
# copies into every type's page (a blanket impl) with a relative link into tracing's own docs,
# not built with --no-deps.
python3 scripts/check_links.py target/site --skip-anchors-under reference/rust/src/ \
  --skip-page 404.html --ignore-link '^dispatcher#setting-the-default-subscriber$'
took

step "operations (scripts/check_reference_ops.py: each in the Python and Node references)"
python3 scripts/check_reference_ops.py target/site docs/reference/operations.md
took

echo
echo "docs: target/site/index.html"
