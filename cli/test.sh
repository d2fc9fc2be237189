#!/usr/bin/env bash
# The leaseq command's tests: every command against throwaway redis-servers and a local cluster,
# the JSON API over HTTP, and the dashboard in a real headless Chromium (Debian's chromium and
# chromium-driver, driven by selenium from a venv made here). Screenshots: target/cli-screenshots/
# (readme.png is the README's docs/dashboard.png: copy it there when the page changes).
set -euo pipefail
cd "$(dirname "$0")/.."

sudo_if_needed() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

if ! command -v chromium >/dev/null 2>&1 || ! command -v chromedriver >/dev/null 2>&1; then
  echo "cli/test.sh: installing chromium and chromium-driver from Debian's packages" >&2
  sudo_if_needed apt-get update -qq
  sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null
fi

VENV=cli/.venv
if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV"
fi
"$VENV/bin/pip" install -q --disable-pip-version-check 'selenium>=4.20' 'prometheus_client>=0.20'

export LEASEQ_TEST_PYTHON="$PWD/$VENV/bin/python"
export LEASEQ_CHROMIUM="$(command -v chromium)"
export LEASEQ_CHROMEDRIVER="$(command -v chromedriver)"
# Selenium must use the driver above and never try to download one (no internet needed).
export SE_OFFLINE=true
${CARGO:-cargo} build -p leaseq-harness --bins
${CARGO:-cargo} test -p leaseq-cli -- --include-ignored
