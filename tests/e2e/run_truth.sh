#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/run_truth.sh — run one ncclemu scenario through the real plugin
# and compare every trace with the emulator's ground truth (check_truth).
# usage: run_truth.sh NCCLEMU PLUGIN CHECK_TRUTH [ncclemu options...]
# Environment for the plugin (CCLSCOPE_MASK, ...) passes through.
set -euo pipefail
emu=$1 plugin=$2 check=$3
shift 3
work=$(mktemp -d "${TMPDIR:-/tmp}/cclscope-e2e-XXXXXX")
trap 'rm -rf "$work"' EXIT
if ! CCLSCOPE_DIR="$work/traces" "$emu" --plugin "$plugin" --truth "$work/truth.jsonl" \
  "$@" >"$work/emu.log" 2>&1; then
  echo "FAIL: ncclemu $* exited with an error:"
  tail -n 30 "$work/emu.log"
  exit 1
fi
# Traces must be complete: a process record first, a processEnd last.
for f in "$work"/traces/trace_*.jsonl; do
  tail -n 1 "$f" | grep -q '"recordType":"processEnd"' ||
    { echo "FAIL: $f does not end with processEnd"; exit 1; }
done
truths=("$work"/truth.jsonl*)
"$check" "$work/traces" "${truths[@]}"
