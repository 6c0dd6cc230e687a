/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/stand_in_plugins/nop_plugin.c — a correct do-nothing profiler plugin:
 * exports ncclProfiler_v1 .. v7, enables every event (or NOP_PLUGIN_MASK),
 * writes a non-NULL handle for every event and ignores everything else. It is
 * the baseline of the emulator's cost measurement and of the sanitizer runs.
 */
#include <stdlib.h>

#include "nccl/profiler.h"

static int nop_context; /* shared by all communicators */
static char nop_event;  /* every handle points here: never dereferenced */

static int initial_mask(void) {
  const char *env = getenv("NOP_PLUGIN_MASK");
  return env ? (int)strtol(env, NULL, 0) : 0xFFFF;
}

static ncclResult_t nop_init_v1(void **context, int *mask) {
  *context = &nop_context;
  /* NCCL reads the mask concurrently from its proxy threads: store it
   * atomically (a plain store is a data race under TSan). */
  __atomic_store_n(mask, initial_mask(), __ATOMIC_RELAXED);
  return ncclSuccess;
}

static ncclResult_t nop_init_v4(void **context, int *mask, const char *name,
                                uint64_t hash, int nNodes, int nranks, int rank,
                                ncclDebugLogger_t logfn) {
  (void)name, (void)hash, (void)nNodes, (void)nranks, (void)rank, (void)logfn;
  return nop_init_v1(context, mask);
}

static ncclResult_t nop_init_v5(void **context, uint64_t commId, int *mask,
                                const char *name, int nNodes, int nranks,
                                int rank, ncclDebugLogger_t logfn) {
  (void)commId, (void)name, (void)nNodes, (void)nranks, (void)rank, (void)logfn;
  return nop_init_v1(context, mask);
}

static ncclResult_t nop_start(void *context, void **eHandle, void *descr) {
  (void)context, (void)descr;
  *eHandle = &nop_event;
  return ncclSuccess;
}

static ncclResult_t nop_stop(void *eHandle) {
  (void)eHandle;
  return ncclSuccess;
}

static ncclResult_t nop_finalize(void *context) {
  (void)context;
  return ncclSuccess;
}

#define NOP_START(V)                                                           \
  static ncclResult_t nop_start_v##V(void *c, void **h,                        \
                                     ncclProfilerEventDescr_v##V##_t *d) {     \
    return nop_start(c, h, d);                                                 \
  }                                                                            \
  static ncclResult_t nop_record_v##V(                                         \
      void *h, ncclProfilerEventState_v##V##_t s,                              \
      ncclProfilerEventStateArgs_v##V##_t *a) {                                \
    (void)h, (void)s, (void)a;                                                 \
    return ncclSuccess;                                                        \
  }
NOP_START(1)
NOP_START(2)
NOP_START(3)
NOP_START(4)
NOP_START(5)
NOP_START(6)
NOP_START(7)

ncclProfiler_v1_t ncclProfiler_v1 = {"nop",    nop_init_v1,   nop_start_v1,
                                     nop_stop, nop_record_v1, nop_finalize};
ncclProfiler_v2_t ncclProfiler_v2 = {"nop",    nop_init_v1,   nop_start_v2,
                                     nop_stop, nop_record_v2, nop_finalize};
ncclProfiler_v3_t ncclProfiler_v3 = {"nop",    nop_init_v1,   nop_start_v3,
                                     nop_stop, nop_record_v3, nop_finalize};
ncclProfiler_v4_t ncclProfiler_v4 = {"nop",    nop_init_v4,   nop_start_v4,
                                     nop_stop, nop_record_v4, nop_finalize};
ncclProfiler_v5_t ncclProfiler_v5 = {"nop",    nop_init_v5,   nop_start_v5,
                                     nop_stop, nop_record_v5, nop_finalize};
ncclProfiler_v6_t ncclProfiler_v6 = {"nop",    nop_init_v5,   nop_start_v6,
                                     nop_stop, nop_record_v6, nop_finalize};
ncclProfiler_v7_t ncclProfiler_v7 = {"nop",    nop_init_v5,   nop_start_v7,
                                     nop_stop, nop_record_v7, nop_finalize};
