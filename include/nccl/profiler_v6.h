/* SPDX-License-Identifier: Apache-2.0 */
/*
 * include/nccl/profiler_v6.h — profiler ABI v6 (NCCL 2.29/2.30): v5 plus the
 * copy-engine events CeColl, CeSync, CeBatch. State args are v5's (NVIDIA);
 * RCCL's v6 args union is larger (extra proxyDiag arm) — never copy it by size.
 * Sizes and offsets pinned from docs/nccl-behaviour.md §1.3.
 */
#ifndef CCLSCOPE_NCCL_PROFILER_V6_H
#define CCLSCOPE_NCCL_PROFILER_V6_H

#include "profiler_v5.h"

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
} ncclProfilerEventDescr_v6_t;

typedef ncclProfilerEventStateArgs_v5_t ncclProfilerEventStateArgs_v6_t;

typedef struct {
  const char *name;
  ncclResult_t (*init)(void **context, uint64_t commId, int *eActivationMask,
                       const char *commName, int nNodes, int nranks, int rank,
                       ncclDebugLogger_t logfn);
  ncclResult_t (*startEvent)(void *context, void **eHandle,
                             ncclProfilerEventDescr_v6_t *eDescr);
  ncclResult_t (*stopEvent)(void *eHandle);
  ncclResult_t (*recordEventState)(void *eHandle,
                                   ncclProfilerEventState_v6_t eState,
                                   ncclProfilerEventStateArgs_v6_t *eStateArgs);
  ncclResult_t (*finalize)(void *context);
} ncclProfiler_v6_t;

#define D6 ncclProfilerEventDescr_v6_t
_Static_assert(sizeof(D6) == 112, "v6 descriptor size");
_Static_assert(offsetof(D6, coll.parentGroup) == 104, "");
_Static_assert(offsetof(D6, p2p.parentGroup) == 64, "");
_Static_assert(offsetof(D6, ceColl.seqNumber) == 24, "");
_Static_assert(offsetof(D6, ceColl.func) == 32, "");
_Static_assert(offsetof(D6, ceColl.sendBuff) == 40, "");
_Static_assert(offsetof(D6, ceColl.recvBuff) == 48, "");
_Static_assert(offsetof(D6, ceColl.count) == 56, "");
_Static_assert(offsetof(D6, ceColl.root) == 64, "");
_Static_assert(offsetof(D6, ceColl.datatype) == 72, "");
_Static_assert(offsetof(D6, ceColl.syncStrategy) == 80, "");
_Static_assert(offsetof(D6, ceColl.intraBatchSync) == 88, "");
_Static_assert(offsetof(D6, ceColl.batchSize) == 92, "");
_Static_assert(offsetof(D6, ceColl.numBatches) == 96, "");
_Static_assert(offsetof(D6, ceColl.ceSeqNum) == 100, "");
_Static_assert(offsetof(D6, ceColl.stream) == 104, "");
_Static_assert(offsetof(D6, ceCollSync.isComplete) == 24, "");
_Static_assert(offsetof(D6, ceCollSync.nRanks) == 28, "");
_Static_assert(offsetof(D6, ceCollBatch.numOps) == 24, "");
_Static_assert(offsetof(D6, ceCollBatch.totalBytes) == 32, "");
_Static_assert(offsetof(D6, ceCollBatch.useIntraSync) == 40, "");
_Static_assert(sizeof(ncclProfiler_v6_t) == 48, "v6 plugin struct size");
#undef D6

#endif
