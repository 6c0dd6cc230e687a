#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/run_kernel_phases.sh — one ncclemu run pretending NVIDIA NCCL
# 2.31 through the real plugin: the traces must match the ground truth
# (check_truth) and show 2.31's GPU events as NCCL emits them
# (check_kernel_phases: profiler thread, KernelPhase, phase spans).
# usage: run_kernel_phases.sh NCCLEMU PLUGIN CHECK_TRUTH CHECK_PHASES
#        [check_kernel_phases options...] -- [ncclemu options...]
# With SUMMARY_CLI (the cclscope binary) and SUMMARY_GPU_LAST=R set, the
# summary's GPU-measured wait must name global rank R: most wait caused on
# the GPU (KernelPhase initial_sync), and last on the GPU most often.
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
if [ -n "${SUMMARY_GPU_LAST:-}" ]; then
  "$SUMMARY_CLI" -q summary --json "$work/traces" >"$work/summary.json"
  python3 - "$work/summary.json" "$SUMMARY_GPU_LAST" <<'EOF'
import json, sys
gpus = json.load(open(sys.argv[1]))["stragglers"]["gpus"]
want = int(sys.argv[2])
measured = [g for g in gpus if "gpuMeasured" in g]
assert len(measured) >= 2, f"GPU-measured wait on {len(measured)} GPUs"
by_wait = max(measured, key=lambda g: g["gpuMeasured"]["waitCausedUs"])
by_last = max(measured, key=lambda g: g["gpuMeasured"]["timesLast"])
for g in measured:
    m = g["gpuMeasured"]
    print(f"g{g['globalRank']}: GPU last {m['timesLast']} of {m['instances']}, "
          f"caused {m['waitCausedUs']} us, mean initial_sync {m['meanInitialSyncUs']} us")
assert by_wait["globalRank"] == want, f"most GPU wait caused by g{by_wait['globalRank']}, not g{want}"
assert by_last["globalRank"] == want, f"last on the GPU most often: g{by_last['globalRank']}, not g{want}"
print(f"ok: the summary's GPU-measured wait names g{want}")
EOF
fi
