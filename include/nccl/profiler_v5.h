/* SPDX-License-Identifier: Apache-2.0 */
/*
 * include/nccl/profiler_v5.h — profiler ABI v5: 64-bit `type`; API events
 * (GroupApi, CollApi, P2pApi, KernelLaunch); Coll/P2p parent is the
 * CollApi/P2pApi and `parentGroup` names the legacy Group; init takes the
 * commId second. Sizes and offsets pinned from docs/nccl-behaviour.md §1.3.
 */
#ifndef CCLSCOPE_NCCL_PROFILER_V5_H
#define CCLSCOPE_NCCL_PROFILER_V5_H

#include "profiler_v4.h"

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
  };
} ncclProfilerEventDescr_v5_t;

typedef ncclProfilerEventStateArgs_v4_t ncclProfilerEventStateArgs_v5_t;

typedef struct {
  const char *name;
  ncclResult_t (*init)(void **context, uint64_t commId, int *eActivationMask,
                       const char *commName, int nNodes, int nranks, int rank,
                       ncclDebugLogger_t logfn);
  ncclResult_t (*startEvent)(void *context, void **eHandle,
                             ncclProfilerEventDescr_v5_t *eDescr);
  ncclResult_t (*stopEvent)(void *eHandle);
  ncclResult_t (*recordEventState)(void *eHandle,
                                   ncclProfilerEventState_v5_t eState,
                                   ncclProfilerEventStateArgs_v5_t *eStateArgs);
  ncclResult_t (*finalize)(void *context);
} ncclProfiler_v5_t;

#define D5 ncclProfilerEventDescr_v5_t
_Static_assert(sizeof(D5) == 112, "v5 descriptor size");
_Static_assert(offsetof(D5, parentObj) == 8, "");
_Static_assert(offsetof(D5, rank) == 16, "");
_Static_assert(offsetof(D5, groupApi.graphCaptured) == 24, "");
_Static_assert(offsetof(D5, groupApi.groupDepth) == 28, "");
_Static_assert(offsetof(D5, collApi.func) == 24, "");
_Static_assert(offsetof(D5, collApi.count) == 32, "");
_Static_assert(offsetof(D5, collApi.datatype) == 40, "");
_Static_assert(offsetof(D5, collApi.root) == 48, "");
_Static_assert(offsetof(D5, collApi.stream) == 56, "");
_Static_assert(offsetof(D5, collApi.graphCaptured) == 64, "");
_Static_assert(offsetof(D5, p2pApi.func) == 24, "");
_Static_assert(offsetof(D5, p2pApi.count) == 32, "");
_Static_assert(offsetof(D5, p2pApi.datatype) == 40, "");
_Static_assert(offsetof(D5, p2pApi.stream) == 48, "");
_Static_assert(offsetof(D5, p2pApi.graphCaptured) == 56, "");
_Static_assert(offsetof(D5, kernelLaunch.stream) == 24, "");
_Static_assert(offsetof(D5, coll.seqNumber) == 24, "");
_Static_assert(offsetof(D5, coll.func) == 32, "");
_Static_assert(offsetof(D5, coll.sendBuff) == 40, "");
_Static_assert(offsetof(D5, coll.recvBuff) == 48, "");
_Static_assert(offsetof(D5, coll.count) == 56, "");
_Static_assert(offsetof(D5, coll.root) == 64, "");
_Static_assert(offsetof(D5, coll.datatype) == 72, "");
_Static_assert(offsetof(D5, coll.nChannels) == 80, "");
_Static_assert(offsetof(D5, coll.nWarps) == 81, "");
_Static_assert(offsetof(D5, coll.algo) == 88, "");
_Static_assert(offsetof(D5, coll.proto) == 96, "");
_Static_assert(offsetof(D5, coll.parentGroup) == 104, "");
_Static_assert(offsetof(D5, p2p.func) == 24, "");
_Static_assert(offsetof(D5, p2p.buff) == 32, "");
_Static_assert(offsetof(D5, p2p.datatype) == 40, "");
_Static_assert(offsetof(D5, p2p.count) == 48, "");
_Static_assert(offsetof(D5, p2p.peer) == 56, "");
_Static_assert(offsetof(D5, p2p.nChannels) == 60, "");
_Static_assert(offsetof(D5, p2p.parentGroup) == 64, "");
_Static_assert(offsetof(D5, proxyOp.pid) == 24, "");
_Static_assert(offsetof(D5, proxyOp.channelId) == 28, "");
_Static_assert(offsetof(D5, proxyOp.peer) == 32, "");
_Static_assert(offsetof(D5, proxyOp.nSteps) == 36, "");
_Static_assert(offsetof(D5, proxyOp.chunkSize) == 40, "");
_Static_assert(offsetof(D5, proxyOp.isSend) == 44, "");
_Static_assert(offsetof(D5, proxyStep.step) == 24, "");
_Static_assert(offsetof(D5, kernelCh.channelId) == 24, "");
_Static_assert(offsetof(D5, kernelCh.pTimer) == 32, "");
_Static_assert(offsetof(D5, netPlugin.id) == 24, "");
_Static_assert(offsetof(D5, netPlugin.data) == 32, "");
_Static_assert(sizeof(ncclProfiler_v5_t) == 48, "v5 plugin struct size");
#undef D5

#endif
