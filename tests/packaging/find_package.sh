#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/packaging/find_package.sh PREFIX WORK CC [GENERATOR] — a project outside the
# tree finds the installed cclscope with find_package(cclscope): it
# compiles a file that includes cclscope/control.h through
# cclscope::control, and gets the plugin's path.
set -euo pipefail
prefix=$1 work=$2 cc=$3 generator=${4:-Ninja}
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$work"
mkdir -p "$work/src"
cat >"$work/src/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.20)
project(consumer LANGUAGES C)
find_package(cclscope 0.1 REQUIRED)
add_executable(consumer consumer.c)
target_link_libraries(consumer PRIVATE cclscope::control)
get_target_property(plugin_location cclscope::plugin IMPORTED_LOCATION)
file(WRITE ${CMAKE_BINARY_DIR}/found.txt
     "${CCLSCOPE_PLUGIN}\n${plugin_location}\n${CCLSCOPE_CLI}\n")
CMAKE
cat >"$work/src/consumer.c" <<'C'
#include <cclscope/control.h>
#include <dlfcn.h>
#include <stdio.h>
int main(void) {
  void *lib = dlopen("libnccl-profiler-cclscope.so", RTLD_NOW | RTLD_NOLOAD);
  int (*recording)(void) = lib ? (int (*)(void))dlsym(lib, "cclscope_is_recording") : NULL;
  printf("%d\n", recording ? recording() : -1);
  return 0;
}
C
cmake -S "$work/src" -B "$work/build" -G "$generator" -DCMAKE_C_COMPILER="$cc" \
  -DCMAKE_PREFIX_PATH="$prefix" >"$work/configure.log" 2>&1 ||
  { cat "$work/configure.log"; fail "find_package(cclscope)"; }
cmake --build "$work/build" >"$work/build.log" 2>&1 ||
  { cat "$work/build.log"; fail "building against cclscope/control.h"; }
[ "$("$work/build/consumer")" = -1 ] || fail "consumer did not run"
mapfile -t found <"$work/build/found.txt"
want=$(realpath "$prefix/lib/libnccl-profiler-cclscope.so")
[ "$(realpath "${found[0]}")" = "$want" ] || fail "CCLSCOPE_PLUGIN = ${found[0]}"
[ "$(realpath "${found[1]}")" = "$want" ] || fail "cclscope::plugin = ${found[1]}"
[ "$(realpath "${found[2]}")" = "$(realpath "$prefix/bin/cclscope")" ] ||
  fail "CCLSCOPE_CLI = ${found[2]}"
# A version the package does not promise is refused.
sed -i 's/find_package(cclscope 0.1 REQUIRED)/find_package(cclscope 9.0 REQUIRED)/' \
  "$work/src/CMakeLists.txt"
if cmake -S "$work/src" -B "$work/build9" -G "$generator" -DCMAKE_C_COMPILER="$cc" \
  -DCMAKE_PREFIX_PATH="$prefix" >"$work/configure9.log" 2>&1; then
  fail "find_package(cclscope 9.0) accepted version 0.x"
fi
echo "find_package: OK"
