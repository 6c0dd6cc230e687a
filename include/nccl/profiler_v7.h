/* SPDX-License-Identifier: Apache-2.0 */
/*
 * include/nccl/profiler_v7.h — profiler ABI v7 (NVIDIA NCCL 2.31): v6 plus
 * KernelPhase (bit 1<<15, stop state 31), coll.kernelVariant/isSymColl and a
 * `userTag` appended to collApi, p2pApi, coll, p2p and ceColl.
 *
 * Some RCCL builds ship a "v7" WITHOUT userTag; the prefix is identical, so a
 * reader may only touch `userTag` when the host library's version says it
 * exists (see src/plugin/host_info.c). Layout: docs/nccl-behaviour.md §1.8.
 */
#ifndef CCLSCOPE_NCCL_PROFILER_V7_H
#define CCLSCOPE_NCCL_PROFILER_V7_H

#include "profiler_v6.h"

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
      uint64_t userTag;
    } collApi;
    struct {
      const char *func;
      size_t count;
      const char *datatype;
      void *stream;
      bool graphCaptured;
      uint64_t userTag;
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
      const char *kernelVariant;
      bool isSymColl;
      uint64_t userTag;
    } coll;
    struct {
      const char *func;
      void *buff;
      const char *datatype;
      size_t count;
      int peer;
      uint8_t nChannels;
      void *parentGroup;
      uint64_t userTag;
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
      uint64_t userTag;
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
    struct {
      uint8_t channelId;
      uint8_t phaseId; /* 0 initial_sync, 1 compute, 2 final_sync */
      const char *phaseName;
      uint64_t pTimer;
    } kernelPhase;
  };
} ncclProfilerEventDescr_v7_t;

typedef ncclProfilerEventStateArgs_v5_t ncclProfilerEventStateArgs_v7_t;

typedef struct {
  const char *name;
  ncclResult_t (*init)(void **context, uint64_t commId, int *eActivationMask,
                       const char *commName, int nNodes, int nranks, int rank,
                       ncclDebugLogger_t logfn);
  ncclResult_t (*startEvent)(void *context, void **eHandle,
                             ncclProfilerEventDescr_v7_t *eDescr);
  ncclResult_t (*stopEvent)(void *eHandle);
  ncclResult_t (*recordEventState)(void *eHandle,
                                   ncclProfilerEventState_v7_t eState,
                                   ncclProfilerEventStateArgs_v7_t *eStateArgs);
  ncclResult_t (*finalize)(void *context);
} ncclProfiler_v7_t;

#define D7 ncclProfilerEventDescr_v7_t
_Static_assert(sizeof(D7) == 136, "v7 descriptor size");
_Static_assert(offsetof(D7, collApi.graphCaptured) == 64, "");
_Static_assert(offsetof(D7, collApi.userTag) == 72, "");
_Static_assert(offsetof(D7, p2pApi.graphCaptured) == 56, "");
_Static_assert(offsetof(D7, p2pApi.userTag) == 64, "");
_Static_assert(offsetof(D7, coll.parentGroup) == 104, "");
_Static_assert(offsetof(D7, coll.kernelVariant) == 112, "");
_Static_assert(offsetof(D7, coll.isSymColl) == 120, "");
_Static_assert(offsetof(D7, coll.userTag) == 128, "");
_Static_assert(offsetof(D7, p2p.parentGroup) == 64, "");
_Static_assert(offsetof(D7, p2p.userTag) == 72, "");
_Static_assert(offsetof(D7, ceColl.stream) == 104, "");
_Static_assert(offsetof(D7, ceColl.userTag) == 112, "");
_Static_assert(offsetof(D7, kernelPhase.channelId) == 24, "");
_Static_assert(offsetof(D7, kernelPhase.phaseId) == 25, "");
_Static_assert(offsetof(D7, kernelPhase.phaseName) == 32, "");
_Static_assert(offsetof(D7, kernelPhase.pTimer) == 40, "");
_Static_assert(sizeof(ncclProfilerEventStateArgs_v7_t) == 8, "v7 args size");
_Static_assert(sizeof(ncclProfiler_v7_t) == 48, "v7 plugin struct size");
#undef D7

#endif
