/*
 * tests/stand_in_plugins/bad_unwritten_handle.c — BREAKS nccl-behaviour §3.1:
 * does not write *eHandle for every third ProxyStep it decides to ignore, so
 * NCCL keeps the recycled slot's stale handle and later passes it to
 * recordEventState/stopEvent. ncclemu --check reports it.
 */
#include "bad_plugin_common.h"

static uint64_t steps;

static ncclResult_t start(void *c, void **h, ncclProfilerEventDescr_v6_t *d) {
  (void)c;
  if (d->type == ncclProfileProxyStep &&
      __atomic_add_fetch(&steps, 1, __ATOMIC_RELAXED) % 3 == 0)
    return ncclSuccess; /* the bug: "dropped" without *h = NULL */
  *h = bad_new_event(d->type);
  return ncclSuccess;
}

ncclProfiler_v6_t ncclProfiler_v6 = {
    "bad_unwritten_handle", bad_correct_init,   start,
    bad_correct_stop,       bad_correct_record, bad_correct_finalize};
