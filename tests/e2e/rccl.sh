#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/rccl.sh — the plugin under `ncclemu --host rccl`, loaded the way
# RCCL loads it (docs/nccl-behaviour.md §12): the short name `cclscope`
# resolves to libnccl-profiler-cclscope.so; before 2.31 ncclProfiler_v6 is
# probed first, RCCL 2.31 probes ncclProfiler_v7 and has NVIDIA's 2.31
# profiler core (profiler thread, KernelPhase on bit 15 / state 31) with
# ProxyDiag moved to bit 16 / state 32. With every event type on, the trace
# matches the truth and carries RCCL's extras: ProxyOp details with the
# eight proxyOp fields, ProxyDiagUpdate states with their counters.
# `cclscope check` accepts the trace.
# usage: rccl.sh NCCLEMU PLUGIN CHECK_TRUTH CCLSCOPE RELEASE (2.30 or 2.31)
set -euo pipefail
emu=$1 plugin=$2 check_truth=$3 cli=$4 release=$5
work=$(mktemp -d "${TMPDIR:-/tmp}/cclscope-rccl-XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
if [ "$release" = 2.31 ]; then
  abi=7 diag_state=32
else
  abi=6 diag_state=31
fi

if ! LD_LIBRARY_PATH="$(dirname "$plugin")" CCLSCOPE_MASK=all \
  CCLSCOPE_SUMMARY=off CCLSCOPE_DIR="$work/traces" \
  "$emu" --plugin cclscope --host rccl --nccl-version "$release" \
  --scenario multi-node --pace none --sizes 4K,300K,2M \
  --truth "$work/truth.jsonl" >"$work/emu.log" 2>&1; then
  tail -n 30 "$work/emu.log"
  fail "ncclemu --host rccl exited with an error"
fi

# what was loaded: NCCL's file name, the release's symbol, our name
for t in "$work"/truth.jsonl.*; do
  grep -q "\"call\":\"load\",\"path\":\"[^\"]*/libnccl-profiler-cclscope\\.so\",\"symbol\":\"ncclProfiler_v$abi\",\"abi\":$abi,\"name\":\"cclscope\".*\"host\":\"rccl\"" "$t" ||
    fail "$t: RCCL $release did not load libnccl-profiler-cclscope.so through ncclProfiler_v$abi"
done
diags=$(cat "$work"/truth.jsonl.* | grep -c '"state_name":"ProxyDiagUpdate","counterKind"' || true)
[ "$diags" -gt 0 ] || fail "the truth has no ProxyDiagUpdate"

"$check_truth" "$work/traces" "$work"/truth.jsonl.*

traces=("$work"/traces/trace_*.jsonl)
[ "${#traces[@]}" -eq 2 ] || fail "expected 2 traces, got ${#traces[@]}"
cat "${traces[@]}" >"$work/all.jsonl"
grep -q '"recordType":"process".*"host":"rccl"' "$work/all.jsonl" ||
  fail "the process record does not say host rccl"
grep -q '"type":"ncclProfileProxyOp".*"details":{[^}]*"commHash":"0x[0-9a-f]*","opCount":[0-9]*,"traceFuncIdx":4,"traceProtocol":[0-9],"tracePattern":1,"traceTotalBytes":[1-9][0-9]*,"proxyNbytes":[1-9][0-9]*,"rawProxyNsteps":[1-9]' "$work/all.jsonl" ||
  fail "no ProxyOp with RCCL's proxyOp fields in the trace"
grep -q "{\"name\":\"ProxyDiagUpdate\",\"id\":$diag_state,\"ts\":[0-9.]*,\"counterKind\":2,\"flags\":1,\"value\":[1-9][0-9]*,\"value2\":[1-9][0-9]*" "$work/all.jsonl" ||
  fail "no ProxyDiagUpdate ($diag_state) with its counters in the trace"
if [ "$abi" = 6 ] && grep -q 'KernelPhase' "$work/all.jsonl"; then
  fail "bit 15 / state 31 read as NVIDIA's KernelPhase under RCCL $release"
fi
if [ "$abi" = 7 ]; then
  grep -q '"type":"ncclProfileKernelPhase"' "$work/all.jsonl" ||
    fail "no KernelPhase in the trace of RCCL 2.31"
  grep -q '{"name":"KernelPhaseStop","id":31,"ts":[0-9.]*,"pTimer":[1-9]' "$work/all.jsonl" ||
    fail "no KernelPhaseStop (31) with its pTimer in the trace of RCCL 2.31"
fi

"$cli" check "$work/traces"
echo "rccl $release: loaded by RCCL's name through v$abi, $diags ProxyDiagUpdate calls, trace matches the truth"
