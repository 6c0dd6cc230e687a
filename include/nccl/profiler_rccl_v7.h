/* SPDX-License-Identifier: Apache-2.0 */
/*
 * include/nccl/profiler_rccl_v7.h — ROCm RCCL 2.31's profiler ABI v7,
 * written from the facts in docs/nccl-behaviour.md §12: NVIDIA's v7
 * (profiler_v7.h, with `userTag` and KernelPhase on 1 << 15 / state 31)
 * whose `proxyOp` continues after `isSend` with the eight fields RCCL's v6
 * appends (profiler_rccl_v6.h), and RCCL's 24-byte state-args union with
 * `proxyDiag`. ProxyDiag moves to 1 << 16 and its update to state 32.
 * RCCL exports the same symbol name, ncclProfiler_v7; only the host library
 * tells which layout a plugin receives (src/plugin/host_info.c).
 */
#ifndef CCLSCOPE_NCCL_PROFILER_RCCL_V7_H
#define CCLSCOPE_NCCL_PROFILER_RCCL_V7_H

#include "profiler_rccl_v6.h"
#include "profiler_v7.h"

/* RCCL 2.31's ProxyDiagUpdate (31 is KernelPhaseStop there, as in NVIDIA's
 * 2.31); forwarded as such to v6 plugins too. */
#define rcclProfilerProxyDiagUpdate_v7 32

/* The descriptor: NVIDIA's v7 for every member but proxyOp, whose tail is
 * RCCL's v6 one at the same offsets (the prefix and the union's start are
 * v6's), inside v7's size. */
typedef union {
  ncclProfilerEventDescr_v7_t v7;
  rcclProfilerEventDescr_v6_t rccl; /* read proxyOp here */
} rcclProfilerEventDescr_v7_t;

/* The state args: RCCL's 24-byte union, unchanged from its v6. */
typedef rcclProfilerEventStateArgs_v6_t rcclProfilerEventStateArgs_v7_t;

typedef struct {
  const char *name;
  ncclResult_t (*init)(void **context, uint64_t commId, int *eActivationMask,
                       const char *commName, int nNodes, int nranks, int rank,
                       ncclDebugLogger_t logfn);
  ncclResult_t (*startEvent)(void *context, void **eHandle,
                             rcclProfilerEventDescr_v7_t *eDescr);
  ncclResult_t (*stopEvent)(void *eHandle);
  ncclResult_t (*recordEventState)(void *eHandle,
                                   ncclProfilerEventState_v7_t eState,
                                   rcclProfilerEventStateArgs_v7_t *eStateArgs);
  ncclResult_t (*finalize)(void *context);
} rcclProfiler_v7_t;

_Static_assert(sizeof(rcclProfilerEventDescr_v7_t) ==
                   sizeof(ncclProfilerEventDescr_v7_t),
               "RCCL v7 descriptor: v7's size");
_Static_assert(offsetof(ncclProfilerEventDescr_v7_t, proxyOp.isSend) ==
                   offsetof(rcclProfilerEventDescr_v6_t, proxyOp.isSend),
               "RCCL v7: proxyOp where v6 has it");
_Static_assert(offsetof(ncclProfilerEventDescr_v7_t, rank) ==
                   offsetof(rcclProfilerEventDescr_v6_t, rank),
               "");
_Static_assert(sizeof(rcclProfilerEventStateArgs_v7_t) == 24, "RCCL v7 args");

#endif
