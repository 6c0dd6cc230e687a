/*
 * bench/nop_plugin.c — the baseline every overhead figure is measured
 * against: a correct profiler plugin that does nothing. It exports
 * ncclProfiler_v6, writes a non-NULL handle for every event (so NCCL and
 * the benchmark take the same paths as with a real plugin) and returns.
 */
#include <stdint.h>

#include "nccl/profiler.h"

static int context_token;

static ncclResult_t nop_init(void **context, uint64_t comm_id, int *mask,
                             const char *name, int nnodes, int nranks, int rank,
                             ncclDebugLogger_t logfn) {
  *context = &context_token;
  if (mask)
    *mask = 0xFFFF;
  return ncclSuccess;
}

static ncclResult_t nop_start(void *context, void **handle,
                              ncclProfilerEventDescr_v6_t *descr) {
  *handle = (void *)(uintptr_t)1;
  return ncclSuccess;
}

static ncclResult_t nop_stop(void *handle) {
  return ncclSuccess;
}

static ncclResult_t nop_state(void *handle, ncclProfilerEventState_v6_t state,
                              ncclProfilerEventStateArgs_v6_t *args) {
  return ncclSuccess;
}

static ncclResult_t nop_finalize(void *context) {
  return ncclSuccess;
}

__attribute__((visibility("default"))) ncclProfiler_v6_t ncclProfiler_v6 = {
    "nop", nop_init, nop_start, nop_stop, nop_state, nop_finalize};
