/* SPDX-License-Identifier: Apache-2.0 */
/*
 * include/nccl/profiler_v4.h — profiler ABI v4: coll/p2p lose name/commHash,
 * gain nChannels; KernelCh gets pTimer; 8-byte state args; init receives the
 * communicator's details (mask BEFORE commHash — v5 swaps them).
 * Sizes and offsets pinned from docs/nccl-behaviour.md §1.3–§1.5.
 */
#ifndef CCLSCOPE_NCCL_PROFILER_V4_H
#define CCLSCOPE_NCCL_PROFILER_V4_H

#include "profiler_v3.h"

typedef struct {
  uint8_t type;
  void *parentObj;
  int rank;
  union {
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
    } coll;
    struct {
      const char *func;
      void *buff;
      const char *datatype;
      size_t count;
      int peer;
      uint8_t nChannels;
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
} ncclProfilerEventDescr_v4_t;

/* v4..v7 state args: 8 bytes. */
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
} ncclProfilerEventStateArgs_v4_t;

typedef struct {
  const char *name;
  ncclResult_t (*init)(void **context, int *eActivationMask,
                       const char *commName, uint64_t commHash, int nNodes,
                       int nranks, int rank, ncclDebugLogger_t logfn);
  ncclResult_t (*startEvent)(void *context, void **eHandle,
                             ncclProfilerEventDescr_v4_t *eDescr);
  ncclResult_t (*stopEvent)(void *eHandle);
  ncclResult_t (*recordEventState)(void *eHandle,
                                   ncclProfilerEventState_v4_t eState,
                                   ncclProfilerEventStateArgs_v4_t *eStateArgs);
  ncclResult_t (*finalize)(void *context);
} ncclProfiler_v4_t;

#define D4 ncclProfilerEventDescr_v4_t
_Static_assert(sizeof(D4) == 104, "v4 descriptor size");
_Static_assert(offsetof(D4, coll.seqNumber) == 24, "");
_Static_assert(offsetof(D4, coll.func) == 32, "");
_Static_assert(offsetof(D4, coll.sendBuff) == 40, "");
_Static_assert(offsetof(D4, coll.recvBuff) == 48, "");
_Static_assert(offsetof(D4, coll.count) == 56, "");
_Static_assert(offsetof(D4, coll.root) == 64, "");
_Static_assert(offsetof(D4, coll.datatype) == 72, "");
_Static_assert(offsetof(D4, coll.nChannels) == 80, "");
_Static_assert(offsetof(D4, coll.nWarps) == 81, "");
_Static_assert(offsetof(D4, coll.algo) == 88, "");
_Static_assert(offsetof(D4, coll.proto) == 96, "");
_Static_assert(offsetof(D4, p2p.func) == 24, "");
_Static_assert(offsetof(D4, p2p.buff) == 32, "");
_Static_assert(offsetof(D4, p2p.datatype) == 40, "");
_Static_assert(offsetof(D4, p2p.count) == 48, "");
_Static_assert(offsetof(D4, p2p.peer) == 56, "");
_Static_assert(offsetof(D4, p2p.nChannels) == 60, "");
_Static_assert(offsetof(D4, proxyOp.pid) == 24, "");
_Static_assert(offsetof(D4, proxyOp.channelId) == 28, "");
_Static_assert(offsetof(D4, proxyOp.peer) == 32, "");
_Static_assert(offsetof(D4, proxyOp.nSteps) == 36, "");
_Static_assert(offsetof(D4, proxyOp.chunkSize) == 40, "");
_Static_assert(offsetof(D4, proxyOp.isSend) == 44, "");
_Static_assert(offsetof(D4, kernelCh.channelId) == 24, "");
_Static_assert(offsetof(D4, kernelCh.pTimer) == 32, "");
_Static_assert(offsetof(D4, netPlugin.id) == 24, "");
_Static_assert(offsetof(D4, netPlugin.data) == 32, "");
_Static_assert(sizeof(ncclProfilerEventStateArgs_v4_t) == 8, "v4 args size");
_Static_assert(sizeof(ncclProfiler_v4_t) == 48, "v4 plugin struct size");
#undef D4

#endif
