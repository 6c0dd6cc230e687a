/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/stand_in_plugins/bad_null_args.c — BREAKS nccl-behaviour §3.4/§10.8:
 * reads eStateArgs for every state, but NCCL passes NULL for the GroupApi
 * states 23/24. The worker crashes at the first collective.
 */
#include "bad_plugin_common.h"

static volatile size_t sink; /* written atomically: no race between threads */

static ncclResult_t record(void *h, ncclProfilerEventState_v6_t s,
                           ncclProfilerEventStateArgs_v6_t *a) {
  (void)h, (void)s;
  /* the bug: a is NULL for 23/24 (an atomic store: no race on `sink`) */
  __atomic_store_n(&sink, a->proxyStep.transSize, __ATOMIC_RELAXED);
  return ncclSuccess;
}

ncclProfiler_v6_t ncclProfiler_v6 = {
    "bad_null_args",  bad_correct_init, bad_correct_start,
    bad_correct_stop, record,           bad_correct_finalize};
