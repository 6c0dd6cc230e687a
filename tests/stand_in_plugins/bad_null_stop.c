/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/stand_in_plugins/bad_null_stop.c — BREAKS nccl-behaviour §3.2:
 * stopEvent reads through its handle without a NULL check. With the NetPlugin
 * bit off (its default mask), every IB QP completion still calls
 * stopEvent(NULL) — the worker crashes.
 */
#include "bad_plugin_common.h"

static volatile int sink; /* written atomically: no race between threads */

static ncclResult_t init(void **c, uint64_t id, int *m, const char *n, int nn,
                         int nr, int r, ncclDebugLogger_t l) {
  (void)id, (void)n, (void)nn, (void)nr, (void)r, (void)l;
  return bad_init_common(c, m, 0xFFFF & ~ncclProfileNetPlugin);
}

static ncclResult_t stop(void *h) {
  /* the bug: h may be NULL. (The store is atomic so that TSan builds see
   * the crash, not a race on `sink` between threads.) */
  __atomic_store_n(&sink, ((volatile bad_event *)h)->live, __ATOMIC_RELAXED);
  return ncclSuccess;
}

ncclProfiler_v6_t ncclProfiler_v6 = {"bad_null_stop",    init,
                                     bad_correct_start,  stop,
                                     bad_correct_record, bad_correct_finalize};
