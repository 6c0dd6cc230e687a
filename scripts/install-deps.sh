#!/usr/bin/env bash
# scripts/install-deps.sh — install what building and testing cclscope needs
# on Debian 12 (bookworm). Idempotent: packages already installed are not
# touched, so a second run takes a second. Uses sudo when not root.
set -euo pipefail

# Build and unit tests; exporter end-to-end tests (a real Prometheus
# server, curl, libcurl for the plugin's dlopen'ed OTLP push, node for the
# OTLP schema-validating receiver); Debian's chromium for the browser test of
# `cclscope view` (driven by npm playwright-core, which never downloads a
# browser of its own).
PACKAGES=(
  build-essential cmake ninja-build pkg-config clang
  libcmocka-dev libcjson-dev valgrind
  clang-format prometheus curl libcurl4 python3
  libopen-trace-format2-dev otf2-tools
  chromium
)
# node and npm may come from Debian or from another node distribution that
# bundles npm (NodeSource): only ask Debian when the commands are missing.
command -v node >/dev/null || PACKAGES+=(nodejs)
command -v npm >/dev/null || PACKAGES+=(npm)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PACKAGES[@]} packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  SUDO="sudo"
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
if ! $SUDO apt-get install -y --no-install-recommends "${missing[@]}"; then
  $SUDO apt-get update
  $SUDO apt-get install -y --no-install-recommends "${missing[@]}"
fi
