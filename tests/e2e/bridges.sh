#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/bridges.sh — the NVTX, CUPTI and ROCTX bridges
# (src/plugin/hot/bridge.h) through ncclemu, with
# tests/stand_in_plugins/nvtx_recorder as the NVTX tool,
# tests/stand_in_plugins/fake_cupti as libcupti and
# tests/stand_in_plugins/fake_roctx as libroctx64.
# usage: bridges.sh CASE NCCLEMU PLUGIN CHECK_TRUTH CHECK_BRIDGES RECORDER
#                   FAKE_CUPTI_DIR FAKE_ROCTX_DIR [ncclemu options...]
#   nvtx          CCLSCOPE_NVTX=1, --step-marks: the trace is still exact
#                 (check_truth) and the recorder saw exactly the ranges and
#                 marks the trace implies, per thread (check_bridges nvtx)
#   nvtx-sampled  the same with sampling (CCLSCOPE_SAMPLE etc. from the
#                 environment): ranges only for what was kept, no truth
#                 check (the truth has every event)
#   nvtx-metrics  the same in metrics-only mode (no trace): balanced ranges
#                 of every host-side type
#   nvtx-off      the recorder is there but CCLSCOPE_NVTX is unset: NVTX is
#                 never called (the recorder is not even loaded)
#   nvtx-absent   a build without NVTX headers: CCLSCOPE_NVTX=1 gives one
#                 warning per process, and the trace is still exact
#   cupti         CCLSCOPE_CUPTI=1, libcupti.so found on LD_LIBRARY_PATH:
#                 a push/pop of the trace id around every KernelLaunch
#   cupti-errors  every CUPTI call fails: one summary line per process and
#                 no other CUPTI message; the trace is still exact
#   cupti-absent  no CUPTI library: one info line per process, exact trace
#   roctx         --host rccl, CCLSCOPE_ROCTX=1, libroctx64.so found on
#                 LD_LIBRARY_PATH, --step-marks: the trace is still exact
#                 and the fake ROCTX saw exactly the ranges (named as NVTX
#                 names them) and marks the trace implies, per thread
#   roctx-off     --host rccl, the library is there but CCLSCOPE_ROCTX is
#                 unset: ROCTX is never called
#   roctx-nvidia  NVIDIA's NCCL (the default host), CCLSCOPE_ROCTX=1 and
#                 CCLSCOPE_NVTX=1: ROCTX is never called (one info line per
#                 process), NVTX gets its ranges as in case nvtx
#   roctx-absent  --host rccl, CCLSCOPE_ROCTX=1, no ROCTX library: one
#                 warning per process and nothing else, exact trace
set -euo pipefail
case_=$1 emu=$2 plugin=$3 check_truth=$4 check=$5 recorder=$6 cupti_dir=$7
roctx_dir=$8
shift 8
work=$(mktemp -d "${TMPDIR:-/tmp}/cclscope-bridges-XXXXXX")
trap 'rm -rf "$work"' EXIT

run() { # ncclemu with the plugin; environment from the caller
  if ! CCLSCOPE_DIR="$work/traces" CCLSCOPE_SUMMARY=off \
    "$emu" --plugin "$plugin" --pace none "$@" >"$work/emu.log" 2>&1; then
    echo "FAIL: ncclemu $* exited with an error:"
    head -n 150 "$work/emu.log" # sanitizer reports start early
    exit 1
  fi
}
truth() { # the trace is complete and exact
  for f in "$work"/traces/trace_*.jsonl; do
    tail -n 1 "$f" | grep -q '"recordType":"processEnd"' ||
      { echo "FAIL: $f does not end with processEnd"; exit 1; }
  done
  "$check_truth" "$work/traces" "$work"/truth.jsonl*
}
nprocs() { ls "$work"/traces/trace_*.jsonl | wc -l; }
count() { grep -c -- "$1" "$work/emu.log" || true; }
expect_lines() { # pattern count what
  local n
  n=$(count "$1")
  [ "$n" = "$2" ] || {
    echo "FAIL: $n lines matching '$1', expected $2 ($3):"
    grep -i "cclscope" "$work/emu.log" | head -20
    exit 1
  }
  echo "ok: $n lines '$1' ($3)"
}
use_recorder() {
  export NVTX_INJECTION64_PATH="$recorder" NVTX_RECORDER_FILE="$work/nvtx"
}
use_fake_roctx() {
  export LD_LIBRARY_PATH="$roctx_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export FAKE_ROCTX_FILE="$work/roctx"
}
use_fake_cupti() {
  export LD_LIBRARY_PATH="$cupti_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export FAKE_CUPTI_FILE="$work/cupti"
}

case $case_ in
nvtx)
  use_recorder
  CCLSCOPE_NVTX=1 NCCL_DEBUG=WARN run --truth "$work/truth.jsonl" --step-marks "$@"
  truth
  "$check" nvtx "$work/traces" "$work/nvtx" --min-marks 1
  expect_lines "NCCL WARN cclscope" 0 "no warning"
  ;;
nvtx-sampled)
  use_recorder
  CCLSCOPE_NVTX=1 NCCL_DEBUG=WARN run --step-marks "$@"
  "$check" nvtx "$work/traces" "$work/nvtx" --min-marks 1
  grep -q '"sampledOut":[1-9]' "$work"/traces/trace_*.jsonl ||
    { echo "FAIL: nothing was sampled out: the test does not test sampling"; exit 1; }
  ;;
nvtx-metrics)
  use_recorder
  CCLSCOPE_NVTX=1 CCLSCOPE_MODE=metrics CCLSCOPE_PROM_DIR="$work" run "$@"
  "$check" nvtx-only "$work/nvtx" GroupApi CollApi KernelLaunch Group Coll
  ;;
nvtx-off)
  use_recorder
  run --step-marks "$@"
  "$check" nvtx-off "$work/traces" "$work/nvtx"
  ;;
nvtx-absent)
  CCLSCOPE_NVTX=1 NCCL_DEBUG=WARN run --truth "$work/truth.jsonl" --step-marks "$@"
  truth
  expect_lines "CCLSCOPE_NVTX=1 is ignored" "$(nprocs)" "one warning per process"
  expect_lines "NCCL WARN cclscope" "$(nprocs)" "and nothing else"
  ;;
cupti)
  use_fake_cupti
  CCLSCOPE_CUPTI=1 NCCL_DEBUG=INFO run --truth "$work/truth.jsonl" "$@"
  truth
  "$check" cupti "$work/traces" "$work/cupti"
  expect_lines "CUPTI external correlation on ($cupti_dir" 0 "not by path"
  expect_lines "CUPTI external correlation on (libcupti.so," "$(nprocs)" \
    "found as libcupti.so"
  expect_lines "CUPTI external correlation:" 0 "no failure"
  ;;
cupti-errors)
  use_fake_cupti
  FAKE_CUPTI_FAIL=1 CCLSCOPE_CUPTI=1 NCCL_DEBUG=INFO \
    run --truth "$work/truth.jsonl" "$@"
  truth
  "$check" cupti-fail "$work/traces" "$work/cupti"
  expect_lines "CUPTI external correlation: [0-9]* calls failed (first error 15)" \
    "$(nprocs)" "one summary line per process"
  expect_lines "CUPTI" "$((2 * $(nprocs)))" "the summary and the info line, nothing per event"
  ;;
cupti-absent)
  CCLSCOPE_CUPTI_LIBRARY="$work/no/libcupti.so" CCLSCOPE_CUPTI=1 \
    NCCL_DEBUG=INFO run --truth "$work/truth.jsonl" "$@"
  truth
  expect_lines "no usable CUPTI library (tried $work/no/libcupti.so)" \
    "$(nprocs)" "one info line per process"
  expect_lines "CUPTI" "$(nprocs)" "and nothing else about CUPTI"
  ;;
roctx)
  use_fake_roctx
  CCLSCOPE_ROCTX=1 NCCL_DEBUG=INFO \
    run --host rccl --truth "$work/truth.jsonl" --step-marks "$@"
  truth
  "$check" roctx "$work/traces" "$work/roctx" --min-marks 1
  expect_lines "ROCTX ranges on (libroctx64.so)" "$(nprocs)" \
    "found as libroctx64.so, one line per process"
  expect_lines "NCCL WARN cclscope" 0 "no warning"
  ;;
roctx-off)
  use_fake_roctx
  run --host rccl --step-marks "$@"
  "$check" roctx-off "$work/traces" "$work/roctx"
  ;;
roctx-nvidia)
  use_fake_roctx
  use_recorder
  CCLSCOPE_ROCTX=1 CCLSCOPE_NVTX=1 NCCL_DEBUG=INFO \
    run --truth "$work/truth.jsonl" --step-marks "$@"
  truth
  "$check" roctx-off "$work/traces" "$work/roctx"
  "$check" nvtx "$work/traces" "$work/nvtx" --min-marks 1
  expect_lines "CCLSCOPE_ROCTX=1 is ignored: the host is NVIDIA's NCCL" \
    "$(nprocs)" "one info line per process"
  expect_lines "NCCL WARN cclscope" 0 "no warning"
  ;;
roctx-absent)
  CCLSCOPE_ROCTX_LIBRARY="$work/no/libroctx64.so" CCLSCOPE_ROCTX=1 \
    NCCL_DEBUG=INFO run --host rccl --truth "$work/truth.jsonl" \
    --step-marks "$@"
  truth
  expect_lines "no usable ROCTX library (tried $work/no/libroctx64.so)" \
    "$(nprocs)" "one warning per process"
  expect_lines "NCCL WARN cclscope" "$(nprocs)" "and no other warning"
  expect_lines "ROCTX" "$(nprocs)" "and nothing else about ROCTX"
  ;;
*)
  echo "usage: bridges.sh nvtx|nvtx-sampled|nvtx-metrics|nvtx-off|nvtx-absent|cupti|cupti-errors|cupti-absent|roctx|roctx-off|roctx-nvidia|roctx-absent ..."
  exit 2
  ;;
esac
