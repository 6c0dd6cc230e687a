/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/stand_in_plugins/proxytrace_sibling.c — stands in for RCCL's
 * librccl-profiler-proxytrace.so (docs/nccl-behaviour.md §12): with
 * RCCL_ENABLE_PROXY_TRACE set and no profiler library opened, RCCL opens it
 * from the folder of its own library and uses it as the profiler plugin;
 * in whichever library RCCL loaded it looks up ncclProfilerProxyTraceDump.
 * So it is a minimal correct v6 plugin (no events: its mask is 0; a start
 * writes NULL) that also exports that function, which logs one line
 * through the logger it is given. Built as librccl-profiler-proxytrace.so
 * alone in a build folder of its own ("proxytrace" beside
 * "stand_in_plugins"), so a test chooses where it lies.
 */
#include <stddef.h>

#include "nccl/profiler.h"

void ncclProfilerProxyTraceDump(void *profilerContext, ncclDebugLogger_t logfn);

__attribute__((visibility("default"))) void
ncclProfilerProxyTraceDump(void *profilerContext, ncclDebugLogger_t logfn) {
  if (logfn != NULL)
    logfn(NCCL_LOG_INFO, 0, __FILE__, __LINE__,
          "proxytrace stand-in: dump for context %p", profilerContext);
}

static int contexts[64];
static int ncontexts;

static ncclResult_t init(void **context, uint64_t commId, int *eActivationMask,
                         const char *commName, int nNodes, int nranks, int rank,
                         ncclDebugLogger_t logfn) {
  (void)commId, (void)commName, (void)nNodes, (void)nranks, (void)rank;
  (void)logfn;
  int i = __atomic_fetch_add(&ncontexts, 1, __ATOMIC_RELAXED);
  *context = &contexts[i % 64];
  __atomic_store_n(eActivationMask, 0, __ATOMIC_RELAXED);
  return ncclSuccess;
}

static ncclResult_t start(void *context, void **eHandle,
                          ncclProfilerEventDescr_v6_t *eDescr) {
  (void)context, (void)eDescr;
  *eHandle = NULL;
  return ncclSuccess;
}

static ncclResult_t stop(void *eHandle) {
  (void)eHandle;
  return ncclSuccess;
}

static ncclResult_t record(void *eHandle, ncclProfilerEventState_v6_t eState,
                           ncclProfilerEventStateArgs_v6_t *eStateArgs) {
  (void)eHandle, (void)eState, (void)eStateArgs;
  return ncclSuccess;
}

static ncclResult_t finalize(void *context) {
  (void)context;
  return ncclSuccess;
}

__attribute__((visibility("default"))) ncclProfiler_v6_t ncclProfiler_v6 = {
    "proxytrace-stand-in", init, start, stop, record, finalize};
