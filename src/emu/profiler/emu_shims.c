/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/emu/profiler/emu_shims.c — owns the version adapters: what NCCL 2.30's
 * profiler_v1..v5 adapters (and the direct v6/v7 paths) deliver to a plugin,
 * per nccl-behaviour §7:
 *   v1..v3: *eHandle = NULL first; zero-initialised descriptor and args;
 *           Coll/P2p parentObj = parentGroup; name = NULL, commHash = 0,
 *           trafficBytes = 0; v1 converts strings to enums with fallbacks;
 *           only ProxyCtrl (13-18) and ProxyStep (8-12, args zeroed) states.
 *   v4:     uninitialised local descriptor (here: poison bytes), Coll/P2p
 *           parentObj = parentGroup, p2p.nChannels NOT copied, unsupported
 *           types return without touching *eHandle; drops 23/24.
 *   v5:     uninitialised locals, CE events -> *eHandle = NULL, CE states
 *           dropped, 19/23/24 get an uninitialised args local; CE bits
 *           cleared from the mask after each successful init.
 *   v6:     direct (v7 prefix); KernelPhase (a v7 type) is nulled.
 *   v7:     direct; userTag is filled by the core (poison when the pretended
 *           host has no userTag).
 *   RCCL v6: direct, in RCCL's own layout (profiler_rccl_v6.h): proxyOp with
 *           its eight extra fields, 24-byte state args (proxyDiag for 31;
 *           for 32 from RCCL 2.31, whose v6 adapter drops KernelPhase).
 *   RCCL v7 (2.31): NVIDIA's v7 with RCCL's proxyOp tail and 24-byte state
 *           args (profiler_rccl_v7.h).
 * The sentinel written into *eHandle right before the plugin's startEvent
 * detects a plugin that leaves the slot unwritten; the previous content is
 * put back so NCCL's stale-slot behaviour is unchanged.
 */
#include "profiler/emu_shims.h"

#include <string.h>

/* ---------- v1 enum conversions (NCCL's fallbacks) ---------- */
uint8_t emu_v1_func(const char *s) {
  if (s == NULL)
    return ncclFuncSend;
  if (strcmp(s, "AllGather") == 0)
    return ncclFuncAllGather;
  if (strcmp(s, "AllReduce") == 0)
    return ncclFuncAllReduce;
  if (strcmp(s, "Broadcast") == 0)
    return ncclFuncBroadcast;
  if (strcmp(s, "Recv") == 0)
    return ncclFuncRecv;
  if (strcmp(s, "Reduce") == 0)
    return ncclFuncReduce;
  if (strcmp(s, "ReduceScatter") == 0)
    return ncclFuncReduceScatter;
  if (strcmp(s, "SendRecv") == 0)
    return ncclFuncSendRecv;
  return ncclFuncSend;
}

uint8_t emu_v1_datatype(const char *s) {
  static const struct {
    const char *name;
    uint8_t value;
  } table[] = {{"ncclInt8", ncclInt8},       {"ncclInt32", ncclInt32},
               {"ncclUint32", ncclUint32},   {"ncclInt64", ncclInt64},
               {"ncclUint64", ncclUint64},   {"ncclFloat16", ncclFloat16},
               {"ncclFloat32", ncclFloat32}, {"ncclBfloat16", ncclBfloat16}};
  if (s == NULL)
    return ncclFloat64;
  for (size_t i = 0; i < sizeof table / sizeof *table; i++)
    if (strcmp(s, table[i].name) == 0)
      return table[i].value;
  return ncclFloat64; /* includes "Unknown" (ncclUint8) */
}

uint8_t emu_v1_algo(const char *s) {
  static const struct {
    const char *name;
    uint8_t value;
  } table[] = {{"TREE", NCCL_ALGO_TREE},
               {"RING", NCCL_ALGO_RING},
               {"COLLNET_DIRECT", NCCL_ALGO_COLLNET_DIRECT},
               {"COLLNET_CHAIN", NCCL_ALGO_COLLNET_CHAIN},
               {"NVLS", NCCL_ALGO_NVLS},
               {"NVLS_TREE", NCCL_ALGO_NVLS_TREE}};
  if (s == NULL)
    return NCCL_ALGO_PAT;
  for (size_t i = 0; i < sizeof table / sizeof *table; i++)
    if (strcmp(s, table[i].name) == 0)
      return table[i].value;
  return NCCL_ALGO_PAT;
}

uint8_t emu_v1_proto(const char *s) {
  if (s != NULL && strcmp(s, "LL") == 0)
    return NCCL_PROTO_LL;
  if (s != NULL && strcmp(s, "LL128") == 0)
    return NCCL_PROTO_LL128;
  return NCCL_PROTO_SIMPLE;
}

/* ---------- descriptor conversions ---------- */
bool emu_convert_v1(const ncclProfilerEventDescr_v7_t *in,
                    ncclProfilerEventDescr_v1_t *out) {
  memset(out, 0, sizeof *out);
  out->type = (uint8_t)in->type;
  out->parentObj = in->parentObj;
  out->rank = in->rank;
  switch (in->type) {
  case ncclProfileGroup:
  case ncclProfileProxyCtrl:
    return true;
  case ncclProfileColl:
    out->parentObj = in->coll.parentGroup;
    out->coll.name = NULL;
    out->coll.commHash = 0;
    out->coll.seqNumber = in->coll.seqNumber;
    out->coll.func = emu_v1_func(in->coll.func);
    out->coll.sendBuff = in->coll.sendBuff;
    out->coll.recvBuff = in->coll.recvBuff;
    out->coll.count = in->coll.count;
    out->coll.root = in->coll.root;
    out->coll.datatype = emu_v1_datatype(in->coll.datatype);
    out->coll.op = 0;
    out->coll.trafficBytes = 0;
    out->coll.nMaxChannels = in->coll.nChannels;
    out->coll.nWarps = in->coll.nWarps;
    out->coll.algo = emu_v1_algo(in->coll.algo);
    out->coll.proto = emu_v1_proto(in->coll.proto);
    out->coll.isCollnet = 0;
    out->coll.isNvls = 0;
    return true;
  case ncclProfileP2p:
    out->parentObj = in->p2p.parentGroup;
    out->p2p.name = NULL;
    out->p2p.commHash = 0;
    out->p2p.func = emu_v1_func(in->p2p.func);
    out->p2p.buff = in->p2p.buff;
    out->p2p.count = in->p2p.count;
    out->p2p.datatype = emu_v1_datatype(in->p2p.datatype);
    out->p2p.peer = in->p2p.peer;
    return true;
  case ncclProfileProxyOp:
    out->proxyOp.pid = in->proxyOp.pid;
    out->proxyOp.channelId = in->proxyOp.channelId;
    out->proxyOp.peer = in->proxyOp.peer;
    out->proxyOp.nSteps = in->proxyOp.nSteps;
    out->proxyOp.chunkSize = in->proxyOp.chunkSize;
    out->proxyOp.isSend = in->proxyOp.isSend;
    return true;
  case ncclProfileProxyStep:
    out->proxyStep.step = in->proxyStep.step;
    return true;
  default:
    return false;
  }
}

/* v2 and v3 share the coll/p2p/proxy mapping; v3 adds KernelCh/NetPlugin. */
bool emu_convert_v2(const ncclProfilerEventDescr_v7_t *in,
                    ncclProfilerEventDescr_v2_t *out) {
  memset(out, 0, sizeof *out);
  out->type = (uint8_t)in->type;
  out->parentObj = in->parentObj;
  out->rank = in->rank;
  switch (in->type) {
  case ncclProfileGroup:
  case ncclProfileProxyCtrl:
    return true;
  case ncclProfileColl:
    out->parentObj = in->coll.parentGroup;
    out->coll.name = NULL;
    out->coll.commHash = 0;
    out->coll.seqNumber = in->coll.seqNumber;
    out->coll.func = in->coll.func;
    out->coll.sendBuff = in->coll.sendBuff;
    out->coll.recvBuff = in->coll.recvBuff;
    out->coll.count = in->coll.count;
    out->coll.root = in->coll.root;
    out->coll.datatype = in->coll.datatype;
    out->coll.trafficBytes = 0;
    out->coll.nMaxChannels = in->coll.nChannels;
    out->coll.nWarps = in->coll.nWarps;
    out->coll.algo = in->coll.algo;
    out->coll.proto = in->coll.proto;
    return true;
  case ncclProfileP2p:
    out->parentObj = in->p2p.parentGroup;
    out->p2p.name = NULL;
    out->p2p.commHash = 0;
    out->p2p.func = in->p2p.func;
    out->p2p.buff = in->p2p.buff;
    out->p2p.count = in->p2p.count;
    out->p2p.datatype = in->p2p.datatype;
    out->p2p.peer = in->p2p.peer;
    return true;
  case ncclProfileProxyOp:
    out->proxyOp.pid = in->proxyOp.pid;
    out->proxyOp.channelId = in->proxyOp.channelId;
    out->proxyOp.peer = in->proxyOp.peer;
    out->proxyOp.nSteps = in->proxyOp.nSteps;
    out->proxyOp.chunkSize = in->proxyOp.chunkSize;
    out->proxyOp.isSend = in->proxyOp.isSend;
    return true;
  case ncclProfileProxyStep:
    out->proxyStep.step = in->proxyStep.step;
    return true;
  default:
    return false;
  }
}

bool emu_convert_v3(const ncclProfilerEventDescr_v7_t *in,
                    ncclProfilerEventDescr_v3_t *out) {
  memset(out, 0, sizeof *out);
  out->type = (uint8_t)in->type;
  out->parentObj = in->parentObj;
  out->rank = in->rank;
  switch (in->type) {
  case ncclProfileGroup:
  case ncclProfileProxyCtrl:
    return true;
  case ncclProfileColl:
    out->parentObj = in->coll.parentGroup;
    out->coll.name = NULL;
    out->coll.commHash = 0;
    out->coll.seqNumber = in->coll.seqNumber;
    out->coll.func = in->coll.func;
    out->coll.sendBuff = in->coll.sendBuff;
    out->coll.recvBuff = in->coll.recvBuff;
    out->coll.count = in->coll.count;
    out->coll.root = in->coll.root;
    out->coll.datatype = in->coll.datatype;
    out->coll.nMaxChannels = in->coll.nChannels;
    out->coll.nWarps = in->coll.nWarps;
    out->coll.algo = in->coll.algo;
    out->coll.proto = in->coll.proto;
    return true;
  case ncclProfileP2p:
    out->parentObj = in->p2p.parentGroup;
    out->p2p.name = NULL;
    out->p2p.commHash = 0;
    out->p2p.func = in->p2p.func;
    out->p2p.buff = in->p2p.buff;
    out->p2p.count = in->p2p.count;
    out->p2p.datatype = in->p2p.datatype;
    out->p2p.peer = in->p2p.peer;
    return true;
  case ncclProfileProxyOp:
    out->proxyOp.pid = in->proxyOp.pid;
    out->proxyOp.channelId = in->proxyOp.channelId;
    out->proxyOp.peer = in->proxyOp.peer;
    out->proxyOp.nSteps = in->proxyOp.nSteps;
    out->proxyOp.chunkSize = in->proxyOp.chunkSize;
    out->proxyOp.isSend = in->proxyOp.isSend;
    return true;
  case ncclProfileProxyStep:
    out->proxyStep.step = in->proxyStep.step;
    return true;
  case ncclProfileKernelCh:
    out->kernelCh.channelId = in->kernelCh.channelId;
    return true;
  case ncclProfileNetPlugin:
    out->netPlugin.id = in->netPlugin.id;
    out->netPlugin.data = in->netPlugin.data;
    return true;
  default:
    return false;
  }
}

bool emu_convert_v4(const ncclProfilerEventDescr_v7_t *in,
                    ncclProfilerEventDescr_v4_t *out) {
  /* NCCL copies into an uninitialised local: every byte not assigned below
   * is garbage. Poison makes a plugin that reads them visible. */
  memset(out, EMU_POISON_BYTE, sizeof *out);
  out->type = (uint8_t)in->type;
  out->parentObj = in->parentObj;
  out->rank = in->rank;
  switch (in->type) {
  case ncclProfileGroup:
  case ncclProfileProxyCtrl:
    return true;
  case ncclProfileColl:
    out->coll.seqNumber = in->coll.seqNumber;
    out->coll.func = in->coll.func;
    out->coll.sendBuff = in->coll.sendBuff;
    out->coll.recvBuff = in->coll.recvBuff;
    out->coll.count = in->coll.count;
    out->coll.root = in->coll.root;
    out->coll.datatype = in->coll.datatype;
    out->coll.nChannels = in->coll.nChannels;
    out->coll.nWarps = in->coll.nWarps;
    out->coll.algo = in->coll.algo;
    out->coll.proto = in->coll.proto;
    out->parentObj = in->coll.parentGroup;
    return true;
  case ncclProfileP2p:
    out->p2p.func = in->p2p.func;
    out->p2p.buff = in->p2p.buff;
    out->p2p.count = in->p2p.count;
    out->p2p.datatype = in->p2p.datatype;
    out->p2p.peer = in->p2p.peer;
    /* p2p.nChannels is not copied by NCCL's v4 adapter: stays garbage. */
    out->parentObj = in->p2p.parentGroup;
    return true;
  case ncclProfileProxyOp:
    out->proxyOp.pid = in->proxyOp.pid;
    out->proxyOp.channelId = in->proxyOp.channelId;
    out->proxyOp.peer = in->proxyOp.peer;
    out->proxyOp.nSteps = in->proxyOp.nSteps;
    out->proxyOp.chunkSize = in->proxyOp.chunkSize;
    out->proxyOp.isSend = in->proxyOp.isSend;
    return true;
  case ncclProfileProxyStep:
    out->proxyStep.step = in->proxyStep.step;
    return true;
  case ncclProfileKernelCh:
    out->kernelCh.channelId = in->kernelCh.channelId;
    out->kernelCh.pTimer = in->kernelCh.pTimer;
    return true;
  case ncclProfileNetPlugin:
    out->netPlugin.id = in->netPlugin.id;
    out->netPlugin.data = in->netPlugin.data;
    return true;
  default:
    return false;
  }
}

bool emu_convert_v5(const ncclProfilerEventDescr_v7_t *in,
                    ncclProfilerEventDescr_v5_t *out) {
  memset(out, EMU_POISON_BYTE, sizeof *out);
  out->type = in->type;
  out->parentObj = in->parentObj;
  out->rank = in->rank;
  switch (in->type) {
  case ncclProfileGroup:
  case ncclProfileProxyCtrl:
    return true;
  case ncclProfileGroupApi:
    out->groupApi.graphCaptured = in->groupApi.graphCaptured;
    out->groupApi.groupDepth = in->groupApi.groupDepth;
    return true;
  case ncclProfileCollApi:
    out->collApi.func = in->collApi.func;
    out->collApi.count = in->collApi.count;
    out->collApi.datatype = in->collApi.datatype;
    out->collApi.root = in->collApi.root;
    out->collApi.stream = in->collApi.stream;
    out->collApi.graphCaptured = in->collApi.graphCaptured;
    return true;
  case ncclProfileP2pApi:
    out->p2pApi.func = in->p2pApi.func;
    out->p2pApi.count = in->p2pApi.count;
    out->p2pApi.datatype = in->p2pApi.datatype;
    out->p2pApi.stream = in->p2pApi.stream;
    out->p2pApi.graphCaptured = in->p2pApi.graphCaptured;
    return true;
  case ncclProfileKernelLaunch:
    out->kernelLaunch.stream = in->kernelLaunch.stream;
    return true;
  case ncclProfileColl:
    out->coll.seqNumber = in->coll.seqNumber;
    out->coll.func = in->coll.func;
    out->coll.sendBuff = in->coll.sendBuff;
    out->coll.recvBuff = in->coll.recvBuff;
    out->coll.count = in->coll.count;
    out->coll.root = in->coll.root;
    out->coll.datatype = in->coll.datatype;
    out->coll.nChannels = in->coll.nChannels;
    out->coll.nWarps = in->coll.nWarps;
    out->coll.algo = in->coll.algo;
    out->coll.proto = in->coll.proto;
    out->coll.parentGroup = in->coll.parentGroup;
    return true;
  case ncclProfileP2p:
    out->p2p.func = in->p2p.func;
    out->p2p.buff = in->p2p.buff;
    out->p2p.datatype = in->p2p.datatype;
    out->p2p.count = in->p2p.count;
    out->p2p.peer = in->p2p.peer;
    out->p2p.nChannels = in->p2p.nChannels;
    out->p2p.parentGroup = in->p2p.parentGroup;
    return true;
  case ncclProfileProxyOp:
    out->proxyOp.pid = in->proxyOp.pid;
    out->proxyOp.channelId = in->proxyOp.channelId;
    out->proxyOp.peer = in->proxyOp.peer;
    out->proxyOp.nSteps = in->proxyOp.nSteps;
    out->proxyOp.chunkSize = in->proxyOp.chunkSize;
    out->proxyOp.isSend = in->proxyOp.isSend;
    return true;
  case ncclProfileProxyStep:
    out->proxyStep.step = in->proxyStep.step;
    return true;
  case ncclProfileKernelCh:
    out->kernelCh.channelId = in->kernelCh.channelId;
    out->kernelCh.pTimer = in->kernelCh.pTimer;
    return true;
  case ncclProfileNetPlugin:
    out->netPlugin.id = in->netPlugin.id;
    out->netPlugin.data = in->netPlugin.data;
    return true;
  default:
    return false;
  }
}

static bool is_ce_type(uint64_t type) {
  return type == ncclProfileCeColl || type == ncclProfileCeSync ||
         type == ncclProfileCeBatch;
}

static bool is_proxy_step_state(int s) {
  return s == ncclProfilerProxyStepSendGPUWait ||
         s == ncclProfilerProxyStepSendWait ||
         s == ncclProfilerProxyStepRecvWait ||
         s == ncclProfilerProxyStepRecvFlushWait ||
         s == ncclProfilerProxyStepRecvGPUWait;
}

static bool is_proxy_ctrl_state(int s) {
  return s >= ncclProfilerProxyCtrlIdle && s <= ncclProfilerProxyCtrlAppendEnd;
}

bool emu_state_delivered(int abi, int s) {
  switch (abi) {
  case 1:
  case 2:
  case 3:
    return is_proxy_ctrl_state(s) || is_proxy_step_state(s);
  case 4:
    return is_proxy_ctrl_state(s) || is_proxy_step_state(s) ||
           s == ncclProfilerProxyOpInProgress_v4 ||
           s == ncclProfilerProxyStepSendPeerWait_v4 ||
           s == ncclProfilerNetPluginUpdate || s == ncclProfilerKernelChStop;
  case 5:
    return is_proxy_ctrl_state(s) || is_proxy_step_state(s) ||
           s == ncclProfilerProxyOpInProgress_v4 ||
           s == ncclProfilerProxyStepSendPeerWait_v4 ||
           s == ncclProfilerNetPluginUpdate || s == ncclProfilerKernelChStop ||
           s == ncclProfilerGroupStartApiStop ||
           s == ncclProfilerGroupEndApiStart;
  case 6:
    return s != ncclProfilerKernelPhaseStop;
  default:
    return true;
  }
}

/* ---------- calls ---------- */

static void force_mask(int *mask, const int *forced_mask) {
  if (forced_mask != NULL && mask != NULL)
    EMU_STORE_RELAXED(mask, *forced_mask);
}

int emu_shim_init(const emu_plugin *p, void **context, uint64_t commId,
                  int *mask, const char *commName, int nNodes, int nranks,
                  int rank, ncclDebugLogger_t logfn, const int *forced_mask) {
  int rc;
  switch (p->abi) {
  case 1:
    rc = ((ncclProfiler_v1_t *)p->symbol)->init(context, mask);
    force_mask(mask, forced_mask);
    break;
  case 2:
    rc = ((ncclProfiler_v2_t *)p->symbol)->init(context, mask);
    force_mask(mask, forced_mask);
    break;
  case 3:
    rc = ((ncclProfiler_v3_t *)p->symbol)->init(context, mask);
    force_mask(mask, forced_mask);
    break;
  case 4:
    rc = ((ncclProfiler_v4_t *)p->symbol)
             ->init(context, mask, commName, commId, nNodes, nranks, rank,
                    logfn);
    force_mask(mask, forced_mask);
    break;
  case 5:
    rc = ((ncclProfiler_v5_t *)p->symbol)
             ->init(context, commId, mask, commName, nNodes, nranks, rank,
                    logfn);
    force_mask(mask, forced_mask);
    if (rc == 0 && mask != NULL)
      EMU_STORE_RELAXED(mask, EMU_LOAD_RELAXED(mask) &
                                  ~(ncclProfileCeColl | ncclProfileCeSync |
                                    ncclProfileCeBatch));
    break;
  case 6:
    rc = ((ncclProfiler_v6_t *)p->symbol)
             ->init(context, commId, mask, commName, nNodes, nranks, rank,
                    logfn);
    force_mask(mask, forced_mask);
    /* NCCL >= 2.31 clears the v7-only KernelPhase bit for older plugins;
     * under RCCL before 2.31 that bit is its own ProxyDiag (§12). */
    if (rc == 0 && mask != NULL && (!p->host_rccl || p->rccl_231))
      EMU_STORE_RELAXED(mask, EMU_LOAD_RELAXED(mask) & ~ncclProfileKernelPhase);
    break;
  default:
    rc = ((ncclProfiler_v7_t *)p->symbol)
             ->init(context, commId, mask, commName, nNodes, nranks, rank,
                    logfn);
    force_mask(mask, forced_mask);
    break;
  }
  return rc;
}

/* Pre-fill *eHandle with the sentinel before the plugin's startEvent (v4+
 * adapters pass NCCL's slot as is) when unwritten slots must be detected
 * exactly (--check or --truth); otherwise the stale value is passed and a
 * slot that did not change counts as unwritten. v1..v3 plugins always see
 * the NULL their adapter wrote. */
static bool use_sentinel;

void emu_shims_detect_unwritten(bool exact) {
  use_sentinel = exact;
}

/* Before the plugin's startEvent: remember the slot and, when exact
 * detection is on, pre-fill the sentinel. */
static void *prefill_slot(void **eHandle, bool sentinel) {
  void *before = *eHandle;
  if (sentinel)
    *eHandle = EMU_UNWRITTEN_SENTINEL;
  return before;
}

/* After it: a slot still holding the sentinel (or, without sentinel, the
 * old value) was not written; the old value is put back. */
static void settle_slot(void **eHandle, void *before, bool sentinel,
                        emu_delivery *del) {
  if (sentinel && *eHandle == EMU_UNWRITTEN_SENTINEL) {
    *eHandle = before;
    del->unwritten = true;
  } else if (!sentinel && *eHandle == before) {
    del->unwritten = true;
  }
}

emu_delivery emu_shim_start(const emu_plugin *p, void *context, void **eHandle,
                            ncclProfilerEventDescr_v7_t *d) {
  emu_delivery del = {EMU_DELIVERED, false, 0};
  switch (p->abi) {
  case 1: {
    *eHandle = NULL;
    ncclProfilerEventDescr_v1_t v1;
    if (!emu_convert_v1(d, &v1)) {
      del.kind = EMU_DROPPED_NULLED;
      return del;
    }
    void *before = prefill_slot(eHandle, false);
    del.rc =
        ((ncclProfiler_v1_t *)p->symbol)->startEvent(context, eHandle, &v1);
    settle_slot(eHandle, before, false, &del);
    return del;
  }
  case 2: {
    *eHandle = NULL;
    ncclProfilerEventDescr_v2_t v2;
    if (!emu_convert_v2(d, &v2)) {
      del.kind = EMU_DROPPED_NULLED;
      return del;
    }
    void *before = prefill_slot(eHandle, false);
    del.rc =
        ((ncclProfiler_v2_t *)p->symbol)->startEvent(context, eHandle, &v2);
    settle_slot(eHandle, before, false, &del);
    return del;
  }
  case 3: {
    *eHandle = NULL;
    ncclProfilerEventDescr_v3_t v3;
    if (!emu_convert_v3(d, &v3)) {
      del.kind = EMU_DROPPED_NULLED;
      return del;
    }
    void *before = prefill_slot(eHandle, false);
    del.rc =
        ((ncclProfiler_v3_t *)p->symbol)->startEvent(context, eHandle, &v3);
    settle_slot(eHandle, before, false, &del);
    return del;
  }
  case 4: {
    ncclProfilerEventDescr_v4_t v4;
    if (!emu_convert_v4(d, &v4)) {
      del.kind = EMU_DROPPED_SHIM; /* *eHandle untouched */
      return del;
    }
    void *before = prefill_slot(eHandle, use_sentinel);
    del.rc =
        ((ncclProfiler_v4_t *)p->symbol)->startEvent(context, eHandle, &v4);
    settle_slot(eHandle, before, use_sentinel, &del);
    return del;
  }
  case 5: {
    if (is_ce_type(d->type)) {
      *eHandle = NULL;
      del.kind = EMU_DROPPED_NULLED;
      return del;
    }
    ncclProfilerEventDescr_v5_t v5;
    if (!emu_convert_v5(d, &v5)) {
      del.kind = EMU_DROPPED_SHIM;
      return del;
    }
    void *before = prefill_slot(eHandle, use_sentinel);
    del.rc =
        ((ncclProfiler_v5_t *)p->symbol)->startEvent(context, eHandle, &v5);
    settle_slot(eHandle, before, use_sentinel, &del);
    return del;
  }
  case 6: {
    if (d->type == ncclProfileKernelPhase) {
      *eHandle = NULL;
      del.kind = EMU_DROPPED_NULLED;
      return del;
    }
    /* the v7 descriptor starts with the v6 layout */
    void *before = prefill_slot(eHandle, use_sentinel);
    del.rc = ((ncclProfiler_v6_t *)p->symbol)
                 ->startEvent(context, eHandle,
                              (ncclProfilerEventDescr_v6_t *)(void *)d);
    settle_slot(eHandle, before, use_sentinel, &del);
    return del;
  }
  default: {
    void *before = prefill_slot(eHandle, use_sentinel);
    del.rc = ((ncclProfiler_v7_t *)p->symbol)->startEvent(context, eHandle, d);
    settle_slot(eHandle, before, use_sentinel, &del);
    return del;
  }
  }
}

emu_delivery emu_shim_record(const emu_plugin *p, void *eHandle, int state,
                             ncclProfilerEventStateArgs_v7_t *args) {
  emu_delivery del = {EMU_DELIVERED, false, 0};
  if (!emu_state_delivered(p->abi, state)) {
    del.kind = EMU_DROPPED_SHIM;
    return del;
  }
  switch (p->abi) {
  case 1:
  case 2:
  case 3: {
    ncclProfilerEventStateArgs_v1_t a;
    memset(&a, 0, sizeof a);
    if (is_proxy_ctrl_state(state))
      a.proxyCtrl.appendedProxyOps = args->proxyCtrl.appendedProxyOps;
    /* ProxyStep states: args zeroed (no transSize for v1..v3). */
    if (p->abi == 1)
      del.rc = ((ncclProfiler_v1_t *)p->symbol)
                   ->recordEventState(eHandle,
                                      (ncclProfilerEventState_v1_t)state, &a);
    else if (p->abi == 2)
      del.rc = ((ncclProfiler_v2_t *)p->symbol)
                   ->recordEventState(eHandle,
                                      (ncclProfilerEventState_v2_t)state, &a);
    else
      del.rc = ((ncclProfiler_v3_t *)p->symbol)
                   ->recordEventState(eHandle,
                                      (ncclProfilerEventState_v3_t)state, &a);
    break;
  }
  case 4:
  case 5: {
    ncclProfilerEventStateArgs_v4_t a;
    memset(&a, EMU_POISON_BYTE, sizeof a); /* uninitialised local */
    if (is_proxy_step_state(state) ||
        state == ncclProfilerProxyStepSendPeerWait_v4)
      a.proxyStep.transSize = args->proxyStep.transSize;
    else if (is_proxy_ctrl_state(state))
      a.proxyCtrl.appendedProxyOps = args->proxyCtrl.appendedProxyOps;
    else if (state == ncclProfilerNetPluginUpdate)
      a.netPlugin.data = args->netPlugin.data;
    else if (state == ncclProfilerKernelChStop)
      a.kernelCh.pTimer = args->kernelCh.pTimer;
    /* 19, 23, 24: the local stays uninitialised. */
    if (p->abi == 4)
      del.rc = ((ncclProfiler_v4_t *)p->symbol)
                   ->recordEventState(eHandle,
                                      (ncclProfilerEventState_v4_t)state, &a);
    else
      del.rc = ((ncclProfiler_v5_t *)p->symbol)
                   ->recordEventState(eHandle,
                                      (ncclProfilerEventState_v5_t)state, &a);
    break;
  }
  case 6:
    del.rc = ((ncclProfiler_v6_t *)p->symbol)
                 ->recordEventState(eHandle, (ncclProfilerEventState_v6_t)state,
                                    args);
    break;
  default:
    del.rc = ((ncclProfiler_v7_t *)p->symbol)
                 ->recordEventState(eHandle, (ncclProfilerEventState_v7_t)state,
                                    args);
    break;
  }
  return del;
}

emu_delivery emu_shim_stop(const emu_plugin *p, void *eHandle) {
  emu_delivery del = {EMU_DELIVERED, false, 0};
  /* stopEvent has the same shape in every version: NCCL calls it directly. */
  del.rc = p->stop(eHandle);
  return del;
}

int emu_shim_finalize(const emu_plugin *p, void *context) {
  return p->finalize(context);
}

/* ---------- RCCL's v6 and, from 2.31, v7 (§12) ---------- */

static void fill_rccl_proxy_tail(rcclProfilerEventDescr_v6_t *r,
                                 const emu_rccl_proxy_extras *extras) {
  memset((char *)r + offsetof(rcclProfilerEventDescr_v6_t, proxyOp.commHash), 0,
         sizeof *r - offsetof(rcclProfilerEventDescr_v6_t, proxyOp.commHash));
  if (extras == NULL)
    return;
  r->proxyOp.commHash = extras->comm_hash;
  r->proxyOp.opCount = extras->op_count;
  r->proxyOp.traceFuncIdx = extras->trace_func_idx;
  r->proxyOp.traceProtocol = extras->trace_protocol;
  r->proxyOp.tracePattern = extras->trace_pattern;
  r->proxyOp.traceTotalBytes = extras->trace_total_bytes;
  r->proxyOp.proxyNbytes = extras->proxy_nbytes;
  r->proxyOp.rawProxyNsteps = extras->raw_proxy_nsteps;
}

emu_delivery emu_shim_start_rccl(const emu_plugin *p, void *context,
                                 void **eHandle,
                                 const ncclProfilerEventDescr_v7_t *d,
                                 const emu_rccl_proxy_extras *extras) {
  emu_delivery del = {EMU_DELIVERED, false, 0};
  if (p->abi == 7) { /* RCCL 2.31: NVIDIA's v7 with RCCL's proxyOp tail */
    rcclProfilerEventDescr_v7_t r;
    r.v7 = *d;
    if (d->type == ncclProfileProxyOp)
      fill_rccl_proxy_tail(&r.rccl, extras);
    void *before = prefill_slot(eHandle, use_sentinel);
    del.rc = ((rcclProfiler_v7_t *)p->symbol)->startEvent(context, eHandle, &r);
    settle_slot(eHandle, before, use_sentinel, &del);
    return del;
  }
  if (d->type == ncclProfileKernelPhase) { /* v7-only: the v6 adapter */
    *eHandle = NULL;
    del.kind = EMU_DROPPED_NULLED;
    return del;
  }
  /* The v6 prefix of the v7 descriptor, then RCCL's proxyOp tail. */
  rcclProfilerEventDescr_v6_t r;
  memcpy(&r, d, sizeof r);
  if (d->type == ncclProfileProxyOp)
    fill_rccl_proxy_tail(&r, extras);
  void *before = prefill_slot(eHandle, use_sentinel);
  del.rc = ((rcclProfiler_v6_t *)p->symbol)->startEvent(context, eHandle, &r);
  settle_slot(eHandle, before, use_sentinel, &del);
  return del;
}

emu_delivery emu_shim_record_rccl(const emu_plugin *p, void *eHandle, int state,
                                  const ncclProfilerEventStateArgs_v7_t *args,
                                  const emu_rccl_proxy_diag *diag) {
  emu_delivery del = {EMU_DELIVERED, false, 0};
  if (p->abi == 6 && p->rccl_231 && state == ncclProfilerKernelPhaseStop)
    return del; /* RCCL 2.31's v6 adapter drops the v7-only state */
  rcclProfilerEventStateArgs_v6_t a;
  memset(&a, 0, sizeof a);
  if (args != NULL)
    memcpy(&a, args, sizeof *args); /* the 8-byte members */
  if (diag != NULL) {
    a.proxyDiag.counterKind = diag->counter_kind;
    a.proxyDiag.flags = diag->flags;
    a.proxyDiag.value = diag->value;
    a.proxyDiag.value2 = diag->value2;
  }
  rcclProfilerEventStateArgs_v6_t *pa =
      args != NULL || diag != NULL ? &a : NULL;
  if (p->abi == 7)
    del.rc =
        ((rcclProfiler_v7_t *)p->symbol)
            ->recordEventState(eHandle, (ncclProfilerEventState_v7_t)state, pa);
  else
    del.rc =
        ((rcclProfiler_v6_t *)p->symbol)
            ->recordEventState(eHandle, (ncclProfilerEventState_v6_t)state, pa);
  return del;
}
