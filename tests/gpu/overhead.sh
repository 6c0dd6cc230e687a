#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/gpu/overhead.sh — what the plugin costs a real all_reduce: the
# latency a PyTorch loop sees for 8 B to 1 MiB (allreduce_latency.py), with
# the plugin loaded (default mask, trace and metrics: what a platform team
# would leave on) and without it, in runs alternated in one session (ABBA
# order, so a drift of the machine falls on both), then compare_overhead.py:
# every size within 2 % (LIMIT) of the run without. Part of tests/gpu/run.sh;
# runs alone too.
#
# Usage: tests/gpu/overhead.sh [OUT]    (default OUT: gpu-results/overhead)
# Environment: CCLSCOPE_PLUGIN (default build/…), PYTHON, NPROC (ranks,
#              default 2), PAIRS (default 3: 6 runs), SIZES, ROUNDS, BATCH,
#              LIMIT (fraction, default 0.02)
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-gpu-results/overhead}
plugin=${CCLSCOPE_PLUGIN:-$PWD/build/libnccl-profiler-cclscope.so}
python=${PYTHON:-python3}
nproc=${NPROC:-2}
pairs=${PAIRS:-3}
sizes=${SIZES:-8,64,512,4K,32K,256K,1M}
rounds=${ROUNDS:-30}
batch=${BATCH:-50}
limit=${LIMIT:-0.02}

die() { echo "tests/gpu/overhead.sh: $*" >&2; exit 2; }
[ -f "$plugin" ] || die "no plugin at $plugin (build it: cmake -S . -B build && cmake --build build)"
ngpu=$("$python" -c 'import torch; print(torch.cuda.device_count())' 2>/dev/null) ||
  die "needs PyTorch ($python -c 'import torch' failed)"
[ "$ngpu" -ge 1 ] || die "needs a CUDA GPU (torch sees none)"
if [ "$ngpu" -lt "$nproc" ]; then
  export NCCL_MULTI_RANK_GPU_ENABLE=1 # several ranks per GPU (NCCL >= 2.30)
fi
rm -rf "$out"
mkdir -p "$out"

one_run() { # variant, run number
  local variant=$1 n=$2 dir="$out/run$2-$1"
  mkdir -p "$dir"
  echo "=== overhead: run $n, $variant"
  local env=(env -u NCCL_PROFILER_PLUGIN)
  if [ "$variant" = plugin ]; then
    env=(env NCCL_PROFILER_PLUGIN="$plugin" CCLSCOPE_DIR="$dir/trace"
      CCLSCOPE_MODE=trace,metrics CCLSCOPE_MASK=default)
  fi
  "${env[@]}" NCCL_DEBUG=WARN "$python" -m torch.distributed.run --standalone \
    --nproc_per_node="$nproc" tests/gpu/allreduce_latency.py --out "$dir" \
    --variant "$variant" --run "$n" --sizes "$sizes" --rounds "$rounds" \
    --batch "$batch" >"$dir/log.txt" 2>&1 ||
    { cat "$dir/log.txt"; die "run $n ($variant) failed"; }
  if [ "$variant" = plugin ]; then # the plugin was really there
    ls "$dir/trace"/trace_*.jsonl >/dev/null 2>&1 ||
      die "run $n: the plugin wrote no trace in $dir/trace"
  fi
}

n=0
for _ in $(seq 1 "$pairs"); do # ABBA: none, plugin, plugin, none, ...
  if [ $((n % 4)) -eq 0 ]; then order="none plugin"; else order="plugin none"; fi
  for v in $order; do
    one_run "$v" $n
    n=$((n + 1))
  done
done
"$python" tests/gpu/compare_overhead.py "$out" --limit "$limit" |
  tee "$out/compare.txt"
exit "${PIPESTATUS[0]}"
