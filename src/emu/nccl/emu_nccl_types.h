/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/emu/nccl/emu_nccl_types.h — the NCCL objects the emulator keeps as
 * NCCL keeps them: the slots where NCCL stores a plugin handle (recycled,
 * not cleared), the per-application-thread API state, kernel plans and
 * their tasks, the plain-value proxy op that can travel to another process
 * (PXN), and the proxy sub-args with their step handles. Types only: the
 * code that fills them is in nccl/ (app, proxy, profiler thread) and the
 * calls into the plugin in profiler/emu_profiler_core.c.
 */
#ifndef NCCLEMU_NCCL_TYPES_H
#define NCCLEMU_NCCL_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "emu_common.h"

struct emu_comm;

/* A place where NCCL stores a plugin handle. `id` is the emulator's id of
 * the event whose handle is in the slot (it stays with a stale handle);
 * `stopped` says that event was already stopped (stale reuse, §3.1). */
typedef struct emu_slot {
  void *handle;
  uint64_t id;
  bool stopped;
} emu_slot;

/* NCCL's thread_local ncclProfilerApiState plus ncclGroupDepth. */
typedef enum {
  EMU_GROUPAPI_RESET = 0,
  EMU_GROUPAPI_STARTED,
  EMU_GROUPAPI_STOPPED
} emu_groupapi_state;

typedef struct emu_api_state {
  emu_slot group_api; /* cleared after stop */
  emu_slot coll_api;  /* NOT cleared after stop (§6.2: double stop) */
  emu_slot p2p_api;   /* cleared after stop */
  emu_groupapi_state state;
  int profiler_group_depth;
  int mask;        /* eActivationMask re-read at every API call */
  int group_depth; /* ncclGroupDepth */
} emu_api_state;

#define EMU_MAX_TASKS_PER_PLAN 16

/* ncclTaskColl / ncclTaskP2p: fresh (zeroed) for every operation. */
typedef struct emu_task {
  bool is_p2p;
  emu_func func;
  emu_datatype datatype;
  size_t count; /* as the Coll descriptor reports it */
  int root;     /* root (coll) or peer (p2p), comm ranks */
  const void *sendbuff;
  void *recvbuff;
  uint8_t nChannels;
  uint8_t nWarps;
  const char *algo;
  const char *proto;
  int mask;           /* activation mask captured at enqueue */
  emu_slot api;       /* collApi/p2pApi handle copied at enqueue */
  emu_slot group_api; /* groupApi handle copied at enqueue */
  emu_slot event;     /* Coll/P2p handle written by startEvent */
  uint64_t bytes;     /* payload bytes per rank (model) */
  uint64_t user_tag;  /* v7 userTag */
  /* NCCL >= 2.31 symmetric kernel (§12): isSymColl and its kernelVariant */
  bool is_sym;
  const char *kernel_variant;
  int api_order; /* position in the user's call order */
} emu_task;

/* ncclKernelPlan. */
typedef struct emu_plan {
  struct emu_comm *comm;
  int ntasks;
  emu_task tasks[EMU_MAX_TASKS_PER_PLAN]; /* colls first (scheduler order) */
  emu_slot group;                         /* plan->groupEventHandle */
  emu_slot kernel_launch;                 /* plan->kernelLaunchEventHandle */
  bool persistent;                        /* captured in a CUDA graph */
  bool replay; /* running from a graph replay (cuda-cb) */
  void *stream;
} emu_plan;

/* What the proxy needs from an op: plain values only, so it can travel
 * through shared memory to another process (PXN). */
typedef enum {
  EMU_OP_NET_SEND = 0,
  EMU_OP_NET_RECV,
  EMU_OP_KERNEL, /* KernelCh carrier ("profiler pattern" op) */
  EMU_OP_STUCK   /* transport without profiler calls: never stopped (§6.8) */
} emu_op_kind;

typedef struct emu_proxy_op {
  uint8_t kind; /* emu_op_kind */
  uint8_t channel;
  uint8_t slice_steps;
  uint8_t foreign; /* PXN: built by another rank's process */
  int rank;        /* originating comm rank */
  int global_rank; /* originating global rank */
  int peer;
  int comm_index;
  int args_group; /* ops with equal group are subs of one proxy args */
  int nsteps;     /* sub->nsteps, in step ids */
  int chunk_size; /* args->chunkSize */
  int mask;       /* task's captured activation mask */
  pid_t pid;      /* proxyOp.pid: the originating process */
  int origin_worker;
  uint64_t bytes;      /* bytes this sub moves */
  uint64_t step_bytes; /* bytes per profiler step (last may be smaller) */
  void *context;       /* originating comm's profilerContext */
  void *task_handle;   /* Coll/P2p handle (sub->taskEventHandle) */
  /* PXN: the values in the originating process when `context` and
   * `task_handle` were replaced by guard aliases (--check); else equal. */
  void *origin_context;
  void *origin_task_handle;
  uint64_t task_id;  /* emulator id of that task */
  int batch;         /* KernelCh: same batch -> same timestamps */
  uint64_t model_ns; /* modelled duration of this op's data movement */
  /* NCCL >= 2.31: the KernelCh carrier was posted to the comm's profiler
   * thread (emu_profiler_thread.h) as op prof_slot, generation prof_gen;
   * the proxy then only models the GPU and calls nothing. */
  bool on_profthread;
  int prof_slot;
  uint32_t prof_gen;
  /* RCCL's v6 proxyOp extras (emu_rccl_proxy_extras) */
  int64_t op_count; /* the comm's kernel plans launched before this one */
  uint8_t func;     /* emu_func = NCCL's ncclFunc_t value */
  uint8_t proto;    /* NCCL_PROTO_* */
  uint8_t pattern;  /* EMU_PATTERN_* */
} emu_proxy_op;

/* NCCL's ncclPattern_t values the emulator's model uses (Ring only):
 * RCCL's proxyOp.tracePattern. */
enum {
  EMU_PATTERN_RING = 0,
  EMU_PATTERN_RING_TWICE = 1,
  EMU_PATTERN_PIPELINE_FROM = 2,
  EMU_PATTERN_PIPELINE_TO = 3,
  EMU_PATTERN_SEND = 13,
  EMU_PATTERN_RECV = 14
};

/* pHandles[] entry: NCCL's ncclProxyEventHandle. */
struct emu_sub;
typedef struct emu_step_handle {
  emu_slot step;
  struct emu_sub *sub;
} emu_step_handle;

/* ncclProxySubArgs: recycled without clearing (proxy.cc:208-232). */
typedef struct emu_sub {
  emu_proxy_op op;
  emu_slot op_event;     /* opEventHandle: cleared after stop */
  emu_slot kernel_event; /* kernelEventHandle: never reset (§6.11) */
  emu_step_handle pHandles[EMU_NCCL_STEPS];
  size_t trans_size; /* sub->transSize: stale except SendWait/FlushWait */
  /* progress bookkeeping (emu_proxy.c), reset for every op */
  int nsteps;                    /* profiler steps of this op */
  int depth;                     /* profiler steps in flight at most */
  int posted, transmitted, done; /* profiler steps */
  int peer_waits; /* SendPeerWait records for the current transmit */
  int want_peer_waits;
  int restarts;   /* recv: restarts of the current post */
  int flow_ready; /* flow plan, send: steps the GPU produced (SendPeerWait) */
  bool in_progress_recorded;
  bool finished;
  uint64_t ready_ns[EMU_NCCL_STEPS]; /* send: GPU filled; recv: arrived */
  uint64_t done_ns[EMU_NCCL_STEPS];  /* send: test done; recv: consumed */
  int req[EMU_NCCL_STEPS];           /* IB request of the step, -1 */
  int sock_expected[EMU_NCCL_STEPS];
  int sock_done[EMU_NCCL_STEPS]; /* atomic: socket tasks with data */
} emu_sub;

#endif
