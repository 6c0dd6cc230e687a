#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/replay_teeth.sh — check_replay must catch a replay that differs:
# after a clean record + replay (which must pass), each edit of the replayed
# trace must fail with the matching message: an event of another type, a
# parent of another type, an event moved to another thread (the tid map is
# then not a bijection), a lost state, a missing event, a descriptor field
# that differs.
# usage: replay_teeth.sh NCCLEMU PLUGIN CHECK_REPLAY
set -euo pipefail
emu=$1 plugin=$2 check=$3
work=$(mktemp -d "${TMPDIR:-/tmp}/cclscope-replay-teeth-XXXXXX")
trap 'rm -rf "$work"' EXIT
export CCLSCOPE_MASK=all CCLSCOPE_SUMMARY=off
CCLSCOPE_DIR="$work/rec" "$emu" --plugin "$plugin" --scenario multi-node --pace none \
  --sizes 4K,300K --quiet
CCLSCOPE_DIR="$work/rep" "$emu" --plugin "$plugin" --replay "$work/rec" --quiet
"$check" "$work/rec" "$work/rep" >/dev/null || { echo "FAIL: the clean replay does not pass"; exit 1; }
traces=("$work"/rep/trace_*.jsonl)
trace=${traces[0]}
cp "$trace" "$work/original"

expect_failure() { # description, expected message
  if out=$("$check" "$work/rec" "$work/rep"); then
    echo "FAIL: check_replay accepted a replay with $1"; exit 1
  fi
  grep -q "$2" <<<"$out" || { echo "FAIL: $1: expected '$2' in:"; echo "$out"; exit 1; }
  echo "ok: $1 -> $(grep -m1 "$2" <<<"$out")"
  cp "$work/original" "$trace"
}
line_of() { grep -n -m1 "$1" "$trace" | cut -d: -f1; }

l=$(line_of '"type":"ncclProfileKernelLaunch"')
sed -i "${l}s/ncclProfileKernelLaunch/ncclProfileGroup/" "$trace"
expect_failure "an event of another type" "recorded, Group replayed"

l=$(line_of '"type":"ncclProfileColl".*"parentId":"0x[0-9a-f]*"')
gid=$(grep -m1 -o '"type":"ncclProfileGroup","id":"0x[0-9a-f]*"' "$trace" | grep -o '0x[0-9a-f]*')
sed -i "${l}s/\"parentId\":\"0x[0-9a-f]*\"/\"parentId\":\"$gid\"/" "$trace"
expect_failure "a parent of another type" "parent local CollApi recorded, local Group replayed"

main_tid=$(grep -m1 -o '"type":"ncclProfileGroupApi".*' "$trace" | grep -o '"tid":[0-9]*' | head -n 1 | cut -d: -f2)
other_tid=$(grep -m1 -o '"type":"ncclProfileProxyStep".*' "$trace" | grep -o '"tid":[0-9]*' | head -n 1 | cut -d: -f2)
l=$(line_of '"type":"ncclProfileProxyStep"')
sed -i "${l}s/\"start\":{\\(\"ts\":[0-9.]*,\"pid\":[0-9]*\\),\"tid\":$other_tid}/\"start\":{\\1,\"tid\":$main_tid}/" "$trace"
expect_failure "an event on another thread" "not a bijection"

l=$(line_of '"name":"SendWait"')
sed -i "${l}s/{\"name\":\"SendWait\",\"id\":9,\"ts\":[0-9.]*,\"transSize\":[0-9]*},\\?//" "$trace"
sed -i "${l}s/,\\]/]/" "$trace"
expect_failure "a lost state" "states recorded"

l=$(line_of '"type":"ncclProfileNetPlugin"')
sed -i "${l}d" "$trace"
expect_failure "a missing event" "events recorded"

l=$(line_of '"type":"ncclProfileProxyOp"')
sed -i "${l}s/\"nSteps\":\([0-9]*\)/\"nSteps\":1\1/" "$trace"
expect_failure "a descriptor field that differs" "descriptor .*nSteps=1"
