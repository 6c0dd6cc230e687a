#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""test_compare.py — compare_cuda_events.py on synthetic inputs (runs in
ctest on any machine; the GPU run itself is tests/gpu/run.sh).

Builds a trace folder and a CUDA-events folder for two processes and checks
the verdicts: timings within 5 % or 5 us agree; a size 20 % off differs;
pairing uses the last operations in enqueue order, counts warm-ups but does
not compare them, and refuses mismatched sizes or missing traces.
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "compare_cuda_events.py")
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print(f"FAIL: {what}")


# The trace format version write_trace writes (both are read the same).
FORMAT_VERSION = 1


def as_version2(rec):
    """A version 1 timing record written as format version 2 writes it:
    integer nanoseconds under keys ending in Ns."""
    out = {k: v for k, v in rec.items() if k not in ("duration", "enqueue")}
    out["enqueueStartNs"] = round(rec["enqueue"]["start"] * 1000)
    out["enqueueStopNs"] = round(rec["enqueue"]["stop"] * 1000)
    out["durationNs"] = round(rec["duration"] * 1000)
    return out


def write_trace(folder, pid, timings, extra_before=0):
    """A trace file: process record, `extra_before` earlier AllReduces
    (e.g. a barrier), then one timing record per (bytes, duration)."""
    lines = [{"recordType": "process", "pid": pid}]
    t = 1000.0
    for i in range(extra_before):
        lines.append({"recordType": "timing", "func": "AllReduce",
                      "bytes": 4, "duration": 3.0, "source": "gpu",
                      "enqueue": {"start": t, "stop": t + 1}})
        t += 100
    for nbytes, duration in timings:
        lines.append({"recordType": "timing", "func": "AllReduce",
                      "bytes": nbytes, "duration": duration, "source": "gpu",
                      "enqueue": {"start": t, "stop": t + 1}})
        # A Broadcast in between: another function, never paired.
        lines.append({"recordType": "timing", "func": "Broadcast",
                      "bytes": nbytes, "duration": 1.0, "source": "gpu",
                      "enqueue": {"start": t + 2, "stop": t + 3}})
        t += 100
    if FORMAT_VERSION == 2:
        lines[1:] = [as_version2(rec) for rec in lines[1:]]
    # Written out of order, as the plugin may: pairing sorts by enqueue.
    lines = lines[:1] + list(reversed(lines[1:]))
    with open(os.path.join(folder, f"trace_run_host_pid{pid}.jsonl"), "w") as f:
        for rec in lines:
            f.write(json.dumps(rec) + "\n")


def write_events(folder, pid, ops):
    with open(os.path.join(folder, f"cuda_events_pid{pid}.json"), "w") as f:
        json.dump({"pid": pid, "rank": 0, "func": "AllReduce",
                   "ops": [{"bytes": b, "cuda_us": c, "warmup": w}
                           for b, c, w in ops]}, f)


def run(trace, events, *extra):
    p = subprocess.run([sys.executable, SCRIPT, trace, events, "--json",
                        *extra], capture_output=True, text=True)
    rows = json.loads(p.stdout) if p.returncode in (0, 1) else None
    return p.returncode, rows, p.stderr


def scenario(ours_by_size, cuda_by_size, mismatch=False, drop_trace=False):
    """Two processes, 3 ops per size plus one warm-up per size whose
    duration is wildly off (it must not count)."""
    d = tempfile.mkdtemp()
    trace, events = os.path.join(d, "trace"), os.path.join(d, "events")
    os.makedirs(trace)
    os.makedirs(events)
    for pid in (101, 102):
        timings, ops = [], []
        for size in sorted(cuda_by_size):
            timings.append((size, 999999.0))
            ops.append((size, 1.0, True))
            for k in range(3):
                timings.append((size, ours_by_size[size] + k * 0.01))
                ops.append((size, cuda_by_size[size] + k * 0.01, False))
        if mismatch and pid == 102:
            timings[-1] = (timings[-1][0] * 2, timings[-1][1])
        if not (drop_trace and pid == 102):
            write_trace(trace, pid, timings, extra_before=2)
        write_events(events, pid, ops)
    return trace, events


# Agreement: 1000 us vs 1030 us (3 %), 10 us vs 14 us (4 us < 5 us floor).
trace, events = scenario({1 << 20: 1030.0, 8192: 14.0},
                         {1 << 20: 1000.0, 8192: 10.0})
rc, rows, err = run(trace, events)
check(rc == 0, f"agreeing timings exit 0 (got {rc}: {err})")
check(rows is not None and len(rows) == 2, "one row per size")
if rows:
    check(all(r["agree"] for r in rows), "both sizes agree")
    check(all(r["ops"] == 6 for r in rows), "3 ops x 2 processes per size, "
          "warm-ups left out")
    big = [r for r in rows if r["bytes"] == 1 << 20][0]
    check(abs(big["diff_us"] - 30.0) < 0.02, "median difference 30 us")
    check(abs(big["allowed_us"] - 50.0) < 0.01, "5 % of 1000 us allowed")
    small = [r for r in rows if r["bytes"] == 8192][0]
    check(abs(small["allowed_us"] - 5.0) < 1e-9, "5 us floor for small ops")

# Disagreement: 1 MiB 20 % slow.
trace, events = scenario({1 << 20: 1200.0, 8192: 10.0},
                         {1 << 20: 1000.0, 8192: 10.0})
rc, rows, err = run(trace, events)
check(rc == 1, f"a size 20 % off exits 1 (got {rc})")
if rows:
    verdicts = {r["bytes"]: r["agree"] for r in rows}
    check(verdicts == {1 << 20: False, 8192: True}, f"verdicts {verdicts}")
# ... which a looser tolerance accepts.
rc, rows, err = run(trace, events, "--tolerance-pct", "25")
check(rc == 0, f"--tolerance-pct 25 accepts it (got {rc})")

# Sizes that do not pair up, and a process without a trace: exit 2.
trace, events = scenario({8192: 10.0}, {8192: 10.0}, mismatch=True)
rc, rows, err = run(trace, events)
check(rc == 2 and "bytes" in err, f"mismatched sizes exit 2 ({rc}: {err})")
trace, events = scenario({8192: 10.0}, {8192: 10.0}, drop_trace=True)
rc, rows, err = run(trace, events)
check(rc == 2 and "no trace file for pid 102" in err,
      f"missing trace exits 2 ({rc}: {err})")

# The same agreement from format version 2 traces.
FORMAT_VERSION = 2
trace, events = scenario({1 << 20: 1030.0, 8192: 14.0},
                         {1 << 20: 1000.0, 8192: 10.0})
rc, rows, err = run(trace, events)
check(rc == 0, f"version 2: agreeing timings exit 0 (got {rc}: {err})")
if rows:
    big = [r for r in rows if r["bytes"] == 1 << 20][0]
    check(abs(big["diff_us"] - 30.0) < 0.02, "version 2: median difference "
          "30 us")
    check(all(r["ops"] == 6 for r in rows), "version 2: warm-ups left out")

if failures:
    print(f"{len(failures)} check(s) failed")
    sys.exit(1)
print("compare_cuda_events: all checks passed")
