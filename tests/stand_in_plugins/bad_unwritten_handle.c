/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/stand_in_plugins/bad_unwritten_handle.c — leaves *eHandle unwritten
 * for some events of one type, chosen by BAD_UNWRITTEN:
 *   proxystep (default) — BREAKS nccl-behaviour §3.1: every third ProxyStep
 *     is "dropped" without writing, so NCCL keeps the recycled slot's stale
 *     handle and later passes it to recordEventState/stopEvent;
 *   proxyctrl — BREAKS it too: every ProxyCtrl (there are few); NCCL's
 *     slot is an uninitialised local, so it would pass garbage (§12);
 *   cesync, cebatch — harmless: every CeSync (CeBatch) is left unwritten,
 *     but NCCL's slot is a fresh NULL local, so NCCL sees NULL and calls
 *     nothing more for it (§12). ncclemu --check must not report these;
 *   kernelphase, kernelch — every second KernelPhase (KernelCh) is left
 *     unwritten: harmless under NCCL 2.31, whose profiler thread starts each
 *     phase into a fresh NULL local and each KernelCh into an op cleared
 *     when it was posted (§12); BREAKS §3.1 for KernelCh before 2.31, where
 *     the proxy's recycled sub-args slot keeps the stale handle.
 * It exports v6 and v7 (NCCL 2.31 probes v7 first; KernelPhase needs it).
 */
#include <string.h>

#include "bad_plugin_common.h"

static uint64_t seen;

static uint64_t unwritten_type(void) {
  const char *env = getenv("BAD_UNWRITTEN");
  if (env == NULL || strcmp(env, "proxystep") == 0)
    return ncclProfileProxyStep;
  if (strcmp(env, "proxyctrl") == 0)
    return ncclProfileProxyCtrl;
  if (strcmp(env, "cesync") == 0)
    return ncclProfileCeSync;
  if (strcmp(env, "cebatch") == 0)
    return ncclProfileCeBatch;
  if (strcmp(env, "kernelphase") == 0)
    return ncclProfileKernelPhase;
  if (strcmp(env, "kernelch") == 0)
    return ncclProfileKernelCh;
  return ncclProfileProxyStep;
}

static bool leave_unwritten(uint64_t type) {
  if (type != unwritten_type())
    return false;
  if (type == ncclProfileProxyStep)
    return __atomic_add_fetch(&seen, 1, __ATOMIC_RELAXED) % 3 == 0;
  if (type == ncclProfileKernelPhase || type == ncclProfileKernelCh)
    return __atomic_add_fetch(&seen, 1, __ATOMIC_RELAXED) % 2 == 0;
  return true; /* every one (CeSync/CeBatch: harmless, a fresh NULL slot) */
}

static ncclResult_t start(void *c, void **h, ncclProfilerEventDescr_v6_t *d) {
  (void)c;
  if (leave_unwritten(d->type))
    return ncclSuccess; /* "dropped" without *h = NULL */
  *h = bad_new_event(d->type);
  return ncclSuccess;
}

static ncclResult_t start_v7(void *c, void **h,
                             ncclProfilerEventDescr_v7_t *d) {
  (void)c;
  if (leave_unwritten(d->type))
    return ncclSuccess; /* "dropped" without *h = NULL */
  *h = bad_new_event(d->type);
  return ncclSuccess;
}

ncclProfiler_v6_t ncclProfiler_v6 = {
    "bad_unwritten_handle", bad_correct_init,   start,
    bad_correct_stop,       bad_correct_record, bad_correct_finalize};

ncclProfiler_v7_t ncclProfiler_v7 = {
    "bad_unwritten_handle", bad_correct_init,   start_v7,
    bad_correct_stop,       bad_correct_record, bad_correct_finalize};
