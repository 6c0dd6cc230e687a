#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/overload.sh — traces stay structurally true under any drop
# pattern and after SIGKILL: the plugin driven far faster than its writer
# (a 4 KiB ring per thread: most records are dropped and counted), and the
# same driver killed mid-run, both pass `cclscope check`.
# usage: overload.sh DRIVER PLUGIN CCLSCOPE
set -euo pipefail
driver=$1 plugin=$2 cclscope=$3
work=$(mktemp -d "${TMPDIR:-/tmp}/cclscope-overload-XXXXXX")
cleanup() { kill -9 "${pid:-}" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
. "$(dirname "$0")/kill_mid_run.sh"
export CCLSCOPE_MASK=all CCLSCOPE_SUMMARY=off CCLSCOPE_RING_SIZE=4K

# 1. Overload, then finalize.
CCLSCOPE_DIR="$work/over" "$driver" "$plugin" 2 1.5 >"$work/over.log"
files=("$work"/over/trace_*.jsonl)
[ ${#files[@]} -eq 1 ] || fail "expected one trace file, got ${#files[@]}"
end=$(tail -n 1 "${files[0]}")
case $end in *'"recordType":"processEnd"'*) ;; *) fail "no processEnd" ;; esac
started=$(sed 's/.*"eventsStarted":\([0-9]*\).*/\1/' <<<"$end")
dropped=$(sed 's/.*"droppedStarts":\([0-9]*\).*/\1/' <<<"$end")
orphaned=$(grep -c '"parentStatus":"dropped"' "${files[0]}" || true)
echo "overload: $(cat "$work/over.log"); $dropped of $started starts dropped, $orphaned events with a dropped parent"
# The writer kept at most a tenth: the producers ran >= 10x its rate.
[ "$started" -gt 0 ] && [ $((dropped * 10)) -ge $((started * 9)) ] ||
  fail "expected >= 90 % of starts dropped, got $dropped of $started"
[ "$orphaned" -gt 0 ] || fail "no event with a dropped parent: the drop pattern was not exercised"
"$cclscope" check "$work/over" >"$work/check1.txt" 2>&1 ||
  { cat "$work/check1.txt"; fail "check rejected the overloaded trace"; }
grep -q 'events were written with parentStatus "dropped"' "$work/check1.txt" ||
  { cat "$work/check1.txt"; fail "check did not note the dropped parents"; }
tail -n 1 "$work/check1.txt"

# 2. The same, killed without warning while the rings overflow.
CCLSCOPE_DIR="$work/killed" CCLSCOPE_FLUSH_INTERVAL=0.02 \
  "$driver" "$plugin" 2 0 >"$work/killed.log" &
pid=$!
# Let several flushes reach the file, then kill.
kill_when_written "$pid" "$work/killed.log" "$work/killed/trace_*.jsonl" 200000
pid=
"$cclscope" check "$work/killed" >"$work/check2.txt" 2>&1 ||
  { cat "$work/check2.txt"; fail "check rejected the killed trace"; }
grep -q 'note\[no-process-end\]' "$work/check2.txt" ||
  { cat "$work/check2.txt"; fail "the killed trace was not noted as killed"; }
tail -n 1 "$work/check2.txt"
echo "PASS"
