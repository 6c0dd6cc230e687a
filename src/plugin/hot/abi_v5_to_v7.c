/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/hot/abi_v5_to_v7.c — the exported ncclProfiler_v5, _v6 and _v7.
 *
 * The v5 and v6 descriptors are prefixes of v7 for every member they share
 * (the asserts below check each field NCCL gives us), so one reader serves
 * all three; fields that only exist in later versions are read only when
 * the version carries them: CE events from v6, KernelPhase, kernelVariant
 * and isSymColl from v7, and userTag only when the host is NVIDIA NCCL
 * >= 2.31 (some RCCL v7 layouts end before it).
 */
#include "abi_rccl.h"
#include "emit.h"
#include "session.h" /* init is the lifecycle: cs_session_init */

typedef ncclProfilerEventDescr_v7_t d7;
typedef ncclProfilerEventDescr_v6_t d6;
typedef ncclProfilerEventDescr_v5_t d5;

#define SAME(field)                                                            \
  _Static_assert(offsetof(d5, field) == offsetof(d7, field) &&                 \
                     offsetof(d6, field) == offsetof(d7, field),               \
                 "v5/v6/v7 layouts differ at " #field)
SAME(parentObj);
SAME(rank);
SAME(groupApi.groupDepth);
SAME(groupApi.graphCaptured);
SAME(collApi.func);
SAME(collApi.count);
SAME(collApi.datatype);
SAME(collApi.root);
SAME(collApi.stream);
SAME(collApi.graphCaptured);
SAME(p2pApi.func);
SAME(p2pApi.count);
SAME(p2pApi.datatype);
SAME(p2pApi.stream);
SAME(p2pApi.graphCaptured);
SAME(kernelLaunch.stream);
SAME(coll.seqNumber);
SAME(coll.func);
SAME(coll.sendBuff);
SAME(coll.recvBuff);
SAME(coll.count);
SAME(coll.root);
SAME(coll.datatype);
SAME(coll.nChannels);
SAME(coll.nWarps);
SAME(coll.algo);
SAME(coll.proto);
SAME(coll.parentGroup);
SAME(p2p.func);
SAME(p2p.buff);
SAME(p2p.datatype);
SAME(p2p.count);
SAME(p2p.peer);
SAME(p2p.nChannels);
SAME(p2p.parentGroup);
SAME(proxyOp.pid);
SAME(proxyOp.channelId);
SAME(proxyOp.peer);
SAME(proxyOp.nSteps);
SAME(proxyOp.chunkSize);
SAME(proxyOp.isSend);
SAME(proxyStep.step);
SAME(kernelCh.channelId);
SAME(kernelCh.pTimer);
SAME(netPlugin.id);
SAME(netPlugin.data);
#undef SAME
_Static_assert(offsetof(d6, ceColl.stream) == offsetof(d7, ceColl.stream),
               "v6/v7 ceColl");
_Static_assert(offsetof(d6, ceCollBatch.useIntraSync) ==
                   offsetof(d7, ceCollBatch.useIntraSync),
               "v6/v7 ceCollBatch");

/* A handle of ours -> its id, else 0 (a Coll's parentGroup). */
static inline uint64_t our_id_or_zero(void *handle) {
  uint64_t v = (uint64_t)(uintptr_t)handle;
  return cs_handle_is_our_event(v) ? (v & CS_ID_MASK) : 0;
}

/* The descriptor's type and parent (startEvent, emit.h). */
static inline __attribute__((always_inline)) cs_etype
read_modern(const void *descr, uint32_t allowed, void **parent_obj) {
  const d7 *d = descr;
  *parent_obj = d->parentObj;
  return cs_etype_decode(d->type, allowed);
}

/* v6 also serves RCCL, whose ProxyDiag (bit 15 in its v6 builds, 16 in
 * later ones) is a type only when the host library is RCCL. */
static inline __attribute__((always_inline)) cs_etype
read_v6(const void *descr, uint32_t allowed, void **parent_obj) {
  cs_etype et = read_modern(descr, allowed, parent_obj);
  if (CS_UNLIKELY(et == CS_EV_UNKNOWN))
    et = cs_rccl_decode_type(((const d6 *)descr)->type);
  return et;
}

/* Copy one descriptor into a START record (both twins use this). */
static inline __attribute__((always_inline)) void
fill_modern(cs_rec_start *rec, void *context, const void *descr, cs_etype et,
            int abi) {
  const d7 *d = descr;
  cs_start_common(rec, context, d->parentObj, d->rank, et,
                  et == CS_EV_PROXY_OP ? d->proxyOp.pid : 0);
  cs_payload *p = &rec->p;
  bool tags = abi >= 7 && atomic_load_explicit(&cs_session_user_tag_ok,
                                               memory_order_relaxed);
  switch (et) {
  case CS_EV_GROUP_API:
    p->group_api.group_depth = d->groupApi.groupDepth;
    p->group_api.graph_captured = d->groupApi.graphCaptured;
    break;
  case CS_EV_COLL_API:
    p->coll_api.func = d->collApi.func;
    p->coll_api.datatype = d->collApi.datatype;
    p->coll_api.count = d->collApi.count;
    p->coll_api.stream = (uint64_t)(uintptr_t)d->collApi.stream;
    p->coll_api.root = d->collApi.root;
    p->coll_api.graph_captured = d->collApi.graphCaptured;
    p->coll_api.has_user_tag = tags;
    p->coll_api.user_tag = tags ? d->collApi.userTag : 0;
    break;
  case CS_EV_P2P_API:
    p->coll_api.func = d->p2pApi.func;
    p->coll_api.datatype = d->p2pApi.datatype;
    p->coll_api.count = d->p2pApi.count;
    p->coll_api.stream = (uint64_t)(uintptr_t)d->p2pApi.stream;
    p->coll_api.root = 0;
    p->coll_api.graph_captured = d->p2pApi.graphCaptured;
    p->coll_api.has_user_tag = tags;
    p->coll_api.user_tag = tags ? d->p2pApi.userTag : 0;
    break;
  case CS_EV_KERNEL_LAUNCH:
    p->kernel_launch.stream = (uint64_t)(uintptr_t)d->kernelLaunch.stream;
    break;
  case CS_EV_COLL:
    memset(&p->coll, 0, sizeof p->coll);
    p->coll.seq = d->coll.seqNumber;
    p->coll.func = d->coll.func;
    p->coll.datatype = d->coll.datatype;
    p->coll.algo = d->coll.algo;
    p->coll.proto = d->coll.proto;
    p->coll.send_buff = (uint64_t)(uintptr_t)d->coll.sendBuff;
    p->coll.recv_buff = (uint64_t)(uintptr_t)d->coll.recvBuff;
    p->coll.count = d->coll.count;
    p->coll.root = d->coll.root;
    p->coll.n_channels = d->coll.nChannels;
    p->coll.n_warps = d->coll.nWarps;
    p->coll.parent_group = our_id_or_zero(d->coll.parentGroup);
    if (abi >= 7) {
      p->coll.kernel_variant = d->coll.kernelVariant;
      p->coll.is_sym_coll = d->coll.isSymColl;
      p->coll.has_kernel_variant = 1;
      p->coll.has_user_tag = tags;
      p->coll.user_tag = tags ? d->coll.userTag : 0;
    }
    break;
  case CS_EV_P2P:
    p->p2p.func = d->p2p.func;
    p->p2p.datatype = d->p2p.datatype;
    p->p2p.buff = (uint64_t)(uintptr_t)d->p2p.buff;
    p->p2p.count = d->p2p.count;
    p->p2p.peer = d->p2p.peer;
    p->p2p.n_channels = d->p2p.nChannels;
    p->p2p.parent_group = our_id_or_zero(d->p2p.parentGroup);
    p->p2p.comm_hash = 0;
    p->p2p.has_user_tag = tags;
    p->p2p.user_tag = tags ? d->p2p.userTag : 0;
    break;
  case CS_EV_PROXY_OP:
    p->proxy_op.pid = d->proxyOp.pid;
    p->proxy_op.channel_id = d->proxyOp.channelId;
    p->proxy_op.peer = d->proxyOp.peer;
    p->proxy_op.n_steps = d->proxyOp.nSteps;
    p->proxy_op.chunk_size = d->proxyOp.chunkSize;
    p->proxy_op.is_send = d->proxyOp.isSend;
    p->proxy_op.has_rccl = 0; /* RCCL's v6 ProxyOp: abi_rccl.c */
    break;
  case CS_EV_PROXY_STEP:
    p->proxy_step.step = d->proxyStep.step;
    break;
  case CS_EV_KERNEL_CH:
    p->kernel_ch.channel_id = d->kernelCh.channelId;
    p->kernel_ch.ptimer = d->kernelCh.pTimer;
    p->kernel_ch.has_ptimer = 1;
    break;
  case CS_EV_NET_PLUGIN:
    cs_fill_net_plugin(rec, d->netPlugin.id, d->netPlugin.data);
    break;
  case CS_EV_CE_COLL:
    p->ce_coll.seq = d->ceColl.seqNumber;
    p->ce_coll.func = d->ceColl.func;
    p->ce_coll.datatype = d->ceColl.datatype;
    p->ce_coll.sync_strategy = d->ceColl.syncStrategy;
    p->ce_coll.send_buff = (uint64_t)(uintptr_t)d->ceColl.sendBuff;
    p->ce_coll.recv_buff = (uint64_t)(uintptr_t)d->ceColl.recvBuff;
    p->ce_coll.count = d->ceColl.count;
    p->ce_coll.stream = (uint64_t)(uintptr_t)d->ceColl.stream;
    p->ce_coll.root = d->ceColl.root;
    p->ce_coll.batch_size = d->ceColl.batchSize;
    p->ce_coll.num_batches = d->ceColl.numBatches;
    p->ce_coll.ce_seq_num = d->ceColl.ceSeqNum;
    p->ce_coll.intra_batch_sync = d->ceColl.intraBatchSync;
    p->ce_coll.has_user_tag = tags;
    p->ce_coll.user_tag = tags ? d->ceColl.userTag : 0;
    break;
  case CS_EV_CE_SYNC:
    p->ce_sync.is_complete = d->ceCollSync.isComplete;
    p->ce_sync.n_ranks = d->ceCollSync.nRanks;
    break;
  case CS_EV_CE_BATCH:
    p->ce_batch.num_ops = d->ceCollBatch.numOps;
    p->ce_batch.total_bytes = d->ceCollBatch.totalBytes;
    p->ce_batch.use_intra_sync = d->ceCollBatch.useIntraSync;
    break;
  case CS_EV_KERNEL_PHASE:
    p->kernel_phase.channel_id = d->kernelPhase.channelId;
    p->kernel_phase.phase_id = d->kernelPhase.phaseId;
    p->kernel_phase.phase_name = d->kernelPhase.phaseName;
    p->kernel_phase.ptimer = d->kernelPhase.pTimer;
    break;
  case CS_EV_PROXY_DIAG: /* RCCL documents no descriptor member for it */
  default:
    p->unknown.raw_type = d->type;
    break;
  }
}

/* init for v5..v7: the same arguments, only the ABI number differs. */
static ncclResult_t init_modern(int abi, void **context, uint64_t commId,
                                int *eActivationMask, const char *commName,
                                int nNodes, int nranks, int rank,
                                ncclDebugLogger_t logfn) {
  cs_init_args a = {.abi = abi,
                    .has_comm_info = true,
                    .comm_id = commId,
                    .comm_name = commName,
                    .nnodes = nNodes,
                    .nranks = nranks,
                    .rank = rank,
                    .mask = eActivationMask,
                    .logger = logfn};
  if (context)
    *context = cs_session_init(&a);
  return ncclSuccess;
}

/* ---- v5 ---- */

static ncclResult_t v5_init(void **context, uint64_t commId,
                            int *eActivationMask, const char *commName,
                            int nNodes, int nranks, int rank,
                            ncclDebugLogger_t logfn) {
  return init_modern(5, context, commId, eActivationMask, commName, nNodes,
                     nranks, rank, logfn);
}

/* startEvent (emit.h): the fast path here, the rest in the slow twin. */
__attribute__((noinline)) static ncclResult_t
v5_start_slow(void *context, void **eHandle, const void *d) {
  return cs_start_event(context, eHandle, d, CS_TYPES_V5, 5, read_modern,
                        fill_modern, NULL);
}

static ncclResult_t v5_start(void *context, void **eHandle, d5 *eDescr) {
  return cs_start_event(context, eHandle, eDescr, CS_TYPES_V5, 5, read_modern,
                        fill_modern, v5_start_slow);
}

static ncclResult_t v5_state(void *eHandle, ncclProfilerEventState_v5_t state,
                             ncclProfilerEventStateArgs_v5_t *args) {
  cs_emit_state(eHandle, (int)state, args);
  return ncclSuccess;
}

/* ---- v6 ---- */

static ncclResult_t v6_init(void **context, uint64_t commId,
                            int *eActivationMask, const char *commName,
                            int nNodes, int nranks, int rank,
                            ncclDebugLogger_t logfn) {
  return init_modern(6, context, commId, eActivationMask, commName, nNodes,
                     nranks, rank, logfn);
}

/* startEvent (emit.h): the fast path here, the rest in the slow twin. */
__attribute__((noinline)) static ncclResult_t
v6_start_slow(void *context, void **eHandle, const void *d) {
  return cs_start_event(context, eHandle, d, CS_TYPES_V6, 6, read_v6,
                        fill_modern, NULL);
}

/* RCCL's ProxyOp carries more than NVIDIA's (abi_rccl.c): the one v6 start
 * that leaves the common sequence, and only under RCCL. */
static ncclResult_t v6_start(void *context, void **eHandle, d6 *eDescr) {
  if (CS_UNLIKELY(cs_rccl_is_proxy_op(eDescr)))
    return cs_rccl_proxy_op_start(context, eHandle,
                                  (const rcclProfilerEventDescr_v6_t *)eDescr);
  return cs_start_event(context, eHandle, eDescr, CS_TYPES_V6, 6, read_v6,
                        fill_modern, v6_start_slow);
}

/* State 31 reaches a v6 plugin only from RCCL before 2.31, 32 only from
 * RCCL 2.31 (ProxyDiagUpdate, 24-byte args); NVIDIA's KernelPhaseStop is
 * v7-only. */
static ncclResult_t v6_state(void *eHandle, ncclProfilerEventState_v6_t state,
                             ncclProfilerEventStateArgs_v6_t *args) {
  if (CS_UNLIKELY((int)state == rcclProfilerProxyDiagUpdate ||
                  (int)state == rcclProfilerProxyDiagUpdate_v7)) {
    cs_rccl_emit_diag_state(eHandle, (int)state, args);
    return ncclSuccess;
  }
  cs_emit_state(eHandle, (int)state, args);
  return ncclSuccess;
}

/* ---- v7 ---- */

static ncclResult_t v7_init(void **context, uint64_t commId,
                            int *eActivationMask, const char *commName,
                            int nNodes, int nranks, int rank,
                            ncclDebugLogger_t logfn) {
  return init_modern(7, context, commId, eActivationMask, commName, nNodes,
                     nranks, rank, logfn);
}

/* startEvent (emit.h): the fast path here, the rest in the slow twin. */
__attribute__((noinline)) static ncclResult_t
v7_start_slow(void *context, void **eHandle, const void *d) {
  return cs_start_event(context, eHandle, d, CS_TYPES_V7, 7, read_modern,
                        fill_modern, NULL);
}

/* RCCL 2.31's v7 ProxyOp continues as its v6 one (profiler_rccl_v7.h). */
static ncclResult_t v7_start(void *context, void **eHandle, d7 *eDescr) {
  if (CS_UNLIKELY(cs_rccl_is_proxy_op(eDescr)))
    return cs_rccl_proxy_op_start(
        context, eHandle, &((const rcclProfilerEventDescr_v7_t *)eDescr)->rccl);
  return cs_start_event(context, eHandle, eDescr, CS_TYPES_V7, 7, read_modern,
                        fill_modern, v7_start_slow);
}

/* State 32 is RCCL 2.31's ProxyDiagUpdate (24-byte args); 31 is
 * KernelPhaseStop under both hosts. */
static ncclResult_t v7_state(void *eHandle, ncclProfilerEventState_v7_t state,
                             ncclProfilerEventStateArgs_v7_t *args) {
  if (CS_UNLIKELY((int)state == rcclProfilerProxyDiagUpdate_v7)) {
    cs_rccl_emit_diag_state(eHandle, (int)state, args);
    return ncclSuccess;
  }
  cs_emit_state(eHandle, (int)state, args);
  return ncclSuccess;
}

/* Exported, and not const: HIP turns const globals into device constants. */
__attribute__((visibility("default"))) ncclProfiler_v5_t ncclProfiler_v5 = {
    "cclscope",        v5_init,  v5_start,
    cs_abi_stop_event, v5_state, cs_abi_finalize};
__attribute__((visibility("default"))) ncclProfiler_v6_t ncclProfiler_v6 = {
    "cclscope",        v6_init,  v6_start,
    cs_abi_stop_event, v6_state, cs_abi_finalize};
__attribute__((visibility("default"))) ncclProfiler_v7_t ncclProfiler_v7 = {
    "cclscope",        v7_init,  v7_start,
    cs_abi_stop_event, v7_state, cs_abi_finalize};
