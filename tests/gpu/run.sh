#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/gpu/run.sh — the GPU suite: real NCCL through the cclscope plugin on
# a machine with a CUDA GPU, PyTorch and its NCCL (not part of ctest: the
# build machine has no GPU). Two runs of 2 ranks (one GPU is enough where
# NCCL >= 2.30 allows several ranks per GPU):
#   intra   — ranks on one node: completion timings against CUDA events
#   socket  — a distinct NCCL_HOSTID per rank, so they talk over the socket
#             transport on loopback: real ProxyOp/ProxyStep/NetPlugin events
#   graph   — one all_reduce captured in a CUDA graph and replayed: what the
#             plugin records per replay (graph_check.py)
#   hang-never-called, hang-gpu — socket transport, ProxySteps recorded, one
#             rank never calls the last all_reduce or calls it behind a GPU
#             spin that never ends (hang_rank.py); `cclscope hang` must name
#             that rank, and its class
#   overhead — the latency of all_reduce 8 B – 1 MiB with the plugin loaded
#             (default mask, trace and metrics) against runs without it,
#             alternated: within 2 % at every size (overhead.sh)
# Each run's trace must pass `cclscope check`; the intra run's timings must
# agree with CUDA events within 5 % or 5 us (compare_cuda_events.py). What
# NCCL emitted (event counts by type) is printed for comparison with ncclemu.
# With one GPU and an NCCL older than 2.30 (one rank of a host per GPU), the
# intra run is skipped, and the script says so.
#
# Usage: tests/gpu/run.sh [OUT]     (default OUT: gpu-results)
# Environment: CCLSCOPE_PLUGIN, CCLSCOPE_CLI (default build/…), PYTHON,
#              NPROC (ranks, default 2), SIZES (default 8K,64K,1M,16M,128M)
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-gpu-results}
plugin=${CCLSCOPE_PLUGIN:-$PWD/build/libnccl-profiler-cclscope.so}
cli=${CCLSCOPE_CLI:-$PWD/build/cclscope}
python=${PYTHON:-python3}
nproc=${NPROC:-2}
sizes=${SIZES:-8K,64K,1M,16M,128M}

die() { echo "tests/gpu/run.sh: $*" >&2; exit 2; }
[ -f "$plugin" ] || die "no plugin at $plugin (build it: cmake -S . -B build && cmake --build build)"
[ -x "$cli" ] || die "no cclscope CLI at $cli"
ngpu=$("$python" -c 'import torch; print(torch.cuda.device_count())' 2>/dev/null) ||
  die "needs PyTorch ($python -c 'import torch' failed)"
[ "$ngpu" -ge 1 ] || die "needs a CUDA GPU (torch sees none)"
nccl=$("$python" -c 'import torch; print(".".join(map(str, torch.cuda.nccl.version())))')
echo "=== GPUs: $ngpu, PyTorch's NCCL: $nccl, ranks: $nproc"
nccl_code=$("$python" -c 'import torch; a,b,c=torch.cuda.nccl.version(); print(a*10000+b*100+c)')
one_rank_only=0
if [ "$ngpu" -lt "$nproc" ]; then
  if [ "$nccl_code" -ge 23000 ]; then
    export NCCL_MULTI_RANK_GPU_ENABLE=1 # several ranks per GPU (NCCL >= 2.30)
  else
    # Ranks with distinct NCCL_HOSTIDs count as different hosts, so NCCL's
    # duplicate-GPU check lets them share one; ranks of one host cannot.
    echo "=== NCCL $nccl < 2.30 cannot put $nproc ranks of one host on $ngpu" \
      "GPU(s): the intra run is skipped (socket and hang runs use distinct hosts)"
    one_rank_only=1
  fi
fi
rm -rf "$out"
mkdir -p "$out"

run() { # name, mask, extra worker args...
  local name=$1 mask=$2; shift 2
  echo "=== $name"
  NCCL_PROFILER_PLUGIN=$plugin CCLSCOPE_DIR="$out/$name/trace" \
    CCLSCOPE_MODE=trace,metrics CCLSCOPE_SUMMARY=stderr CCLSCOPE_MASK=$mask \
    NCCL_DEBUG=WARN NCCL_SOCKET_IFNAME=lo \
    "$python" -m torch.distributed.run --standalone --nproc_per_node="$nproc" \
    tests/gpu/allreduce_cuda_events.py --out "$out/$name/events" \
    --sizes "$sizes" "$@" 2>&1 | tee "$out/$name/log.txt"
  "$cli" check "$out/$name/trace"
  "$cli" summary "$out/$name/trace" | tee "$out/$name/summary.txt"
  # What real NCCL emitted, by event type (to set beside ncclemu's).
  cat "$out/$name/trace"/*.jsonl | grep -o '"type":"[A-Za-z]*"' | sort |
    uniq -c | tee "$out/$name/event-types.txt"
}

hang() { # class: one rank hangs the last all_reduce; cclscope hang names it
  local class=$1 name=hang-$1 hang_rank=$((nproc - 1))
  echo "=== $name (rank $hang_rank)"
  mkdir -p "$out/$name"
  NCCL_PROFILER_PLUGIN=$plugin CCLSCOPE_DIR="$out/$name/trace" \
    CCLSCOPE_MASK=default,proxystep CCLSCOPE_HANG_TIMEOUT=4 \
    NCCL_DEBUG=WARN NCCL_SOCKET_IFNAME=lo \
    "$python" -m torch.distributed.run --standalone --nproc_per_node="$nproc" \
    tests/gpu/hang_rank.py --hang-class "$class" --hang-rank "$hang_rank" \
    --hold 15 --distinct-hosts 2>&1 | tee "$out/$name/log.txt" || true
  grep -q "cclscope: possible hang" "$out/$name/log.txt" ||
    { echo "FAIL: no hang warning in $name"; exit 1; }
  "$cli" hang --json "$out/$name/trace" >"$out/$name/hang.json" || true
  "$cli" hang "$out/$name/trace" | tee "$out/$name/hang.txt" || true
  "$python" - "$out/$name/hang.json" "$hang_rank" "$class" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
want_rank, want_class = int(sys.argv[2]), sys.argv[3]
found = []
for group in doc.get("groups", []):
    culprits = group.get("culprits") or [{}]
    found.append((culprits[0].get("rank"), group.get("hangClass"),
                  group.get("confidence")))
print("culprits (rank, class, confidence):", found)
ok = any(r == want_rank and c == want_class for r, c, _ in found)
sys.exit(0 if ok else 1)
PY
}

mkdir -p "$out/intra" "$out/socket"
if [ "$one_rank_only" = 0 ]; then
  run intra default
  echo "=== completion timing against CUDA events (intra)"
  "$python" tests/gpu/compare_cuda_events.py "$out/intra/trace" \
    "$out/intra/events" | tee "$out/intra/compare.txt"
fi
run socket default,proxystep --distinct-hosts
echo "=== completion timing against CUDA events (socket)"
"$python" tests/gpu/compare_cuda_events.py "$out/socket/trace" \
  "$out/socket/events" | tee "$out/socket/compare.txt" || true
echo "=== graph (one AllReduce captured in a CUDA graph, replayed 10 times)"
mkdir -p "$out/graph"
NCCL_PROFILER_PLUGIN=$plugin CCLSCOPE_DIR="$out/graph/trace" \
  NCCL_DEBUG=WARN NCCL_SOCKET_IFNAME=lo \
  "$python" -m torch.distributed.run --standalone --nproc_per_node="$nproc" \
  tests/gpu/graph_replay.py --out "$out/graph/events" --distinct-hosts 2>&1 |
  tee "$out/graph/log.txt"
"$cli" check "$out/graph/trace"
"$python" tests/gpu/graph_check.py "$out/graph/trace" "$out/graph/events" |
  tee "$out/graph/check.txt" || graph_failed=1
hang never-called
hang gpu
[ -z "${graph_failed:-}" ] || { echo "FAIL: graph replays differ from docs"; exit 1; }
echo "=== overhead (all_reduce latency with and without the plugin, alternated)"
CCLSCOPE_PLUGIN=$plugin PYTHON=$python NPROC=$nproc tests/gpu/overhead.sh "$out/overhead" ||
  { echo "FAIL: the plugin costs all_reduce more than the limit (or the runs failed)"; exit 1; }
echo "=== GPU suite passed; results in $out"
