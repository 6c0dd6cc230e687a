/* SPDX-License-Identifier: Apache-2.0 */
/*
 * include/nccl/profiler_v2.h — profiler ABI v2: strings replace v1's enums;
 * coll keeps name/commHash/trafficBytes. State args as v1 (16 bytes).
 * Sizes and offsets pinned from docs/nccl-behaviour.md §1.3.
 */
#ifndef CCLSCOPE_NCCL_PROFILER_V2_H
#define CCLSCOPE_NCCL_PROFILER_V2_H

#include "profiler_v1.h"

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
      size_t trafficBytes;
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
  };
} ncclProfilerEventDescr_v2_t;

typedef ncclProfilerEventStateArgs_v1_t ncclProfilerEventStateArgs_v2_t;

typedef struct {
  const char *name;
  ncclResult_t (*init)(void **context, int *eActivationMask);
  ncclResult_t (*startEvent)(void *context, void **eHandle,
                             ncclProfilerEventDescr_v2_t *eDescr);
  ncclResult_t (*stopEvent)(void *eHandle);
  ncclResult_t (*recordEventState)(void *eHandle,
                                   ncclProfilerEventState_v2_t eState,
                                   ncclProfilerEventStateArgs_v2_t *eStateArgs);
  ncclResult_t (*finalize)(void *context);
} ncclProfiler_v2_t;

#define D2 ncclProfilerEventDescr_v2_t
_Static_assert(sizeof(D2) == 128, "v2 descriptor size");
_Static_assert(offsetof(D2, coll.seqNumber) == 40, "");
_Static_assert(offsetof(D2, coll.func) == 48, "");
_Static_assert(offsetof(D2, coll.count) == 72, "");
_Static_assert(offsetof(D2, coll.root) == 80, "");
_Static_assert(offsetof(D2, coll.datatype) == 88, "");
_Static_assert(offsetof(D2, coll.trafficBytes) == 96, "");
_Static_assert(offsetof(D2, coll.nMaxChannels) == 104, "");
_Static_assert(offsetof(D2, coll.nWarps) == 105, "");
_Static_assert(offsetof(D2, coll.algo) == 112, "");
_Static_assert(offsetof(D2, coll.proto) == 120, "");
_Static_assert(offsetof(D2, p2p.func) == 40, "");
_Static_assert(offsetof(D2, p2p.buff) == 48, "");
_Static_assert(offsetof(D2, p2p.datatype) == 56, "");
_Static_assert(offsetof(D2, p2p.count) == 64, "");
_Static_assert(offsetof(D2, p2p.peer) == 72, "");
_Static_assert(offsetof(D2, proxyOp.isSend) == 44, "");
_Static_assert(sizeof(ncclProfiler_v2_t) == 48, "v2 plugin struct size");
#undef D2

#endif
