/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/emu/nccl/emu_world.h — who is where: nodes, ranks, worker processes, the
 * communicators of the run (world and splits, with NCCL-like hashes), the
 * per-process communicator instances, and the shared memory that ranks in
 * different processes use to meet (arrival counters for pacing, straggler
 * and hang; the data-flow counters of the hung collective, emu_flow.h;
 * abort and stop flags; per-worker counters). emu_world.c.
 */
#ifndef NCCLEMU_WORLD_H
#define NCCLEMU_WORLD_H

#include "emu_options.h"
#include "nccl/emu_nccl_types.h"

/* A communicator as every rank agrees on it. */
typedef struct emu_comm_spec {
  int index;
  int parent; /* -1: created by ncclCommInitRank; else split of `parent` */
  int nranks;
  int members[EMU_MAX_RANKS]; /* global rank of each comm rank */
  /* the inverse: comm rank of each global rank, -1 if not a member (ring
   * neighbours and peers are looked up per plan and channel: a scan of
   * members[] there made every plan cost N^2 at a thousand ranks) */
  int comm_rank[EMU_MAX_RANKS];
  int nnodes;
  uint64_t hash;    /* commHash (= commId given to init) */
  char name[48];    /* commName ("" -> NULL) */
  bool blocking;    /* config.blocking */
  bool share_proxy; /* split sharing the parent's resources/proxy */
} emu_comm_spec;

typedef struct emu_layout {
  int nodes;
  int ranks_per_node;
  int ranks_per_process;
  int nranks;
  int nworkers;
  int ncomms;
  emu_comm_spec comms[EMU_MAX_COMMS];
} emu_layout;

static inline int emu_node_of(const emu_layout *l, int grank) {
  return grank / l->ranks_per_node;
}
static inline int emu_local_of(const emu_layout *l, int grank) {
  return grank % l->ranks_per_node;
}
static inline int emu_worker_of(const emu_layout *l, int grank) {
  return grank / l->ranks_per_process;
}

/* Sets topology fields and adds the world communicator (index 0). */
void emu_layout_init(emu_layout *l, const emu_options *o, int nodes, int rpn,
                     int rpp);
/* Adds a split of `parent` whose members are `members` (global ranks, comm
 * rank order). The hash is derived from the parent's (as NCCL does). */
int emu_layout_add_split(emu_layout *l, int parent, const int *members, int n,
                         const char *name, bool share_proxy, uint64_t color);
/* Comm rank of global rank `g` in `spec`, -1 if not a member. */
int emu_comm_rank_of(const emu_comm_spec *spec, int g);

struct emu_proxy;

/* One rank's instance of a communicator in this process (ncclComm). */
typedef struct emu_comm {
  const emu_comm_spec *spec;
  int index;
  int rank; /* comm rank */
  int global_rank;
  int local_slot; /* index of the rank in this worker */
  int nranks;
  int nnodes;
  uint64_t hash;
  char name_buf[48];    /* the user's buffer behind commName */
  const char *commName; /* name_buf or NULL */
  void *profiler_context;
  int init_rc;
  bool initialized;
  bool destroyed;
  bool blocking;
  struct emu_proxy *proxy; /* own or shared with the parent */
  struct emu_comm *parent;
  uint64_t seq_number[EMU_FUNC_COUNT]; /* comm->seqNumber[func] */
  uint64_t plan_seq;                   /* plans launched (barrier key) */
  uint32_t ce_seq_num;
  bool ce_use_complete;
} emu_comm;

/* ---------- shared memory between the processes of a run ---------- */
#define EMU_ARRIVAL_HISTORY 8
typedef struct emu_rank_progress {
  uint64_t arrived; /* plans launched by this rank on this comm */
  uint64_t stalled; /* plan_seq + 1 where this rank hangs, 0 = never */
  /* CLOCK_MONOTONIC (system-wide) of the launch of plan seq, at
   * [seq % EMU_ARRIVAL_HISTORY]: when the last rank arrived is when a
   * collective's modelled time starts. */
  uint64_t arrived_ns[EMU_ARRIVAL_HISTORY];
} emu_rank_progress;

/* Where the ranks of one communicator sleep until a plan is complete.
 * arrivals[seq % EMU_ARRIVAL_HISTORY] counts every arrival at a plan of
 * that residue (a futex word); the arrival that brings it to a multiple of
 * the comm's size wakes the sleepers, who then read emu_rank_progress (the
 * truth: a rank far ahead can make the count a hint too early, and a
 * sleep lasts 10 ms at most). Without it every waiting rank re-read every
 * rank until all had arrived: N^2 reads per plan, most of the emulator's
 * time at a thousand ranks. */
typedef struct emu_comm_arrivals {
  uint32_t arrivals[EMU_ARRIVAL_HISTORY];
  uint32_t sleepers; /* threads (of any process) asleep on arrivals[] */
} emu_comm_arrivals;

/* One rank's channel of the flow plan (emu_flow.h): what its GPU and
 * proxy did, for its ring neighbours to wait on. Written by that rank only
 * (with PXN its send counters by the node-mate whose proxy runs them). */
typedef struct emu_flow_link {
  int produced;    /* steps its GPU produced for its ring successor */
  int taken;       /* steps its GPU took from its ring predecessor */
  int recv_posted; /* receives its proxy posted (buffers offered) */
  int net_sent;    /* sends its proxy handed to the network: the data
                    * reaches the successor without its proxy's help
                    * (RDMA), unless the link stalled */
  int send_done;   /* sends the network completed (its buffers free) */
} emu_flow_link;

typedef struct emu_worker_report {
  uint64_t callbacks;
  uint64_t check_failures;
  uint64_t iterations;
  int pid;
  int first_init_done; /* its first communicator init returned */
  int finished;
} emu_worker_report;

typedef struct emu_shared {
  int abort_flag; /* set when a worker died: stop waiting for it */
  int stop_iter;  /* --duration: iterations every rank runs (INT_MAX) */
  int pace_barrier;
  emu_rank_progress progress[EMU_MAX_COMMS][EMU_MAX_RANKS];
  emu_comm_arrivals comm_arrivals[EMU_MAX_COMMS];
  emu_worker_report workers[EMU_MAX_WORKERS];
  /* the hang scenario's hung AllReduce (world communicator): per comm rank
   * and channel */
  emu_flow_link flow[EMU_MAX_RANKS][EMU_MAX_CHANNELS];
} emu_shared;

/* Maps the shared region (before fork). */
emu_shared *emu_shared_create(void);

/* Publishes that `comm`'s rank launched plan `seq` at `launch_mono`
 * (CLOCK_MONOTONIC). */
void emu_arrive(emu_shared *sh, const emu_comm *comm, uint64_t seq,
                uint64_t launch_mono);
/* Waits until every rank of `comm` launched plan `seq` and none (but the
 * caller) hangs at or before it; *last_ns (may be NULL) gets the monotonic
 * time of the last launch. Returns false on abort/deadline (the caller
 * then gives up). Costs O(ranks) per plan, not per look: it sleeps until
 * the last rank's arrival wakes it (emu_comm_arrivals). */
bool emu_wait_all_arrived(emu_shared *sh, const emu_comm *comm, uint64_t seq,
                          uint64_t deadline_ns, uint64_t *last_ns);
void emu_mark_stalled(emu_shared *sh, const emu_comm *comm, uint64_t seq);

#endif
