# SPDX-License-Identifier: Apache-2.0
"""tests/e2e/format_v2.py — trace format version 2 (docs/trace-format.md, "One
schema for every line") on emulated runs, read line by line:

 1. one schema: across every line of every file of several runs (mixed with
    NCCL 2.31's KernelPhase, multi-node, graph replays, PXN, RCCL, a
    zstd-compressed run, and host-only timing), each top-level key has one JSON type (null aside)
    whatever the record type: never an object on one record and a number on
    another;
 2. the timing record: the identity keys equal what the file's process record
    (runId, globalRank, hostname, pid) and its communicator's ProfilerInit
    (device, commName) say; its times are integers (ns) with
    durationNs = stopNs - startNs, enqueueStartNs/StopNs are exactly its
    Coll/P2p event's start/stop (written in microseconds with three
    decimals), apiNs exactly its CollApi/P2pApi's start (or null), a host
    span is the enqueue span; no version 1 time key remains;
 3. version 1 still reads the same: the same files rewritten as format
    version 1 (the timing records as the version 1 writer wrote them) give
    the same `cclscope summary --json` (but for the files' sizes), and
    `cclscope check` passes on both;
 4. `check` verifies the version 2 keys: a changed commName or pid is
    error[timing-identity], durationNs off by 1 ns error[duration], a
    version 1 key in a version 2 record error[missing-key]; format version
    2 draws no note, version 3 a note that it is newer.

usage: format_v2.py NCCLEMU PLUGIN CCLSCOPE
"""
import decimal
import json
import os
import shutil
import subprocess
import sys
import tempfile

emu, plugin, cclscope = sys.argv[1:4]
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL: " + what)


def fatal(what):
    print("FAIL: " + what)
    sys.exit(1)


work = tempfile.mkdtemp(prefix="cclscope-format-v2-")

RUNS = {
    "mixed231": (["--scenario", "mixed", "--nccl-version", "2.31"], {}),
    "multinode": (["--scenario", "multi-node"], {}),
    "graph": (["--scenario", "graph", "--ops", "4"], {}),
    "pxn": (["--scenario", "pxn"], {}),
    "rccl": (["--scenario", "mixed", "--host", "rccl"], {}),
    "zstd": (["--scenario", "mixed", "--nccl-version", "2.31"],
             {"CCLSCOPE_COMPRESS": "zstd"}),
    # no kernel or proxy events: timing records of the host (enqueue) span
    "hostonly": (["--scenario", "sendrecv"],
                 {"CCLSCOPE_MASK": "coll,p2p,collapi,p2papi"}),
}


def run_emu(name, args, env_extra):
    out = os.path.join(work, name, "v2")
    env = dict(os.environ)
    env.update(CCLSCOPE_DIR=out, CCLSCOPE_MASK="all", CCLSCOPE_SUMMARY="off")
    env.update(env_extra)
    p = subprocess.run([emu, "--plugin", plugin, "--pace", "none", "--sizes",
                        "4K,300K,2M", "--quiet", *args], env=env,
                       capture_output=True, text=True)
    if p.returncode != 0:
        fatal(f"ncclemu {name}: exit {p.returncode}: {p.stderr[-2000:]}")
    return out


def read_text(path):
    if path.endswith(".zst"):
        p = subprocess.run(["zstd", "-dc", path], capture_output=True)
        if p.returncode != 0:
            fatal(f"zstd -dc {path}: {p.stderr!r}")
        return p.stdout.decode()
    with open(path, encoding="utf-8") as f:
        return f.read()


def write_text(path, text):
    if path.endswith(".zst"):
        p = subprocess.run(["zstd", "-q", "-f", "-o", path], input=text.encode(),
                           capture_output=True)
        if p.returncode != 0:
            fatal(f"zstd -o {path}: {p.stderr!r}")
        return
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def trace_files(folder):
    return sorted(f for f in os.listdir(folder)
                  if f.endswith(".jsonl") or f.endswith(".jsonl.zst"))


def parse(line):
    """Numbers with a fraction as Decimal (exact), integers as int."""
    return json.loads(line, parse_float=decimal.Decimal)


def json_type(v):
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int):
        return "integer"
    if isinstance(v, decimal.Decimal):
        return "fraction"
    if isinstance(v, str):
        return "string"
    if isinstance(v, dict):
        return "object"
    return "array"


def us_to_ns(us):
    """A microsecond value as the trace writes it (three decimals) in ns."""
    ns = us * 1000
    assert ns == ns.to_integral_value(), us
    return int(ns)


def ns_to_us_text(ns):
    """ns as the version 1 writer wrote microseconds: three decimals."""
    sign = "-" if ns < 0 else ""
    ns = abs(ns)
    return f"{sign}{ns // 1000}.{ns % 1000:03d}"


# ---- 1 and 2: one schema, and the timing record's values ----

types_of_key = {}   # key -> {json type: "recordType (file:line)"}
timing_total = 0
timing_host = 0
timing_api = 0
timing_api_null = 0
timing_phases = 0
folders = {}

V1_KEYS = ("start", "stop", "duration", "apiTs", "enqueue")
IDENTITY = ("runId", "globalRank", "hostname", "pid", "device", "commName")
INT_NS = ("startNs", "stopNs", "durationNs", "enqueueStartNs")

for name, (args, env_extra) in RUNS.items():
    folder = run_emu(name, args, env_extra)
    folders[name] = folder
    files = trace_files(folder)
    check(files, f"{name}: no trace files")
    if name == "zstd":
        check(all(f.endswith(".zst") for f in files),
              f"{name}: compressed files expected, got {files}")
    for fname in files:
        where = f"{name}/{fname}"
        lines = read_text(os.path.join(folder, fname)).splitlines()
        process = None
        comms = {}    # ctx -> ProfilerInit record
        events = {}   # id -> event record
        timings = []
        for no, line in enumerate(lines, 1):
            if not line.strip():
                continue
            r = parse(line)
            rt = r.get("recordType")
            for k, v in r.items():
                t = json_type(v)
                if t != "null":
                    types_of_key.setdefault(k, {}).setdefault(
                        t, f"{rt} ({where}:{no})")
            if rt == "process":
                process = r
                check(r.get("formatVersion") == 2,
                      f"{where}: formatVersion {r.get('formatVersion')}")
            elif rt == "event" and r.get("type") == "ProfilerLifecycle":
                if r.get("func") == "ProfilerInit":
                    comms[r["ctx"]] = r
            elif rt == "event":
                events[r["id"]] = r
            elif rt == "timing":
                timings.append((no, r))
        check(process is not None, f"{where}: no process record")
        for no, r in timings:
            timing_total += 1
            at = f"{where}:{no}"
            for k in V1_KEYS:
                check(k not in r, f"{at}: version 1 key {k!r} in a timing record")
            for k in IDENTITY:
                check(k in r, f"{at}: timing record without {k!r}")
            for k in ("runId", "globalRank", "hostname", "pid"):
                check(r.get(k) == process.get(k),
                      f"{at}: {k} {r.get(k)!r}, process record {process.get(k)!r}")
            init = comms.get(r.get("ctx"))
            check(init is not None, f"{at}: no ProfilerInit for ctx {r.get('ctx')}")
            if init is not None:
                check(r.get("device") == init.get("device"),
                      f"{at}: device {r.get('device')!r}, ProfilerInit "
                      f"{init.get('device')!r}")
                check(r.get("commName") == (init.get("commName") or ""),
                      f"{at}: commName {r.get('commName')!r}, ProfilerInit "
                      f"{init.get('commName')!r}")
            for k in INT_NS:
                check(json_type(r.get(k)) == "integer",
                      f"{at}: {k} is {json_type(r.get(k))}, not integer ns")
            for k in ("apiNs", "enqueueStopNs"):
                check(json_type(r.get(k)) in ("integer", "null"),
                      f"{at}: {k} is {json_type(r.get(k))}")
            if any(json_type(r.get(k)) != "integer" for k in INT_NS):
                continue
            check(r["durationNs"] == r["stopNs"] - r["startNs"],
                  f"{at}: durationNs {r['durationNs']} != stopNs - startNs "
                  f"{r['stopNs'] - r['startNs']}")
            ev = events.get(r.get("eventId"))
            check(ev is not None, f"{at}: event {r.get('eventId')} not in the file")
            if ev is None:
                continue
            check(r["enqueueStartNs"] == us_to_ns(ev["start"]["ts"]),
                  f"{at}: enqueueStartNs {r['enqueueStartNs']}, its event "
                  f"starts at {ev['start']['ts']} us")
            want_stop = us_to_ns(ev["stop"]["ts"]) if ev.get("stop") else None
            check(r.get("enqueueStopNs") == want_stop,
                  f"{at}: enqueueStopNs {r.get('enqueueStopNs')}, its event "
                  f"stops at {want_stop} ns")
            if r.get("apiNs") is None:
                timing_api_null += 1
            else:
                timing_api += 1
                api = events.get(ev.get("parentId"))
                check(api is not None and api["type"] in
                      ("ncclProfileCollApi", "ncclProfileP2pApi") and
                      r["apiNs"] == us_to_ns(api["start"]["ts"]),
                      f"{at}: apiNs {r['apiNs']} is not its API call's start")
            if r.get("source") == "host":
                timing_host += 1
                check(r["startNs"] == r["enqueueStartNs"] and
                      r["stopNs"] == r["enqueueStopNs"],
                      f"{at}: a host span that is not the enqueue span")
            for sub in ("gpu", "proxy"):
                if sub in r:
                    s = r[sub]
                    check(json_type(s.get("startNs")) == "integer" and
                          json_type(s.get("stopNs")) == "integer" and
                          "start" not in s and "stop" not in s,
                          f"{at}: {sub} without integer startNs/stopNs: {s}")
            if "phases" in r:
                timing_phases += 1
                for ph, s in r["phases"].items():
                    check(json_type(s.get("startNs")) == "integer" and
                          json_type(s.get("stopNs")) == "integer",
                          f"{at}: phase {ph} without integer startNs/stopNs")

for k, types in sorted(types_of_key.items()):
    check(len(types) == 1,
          f"key {k!r} has {len(types)} JSON types across record types: {types}")
print(f"{len(types_of_key)} top-level keys, each of one JSON type; "
      f"{timing_total} timing records ({timing_api} with apiNs, "
      f"{timing_api_null} null, {timing_host} host spans, {timing_phases} "
      f"with phases)")
check(timing_total >= 500, f"only {timing_total} timing records")
check(timing_api_null > 0, "no graph replay (apiNs null) among the records")
check(timing_phases > 0, "no KernelPhase phases among the records")
check(timing_host > 0, "no host-span timing records among the records")
check(types_of_key.get("start", {}).keys() == {"object"},
      f"start is {types_of_key.get('start')}")


# ---- 3: the same files as format version 1 read the same ----

def timing_as_v1(r):
    """A version 2 timing record as the version 1 writer wrote it."""
    def us(ns):
        return None if ns is None else decimal.Decimal(ns_to_us_text(ns))

    def span(s):
        out = {"start": us(s["startNs"]), "stop": us(s["stopNs"])}
        out.update((k, v) for k, v in s.items() if k not in ("startNs", "stopNs"))
        return out
    out = {}
    for k, v in r.items():
        if k in IDENTITY:
            continue
        if k == "apiNs":
            out["apiTs"] = us(v)
        elif k == "enqueueStartNs":
            out["enqueue"] = {"start": us(v), "stop": us(r.get("enqueueStopNs"))}
        elif k == "enqueueStopNs":
            continue
        elif k == "startNs":
            out["start"] = us(v)
        elif k == "stopNs":
            out["stop"] = us(v)
        elif k == "durationNs":
            out["duration"] = us(v)
        elif k in ("gpu", "proxy"):
            out[k] = span(v)
        elif k == "phases":
            out[k] = {ph: span(s) for ph, s in v.items()}
        else:
            out[k] = v
    return out


def dump(v):
    """Compact JSON in the trace's style, Decimals as their exact text."""
    if isinstance(v, dict):
        return "{" + ",".join(json.dumps(k) + ":" + dump(x)
                              for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ",".join(dump(x) for x in v) + "]"
    if isinstance(v, decimal.Decimal):
        return str(v)
    return json.dumps(v, ensure_ascii=False)


def to_v1(src, dst):
    os.makedirs(dst, exist_ok=True)
    for fname in trace_files(src):
        out = []
        for line in read_text(os.path.join(src, fname)).splitlines():
            if '"recordType":"timing"' in line:
                out.append(dump(timing_as_v1(parse(line))))
            elif line.startswith('{"recordType":"process"'):
                out.append(line.replace('"formatVersion":2,', '"formatVersion":1,'))
            else:
                out.append(line)
        write_text(os.path.join(dst, fname), "\n".join(out) + "\n")


def cli(args, cwd):
    return subprocess.run([cclscope, "--quiet", *args], cwd=cwd,
                          capture_output=True, text=True)


for name, folder in folders.items():
    v1 = os.path.join(work, name, "v1")
    to_v1(folder, v1)
    sample = [line for f in trace_files(v1)
              for line in read_text(os.path.join(v1, f)).splitlines()
              if '"recordType":"timing"' in line][:1]
    check(sample and '"enqueue":{"start":' in sample[0] and
          '"startNs"' not in sample[0], f"{name}: v1 rewrite failed: {sample}")
    a = cli(["summary", "--json", "."], folder)
    b = cli(["summary", "--json", "."], v1)
    check(a.returncode == 0 and b.returncode == 0,
          f"{name}: summary exit {a.returncode}/{b.returncode}: "
          f"{a.stderr[-500:]} {b.stderr[-500:]}")
    if a.returncode == 0 and b.returncode == 0:
        sa, sb = json.loads(a.stdout), json.loads(b.stdout)
        # the files' sizes differ, by construction; nothing else may
        check(sa["inputs"].pop("bytes") != sb["inputs"].pop("bytes"),
              f"{name}: the version 1 rewrite has the same size")
        check(sa == sb, f"{name}: summary --json differs between format 2 "
              f"and format 1")
        check(sa["collectives"]["basis"] == "timing" and
              sa["collectives"]["timingRecords"] > 0,
              f"{name}: the summary did not use the timing records: "
              f"{sa['collectives'].get('basis')}")
    for which, d in (("2", folder), ("1", v1)):
        c = cli(["check", "."], d)
        check(c.returncode == 0 and " 0 errors" in c.stdout and
              "newer than this cclscope" not in c.stdout,
              f"{name}: check of format {which}: exit {c.returncode}: "
              f"{c.stdout[-1500:]}")


# ---- 4: check verifies the version 2 keys ----

def mutated(name, edit):
    """A copy of run `name` whose first timing record line is edit(line)."""
    src = folders[name]
    dst = os.path.join(work, name, "mutated")
    shutil.rmtree(dst, ignore_errors=True)
    os.makedirs(dst)
    done = False
    for fname in trace_files(src):
        out = []
        for line in read_text(os.path.join(src, fname)).splitlines():
            if not done and '"recordType":"timing"' in line:
                line = edit(line)
                done = True
            out.append(line)
        write_text(os.path.join(dst, fname.replace(".zst", "")), "\n".join(out) + "\n")
    return dst


def field_edit(key, value):
    def edit(line):
        r = parse(line)
        r[key] = value(r[key])
        return dump(r)
    return edit


TEETH = [
    ("commName", field_edit("commName", lambda v: v + "x"), "timing-identity"),
    ("pid", field_edit("pid", lambda v: v + 1), "timing-identity"),
    ("runId", field_edit("runId", lambda v: "other"), "timing-identity"),
    ("durationNs", field_edit("durationNs", lambda v: v + 1), "duration"),
    ("v1 key", lambda line: line.replace('"startNs":', '"start":1.000,"startNs":', 1),
     "missing-key"),
]
for what, edit, code in TEETH:
    d = mutated("multinode", edit)
    c = cli(["check", "."], d)
    check(c.returncode != 0 and f"error[{code}]" in c.stdout,
          f"check does not flag a changed {what} as error[{code}]: "
          f"exit {c.returncode}: {c.stdout[-800:]}")

d = mutated("multinode", lambda line: line)
for fname in trace_files(d):
    p = os.path.join(d, fname)
    text = read_text(p).replace('"formatVersion":2,', '"formatVersion":3,', 1)
    write_text(p, text)
c = cli(["check", "."], d)
check("format version 3 is newer than this cclscope (2)" in c.stdout,
      f"check of format version 3: {c.stdout[-800:]}")

if failures:
    print(f"{len(failures)} check(s) failed; the runs are kept in {work}")
    sys.exit(1)
shutil.rmtree(work, ignore_errors=True)
print("format_v2: all checks passed")
