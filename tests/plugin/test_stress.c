/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/plugin/test_stress.c — many threads, several communicators, and
 * every kind of bad handle at once: 8 producer threads on 2 contexts, a
 * thread that keeps creating and destroying a third communicator, NetPlugin
 * events started on one thread and stopped on another, NULL, stale,
 * double-stopped and foreign handles throughout. Run in the plain, ASan+UBSan
 * and TSan builds and under valgrind. Checks: nothing crashes, every event
 * appears at most once, with its exact parent, and every event the driver
 * started is either in the trace or counted as dropped.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plugin_driver.h"

#define PRODUCERS 8
#define STEPS 4
#define EVENTS_PER_ITER (2 + STEPS) /* Coll, ProxyOp, steps */

typedef struct {
  uint64_t child;
  uint64_t parent; /* 0: none */
} link_t;

typedef struct {
  ncclProfiler_v6_t *p;
  void *ctx;
  int iterations;
  link_t *links;
  size_t nlinks;
} producer_t;

static uint64_t id_of(void *h) {
  return (uint64_t)(uintptr_t)h & ((1ull << 47) - 1);
}

static void note(producer_t *w, void *child, void *parent) {
  w->links[w->nlinks].child = id_of(child);
  w->links[w->nlinks].parent = parent ? id_of(parent) : 0;
  w->nlinks++;
}

static void *producer_main(void *arg) {
  producer_t *w = arg;
  ncclProfilerEventDescr_v6_t e;
  void *prev_op = NULL;
  int local;
  for (int i = 0; i < w->iterations; i++) {
    void *c, *po, *ps;
    memset(&e, 0, sizeof e);
    e.type = ncclProfileColl;
    e.coll.func = "AllReduce";
    e.coll.seqNumber = (uint64_t)i;
    w->p->startEvent(w->ctx, &c, &e);
    note(w, c, NULL);
    w->p->stopEvent(c);
    memset(&e, 0, sizeof e);
    e.type = ncclProfileProxyOp;
    e.parentObj = c;
    e.proxyOp.pid = getpid();
    e.proxyOp.channelId = (uint8_t)(i % 4);
    w->p->startEvent(w->ctx, &po, &e);
    note(w, po, c);
    w->p->recordEventState(po, ncclProfilerProxyOpInProgress_v4, NULL);
    for (int s = 0; s < STEPS; s++) {
      memset(&e, 0, sizeof e);
      e.type = ncclProfileProxyStep;
      e.parentObj = po;
      e.proxyStep.step = s;
      w->p->startEvent(w->ctx, &ps, &e);
      note(w, ps, po);
      ncclProfilerEventStateArgs_v6_t a = {.proxyStep = {.transSize = 4096}};
      w->p->recordEventState(ps, ncclProfilerProxyStepSendGPUWait, &a);
      w->p->recordEventState(ps, ncclProfilerProxyStepSendWait, &a);
      w->p->stopEvent(ps);
    }
    w->p->stopEvent(po);
    /* The hostile part. */
    w->p->stopEvent(NULL);
    w->p->recordEventState(NULL, ncclProfilerNetPluginUpdate, NULL);
    if (prev_op) {
      w->p->stopEvent(prev_op); /* stale and double-stopped */
      w->p->recordEventState(prev_op, ncclProfilerProxyOpInProgress_v4, NULL);
    }
    w->p->stopEvent(&local); /* not ours */
    prev_op = po;
  }
  return NULL;
}

/* NetPlugin events started on one thread and stopped on another. */
#define HANDOFF 256
typedef struct {
  ncclProfiler_v6_t *p;
  void *ctx;
  int count;
  _Atomic(void *) slots[HANDOFF];
  _Atomic int produced;
} handoff_t;

static void *net_starter(void *arg) {
  handoff_t *h = arg;
  ncclProfilerEventDescr_v6_t e;
  memset(&e, 0, sizeof e);
  e.type = ncclProfileNetPlugin;
  e.netPlugin.id = NCCL_PROFILER_NET_TYPE_SOCK | NCCL_PROFILER_NET_SOCKET_VER;
  for (int i = 0; i < h->count; i++) {
    while (atomic_load(&h->slots[i % HANDOFF]))
      sched_yield();
    void *n;
    h->p->startEvent(h->ctx, &n, &e);
    atomic_store(&h->slots[i % HANDOFF], n);
  }
  return NULL;
}

static void *net_stopper(void *arg) {
  handoff_t *h = arg;
  for (int i = 0; i < h->count; i++) {
    void *n;
    while (!(n = atomic_load(&h->slots[i % HANDOFF])))
      sched_yield();
    h->p->stopEvent(n);
    atomic_store(&h->slots[i % HANDOFF], NULL);
  }
  return NULL;
}

typedef struct {
  ncclProfiler_v6_t *p;
  int rounds;
} churn_t;

/* Communicators created and destroyed while the others are busy. */
static void *churn_main(void *arg) {
  churn_t *c = arg;
  for (int r = 0; r < c->rounds; r++) {
    int mask = 0;
    void *ctx = NULL, *h;
    c->p->init(&ctx, 1000 + (uint64_t)r, &mask, "churn", 1, 2, 1, NULL);
    ncclProfilerEventDescr_v6_t e = {.type = ncclProfileProxyCtrl};
    c->p->startEvent(ctx, &h, &e);
    c->p->stopEvent(h);
    c->p->finalize(ctx);
  }
  return NULL;
}

static int by_child(const void *a, const void *b) {
  uint64_t x = ((const link_t *)a)->child, y = ((const link_t *)b)->child;
  return x < y ? -1 : x > y;
}

static int env_int(const char *name, int def) {
  const char *v = getenv(name);
  return v && *v ? atoi(v) : def;
}

static void test_stress(void **state) {
  (void)state;
  int iterations = env_int("CCLSCOPE_STRESS_ITERATIONS", 2000);
  driver_t d;
  setenv("CCLSCOPE_RING_SIZE", "8M", 1);
  driver_open(&d);
  int mask = 0;
  void *ctx[2] = {NULL, NULL};
  d.v6->init(&ctx[0], 1, &mask, "A", 1, 4, 0, NULL);
  d.v6->init(&ctx[1], 2, &mask, "B", 1, 4, 1, NULL);

  producer_t w[PRODUCERS];
  pthread_t tids[PRODUCERS + 3];
  for (int i = 0; i < PRODUCERS; i++) {
    w[i] = (producer_t){.p = d.v6, .ctx = ctx[i % 2], .iterations = iterations};
    w[i].links = calloc((size_t)iterations * EVENTS_PER_ITER, sizeof(link_t));
    pthread_create(&tids[i], NULL, producer_main, &w[i]);
  }
  handoff_t *h = calloc(1, sizeof *h);
  h->p = d.v6;
  h->ctx = ctx[0];
  h->count = iterations;
  pthread_create(&tids[PRODUCERS], NULL, net_starter, h);
  pthread_create(&tids[PRODUCERS + 1], NULL, net_stopper, h);
  churn_t churn = {.p = d.v6, .rounds = iterations / 20 + 1};
  pthread_create(&tids[PRODUCERS + 2], NULL, churn_main, &churn);
  for (int i = 0; i < PRODUCERS + 3; i++)
    pthread_join(tids[i], NULL);
  d.v6->finalize(ctx[0]);
  d.v6->finalize(ctx[1]);
  assert_true(driver_close(&d));
  unsetenv("CCLSCOPE_RING_SIZE");

  trace_t t;
  driver_load_single_trace(&d, &t);
  const cJSON *end = trace_find_record(&t, "processEnd");
  assert_non_null(end);
  const cJSON *c = json_obj(end, "counters");
  double dropped = json_num(c, "droppedStarts");
  assert_true(json_num(c, "eventsStarted") ==
              json_num(c, "stopped") + json_num(c, "reclaimed") +
                  json_num(c, "inflight") + dropped);
  assert_true(json_num(c, "doubleStops") >=
              (double)PRODUCERS * (iterations - 1) * 0.99 - dropped);
  assert_true(json_num(c, "foreignHandles") >= (double)PRODUCERS * iterations);

  /* Index the trace's events by id (each id at most once). */
  size_t n_events = 0;
  for (size_t i = 0; i < t.count; i++)
    n_events += json_str(t.lines[i], "id") != NULL;
  link_t *seen = calloc(n_events, sizeof *seen);
  size_t k = 0;
  for (size_t i = 0; i < t.count; i++) {
    if (!json_str(t.lines[i], "id"))
      continue;
    seen[k].child = json_hex(t.lines[i], "id");
    seen[k].parent = json_hex(t.lines[i], "parentId");
    k++;
  }
  qsort(seen, n_events, sizeof *seen, by_child);
  for (size_t i = 1; i < n_events; i++)
    assert_int_not_equal(seen[i].child, seen[i - 1].child);
  size_t missing = 0;
  for (int p = 0; p < PRODUCERS; p++) {
    for (size_t l = 0; l < w[p].nlinks; l++) {
      const link_t *found =
          bsearch(&w[p].links[l], seen, n_events, sizeof *seen, by_child);
      if (!found) {
        missing++;
        continue;
      }
      assert_int_equal(found->parent, w[p].links[l].parent);
    }
    free(w[p].links);
  }
  assert_true((double)missing <= dropped);
  free(seen);
  free(h);
  trace_free(&t);
  driver_cleanup(&d);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_stress),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
