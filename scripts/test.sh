#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# scripts/test.sh — the whole test suite, as CI runs it:
#   gcc build (with valgrind runs), a clang Release build without test
#   libraries (compile only), ASan+UBSan build, TSan build (clang); ctest in
#   each test build. The gcc build's
#   packaging tests (tests/packaging/) also build Release once, without
#   the test libraries, and install and package it. Installs its own
#   dependencies first.
# Usage: scripts/test.sh [--quick]   (--quick: gcc build only)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
# The OTLP receiver's schema packages, exactly as locked.
(cd tests/metrics && npm ci --no-audit --no-fund --loglevel=error)
# playwright-core for the browser test of `cclscope view`, exactly as locked.
(cd tests/browser && npm ci --no-audit --no-fund --loglevel=error)
# chdb (ClickHouse embedded) for the shipped SQL read in place, as locked.
(cd tests/clickhouse/chdb && npm ci --no-audit --no-fund --loglevel=error)

jobs=$(nproc 2>/dev/null || echo 2)
quick=0
[ "${1:-}" = "--quick" ] && quick=1

run_build() { # name, tests to leave out (a ctest -E regex, "" = none), cmake args...
  local dir=$1 exclude=$2; shift 2
  echo "=== $dir: configure and build"
  # Warnings are errors here, and the suite is required (never left out).
  cmake -S . -B "$dir" -G Ninja -DCCLSCOPE_WERROR=ON -DCCLSCOPE_BUILD_TESTS=ON "$@" >/dev/null
  ninja -C "$dir" -j "$jobs"
  echo "=== $dir: tests${exclude:+ (all but $exclude)}"
  local select=()
  [ -n "$exclude" ] && select=(-E "$exclude")
  # No test takes more than ~10 s here; a hung one fails after 300 s
  # instead of holding CI for ctest's default 1500 s.
  (cd "$dir" && ctest --output-on-failure -j "$jobs" --timeout 300 "${select[@]}")
}

run_build build-test-gcc "" -DCMAKE_C_COMPILER=gcc
if [ $quick -eq 0 ]; then
  # clang: a Release build as a GPU node makes it (no test libraries, so
  # plugin, CLI and ncclemu only), warnings as errors. Every file, the
  # tests included, is also compiled by clang with warnings as errors in
  # the TSan build below, which runs the whole suite clang-compiled: a
  # plain clang test run would only repeat it.
  echo "=== build-release-clang: configure and build (Release, no test libraries)"
  PKG_CONFIG_LIBDIR=/nonexistent cmake -S . -B build-release-clang -G Ninja \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER=clang -DCCLSCOPE_WERROR=ON >/dev/null
  ninja -C build-release-clang -j "$jobs"
  # The sanitizer builds leave out emu.*: ncclemu's own checks against the
  # stand-in plugins. ncclemu itself runs sanitized in every e2e test.
  run_build build-test-asan '^(style|emu)[.]' -DCMAKE_C_COMPILER=gcc -DCCLSCOPE_SANITIZE=address
  # TSan leaves out cli.emu.*: they record an emulated run, then check what
  # the CLI makes of it. The recording's threads are the e2e tests' (run
  # here), the CLI's reading threads those of the cli.* tests (run here).
  run_build build-test-tsan '^(style|emu|cli[.]emu)[.]' -DCMAKE_C_COMPILER=clang -DCCLSCOPE_SANITIZE=thread
fi
echo "=== all test builds passed"
