#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""graph_replay.py — one rank of the CUDA graph check (tests/gpu/run.sh).

Run under torchrun with NCCL_PROFILER_PLUGIN pointing at cclscope. Makes
--eager all_reduce calls, captures one all_reduce in a CUDA graph, replays
the graph --replays times, and writes OUT/graph_pid<PID>.json with those
counts for graph_check.py, which compares them with what the plugin
recorded (docs/nccl-behaviour.md, "CUDA graph capture and replay").
"""
import argparse
import json
import os

import torch
import torch.distributed as dist


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--eager", type=int, default=3)
    ap.add_argument("--replays", type=int, default=10)
    ap.add_argument("--bytes", type=int, default=1 << 20)
    ap.add_argument("--distinct-hosts", action="store_true")
    args = ap.parse_args()

    rank = int(os.environ["RANK"])
    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    if args.distinct_hosts:
        os.environ["NCCL_HOSTID"] = f"cclscope-gpu-graph-{rank}"
    device = torch.device("cuda", local_rank % torch.cuda.device_count())
    torch.cuda.set_device(device)
    dist.init_process_group("nccl", device_id=device)

    x = torch.ones(args.bytes // 4, dtype=torch.float32, device=device)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(args.eager):
            dist.all_reduce(x)
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()

    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        dist.all_reduce(x)
    torch.cuda.synchronize()
    for _ in range(args.replays):
        graph.replay()
    torch.cuda.synchronize()
    dist.barrier()
    del graph
    dist.destroy_process_group()

    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, f"graph_pid{os.getpid()}.json"), "w") as f:
        json.dump({"pid": os.getpid(), "rank": rank, "eager": args.eager,
                   "captured": 1, "replays": args.replays}, f)


if __name__ == "__main__":
    main()
