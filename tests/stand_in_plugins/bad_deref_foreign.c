/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/stand_in_plugins/bad_deref_foreign.c — BREAKS nccl-behaviour §6.14:
 * reads through `context` and `parentObj` of proxy-side events without
 * comparing proxyOp.pid with getpid(). Harmless for local events; under PXN
 * across processes those pointers belong to another process and must fault
 * (ncclemu --check aliases them into a guard page), so the worker dies.
 */
#include "bad_plugin_common.h"

static volatile int sink; /* written atomically: no race between threads */

static ncclResult_t init(void **c, uint64_t id, int *m, const char *n, int nn,
                         int nr, int r, ncclDebugLogger_t l) {
  (void)id, (void)n, (void)nn, (void)nr, (void)r, (void)l;
  return bad_init_common(c, m, 0xFFFF);
}

static ncclResult_t start(void *c, void **h, ncclProfilerEventDescr_v6_t *d) {
  if (d->type == ncclProfileProxyOp || d->type == ncclProfileProxyStep) {
    /* the rule: never dereference context */
    __atomic_store_n(&sink, *(volatile int *)c, __ATOMIC_RELAXED);
    if (d->type == ncclProfileProxyOp && d->parentObj != NULL)
      /* no pid check */
      __atomic_store_n(&sink, ((volatile bad_event *)d->parentObj)->live,
                       __ATOMIC_RELAXED);
  }
  bad_event *e = bad_new_event(d->type);
  *h = e;
  return ncclSuccess;
}

ncclProfiler_v6_t ncclProfiler_v6 = {
    "bad_deref_foreign", init, start, bad_correct_stop, bad_correct_record,
    bad_correct_finalize};
