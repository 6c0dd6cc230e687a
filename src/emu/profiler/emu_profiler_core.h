/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/emu/profiler/emu_profiler_core.h — the equivalent of NCCL's profiler
 * wrapper (src/plugin/profiler.cc): one emission function per NCCL wrapper,
 * on the NCCL objects of nccl/emu_nccl_types.h (handle slots, API state,
 * kernel plans and tasks, proxy sub-args). Each emission
 * function applies the mask/forcing rules of nccl-behaviour §4, fills the
 * v7 descriptor, calls the plugin through the shims, writes the truth record
 * and runs the checks. emu_profiler_core.c.
 */
#ifndef NCCLEMU_PROFILER_CORE_H
#define NCCLEMU_PROFILER_CORE_H

#include "emu_threads.h"
#include "nccl/emu_nccl_types.h"
#include "profiler/emu_shims.h"

struct emu_comm;

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
  /* NCCL's slot is a fresh NULL whatever the type (2.31's KernelCh op,
   * cleared when posted): leaving it unwritten is harmless */
  bool fresh_slot;
} emu_start_info;

/* ---------- emission: application side (T_api / T_async / T_cudacb) ---- */
void emu_core_group_api_start(emu_thread *t, emu_api_state *api,
                              struct emu_comm *comm, bool graph_captured);
void emu_core_group_api_record(emu_thread *t, emu_api_state *api, int state);
void emu_core_group_api_stop(emu_thread *t, emu_api_state *api);
void emu_core_coll_api_start(emu_thread *t, emu_api_state *api,
                             struct emu_comm *comm, emu_func func, size_t count,
                             emu_datatype dt, int root, void *stream,
                             bool graph_captured, uint64_t user_tag);
void emu_core_coll_api_stop(emu_thread *t, emu_api_state *api);
void emu_core_p2p_api_start(emu_thread *t, emu_api_state *api,
                            struct emu_comm *comm, emu_func func, size_t count,
                            emu_datatype dt, void *stream, bool graph_captured,
                            uint64_t user_tag);
void emu_core_p2p_api_stop(emu_thread *t, emu_api_state *api);
void emu_core_kernel_launch_start(emu_thread *t, emu_plan *plan);
void emu_core_kernel_launch_stop(emu_thread *t, emu_plan *plan);
void emu_core_group_start(emu_thread *t, emu_plan *plan);
void emu_core_group_stop(emu_thread *t, emu_plan *plan);
/* Starts Coll/P2p events of the plan and advances comm->seqNumber. */
/* NCCL 2.31's symmetric plans (ncclProfilerStartTaskEvents,
 * profilerPostPlanWorkSym): the first symmetric task is the head; the
 * plan's KernelCh ops cover its channels (the union of its symmetric
 * tasks', *nchannels) and all go against the head. Returns the head's
 * index, -1 when the plan has no symmetric task. */
int emu_core_sym_head(const emu_plan *plan, int *nchannels);
void emu_core_task_events_start(emu_thread *t, emu_plan *plan);
void emu_core_task_events_stop(emu_thread *t, emu_plan *plan);
/* Copy-engine collectives (v6+, §6.13); the global mask is re-read. */
void emu_core_ce_coll_start(emu_thread *t, struct emu_comm *comm, emu_slot *ce,
                            const emu_slot *coll_api, emu_func func,
                            size_t count_bytes, int root, void *stream,
                            const void *sendbuff, void *recvbuff,
                            uint64_t user_tag);
void emu_core_ce_coll_stop(emu_thread *t, emu_slot *ce);
void emu_core_ce_sync_start(emu_thread *t, struct emu_comm *comm,
                            const emu_slot *ce, emu_slot *sync,
                            bool is_complete);
void emu_core_ce_batch_start(emu_thread *t, struct emu_comm *comm,
                             const emu_slot *ce, emu_slot *batch, int num_ops,
                             size_t total_bytes, bool intra_sync);
/* CeSync/CeBatch stop: handle checked for NULL. */
void emu_core_ce_child_stop(emu_thread *t, emu_slot *child);

/* ---------- emission: proxy side (T_proxy / T_sock) ---------- */
void emu_core_proxy_op_start(emu_thread *t, emu_sub *sub, int slice_steps);
void emu_core_proxy_op_stop(emu_thread *t, emu_sub *sub, const char *quirk);
void emu_core_proxy_op_record(emu_thread *t, emu_sub *sub, int state);
void emu_core_proxy_step_start(emu_thread *t, emu_sub *sub, int step,
                               const char *quirk);
void emu_core_proxy_step_stop(emu_thread *t, emu_sub *sub, int step);
void emu_core_proxy_step_record(emu_thread *t, emu_sub *sub, int step,
                                int state);
void emu_core_proxy_ctrl_start(emu_thread *t, void *context, emu_slot *slot,
                               const char *quirk);
void emu_core_proxy_ctrl_record(emu_thread *t, emu_slot *slot, int appended,
                                int state);
void emu_core_proxy_ctrl_stop(emu_thread *t, emu_slot *slot);
void emu_core_kernel_ch_start(emu_thread *t, emu_sub *sub, uint64_t ptimer,
                              const char *anomaly);
void emu_core_kernel_ch_stop(emu_thread *t, emu_sub *sub, uint64_t ptimer);

/* ---------- emission: the 2.31 profiler thread (T_profiler) ---------- */
/* The same KernelCh calls with the profiler thread's own slot. */
void emu_core_kernel_ch_start_op(emu_thread *t, const emu_proxy_op *op,
                                 emu_slot *slot, uint64_t ptimer,
                                 const char *anomaly);
void emu_core_kernel_ch_stop_slot(emu_thread *t, emu_slot *slot,
                                  uint64_t ptimer);
/* One KernelPhase child of the KernelCh in `kernel_ch`: start (pTimer =
 * phase start), recordEventState(31, kernelCh.pTimer = phase end), stop,
 * back to back (nccl-behaviour §12). */
void emu_core_kernel_phase(emu_thread *t, const emu_proxy_op *op,
                           const emu_slot *kernel_ch, emu_slot *phase,
                           int phase_id, uint64_t start, uint64_t end);
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

void emu_core_net_parent_from_sub(emu_net_parent *np, const emu_sub *sub,
                                  int step);
/* ncclProfilerCallback (§6.12). No NULL check on Stop/Update: whatever is in
 * *eHandle is passed to the plugin. `quirk` labels deliberate misuse. */
void emu_core_net_callback(emu_thread *t, emu_slot *eHandle, int type,
                           const emu_net_parent *parent, int64_t plugin_id,
                           void *ext_data, const char *quirk);

/* ---------- replay (emu_replay.c): recorded calls, no NCCL rules ---------- */
/* startEvent into `slot` (its id is set when the plugin wrote the handle),
 * recordEventState (args may be NULL) and stopEvent on the slot's handle;
 * each is counted, checked and written to the truth like any other call. */
void emu_core_replay_start(emu_thread *t, void *context, emu_slot *slot,
                           ncclProfilerEventDescr_v7_t *d,
                           const emu_start_info *info);
/* `diag`: RCCL's proxyDiag arm of a recorded ProxyDiagUpdate, else NULL. */
void emu_core_replay_record(emu_thread *t, emu_slot *slot, int state,
                            ncclProfilerEventStateArgs_v7_t *args,
                            const emu_rccl_proxy_diag *diag);
void emu_core_replay_stop(emu_thread *t, emu_slot *slot);

/* ---------- lifecycle (emu_worker.c) ---------- */
/* The process-global activation mask (NCCL's ncclProfilerEventMask). */
extern int emu_activation_mask;
/* Records the check settings for the emission functions. */
void emu_core_configure(bool check, double max_callback_ms, bool truth);

#endif
