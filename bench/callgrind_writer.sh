#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
#
# bench/callgrind_writer.sh — instructions per callback of each plugin
# thread, counted by callgrind (independent of the machine's load).
#
#   bench/callgrind_writer.sh BUILD_DIR [SMALL_S LARGE_S]   (env passes on,
#   e.g. CCLSCOPE_COMPRESS=zstd:1, CCLSCOPE_FORMAT=binary)
#
# Runs `bench_plugin --mode writer --rate 1e6` under callgrind twice, for
# SMALL_S and LARGE_S seconds' worth of callbacks (0.1 and 0.5: 99 910 and
# 499 550 callbacks), each thread counted apart (--separate-threads), and
# prints per thread the instructions the larger run added per added
# callback, so that start-up, calibration and the final close cancel out:
#   hot path  NCCL's side: the plugin's start, state and stop functions
#             (inclusive; their cost per callback in the larger run)
#   writer    the cclscope-writer thread (drain, assembly, formatting)
#   io        the cclscope-io thread (compression, writes)
# With CALLGRIND_KEEP=DIR the callgrind files of both runs are kept in
# DIR/SMALL_S and DIR/LARGE_S (for `callgrind_annotate --inclusive=yes`,
# one function's instructions per callback: its count in the larger run
# less the smaller's, over the callbacks added).
# Valgrind serialises the threads and runs ~50x slower, so the writer lags
# the producer more than natively (more stamps older than the newest clock
# segment, larger backlogs); the figures compare builds, not machines.
set -euo pipefail
build=${1:?usage: callgrind_writer.sh BUILD_DIR [SMALL_S LARGE_S]}
small=${2:-0.1}
large=${3:-0.5}
work=$(mktemp -d /tmp/callgrind-writer.XXXXXX)
# bench_plugin reads a binary trace's counters through `cclscope convert`.
PATH=$(cd "$build" && pwd):$PATH
export PATH
trap 'rm -rf "$work"' EXIT
keep=${CALLGRIND_KEEP:-}

# run SECONDS: callgrind one writer-mode run into $work/SECONDS; prints
# "callbacks main writer io hot" (instructions of each thread, hot path).
run() {
  local d=$work/$1
  mkdir -p "$d/out"
  CCLSCOPE_RING_SIZE=${CCLSCOPE_RING_SIZE:-512M} valgrind --tool=callgrind \
    --separate-threads=yes --callgrind-out-file="$d/cg.%p" \
    "$build/bench/bench_plugin" --plugin "$build/libnccl-profiler-cclscope.so" \
    --baseline "$build/bench/libbench-nop-plugin.so" --mode writer \
    --seconds "$1" --rate 1e6 --out "$d/out" >"$d/log" 2>&1
  local callbacks main=0 writer=0 io=0 hot=0 n f
  callbacks=$(awk '/^writer:/ {print $2}' "$d/log")
  for f in "$d"/cg.*-*; do
    n=$(awk '/^summary:/ {print $2}' "$f")
    if grep -q 'fn=.*writer_main' "$f"; then
      writer=$n
    elif grep -q 'fn=.*io_main' "$f"; then
      io=$n
    else
      main=$((main + n))
      # From outside the source tree: inside it, callgrind_annotate names
      # files relative to it and splits the inlined parts off differently.
      hot=$(cd "$work" && callgrind_annotate --inclusive=yes "$f" 2>/dev/null |
        awk '/:(v[0-9]+_start|v[0-9]+_state|cs_abi_stop_event) \[/ {
               gsub(",", "", $1); s += $1 } END { print s + 0 }')
    fi
  done
  if [ -n "$keep" ]; then
    mkdir -p "$keep/$1"
    cp "$d"/cg.* "$d/log" "$keep/$1/"
  fi
  echo "$callbacks $main $writer $io $hot"
}

read -r c1 m1 w1 i1 _ < <(run "$small")
read -r c2 m2 w2 i2 h2 < <(run "$large")
awk -v c1="$c1" -v c2="$c2" -v w1="$w1" -v w2="$w2" -v i1="$i1" -v i2="$i2" \
  -v h2="$h2" -v m1="$m1" -v m2="$m2" -v fmt="${CCLSCOPE_FORMAT:-jsonl}" \
  -v comp="${CCLSCOPE_COMPRESS:-none}" 'BEGIN {
  d = c2 - c1
  printf "format %s, compression %s\n", fmt, comp
  printf "callbacks %d and %d; instructions per callback:\n", c1, c2
  printf "  hot path %.1f (producer thread with the benchmark loop %.1f)\n",
         h2 / c2, (m2 - m1) / d
  printf "  writer   %.1f\n", (w2 - w1) / d
  printf "  io       %.1f\n", (i2 - i1) / d
  printf "  all plugin threads %.1f\n", h2 / c2 + (w2 - w1 + i2 - i1) / d
}'
