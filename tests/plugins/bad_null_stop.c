/*
 * tests/plugins/bad_null_stop.c — BREAKS call-sequences §3.2: stopEvent
 * reads through its handle without a NULL check. With the NetPlugin bit
 * off (its default mask), every IB QP completion still calls
 * stopEvent(NULL) — the worker crashes.
 */
#include "bad_plugin_common.h"

static volatile int sink;

static ncclResult_t init(void **c, uint64_t id, int *m, const char *n, int nn,
                         int nr, int r, ncclDebugLogger_t l) {
  (void)id, (void)n, (void)nn, (void)nr, (void)r, (void)l;
  return bad_init_common(c, m, 0xFFFF & ~ncclProfileNetPlugin);
}

static ncclResult_t start(void *c, void **h, ncclProfilerEventDescr_v6_t *d) {
  (void)c;
  *h = bad_new_event(d->type);
  return ncclSuccess;
}

static ncclResult_t stop(void *h) {
  sink = ((volatile bad_event *)h)->live; /* the bug: h may be NULL */
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

ncclProfiler_v6_t ncclProfiler_v6 = {"bad_null_stop", init,    start, stop,
                                     record,          finalize};
