/* SPDX-License-Identifier: Apache-2.0 */
/*
 * include/nccl/profiler_v1.h — profiler ABI v1 (NCCL 2.23-era).
 * Coll/P2p carry uint8_t enums for func/datatype/algo/proto; 16-byte state
 * args. Sizes and offsets pinned from docs/nccl-behaviour.md §1.3.
 */
#ifndef CCLSCOPE_NCCL_PROFILER_V1_H
#define CCLSCOPE_NCCL_PROFILER_V1_H

#include "profiler_common.h"

typedef struct {
  uint8_t type;
  void *parentObj;
  int rank;
  union {
    struct {
      const char *name;
      uint64_t commHash;
      uint64_t seqNumber;
      uint8_t func;
      void const *sendBuff;
      void *recvBuff;
      size_t count;
      int root;
      uint8_t datatype;
      uint32_t op;
      size_t trafficBytes;
      uint8_t nMaxChannels;
      uint8_t nWarps;
      uint8_t algo;
      uint8_t proto;
      int isCollnet;
      int isNvls;
    } coll;
    struct {
      const char *name;
      uint64_t commHash;
      uint8_t func;
      void *buff;
      uint8_t datatype;
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
} ncclProfilerEventDescr_v1_t;

/* v1..v3 state args: 16 bytes. */
typedef union {
  struct {
    size_t transSize;
    int steps;
  } proxyOp;
  struct {
    int appendedProxyOps;
  } proxyCtrl;
} ncclProfilerEventStateArgs_v1_t;

typedef struct {
  const char *name;
  ncclResult_t (*init)(void **context, int *eActivationMask);
  ncclResult_t (*startEvent)(void *context, void **eHandle,
                             ncclProfilerEventDescr_v1_t *eDescr);
  ncclResult_t (*stopEvent)(void *eHandle);
  ncclResult_t (*recordEventState)(void *eHandle,
                                   ncclProfilerEventState_v1_t eState,
                                   ncclProfilerEventStateArgs_v1_t *eStateArgs);
  ncclResult_t (*finalize)(void *context);
} ncclProfiler_v1_t;

#define D1 ncclProfilerEventDescr_v1_t
_Static_assert(sizeof(D1) == 120, "v1 descriptor size");
_Static_assert(offsetof(D1, parentObj) == 8, "");
_Static_assert(offsetof(D1, rank) == 16, "");
_Static_assert(offsetof(D1, coll.name) == 24, "");
_Static_assert(offsetof(D1, coll.commHash) == 32, "");
_Static_assert(offsetof(D1, coll.seqNumber) == 40, "");
_Static_assert(offsetof(D1, coll.func) == 48, "");
_Static_assert(offsetof(D1, coll.sendBuff) == 56, "");
_Static_assert(offsetof(D1, coll.recvBuff) == 64, "");
_Static_assert(offsetof(D1, coll.count) == 72, "");
_Static_assert(offsetof(D1, coll.root) == 80, "");
_Static_assert(offsetof(D1, coll.datatype) == 84, "");
_Static_assert(offsetof(D1, coll.op) == 88, "");
_Static_assert(offsetof(D1, coll.trafficBytes) == 96, "");
_Static_assert(offsetof(D1, coll.nMaxChannels) == 104, "");
_Static_assert(offsetof(D1, coll.nWarps) == 105, "");
_Static_assert(offsetof(D1, coll.algo) == 106, "");
_Static_assert(offsetof(D1, coll.proto) == 107, "");
_Static_assert(offsetof(D1, coll.isCollnet) == 108, "");
_Static_assert(offsetof(D1, coll.isNvls) == 112, "");
_Static_assert(offsetof(D1, p2p.func) == 40, "");
_Static_assert(offsetof(D1, p2p.buff) == 48, "");
_Static_assert(offsetof(D1, p2p.datatype) == 56, "");
_Static_assert(offsetof(D1, p2p.count) == 64, "");
_Static_assert(offsetof(D1, p2p.peer) == 72, "");
_Static_assert(offsetof(D1, proxyOp.pid) == 24, "");
_Static_assert(offsetof(D1, proxyOp.channelId) == 28, "");
_Static_assert(offsetof(D1, proxyOp.peer) == 32, "");
_Static_assert(offsetof(D1, proxyOp.nSteps) == 36, "");
_Static_assert(offsetof(D1, proxyOp.chunkSize) == 40, "");
_Static_assert(offsetof(D1, proxyOp.isSend) == 44, "");
_Static_assert(offsetof(D1, proxyStep.step) == 24, "");
_Static_assert(sizeof(ncclProfilerEventStateArgs_v1_t) == 16, "v1 args size");
_Static_assert(sizeof(ncclProfiler_v1_t) == 48, "v1 plugin struct size");
#undef D1

#endif
