/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/emu/nccl/emu_flow.h — data dependencies between the ranks of one ring
 * collective, as NCCL's kernels and proxies have them (used for the hang
 * scenario's hung AllReduce only; every other plan keeps the timing model
 * of emu_proxy.c). Per channel, each rank's GPU runs the ring program of
 * prims.h: the first chunk of a loop is sent without input, then every
 * received chunk is reduced and sent on (one step in, one step out), and
 * the last chunks are only received. A GPU sends into at most NCCL_STEPS /
 * sliceSteps buffers its receiver has not taken yet, and takes a step only
 * when its data arrived. Across a node boundary the data goes through the
 * two proxies (send: SendGPUWait until the GPU produced it, SendPeerWait
 * until the receiver posted a buffer, SendWait until the network delivered
 * it; receive: RecvWait until it arrived, RecvGPUWait until the GPU took
 * it); inside a node the GPUs see each other's counters directly (no
 * ProxySteps). The counters live in shared memory (emu_world.h,
 * emu_flow_link): one stalled rank holds up its ring neighbours exactly as
 * far as their buffers allow. emu_flow.c.
 */
#ifndef NCCLEMU_FLOW_H
#define NCCLEMU_FLOW_H

#include <stdbool.h>

#include "nccl/emu_world.h"

/* One channel of the flow plan, as one rank runs it. */
typedef struct emu_flow_channel {
  int channel;
  int nsteps;              /* profiler steps each way (sub->nsteps) */
  int depth;               /* buffers: NCCL_STEPS / sliceSteps */
  int loop_steps;          /* profiler steps of one loop */
  int chunk_steps;         /* profiler steps of one chunk */
  int rank;                /* this rank (comm rank) */
  int prev, next;          /* ring neighbours on this channel (comm ranks) */
  bool prev_net, next_net; /* the neighbour is on another node */
  /* what this rank's GPU did */
  int actions; /* ring program actions done */
  int produced, taken;
  /* stalls of the hang scenario's classes */
  int gpu_limit;         /* actions the GPU does at most (-1: no limit) */
  bool link_out_stalled; /* what it sends to `next` never arrives */
} emu_flow_channel;

/* The local view the GPU needs of this channel's proxy subs: steps the
 * receive sub has delivered (RecvGPUWait or later) and steps its send
 * completed (its buffers free again; emu_flow_link.send_done, written by
 * the proxy that runs the send: its own, or with PXN a node-mate's).
 * Ignored where the link is intra-node. */
typedef struct emu_flow_local {
  int recv_delivered;
  int send_done;
} emu_flow_local;

/* The shared counters of `rank`'s channel `ch` (NULL beyond the table). */
emu_flow_link *emu_flow_link_of(emu_shared *sh, int rank, int ch);

/* Runs the GPU program of `f` as far as its inputs and buffers allow;
 * publishes what it produced and took. True when it did something. */
bool emu_flow_gpu_advance(emu_flow_channel *f, emu_shared *sh,
                          const emu_flow_local *local);

/* Whether the GPU program of `f` ran to its end. */
bool emu_flow_gpu_done(const emu_flow_channel *f);

#endif
