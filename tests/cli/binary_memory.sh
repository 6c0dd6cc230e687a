#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/cli/binary_memory.sh — reading many binary traces together holds,
# per file, its current frame's records and one piece of their text, never
# a frame's text whole (src/cli/read/trace_codec.c, cst_records.c): the
# plugin's frames hold ~1 MiB of records, which make ~18 MB of lines.
# `summary` reads its files in lock step (one line of each in turn); on 8
# copies of a trace of such frames it must stay under 100 MB of memory
# with -j 1 and -j 2 (holding each file's frame text took 185 and 453 MB)
# and give the same summary with either. The bound is checked against the
# trace: 8 of its largest frame's text alone must be over it.
# usage: binary_memory.sh BENCH_PLUGIN PLUGIN NOP_PLUGIN CCLSCOPE
set -euo pipefail
bench=$1 plugin=$2 nop=$3 cs=$4
bound_mb=100
work=$(mktemp -d "${TMPDIR:-/tmp}/cclscope-binmem-XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() {
  echo "FAIL: $*"
  exit 1
}

# The plugin's own binary trace, as fast as its writer goes: frames of
# ~1 MiB of records (500 000 callbacks: a count, the same in every build;
# bench_plugin reads its counters with cclscope).
mkdir "$work/one"
PATH="$(dirname "$cs"):$PATH" CCLSCOPE_FORMAT=binary \
  "$bench" --plugin "$plugin" --baseline "$nop" --mode writer --seconds 0.1 \
  --out "$work/one" >"$work/bench.log" 2>&1 || {
  cat "$work/bench.log"
  fail "bench_plugin could not write the trace"
}
trace=$(echo "$work"/one/*.cst)
[ -f "$trace" ] || fail "no binary trace in $work/one"

# Its largest frame's text: each frame's lines, converted one frame at a
# time (python3 reads the frame headers; docs/trace-format.md).
largest=$(python3 - "$trace" "$cs" "$work" <<'PY'
import struct, subprocess, sys
path, cs, work = sys.argv[1:4]
data = open(path, "rb").read()
head, pos, largest = data[:16], 16, 0
while pos + 16 <= len(data):
    size = struct.unpack_from("<I", data, pos + 8)[0]
    one = work + "/frame.cst"
    with open(one, "wb") as f:
        f.write(head + data[pos:pos + 16 + size])
    text = subprocess.run([cs, "-q", "convert", "-o", "-", one],
                          stdout=subprocess.PIPE, check=True).stdout
    largest = max(largest, len(text))
    pos += 16 + size
print(largest)
PY
)
if [ $((8 * largest)) -le $((bound_mb * 1024 * 1024)) ]; then
  fail "the trace's largest frame makes only $largest bytes of text: 8 of them do not test a ${bound_mb} MB bound"
fi

mkdir "$work/eight"
for i in 1 2 3 4 5 6 7 8; do
  cp "$trace" "$work/eight/trace_r$i.cst"
done
# max_rss JOBS OUT: summary --json of the 8 files into OUT; prints the
# command's peak memory in MB.
max_rss() {
  python3 - "$cs" "$1" "$work/eight" "$2" <<'PY'
import resource, subprocess, sys
cs, jobs, folder, out = sys.argv[1:5]
with open(out, "wb") as f:
    subprocess.run([cs, "-q", "-j", jobs, "summary", "--json", folder],
                   stdout=f, check=True)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)
PY
}
for j in 1 2; do
  mb=$(max_rss "$j" "$work/summary.$j.json")
  echo "summary -j $j of 8 binary traces (largest frame: $largest bytes of text): $mb MB"
  [ "$mb" -lt "$bound_mb" ] || fail "summary -j $j held $mb MB (bound ${bound_mb} MB)"
done
cmp -s "$work/summary.1.json" "$work/summary.2.json" ||
  fail "summary --json differs between -j 1 and -j 2"
grep -q '"records"' "$work/summary.1.json" || fail "summary --json has no records count"
echo "PASS: 8 binary traces summarised in lock step under ${bound_mb} MB"
