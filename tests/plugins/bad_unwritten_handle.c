/*
 * tests/plugins/bad_unwritten_handle.c — BREAKS call-sequences §3.1: does
 * not write *eHandle for every third ProxyStep it decides to ignore, so
 * NCCL keeps the recycled slot's stale handle and later passes it to
 * recordEventState/stopEvent. ncclemu --check reports it.
 */
#include "bad_plugin_common.h"

static uint64_t steps;

static ncclResult_t init(void **c, uint64_t id, int *m, const char *n, int nn,
                         int nr, int r, ncclDebugLogger_t l) {
  (void)id, (void)n, (void)nn, (void)nr, (void)r, (void)l;
  return bad_init_common(c, m, 0xFFFF);
}

static ncclResult_t start(void *c, void **h, ncclProfilerEventDescr_v6_t *d) {
  (void)c;
  if (d->type == ncclProfileProxyStep &&
      __atomic_add_fetch(&steps, 1, __ATOMIC_RELAXED) % 3 == 0)
    return ncclSuccess; /* the bug: "dropped" without *h = NULL */
  *h = bad_new_event(d->type);
  return ncclSuccess;
}

static ncclResult_t stop(void *h) {
  (void)h;
  return ncclSuccess;
}

static ncclResult_t record(void *h, ncclProfilerEventState_v6_t s,
                           ncclProfilerEventStateArgs_v6_t *a) {
  (void)h, (void)s, (void)a;
  return ncclSuccess;
}

static ncclResult_t finalize(void *c) {
  (void)c;
  return ncclSuccess;
}

ncclProfiler_v6_t ncclProfiler_v6 = {
    "bad_unwritten_handle", init, start, stop, record, finalize};
