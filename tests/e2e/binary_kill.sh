#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/binary_kill.sh — binary traces (CCLSCOPE_FORMAT=binary) and
# SIGKILL (docs/trace-format.md, "Binary traces"):
#  1. a process killed mid-run leaves a .cst of whole frames (plain and
#     zstd frames), that `cclscope check` reads (exit 0, noted as killed),
#     whose converted text is whole JSON lines; a frame the kill tore is the
#     only thing left out, and said;
#  2. an invalid CCLSCOPE_FORMAT is warned about once and gives JSONL.
# usage: binary_kill.sh NCCLEMU PLUGIN OVERLOAD_DRIVER CCLSCOPE
set -euo pipefail
emu=$1 plugin=$2 driver=$3 cs=$4
work=$(mktemp -d "${TMPDIR:-/tmp}/cclscope-binkill-XXXXXX")
cleanup() { kill -9 "${pid:-}" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
. "$(dirname "$0")/kill_mid_run.sh"
export CCLSCOPE_MASK=all CCLSCOPE_SUMMARY=off

# 1. SIGKILL mid-run, frames written every 20 ms.
for compress in none zstd; do
  dir="$work/killed-$compress"
  CCLSCOPE_DIR="$dir" CCLSCOPE_FORMAT=binary CCLSCOPE_COMPRESS=$compress \
    CCLSCOPE_FLUSH_INTERVAL=0.02 "$driver" "$plugin" 1 0 >"$work/killed.log" &
  pid=$!
  kill_when_written "$pid" "$work/killed.log" "$dir/trace_*.cst" 20000
  pid=
  killed=("$dir"/trace_*.cst)
  [ ${#killed[@]} -eq 1 ] || fail "expected one .cst after the kill ($compress)"
  "$cs" check "$dir" >"$work/check.txt" 2>&1 || { cat "$work/check.txt"; fail "check rejects the killed trace ($compress)"; }
  grep -q 'note\[no-process-end\]' "$work/check.txt" || { cat "$work/check.txt"; fail "the killed trace was not noted as killed ($compress)"; }
  if grep -q 'ends inside a binary trace frame' "$work/check.txt"; then
    echo "$compress: the kill tore the last frame (its whole records read, said)"
  fi
  "$cs" convert -o "$work/killed.txt" "${killed[0]}" 2>/dev/null || true
  python3 - "$work/killed.txt" <<'PY' || fail "the killed trace's text is not whole JSON lines ($compress)"
import json, sys
data = open(sys.argv[1], "rb").read()
assert data.endswith(b"\n"), "the text ends inside a line"
lines = data.decode().splitlines()
for l in lines:
    json.loads(l)
acct = json.loads(lines[1])
assert acct["recordType"] == "accounting", acct
assert len(lines) > 500, len(lines)
print(f"killed: {len(lines)} whole lines, accounting says {acct['linesLost']} lost")
PY
  tail -n 1 "$work/check.txt"
done

# 2. An invalid value: one warning per process, JSONL.
CCLSCOPE_FORMAT=parquet CCLSCOPE_DIR="$work/bad" NCCL_DEBUG=WARN "$emu" --plugin "$plugin" \
  --scenario single-node --ranks-per-node 2 --pace none --ops 1 >/dev/null 2>"$work/bad.err"
n=$(grep -c "CCLSCOPE_FORMAT='parquet' is invalid (expected jsonl or binary); using jsonl" "$work/bad.err" || true)
[ "$n" -eq 2 ] || { cat "$work/bad.err"; fail "expected one warning per process (2), got $n"; }
[ "$(ls "$work"/bad/*.jsonl | wc -l)" -eq 2 ] || fail "no JSONL traces with an invalid CCLSCOPE_FORMAT"
echo "PASS"
