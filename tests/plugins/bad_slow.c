/*
 * tests/plugins/bad_slow.c — BREAKS the brief's hot-path invariant: sleeps
 * 150 ms inside startEvent for the first ProxyOp (as a plugin doing file
 * I/O or taking a contended lock would). ncclemu --check reports a callback
 * that blocked longer than --max-callback-ms.
 */
#include <time.h>

#include "bad_plugin_common.h"

static int slept;

static ncclResult_t init(void **c, uint64_t id, int *m, const char *n, int nn,
                         int nr, int r, ncclDebugLogger_t l) {
  (void)id, (void)n, (void)nn, (void)nr, (void)r, (void)l;
  return bad_init_common(c, m, 0xFFFF);
}

static ncclResult_t start(void *c, void **h, ncclProfilerEventDescr_v6_t *d) {
  (void)c;
  if (d->type == ncclProfileProxyOp &&
      __atomic_exchange_n(&slept, 1, __ATOMIC_RELAXED) == 0) {
    struct timespec ts = {0, 150 * 1000 * 1000};
    nanosleep(&ts, NULL); /* the bug */
  }
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

ncclProfiler_v6_t ncclProfiler_v6 = {"bad_slow", init,   start,
                                     stop,       record, finalize};
