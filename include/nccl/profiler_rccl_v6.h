/* SPDX-License-Identifier: Apache-2.0 */
/*
 * include/nccl/profiler_rccl_v6.h — ROCm RCCL's profiler ABI v6: NVIDIA's v6
 * (profiler_v6.h) with two RCCL extensions, written from the facts in
 * docs/nccl-behaviour.md §12:
 *   - `proxyOp` continues after `isSend` with eight fields for RCCL's proxy
 *     trace (commHash ... rawProxyNsteps); the descriptor keeps v6's size,
 *     because `coll` is still the largest member;
 *   - the state-args union is 24 bytes, with a `proxyDiag` member that
 *     ncclProfilerProxyDiagUpdate (state 31) carries.
 * RCCL exports the same symbol name, ncclProfiler_v6; only the host library
 * tells which layout a plugin receives (src/plugin/host_info.c). Event bit
 * 1 << 15 is RCCL's ProxyDiag in these builds (1 << 16 in later ones,
 * profiler_common.h). Never copy the args by sizeof of NVIDIA's union.
 */
#ifndef CCLSCOPE_NCCL_PROFILER_RCCL_V6_H
#define CCLSCOPE_NCCL_PROFILER_RCCL_V6_H

#include "profiler_v6.h"

/* RCCL's state 31 (the value NVIDIA 2.31 uses for KernelPhaseStop). */
#define rcclProfilerProxyDiagUpdate 31

/* proxyDiag.flags bits as RCCL's proxy-trace plugin reads them. */
#define RCCL_PROXY_DIAG_FLAG_TIMESTAMP 1u  /* stamp this counter's time */
#define RCCL_PROXY_DIAG_FLAG_NO_COUNTER 2u /* leave the counter's value */

typedef struct {
  uint64_t type;
  void *parentObj;
  int rank;
  union {
    struct {
      bool graphCaptured;
      int groupDepth;
    } groupApi;
    struct {
      const char *func;
      size_t count;
      const char *datatype;
      int root;
      void *stream;
      bool graphCaptured;
    } collApi;
    struct {
      const char *func;
      size_t count;
      const char *datatype;
      void *stream;
      bool graphCaptured;
    } p2pApi;
    struct {
      void *stream;
    } kernelLaunch;
    struct {
      uint64_t seqNumber;
      const char *func;
      void const *sendBuff;
      void *recvBuff;
      size_t count;
      int root;
      const char *datatype;
      uint8_t nChannels;
      uint8_t nWarps;
      const char *algo;
      const char *proto;
      void *parentGroup;
    } coll;
    struct {
      const char *func;
      void *buff;
      const char *datatype;
      size_t count;
      int peer;
      uint8_t nChannels;
      void *parentGroup;
    } p2p;
    struct {
      ncclPid_t pid;
      uint8_t channelId;
      int peer;
      int nSteps;
      int chunkSize;
      int isSend;
      /* RCCL only, zero when its proxy trace does not use them */
      uint64_t commHash;
      int64_t opCount;
      int32_t traceFuncIdx;
      int32_t traceProtocol;
      int32_t tracePattern;
      uint32_t traceTotalBytes;
      uint32_t proxyNbytes;
      int rawProxyNsteps;
    } proxyOp;
    struct {
      int step;
    } proxyStep;
    struct {
      uint8_t channelId;
      uint64_t pTimer;
    } kernelCh;
    struct {
      int64_t id;
      void *data;
    } netPlugin;
    struct {
      uint64_t seqNumber;
      const char *func;
      void const *sendBuff;
      void *recvBuff;
      size_t count;
      int root;
      const char *datatype;
      const char *syncStrategy;
      bool intraBatchSync;
      uint32_t batchSize;
      uint32_t numBatches;
      uint32_t ceSeqNum;
      void *stream;
    } ceColl;
    struct {
      bool isComplete;
      int nRanks;
    } ceCollSync;
    struct {
      int numOps;
      size_t totalBytes;
      bool useIntraSync;
    } ceCollBatch;
  };
} rcclProfilerEventDescr_v6_t;

/* 24 bytes: NVIDIA's four 8-byte members plus proxyDiag. */
typedef union {
  struct {
    size_t transSize;
  } proxyStep;
  struct {
    int appendedProxyOps;
  } proxyCtrl;
  struct {
    void *data;
  } netPlugin;
  struct {
    uint64_t pTimer;
  } kernelCh;
  struct {
    uint8_t counterKind;
    uint8_t reserved;
    uint16_t flags;
    int64_t value;
    int64_t value2;
  } proxyDiag;
} rcclProfilerEventStateArgs_v6_t;

typedef struct {
  const char *name;
  ncclResult_t (*init)(void **context, uint64_t commId, int *eActivationMask,
                       const char *commName, int nNodes, int nranks, int rank,
                       ncclDebugLogger_t logfn);
  ncclResult_t (*startEvent)(void *context, void **eHandle,
                             rcclProfilerEventDescr_v6_t *eDescr);
  ncclResult_t (*stopEvent)(void *eHandle);
  ncclResult_t (*recordEventState)(void *eHandle,
                                   ncclProfilerEventState_v6_t eState,
                                   rcclProfilerEventStateArgs_v6_t *eStateArgs);
  ncclResult_t (*finalize)(void *context);
} rcclProfiler_v6_t;

#define DR rcclProfilerEventDescr_v6_t
#define D6 ncclProfilerEventDescr_v6_t
_Static_assert(sizeof(DR) == sizeof(D6), "RCCL v6 descriptor: v6's size");
_Static_assert(offsetof(DR, proxyOp.pid) == offsetof(D6, proxyOp.pid), "");
_Static_assert(offsetof(DR, proxyOp.channelId) == 28, "");
_Static_assert(offsetof(DR, proxyOp.peer) == 32, "");
_Static_assert(offsetof(DR, proxyOp.nSteps) == 36, "");
_Static_assert(offsetof(DR, proxyOp.chunkSize) == 40, "");
_Static_assert(offsetof(DR, proxyOp.isSend) == 44, "");
_Static_assert(offsetof(DR, proxyOp.commHash) == 48, "");
_Static_assert(offsetof(DR, proxyOp.opCount) == 56, "");
_Static_assert(offsetof(DR, proxyOp.traceFuncIdx) == 64, "");
_Static_assert(offsetof(DR, proxyOp.traceProtocol) == 68, "");
_Static_assert(offsetof(DR, proxyOp.tracePattern) == 72, "");
_Static_assert(offsetof(DR, proxyOp.traceTotalBytes) == 76, "");
_Static_assert(offsetof(DR, proxyOp.proxyNbytes) == 80, "");
_Static_assert(offsetof(DR, proxyOp.rawProxyNsteps) == 84, "");
_Static_assert(offsetof(DR, coll.parentGroup) == offsetof(D6, coll.parentGroup),
               "");
_Static_assert(offsetof(DR, ceColl.stream) == offsetof(D6, ceColl.stream), "");
_Static_assert(offsetof(DR, ceCollBatch.useIntraSync) ==
                   offsetof(D6, ceCollBatch.useIntraSync),
               "");
#undef D6
#undef DR
_Static_assert(sizeof(rcclProfilerEventStateArgs_v6_t) == 24, "RCCL v6 args");
_Static_assert(offsetof(rcclProfilerEventStateArgs_v6_t, proxyDiag.flags) == 2,
               "");
_Static_assert(offsetof(rcclProfilerEventStateArgs_v6_t, proxyDiag.value) == 8,
               "");
_Static_assert(offsetof(rcclProfilerEventStateArgs_v6_t, proxyDiag.value2) ==
                   16,
               "");
_Static_assert(sizeof(rcclProfiler_v6_t) == 48, "RCCL v6 plugin struct size");

#endif
