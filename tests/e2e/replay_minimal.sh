#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/replay_minimal.sh — traces in the minimal_profiler format (the
# fixtures of tests/cli/fixtures/seed: two processes, reused pointers,
# separate state records, a PXN ProxyOp) replayed through the plugin record
# the same events by type, parent type, end, states and thread, with every
# detail the recording has (check_replay), and the replayed traces match
# what the replay called (check_truth). Teeth: a recording whose Coll says
# another algorithm, or that lost a state, must not pass check_replay.
# usage: replay_minimal.sh NCCLEMU PLUGIN CHECK_REPLAY CHECK_TRUTH FIXTURES
set -euo pipefail
emu=$1 plugin=$2 check_replay=$3 check_truth=$4 fixtures=$5
work=$(mktemp -d "${TMPDIR:-/tmp}/cclscope-replay-min-XXXXXX")
trap 'rm -rf "$work"' EXIT
export CCLSCOPE_MASK=all CCLSCOPE_SUMMARY=off
if ! CCLSCOPE_DIR="$work/replayed" "$emu" --plugin "$plugin" --replay "$fixtures" \
  --truth "$work/truth.jsonl" >"$work/replay.log" 2>&1; then
  echo "FAIL: ncclemu --replay of $fixtures failed:"; tail -n 30 "$work/replay.log"; exit 1
fi
grep -q "minimal_profiler format" "$work/replay.log" ||
  { echo "FAIL: the fixtures were not read as minimal_profiler traces"; cat "$work/replay.log"; exit 1; }
grep "ncclemu: replay" "$work/replay.log"
"$check_replay" "$fixtures" "$work/replayed" 2>/dev/null
truths=("$work"/truth.jsonl*)
"$check_truth" "$work/replayed" "${truths[@]}"

# teeth: the same replay against edited recordings
expect_mismatch() { # NAME SED-EXPRESSION EXPECTED-TEXT
  rm -rf "$work/edited"; mkdir "$work/edited"
  for f in "$fixtures"/*.jsonl; do sed -e "$2" "$f" >"$work/edited/$(basename "$f")"; done
  if "$check_replay" "$work/edited" "$work/replayed" >"$work/teeth.log" 2>&1; then
    echo "FAIL: check_replay passed a recording with $1"; exit 1
  fi
  grep -q "$3" "$work/teeth.log" ||
    { echo "FAIL: $1: expected '$3' in:"; cat "$work/teeth.log"; exit 1; }
  echo "ok: $1 is caught"
}
expect_mismatch "another algorithm" 's/"algo":"RING"/"algo":"TREE"/' "descriptor"
expect_mismatch "a lost state" '0,/"recordType":"state"/{/"recordType":"state"/d}' "states recorded"
