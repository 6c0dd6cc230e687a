#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/plugin/tls_size.sh — the plugin's thread-local storage stays tiny.
# glibc serves a dlopen'ed library's TLS from a small static reserve
# (512 bytes by default, shared by every library loaded later) only while
# it fits; past that every TLS access on NCCL's threads takes the slower
# dynamic path (measured: +3 ns per callback, docs/benchmarks.md).
# usage: tls_size.sh PLUGIN MAX_BYTES
set -euo pipefail
plugin=$1 max=$2
command -v readelf >/dev/null || { echo "FAIL: readelf (binutils) is not installed"; exit 1; }
hex=$(readelf -lW "$plugin" | awk '$1 == "TLS" { print $6 }')
size=$((${hex:-0}))
if [ "$size" -gt "$max" ]; then
  echo "FAIL: $plugin has $size bytes of TLS (limit $max): keep per-thread state in the ring (src/plugin/hot/ring.h)"
  exit 1
fi
echo "PASS: $size bytes of TLS (limit $max)"
