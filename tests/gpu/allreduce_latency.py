#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""allreduce_latency.py — one rank of the overhead check (tests/gpu/overhead.sh).

Run under torchrun, with or without NCCL_PROFILER_PLUGIN: the latency an
application sees for torch.distributed.all_reduce of each size. A round is
BATCH all_reduce calls back to back followed by torch.cuda.synchronize(),
timed on the host: what one call costs in a training loop, the plugin's
callbacks on NCCL's threads included. Writes OUT/latency_rank<RANK>.json:
for each size, the microseconds per call of every round (warm-up rounds
are run but not written).
"""
import argparse
import json
import os
import time

import torch
import torch.distributed as dist

from sizes import parse_sizes



def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True, help="folder for the JSON file")
    ap.add_argument("--variant", required=True,
                    help="what this run is (plugin, none): written as is")
    ap.add_argument("--run", type=int, default=0,
                    help="the run's number in the alternation")
    ap.add_argument("--sizes", default="8,64,512,4K,32K,256K,1M",
                    help="message sizes in bytes (float32 from 8 B), comma list")
    ap.add_argument("--rounds", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=5, help="rounds not written")
    ap.add_argument("--batch", type=int, default=50,
                    help="all_reduce calls per round")
    args = ap.parse_args()

    rank = int(os.environ["RANK"])
    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    device = torch.device("cuda", local_rank % torch.cuda.device_count())
    torch.cuda.set_device(device)
    dist.init_process_group("nccl", device_id=device)

    sizes = {}
    for size in parse_sizes(args.sizes):
        x = torch.ones(max(size // 4, 2), dtype=torch.float32, device=device)
        per_call_us = []
        for r in range(args.warmup + args.rounds):
            dist.barrier()
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            for _ in range(args.batch):
                dist.all_reduce(x)
            torch.cuda.synchronize()
            t1 = time.perf_counter()
            if r >= args.warmup:
                per_call_us.append((t1 - t0) * 1e6 / args.batch)
        sizes[str(x.numel() * x.element_size())] = per_call_us
    dist.destroy_process_group()

    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, f"latency_rank{rank}.json"), "w") as f:
        json.dump({"variant": args.variant, "run": args.run, "rank": rank,
                   "pid": os.getpid(), "batch": args.batch,
                   "plugin": os.environ.get("NCCL_PROFILER_PLUGIN", ""),
                   "nccl": ".".join(map(str, torch.cuda.nccl.version())),
                   "sizes": sizes}, f)


if __name__ == "__main__":
    main()
