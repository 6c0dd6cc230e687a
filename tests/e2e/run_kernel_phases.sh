#!/usr/bin/env bash
# tests/e2e/run_kernel_phases.sh — one ncclemu run pretending NVIDIA NCCL
# 2.31 through the real plugin: the traces must match the ground truth
# (check_truth) and show 2.31's GPU events as NCCL emits them
# (check_kernel_phases: profiler thread, KernelPhase, phase spans).
# usage: run_kernel_phases.sh NCCLEMU PLUGIN CHECK_TRUTH CHECK_PHASES
#        [check_kernel_phases options...] -- [ncclemu options...]
set -euo pipefail
emu=$1 plugin=$2 check=$3 phases=$4
shift 4
phase_args=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  phase_args+=("$1")
  shift
done
[ $# -gt 0 ] && shift
work=$(mktemp -d "${TMPDIR:-/tmp}/cclscope-e2e231-XXXXXX")
trap 'rm -rf "$work"' EXIT
if ! CCLSCOPE_DIR="$work/traces" "$emu" --plugin "$plugin" \
  --truth "$work/truth.jsonl" --nccl-version 2.31 "$@" >"$work/emu.log" 2>&1; then
  echo "FAIL: ncclemu $* exited with an error:"
  tail -n 30 "$work/emu.log"
  exit 1
fi
truths=("$work"/truth.jsonl*)
"$check" "$work/traces" "${truths[@]}"
"$phases" "${phase_args[@]}" "$work/traces" "${truths[@]}"
