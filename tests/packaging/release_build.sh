#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/packaging/release_build.sh SRC DIR CC WERROR [GENERATOR] — the build a GPU node
# makes: Release, without the test libraries (PKG_CONFIG_LIBDIR pointing
# nowhere hides cmocka, cJSON and libotf2; libcurl is left out by CMake's
# CMAKE_DISABLE_FIND_PACKAGE_CURL), plugin + CLI + ncclemu. With
# -g, as a distribution compiles: the optimised code is the same, and the
# Debian packages' -dbgsym part has the debug information to keep
# (tests/packaging/deb.sh). The other packaging tests install and package
# this build. Incremental: a second run only checks it is up to date.
set -euo pipefail
src=$1 dir=$2 cc=$3 werror=$4 generator=${5:-Ninja}
fail() { echo "FAIL: $*"; exit 1; }

log=$(PKG_CONFIG_LIBDIR=/nonexistent cmake -S "$src" -B "$dir" -G "$generator" \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_FLAGS=-g -DCMAKE_C_COMPILER="$cc" \
  -DCCLSCOPE_WERROR="$werror" -DCMAKE_DISABLE_FIND_PACKAGE_CURL=ON 2>&1) || { echo "$log"; fail "configure"; }
grep -q "test suite OFF" <<<"$log" || { echo "$log"; fail "the suite was not left out"; }
grep -q "OTF2 support OFF" <<<"$log" || { echo "$log"; fail "OTF2 was found"; }
grep -q "ClickHouse loading OFF" <<<"$log" || { echo "$log"; fail "libcurl was found"; }
start=$SECONDS
cmake --build "$dir" --parallel "$(nproc 2>/dev/null || echo 2)" >"$dir.log" 2>&1 ||
  { cat "$dir.log"; fail "build"; }
for f in libnccl-profiler-cclscope.so cclscope ncclemu; do
  [ -e "$dir/$f" ] || fail "$dir/$f not built"
done
[ ! -e "$dir/tests" ] || fail "tests were built"
[ ! -e "$dir/bench" ] || fail "benchmarks were built without the tests"
echo "Release build: $((SECONDS - start)) s"
