#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/emu/scale_1024.sh — ncclemu at the scale it is meant to test: 1,024
# ranks (128 nodes x 8 GPUs, 8 ranks per process: 128 processes) run one
# paced 64 KiB ring AllReduce through cclscope with the `minimal` mask, and
# the traces hold every rank: `cclscope check` passes, `cclscope summary
# --json` has the 1,024-rank world communicator, one AllReduce per rank and
# every global rank 0..1023 in its straggler table. ncclemu stopped at 256
# ranks before; at 1,024 its pacing barrier cost N^2 per plan
# (src/emu/nccl/emu_world.h).
# The generous limits are for a loaded 2-core machine, not for speed:
# 128 processes' plugin inits at once may wait seconds for a CPU.
# usage: scale_1024.sh EMU CCLSCOPE PLUGIN
set -euo pipefail
emu=$1 cclscope=$2 plugin=$3
work=$(mktemp -d "${TMPDIR:-/tmp}/ncclemu-1024-XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() {
  echo "FAIL: $*"
  exit 1
}

args=(--plugin "$plugin" --scenario multi-node --nodes 128 --ranks-per-node 8
  --ranks-per-process 8 --ops 1 --sizes 64K --max-lifecycle-ms 60000
  --timeout 240)
rc=0
CCLSCOPE_DIR="$work/trace" CCLSCOPE_MASK=minimal CCLSCOPE_SUMMARY=off \
  "$emu" "${args[@]}" >"$work/emu.log" 2>&1 || rc=$?
if [ "$rc" -ne 0 ] || ! grep -q "ncclemu: ok" "$work/emu.log"; then
  grep -v "outlived the time limit only because" "$work/emu.log" | head -40
  fail "ncclemu exit status $rc: $emu ${args[*]}"
fi
grep -q "128 node(s) x 8 rank(s), 128 process(es)" "$work/emu.log" ||
  fail "not 128 processes of 8 ranks: $(head -1 "$work/emu.log")"
files=$(find "$work/trace" -name 'trace_*.jsonl' | wc -l)
[ "$files" -eq 128 ] || fail "$files trace files, expected 128 (one per process)"

rc=0
"$cclscope" check "$work/trace" >"$work/check.log" 2>&1 || rc=$?
if [ "$rc" -ne 0 ] || ! grep -q "0 errors" "$work/check.log"; then
  head -40 "$work/check.log"
  fail "cclscope check exit status $rc"
fi

"$cclscope" summary --json "$work/trace" >"$work/summary.json" ||
  fail "cclscope summary --json failed"
python3 - "$work/summary.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
def check(ok, what):
    if not ok:
        print("FAIL: summary:", what)
        sys.exit(1)
comms = d["comms"]
check(len(comms) == 1 and comms[0]["nranks"] == 1024,
      "communicators %s, expected the world of 1024 ranks" % comms)
# One AllReduce per rank. A slow run (a sanitizer build) may time some
# ranks from the host rather than the GPU: rows per source, one count.
rows = d["collectives"]["rows"]
check(len(rows) >= 1 and
      all(r["func"] == "AllReduce" and r["nranks"] == 1024 for r in rows) and
      sum(r["count"] for r in rows) == 1024,
      "collectives %s, expected AllReduce rows counting 1024 in all" %
      [(r["func"], r["source"], r["count"], r["nranks"]) for r in rows])
ranks = sorted(r["globalRank"] for r in d["stragglers"]["ranks"])
check(ranks == list(range(1024)),
      "straggler table has %d ranks, expected global ranks 0..1023" %
      len(set(ranks)))
check(d["stragglers"]["instances"] == 1 and
      d["stragglers"]["incomplete"] == 0,
      "instances %s incomplete %s, expected 1 complete" %
      (d["stragglers"]["instances"], d["stragglers"]["incomplete"]))
EOF
echo "PASS: 1024 ranks in 128 processes: 128 trace files pass cclscope check, summary has every rank"
