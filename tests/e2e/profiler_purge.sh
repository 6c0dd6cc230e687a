#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/profiler_purge.sh — NCCL 2.31 purges a destroyed communicator's
# profiler-thread ops without a call (nccl-behaviour §12), so a KernelCh it
# started never gets its stop. One ncclemu run whose profiler threads stall
# (--profiler-stall) through the real plugin: the truth must show purged
# ops, started ones among them; the plugin must reclaim exactly those
# KernelCh at finalize and count them; the traces must match the truth
# (check_truth) and `cclscope check` must find no error.
# usage: profiler_purge.sh NCCLEMU PLUGIN CHECK_TRUTH CCLSCOPE [ncclemu options...]
set -euo pipefail
emu=$1 plugin=$2 check=$3 cli=$4
shift 4
work=$(mktemp -d "${TMPDIR:-/tmp}/cclscope-e2e-purge-XXXXXX")
trap 'rm -rf "$work"' EXIT
if ! CCLSCOPE_DIR="$work/traces" CCLSCOPE_MASK=all CCLSCOPE_SUMMARY=off \
  "$emu" --plugin "$plugin" --truth "$work/truth.jsonl" --nccl-version 2.31 \
  --mask all --profiler-stall 1 "$@" >"$work/emu.log" 2>&1; then
  echo "FAIL: ncclemu $* exited with an error:"
  tail -n 30 "$work/emu.log"
  exit 1
fi
"$check" "$work/traces" "$work"/truth.jsonl*
"$cli" check "$work/traces" >"$work/check.txt" || {
  cat "$work/check.txt"
  echo "FAIL: cclscope check found errors in the traces of a purged run"
  exit 1
}
cat "$work/check.txt"
python3 - "$work" <<'EOF'
import glob, json, os, sys
work = sys.argv[1]
# The truth: per process, the KernelCh starts that were never stopped and
# the purge records (ops dropped, started ones among them).
purged_started = {}
purged_ops = 0
started, stopped = {}, set()
for path in glob.glob(os.path.join(work, "truth.jsonl*")):
    for line in open(path):
        r = json.loads(line)
        pid = r["pid"]
        if r["call"] == "purge":
            purged_ops += r["ops"]
            purged_started[pid] = purged_started.get(pid, 0) + r["started"]
        elif r["call"] == "start" and r.get("type") == "KernelCh" \
                and r.get("delivered") and r.get("handle") not in (None, "unwritten"):
            started[r["id"]] = pid
        elif r["call"] == "stop" and r.get("id"):
            stopped.add(r["id"])
never_stopped = {}
for i, pid in started.items():
    if i not in stopped:
        never_stopped[pid] = never_stopped.get(pid, 0) + 1
total_started = sum(purged_started.values())
assert purged_ops > 0, "no purge in the truth: the destroys waited for the ops"
assert total_started > 0, "no started KernelCh among the purged ops"
assert never_stopped == {p: n for p, n in purged_started.items() if n}, \
    f"KernelCh never stopped {never_stopped} != purged started {purged_started}"
# The traces: those KernelCh, and only they, are reclaimed at finalize, and
# every process counts its reclaims (other events may be reclaimed too:
# restarted receive steps, ProxyOps that never progress).
reclaimed, at_finalize, counted = {}, {}, {}
for path in glob.glob(os.path.join(work, "traces", "**", "*.jsonl"), recursive=True):
    for line in open(path):
        r = json.loads(line)
        if r.get("recordType") == "event" and r.get("end") == "reclaimed":
            pid = r["start"]["pid"]
            if r.get("reclaimReason") == "finalize":
                at_finalize[pid] = at_finalize.get(pid, 0) + 1
            if r["type"] == "ncclProfileKernelCh":
                assert r.get("reclaimReason") == "finalize", line
                reclaimed[pid] = reclaimed.get(pid, 0) + 1
        if r.get("recordType") == "processEnd":
            counted[r["pid"]] = r["counters"]["reclaimedByReason"]["finalize"]
want = {p: n for p, n in purged_started.items() if n}
assert reclaimed == want, f"reclaimed KernelCh {reclaimed} != purged started {want}"
for pid in want:
    assert counted.get(pid) == at_finalize[pid], \
        f"pid {pid} counts {counted.get(pid)} reclaims at finalize, its trace has {at_finalize[pid]}"
print(f"ok: {purged_ops} ops purged, {total_started} started KernelCh reclaimed "
      f"at finalize and counted in {len(want)} process(es)")
EOF
