#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# scripts/demo.sh — the main job, end to end, on any Debian 12 machine (no GPU):
#   1. install what the build needs (a C compiler, CMake, Ninja: nothing
#      else, no service) and build the plugin, the CLI and ncclemu (build/);
#   2. run an emulated training step on 2 nodes x 4 GPUs (ncclemu's `mixed`
#      scenario: tensor-parallel AllGather/ReduceScatter, pipeline send/recv,
#      data-parallel AllReduce buckets, a world AllReduce), with rank 5
#      arriving 400 us late at every operation, through the real plugin;
#   3. check the traces, print the summary (collectives, stragglers, network);
#   4. write the timeline (timeline.html, open it in a browser) and a
#      Perfetto/Chrome trace (trace.json, for ui.perfetto.dev).
# Each step's time is printed, and all of them at the end.
# usage: scripts/demo.sh [--out DIR] [--build-dir DIR] [--no-build]
set -euo pipefail
cd "$(dirname "$0")/.."
out=cclscope-demo build=build do_build=1
while [ $# -gt 0 ]; do
  case $1 in
  --out) out=$2; shift 2 ;;
  --build-dir) build=$2; shift 2 ;;
  --no-build) do_build=0; shift ;;
  -h | --help) sed -n '3,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) echo "demo.sh: unknown option '$1' (try --help)" >&2; exit 2 ;;
  esac
done

# Steps and their times: step NAME starts one (ending the one before),
# steps_done ends the last and prints them all.
step_names=() step_secs=() step_name="" step_t0=""
now() { date +%s.%N; }
step_end() {
  [ -n "$step_name" ] || return 0
  local secs
  secs=$(awk -v a="$step_t0" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }')
  printf '\033[1m== %s: %s s\033[0m\n' "$step_name" "$secs"
  step_names+=("$step_name") step_secs+=("$secs")
  step_name=""
}
step() {
  step_end
  printf '\n\033[1m== %s\033[0m\n' "$*"
  step_name=$* step_t0=$(now)
}
steps_done() {
  step_end
  local total
  total=$(printf '%s\n' "${step_secs[@]}" | awk '{ s += $1 } END { printf "%.1f", s }')
  printf '\nTime per step (%s s in all):\n' "$total"
  for i in "${!step_names[@]}"; do
    printf '  %6s s  %s\n' "${step_secs[$i]}" "${step_names[$i]}"
  done
}

if [ $do_build -eq 1 ]; then
  # Only what the demo builds with (no test toolchain, no service).
  step "installing dependencies (scripts/install-deps.sh --demo)"
  scripts/install-deps.sh --demo
  step "building the plugin, cclscope and ncclemu into $build/"
  if [ ! -f "$build/CMakeCache.txt" ]; then
    # A new build folder: Release (as a GPU node builds it; without debug
    # information it compiles in a fifth less CPU time), without the test
    # suite and the benchmarks (scripts/test.sh builds those in folders of
    # its own).
    cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DCCLSCOPE_BUILD_TESTS=OFF -DCCLSCOPE_BUILD_BENCH=OFF >/dev/null
  fi
  # An existing folder keeps its own settings and generator.
  cmake --build "$build" --target cclscope ncclemu nccl-profiler-cclscope
fi
for bin in "$build/cclscope" "$build/ncclemu" "$build/libnccl-profiler-cclscope.so"; do
  [ -e "$bin" ] || { echo "demo.sh: $bin is missing (build first, or drop --no-build)" >&2; exit 1; }
done

rm -rf "$out"
mkdir -p "$out"
step "an emulated training step: 2 nodes x 4 GPUs, rank 5 late by 400 us"
# Every event type that matters for a training step, ProxySteps included
# (network detail for the rank-pair fits); metrics as well, as a textfile.
# --sizes: each of the step's roles (tensor, pipeline, data parallel, the
# world AllReduce) moves each size in turn (docs/ncclemu.md, --sizes),
# so the links between the nodes see the distinct sizes their latency and
# bandwidth fit needs (3 at least): the summary's network table fits them.
CCLSCOPE_DIR="$out/traces" CCLSCOPE_JOB_ID=demo \
  CCLSCOPE_MODE=trace,metrics CCLSCOPE_MASK=default,proxystep \
  CCLSCOPE_PROM_DIR="$out/metrics" CCLSCOPE_PROM_KEEP=1 CCLSCOPE_SUMMARY=off \
  "$build/ncclemu" --plugin "$build/libnccl-profiler-cclscope.so" \
  --scenario mixed --nodes 2 --ranks-per-node 4 --ops 5 \
  --delay-rank 5 --delay-us 400 --step-marks --sizes 8M,64K,512K
step "cclscope check $out/traces"
"$build/cclscope" check "$out/traces"
step "cclscope summary $out/traces"
"$build/cclscope" summary "$out/traces"
step "timeline"
"$build/cclscope" view "$out/traces" -o "$out/timeline.html"
"$build/cclscope" perfetto "$out/traces" -o "$out/trace.json"
steps_done
cat <<DONE

Done. In $out/:
  traces/          one JSONL trace per process (docs/trace-format.md)
  metrics/         Prometheus textfiles (docs/metrics.md)
  timeline.html    the timeline: open it in a browser (works offline)
  trace.json       the same for https://ui.perfetto.dev or chrome://tracing
DONE
