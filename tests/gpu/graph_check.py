#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""graph_check.py — what the plugin recorded for CUDA graph replays.

Usage: graph_check.py TRACE_DIR EVENTS_DIR

For each process (graph_pid<PID>.json from graph_replay.py beside its
trace): counts the AllReduce CollApi events (eager and captured), Coll
events, KernelLaunch events, and for the Coll events after the capture the
thread that started them and their parents. Prints a table, and exits 1
when the recorded counts contradict what docs/nccl-behaviour.md says NCCL
does for a graph whose plan has proxy ops (network peers): one CollApi
(graphCaptured) at capture, then one Coll per replay, started on a thread
other than the application's, whose parent is the capture-time CollApi,
and whose timing record has no apiTs (the capture is not its arrival).
"""
import glob
import json
import os
import sys


def records(path):
    with open(path) as f:
        for line in f:
            try:
                yield json.loads(line)
            except ValueError:
                continue


def events(path):
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            try:
                rec = json.loads(line)
            except ValueError:
                continue
            if rec.get("recordType") == "event":
                yield rec


def main():
    trace_dir, events_dir = sys.argv[1], sys.argv[2]
    failures = []
    for meta_path in sorted(glob.glob(os.path.join(events_dir, "graph_pid*.json"))):
        meta = json.load(open(meta_path))
        pid = meta["pid"]
        traces = glob.glob(os.path.join(trace_dir, f"trace_*_pid{pid}.jsonl*"))
        if not traces:
            failures.append(f"pid {pid}: no trace")
            continue
        evs = [e for e in events(traces[0]) if e.get("func", "AllReduce") == "AllReduce"]
        coll_api = [e for e in evs if e["type"] == "ncclProfileCollApi"]
        captured = [e for e in coll_api if e.get("details", {}).get("graphCaptured")]
        colls = sorted((e for e in evs if e["type"] == "ncclProfileColl"),
                       key=lambda e: e["start"]["ts"])
        launches = [e for e in evs if e["type"] == "ncclProfileKernelLaunch"]
        cap_ts = captured[0]["start"]["ts"] if captured else None
        app_tid = captured[0]["start"]["tid"] if captured else None
        # Replays: Colls after the capture on another thread than the
        # application's (its own later calls, e.g. the barrier, are not).
        replay_colls = [c for c in colls if cap_ts is not None and
                        c["start"]["ts"] > cap_ts and c["start"]["tid"] != app_tid]
        cap_id = captured[0]["id"] if captured else None
        parents = sorted({str(c.get("parentId")) for c in replay_colls})
        seqs = [c.get("details", {}).get("seqNumber") for c in replay_colls]
        replay_ids = {c["id"] for c in replay_colls}
        timed = [r for r in records(traces[0]) if r.get("eventId") in replay_ids]
        # apiNs (format version 2) or apiTs (version 1)
        with_api = sum(1 for r in timed
                       if r.get("apiNs", r.get("apiTs")) is not None)
        print(f"pid {pid} rank {meta['rank']}: CollApi {len(coll_api)} "
              f"(graphCaptured {len(captured)}), KernelLaunch {len(launches)}, "
              f"Coll {len(colls)} ({len(replay_colls)} replays on another thread "
              f"than the application's), replay parents {parents} (capture "
              f"CollApi {cap_id}), seqNumbers {seqs[:4]}..., timing records of "
              f"replays {len(timed)} ({with_api} with an apiTs)")
        want_api = meta["eager"] + meta["captured"]
        if len(coll_api) < want_api:
            failures.append(f"pid {pid}: {len(coll_api)} AllReduce CollApi, expected "
                            f">= {want_api} (eager + captured)")
        if len(captured) != 1:
            failures.append(f"pid {pid}: {len(captured)} graph-captured CollApi, expected 1")
        if len(replay_colls) != meta["replays"]:
            failures.append(f"pid {pid}: {len(replay_colls)} Coll after the capture, "
                            f"expected one per replay ({meta['replays']})")
        if replay_colls and parents != [str(cap_id)]:
            failures.append(f"pid {pid}: replay parents {parents}, expected the "
                            f"capture-time CollApi {cap_id}")
        if with_api:
            failures.append(f"pid {pid}: {with_api} replay timing records carry the "
                            "capture-time apiTs")
    for f in failures:
        print("graph_check: " + f)
    print("graph_check: " + ("replays recorded as documented" if not failures
                             else f"{len(failures)} differences"))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
