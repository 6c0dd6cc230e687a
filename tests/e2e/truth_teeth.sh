#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/truth_teeth.sh — check_truth must catch a wrong trace: after a
# clean run (which must pass), each of these edits of one trace line must
# make it fail with the matching message: a parent pointing at another
# event, a missing event, a never-stopped event claimed as stopped, a lost
# state, and an invented event.
# usage: truth_teeth.sh NCCLEMU PLUGIN CHECK_TRUTH
set -euo pipefail
emu=$1 plugin=$2 check=$3
work=$(mktemp -d "${TMPDIR:-/tmp}/cclscope-teeth-XXXXXX")
trap 'rm -rf "$work"' EXIT
CCLSCOPE_MASK=all CCLSCOPE_SUMMARY=off CCLSCOPE_DIR="$work/traces" "$emu" --plugin "$plugin" \
  --scenario chaos --pace none --sizes 4K,300K --truth "$work/truth.jsonl" >"$work/emu.log" 2>&1
truths=("$work"/truth.jsonl*)
"$check" "$work/traces" "${truths[@]}" >/dev/null || { echo "FAIL: the clean run does not pass"; exit 1; }
traces=("$work"/traces/trace_*.jsonl)
trace=${traces[0]}
cp "$trace" "$work/original"

expect_failure() { # description, expected message
  if out=$("$check" "$work/traces" "${truths[@]}"); then
    echo "FAIL: check_truth accepted a trace with $1"; exit 1
  fi
  grep -q "$2" <<<"$out" || { echo "FAIL: $1: expected '$2' in:"; echo "$out"; exit 1; }
  echo "ok: $1 -> $(grep -m1 "$2" <<<"$out")"
  cp "$work/original" "$trace"
}

# A ProxyStep whose parent is the process's first event instead.
line=$(grep -m1 -n '"type":"ncclProfileProxyStep".*"parentId":"0x[0-9a-f]*"' "$trace" | cut -d: -f1)
sed -i "${line}s/\"parentId\":\"0x[0-9a-f]*\"/\"parentId\":\"0x1\"/" "$trace"
expect_failure "a wrong parent" "WRONG parent"

line=$(grep -m1 -n '"type":"ncclProfileColl"' "$trace" | cut -d: -f1)
sed -i "${line}d" "$trace"
expect_failure "a missing Coll" "no event in the trace"

line=$(grep -m1 -n '"end":"reclaimed"' "$trace" | cut -d: -f1)
[ -n "$line" ] || { echo "FAIL: chaos produced no reclaimed event"; exit 1; }
sed -i "${line}s/\"end\":\"reclaimed\"/\"end\":\"stopped\"/" "$trace"
expect_failure "a never-stopped event claimed stopped" "never by NCCL"

line=$(grep -m1 -n '"states":\[{' "$trace" | cut -d: -f1)
sed -i "${line}s/\"states\":\[{[^}]*},*/\"states\":[/" "$trace"
expect_failure "a lost state" "states in the trace"

line=$(grep -m1 -n '"type":"ncclProfileGroup"' "$trace" | cut -d: -f1)
sed -n "${line}p" "$trace" | sed 's/"id":"0x[0-9a-f]*"/"id":"0x3ffffffffff"/' >>"$trace"
expect_failure "an invented event" "events in the trace"
echo "PASS: check_truth caught every edit"
