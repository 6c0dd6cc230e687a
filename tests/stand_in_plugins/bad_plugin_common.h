/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/stand_in_plugins/bad_plugin_common.h — the correct skeleton that every
 * deliberately broken test plugin starts from: a v6 plugin with real
 * handle objects (so dereferencing a local parent is fine), all events on
 * (BAD_MASK overrides), contexts in static memory. Each bad_*.c replaces
 * exactly one of the bad_correct_* functions to break one rule.
 */
#ifndef BAD_PLUGIN_COMMON_H
#define BAD_PLUGIN_COMMON_H

#include <stdlib.h>

#include "nccl/profiler.h"

typedef struct bad_event {
  uint64_t type;
  int live;
} bad_event;

#define BAD_EVENTS 4096
static bad_event bad_events[BAD_EVENTS];
static uint64_t bad_next_event;
static int bad_contexts[64];
static int bad_ncontexts;

static bad_event *bad_new_event(uint64_t type) {
  uint64_t i = __atomic_fetch_add(&bad_next_event, 1, __ATOMIC_RELAXED);
  bad_event *e = &bad_events[i % BAD_EVENTS];
  __atomic_store_n(&e->type, type, __ATOMIC_RELAXED);
  return e;
}

static int bad_default_mask(int fallback) {
  const char *env = getenv("BAD_MASK");
  return env ? (int)strtol(env, NULL, 0) : fallback;
}

static ncclResult_t bad_init_common(void **context, int *mask, int dflt) {
  int i = __atomic_fetch_add(&bad_ncontexts, 1, __ATOMIC_RELAXED);
  *context = &bad_contexts[i % 64];
  __atomic_store_n(mask, bad_default_mask(dflt), __ATOMIC_RELAXED);
  return ncclSuccess;
}

/* The correct parts each broken plugin reuses (static inline: a plugin
 * that replaces one of them does not trip -Wunused-function). */
static inline ncclResult_t bad_correct_init(void **c, uint64_t id, int *m,
                                            const char *n, int nn, int nr,
                                            int r, ncclDebugLogger_t l) {
  (void)id, (void)n, (void)nn, (void)nr, (void)r, (void)l;
  return bad_init_common(c, m, 0xFFFF);
}

static inline ncclResult_t bad_correct_start(void *c, void **h,
                                             ncclProfilerEventDescr_v6_t *d) {
  (void)c;
  *h = bad_new_event(d->type);
  return ncclSuccess;
}

static inline ncclResult_t bad_correct_stop(void *h) {
  (void)h;
  return ncclSuccess;
}

static inline ncclResult_t
bad_correct_record(void *h, ncclProfilerEventState_v6_t s,
                   ncclProfilerEventStateArgs_v6_t *a) {
  (void)h, (void)s, (void)a;
  return ncclSuccess;
}

static inline ncclResult_t bad_correct_finalize(void *c) {
  (void)c;
  return ncclSuccess;
}

#endif
