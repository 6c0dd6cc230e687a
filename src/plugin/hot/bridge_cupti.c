/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/hot/bridge_cupti.c — the CUPTI bridge (CCLSCOPE_CUPTI=1): around
 * each KernelLaunch (start -> stop on the launching thread) an external
 * correlation id equal to the event's trace `id` is pushed, so a
 * CUPTI-based tool finds, in its CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION
 * records, which cclscope event launched each NCCL kernel
 * (docs/integrations.md).
 *
 * Owns: finding libcupti (dlopen, never linked), the two functions, what
 * goes on each thread's stack of pushed ids (in its ring, bridge.h), and
 * the error counters. It never subscribes to CUPTI (cuptiSubscribe): a
 * process may have one subscriber, and that belongs to the user's profiler
 * (Nsight, PyTorch's Kineto).
 * Failures are counted on NCCL's threads and reported once, at session end.
 */
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bridge_cupti.h"
#include "handle.h"
#include "log.h"
#include "optional_lib.h"

/* Facts from CUPTI's cupti_activity.h / cupti_result.h (our declarations):
 * CUpti_ExternalCorrelationKind CUSTOM2 = 5 (CUSTOM0 and CUSTOM1 are the
 * ones PyTorch's Kineto uses), CUPTI_SUCCESS = 0; both functions return a
 * CUptiResult (an enum: int) and take the kind as that enum. */
#define CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2 5
#define CUPTI_SUCCESS 0
typedef int (*cupti_push_fn)(int kind, uint64_t id);
typedef int (*cupti_pop_fn)(int kind, uint64_t *last_id);

static const char *const library_names[] = {"libcupti.so", "libcupti.so.13",
                                            "libcupti.so.12", "libcupti.so.11"};

/* Found once per load of this library; libcupti is never closed (a thread
 * may still be inside a call when the last finalize runs). */
static void *library;
static cupti_push_fn push_id;
static cupti_pop_fn pop_id;
static char library_path[512];

static _Atomic uint64_t failed_calls;
static _Atomic int first_error;       /* CUptiResult of the first */
static _Atomic uint64_t foreign_pops; /* popped an id that is not ours */

static bool resolve(void *lib, const char *name) {
  cupti_push_fn push;
  cupti_pop_fn pop;
  *(void **)&push = dlsym(lib, "cuptiActivityPushExternalCorrelationId");
  *(void **)&pop = dlsym(lib, "cuptiActivityPopExternalCorrelationId");
  if (!push || !pop)
    return false;
  library = lib;
  push_id = push;
  pop_id = pop;
  snprintf(library_path, sizeof library_path, "%s", name);
  return true;
}

/* CCLSCOPE_CUPTI_LIBRARY names the library; else the CUPTI already in the
 * process (the one the user's profiler uses) wins over loading one. */
static bool find_cupti(char *tried, size_t tried_len) {
  return cs_optional_lib_find("CCLSCOPE_CUPTI_LIBRARY", library_names,
                              sizeof library_names / sizeof *library_names,
                              resolve, tried, tried_len);
}

bool cs_cupti_session_begin(void) {
  if (library)
    return true;
  char tried[1024];
  if (!find_cupti(tried, sizeof tried)) {
    cs_log_info("CCLSCOPE_CUPTI=1: no usable CUPTI library (tried %s); no "
                "external correlation ids",
                tried);
    return false;
  }
  cs_log_info("CUPTI external correlation on (%s, kind CUSTOM2 = trace id of "
              "each KernelLaunch)",
              library_path);
  return true;
}

void cs_cupti_session_end(void) {
  uint64_t failed = atomic_exchange(&failed_calls, 0);
  uint64_t foreign = atomic_exchange(&foreign_pops, 0);
  int err = atomic_exchange(&first_error, 0);
  if (failed || foreign)
    cs_log_warn("CUPTI external correlation: %llu calls failed (first error "
                "%d), %llu pops returned an id that was not ours",
                (unsigned long long)failed, err, (unsigned long long)foreign);
}

static void count_failure(int rc) {
  int none = 0;
  atomic_compare_exchange_strong(&first_error, &none, rc);
  atomic_fetch_add_explicit(&failed_calls, 1, memory_order_relaxed);
}

static void pop_ours(uint32_t n, uint64_t id) {
  while (n-- > 0) {
    uint64_t last = 0;
    int rc = pop_id(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2, &last);
    if (rc != CUPTI_SUCCESS)
      count_failure(rc);
    else if (n == 0 && last != id)
      atomic_fetch_add_explicit(&foreign_pops, 1, memory_order_relaxed);
  }
}

void cs_cupti_start(cs_bridge_thread *t, uint64_t handle) {
  cs_bridge_stack *stack = &t->cupti;
  /* KernelLaunch never nests: an id this thread still has pushed belongs
   * to a launch stopped on another thread (never seen from NCCL): pop it
   * now, or it would be blamed for every later kernel of this thread. */
  if (stack->depth) {
    uint64_t stale = stack->handle[0];
    pop_ours(cs_bridge_stack_unwind(stack, stale), stale & CS_ID_MASK);
  }
  if (!cs_bridge_stack_push(stack, handle)) {
    count_failure(-1);
    return;
  }
  int rc =
      push_id(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2, handle & CS_ID_MASK);
  if (rc != CUPTI_SUCCESS) {
    count_failure(rc);
    cs_bridge_stack_unwind(stack, handle); /* nothing to pop later */
  }
}

void cs_cupti_stop(cs_bridge_thread *t, uint64_t handle) {
  pop_ours(cs_bridge_stack_unwind(&t->cupti, handle), handle & CS_ID_MASK);
}
