/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/plugin/plugin_driver.c — see plugin_driver.h.
 */
#include "plugin_driver.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef CCLSCOPE_PLUGIN_PATH
#error "CCLSCOPE_PLUGIN_PATH must name the built plugin"
#endif

static int fake_version;

void driver_set_nccl_version(int code) {
  fake_version = code;
}

/* What NCCL exports; the plugin finds it with dlsym(RTLD_DEFAULT, ...). */
__attribute__((visibility("default"))) int ncclGetVersion(int *version);
int ncclGetVersion(int *version) {
  if (!fake_version)
    return 3; /* ncclInternalError: "unknown" */
  *version = fake_version;
  return 0;
}

static void load_symbols(driver_t *d) {
  d->lib = dlopen(CCLSCOPE_PLUGIN_PATH, RTLD_NOW | RTLD_LOCAL);
  if (!d->lib)
    fail_msg("dlopen %s: %s", CCLSCOPE_PLUGIN_PATH, dlerror());
  d->v1 = dlsym(d->lib, "ncclProfiler_v1");
  d->v2 = dlsym(d->lib, "ncclProfiler_v2");
  d->v3 = dlsym(d->lib, "ncclProfiler_v3");
  d->v4 = dlsym(d->lib, "ncclProfiler_v4");
  d->v5 = dlsym(d->lib, "ncclProfiler_v5");
  d->v6 = dlsym(d->lib, "ncclProfiler_v6");
  d->v7 = dlsym(d->lib, "ncclProfiler_v7");
  assert_non_null(d->v1);
  assert_non_null(d->v7);
}

void driver_open(driver_t *d) {
  memset(d, 0, sizeof *d);
  test_make_tmpdir(d->dir, sizeof d->dir);
  setenv("CCLSCOPE_DIR", d->dir, 1);
  load_symbols(d);
}

void driver_reopen(driver_t *d) {
  setenv("CCLSCOPE_DIR", d->dir, 1);
  load_symbols(d);
}

bool driver_close(driver_t *d) {
  dlclose(d->lib);
  d->lib = NULL;
  void *again = dlopen(CCLSCOPE_PLUGIN_PATH, RTLD_NOW | RTLD_NOLOAD);
  if (again) {
    dlclose(again);
    return false;
  }
  return true;
}

void driver_load_single_trace(const driver_t *d, trace_t *t) {
  char paths[8][4096];
  size_t n = trace_find_files(d->dir, paths, 8);
  if (n != 1)
    fail_msg("expected one trace file in %s, found %zu", d->dir, n);
  assert_true(trace_load(t, paths[0]));
  if (t->bad_lines || t->crossing_lines || !t->ends_with_newline)
    fail_msg("%s: %zu bad lines, %zu crossing lines, newline at end: %d",
             t->path, t->bad_lines, t->crossing_lines, t->ends_with_newline);
}

void driver_cleanup(driver_t *d) {
  test_remove_tree(d->dir);
  unsetenv("CCLSCOPE_DIR");
}
