#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/hang.sh — the hang watchdog against ncclemu.
# usage: hang.sh NCCLEMU PLUGIN CHECK_INFLIGHT CASE
#   detect        hang scenario, every event: each rank warns within the
#                 timeout + 1 s, naming rank, AllReduce seqNumber 1, a
#                 ProxyStep, its peer and state; snapshots agree
#   detect-coarse the default mask (no ProxyStep): the ProxyOp is named
#   progressing   one long AllReduce (~3 s at 0.2 GB/s) that keeps
#                 progressing: no warning with ProxySteps recorded
#   coarse-limit  the same without ProxySteps: the watchdog cannot see
#                 progress inside a network operation and does warn (the
#                 documented limit; proves `progressing` can fail); once it
#                 is over, the snapshot is rewritten (reason "recovered")
#   verdict       the warning's local verdict, on 2 nodes x 2 GPUs: rank
#                 1's GPU stops: it took none of the data that arrived
#                 ("likely this GPU"), its node-mate 0 took some first
#                 ("this GPU, or a rank of its node"), ranks 2 and 3 wait on
#                 peers; rank 1's link to rank 2 stops: "handed to the
#                 network"; and ranks 4-5 in one process on two threads,
#                 rank 5's thread never calls: rank 4 names rank 5 (default
#                 mask); the snapshots carry the same as localVerdict
#   off           CCLSCOPE_HANG_TIMEOUT=0: no warning, no snapshot
set -euo pipefail
emu=$1 plugin=$2 check=$3 case=$4
work=$(mktemp -d "${TMPDIR:-/tmp}/cclscope-hang-XXXXXX")
trap 'rm -rf "$work"' EXIT
run() { # mask timeout ncclemu-args...
  local mask=$1 timeout=$2
  shift 2
  # NCCL_DEBUG unset, as in most jobs: NCCL's logger (which ncclemu's
  # filters as NCCL's does) would print nothing, and the warning must show.
  env -u NCCL_DEBUG -u NCCL_DEBUG_SUBSYS \
    CCLSCOPE_MASK=$mask CCLSCOPE_HANG_TIMEOUT=$timeout CCLSCOPE_SUMMARY=off \
    CCLSCOPE_DIR="$work/out" \
    "$emu" --plugin "$plugin" "$@" >"$work/log" 2>&1 ||
    { echo "FAIL: ncclemu $*"; tail -20 "$work/log"; exit 1; }
}
warnings() { grep -c "cclscope: possible hang" "$work/log" || true; }
snapshots() { find "$work/out" -name 'inflight_*.json' | wc -l; }
expect_warning() { # rank pattern
  grep "possible hang: rank $1 " "$work/log" | grep -q -- "$2" ||
    { echo "FAIL: no warning for rank $1 matching '$2':"; grep cclscope "$work/log"; exit 1; }
  echo "ok: $(grep -m1 "possible hang: rank $1 " "$work/log" | sed 's/.*possible hang: //')"
}

case $case in
detect)
  run all 0.5 --scenario hang --duration 3
  # rank 0 waits for rank 1's data; rank 1 (the hang rank, its GPU
  # stopped) for its own GPU: a send not produced or data not taken
  expect_warning 0 "AllReduce seqNumber 1 in flight.*ProxyStep [0-9]* (recv from peer 1) in RecvWait"
  expect_warning 1 "AllReduce seqNumber 1 in flight.*ProxyStep [0-9]* (\(send to\|recv from\) peer 0) in \(SendGPUWait\|RecvGPUWait\)"
  [ "$(warnings)" = 2 ] || { echo "FAIL: $(warnings) warnings, expected one per rank"; exit 1; }
  grep -q "cclscope hang DIR" "$work/log" || { echo "FAIL: the snapshot path is not given"; exit 1; }
  "$check" "$work/out" 2 AllReduce 1 1.5
  ;;
detect-coarse)
  run default 0.5 --scenario hang --duration 3
  expect_warning 0 "AllReduce seqNumber 1 in flight.*ProxyOp (recv from peer 1"
  expect_warning 1 "AllReduce seqNumber 1 in flight.*ProxyOp (recv from peer 0"
  "$check" "$work/out" 2 AllReduce 1 1.5
  ;;
progressing)
  run default,proxystep 0.3 --scenario multi-node --sizes 256M --ops 1 --bw-gbps 0.2
  grep -q "ncclemu: ok" "$work/log" || { echo "FAIL: the run did not finish"; exit 1; }
  [ "$(warnings)" = 0 ] || { echo "FAIL: false hang warning on a progressing operation:"; grep cclscope "$work/log"; exit 1; }
  [ "$(snapshots)" = 0 ] || { echo "FAIL: a snapshot was written"; exit 1; }
  echo "ok: a ~3 s AllReduce with a 0.3 s timeout: no warning"
  ;;
coarse-limit)
  run default 0.3 --scenario multi-node --sizes 256M --ops 1 --bw-gbps 0.2
  [ "$(warnings)" -ge 1 ] || { echo "FAIL: expected the documented warning without ProxySteps"; exit 1; }
  grep -q "progressing again\|no longer in flight" "$work/log" ||
    { echo "FAIL: no recovery message after the warning"; grep cclscope "$work/log"; exit 1; }
  # The snapshot written at the warning would outlive the hang it reports:
  # it is rewritten once the operation is over, with nothing hung in it.
  [ "$(snapshots)" -ge 1 ] || { echo "FAIL: no snapshot"; exit 1; }
  for f in "$work"/out/inflight_*.json; do
    python3 - "$f" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
hung = [o for o in d["operations"] if o.get("hung")]
if d["reason"] != "recovered" or hung:
    print("FAIL: %s: reason %s, %d hung operations (expected a snapshot "
          "rewritten after the recovery, nothing hung)" % (sys.argv[1], d["reason"], len(hung)))
    sys.exit(1)
PY
  done
  echo "ok: without ProxySteps the long AllReduce is reported, then said to be over, and its snapshot rewritten"
  ;;
verdict)
  local_verdict() { # rank class suspect
    python3 - "$work/out" "$@" <<'PY'
import glob, json, sys
out, rank, cls, suspect = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
for f in glob.glob(out + "/inflight_*.json"):
    for o in json.load(open(f))["operations"]:
        v = o.get("localVerdict")
        if o["rank"] == rank and o.get("hung"):
            if v and v["class"] == cls and v["rank"] == suspect:
                print("ok: rank %d localVerdict %s" % (rank, v["text"])); sys.exit(0)
            print("FAIL: rank %d localVerdict %s, expected class %s rank %d" % (rank, v, cls, suspect)); sys.exit(1)
print("FAIL: no hung operation of rank %d in a snapshot" % rank); sys.exit(1)
PY
  }
  run default,proxystep 0.5 --scenario hang --duration 3 --nodes 2 --ranks-per-node 2 --hang-rank 1
  expect_warning 1 "verdict: data arrived on channel 1 and this GPU took none of it (RecvGPUWait on step 0): likely this GPU"
  expect_warning 0 "verdict: this GPU stopped taking data that arrived on channel 0 at step [1-9][0-9]* (RecvGPUWait): this GPU, or a rank of its node"
  expect_warning 2 "verdict: waits on rank 1 (RecvWait on channel 0)"
  local_verdict 1 gpu 1
  local_verdict 2 peer 1
  rm -rf "$work/out"
  run default,proxystep 0.5 --scenario hang --hang-class network --duration 3 --nodes 2 --ranks-per-node 2 --hang-rank 1
  expect_warning 1 "verdict: a send to rank 2 on channel 0 was handed to the network and does not complete (SendWait)"
  local_verdict 1 network 2
  rm -rf "$work/out"
  run default 0.5 --scenario hang --hang-class never-called --duration 4 \
    --nodes 2 --ranks-per-node 4 --ranks-per-process 2 --threads 2 --hang-rank 5
  expect_warning 4 "verdict: rank 5 of this process never started it"
  local_verdict 4 never-called 5
  if grep "possible hang" "$work/log" | grep -v "possible hang: rank 4 " | grep -q "verdict:"; then
    echo "FAIL: a rank without local evidence (default mask) gave a verdict:"; grep "verdict:" "$work/log"; exit 1
  fi
  ;;
off)
  run all 0 --scenario hang --duration 1.5
  [ "$(warnings)" = 0 ] && [ "$(snapshots)" = 0 ] || { echo "FAIL: watchdog not off"; exit 1; }
  echo "ok: no warning with CCLSCOPE_HANG_TIMEOUT=0"
  ;;
*) echo "unknown case $case"; exit 2 ;;
esac
