#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/packaging/deb.sh BUILD WORK — `cpack -G DEB` in the Release build
# makes cclscope_VERSION_ARCH.deb; unpacked with dpkg -x into a throwaway
# root (never installed on the machine), its files are in /usr, and the
# installed ncclemu drives the installed plugin (NCCL_PROFILER_PLUGIN =
# its path in the root) to a trace that the installed cclscope checks.
set -euo pipefail
build=$1 work=$2
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$work"
mkdir -p "$work"
(cd "$build" && cpack -G DEB -B "$work/out" >"$work/cpack.log" 2>&1) ||
  { cat "$work/cpack.log"; fail "cpack -G DEB"; }
debs=("$work"/out/cclscope_*.deb)
[ ${#debs[@]} -eq 1 ] && [ -f "${debs[0]}" ] || fail "no single .deb: ${debs[*]}"
deb=${debs[0]}
[ "$(dpkg-deb -f "$deb" Package)" = cclscope ] || fail "package name"
depends=$(dpkg-deb -f "$deb" Depends)
[[ $depends =~ ^libc6( \(>= [0-9.]+\))?$ ]] || fail "Depends: $depends"

root=$work/root
dpkg-deb -x "$deb" "$root"
for f in usr/lib/libnccl-profiler-cclscope.so usr/bin/cclscope usr/bin/ncclemu \
  usr/libexec/cclscope/ncclemu usr/libexec/cclscope/libncclemu-cuda.so \
  usr/include/cclscope/control.h usr/lib/pkgconfig/cclscope.pc \
  usr/lib/cmake/cclscope/cclscopeConfig.cmake usr/share/man/man1/cclscope.1 \
  usr/share/bash-completion/completions/cclscope \
  usr/share/cclscope/prometheus/cclscope-rules.yml \
  usr/share/cclscope/clickhouse/schema.sql \
  usr/share/cclscope/clickhouse/queries/stragglers_ranks.sql \
  usr/share/doc/cclscope/README.md usr/share/doc/cclscope/copyright \
  usr/share/doc/cclscope/LICENSE; do
  [ -e "$root/$f" ] || fail "$f not in the package"
done
[ ! -e "$root/usr/lib/libnccl-profiler.so" ] ||
  fail "the package installs NCCL's default name"

traces=$work/traces
CCLSCOPE_DIR=$traces CCLSCOPE_SUMMARY=off \
  NCCL_PROFILER_PLUGIN=$root/usr/lib/libnccl-profiler-cclscope.so \
  "$root/usr/bin/ncclemu" --scenario single-node --quiet --max-callback-ms 5000 ||
  fail "ncclemu with the installed plugin"
n=$(find "$traces" -name '*.jsonl' | wc -l)
[ "$n" -ge 1 ] || fail "no trace written in $traces"
out=$("$root/usr/bin/cclscope" check "$traces") || { echo "$out"; fail "cclscope check"; }
grep -q " 0 errors, .* — OK" <<<"$out" || fail "check: $out"
echo "deb: $(basename "$deb") ($depends), $n traces checked"
