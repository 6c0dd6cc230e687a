/*
 * src/emu/emu_profiler_core.h — the equivalent of NCCL's profiler wrapper
 * (src/plugin/profiler.cc): the handle slots NCCL keeps (recycled, not
 * cleared), the per-application-thread API state, kernel plans and tasks,
 * proxy sub-args, and one emission function per NCCL wrapper. Each emission
 * function applies the mask/forcing rules of nccl-behaviour §4, fills the
 * v7 descriptor, calls the plugin through the shims, writes the truth record
 * and runs the checks. emu_profiler_core.c.
 */
#ifndef NCCLEMU_PROFILER_CORE_H
#define NCCLEMU_PROFILER_CORE_H

#include "emu_shims.h"
#include "emu_threads.h"

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
   * thread (emu_profiler_thread.h) at ring slot prof_slot, generation
   * prof_gen; the proxy then only models the GPU and calls nothing. */
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

/* Extra facts for a start record that the descriptor does not carry. */
typedef struct emu_start_info {
  uint64_t parent_id;       /* event whose handle is parentObj (0: none) */
  uint64_t parent_group_id; /* Coll/P2p: the Group (what v1..v4 receive) */
  int comm_index;           /* -1: none */
  int global_rank;          /* -1: none */
  const char *quirk;        /* §10 quirk exercised, or NULL */
  const char *anomaly;      /* e.g. "ring_overwrite" */
  /* PXN (§6.14) */
  bool foreign;
  int origin_worker;
  pid_t origin_pid;
  const void *origin_ctx;        /* value in the originating process */
  const void *origin_parent_obj; /* idem */
  /* RCCL's v6 ProxyOp: the fields it appends (NULL otherwise) */
  const emu_rccl_proxy_extras *rccl_proxy;
} emu_start_info;

/* ---------- emission: application side (T_api / T_async / T_cudacb) ---- */
void core_group_api_start(emu_thread *t, emu_api_state *api,
                          struct emu_comm *comm, bool graph_captured);
void core_group_api_record(emu_thread *t, emu_api_state *api, int state);
void core_group_api_stop(emu_thread *t, emu_api_state *api);
void core_coll_api_start(emu_thread *t, emu_api_state *api,
                         struct emu_comm *comm, emu_func func, size_t count,
                         emu_datatype dt, int root, void *stream,
                         bool graph_captured, uint64_t user_tag);
void core_coll_api_stop(emu_thread *t, emu_api_state *api);
void core_p2p_api_start(emu_thread *t, emu_api_state *api,
                        struct emu_comm *comm, emu_func func, size_t count,
                        emu_datatype dt, void *stream, bool graph_captured,
                        uint64_t user_tag);
void core_p2p_api_stop(emu_thread *t, emu_api_state *api);
void core_kernel_launch_start(emu_thread *t, emu_plan *plan);
void core_kernel_launch_stop(emu_thread *t, emu_plan *plan);
void core_group_start(emu_thread *t, emu_plan *plan);
void core_group_stop(emu_thread *t, emu_plan *plan);
/* Starts Coll/P2p events of the plan and advances comm->seqNumber. */
void core_task_events_start(emu_thread *t, emu_plan *plan);
void core_task_events_stop(emu_thread *t, emu_plan *plan);
/* Copy-engine collectives (v6+, §6.13); the global mask is re-read. */
void core_ce_coll_start(emu_thread *t, struct emu_comm *comm, emu_slot *ce,
                        const emu_slot *coll_api, emu_func func,
                        size_t count_bytes, int root, void *stream,
                        const void *sendbuff, void *recvbuff,
                        uint64_t user_tag);
void core_ce_coll_stop(emu_thread *t, emu_slot *ce);
void core_ce_sync_start(emu_thread *t, struct emu_comm *comm,
                        const emu_slot *ce, emu_slot *sync, bool is_complete);
void core_ce_batch_start(emu_thread *t, struct emu_comm *comm,
                         const emu_slot *ce, emu_slot *batch, int num_ops,
                         size_t total_bytes, bool intra_sync);
/* CeSync/CeBatch stop: handle checked for NULL. */
void core_ce_child_stop(emu_thread *t, emu_slot *child);

/* ---------- emission: proxy side (T_proxy / T_sock) ---------- */
void core_proxy_op_start(emu_thread *t, emu_sub *sub, int slice_steps);
void core_proxy_op_stop(emu_thread *t, emu_sub *sub, const char *quirk);
void core_proxy_op_record(emu_thread *t, emu_sub *sub, int state);
void core_proxy_step_start(emu_thread *t, emu_sub *sub, int step,
                           const char *quirk);
void core_proxy_step_stop(emu_thread *t, emu_sub *sub, int step);
void core_proxy_step_record(emu_thread *t, emu_sub *sub, int step, int state);
void core_proxy_ctrl_start(emu_thread *t, void *context, emu_slot *slot,
                           const char *quirk);
void core_proxy_ctrl_record(emu_thread *t, emu_slot *slot, int appended,
                            int state);
void core_proxy_ctrl_stop(emu_thread *t, emu_slot *slot);
void core_kernel_ch_start(emu_thread *t, emu_sub *sub, uint64_t ptimer,
                          const char *anomaly);
void core_kernel_ch_stop(emu_thread *t, emu_sub *sub, uint64_t ptimer);

/* ---------- emission: the 2.31 profiler thread (T_profiler) ---------- */
/* The same KernelCh calls with the profiler thread's own slot. */
void core_kernel_ch_start_op(emu_thread *t, const emu_proxy_op *op,
                             emu_slot *slot, uint64_t ptimer,
                             const char *anomaly);
void core_kernel_ch_stop_slot(emu_thread *t, emu_slot *slot, uint64_t ptimer);
/* One KernelPhase child of the KernelCh in `kernel_ch`: start (pTimer =
 * phase start), recordEventState(31, kernelCh.pTimer = phase end), stop,
 * back to back (nccl-behaviour §12). */
void core_kernel_phase(emu_thread *t, const emu_proxy_op *op,
                       const emu_slot *kernel_ch, emu_slot *phase, int phase_id,
                       uint64_t start, uint64_t end);
/* What ncclProfilerCallback reads through pHandle (the ProxyStep slot and
 * its sub). The IB path passes the live sub's values; a socket helper thread
 * passes the snapshot it captured when created (unreliable parent, §6.12). */
typedef struct emu_net_parent {
  emu_slot step; /* p->stepEventHandle */
  int mask;      /* sub->eActivationMask */
  void *context; /* sub->profilerContext */
  int rank;
  int comm_index;
  int global_rank;
  bool foreign;
  int origin_worker;
  pid_t origin_pid;
  void *origin_context;
} emu_net_parent;

void core_net_parent_from_sub(emu_net_parent *np, const emu_sub *sub, int step);
/* ncclProfilerCallback (§6.12). No NULL check on Stop/Update: whatever is in
 * *eHandle is passed to the plugin. `quirk` labels deliberate misuse. */
void core_net_callback(emu_thread *t, emu_slot *eHandle, int type,
                       const emu_net_parent *parent, int64_t plugin_id,
                       void *ext_data, const char *quirk);

/* ---------- replay (emu_replay.c): recorded calls, no NCCL rules ---------- */
/* startEvent into `slot` (its id is set when the plugin wrote the handle),
 * recordEventState (args may be NULL) and stopEvent on the slot's handle;
 * each is counted, checked and written to the truth like any other call. */
void core_replay_start(emu_thread *t, void *context, emu_slot *slot,
                       ncclProfilerEventDescr_v7_t *d,
                       const emu_start_info *info);
/* `diag`: RCCL's proxyDiag arm of a recorded ProxyDiagUpdate, else NULL. */
void core_replay_record(emu_thread *t, emu_slot *slot, int state,
                        ncclProfilerEventStateArgs_v7_t *args,
                        const emu_rccl_proxy_diag *diag);
void core_replay_stop(emu_thread *t, emu_slot *slot);

/* ---------- lifecycle (emu_worker.c) ---------- */
/* The process-global activation mask (NCCL's ncclProfilerEventMask). */
extern int emu_activation_mask;
/* Records the check settings for the emission functions. */
void core_configure(bool check, double max_callback_ms, bool truth);

#endif
