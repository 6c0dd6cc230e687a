/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/emu/profiler/emu_profiler_core.c — owns the equivalent of NCCL's profiler
 * wrapper (src/plugin/profiler.cc): for every NCCL emission point, the mask
 * test with forced parents (nccl-behaviour §4), the descriptor NCCL fills, the
 * handle slot it passes (recycled, not cleared: §3.1), the NULL checks it
 * does — and the one it does not do (NetPlugin Stop/Update, §3.2) — the
 * GroupApi depth state machine (§6.1), the CollApi double stop (§6.2) and
 * the seqNumber rule for graph-captured plans (§6.6). Every plugin call
 * goes through the shims, is counted, checked (--check) and written to the
 * truth (--truth).
 */
#include "profiler/emu_profiler_core.h"

#include <stdio.h>
#include <string.h>

#include "check/emu_check.h"
#include "check/emu_truth.h"
#include "emu_worker.h"
#include "nccl/emu_world.h"
#include "nccl_names.h"

int emu_activation_mask; /* NCCL's ncclProfilerEventMask: starts at 0 */

static bool check_on;

#define MASK_GROUP_API                                                         \
  (ncclProfileGroupApi | ncclProfileP2pApi | ncclProfileCollApi |              \
   ncclProfileKernelLaunch | ncclProfileGroup | ncclProfileColl |              \
   ncclProfileP2p | ncclProfileProxyOp | ncclProfileProxyStep |                \
   ncclProfileKernelCh | ncclProfileNetPlugin | ncclProfileCeColl |            \
   ncclProfileCeSync | ncclProfileCeBatch)
#define MASK_COLL_API                                                          \
  (ncclProfileCollApi | ncclProfileColl | ncclProfileProxyOp |                 \
   ncclProfileProxyStep | ncclProfileKernelCh | ncclProfileNetPlugin |         \
   ncclProfileCeColl | ncclProfileCeSync | ncclProfileCeBatch)
#define MASK_P2P_API                                                           \
  (ncclProfileP2pApi | ncclProfileP2p | ncclProfileProxyOp |                   \
   ncclProfileProxyStep | ncclProfileKernelCh | ncclProfileNetPlugin)
#define MASK_GROUP                                                             \
  (ncclProfileGroup | ncclProfileColl | ncclProfileP2p | ncclProfileProxyOp |  \
   ncclProfileProxyStep | ncclProfileKernelCh | ncclProfileNetPlugin)
#define MASK_COLL                                                              \
  (ncclProfileColl | ncclProfileProxyOp | ncclProfileProxyStep |               \
   ncclProfileKernelCh | ncclProfileNetPlugin)
#define MASK_P2P                                                               \
  (ncclProfileP2p | ncclProfileProxyOp | ncclProfileProxyStep |                \
   ncclProfileKernelCh | ncclProfileNetPlugin)
#define MASK_PROXY_OP                                                          \
  (ncclProfileProxyOp | ncclProfileProxyStep | ncclProfileNetPlugin)
#define MASK_PROXY_STEP (ncclProfileProxyStep | ncclProfileNetPlugin)
#define MASK_CE (ncclProfileCeColl | ncclProfileCeSync | ncclProfileCeBatch)

#define DIVUP(a, b) (((a) + (b)-1) / (b))

void emu_core_configure(bool check, double max_callback_ms, bool truth) {
  (void)truth;
  (void)max_callback_ms; /* the watchdog (emu_check.c) enforces the limit */
  check_on = check;
}

static inline int global_mask(void) {
  return EMU_LOAD_RELAXED(&emu_activation_mask);
}

/* Quirk code -> its section of docs/nccl-behaviour.md (§10), for the
 * truth's "quirk_ref". */
static const char *quirk_ref(const char *q) {
  static const struct {
    const char *code, *ref;
  } table[] = {
      {"stopped_parent", "docs/nccl-behaviour.md §10.1"},
      {"never_stopped", "docs/nccl-behaviour.md §10.3"},
      {"restarted_recv_step", "docs/nccl-behaviour.md §10.4"},
      {"repeated_peer_wait", "docs/nccl-behaviour.md §10.4"},
      {"double_stop", "docs/nccl-behaviour.md §10.6"},
      {"net_stop_null", "docs/nccl-behaviour.md §10.7"},
      {"net_stale_handle", "docs/nccl-behaviour.md §10.7"},
      {"net_late_update", "docs/nccl-behaviour.md §10.7"},
      {"socket_unreliable_parent", "docs/nccl-behaviour.md §10.7"},
      {"null_state_args", "docs/nccl-behaviour.md §10.8"},
      {"stale_slot", "docs/nccl-behaviour.md §10.9"},
      {"foreign_pxn", "docs/nccl-behaviour.md §10.10"},
      {"stale_capture_parent", "docs/nccl-behaviour.md §10.11"},
      {"ring_overwrite", "docs/nccl-behaviour.md §10.13"},
      {"mask_change", "docs/nccl-behaviour.md §10.14"},
      {"concurrent_init", "docs/nccl-behaviour.md §10.15"},
      {"init_failed_refcount", "docs/nccl-behaviour.md §10.15"},
      {"finalized_context", "docs/nccl-behaviour.md §10.15"},
  };
  for (size_t i = 0; i < sizeof table / sizeof *table; i++)
    if (strcmp(table[i].code, q) == 0)
      return table[i].ref;
  return "docs/nccl-behaviour.md §10";
}

static void poison_user_tag(ncclProfilerEventDescr_v7_t *d) {
  switch (d->type) {
  case ncclProfileCollApi:
    d->collApi.userTag = EMU_POISON_U64;
    break;
  case ncclProfileP2pApi:
    d->p2pApi.userTag = EMU_POISON_U64;
    break;
  case ncclProfileColl:
    d->coll.userTag = EMU_POISON_U64;
    break;
  case ncclProfileP2p:
    d->p2p.userTag = EMU_POISON_U64;
    break;
  case ncclProfileCeColl:
    d->ceColl.userTag = EMU_POISON_U64;
    break;
  default:
    break;
  }
}

static void empty_info(emu_start_info *info) {
  memset(info, 0, sizeof *info);
  info->comm_index = -1;
  info->global_rank = -1;
}

static void comm_info(emu_start_info *info, const emu_comm *comm) {
  empty_info(info);
  info->comm_index = comm->index;
  info->global_rank = comm->global_rank;
}

static void op_info(emu_start_info *info, const emu_proxy_op *op) {
  empty_info(info);
  info->comm_index = op->comm_index;
  info->global_rank = op->global_rank;
  if (op->foreign) {
    info->foreign = true;
    info->origin_worker = op->origin_worker;
    info->origin_pid = op->pid;
    info->origin_ctx = op->origin_context;
    info->quirk = "foreign_pxn";
  }
}

static void sub_info(emu_start_info *info, const emu_sub *sub) {
  op_info(info, &sub->op);
}

/* ---------- truth records ---------- */
static void rec_handle(emu_rec *r, const char *key, const void *h) {
  emu_rec_ptr(r, key, h);
}

static void rec_net_data(emu_rec *r, const ncclProfilerEventDescr_v7_t *d) {
  uint64_t id = (uint64_t)d->netPlugin.id;
  emu_rec_hex(r, "net_id", id);
  uint64_t type = id & NCCL_PROFILER_NET_TYPE_MASK;
  if (type == NCCL_PROFILER_NET_TYPE_IB && d->netPlugin.data != NULL) {
    const ncclProfilerNetIbDescr_v1_t *ib = d->netPlugin.data;
    emu_rec_str(r, "net", "ib");
    emu_rec_int(r, "qp_device", ib->qp.device);
    emu_rec_uint(r, "qp_wr_id", ib->qp.wr_id);
    emu_rec_int(r, "qp_opcode", ib->qp.opcode);
    emu_rec_int(r, "qp_num", ib->qp.qpNum);
    emu_rec_uint(r, "qp_length", ib->qp.length);
  } else if (type == NCCL_PROFILER_NET_TYPE_SOCK && d->netPlugin.data != NULL) {
    const ncclProfilerNetSockDescr_v1_t *s = d->netPlugin.data;
    emu_rec_str(r, "net", "socket");
    emu_rec_int(r, "sock_fd", s->sock.fd);
    emu_rec_int(r, "sock_op", s->sock.op);
    emu_rec_uint(r, "sock_length", s->sock.length);
  }
  emu_rec_ptr(r, "data", d->netPlugin.data);
}

static void rec_descr(emu_rec *r, const ncclProfilerEventDescr_v7_t *d,
                      bool usertag_valid) {
  switch (d->type) {
  case ncclProfileGroupApi:
    emu_rec_bool(r, "graphCaptured", d->groupApi.graphCaptured);
    emu_rec_int(r, "groupDepth", d->groupApi.groupDepth);
    break;
  case ncclProfileCollApi:
    emu_rec_str(r, "func", d->collApi.func);
    emu_rec_uint(r, "count", d->collApi.count);
    emu_rec_str(r, "datatype", d->collApi.datatype);
    emu_rec_int(r, "root", d->collApi.root);
    emu_rec_ptr(r, "stream", d->collApi.stream);
    emu_rec_bool(r, "graphCaptured", d->collApi.graphCaptured);
    if (usertag_valid)
      emu_rec_hex(r, "userTag", d->collApi.userTag);
    break;
  case ncclProfileP2pApi:
    emu_rec_str(r, "func", d->p2pApi.func);
    emu_rec_uint(r, "count", d->p2pApi.count);
    emu_rec_str(r, "datatype", d->p2pApi.datatype);
    emu_rec_ptr(r, "stream", d->p2pApi.stream);
    emu_rec_bool(r, "graphCaptured", d->p2pApi.graphCaptured);
    if (usertag_valid)
      emu_rec_hex(r, "userTag", d->p2pApi.userTag);
    break;
  case ncclProfileKernelLaunch:
    emu_rec_ptr(r, "stream", d->kernelLaunch.stream);
    break;
  case ncclProfileColl:
    emu_rec_uint(r, "seqNumber", d->coll.seqNumber);
    emu_rec_str(r, "func", d->coll.func);
    emu_rec_ptr(r, "sendBuff", d->coll.sendBuff);
    emu_rec_ptr(r, "recvBuff", d->coll.recvBuff);
    emu_rec_uint(r, "count", d->coll.count);
    emu_rec_int(r, "root", d->coll.root);
    emu_rec_str(r, "datatype", d->coll.datatype);
    emu_rec_int(r, "nChannels", d->coll.nChannels);
    emu_rec_int(r, "nWarps", d->coll.nWarps);
    emu_rec_str(r, "algo", d->coll.algo);
    emu_rec_str(r, "proto", d->coll.proto);
    if (usertag_valid)
      emu_rec_hex(r, "userTag", d->coll.userTag);
    if (d->coll.isSymColl) { /* 2.31 symmetric kernels (§12) */
      emu_rec_bool(r, "isSymColl", true);
      emu_rec_str(r, "kernelVariant", d->coll.kernelVariant);
    }
    break;
  case ncclProfileP2p:
    emu_rec_str(r, "func", d->p2p.func);
    emu_rec_ptr(r, "buff", d->p2p.buff);
    emu_rec_str(r, "datatype", d->p2p.datatype);
    emu_rec_uint(r, "count", d->p2p.count);
    emu_rec_int(r, "peer", d->p2p.peer);
    emu_rec_int(r, "nChannels", d->p2p.nChannels);
    if (usertag_valid)
      emu_rec_hex(r, "userTag", d->p2p.userTag);
    break;
  case ncclProfileProxyOp:
    emu_rec_int(r, "op_pid", d->proxyOp.pid);
    emu_rec_int(r, "channel", d->proxyOp.channelId);
    emu_rec_int(r, "peer", d->proxyOp.peer);
    emu_rec_int(r, "nSteps", d->proxyOp.nSteps);
    emu_rec_int(r, "chunkSize", d->proxyOp.chunkSize);
    emu_rec_int(r, "isSend", d->proxyOp.isSend);
    break;
  case ncclProfileProxyStep:
    emu_rec_int(r, "step", d->proxyStep.step);
    break;
  case ncclProfileKernelCh:
    emu_rec_int(r, "channel", d->kernelCh.channelId);
    emu_rec_uint(r, "pTimer", d->kernelCh.pTimer);
    break;
  case ncclProfileKernelPhase:
    emu_rec_int(r, "channel", d->kernelPhase.channelId);
    emu_rec_int(r, "phaseId", d->kernelPhase.phaseId);
    emu_rec_str(r, "phaseName", d->kernelPhase.phaseName);
    emu_rec_uint(r, "pTimer", d->kernelPhase.pTimer);
    break;
  case ncclProfileNetPlugin:
    rec_net_data(r, d);
    break;
  case ncclProfileCeColl:
    emu_rec_uint(r, "seqNumber", d->ceColl.seqNumber);
    emu_rec_str(r, "func", d->ceColl.func);
    emu_rec_ptr(r, "sendBuff", d->ceColl.sendBuff);
    emu_rec_ptr(r, "recvBuff", d->ceColl.recvBuff);
    emu_rec_uint(r, "count", d->ceColl.count);
    emu_rec_int(r, "root", d->ceColl.root);
    emu_rec_str(r, "datatype", d->ceColl.datatype);
    emu_rec_str(r, "syncStrategy", d->ceColl.syncStrategy);
    emu_rec_bool(r, "intraBatchSync", d->ceColl.intraBatchSync);
    emu_rec_uint(r, "batchSize", d->ceColl.batchSize);
    emu_rec_uint(r, "numBatches", d->ceColl.numBatches);
    emu_rec_uint(r, "ceSeqNum", d->ceColl.ceSeqNum);
    emu_rec_ptr(r, "stream", d->ceColl.stream);
    break;
  case ncclProfileCeSync:
    emu_rec_bool(r, "isComplete", d->ceCollSync.isComplete);
    emu_rec_int(r, "nRanks", d->ceCollSync.nRanks);
    break;
  case ncclProfileCeBatch:
    emu_rec_int(r, "numOps", d->ceCollBatch.numOps);
    emu_rec_uint(r, "totalBytes", d->ceCollBatch.totalBytes);
    emu_rec_bool(r, "useIntraSync", d->ceCollBatch.useIntraSync);
    break;
  default:
    break;
  }
}

/* RCCL's proxyOp fields as delivered (emu_shim_start_rccl). */
static void rec_rccl_proxy(emu_rec *r, const emu_rccl_proxy_extras *x) {
  emu_rec_hex(r, "commHash", x->comm_hash);
  emu_rec_int(r, "opCount", x->op_count);
  emu_rec_int(r, "traceFuncIdx", x->trace_func_idx);
  emu_rec_int(r, "traceProtocol", x->trace_protocol);
  emu_rec_int(r, "tracePattern", x->trace_pattern);
  emu_rec_uint(r, "traceTotalBytes", x->trace_total_bytes);
  emu_rec_uint(r, "proxyNbytes", x->proxy_nbytes);
  emu_rec_int(r, "rawProxyNsteps", x->raw_proxy_nsteps);
}

static bool is_task_type(uint64_t type) {
  return type == ncclProfileColl || type == ncclProfileP2p;
}

static void truth_start(emu_thread *t, const emu_plugin *p, void *ctx,
                        const emu_slot *slot,
                        const ncclProfilerEventDescr_v7_t *d,
                        const emu_start_info *info, const emu_delivery *del,
                        uint64_t id, bool slot_changed) {
  emu_rec r;
  if (!emu_rec_begin(&r, t, "start"))
    return;
  emu_rec_hex(&r, "id", id);
  emu_rec_str(&r, "type", emu_event_type_name(d->type));
  emu_rec_int(&r, "bit", emu_event_type_bit(d->type));
  /* What the plugin received as parentObj: v1..v4 get the Group for
   * Coll/P2p (the adapters substitute parentGroup). */
  bool group_parent = p->abi <= 4 && is_task_type(d->type);
  const void *parent_obj = d->parentObj;
  uint64_t parent_id = info->parent_id;
  if (group_parent) {
    parent_obj =
        d->type == ncclProfileColl ? d->coll.parentGroup : d->p2p.parentGroup;
    parent_id = info->parent_group_id;
  }
  emu_rec_id(&r, "parent", parent_obj != NULL ? parent_id : 0);
  emu_rec_ptr(&r, "parent_obj", parent_obj);
  if (is_task_type(d->type)) {
    const void *pg =
        d->type == ncclProfileColl ? d->coll.parentGroup : d->p2p.parentGroup;
    emu_rec_id(&r, "parent_group", pg != NULL ? info->parent_group_id : 0);
    if (!group_parent)
      emu_rec_id(&r, "api_parent", parent_obj ? info->parent_id : 0);
  }
  emu_rec_ptr(&r, "ctx", ctx);
  if (del->kind == EMU_DROPPED_SHIM || (del->unwritten && p->abi >= 4))
    emu_rec_str(&r, "handle", "unwritten");
  else
    rec_handle(&r, "handle", slot->handle);
  emu_rec_bool(&r, "slot_changed", slot_changed);
  emu_rec_bool(&r, "delivered", del->kind == EMU_DELIVERED);
  if (del->kind != EMU_DELIVERED)
    emu_rec_str(&r, "drop",
                del->kind == EMU_DROPPED_NULLED ? "shim_nulled" : "shim");
  if (info->comm_index >= 0)
    emu_rec_int(&r, "comm", info->comm_index);
  emu_rec_int(&r, "rank", d->rank);
  if (info->global_rank >= 0)
    emu_rec_int(&r, "grank", info->global_rank);
  rec_descr(&r, d, p->usertag_valid);
  if (p->rccl_layout && info->rccl_proxy != NULL)
    rec_rccl_proxy(&r, info->rccl_proxy);
  if (info->foreign) {
    emu_rec_bool(&r, "foreign", true);
    emu_rec_int(&r, "origin_worker", info->origin_worker);
    emu_rec_int(&r, "origin_pid", info->origin_pid);
    emu_rec_ptr(&r, "origin_ctx", info->origin_ctx);
    if (info->origin_parent_obj != NULL || d->type == ncclProfileProxyOp)
      emu_rec_ptr(&r, "origin_parent_obj", info->origin_parent_obj);
  }
  if (info->quirk != NULL) {
    emu_rec_str(&r, "quirk", info->quirk);
    emu_rec_str(&r, "quirk_ref", quirk_ref(info->quirk));
  }
  if (info->anomaly != NULL)
    emu_rec_str(&r, "anomaly", info->anomaly);
  if (del->kind == EMU_DELIVERED)
    emu_rec_int(&r, "rc", del->rc);
  emu_rec_end(&r);
}

/* ---------- the three plugin calls ---------- */
static void emit_start(emu_thread *t, void *ctx, emu_slot *slot,
                       ncclProfilerEventDescr_v7_t *d,
                       const emu_start_info *info) {
  emu_plugin *p = emu_loader_current();
  if (p == NULL)
    return;
  if (!p->usertag_valid)
    poison_user_tag(d);
  uint64_t id = emu_thread_new_id(t);
  if (check_on)
    emu_thread_enter_call(t, EMU_CALL_START, emu_event_type_bit(d->type));
  emu_delivery del = p->rccl_layout ? emu_shim_start_rccl(p, ctx, &slot->handle,
                                                          d, info->rccl_proxy)
                                    : emu_shim_start(p, ctx, &slot->handle, d);
  if (check_on)
    emu_thread_leave_call(t);
  /* Did the slot change? v4+ adapters and plugins that do not write leave
   * NCCL's slot with its old (stale) content. */
  bool slot_changed =
      !(del.kind == EMU_DROPPED_SHIM ||
        (del.kind == EMU_DELIVERED && del.unwritten && p->abi >= 4));
  if (slot_changed) {
    slot->id = id;
    slot->stopped = false;
  }
  if (del.kind == EMU_DELIVERED) {
    emu_thread_count_callback(t);
    /* Slot-aware (§12): a fresh NULL local stays NULL, so leaving it
     * unwritten is harmless; recycled and uninitialised slots are not. */
    const char *hazard = emu_check_unwritten_hazard(
        info->fresh_slot ? EMU_SLOT_FRESH_NULL : emu_check_slot_kind(d->type));
    if (check_on && del.unwritten && p->abi >= 4 && hazard != NULL)
      emu_check_report(EMU_CHECK_UNWRITTEN,
                       "startEvent(%s) on thread %s left *eHandle unwritten: "
                       "%s",
                       emu_event_type_name(d->type), t->name, hazard);
  }
  if (t->truth != NULL)
    truth_start(t, p, ctx, slot, d, info, &del, id, slot_changed);
}

/* Stops whatever handle `slot` holds (callers do NCCL's NULL checks). */
static void emit_stop(emu_thread *t, emu_slot *slot, const char *quirk) {
  emu_plugin *p = emu_loader_current();
  if (p == NULL)
    return;
  if (quirk == NULL && slot->handle != NULL && slot->stopped)
    quirk = "stale_slot";
  if (check_on)
    emu_thread_enter_call(t, EMU_CALL_STOP, 0);
  emu_delivery del = emu_shim_stop(p, slot->handle);
  if (check_on)
    emu_thread_leave_call(t);
  emu_thread_count_callback(t);
  (void)del;
  emu_rec r;
  if (t->truth != NULL && emu_rec_begin(&r, t, "stop")) {
    emu_rec_id(&r, "id", slot->handle != NULL ? slot->id : 0);
    rec_handle(&r, "handle", slot->handle);
    emu_rec_bool(&r, "delivered", true);
    if (quirk != NULL) {
      emu_rec_str(&r, "quirk", quirk);
      emu_rec_str(&r, "quirk_ref", quirk_ref(quirk));
    }
    emu_rec_end(&r);
  }
  if (slot->handle != NULL)
    slot->stopped = true;
}

/* `diag`: RCCL's proxyDiag arm (state 31 under RCCL's v6), else NULL. */
static void emit_record_diag(emu_thread *t, emu_slot *slot, int state,
                             ncclProfilerEventStateArgs_v7_t *args,
                             const emu_rccl_proxy_diag *diag,
                             const char *quirk) {
  emu_plugin *p = emu_loader_current();
  if (p == NULL)
    return;
  if (quirk == NULL && slot->handle != NULL && slot->stopped)
    quirk = "stale_slot";
  if (check_on)
    emu_thread_enter_call(t, EMU_CALL_STATE, 0);
  emu_delivery del =
      p->rccl_layout ? emu_shim_record_rccl(p, slot->handle, state, args, diag)
                     : emu_shim_record(p, slot->handle, state, args);
  if (check_on)
    emu_thread_leave_call(t);
  if (del.kind == EMU_DELIVERED)
    emu_thread_count_callback(t);
  emu_rec r;
  if (t->truth != NULL && emu_rec_begin(&r, t, "state")) {
    emu_rec_id(&r, "id", slot->handle != NULL ? slot->id : 0);
    rec_handle(&r, "handle", slot->handle);
    emu_rec_int(&r, "state", state);
    const char *rccl_name =
        p->host_rccl ? nccl_state_name(state, p->abi, true) : NULL;
    emu_rec_str(&r, "state_name",
                rccl_name != NULL ? rccl_name : emu_state_name(state));
    if (diag != NULL) {
      emu_rec_int(&r, "counterKind", diag->counter_kind);
      emu_rec_int(&r, "flags", diag->flags);
      emu_rec_int(&r, "value", diag->value);
      emu_rec_int(&r, "value2", diag->value2);
    } else if (args == NULL) {
      emu_rec_bool(&r, "args_null", true);
    } else if (state >= ncclProfilerProxyStepSendGPUWait &&
               state <= ncclProfilerProxyStepRecvGPUWait) {
      emu_rec_uint(&r, "transSize", args->proxyStep.transSize);
    } else if (state == ncclProfilerProxyStepSendPeerWait_v4) {
      emu_rec_uint(&r, "transSize", args->proxyStep.transSize);
    } else if (state >= ncclProfilerProxyCtrlIdle &&
               state <= ncclProfilerProxyCtrlAppendEnd) {
      emu_rec_int(&r, "appendedProxyOps", args->proxyCtrl.appendedProxyOps);
    } else if (state == ncclProfilerKernelChStop ||
               state == ncclProfilerKernelPhaseStop) {
      emu_rec_uint(&r, "pTimer", args->kernelCh.pTimer);
    } else if (state == ncclProfilerNetPluginUpdate) {
      emu_rec_ptr(&r, "data", args->netPlugin.data);
    }
    emu_rec_bool(&r, "delivered", del.kind == EMU_DELIVERED);
    if (quirk != NULL) {
      emu_rec_str(&r, "quirk", quirk);
      emu_rec_str(&r, "quirk_ref", quirk_ref(quirk));
    }
    emu_rec_end(&r);
  }
}

static void emit_record(emu_thread *t, emu_slot *slot, int state,
                        ncclProfilerEventStateArgs_v7_t *args,
                        const char *quirk) {
  emit_record_diag(t, slot, state, args, NULL, quirk);
}

/* ---------- application side ---------- */
void emu_core_group_api_start(emu_thread *t, emu_api_state *api, emu_comm *comm,
                              bool graph_captured) {
  ncclProfilerEventDescr_v7_t d;
  memset(&d, 0, sizeof d);
  d.type = ncclProfileGroupApi;
  d.groupApi.graphCaptured = graph_captured;
  api->mask = global_mask(); /* re-read at every API call (§3.6) */
  if (emu_loader_current() == NULL || !(api->mask & MASK_GROUP_API))
    return;
  if (api->profiler_group_depth != 0)
    return; /* only the outermost group is an event */
  d.groupApi.groupDepth = api->group_depth;
  emu_start_info info;
  comm_info(&info, comm);
  emit_start(t, comm->profiler_context, &api->group_api, &d, &info);
  api->profiler_group_depth = api->group_depth;
  api->state = EMU_GROUPAPI_STARTED;
}

void emu_core_group_api_record(emu_thread *t, emu_api_state *api, int state) {
  bool should = false;
  if (state == ncclProfilerGroupStartApiStop &&
      api->state == EMU_GROUPAPI_STARTED) {
    api->state = EMU_GROUPAPI_STOPPED;
    should = true;
  } else if (state == ncclProfilerGroupEndApiStart &&
             api->state == EMU_GROUPAPI_STOPPED) {
    api->state = EMU_GROUPAPI_RESET;
    should = true;
  }
  if (emu_loader_current() != NULL && api->group_api.handle != NULL && should)
    emit_record(t, &api->group_api, state, NULL, "null_state_args");
}

void emu_core_group_api_stop(emu_thread *t, emu_api_state *api) {
  if (emu_loader_current() != NULL && api->group_api.handle != NULL &&
      api->profiler_group_depth == 0) {
    emit_stop(t, &api->group_api, NULL);
    api->group_api.handle = NULL;
    api->group_api.id = 0;
  }
}

void emu_core_coll_api_start(emu_thread *t, emu_api_state *api, emu_comm *comm,
                             emu_func func, size_t count, emu_datatype dt,
                             int root, void *stream, bool graph_captured,
                             uint64_t user_tag) {
  if (emu_loader_current() == NULL || !(api->mask & MASK_COLL_API))
    return;
  ncclProfilerEventDescr_v7_t d;
  memset(&d, 0, sizeof d);
  d.type = ncclProfileCollApi;
  d.parentObj = api->group_api.handle;
  d.collApi.func = emu_func_name(func);
  d.collApi.count = count;
  d.collApi.datatype = emu_datatype_name(dt);
  d.collApi.stream = stream;
  d.collApi.root = root;
  d.collApi.graphCaptured = graph_captured;
  d.collApi.userTag = user_tag;
  emu_start_info info;
  comm_info(&info, comm);
  info.parent_id = api->group_api.id;
  emit_start(t, comm->profiler_context, &api->coll_api, &d, &info);
}

void emu_core_coll_api_stop(emu_thread *t, emu_api_state *api) {
  /* The handle is not cleared after stop: when a later call skipped the
   * start (mask changed), the old handle is stopped again (§6.2). */
  if (emu_loader_current() != NULL && api->coll_api.handle != NULL)
    emit_stop(t, &api->coll_api, api->coll_api.stopped ? "double_stop" : NULL);
}

void emu_core_p2p_api_start(emu_thread *t, emu_api_state *api, emu_comm *comm,
                            emu_func func, size_t count, emu_datatype dt,
                            void *stream, bool graph_captured,
                            uint64_t user_tag) {
  if (emu_loader_current() == NULL || !(api->mask & MASK_P2P_API))
    return;
  ncclProfilerEventDescr_v7_t d;
  memset(&d, 0, sizeof d);
  d.type = ncclProfileP2pApi;
  d.parentObj = api->group_api.handle;
  d.p2pApi.func = emu_func_name(func);
  d.p2pApi.count = count;
  d.p2pApi.datatype = emu_datatype_name(dt);
  d.p2pApi.stream = stream;
  d.p2pApi.graphCaptured = graph_captured;
  d.p2pApi.userTag = user_tag;
  emu_start_info info;
  comm_info(&info, comm);
  info.parent_id = api->group_api.id;
  emit_start(t, comm->profiler_context, &api->p2p_api, &d, &info);
}

void emu_core_p2p_api_stop(emu_thread *t, emu_api_state *api) {
  if (emu_loader_current() != NULL && api->p2p_api.handle != NULL) {
    emit_stop(t, &api->p2p_api, NULL);
    api->p2p_api.handle = NULL;
    api->p2p_api.id = 0;
  }
}

/* First task with a non-zero captured mask decides for the plan. */
static const emu_task *first_masked_task(const emu_plan *plan) {
  for (int i = 0; i < plan->ntasks; i++)
    if (plan->tasks[i].mask != 0)
      return &plan->tasks[i];
  return NULL;
}

void emu_core_kernel_launch_start(emu_thread *t, emu_plan *plan) {
  if (emu_loader_current() == NULL)
    return;
  const emu_task *task = first_masked_task(plan);
  if (task == NULL || !(task->mask & ncclProfileKernelLaunch))
    return;
  ncclProfilerEventDescr_v7_t d;
  memset(&d, 0, sizeof d);
  d.type = ncclProfileKernelLaunch;
  d.parentObj = task->group_api.handle;
  d.kernelLaunch.stream = plan->stream;
  emu_start_info info;
  comm_info(&info, plan->comm);
  info.parent_id = task->group_api.id;
  if (task->group_api.handle != NULL && task->group_api.stopped)
    info.quirk = "stopped_parent";
  emit_start(t, plan->comm->profiler_context, &plan->kernel_launch, &d, &info);
}

void emu_core_kernel_launch_stop(emu_thread *t, emu_plan *plan) {
  if (emu_loader_current() != NULL && plan->kernel_launch.handle != NULL)
    emit_stop(t, &plan->kernel_launch, NULL);
}

void emu_core_group_start(emu_thread *t, emu_plan *plan) {
  if (emu_loader_current() == NULL)
    return;
  const emu_task *task = first_masked_task(plan);
  if (task == NULL || !(task->mask & MASK_GROUP))
    return;
  ncclProfilerEventDescr_v7_t d;
  memset(&d, 0, sizeof d);
  d.type = ncclProfileGroup;
  emu_start_info info;
  comm_info(&info, plan->comm);
  emit_start(t, plan->comm->profiler_context, &plan->group, &d, &info);
}

void emu_core_group_stop(emu_thread *t, emu_plan *plan) {
  if (emu_loader_current() != NULL && plan->group.handle != NULL)
    emit_stop(t, &plan->group, NULL);
}

int emu_core_sym_head(const emu_plan *plan, int *nchannels) {
  int head = -1, n = 0;
  for (int i = 0; i < plan->ntasks; i++) {
    const emu_task *task = &plan->tasks[i];
    if (!task->is_sym)
      continue;
    if (head < 0)
      head = i;
    if (task->nChannels > n) /* masks from channel 0 up: the union */
      n = task->nChannels;
  }
  *nchannels = n;
  return head;
}

/* Coll nChannels: a symmetric task's own count is 0 in NCCL; only the
 * plan's head says how many KernelCh its ops cover, and only when its
 * mask has KernelCh (§12). */
static uint8_t coll_nchannels(const emu_plan *plan, int i) {
  const emu_task *task = &plan->tasks[i];
  if (!task->is_sym)
    return task->nChannels;
  int nchannels = 0;
  if (emu_core_sym_head(plan, &nchannels) != i ||
      !(task->mask & ncclProfileKernelCh))
    return 0;
  return (uint8_t)nchannels;
}

void emu_core_task_events_start(emu_thread *t, emu_plan *plan) {
  emu_comm *comm = plan->comm;
  bool loaded = emu_loader_current() != NULL;
  for (int i = 0; i < plan->ntasks; i++) {
    emu_task *task = &plan->tasks[i];
    if (task->is_p2p)
      continue;
    if (loaded && (task->mask & MASK_COLL)) {
      ncclProfilerEventDescr_v7_t d;
      memset(&d, 0, sizeof d);
      d.type = ncclProfileColl;
      d.coll.parentGroup = plan->group.handle;
      d.parentObj = task->api.handle;
      d.rank = comm->rank;
      d.coll.seqNumber = comm->seq_number[task->func];
      d.coll.func = emu_func_name(task->func);
      d.coll.sendBuff = task->sendbuff;
      d.coll.recvBuff = task->recvbuff;
      d.coll.count = task->count;
      d.coll.root = task->root;
      d.coll.datatype = emu_datatype_name(task->datatype);
      d.coll.nChannels = coll_nchannels(plan, i);
      d.coll.nWarps = task->nWarps;
      d.coll.algo = task->algo;
      d.coll.proto = task->proto;
      d.coll.userTag = task->user_tag;
      d.coll.kernelVariant = task->kernel_variant;
      d.coll.isSymColl = task->is_sym;
      emu_start_info info;
      comm_info(&info, comm);
      info.parent_id = task->api.id;
      info.parent_group_id = plan->group.id;
      if (plan->replay)
        info.quirk = "stale_capture_parent";
      else if (task->api.handle != NULL && task->api.stopped)
        info.quirk = "stopped_parent";
      emit_start(t, comm->profiler_context, &task->event, &d, &info);
    }
    /* seqNumber advances even without a plugin (RAS) — except for graph
     * captured plans, unless KernelCh forces proxy events (§6.6). */
    if (!plan->persistent ||
        (loaded && (plan->group.handle != NULL || task->api.handle != NULL) &&
         (task->mask & ncclProfileKernelCh)))
      comm->seq_number[task->func]++;
  }
  if (!loaded)
    return;
  for (int i = 0; i < plan->ntasks; i++) {
    emu_task *task = &plan->tasks[i];
    if (!task->is_p2p || !(task->mask & MASK_P2P))
      continue;
    ncclProfilerEventDescr_v7_t d;
    memset(&d, 0, sizeof d);
    d.type = ncclProfileP2p;
    d.p2p.parentGroup = plan->group.handle;
    d.parentObj = task->api.handle;
    d.rank = comm->rank;
    d.p2p.func = emu_func_name(task->func);
    d.p2p.buff = task->recvbuff;
    d.p2p.count = task->count;
    d.p2p.datatype = emu_datatype_name(task->datatype);
    d.p2p.peer = task->root;
    d.p2p.nChannels = task->nChannels;
    d.p2p.userTag = task->user_tag;
    emu_start_info info;
    comm_info(&info, comm);
    info.parent_id = task->api.id;
    info.parent_group_id = plan->group.id;
    if (plan->replay)
      info.quirk = "stale_capture_parent";
    else if (task->api.handle != NULL && task->api.stopped)
      info.quirk = "stopped_parent";
    emit_start(t, comm->profiler_context, &task->event, &d, &info);
  }
}

void emu_core_task_events_stop(emu_thread *t, emu_plan *plan) {
  if (emu_loader_current() == NULL)
    return;
  for (int pass = 0; pass < 2; pass++) /* colls, then p2p (NCCL order) */
    for (int i = 0; i < plan->ntasks; i++) {
      emu_task *task = &plan->tasks[i];
      if (task->is_p2p != (pass == 1))
        continue;
      if (task->event.handle != NULL)
        emit_stop(t, &task->event, NULL);
    }
}

/* ---------- copy-engine collectives (§6.13) ---------- */
void emu_core_ce_coll_start(emu_thread *t, emu_comm *comm, emu_slot *ce,
                            const emu_slot *coll_api, emu_func func,
                            size_t count_bytes, int root, void *stream,
                            const void *sendbuff, void *recvbuff,
                            uint64_t user_tag) {
  if (emu_loader_current() == NULL || !(global_mask() & MASK_CE))
    return;
  ncclProfilerEventDescr_v7_t d;
  memset(&d, 0, sizeof d);
  d.type = ncclProfileCeColl;
  d.parentObj = coll_api->handle;
  d.rank = comm->rank;
  d.ceColl.seqNumber = comm->ce_seq_num;
  d.ceColl.func = emu_func_name(func);
  d.ceColl.sendBuff = sendbuff;
  d.ceColl.recvBuff = recvbuff;
  d.ceColl.count = count_bytes;
  d.ceColl.root = root;
  d.ceColl.datatype = emu_datatype_name(EMU_DT_INT8);
  d.ceColl.syncStrategy = comm->nnodes == 1 ? "MC" : "UC";
  d.ceColl.intraBatchSync = false;
  d.ceColl.batchSize = 0;
  d.ceColl.numBatches = 0;
  d.ceColl.ceSeqNum = comm->ce_seq_num;
  d.ceColl.stream = stream;
  d.ceColl.userTag = user_tag;
  emu_start_info info;
  comm_info(&info, comm);
  info.parent_id = coll_api->id;
  if (coll_api->handle != NULL && coll_api->stopped)
    info.quirk = "stopped_parent";
  emit_start(t, comm->profiler_context, ce, &d, &info);
}

void emu_core_ce_coll_stop(emu_thread *t, emu_slot *ce) {
  if (emu_loader_current() != NULL && ce->handle != NULL)
    emit_stop(t, ce, NULL);
}

void emu_core_ce_sync_start(emu_thread *t, emu_comm *comm, const emu_slot *ce,
                            emu_slot *sync, bool is_complete) {
  if (emu_loader_current() == NULL || ce->handle == NULL ||
      !(global_mask() & ncclProfileCeSync))
    return;
  ncclProfilerEventDescr_v7_t d;
  memset(&d, 0, sizeof d);
  d.type = ncclProfileCeSync;
  d.parentObj = ce->handle;
  d.rank = comm->rank;
  d.ceCollSync.isComplete = is_complete;
  d.ceCollSync.nRanks = comm->nranks;
  emu_start_info info;
  comm_info(&info, comm);
  info.parent_id = ce->id;
  emit_start(t, comm->profiler_context, sync, &d, &info);
}

void emu_core_ce_batch_start(emu_thread *t, emu_comm *comm, const emu_slot *ce,
                             emu_slot *batch, int num_ops, size_t total_bytes,
                             bool intra_sync) {
  if (emu_loader_current() == NULL || ce->handle == NULL ||
      !(global_mask() & ncclProfileCeBatch))
    return;
  ncclProfilerEventDescr_v7_t d;
  memset(&d, 0, sizeof d);
  d.type = ncclProfileCeBatch;
  d.parentObj = ce->handle;
  d.rank = comm->rank;
  d.ceCollBatch.numOps = num_ops;
  d.ceCollBatch.totalBytes = total_bytes;
  d.ceCollBatch.useIntraSync = intra_sync;
  emu_start_info info;
  comm_info(&info, comm);
  info.parent_id = ce->id;
  emit_start(t, comm->profiler_context, batch, &d, &info);
}

void emu_core_ce_child_stop(emu_thread *t, emu_slot *child) {
  if (emu_loader_current() != NULL && child->handle != NULL)
    emit_stop(t, child, NULL);
}

/* ---------- proxy side ---------- */
/* The op's mask asks for RCCL's ProxyDiag (its bit in this release): RCCL
 * then also starts ProxyOps and ProxySteps, and fills the proxyOp tail. */
static bool diag_in_mask(const emu_plugin *p, int mask) {
  if (p == NULL || !p->rccl_layout)
    return false;
  return (mask & (p->rccl_231 ? rcclProfileProxyDiag_v7
                              : rcclProfileProxyDiag_v6)) != 0;
}

void emu_core_proxy_op_start(emu_thread *t, emu_sub *sub, int slice_steps) {
  const emu_plugin *p = emu_loader_current();
  bool diag = diag_in_mask(p, sub->op.mask);
  if (p == NULL || !((sub->op.mask & MASK_PROXY_OP) || diag))
    return;
  ncclProfilerEventDescr_v7_t d;
  memset(&d, 0, sizeof d);
  d.type = ncclProfileProxyOp;
  d.parentObj = sub->op.task_handle;
  d.rank = sub->op.rank;
  d.proxyOp.pid = sub->op.pid;
  d.proxyOp.channelId = sub->op.channel;
  d.proxyOp.peer = sub->op.peer;
  d.proxyOp.nSteps = DIVUP(sub->op.nsteps, slice_steps);
  d.proxyOp.chunkSize = sub->op.chunk_size * slice_steps;
  d.proxyOp.isSend = sub->op.kind == EMU_OP_NET_SEND ? 1 : 0;
  emu_start_info info;
  sub_info(&info, sub);
  info.parent_id = sub->op.task_id;
  emu_rccl_proxy_extras extras = {
      .comm_hash = emu_self->layout->comms[sub->op.comm_index].hash,
      .op_count = sub->op.op_count,
      .trace_func_idx = sub->op.func,
      .trace_protocol = sub->op.proto,
      .trace_pattern = sub->op.pattern,
      .trace_total_bytes = (uint32_t)sub->op.bytes,
      .proxy_nbytes = (uint32_t)sub->op.step_bytes,
      .raw_proxy_nsteps = sub->op.nsteps};
  if (!diag) /* RCCL fills its tail only for ProxyDiag */
    memset(&extras, 0, sizeof extras);
  info.rccl_proxy = &extras;
  if (sub->op.foreign)
    info.origin_parent_obj = sub->op.origin_task_handle;
  else if (sub->op.kind == EMU_OP_STUCK)
    info.quirk = "never_stopped";
  emit_start(t, sub->op.context, &sub->op_event, &d, &info);
}

/* RCCL's proxy diagnostics (§12): ProxyDiagUpdate (31; 32 from RCCL 2.31)
 * on the ProxyOp's own handle, when the op's captured mask has ProxyDiag
 * (1 << 15; 1 << 16 from 2.31). The counters are the emulator's model, not
 * RCCL's list: kind 0 steps posted, 1 steps transmitted (send) or received
 * (recv), 2 steps done; value = steps, value2 = bytes; flag 1 = stamp the
 * counter's time. */
enum { DIAG_POSTED = 0, DIAG_TRANSMITTED = 1, DIAG_DONE = 2 };

static bool diag_wanted(const emu_sub *sub) {
  const emu_plugin *p = emu_loader_current();
  return sub->op_event.handle != NULL && diag_in_mask(p, sub->op.mask);
}

static void emit_diag(emu_thread *t, emu_sub *sub, uint8_t kind, uint16_t flags,
                      int64_t value, int64_t value2) {
  emu_rccl_proxy_diag diag = {kind, flags, value, value2};
  ncclProfilerEventStateArgs_v7_t a;
  memset(&a, 0, sizeof a);
  const emu_plugin *p = emu_loader_current();
  emit_record_diag(t, &sub->op_event,
                   p != NULL && p->rccl_231 ? rcclProfilerProxyDiagUpdate_v7
                                            : rcclProfilerProxyDiagUpdate,
                   &a, &diag, NULL);
}

/* At the op's stop: every counter reaches its final value. */
static void emit_final_diag(emu_thread *t, emu_sub *sub) {
  int64_t steps = sub->nsteps;
  emit_diag(t, sub, DIAG_POSTED, 0, steps, 0);
  emit_diag(t, sub, DIAG_TRANSMITTED, 0, steps, (int64_t)sub->op.bytes);
  emit_diag(t, sub, DIAG_DONE, RCCL_PROXY_DIAG_FLAG_TIMESTAMP, steps,
            (int64_t)sub->op.bytes);
}

void emu_core_proxy_op_stop(emu_thread *t, emu_sub *sub, const char *quirk) {
  if (emu_loader_current() != NULL && sub->op_event.handle != NULL) {
    if (diag_wanted(sub))
      emit_final_diag(t, sub);
    emit_stop(t, &sub->op_event, quirk);
    sub->op_event.handle = NULL;
    sub->op_event.id = 0;
  }
}

void emu_core_proxy_op_record(emu_thread *t, emu_sub *sub, int state) {
  if (emu_loader_current() != NULL && sub->op_event.handle != NULL) {
    ncclProfilerEventStateArgs_v7_t a;
    memset(&a, 0, sizeof a);
    emit_record(t, &sub->op_event, state, &a, NULL);
    /* RCCL: the op is in progress: its time stamp, no counter yet */
    if (state == ncclProfilerProxyOpInProgress_v4 && diag_wanted(sub))
      emit_diag(t, sub, DIAG_POSTED,
                RCCL_PROXY_DIAG_FLAG_TIMESTAMP |
                    RCCL_PROXY_DIAG_FLAG_NO_COUNTER,
                0, 0);
  }
}

void emu_core_proxy_step_start(emu_thread *t, emu_sub *sub, int step,
                               const char *quirk) {
  emu_step_handle *ph = &sub->pHandles[step % EMU_NCCL_STEPS];
  const emu_plugin *p = emu_loader_current();
  if (p != NULL &&
      ((sub->op.mask & MASK_PROXY_STEP) || diag_in_mask(p, sub->op.mask))) {
    ncclProfilerEventDescr_v7_t d;
    memset(&d, 0, sizeof d);
    d.type = ncclProfileProxyStep;
    d.parentObj = sub->op_event.handle;
    d.rank = sub->op.rank;
    d.proxyStep.step = step;
    emu_start_info info;
    sub_info(&info, sub);
    info.parent_id = sub->op_event.handle != NULL ? sub->op_event.id : 0;
    if (quirk != NULL)
      info.quirk = quirk;
    emit_start(t, sub->op.context, &ph->step, &d, &info);
  }
  ph->sub = sub;
}

void emu_core_proxy_step_stop(emu_thread *t, emu_sub *sub, int step) {
  emu_step_handle *ph = &sub->pHandles[step % EMU_NCCL_STEPS];
  if (emu_loader_current() != NULL && ph->step.handle != NULL) {
    emit_stop(t, &ph->step, NULL);
    ph->step.handle = NULL;
    ph->step.id = 0;
  }
}

void emu_core_proxy_step_record(emu_thread *t, emu_sub *sub, int step,
                                int state) {
  emu_step_handle *ph = &sub->pHandles[step % EMU_NCCL_STEPS];
  if (emu_loader_current() != NULL && sub->op_event.handle != NULL &&
      ph->step.handle != NULL) {
    ncclProfilerEventStateArgs_v7_t a;
    memset(&a, 0, sizeof a);
    a.proxyStep.transSize = sub->trans_size;
    emit_record(t, &ph->step, state, &a,
                state == ncclProfilerProxyStepSendPeerWait_v4 &&
                        sub->peer_waits > 1
                    ? "repeated_peer_wait"
                    : NULL);
  }
}

void emu_core_proxy_ctrl_start(emu_thread *t, void *context, emu_slot *slot,
                               const char *quirk) {
  if (emu_loader_current() != NULL && (global_mask() & ncclProfileProxyCtrl)) {
    ncclProfilerEventDescr_v7_t d;
    memset(&d, 0, sizeof d);
    d.type = ncclProfileProxyCtrl;
    emu_start_info info;
    empty_info(&info);
    info.quirk = quirk;
    emit_start(t, context, slot, &d, &info);
    return;
  }
  slot->handle = NULL; /* NCCL writes *eHandle = NULL here */
  slot->id = 0;
}

void emu_core_proxy_ctrl_record(emu_thread *t, emu_slot *slot, int appended,
                                int state) {
  if (emu_loader_current() != NULL && slot->handle != NULL &&
      (global_mask() & ncclProfileProxyCtrl)) {
    ncclProfilerEventStateArgs_v7_t a;
    memset(&a, 0, sizeof a);
    a.proxyCtrl.appendedProxyOps = appended;
    emit_record(t, slot, state, &a, NULL);
  }
}

void emu_core_proxy_ctrl_stop(emu_thread *t, emu_slot *slot) {
  if (emu_loader_current() != NULL && slot->handle != NULL)
    emit_stop(t, slot, NULL);
}

void emu_core_kernel_ch_start_op(emu_thread *t, const emu_proxy_op *op,
                                 emu_slot *slot, uint64_t ptimer,
                                 const char *anomaly) {
  if (emu_loader_current() == NULL || !(op->mask & ncclProfileKernelCh))
    return;
  ncclProfilerEventDescr_v7_t d;
  memset(&d, 0, sizeof d);
  d.type = ncclProfileKernelCh;
  d.parentObj = op->task_handle;
  d.kernelCh.channelId = op->channel;
  d.kernelCh.pTimer = ptimer;
  emu_start_info info;
  op_info(&info, op);
  info.parent_id = op->task_id;
  info.anomaly = anomaly;
  info.fresh_slot = op->on_profthread; /* 2.31: the op was cleared, §12 */
  if (anomaly != NULL)
    info.quirk = "ring_overwrite";
  emit_start(t, op->context, slot, &d, &info);
}

void emu_core_kernel_ch_stop_slot(emu_thread *t, emu_slot *slot,
                                  uint64_t ptimer) {
  if (emu_loader_current() == NULL || slot->handle == NULL)
    return;
  ncclProfilerEventStateArgs_v7_t a;
  memset(&a, 0, sizeof a);
  a.kernelCh.pTimer = ptimer;
  emit_record(t, slot, ncclProfilerKernelChStop, &a, NULL);
  emit_stop(t, slot, NULL);
  /* kernelEventHandle is never reset (§6.11). */
}

void emu_core_kernel_ch_start(emu_thread *t, emu_sub *sub, uint64_t ptimer,
                              const char *anomaly) {
  emu_core_kernel_ch_start_op(t, &sub->op, &sub->kernel_event, ptimer, anomaly);
}

void emu_core_kernel_ch_stop(emu_thread *t, emu_sub *sub, uint64_t ptimer) {
  emu_core_kernel_ch_stop_slot(t, &sub->kernel_event, ptimer);
}

void emu_core_kernel_phase(emu_thread *t, const emu_proxy_op *op,
                           const emu_slot *kernel_ch, emu_slot *phase,
                           int phase_id, uint64_t start, uint64_t end) {
  static const char *const names[] = {"initial_sync", "compute", "final_sync"};
  if (emu_loader_current() == NULL || !(op->mask & ncclProfileKernelPhase) ||
      phase_id < 0 || phase_id > 2)
    return;
  ncclProfilerEventDescr_v7_t d;
  memset(&d, 0, sizeof d);
  d.type = ncclProfileKernelPhase;
  d.parentObj = kernel_ch->handle;
  d.kernelPhase.channelId = op->channel;
  d.kernelPhase.phaseId = (uint8_t)phase_id;
  d.kernelPhase.phaseName = names[phase_id];
  d.kernelPhase.pTimer = start;
  emu_start_info info;
  op_info(&info, op);
  info.parent_id = kernel_ch->handle != NULL ? kernel_ch->id : 0;
  emit_start(t, op->context, phase, &d, &info);
  if (phase->handle == NULL)
    return; /* NCCL checks the handle before the record and the stop */
  ncclProfilerEventStateArgs_v7_t a;
  memset(&a, 0, sizeof a);
  a.kernelCh.pTimer = end;
  emit_record(t, phase, ncclProfilerKernelPhaseStop, &a, NULL);
  emit_stop(t, phase, NULL);
}

void emu_core_net_parent_from_sub(emu_net_parent *np, const emu_sub *sub,
                                  int step) {
  np->step = sub->pHandles[step % EMU_NCCL_STEPS].step;
  np->mask = sub->op.mask;
  np->context = sub->op.context;
  np->rank = sub->op.rank;
  np->comm_index = sub->op.comm_index;
  np->global_rank = sub->op.global_rank;
  np->foreign = sub->op.foreign;
  np->origin_worker = sub->op.origin_worker;
  np->origin_pid = sub->op.pid;
  np->origin_context = sub->op.origin_context;
}

void emu_core_net_callback(emu_thread *t, emu_slot *eHandle, int type,
                           const emu_net_parent *parent, int64_t plugin_id,
                           void *ext_data, const char *quirk) {
  if (emu_loader_current() == NULL)
    return;
  if (type == ncclProfilerNetEventStart) {
    if (!(parent->mask & ncclProfileNetPlugin))
      return; /* *eHandle untouched: stays NULL or stale */
    ncclProfilerEventDescr_v7_t d;
    memset(&d, 0, sizeof d);
    d.type = ncclProfileNetPlugin;
    d.parentObj = parent->step.handle;
    d.rank = parent->rank;
    d.netPlugin.id = plugin_id;
    d.netPlugin.data = ext_data;
    emu_start_info info;
    empty_info(&info);
    info.comm_index = parent->comm_index;
    info.global_rank = parent->global_rank;
    info.parent_id = parent->step.handle != NULL ? parent->step.id : 0;
    if (parent->foreign) {
      info.foreign = true;
      info.origin_worker = parent->origin_worker;
      info.origin_pid = parent->origin_pid;
      info.origin_ctx = parent->origin_context;
    }
    info.quirk = quirk != NULL ? quirk : parent->foreign ? "foreign_pxn" : NULL;
    emit_start(t, parent->context, eHandle, &d, &info);
    return;
  }
  const char *q = quirk;
  if (q == NULL && eHandle->handle == NULL)
    q = "net_stop_null";
  else if (q == NULL && eHandle->stopped)
    q = "net_stale_handle";
  if (type == ncclProfilerNetEventUpdate ||
      type == ncclProfilerNetEventUpdateAndStop) {
    ncclProfilerEventStateArgs_v7_t a;
    memset(&a, 0, sizeof a);
    a.netPlugin.data = ext_data;
    emit_record(t, eHandle, ncclProfilerNetPluginUpdate, &a, q);
  }
  if (type == ncclProfilerNetEventStop ||
      type == ncclProfilerNetEventUpdateAndStop)
    emit_stop(t, eHandle, q);
}

/* ---------- replay (emu_replay.c) ---------- */
/* A recorded call has no NCCL state behind it: no mask test, no forcing,
 * no slot rules. These pass it straight to the three plugin calls above,
 * which still go through the shims, the checks and the truth. */
void emu_core_replay_start(emu_thread *t, void *context, emu_slot *slot,
                           ncclProfilerEventDescr_v7_t *d,
                           const emu_start_info *info) {
  emit_start(t, context, slot, d, info);
}

void emu_core_replay_record(emu_thread *t, emu_slot *slot, int state,
                            ncclProfilerEventStateArgs_v7_t *args,
                            const emu_rccl_proxy_diag *diag) {
  emit_record_diag(t, slot, state, args, diag, NULL);
}

void emu_core_replay_stop(emu_thread *t, emu_slot *slot) {
  emit_stop(t, slot, NULL);
}
