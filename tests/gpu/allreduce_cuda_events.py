#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""allreduce_cuda_events.py — one rank of the GPU check (tests/gpu/run.sh).

Run under torchrun with NCCL_PROFILER_PLUGIN pointing at cclscope. Times
every torch.distributed.all_reduce with a pair of CUDA events and writes
OUT/cuda_events_pid<PID>.json for compare_cuda_events.py.

The events bracket the collective's kernel, not its launch: a GPU spin
(torch.cuda._sleep) keeps the current stream busy while the CPU enqueues
the collective, so the start event fires when the spin ends, which is when
NCCL's stream (made to wait on the current one by ProcessGroupNCCL) may
start its kernel; the end event is recorded after the current stream was
made to wait for NCCL's. Warm-up operations are listed too (the compare
script pairs operations in order) but marked and not compared.
"""
import argparse
import json
import os

import torch
import torch.distributed as dist

from sizes import parse_sizes



def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True, help="folder for the JSON file")
    ap.add_argument("--sizes", default="8K,64K,1M,16M,128M",
                    help="message sizes in bytes (float32), comma list")
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--spin-cycles", type=int, default=2000000,
                    help="GPU cycles of spin before each collective")
    ap.add_argument("--distinct-hosts", action="store_true",
                    help="NCCL_HOSTID per rank: ranks talk over the network "
                         "transport (ProxyOps and ProxySteps)")
    args = ap.parse_args()

    rank = int(os.environ["RANK"])
    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    if args.distinct_hosts:
        os.environ["NCCL_HOSTID"] = f"cclscope-gpu-check-{rank}"
    device = torch.device("cuda", local_rank % torch.cuda.device_count())
    torch.cuda.set_device(device)
    dist.init_process_group("nccl", device_id=device)

    ops = []
    for size in parse_sizes(args.sizes):
        x = torch.ones(size // 4, dtype=torch.float32, device=device)
        for i in range(args.warmup + args.iters):
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            torch.cuda._sleep(args.spin_cycles)
            start.record()
            dist.all_reduce(x)
            end.record()
            end.synchronize()
            ops.append({"bytes": x.numel() * x.element_size(),
                        "cuda_us": start.elapsed_time(end) * 1000.0,
                        "warmup": i < args.warmup})
    dist.destroy_process_group()  # ncclCommDestroy: the plugin's finalize

    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, f"cuda_events_pid{os.getpid()}.json")
    with open(path, "w") as f:
        json.dump({"pid": os.getpid(), "rank": rank, "func": "AllReduce",
                   "nccl": ".".join(map(str, torch.cuda.nccl.version())),
                   "ops": ops}, f)


if __name__ == "__main__":
    main()
