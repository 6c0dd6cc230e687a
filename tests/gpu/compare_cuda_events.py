#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""compare_cuda_events.py — do cclscope's completion timings agree with CUDA
events recorded around the same collectives?

    compare_cuda_events.py TRACE_DIR EVENTS_DIR [--tolerance-pct 5]
                           [--tolerance-us 5] [--json]

TRACE_DIR holds the plugin's trace_*.jsonl files; EVENTS_DIR holds one
cuda_events_pid<PID>.json per process, written by allreduce_cuda_events.py:

    {"pid": 1234, "rank": 0, "func": "AllReduce",
     "ops": [{"bytes": 4096, "cuda_us": 31.5, "warmup": false}, ...]}

The ops are the last collectives of that function the process issued, in
order; warm-up ops take part in the pairing and are left out of the
comparison. For each process the script takes the trace file with the same pid,
its `timing` records of that function ordered by enqueue time, and pairs the
last len(ops) of them with the ops (their `bytes` must agree). Per message
size it compares the medians: cclscope's `duration` against the CUDA-event
time, and they agree when the difference is within the larger of
--tolerance-pct of the CUDA time and --tolerance-us (the issue's 5 % or
5 µs). Exit status: 0 every size agrees, 1 some do not, 2 the inputs could
not be matched.
"""
import argparse
import glob
import json
import os
import statistics
import sys


class MatchError(Exception):
    pass


def read_trace(path):
    """(pid, [timing records]) of one trace file."""
    pid = None
    timings = []
    with open(path) as f:
        for number, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                rec = json.loads(line)
            except ValueError as e:
                raise MatchError(f"{path}:{number}: not JSON ({e})")
            kind = rec.get("recordType")
            if kind == "process":
                pid = rec.get("pid")
            elif kind == "timing":
                timings.append(rec)
    if pid is None:
        raise MatchError(f"{path}: no process record")
    return pid, timings


def enqueue_start(rec):
    """The enqueue start (ns since the epoch) of a timing record of either
    format version: 2's integer enqueueStartNs, 1's enqueue.start (µs)."""
    if "enqueueStartNs" in rec:
        return rec["enqueueStartNs"] or rec.get("startNs") or 0
    enqueue = rec.get("enqueue") or {}
    start = enqueue.get("start")
    start = start if start is not None else rec.get("start", 0)
    return round(start * 1000)


def duration_us(rec):
    """A timing record's duration in µs (format version 2: durationNs)."""
    if "durationNs" in rec:
        return (rec["durationNs"] or 0) / 1000.0
    return rec.get("duration") or 0.0


def pair_process(events, timings):
    """[(op, timing record)] for one process, the last ops of its function."""
    func = events["func"]
    ops = events["ops"]
    mine = sorted((t for t in timings if t.get("func") == func),
                  key=enqueue_start)
    if len(mine) < len(ops):
        raise MatchError(
            f"pid {events['pid']}: {len(ops)} {func} operations timed with "
            f"CUDA events, only {len(mine)} {func} timing records in the trace")
    mine = mine[len(mine) - len(ops):]
    pairs = []
    for i, (op, rec) in enumerate(zip(ops, mine)):
        if rec.get("bytes") != op["bytes"]:
            raise MatchError(
                f"pid {events['pid']}: operation {i} moved {op['bytes']} bytes, "
                f"the matching timing record says {rec.get('bytes')} (seqNumber "
                f"{rec.get('seqNumber')})")
        pairs.append((op, rec))
    return pairs


def compare(pairs, tolerance_pct, tolerance_us):
    """Rows per message size, each with its verdict."""
    by_size = {}
    for op, rec in pairs:
        if op.get("warmup"):
            continue
        by_size.setdefault(op["bytes"], []).append((op, rec))
    rows = []
    for size in sorted(by_size):
        group = by_size[size]
        cuda = statistics.median(op["cuda_us"] for op, _ in group)
        ours = statistics.median(duration_us(rec) for _, rec in group)
        allowed = max(cuda * tolerance_pct / 100.0, tolerance_us)
        sources = {}
        for _, rec in group:
            src = rec.get("source", "?")
            sources[src] = sources.get(src, 0) + 1
        within = sum(1 for op, rec in group
                     if abs(duration_us(rec) - op["cuda_us"]) <=
                     max(op["cuda_us"] * tolerance_pct / 100.0, tolerance_us))
        rows.append({
            "bytes": size,
            "ops": len(group),
            "cuda_us": cuda,
            "cclscope_us": ours,
            "diff_us": ours - cuda,
            "allowed_us": allowed,
            "ops_within": within,
            "sources": sources,
            "agree": abs(ours - cuda) <= allowed,
        })
    return rows


def human_bytes(n):
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:g} {unit}" if unit == "B" else f"{n:.0f} {unit}"
        n /= 1024.0
    return str(n)


def main(argv):
    ap = argparse.ArgumentParser(
        description="Compare cclscope's completion timings with CUDA events.")
    ap.add_argument("trace_dir")
    ap.add_argument("events_dir")
    ap.add_argument("--tolerance-pct", type=float, default=5.0)
    ap.add_argument("--tolerance-us", type=float, default=5.0)
    ap.add_argument("--json", action="store_true",
                    help="print the rows as JSON instead of a table")
    args = ap.parse_args(argv)

    try:
        traces = {}
        for path in sorted(glob.glob(os.path.join(args.trace_dir, "*.jsonl"))):
            pid, timings = read_trace(path)
            traces[pid] = (path, timings)
        event_files = sorted(
            glob.glob(os.path.join(args.events_dir, "cuda_events_pid*.json")))
        if not event_files:
            raise MatchError(f"{args.events_dir}: no cuda_events_pid*.json")
        pairs = []
        for path in event_files:
            with open(path) as f:
                events = json.load(f)
            if events["pid"] not in traces:
                packed = glob.glob(os.path.join(
                    args.trace_dir, f"*_pid{events['pid']}.jsonl.*"))
                if packed:
                    raise MatchError(
                        f"{packed[0]}: compressed; this comparison reads plain"
                        " JSONL (zstd -d it, or record without CCLSCOPE_COMPRESS)")
                raise MatchError(f"{path}: no trace file for pid {events['pid']}"
                                 f" in {args.trace_dir}")
            pairs += pair_process(events, traces[events["pid"]][1])
    except (MatchError, OSError, KeyError, ValueError) as e:
        print(f"compare_cuda_events: {e}", file=sys.stderr)
        return 2

    rows = compare(pairs, args.tolerance_pct, args.tolerance_us)
    if args.json:
        print(json.dumps(rows, indent=1))
    else:
        print(f"{'size':>10} {'ops':>5} {'CUDA us':>10} {'cclscope us':>12} "
              f"{'diff us':>9} {'allowed':>8} {'ops within':>10}  source  verdict")
        for r in rows:
            src = ",".join(f"{k}:{v}" for k, v in sorted(r["sources"].items()))
            print(f"{human_bytes(r['bytes']):>10} {r['ops']:>5} "
                  f"{r['cuda_us']:>10.2f} {r['cclscope_us']:>12.2f} "
                  f"{r['diff_us']:>+9.2f} {r['allowed_us']:>8.2f} "
                  f"{r['ops_within']:>5}/{r['ops']:<4}  {src}  "
                  f"{'agree' if r['agree'] else 'DIFFER'}")
    bad = [r for r in rows if not r["agree"]]
    print(f"compare_cuda_events: {len(rows) - len(bad)} of {len(rows)} sizes "
          f"agree within {args.tolerance_pct:g} % or {args.tolerance_us:g} us "
          f"({sum(r['ops'] for r in rows)} operations compared)",
          file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
