#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/cli/otf2_collectives.sh — `cclscope otf2` writes one
# MPI_COLLECTIVE_BEGIN/END pair per collective of the trace (counted here
# from the JSONL itself), with its communicator, root and bytes: ncclemu's
# `rooted` scenario reduces to rank 2 of the world communicator.
# usage: otf2_collectives.sh NCCLEMU PLUGIN CCLSCOPE OTF2_PRINT
set -euo pipefail
emu=$1 plugin=$2 cli=$3 otf2_print=$4
work=$(mktemp -d "${TMPDIR:-/tmp}/cclscope-otf2coll-XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
CCLSCOPE_DIR="$work/t" CCLSCOPE_JOB_ID=rooted CCLSCOPE_SUMMARY=off \
  "$emu" --plugin "$plugin" --quiet --max-callback-ms 5000 --scenario rooted \
  --pace none >"$work/emu.log" 2>&1 || { cat "$work/emu.log"; fail "ncclemu"; }
"$cli" -q otf2 "$work/t" -o "$work/a" || fail "cclscope otf2"
"$otf2_print" "$work/a/traces.otf2" >"$work/events.txt" || fail "otf2-print"
"$otf2_print" -G "$work/a/traces.otf2" >"$work/defs.txt" || fail "otf2-print -G"

colls=$(cat "$work"/t/*.jsonl | grep '"recordType":"event"' |
  grep -c '"type":"ncclProfile\(Coll\|CeColl\)"' || true)
reduces=$(cat "$work"/t/*.jsonl | grep '"recordType":"event"' |
  grep '"type":"ncclProfileColl"' | grep -c '"func":"Reduce".*"root":2' || true)
[ "$colls" -gt 0 ] && [ "$reduces" -eq "$colls" ] ||
  fail "the trace should hold only Reduces to rank 2: $reduces of $colls"
begins=$(grep -c '^MPI_COLLECTIVE_BEGIN ' "$work/events.txt" || true)
ends=$(grep -c '^MPI_COLLECTIVE_END ' "$work/events.txt" || true)
[ "$begins" -eq "$colls" ] && [ "$ends" -eq "$colls" ] ||
  fail "$begins MPI_COLLECTIVE_BEGIN / $ends MPI_COLLECTIVE_END for $colls collectives"

# Every end: a REDUCE on the world communicator, root 2; the root receives
# the reduced buffer, the others send theirs and receive nothing.
comm=$(grep -ho '"commId":"0x[0-9a-f]*"' "$work"/t/*_r0_*.jsonl | head -n 1 | cut -d'"' -f4)
want="Operation: REDUCE, Communicator: \"world ($comm)\" <[0-9]*>, Root: 2 "
n=$(grep '^MPI_COLLECTIVE_END ' "$work/events.txt" | grep -c "$want" || true)
[ "$n" -eq "$colls" ] || {
  grep -m3 '^MPI_COLLECTIVE_END ' "$work/events.txt"
  fail "$n of $colls collective ends are a REDUCE on world ($comm) to root 2"
}
recv_root=$(grep '^MPI_COLLECTIVE_END ' "$work/events.txt" | grep -c 'Received: [1-9]' || true)
[ "$recv_root" -eq $((colls / 4)) ] ||
  fail "$recv_root collective ends receive bytes, expected the root's $((colls / 4))"
# The communicator's group: its 4 ranks, by rank.
grep -q "^COMM .*Name: \"world ($comm)\"" "$work/defs.txt" || fail "no Comm definition for world"
grep -q "Type: COMM_GROUP.* 4 Members: 0 (.*), 1 (.*), 2 (.*), 3 (" "$work/defs.txt" ||
  fail "the world communicator's group does not list its 4 ranks"
echo "ok: $colls collectives -> $begins begin / $ends end, REDUCE to root 2 on world ($comm)"
