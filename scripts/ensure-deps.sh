#!/usr/bin/env bash
# Installs what the build and the tests need when it is missing. Safe to run again.
set -euo pipefail

sudo_if_needed() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

if ! command -v redis-server >/dev/null 2>&1 || ! command -v redis-cli >/dev/null 2>&1; then
  echo "ensure-deps: installing redis-server and redis-tools from Debian's packages" >&2
  sudo_if_needed apt-get update -qq
  sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server redis-tools >/dev/null
fi
if ! command -v openssl >/dev/null 2>&1; then
  echo "ensure-deps: installing openssl (the TLS test makes its certificate with it)" >&2
  sudo_if_needed apt-get update -qq
  sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openssl >/dev/null
fi
# Debian's package starts a service on 6379; our tests never use it, and it is not stopped here
# since it may be the user's own.
