/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/plugin/plugin_driver.h — loading the real plugin the way NCCL does
 * (dlopen RTLD_NOW|RTLD_LOCAL, dlsym ncclProfiler_vN) in a fresh output
 * folder, and finding what it wrote. Also provides the `ncclGetVersion`
 * symbol the plugin looks up (the test executables export it), whose value
 * a test sets with driver_set_nccl_version().
 */
#ifndef CCLSCOPE_TEST_PLUGIN_DRIVER_H
#define CCLSCOPE_TEST_PLUGIN_DRIVER_H

#include <stdbool.h>

#include "nccl/profiler.h"
#include "trace_read.h"

typedef struct {
  void *lib;
  char dir[4096];
  ncclProfiler_v1_t *v1;
  ncclProfiler_v2_t *v2;
  ncclProfiler_v3_t *v3;
  ncclProfiler_v4_t *v4;
  ncclProfiler_v5_t *v5;
  ncclProfiler_v6_t *v6;
  ncclProfiler_v7_t *v7;
} driver_t;

/* 0 = no ncclGetVersion answer (host unknown). */
void driver_set_nccl_version(int code);

/* dlopen the plugin with CCLSCOPE_DIR pointing at a new temporary folder. */
void driver_open(driver_t *d);
/* dlopen again in the same folder (reload). */
void driver_reopen(driver_t *d);
/* dlclose; true if the library is really gone afterwards. */
bool driver_close(driver_t *d);
/* Load the single trace file in the folder (fails the test otherwise). */
void driver_load_single_trace(const driver_t *d, trace_t *t);
/* Remove the folder. */
void driver_cleanup(driver_t *d);

#endif
