#!/usr/bin/env bash
# The one version of leaseq is `version` under [workspace.package] in Cargo.toml. Everything
# takes it from there:
#   - the crates (version.workspace = true), so libleaseq's leaseq_version() and the Node addon;
#   - the wheel (maturin reads the crate's version) and so leaseq.__version__ (the installed
#     distribution's metadata);
#   - leaseq.pc (ffi-c/Makefile and scripts/dist.sh read it here);
#   - the npm packages: node/package.json must hold the same (npm reads it from there when
#     building from a checkout); `set` writes it, `check` holds it to Cargo.toml, and
#     node/scripts/package.js refuses to pack a disagreeing one;
#   - the CLI's --version, once the CLI exists (clap's `version` reads CARGO_PKG_VERSION).
#
#   scripts/version.sh            print the version
#   scripts/version.sh check      fail when a copy disagrees with Cargo.toml
#   scripts/version.sh set 0.2.0  write a new version everywhere (then add it to CHANGELOG.md)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

workspace_version() {
  awk '/^\[/ { section = $0 } section == "[workspace.package]" && /^version *=/ {
         gsub(/.*= *"|".*/, ""); print; exit }' Cargo.toml
}

npm_version() {
  node -p 'require("./node/package.json").version'
}

case "${1:-print}" in
  print)
    workspace_version
    ;;
  check)
    want="$(workspace_version)"
    [ -n "$want" ] || { echo "version.sh: no version under [workspace.package] in Cargo.toml" >&2; exit 1; }
    bad=0
    got="$(npm_version)"
    if [ "$got" != "$want" ]; then
      echo "version.sh: node/package.json has $got, Cargo.toml has $want (run scripts/version.sh set $want)" >&2
      bad=1
    fi
    got="$(node -p 'const l = require("./node/package-lock.json"); [l.version, l.packages[""].version].join(" ")')"
    if [ "$got" != "$want $want" ]; then
      echo "version.sh: node/package-lock.json has $got, Cargo.toml has $want" >&2
      bad=1
    fi
    if ! grep -q "^## \[$want\]" CHANGELOG.md; then
      echo "version.sh: CHANGELOG.md has no section for $want" >&2
      bad=1
    fi
    [ "$bad" -eq 0 ] && echo "version $want: Cargo.toml, node/package.json, node/package-lock.json, CHANGELOG.md agree"
    exit "$bad"
    ;;
  set)
    new="${2:?usage: scripts/version.sh set X.Y.Z}"
    [[ "$new" =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]] || { echo "version.sh: not a semver: $new" >&2; exit 1; }
    awk -v new="$new" '/^\[/ { section = $0 }
      section == "[workspace.package]" && /^version *=/ { print "version = \"" new "\""; next }
      { print }' Cargo.toml >Cargo.toml.new && mv Cargo.toml.new Cargo.toml
    node -e '
      const fs = require("node:fs")
      const version = process.argv[1]
      for (const file of ["node/package.json", "node/package-lock.json"]) {
        const json = JSON.parse(fs.readFileSync(file, "utf8"))
        json.version = version
        if (json.packages && json.packages[""]) json.packages[""].version = version
        fs.writeFileSync(file, JSON.stringify(json, null, 2) + "\n")
      }' "$new"
    # Cargo.lock records the workspace crates' versions.
    cargo update --workspace --offline -q 2>/dev/null || cargo update --workspace -q
    echo "version $new written; add a section for it to CHANGELOG.md"
    ;;
  *)
    echo "usage: scripts/version.sh [print | check | set X.Y.Z]" >&2
    exit 2
    ;;
esac
