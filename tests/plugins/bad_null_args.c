/*
 * tests/plugins/bad_null_args.c — BREAKS call-sequences §3.4/§10.8: reads
 * eStateArgs for every state, but NCCL passes NULL for the GroupApi states
 * 23/24. The worker crashes at the first collective.
 */
#include "bad_plugin_common.h"

static volatile size_t sink;

static ncclResult_t init(void **c, uint64_t id, int *m, const char *n, int nn,
                         int nr, int r, ncclDebugLogger_t l) {
  (void)id, (void)n, (void)nn, (void)nr, (void)r, (void)l;
  return bad_init_common(c, m, 0xFFFF);
}

static ncclResult_t start(void *c, void **h, ncclProfilerEventDescr_v6_t *d) {
  (void)c;
  *h = bad_new_event(d->type);
  return ncclSuccess;
}

static ncclResult_t stop(void *h) {
  (void)h;
  return ncclSuccess;
}

static ncclResult_t record(void *h, ncclProfilerEventState_v6_t s,
                           ncclProfilerEventStateArgs_v6_t *a) {
  (void)h, (void)s;
  sink = a->proxyStep.transSize; /* the bug: a is NULL for 23/24 */
  return ncclSuccess;
}

static ncclResult_t finalize(void *c) {
  (void)c;
  return ncclSuccess;
}

ncclProfiler_v6_t ncclProfiler_v6 = {"bad_null_args", init,    start, stop,
                                     record,          finalize};
