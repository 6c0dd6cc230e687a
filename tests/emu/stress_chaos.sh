#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/emu/stress_chaos.sh — ncclemu never hangs at the end of a --duration
# run: many short `chaos` runs (--pace none, 4 application threads, PXN),
# several seeds, with the two process layouts whose PXN pairs can wait on
# each other at the end: two ranks per process (a pair's origin and target
# in two processes, the scenario's own layout) and one process per node (origin
# and target in one process). Without a barrier every rank stops on its own
# clock, so a PXN origin and its target end after different numbers of
# plans; their waits must end when the *rank* at the other end finishes
# (src/emu/nccl/emu_pxn.h). When they waited for the whole process instead, a
# run hung until --timeout in about half the one-process-per-node runs.
# A third layout, 2 nodes of 8 ranks in processes of 4, gives each PXN proxy
# the subs of eight node-mates: it ran out of IB requests (256 per proxy)
# and exited with "internal: IB request pool exhausted".
# A run passes when ncclemu says ok; a hang is its --timeout (30 s, which
# a 0.2 s run never needs otherwise), reported with the command to rerun.
# usage: stress_chaos.sh EMU RUNS PLUGIN [VAR=VALUE...]
#   RUNS seeds per layout; PLUGIN a path or 'none'; VAR=VALUE set for every
#   run (e.g. CCLSCOPE_RING_SIZE=4K)
set -euo pipefail
emu=$1 runs=$2 plugin=$3
shift 3
work=$(mktemp -d "${TMPDIR:-/tmp}/ncclemu-stress-XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
export CCLSCOPE_SUMMARY=off
for assignment in "$@"; do
  export "$assignment"
done

passed=0
# nodes:ranks per node:ranks per process ("-": the scenario's own)
for layout in -:-:2 -:-:4 2:8:4; do
  IFS=: read -r nodes per_node per_process <<<"$layout"
  shape=(--ranks-per-process "$per_process")
  [ "$nodes" = - ] || shape+=(--nodes "$nodes" --ranks-per-node "$per_node")
  for seed in $(seq 1 "$runs"); do
    args=(--scenario chaos --duration 0.2 --threads 4 --pace none
      "${shape[@]}" --seed "$seed" --timeout 30 --plugin "$plugin")
    rm -rf "$work/trace"
    rc=0
    CCLSCOPE_DIR="$work/trace" "$emu" "${args[@]}" >"$work/log" 2>&1 || rc=$?
    if grep -q "timeout after" "$work/log"; then
      cat "$work/log"
      fail "hung: ${*:+$* }$emu ${args[*]}"
    fi
    if [ "$rc" -ne 0 ] || ! grep -q "ncclemu: ok" "$work/log"; then
      cat "$work/log"
      fail "exit status $rc: ${*:+$* }$emu ${args[*]}"
    fi
    passed=$((passed + 1))
  done
done
echo "PASS: $passed chaos runs ended (seeds 1-$runs; 2 and 4 ranks per process, and 2x8 ranks in processes of 4)"
