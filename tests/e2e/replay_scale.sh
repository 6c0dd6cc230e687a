#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/replay_scale.sh — ncclemu --replay on inputs no recording makes
# but a hostile or broken file can: loading stays linear in its records and
# --timeout bounds the load as well as the replay.
#   1,000,000 thread records (distinct tids) and no plugin call: loaded
#   (the plan reports every thread), then "the traces hold no plugin calls",
#   exit 0 — a scan of every known thread per record made this quadratic
#   (it never ended); the empty call list is not sorted (qsort of NULL).
#   A trace holding only its process record: the same message, exit 0.
#   An input that arrives after --timeout 1 has passed: the load stops at
#   its first deadline check, with a timeout message and exit 1 (the
#   deadline used to start after loading).
# The timeouts below are guards for a hung run, not the judgement: every
# check is on exit status and messages.
# usage: replay_scale.sh NCCLEMU PLUGIN
set -euo pipefail
emu=$1 plugin=$2
work=$(mktemp -d "${TMPDIR:-/tmp}/cclscope-replay-scale-XXXXXX")
trap 'rm -rf "$work"' EXIT
export CCLSCOPE_MASK=all CCLSCOPE_SUMMARY=off CCLSCOPE_DIR="$work/out"

process='{"recordType":"process","plugin":"cclscope","pluginVersion":"0.1.0","formatVersion":1,"hostname":"nodeA","pid":100,"ppid":1,"runId":"fx","handleTag":"0x1234","host":"nccl","ncclVersion":"2.30.7","ncclVersionCode":23007,"clock":"counter","mode":"trace","eventMask":65359,"ts":1700000000000000.000}'

fail() { echo "FAIL: $*"; cat "$work/log"; exit 1; }

# Only the process record.
printf '%s\n' "$process" >"$work/bare.jsonl"
status=0
timeout 60 "$emu" --plugin "$plugin" --replay "$work/bare.jsonl" >"$work/log" 2>&1 || status=$?
[ "$status" = 0 ] || fail "a trace without calls: exit $status, expected 0"
grep -q "the traces hold no plugin calls" "$work/log" || fail "a trace without calls: no message"
echo "ok: a trace with only its process record"

# A million distinct threads.
n=1000000
awk -v p="$process" -v n=$n 'BEGIN { print p;
  for (i = 0; i < n; i++)
    printf "{\"recordType\":\"thread\",\"pid\":100,\"tid\":%d,\"name\":\"t\",\"ts\":1700000000000002.000}\n", 1000 + i }' \
  >"$work/threads.jsonl"
status=0
timeout 200 "$emu" --plugin "$plugin" --timeout 150 --replay "$work/threads.jsonl" >"$work/log" 2>&1 || status=$?
[ "$status" = 0 ] || fail "$n threads: exit $status, expected 0"
grep -q "the traces hold no plugin calls" "$work/log" || fail "$n threads: no 'no plugin calls' message"
grep -Eq "\\b$n thread" "$work/log" || fail "$n threads: the plan does not report $n threads"
echo "ok: $n thread records loaded: $(grep -Em1 "\\b$n thread" "$work/log")"

# A slow input: --timeout counts from the start, so the load is bounded
# too. Standard input is spooled to a file before it is read: a producer
# that takes 2 s means the loader starts after a 1 s deadline, and must
# stop at its first check instead of going on (with the old rule the
# deadline started after the load: exit 0).
status=0
{ printf '%s\n' "$process"; sleep 2; tail -n +2 "$work/threads.jsonl"; } |
  timeout 100 "$emu" --plugin "$plugin" --timeout 1 --replay - >"$work/log" 2>&1 || status=$?
[ "$status" = 1 ] || fail "slow input with --timeout 1: exit $status, expected 1"
grep -q "replay timeout while reading" "$work/log" || fail "slow input: no timeout message"
echo "ok: a load past --timeout stopped: $(grep -m1 'replay timeout' "$work/log")"
