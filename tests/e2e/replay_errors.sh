#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/replay_errors.sh — ncclemu --replay on bad input says what is
# wrong and replays what can be replayed:
#   a file that is not JSON, and a JSON file that is not a cclscope trace:
#   exit 1 with "is not a cclscope trace";
#   beside a good trace: the good one is replayed (exit 0), the bad one named;
#   a trace with a garbage line, an event of an unknown type and an event
#   without details: replayed, each counted as skipped (and the child that
#   lost its parent).
# usage: replay_errors.sh NCCLEMU PLUGIN
set -euo pipefail
emu=$1 plugin=$2
work=$(mktemp -d "${TMPDIR:-/tmp}/cclscope-replay-err-XXXXXX")
trap 'rm -rf "$work"' EXIT
export CCLSCOPE_MASK=all CCLSCOPE_SUMMARY=off

expect() { # description, expected exit status, message regex, replay args...
  local what=$1 want=$2 regex=$3 status=0
  shift 3
  CCLSCOPE_DIR="$work/out" "$emu" --plugin "$plugin" --replay "$@" >"$work/log" 2>&1 || status=$?
  if [ "$status" != "$want" ]; then
    echo "FAIL: $what: exit $status, expected $want:"; cat "$work/log"; exit 1
  fi
  grep -Eq "$regex" "$work/log" || { echo "FAIL: $what: no /$regex/ in:"; cat "$work/log"; exit 1; }
  echo "ok: $what -> $(grep -Em1 "$regex" "$work/log")"
}

printf 'this is not json\n' >"$work/garbage.jsonl"
printf '{"hello":"world"}\n' >"$work/other.jsonl"
expect "a file that is not JSON" 1 "garbage.jsonl' is not a cclscope trace \\(its first line is not a trace record\\)" \
  "$work/garbage.jsonl"
expect "JSON that is not a trace" 1 "other.jsonl' is not a cclscope trace \\(its first line is not a trace record\\)" \
  "$work/other.jsonl"
expect "a missing file" 1 "cannot open" "$work/missing.jsonl"

CCLSCOPE_DIR="$work/rec" "$emu" --plugin "$plugin" --scenario single-node --pace none \
  --sizes 4K --ops 1 --quiet
good=$(ls "$work"/rec/trace_*.jsonl | head -n 1)
expect "a good trace beside a bad one" 0 "garbage.jsonl' is not a cclscope trace" \
  "$work/garbage.jsonl" "$good"
grep -q "replay ok" "$work/log" || { echo "FAIL: the good trace was not replayed"; cat "$work/log"; exit 1; }

# Damage a copy: one line of garbage, one event of an unknown type, one
# event without details (a CollApi: its Coll then starts without parent).
bad="$work/damaged.jsonl"
{
  head -n 3 "$good"
  echo '{"recordType":"event","type":"ncclProfileColl", garbage'
  sed -n '4,$p' "$good"
} >"$bad"
kl=$(grep -n -m1 '"type":"ncclProfileKernelCh"' "$bad" | cut -d: -f1)
sed -i "${kl}s/\"type\":\"ncclProfileKernelCh\"/\"type\":\"ncclProfileFuture\"/" "$bad"
kl=$(grep -n -m1 '"type":"ncclProfileCollApi"' "$bad" | cut -d: -f1)
sed -i "${kl}s/\"details\":{[^}]*}/\"detail\":{}/" "$bad"
expect "a damaged trace" 0 "1 event\(s\) of an unknown type skipped" "$bad"
grep -q "1 event(s) without details skipped" "$work/log" ||
  { echo "FAIL: the event without details was not reported"; cat "$work/log"; exit 1; }
grep -q "1 parent(s) not in the replayed files" "$work/log" ||
  { echo "FAIL: the Coll whose CollApi was skipped was not reported"; cat "$work/log"; exit 1; }
grep -q "1 line(s) that are not JSON skipped" "$work/log" ||
  { echo "FAIL: the garbage line was not reported"; cat "$work/log"; exit 1; }
grep -q "damaged.jsonl:4: not a JSON object" "$work/log" ||
  { echo "FAIL: the garbage line's place was not named"; cat "$work/log"; exit 1; }
echo "ok: damaged trace replayed, skips reported"
