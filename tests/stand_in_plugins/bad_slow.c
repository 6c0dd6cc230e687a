/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/stand_in_plugins/bad_slow.c — BREAKS the hot-path rule (invariant 3,
 * docs/invariants.md): sleeps 150 ms inside startEvent for the first ProxyOp
 * (as a plugin doing file I/O or taking a contended lock would).
 * ncclemu --check reports a callback that blocked longer than
 * --max-callback-ms.
 */
#include <time.h>

#include "bad_plugin_common.h"

static int slept;

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

ncclProfiler_v6_t ncclProfiler_v6 = {
    "bad_slow",       bad_correct_init,   start,
    bad_correct_stop, bad_correct_record, bad_correct_finalize};
