#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# tests/clickhouse/expect_rows.py — what `cclscope load` must store for the
# trace files given, counted from the files themselves (plain or zstd):
# one "table count" line per table, then "timing_start_s_sum N",
# "timing_start_ns_sum N" and "timing_duration_sum N": the sums of the
# timing records' start split into seconds and nanoseconds (each fits a
# 64-bit sum) and of their stop - start, exact (format 1's µs with three
# decimals, format 2's integer ns), which the rows must give to the ns;
# "events_duration_sum N" and "proxy_steps_duration_sum N": the same for
# the stop - start of the events (but ProxySteps) and ProxySteps that have
# both.
import json
import subprocess
import sys
from decimal import Decimal


def lines(path):
    with open(path, "rb") as f:
        magic = f.read(4)
    if magic == b"\x28\xb5\x2f\xfd":
        text = subprocess.run(["zstd", "-dc", path], check=True,
                              capture_output=True).stdout
    else:
        with open(path, "rb") as f:
            text = f.read()
    return text.decode().split("\n")


def ns(record, v2_key, v1_key):
    if v2_key in record and record[v2_key] is not None:
        return int(record[v2_key])
    return int(Decimal(str(record[v1_key])) * 1000)


counts = {"timing": 0, "comms": 0, "processes": 0, "events": 0,
          "proxy_steps": 0}
start_s_sum = 0
start_ns_sum = 0
duration_sum = 0
event_durations = {"events": 0, "proxy_steps": 0}


def point_ns(point):
    if not isinstance(point, dict) or point.get("ts") is None:
        return None
    return int(Decimal(str(point["ts"])) * 1000)
for path in sys.argv[1:]:
    counts["processes"] += 1
    for line in lines(path):
        if not line.strip():
            continue
        try:
            r = json.loads(line, parse_float=Decimal)
        except ValueError:
            continue
        kind = r.get("recordType")
        if kind == "timing":
            counts["timing"] += 1
            start = ns(r, "startNs", "start")
            start_s_sum += start // 10**9
            start_ns_sum += start % 10**9
            duration_sum += ns(r, "stopNs", "stop") - start
        elif kind == "event":
            table = ("proxy_steps" if r.get("type") == "ncclProfileProxyStep"
                     else "events")
            start, stop = point_ns(r.get("start")), point_ns(r.get("stop"))
            if start is not None and stop is not None:
                event_durations[table] += stop - start
            if table == "proxy_steps":
                counts["proxy_steps"] += 1
            else:
                counts["events"] += 1
                if r.get("func") == "ProfilerInit":
                    counts["comms"] += 1
for table, n in counts.items():
    print(table, n)
print("timing_start_s_sum", start_s_sum)
print("timing_start_ns_sum", start_ns_sum)
print("timing_duration_sum", duration_sum)
for table, n in event_durations.items():
    print(table + "_duration_sum", n)
