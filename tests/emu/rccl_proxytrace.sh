#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/emu/rccl_proxytrace.sh — RCCL's proxy-trace library is opened from
# the folder of RCCL's own library (here: ncclemu's), and only when no
# profiler library could be opened (docs/nccl-behaviour.md §12): a copy of
# ncclemu with librccl-profiler-proxytrace.so beside it, no
# NCCL_PROFILER_PLUGIN and no libnccl-profiler.so to be found, loads that
# library as the plugin with RCCL_ENABLE_PROXY_TRACE=1, and finds its dump
# function; without the variable it loads nothing.
# usage: rccl_proxytrace.sh NCCLEMU PROXYTRACE_LIB
set -euo pipefail
emu=$1 lib=$2
work=$(mktemp -d "${TMPDIR:-/tmp}/ncclemu-proxytrace-XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cp "$emu" "$work/ncclemu"
cp "$lib" "$work/librccl-profiler-proxytrace.so"
run() {
  env -u NCCL_PROFILER_PLUGIN -u LD_LIBRARY_PATH "$@" "$work/ncclemu" \
    --host rccl --no-devices --scenario multi-node --pace none --sizes 4K \
    --truth "$work/truth.jsonl"
}
run RCCL_ENABLE_PROXY_TRACE=1 >"$work/with.log" 2>&1 ||
  { cat "$work/with.log"; fail "ncclemu with RCCL_ENABLE_PROXY_TRACE=1 failed"; }
grep -q "\"call\":\"load\",\"path\":\"$work/librccl-profiler-proxytrace\\.so\",\"symbol\":\"ncclProfiler_v6\".*\"proxytrace_path\":\"$work/librccl-profiler-proxytrace\\.so\",\"proxytrace_tried\":true,\"proxytrace_loaded\":true,\"proxytrace_dump\":true" "$work/truth.jsonl.0" ||
  { grep '"call":"load"' "$work/truth.jsonl.0"; fail "the proxy-trace library beside the core was not loaded as the plugin"; }
rm -f "$work"/truth.jsonl*
if run >"$work/without.log" 2>&1; then
  fail "without RCCL_ENABLE_PROXY_TRACE a plugin was loaded from nowhere"
fi
grep -q "cannot load plugin" "$work/without.log" ||
  { cat "$work/without.log"; fail "expected no plugin at all without the variable"; }
echo "ok: RCCL's proxy-trace library loaded from the core's folder as the plugin, only with the variable"
