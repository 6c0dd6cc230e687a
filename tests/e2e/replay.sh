#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/replay.sh — a recorded trace replayed through the same plugin
# records the same thing: record one ncclemu scenario with CCLSCOPE_MASK=all,
# replay the traces (ncclemu --replay) into a second folder with --truth,
# then check_replay compares the two recordings (events by type, parent
# type, end, states; recorded tid -> replayed tid a bijection) and
# check_truth compares the replayed traces with what the replay called.
# usage: replay.sh NCCLEMU PLUGIN CHECK_REPLAY CHECK_TRUTH SCENARIO|DIR
#        [replay options...] [-- scenario options...]
# A DIR instead of a scenario holds traces recorded elsewhere (real NCCL,
# CCLSCOPE_MASK=all): they are replayed and compared as they are.
set -euo pipefail
emu=$1 plugin=$2 check_replay=$3 check_truth=$4 scenario=$5
shift 5
replay_opts=() scenario_opts=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do replay_opts+=("$1"); shift; done
[ $# -gt 0 ] && shift
scenario_opts=("$@")
work=$(mktemp -d "${TMPDIR:-/tmp}/cclscope-replay-XXXXXX")
trap 'rm -rf "$work"' EXIT
export CCLSCOPE_MASK=all CCLSCOPE_SUMMARY=off
recorded=$work/recorded
if [ -d "$scenario" ]; then
  recorded=$scenario
elif ! CCLSCOPE_DIR="$work/recorded" "$emu" --plugin "$plugin" --scenario "$scenario" \
  --pace none --sizes 4K,300K,2M "${scenario_opts[@]}" >"$work/record.log" 2>&1; then
  echo "FAIL: recording ncclemu --scenario $scenario failed:"; tail -n 30 "$work/record.log"; exit 1
fi
if ! CCLSCOPE_DIR="$work/replayed" "$emu" --plugin "$plugin" --replay "$recorded" \
  --truth "$work/truth.jsonl" "${replay_opts[@]}" >"$work/replay.log" 2>&1; then
  echo "FAIL: ncclemu --replay failed:"; tail -n 30 "$work/replay.log"; exit 1
fi
grep "ncclemu: replay" "$work/replay.log" || true
paced=()
for o in "${replay_opts[@]}"; do [ "$o" = recorded ] && paced=(--paced); done
"$check_replay" "$recorded" "$work/replayed" "${paced[@]}"
truths=("$work"/truth.jsonl*)
"$check_truth" "$work/replayed" "${truths[@]}"
