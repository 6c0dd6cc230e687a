/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/stand_in_plugins/bad_init_error.c — BREAKS nccl-behaviour §2: returns
 * an error from init for every second communicator of the process. NCCL then
 * unloads once, continues to call the plugin for that comm, and unloads
 * again at its finalize: the library is dlclose'd while other comms live.
 * ncclemu --check reports the error; the initfail scenario shows the rest.
 */
#include "bad_plugin_common.h"

static int inits;

static ncclResult_t init(void **c, uint64_t id, int *m, const char *n, int nn,
                         int nr, int r, ncclDebugLogger_t l) {
  (void)id, (void)n, (void)nn, (void)nr, (void)r, (void)l;
  bad_init_common(c, m, 0xFFFF);
  if (__atomic_add_fetch(&inits, 1, __ATOMIC_RELAXED) % 2 == 0)
    return ncclInternalError; /* the bug */
  return ncclSuccess;
}

ncclProfiler_v6_t ncclProfiler_v6 = {"bad_init_error",   init,
                                     bad_correct_start,  bad_correct_stop,
                                     bad_correct_record, bad_correct_finalize};
