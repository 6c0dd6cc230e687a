#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""hang_rank.py — one rank of the GPU hang check (tests/gpu/run.sh).

Run under torchrun with NCCL_PROFILER_PLUGIN pointing at cclscope and a
short CCLSCOPE_HANG_TIMEOUT. After a few all_reduce calls that complete,
every rank calls one more, except that the hang rank:
  never-called  never calls it (its host thread sleeps), or
  gpu           calls it behind a GPU spin that does not end, so its
                kernel never starts while its proxy already takes data.
The other ranks block in that all_reduce. Each process ends itself after
--hold seconds with os._exit (no clean shutdown, as when a job is killed),
by which time the watchdog has warned and written its snapshot;
`cclscope hang` on the folder must then name the hang rank.
"""
import argparse
import os
import threading
import time

import torch
import torch.distributed as dist


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hang-class", choices=["never-called", "gpu"],
                    required=True)
    ap.add_argument("--hang-rank", type=int, default=1)
    ap.add_argument("--hold", type=float, default=20.0,
                    help="seconds from the hung call to os._exit")
    ap.add_argument("--bytes", type=int, default=32 << 20)
    ap.add_argument("--distinct-hosts", action="store_true",
                    help="NCCL_HOSTID per rank: the network transport")
    args = ap.parse_args()

    rank = int(os.environ["RANK"])
    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    if args.distinct_hosts:
        os.environ["NCCL_HOSTID"] = f"cclscope-gpu-hang-{rank}"
    device = torch.device("cuda", local_rank % torch.cuda.device_count())
    torch.cuda.set_device(device)
    dist.init_process_group("nccl", device_id=device)

    x = torch.ones(args.bytes // 4, dtype=torch.float32, device=device)
    for _ in range(3):
        dist.all_reduce(x)
    torch.cuda.synchronize()
    dist.barrier()
    torch.cuda.synchronize()

    # The process ends itself: a hung NCCL call does not return.
    threading.Timer(args.hold, lambda: os._exit(0)).start()
    print(f"rank {rank}: the hung call starts", flush=True)
    if rank == args.hang_rank and args.hang_class == "never-called":
        time.sleep(args.hold * 2)
    if rank == args.hang_rank and args.hang_class == "gpu":
        torch.cuda._sleep(1 << 62)  # a kernel that does not end
    dist.all_reduce(x)
    torch.cuda.synchronize()
    time.sleep(args.hold * 2)


if __name__ == "__main__":
    main()
