#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/cli/real_minimal_profiler.sh — a minimal_profiler recording made on
# real NCCL (fixtures/real_minimal_profiler: one process driving 4 GPUs,
# one 128 MiB float32 AllReduce per rank, CUPTI kernel activity
# interleaved), read by every command as it was written:
#   check      clean (0 errors, 0 notes);
#   summary    the AllReduce's 134,217,728 bytes, a GPU-side duration with
#              its source named, and a bandwidth that is possible (1 to
#              1000 GB/s) and is bytes / p50 x 2(n-1)/n, p50 being one of
#              the ranks' own GPU durations; the 4 CUPTI records counted;
#   view       the 4 CUPTI kernels on 4 GPU lanes (one per GPU and stream),
#              each linked to its rank's KernelLaunch;
#   perfetto   the same 4 kernels on GPU lanes, with launch arrows;
#   convert    into our format, which check passes and whose summary gives
#              the same collectives and stragglers.
# usage: real_minimal_profiler.sh CCLSCOPE FIXTURE_DIR
set -euo pipefail
cs=$1 fixture=$2
work=$(mktemp -d "${TMPDIR:-/tmp}/cclscope-real-mp-XXXXXX")
trap 'rm -rf "$work"' EXIT

fail() { echo "FAIL: $*"; exit 1; }

"$cs" check "$fixture" >"$work/check.txt" 2>&1 || { rc=$?; cat "$work/check.txt"; fail "check exited $rc"; }
grep -q "1 file, [0-9]* records: 0 errors, 0 notes — OK$" "$work/check.txt" ||
  { cat "$work/check.txt"; fail "check is not clean"; }
grep -q "is in the minimal_profiler format" "$work/check.txt" ||
  fail "the recording was not read as a minimal_profiler trace"

"$cs" -q summary --json "$fixture" >"$work/summary.json"
"$cs" -q summary --wide "$fixture" >"$work/summary.txt" # one row per line
"$cs" -q convert -o "$work/converted" "$fixture"
"$cs" -q merge -o "$work/converted.jsonl" "$work/converted"
"$cs" check "$work/converted" >"$work/check_converted.txt" 2>&1 ||
  { cat "$work/check_converted.txt"; fail "check of the converted trace failed"; }
grep -q "0 errors, 0 notes — OK$" "$work/check_converted.txt" ||
  { cat "$work/check_converted.txt"; fail "the converted trace is not clean"; }
grep -q "minimal_profiler format" "$work/check_converted.txt" &&
  fail "the converted trace is still read as minimal_profiler"
"$cs" -q summary --json "$work/converted" >"$work/summary_converted.json"
"$cs" view -o "$work/view.html" "$fixture" 2>"$work/view.txt"
grep -q "4 GPU activities (CUPTI) on GPU lanes" "$work/view.txt" ||
  { cat "$work/view.txt"; fail "view did not say where the CUPTI kernels went"; }
"$cs" perfetto -o "$work/perfetto.json" "$fixture" 2>"$work/perfetto.txt"

python3 - "$fixture" "$work" <<'PY'
import glob, json, re, sys
fixture, work = sys.argv[1], sys.argv[2]
failures = []
def check(cond, what):
    if not cond:
        failures.append(what)

# the recording itself, read independently of cclscope
raw = [json.loads(l) for f in glob.glob(fixture + '/*.jsonl') for l in open(f) if l.strip()]
kernels = [r for r in raw if r.get('recordType') == 'cuptiActivity' and r.get('type') == 'KERNEL']
colls = [r for r in raw if r.get('recordType') == 'event' and r.get('type') == 'ncclProfileColl']
check(len(kernels) == 4 and len(colls) == 4, 'the fixture has 4 Colls and 4 CUPTI kernels')
nranks = 4
bytes_expected = colls[0]['details']['count'] * 4  # float32 elements
check(bytes_expected == 134217728, 'the Coll counts 33554432 float32 elements')

# summary --json
s = json.load(open(work + '/summary.json'))
C = s['collectives']
rows = C['rows']
check(C['basis'] == 'timing', 'basis timing, got %s' % C['basis'])
check(C['gpuActivities'] == 4, 'gpuActivities 4, got %s' % C.get('gpuActivities'))
check(len(rows) == 1, 'one collectives row, got %d' % len(rows))
row = rows[0]
check(row['func'] == 'AllReduce', 'the row is the AllReduce')
check(row['bytes'] == 134217728, 'bytes 134217728, got %s' % row['bytes'])
check(row['source'] in ('gpu', 'cupti'), 'a GPU-side source, got %s' % row['source'])
check(row['count'] == 4 and row['nranks'] == 4, 'one call on each of 4 ranks')
bus = row['busBwGBs']
check(bus is not None and 1 < bus < 1000, 'a possible busBw (1..1000 GB/s), got %s' % bus)
if bus is not None:
    p50_s = row['p50Us'] * 1e-6
    expect = row['bytes'] / p50_s / 1e9 * 2 * (nranks - 1) / nranks
    check(abs(bus - expect) <= 1e-3 * expect, 'busBw %s = bytes / p50 x 1.5 = %s' % (bus, expect))
    check(abs(row['algBwGBs'] - row['bytes'] / p50_s / 1e9) <= 1e-3 * row['algBwGBs'], 'algBw = bytes / p50')

# the timing records the summary read: one per rank, GPU-side, the p50 one
# of their durations (a histogram's bucket: within 0.4 %)
conv = [json.loads(l) for l in open(work + '/converted.jsonl') if l.strip()]
timing = [r for r in conv if r.get('recordType') == 'timing']
check(len(timing) == 4, '4 timing records, got %d' % len(timing))
check(all(t['source'] == row['source'] and t['bytes'] == 134217728 for t in timing),
      'every timing record has the row source and 134217728 bytes')
durs = sorted(float(t['duration']) for t in timing)
check(any(abs(row['p50Us'] - d) <= 0.004 * d for d in durs[1:3]),
      'p50 %s is a middle duration of %s' % (row['p50Us'], durs))
# each rank's GPU duration is its CUPTI kernel's (the KernelCh stamps
# start a few us after the kernel does and end before it)
by_dev = {k['deviceId']: float(k['duration']) for k in kernels}
for t in timing:
    k = t.get('cupti')
    check(k is not None, 'rank %d timing names its CUPTI kernel' % t['rank'])
    if k:
        d = by_dev[k['device']]
        check(0 <= d - float(t['duration']) < 20, 'rank %d: GPU duration %s within 20 us of its kernel %s' % (t['rank'], t['duration'], d))

# text: the bandwidth printed, the source named
txt = open(work + '/summary.txt').read()
check(re.search(r'^  \S+ +AllReduce +128 MiB +%s +4 +[0-9.]+ .* [0-9.]+ +[0-9.]+ +RING +SIMPLE$' % row['source'], txt, re.M),
      'the text row shows 128 MiB, the source and the bandwidths')
check('source: gpu = KernelCh GPU stamps, cupti = CUPTI kernel' in txt, 'the text names the sources')

# convert round-trips: the same collectives and stragglers
s2 = json.load(open(work + '/summary_converted.json'))
check(s2['collectives'] == C, 'converted: the same collectives')
check(s2['stragglers'] == s['stragglers'], 'converted: the same stragglers')
acts = [r for r in conv if r.get('recordType') == 'gpuActivity']
check(len(acts) == 4, 'converted: 4 gpuActivity records')

# view: the kernels on GPU lanes, linked to their KernelLaunch
html = open(work + '/view.html').read()
m = re.search(r'<script type="application/json" id="cclscope-data">(.*?)</script>', html, re.S)
D = json.loads(m.group(1))
E, T, S = D['events'], D['types'], D['strings']
gpu_items = [i for i, ty in enumerate(E['type']) if T[ty] == 'GpuActivity']
check(len(gpu_items) == 4, 'view: 4 GPU activity items, got %d' % len(gpu_items))
lanes = set()
for i in gpu_items:
    tk = D['tracks'][E['track'][i]]
    check(tk.get('gpu') and re.match(r'GPU [0-3] · stream 0x3[a-d]$', tk['gpu']), 'view: item %d on a GPU lane (%s)' % (i, tk.get('gpu')))
    lanes.add(tk.get('gpu'))
    check(S[E['name'][i]].startswith('ncclDevKernel_AllReduce'), 'view: a kernel name')
    p = E['parent'][i]
    check(p >= 0 and T[E['type'][p]] == 'KernelLaunch' and E['rank'][p] == tk['rank'],
          'view: item %d linked to its rank\'s KernelLaunch' % i)
check(len(lanes) == 4, 'view: 4 GPU lanes, got %s' % sorted(lanes))
durs_view = sorted(E['dur'][i] for i in gpu_items)
check(durs_view == sorted(round(float(k['duration']) * 1000) for k in kernels), 'view: the kernels\' spans')

# perfetto: the same 4 kernels on GPU lanes, with their launch arrows
P = json.load(open(work + '/perfetto.json'))
ev = P['traceEvents']
names = {(e['pid'], e['tid']): e['args']['name'] for e in ev if e['ph'] == 'M' and e['name'] == 'thread_name'}
gx = [e for e in ev if e['ph'] == 'X' and e.get('cat') == 'gpu']
check(len(gx) == 4, 'perfetto: 4 GPU X events, got %d' % len(gx))
check(len({(e['pid'], e['tid']) for e in gx}) == 4, 'perfetto: on 4 tracks')
check(all(re.search(r'GPU [0-3] · stream 0x3[a-d] \(GPU activity\)', names[(e['pid'], e['tid'])]) for e in gx),
      'perfetto: the tracks are GPU lanes')
check(len([e for e in ev if e.get('cat') == 'launch' and e['ph'] == 'f']) == 4, 'perfetto: 4 launch arrows')

if failures:
    print('\n'.join('FAIL: ' + f for f in failures))
    sys.exit(1)
print('ok: check clean; AllReduce %d bytes, source %s, p50 %.3f us, busBw %.3f GB/s; 4 kernels on GPU lanes in view and perfetto; convert round-trips'
      % (row['bytes'], row['source'], row['p50Us'], bus))
PY
