/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/hot/bridge_roctx.c — the ROCTX bridge (CCLSCOPE_ROCTX=1 under
 * RCCL): the NVTX bridge's twin for ROCm. NCCL's host-side events become
 * ROCTX push/pop ranges and control-API marks ROCTX marks, named as the
 * NVTX bridge names them (docs/integrations.md), so rocprofv3 or
 * rocprof-sys show them next to RCCL's kernels.
 *
 * Owns: deciding whether the bridge may run on this host, finding ROCTX
 * (dlopen, never linked: the plugin must load where ROCm is absent), its
 * three functions, what goes on each thread's stack of pushed ranges (in
 * its ring, bridge.h), and the failure counters, reported once at session
 * end.
 *
 * What ROCTX cannot carry: it has no domain, category, colour or payload,
 * only a message. Ranges keep the NVTX messages (NCCL's function name, else
 * the event type); a step mark says its number in the message ("step 12"),
 * formatted on the application's thread that called cclscope_step, never
 * on NCCL's. roctxRangeStartA/roctxRangeStop (ranges that may end on
 * another thread) are not used: they would need a table from handle to
 * range id, and the NVTX bridge's per-thread rule (bridge.h) already
 * covers the events NCCL stops elsewhere.
 */
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bridge_roctx.h"
#include "handle.h"
#include "log.h"
#include "nccl_names.h"
#include "optional_lib.h"

/* ROCTX's functions (roctx.h; the same C names in the legacy libroctx64 and
 * in rocprofiler-sdk-roctx): push and pop return the 0-based nesting level,
 * negative on error (pop: no range open on this thread). */
typedef int (*roctx_push_fn)(const char *message);
typedef int (*roctx_pop_fn)(void);
typedef void (*roctx_mark_fn)(const char *message);

/* The legacy library first (what ROCm releases have shipped since 3.x),
 * then rocprofiler-sdk's; rocprofv3 answers both. */
static const char *const library_names[] = {"libroctx64.so", "libroctx64.so.4",
                                            "librocprofiler-sdk-roctx.so",
                                            "librocprofiler-sdk-roctx.so.1"};

/* Found once per load of this library; ROCTX is never closed (a thread
 * may still be inside a call when the last finalize runs). */
static void *library;
static roctx_push_fn push_range;
static roctx_pop_fn pop_range;
static roctx_mark_fn put_mark;
static char library_path[512];

/* One line per process for each reason the bridge stays off. */
static _Atomic bool told_not_rccl;
static _Atomic bool told_missing;

/* Counted on NCCL's threads, reported at session end. */
static _Atomic uint64_t skipped;     /* the thread's stack was full */
static _Atomic uint64_t failed_push; /* ROCTX returned < 0 */
static _Atomic uint64_t failed_pop;  /* ours was popped by someone else */

static bool resolve(void *lib, const char *name) {
  roctx_push_fn push;
  roctx_pop_fn pop;
  roctx_mark_fn mk;
  *(void **)&push = dlsym(lib, "roctxRangePushA");
  *(void **)&pop = dlsym(lib, "roctxRangePop");
  *(void **)&mk = dlsym(lib, "roctxMarkA");
  if (!push || !pop || !mk)
    return false;
  library = lib;
  push_range = push;
  pop_range = pop;
  put_mark = mk;
  snprintf(library_path, sizeof library_path, "%s", name);
  return true;
}

/* CCLSCOPE_ROCTX_LIBRARY names the library; else a ROCTX already in the
 * process (the application's, or the profiler's) wins over loading one. */
static bool find_roctx(char *tried, size_t tried_len) {
  return cs_optional_lib_find("CCLSCOPE_ROCTX_LIBRARY", library_names,
                              sizeof library_names / sizeof *library_names,
                              resolve, tried, tried_len);
}

bool cs_roctx_session_begin(bool forced, bool host_is_rccl,
                            const char *host_name) {
  if (!forced && !host_is_rccl) {
    if (atomic_exchange(&told_not_rccl, true))
      return false;
    if (strcmp(host_name, "nccl") == 0)
      cs_log_info("CCLSCOPE_ROCTX=1 is ignored: the host is NVIDIA's NCCL "
                  "(its ranges: CCLSCOPE_NVTX=1)");
    else
      cs_log_warn("CCLSCOPE_ROCTX=1 is ignored: the host (%s) was not "
                  "recognised as RCCL (CCLSCOPE_HOST=rccl says it is; "
                  "CCLSCOPE_ROCTX=force uses ROCTX on any host)",
                  host_name);
    return false;
  }
  if (library)
    return true;
  char tried[1024];
  if (!find_roctx(tried, sizeof tried)) {
    if (!atomic_exchange(&told_missing, true))
      cs_log_warn("CCLSCOPE_ROCTX: no usable ROCTX library (tried %s); no "
                  "ROCTX ranges",
                  tried);
    return false;
  }
  cs_log_info("ROCTX ranges on (%s)", library_path);
  return true;
}

void cs_roctx_session_end(void) {
  uint64_t full = atomic_exchange(&skipped, 0);
  uint64_t pushes = atomic_exchange(&failed_push, 0);
  uint64_t pops = atomic_exchange(&failed_pop, 0);
  if (full || pushes || pops)
    cs_log_warn("ROCTX: %llu ranges were not pushed (more than %d open on one "
                "thread), %llu pushes and %llu pops failed",
                (unsigned long long)full, CS_BRIDGE_DEPTH,
                (unsigned long long)pushes, (unsigned long long)pops);
}

/* The NVTX bridge's message: NCCL's function name when the event has one,
 * else the event type's name. */
static const char *range_name(const cs_rec_start *rec) {
  int et = rec->h.etype;
  const cs_payload *p = &rec->p;
  const char *func = NULL;
  switch (et) {
  case CS_EV_COLL_API:
  case CS_EV_P2P_API:
    func = p->coll_api.func;
    break;
  case CS_EV_COLL:
    func = p->coll.func;
    break;
  case CS_EV_P2P:
    func = p->p2p.func;
    break;
  case CS_EV_CE_COLL:
    func = p->ce_coll.func;
    break;
  default: /* GroupApi, KernelLaunch, Group */
    break;
  }
  return func ? func : nccl_event_name(et);
}

void cs_roctx_start(cs_bridge_thread *t, const cs_rec_start *rec,
                    uint64_t handle) {
  if (!cs_bridge_stack_push(&t->roctx, handle)) {
    atomic_fetch_add_explicit(&skipped, 1, memory_order_relaxed);
    return;
  }
  if (push_range(range_name(rec)) < 0) {
    atomic_fetch_add_explicit(&failed_push, 1, memory_order_relaxed);
    cs_bridge_stack_unwind(&t->roctx, handle); /* nothing to pop later */
  }
}

void cs_roctx_stop(cs_bridge_thread *t, uint64_t handle) {
  for (uint32_t n = cs_bridge_stack_unwind(&t->roctx, handle); n > 0; n--)
    if (pop_range() < 0)
      atomic_fetch_add_explicit(&failed_pop, 1, memory_order_relaxed);
}

void cs_roctx_mark(int64_t step, const char *label) {
  if (step >= 0) {
    char text[32];
    snprintf(text, sizeof text, "step %lld", (long long)step);
    put_mark(text);
  } else {
    put_mark(label ? label : "");
  }
}
