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
/* Posts a record for `target`; blocks while its ring is full. Returns
 * false on abort or when the target's worker has finished (*target_done:
 * nobody will consume any more — --duration runs stop ranks at different
 * iterations). */
bool emu_pxn_send(int target, const emu_pxn_record *rec, const int *abort_flag,
                  const int *target_done);
/* Takes the next record for `target` (the caller's own rank). Blocks until
 * it arrives; false on abort, deadline, or when the originating worker has
 * finished (*origin_done) and nothing is left (--duration runs may stop
 * ranks at different iterations). */
bool emu_pxn_receive(int target, emu_pxn_record *out, const int *abort_flag,
                     uint64_t deadline_ns, const int *origin_done);

#endif
