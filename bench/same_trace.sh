#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
#
# bench/same_trace.sh — do two builds write the same trace for the same
# callbacks? For changes to the writer that must not change its output.
#
#   bench/same_trace.sh BUILD_A BUILD_B [SECONDS]   (env passes on, e.g.
#   CCLSCOPE_COMPRESS=zstd:1 or CCLSCOPE_FORMAT=binary, whose traces each
#   build's `cclscope convert` turns into lines; default 0.2 s: 199 820
#   callbacks)
#
# Runs `bench_plugin --mode writer` (one producer thread: the records reach
# the writer in the same order every time) twice with BUILD_A and once
# with BUILD_B, each into a fresh folder, with ordinary writes
# (CCLSCOPE_DIRECT_IO=off), and compares the traces after replacing what
# differs from run to run whatever the code: clock readings (every
# number with a fraction, integers above 10^12: the benchmark's GPU
# timers), process and thread ids, the handle tag, ring and in-flight high
# waters, timing durations; padding records are dropped and lines
# re-serialised (padding spaces). It compares the event lines in their
# order, and all lines sorted (timing records are written when their
# grace time has passed, which depends on the machine). The A/A pair shows
# the comparison itself is stable; the A/B pair is the verdict. Exit 0
# when both pairs are identical.
set -euo pipefail
a=${1:?usage: same_trace.sh BUILD_A BUILD_B [SECONDS]}
b=${2:?usage: same_trace.sh BUILD_A BUILD_B [SECONDS]}
secs=${3:-0.2}
work=$(mktemp -d /tmp/same-trace.XXXXXX)
trap 'rm -rf "$work"' EXIT

cat >"$work/normalise.py" <<'EOF'
import json, sys
VARY = {"pid", "ppid", "tid", "originPid", "handleTag", "durationNs",
        "ringHighWaterUnits", "liveHighWater"}
def walk(v, key=None):
    if isinstance(v, dict):
        return {k: walk(x, k) for k, x in v.items()}
    if isinstance(v, list):
        return [walk(x) for x in v]
    if key in VARY and v is not None:
        return "V"
    if isinstance(v, float):
        return "F"
    if isinstance(v, int) and not isinstance(v, bool) and v > 10**12:
        return "T"
    return v
for path in sys.argv[1:]:
    for line in open(path):
        o = json.loads(line)
        if o.get("recordType") != "pad":
            print(json.dumps(walk(o), separators=(",", ":")))
EOF

# run NAME BUILD: one traced run, normalised into $work/NAME.{all,events,sorted}
run() {
  local d=$work/$1
  mkdir -p "$d"
  # bench_plugin reads a binary trace's counters through `cclscope convert`.
  PATH=$(cd "$2" && pwd):$PATH CCLSCOPE_DIRECT_IO=off "$2/bench/bench_plugin" \
    --plugin "$2/libnccl-profiler-cclscope.so" \
    --baseline "$2/bench/libbench-nop-plugin.so" --mode writer \
    --seconds "$secs" --rate 1e6 --out "$d" >"$d.log"
  local f
  for f in "$d"/*.zst; do
    [ -e "$f" ] && zstd -q -d --rm "$f"
  done
  # A binary trace (CCLSCOPE_FORMAT=binary) as the lines it holds, by the
  # same build's reader: the plugin's encoding and the CLI's decoding.
  for f in "$d"/*.cst; do
    [ -e "$f" ] && "$2/cclscope" convert -o "${f%.cst}.jsonl" "$f" && rm "$f"
  done
  python3 "$work/normalise.py" "$d"/*.jsonl >"$d.all"
  grep '"recordType":"event"' "$d.all" >"$d.events"
  sort "$d.all" >"$d.sorted"
}

run a1 "$a"
run a2 "$a"
run b "$b"
status=0
for x in a2 b; do
  echo "a1 against $x: $(wc -l <"$work/a1.all") and $(wc -l <"$work/$x.all") lines"
  if cmp -s "$work/a1.events" "$work/$x.events"; then
    echo "  event lines, in order: identical"
  else
    echo "  event lines, in order: DIFFERENT"
    diff "$work/a1.events" "$work/$x.events" | head -4 | cut -c1-300
    status=1
  fi
  if cmp -s "$work/a1.sorted" "$work/$x.sorted"; then
    echo "  all lines, sorted: identical"
  else
    echo "  all lines, sorted: DIFFERENT"
    diff "$work/a1.sorted" "$work/$x.sorted" | head -4 | cut -c1-300
    status=1
  fi
done
exit $status
