#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# scripts/install-deps.sh — install what building and testing cclscope needs
# on Debian 12 (bookworm). Idempotent: packages already installed are not
# touched, so a second run takes a second. Uses sudo when not root.
set -euo pipefail

# Build and unit tests; exporter end-to-end tests (a real Prometheus
# server, curl, libcurl for the plugin's dlopen'ed OTLP push, node for the
# OTLP schema-validating receiver); groff and man render the generated man
# pages (tests/packaging/man.sh). Debian's chromium, for the browser test
# of `cclscope view`, is installed at the end (see there).
PACKAGES=(
  build-essential cmake ninja-build pkg-config clang
  libcmocka-dev libcjson-dev valgrind
  clang-format prometheus curl libcurl4 python3
  libopen-trace-format2-dev otf2-tools
  groff-base man-db
  zstd # tests of compressed traces (zstd -t, zstd -d)
  libcurl4-openssl-dev # `cclscope load` (ClickHouse over HTTP)
)
# node and npm may come from Debian or from another node distribution that
# bundles npm (NodeSource): only ask Debian when the commands are missing.
command -v node >/dev/null || PACKAGES+=(nodejs)
command -v npm >/dev/null || PACKAGES+=(npm)

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
SUDO=""
[ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
apt_install() { # packages...: install, updating the lists once if needed
  $SUDO apt-get install -y --no-install-recommends "$@" ||
    { $SUDO apt-get update && $SUDO apt-get install -y --no-install-recommends "$@"; }
}

missing=()
for p in "${PACKAGES[@]}"; do
  installed "$p" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PACKAGES[@]} packages present"
else
  if [ "$(id -u)" -ne 0 ] && [ -z "$SUDO" ]; then
    echo "install-deps: need root or sudo to install: ${missing[*]}" >&2
    exit 1
  fi
  echo "install-deps: installing ${missing[*]}"
  apt_install "${missing[@]}"
fi

# Debian's chromium runs the browser test of `cclscope view` (driven by npm
# playwright-core, which never downloads a browser of its own). Where no
# chromium package can be installed the suite goes on: that test then says
# so and is skipped; where it can, the test requires it.
if ! installed chromium; then
  if [ "$(id -u)" -eq 0 ] || [ -n "$SUDO" ]; then
    echo "install-deps: installing chromium"
    apt_install chromium ||
      echo "install-deps: WARNING: chromium cannot be installed here; the browser test of 'cclscope view' will fail unless no chromium package exists at all (then it is skipped)" >&2
  else
    echo "install-deps: WARNING: chromium is missing and there is no root or sudo to install it" >&2
  fi
fi
