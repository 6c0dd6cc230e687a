/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/hot/abi_v1_to_v4.c — the exported ncclProfiler_v1 .. _v4.
 *
 * Each older layout gets its own small reader into the same records the
 * modern ABIs produce: v1's uint8_t func/datatype/algo/proto become our
 * names, v1..v3's coll.name/commHash and v1/v2 trafficBytes are kept when
 * the host fills them (NCCL's own shims zero them), and v1..v4 deliver
 * Coll/P2p with the legacy Group as parent. The `type` field is a uint8_t
 * in all four.
 */
#include <stddef.h>

#include "emit.h"
#include "nccl_names.h"
#include "session.h" /* init is the lifecycle: cs_session_init */

/* v1 enum values (NVIDIA NCCL) -> names as later versions spell them:
 * functions and datatypes from the shared vocabulary (v1 has the first 8
 * functions), algorithms and protocols only here. */
#define V1_FUNCS 8
static const char *v1_func(uint8_t v) {
  return v < V1_FUNCS ? nccl_func_name(v) : "unknown";
}
static const char *v1_type(uint8_t v) {
  const char *name = nccl_datatype_name(v);
  return name ? name : "unknown";
}
static const char *const v1_algos[] = {
    "TREE",      "RING", "COLLNET_DIRECT", "COLLNET_CHAIN", "NVLS",
    "NVLS_TREE", "PAT"};
static const char *const v1_protos[] = {"LL", "LL128", "SIMPLE"};

static const char *enum_name(const char *const *names, size_t n, uint8_t v) {
  return v < n ? names[v] : "unknown";
}
#define ENUM_NAME(table, v) enum_name(table, sizeof table / sizeof *table, v)

static void fill_proxy(cs_payload *p, ncclPid_t pid, uint8_t channel, int peer,
                       int n_steps, int chunk, int is_send) {
  p->proxy_op.pid = pid;
  p->proxy_op.channel_id = channel;
  p->proxy_op.peer = peer;
  p->proxy_op.n_steps = n_steps;
  p->proxy_op.chunk_size = chunk;
  p->proxy_op.is_send = is_send;
  p->proxy_op.has_rccl = 0;
}

/* Every v1..v4 descriptor begins with a uint8_t type and the parent; read
 * both as bytes at those offsets, whichever of the four layouts it is. */
#define SAME_HEAD(v)                                                           \
  _Static_assert(offsetof(v, type) ==                                          \
                         offsetof(ncclProfilerEventDescr_v1_t, type) &&        \
                     offsetof(v, parentObj) ==                                 \
                         offsetof(ncclProfilerEventDescr_v1_t, parentObj),     \
                 "v1..v4 descriptors differ in their head: " #v)
SAME_HEAD(ncclProfilerEventDescr_v2_t);
SAME_HEAD(ncclProfilerEventDescr_v3_t);
SAME_HEAD(ncclProfilerEventDescr_v4_t);
#undef SAME_HEAD

static inline __attribute__((always_inline)) cs_etype
read_legacy(const void *descr, uint32_t allowed, void **parent_obj) {
  const char *bytes = descr;
  uint8_t type;
  memcpy(&type, bytes + offsetof(ncclProfilerEventDescr_v1_t, type),
         sizeof type);
  memcpy(parent_obj, bytes + offsetof(ncclProfilerEventDescr_v1_t, parentObj),
         sizeof *parent_obj);
  return cs_etype_decode(type, allowed);
}

static void init_legacy(void **context, int *mask, int abi) {
  cs_init_args a = {.abi = abi, .has_comm_info = false, .mask = mask};
  if (context)
    *context = cs_session_init(&a);
}

/* ---- v1 ---- */

static ncclResult_t v1_init(void **context, int *eActivationMask) {
  init_legacy(context, eActivationMask, 1);
  return ncclSuccess;
}

static inline __attribute__((always_inline)) void
fill_v1(cs_rec_start *rec, void *context, const void *descr, cs_etype et,
        int abi) {
  const ncclProfilerEventDescr_v1_t *d = descr;
  (void)abi;
  cs_start_common(rec, context, d->parentObj, d->rank, et,
                  et == CS_EV_PROXY_OP ? d->proxyOp.pid : 0);
  cs_payload *p = &rec->p;
  switch (et) {
  case CS_EV_COLL:
    memset(&p->coll, 0, sizeof p->coll);
    p->coll.seq = d->coll.seqNumber;
    p->coll.func = v1_func(d->coll.func);
    p->coll.datatype = v1_type(d->coll.datatype);
    p->coll.algo = ENUM_NAME(v1_algos, d->coll.algo);
    p->coll.proto = ENUM_NAME(v1_protos, d->coll.proto);
    p->coll.send_buff = (uint64_t)(uintptr_t)d->coll.sendBuff;
    p->coll.recv_buff = (uint64_t)(uintptr_t)d->coll.recvBuff;
    p->coll.count = d->coll.count;
    p->coll.root = d->coll.root;
    p->coll.n_channels = d->coll.nMaxChannels;
    p->coll.n_warps = d->coll.nWarps;
    p->coll.comm_hash = d->coll.commHash;
    p->coll.traffic_bytes = d->coll.trafficBytes;
    p->coll.op = d->coll.op;
    p->coll.is_collnet = d->coll.isCollnet != 0;
    p->coll.is_nvls = d->coll.isNvls != 0;
    break;
  case CS_EV_P2P:
    memset(&p->p2p, 0, sizeof p->p2p);
    p->p2p.func = v1_func(d->p2p.func);
    p->p2p.datatype = v1_type(d->p2p.datatype);
    p->p2p.buff = (uint64_t)(uintptr_t)d->p2p.buff;
    p->p2p.count = d->p2p.count;
    p->p2p.peer = d->p2p.peer;
    p->p2p.comm_hash = d->p2p.commHash;
    break;
  case CS_EV_PROXY_OP:
    fill_proxy(p, d->proxyOp.pid, d->proxyOp.channelId, d->proxyOp.peer,
               d->proxyOp.nSteps, d->proxyOp.chunkSize, d->proxyOp.isSend);
    break;
  case CS_EV_PROXY_STEP:
    p->proxy_step.step = d->proxyStep.step;
    break;
  case CS_EV_UNKNOWN:
    p->unknown.raw_type = d->type;
    break;
  default:
    break; /* Group, ProxyCtrl */
  }
}

/* startEvent (emit.h): the fast path here, the rest in the slow twin. */
__attribute__((noinline)) static ncclResult_t
v1_start_slow(void *context, void **eHandle, const void *d) {
  return cs_start_event(context, eHandle, d, CS_TYPES_V1, 1, read_legacy,
                        fill_v1, NULL);
}

static ncclResult_t v1_start(void *context, void **eHandle,
                             ncclProfilerEventDescr_v1_t *d) {
  return cs_start_event(context, eHandle, d, CS_TYPES_V1, 1, read_legacy,
                        fill_v1, v1_start_slow);
}

static ncclResult_t v1_state(void *eHandle, ncclProfilerEventState_v1_t state,
                             ncclProfilerEventStateArgs_v1_t *args) {
  cs_emit_state(eHandle, (int)state, args);
  return ncclSuccess;
}

/* ---- v2 and v3 (same coll/p2p prefix; v2 has trafficBytes) ---- */

static ncclResult_t v2_init(void **context, int *eActivationMask) {
  init_legacy(context, eActivationMask, 2);
  return ncclSuccess;
}

static inline __attribute__((always_inline)) void
fill_v2(cs_rec_start *rec, void *context, const void *descr, cs_etype et,
        int abi) {
  const ncclProfilerEventDescr_v2_t *d = descr;
  (void)abi;
  cs_start_common(rec, context, d->parentObj, d->rank, et,
                  et == CS_EV_PROXY_OP ? d->proxyOp.pid : 0);
  cs_payload *p = &rec->p;
  switch (et) {
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
    p->coll.n_channels = d->coll.nMaxChannels;
    p->coll.n_warps = d->coll.nWarps;
    p->coll.comm_hash = d->coll.commHash;
    p->coll.traffic_bytes = d->coll.trafficBytes;
    break;
  case CS_EV_P2P:
    memset(&p->p2p, 0, sizeof p->p2p);
    p->p2p.func = d->p2p.func;
    p->p2p.datatype = d->p2p.datatype;
    p->p2p.buff = (uint64_t)(uintptr_t)d->p2p.buff;
    p->p2p.count = d->p2p.count;
    p->p2p.peer = d->p2p.peer;
    p->p2p.comm_hash = d->p2p.commHash;
    break;
  case CS_EV_PROXY_OP:
    fill_proxy(p, d->proxyOp.pid, d->proxyOp.channelId, d->proxyOp.peer,
               d->proxyOp.nSteps, d->proxyOp.chunkSize, d->proxyOp.isSend);
    break;
  case CS_EV_PROXY_STEP:
    p->proxy_step.step = d->proxyStep.step;
    break;
  case CS_EV_UNKNOWN:
    p->unknown.raw_type = d->type;
    break;
  default:
    break;
  }
}

/* startEvent (emit.h): the fast path here, the rest in the slow twin. */
__attribute__((noinline)) static ncclResult_t
v2_start_slow(void *context, void **eHandle, const void *d) {
  return cs_start_event(context, eHandle, d, CS_TYPES_V1, 2, read_legacy,
                        fill_v2, NULL);
}

static ncclResult_t v2_start(void *context, void **eHandle,
                             ncclProfilerEventDescr_v2_t *d) {
  return cs_start_event(context, eHandle, d, CS_TYPES_V1, 2, read_legacy,
                        fill_v2, v2_start_slow);
}

static ncclResult_t v2_state(void *eHandle, ncclProfilerEventState_v2_t state,
                             ncclProfilerEventStateArgs_v2_t *args) {
  cs_emit_state(eHandle, (int)state, args);
  return ncclSuccess;
}

static ncclResult_t v3_init(void **context, int *eActivationMask) {
  init_legacy(context, eActivationMask, 3);
  return ncclSuccess;
}

static inline __attribute__((always_inline)) void
fill_v3(cs_rec_start *rec, void *context, const void *descr, cs_etype et,
        int abi) {
  const ncclProfilerEventDescr_v3_t *d = descr;
  (void)abi;
  cs_start_common(rec, context, d->parentObj, d->rank, et,
                  et == CS_EV_PROXY_OP ? d->proxyOp.pid : 0);
  cs_payload *p = &rec->p;
  switch (et) {
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
    p->coll.n_channels = d->coll.nMaxChannels;
    p->coll.n_warps = d->coll.nWarps;
    p->coll.comm_hash = d->coll.commHash;
    break;
  case CS_EV_P2P:
    memset(&p->p2p, 0, sizeof p->p2p);
    p->p2p.func = d->p2p.func;
    p->p2p.datatype = d->p2p.datatype;
    p->p2p.buff = (uint64_t)(uintptr_t)d->p2p.buff;
    p->p2p.count = d->p2p.count;
    p->p2p.peer = d->p2p.peer;
    p->p2p.comm_hash = d->p2p.commHash;
    break;
  case CS_EV_PROXY_OP:
    fill_proxy(p, d->proxyOp.pid, d->proxyOp.channelId, d->proxyOp.peer,
               d->proxyOp.nSteps, d->proxyOp.chunkSize, d->proxyOp.isSend);
    break;
  case CS_EV_PROXY_STEP:
    p->proxy_step.step = d->proxyStep.step;
    break;
  case CS_EV_KERNEL_CH:
    p->kernel_ch.channel_id = d->kernelCh.channelId;
    p->kernel_ch.ptimer = 0;
    p->kernel_ch.has_ptimer = 0; /* v3 has no GPU timestamps */
    break;
  case CS_EV_NET_PLUGIN:
    cs_fill_net_plugin(rec, d->netPlugin.id, d->netPlugin.data);
    break;
  case CS_EV_UNKNOWN:
    p->unknown.raw_type = d->type;
    break;
  default:
    break;
  }
}

/* startEvent (emit.h): the fast path here, the rest in the slow twin. */
__attribute__((noinline)) static ncclResult_t
v3_start_slow(void *context, void **eHandle, const void *d) {
  return cs_start_event(context, eHandle, d, CS_TYPES_V3, 3, read_legacy,
                        fill_v3, NULL);
}

static ncclResult_t v3_start(void *context, void **eHandle,
                             ncclProfilerEventDescr_v3_t *d) {
  return cs_start_event(context, eHandle, d, CS_TYPES_V3, 3, read_legacy,
                        fill_v3, v3_start_slow);
}

static ncclResult_t v3_state(void *eHandle, ncclProfilerEventState_v3_t state,
                             ncclProfilerEventStateArgs_v3_t *args) {
  cs_emit_state(eHandle, (int)state, args);
  return ncclSuccess;
}

/* ---- v4 ---- */

static ncclResult_t v4_init(void **context, int *eActivationMask,
                            const char *commName, uint64_t commHash, int nNodes,
                            int nranks, int rank, ncclDebugLogger_t logfn) {
  cs_init_args a = {.abi = 4,
                    .has_comm_info = true,
                    .comm_id = commHash,
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

static inline __attribute__((always_inline)) void
fill_v4(cs_rec_start *rec, void *context, const void *descr, cs_etype et,
        int abi) {
  const ncclProfilerEventDescr_v4_t *d = descr;
  (void)abi;
  cs_start_common(rec, context, d->parentObj, d->rank, et,
                  et == CS_EV_PROXY_OP ? d->proxyOp.pid : 0);
  cs_payload *p = &rec->p;
  switch (et) {
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
    break;
  case CS_EV_P2P:
    memset(&p->p2p, 0, sizeof p->p2p);
    p->p2p.func = d->p2p.func;
    p->p2p.datatype = d->p2p.datatype;
    p->p2p.buff = (uint64_t)(uintptr_t)d->p2p.buff;
    p->p2p.count = d->p2p.count;
    p->p2p.peer = d->p2p.peer;
    p->p2p.n_channels = d->p2p.nChannels;
    break;
  case CS_EV_PROXY_OP:
    fill_proxy(p, d->proxyOp.pid, d->proxyOp.channelId, d->proxyOp.peer,
               d->proxyOp.nSteps, d->proxyOp.chunkSize, d->proxyOp.isSend);
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
  case CS_EV_UNKNOWN:
    p->unknown.raw_type = d->type;
    break;
  default:
    break;
  }
}

/* startEvent (emit.h): the fast path here, the rest in the slow twin. */
__attribute__((noinline)) static ncclResult_t
v4_start_slow(void *context, void **eHandle, const void *d) {
  return cs_start_event(context, eHandle, d, CS_TYPES_V3, 4, read_legacy,
                        fill_v4, NULL);
}

static ncclResult_t v4_start(void *context, void **eHandle,
                             ncclProfilerEventDescr_v4_t *d) {
  return cs_start_event(context, eHandle, d, CS_TYPES_V3, 4, read_legacy,
                        fill_v4, v4_start_slow);
}

static ncclResult_t v4_state(void *eHandle, ncclProfilerEventState_v4_t state,
                             ncclProfilerEventStateArgs_v4_t *args) {
  cs_emit_state(eHandle, (int)state, args);
  return ncclSuccess;
}

/* Exported, and not const (see abi_v5_to_v7.c). */
__attribute__((visibility("default"))) ncclProfiler_v1_t ncclProfiler_v1 = {
    "cclscope",        v1_init,  v1_start,
    cs_abi_stop_event, v1_state, cs_abi_finalize};
__attribute__((visibility("default"))) ncclProfiler_v2_t ncclProfiler_v2 = {
    "cclscope",        v2_init,  v2_start,
    cs_abi_stop_event, v2_state, cs_abi_finalize};
__attribute__((visibility("default"))) ncclProfiler_v3_t ncclProfiler_v3 = {
    "cclscope",        v3_init,  v3_start,
    cs_abi_stop_event, v3_state, cs_abi_finalize};
__attribute__((visibility("default"))) ncclProfiler_v4_t ncclProfiler_v4 = {
    "cclscope",        v4_init,  v4_start,
    cs_abi_stop_event, v4_state, cs_abi_finalize};
