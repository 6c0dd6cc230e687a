#!/usr/bin/env bash
# tests/gpu/run.sh — the GPU suite: real NCCL through the cclscope plugin on
# a machine with a CUDA GPU, PyTorch and its NCCL (not part of ctest: the
# build machine has no GPU). Two runs of 2 ranks (one GPU is enough where
# NCCL >= 2.30 allows several ranks per GPU):
#   intra   — ranks on one node: completion timings against CUDA events
#   socket  — a distinct NCCL_HOSTID per rank, so they talk over the socket
#             transport on loopback: real ProxyOp/ProxyStep/NetPlugin events
# Each run's trace must pass `cclscope check`; the intra run's timings must
# agree with CUDA events within 5 % or 5 us (compare_cuda_events.py). What
# NCCL emitted (event counts by type) is printed for comparison with ncclemu.
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
if [ "$ngpu" -lt "$nproc" ]; then
  export NCCL_MULTI_RANK_GPU_ENABLE=1 # several ranks per GPU (NCCL >= 2.30)
fi
rm -rf "$out"
mkdir -p "$out"

run() { # name, extra worker args...
  local name=$1; shift
  echo "=== $name"
  NCCL_PROFILER_PLUGIN=$plugin CCLSCOPE_DIR="$out/$name/trace" \
    CCLSCOPE_MODE=trace,metrics CCLSCOPE_SUMMARY=stderr \
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

mkdir -p "$out/intra" "$out/socket"
run intra
run socket --distinct-hosts
echo "=== completion timing against CUDA events (intra)"
"$python" tests/gpu/compare_cuda_events.py "$out/intra/trace" \
  "$out/intra/events" | tee "$out/intra/compare.txt"
echo "=== completion timing against CUDA events (socket)"
"$python" tests/gpu/compare_cuda_events.py "$out/socket/trace" \
  "$out/socket/events" | tee "$out/socket/compare.txt"
echo "=== GPU suite passed; results in $out"
