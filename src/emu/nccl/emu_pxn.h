/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/emu/nccl/emu_pxn.h — cross-process PXN (nccl-behaviour §6.14): a rank's
 * network send ops, with its own process's context and Coll/P2p handle
 * values, are copied into shared memory and executed by another local
 * rank's proxy, usually in another process. One single-producer ring per
 * target rank. emu_pxn.c.
 */
#ifndef NCCLEMU_PXN_H
#define NCCLEMU_PXN_H

#include "nccl/emu_nccl_types.h"

#define EMU_PXN_MAX_OPS 64
#define EMU_PXN_RING 8

typedef struct emu_pxn_record {
  int comm_index;
  uint64_t plan_seq;
  int nops;
  emu_proxy_op ops[EMU_PXN_MAX_OPS];
} emu_pxn_record;

/* Maps the mailboxes for `nranks` ranks (before fork). */
void emu_pxn_setup(int nranks);
/* The rank PXN sends of `grank` go through, or -1. Local ranks in the first
 * process of each pair of processes on a node send through the rank R
 * places further (R = ranks per process), i.e. through another process
 * when R < ranks per node; only if that rank is in the communicator. */
int emu_pxn_target(int grank, int ranks_per_node, int ranks_per_process,
                   const int *members, int nmembers);
/* The rank whose PXN sends `grank` executes, or -1. */
int emu_pxn_origin(int grank, int ranks_per_node, int ranks_per_process,
                   const int *members, int nmembers);
/* Says that rank `grank` launches no more plans: its application thread
 * is past its last stream sync, so its proxy is idle and stays so. It
 * posts no more records and takes none, so the waits of the ranks at the
 * other end of its rings end (--duration runs without a barrier stop
 * every rank on its own clock, after different numbers of plans).
 *
 * The rule: a PXN wait ends when the *rank* at the other end finishes,
 * never when its process does. An origin and its target can share a
 * process (one process per node), and two pairs can join the same two
 * processes needing each other in opposite directions; a wait for a whole
 * process then waits, directly or through the other process, for the
 * waiter's own thread, and the run hangs until --timeout. Per rank there
 * is no cycle: a target's proxy waits only for its origin's records, an
 * origin waits for its target's proxy only while that ring is full (so
 * the proxy has records to take), and no rank is both. */
void emu_pxn_rank_finished(int grank);
/* Posts a record for `target`; blocks while its ring is full. Returns
 * false on abort or when `target` has finished (nobody will take it). */
bool emu_pxn_send(int target, const emu_pxn_record *rec, const int *abort_flag);
/* Takes the next record for `target` (the caller's own rank) from
 * `origin`. Blocks until it arrives; false on abort, deadline, or when
 * `origin` has finished and nothing is left. */
bool emu_pxn_receive(int target, int origin, emu_pxn_record *out,
                     const int *abort_flag, uint64_t deadline_ns);

#endif
