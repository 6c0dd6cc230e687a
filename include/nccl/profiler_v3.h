/* SPDX-License-Identifier: Apache-2.0 */
/*
 * include/nccl/profiler_v3.h — profiler ABI v3: adds KernelCh (channel only,
 * no pTimer) and NetPlugin; drops coll.trafficBytes. State args as v1.
 * Sizes and offsets pinned from docs/nccl-behaviour.md §1.3.
 */
#ifndef CCLSCOPE_NCCL_PROFILER_V3_H
#define CCLSCOPE_NCCL_PROFILER_V3_H

#include "profiler_v2.h"

typedef struct {
  uint8_t type;
  void *parentObj;
  int rank;
  union {
    struct {
      const char *name;
      uint64_t commHash;
      uint64_t seqNumber;
      const char *func;
      void const *sendBuff;
      void *recvBuff;
      size_t count;
      int root;
      const char *datatype;
      uint8_t nMaxChannels;
      uint8_t nWarps;
      const char *algo;
      const char *proto;
    } coll;
    struct {
      const char *name;
      uint64_t commHash;
      const char *func;
      void *buff;
      const char *datatype;
      size_t count;
      int peer;
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
    } kernelCh;
    struct {
      int64_t id;
      void *data;
    } netPlugin;
  };
} ncclProfilerEventDescr_v3_t;

typedef ncclProfilerEventStateArgs_v1_t ncclProfilerEventStateArgs_v3_t;

typedef struct {
  const char *name;
  ncclResult_t (*init)(void **context, int *eActivationMask);
  ncclResult_t (*startEvent)(void *context, void **eHandle,
                             ncclProfilerEventDescr_v3_t *eDescr);
  ncclResult_t (*stopEvent)(void *eHandle);
  ncclResult_t (*recordEventState)(void *eHandle,
                                   ncclProfilerEventState_v3_t eState,
                                   ncclProfilerEventStateArgs_v3_t *eStateArgs);
  ncclResult_t (*finalize)(void *context);
} ncclProfiler_v3_t;

#define D3 ncclProfilerEventDescr_v3_t
_Static_assert(sizeof(D3) == 120, "v3 descriptor size");
_Static_assert(offsetof(D3, coll.name) == 24, "");
_Static_assert(offsetof(D3, coll.commHash) == 32, "");
_Static_assert(offsetof(D3, coll.seqNumber) == 40, "");
_Static_assert(offsetof(D3, coll.func) == 48, "");
_Static_assert(offsetof(D3, coll.sendBuff) == 56, "");
_Static_assert(offsetof(D3, coll.recvBuff) == 64, "");
_Static_assert(offsetof(D3, coll.count) == 72, "");
_Static_assert(offsetof(D3, coll.root) == 80, "");
_Static_assert(offsetof(D3, coll.datatype) == 88, "");
_Static_assert(offsetof(D3, coll.nMaxChannels) == 96, "");
_Static_assert(offsetof(D3, coll.nWarps) == 97, "");
_Static_assert(offsetof(D3, coll.algo) == 104, "");
_Static_assert(offsetof(D3, coll.proto) == 112, "");
_Static_assert(offsetof(D3, kernelCh.channelId) == 24, "");
_Static_assert(offsetof(D3, netPlugin.id) == 24, "");
_Static_assert(offsetof(D3, netPlugin.data) == 32, "");
_Static_assert(sizeof(ncclProfiler_v3_t) == 48, "v3 plugin struct size");
#undef D3

#endif
