/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/plugin/test_ring.c — ring registration (src/plugin/hot/ring.c): a
 * thread's first callback takes a spare ring and never calls the allocator
 * while spares are left; attaching, thread exit and reaping race safely;
 * spares follow the ring size; what a ring of a given size holds of a busy
 * proxy thread's callbacks. aligned_alloc is wrapped (-Wl,--wrap) to see
 * which threads allocate rings.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "emit.h"
#include "record.h"
#include "ring.h"

/* ---- the allocator, watched ---- */

void *__real_aligned_alloc(size_t alignment, size_t size);
void *__wrap_aligned_alloc(size_t alignment, size_t size);

static pthread_t main_thread;
static _Atomic unsigned allocs_off_main; /* aligned_alloc calls by others */

void *__wrap_aligned_alloc(size_t alignment, size_t size) {
  if (!pthread_equal(pthread_self(), main_thread))
    atomic_fetch_add(&allocs_off_main, 1);
  return __real_aligned_alloc(alignment, size);
}

/* ---- helpers ---- */

typedef struct {
  cs_ring *ring; /* what the thread's first "callback" got */
  int32_t tid;
  pthread_barrier_t *start; /* optional: attach all at once */
} attacher;

static void *attach_once(void *arg) {
  attacher *a = arg;
  if (a->start)
    pthread_barrier_wait(a->start);
  a->ring = cs_ring_for_thread();
  a->tid = (int32_t)gettid();
  if (a->ring) {
    /* A record, as a callback would write: the ring must be usable. */
    cs_unit *u = cs_ring_reserve(a->ring, 1);
    assert_non_null(u);
    memset(u, 0, sizeof *u);
    u->h.kind = CS_REC_STOP;
    u->h.units = 1;
    cs_ring_commit(a->ring, 1);
  }
  return NULL;
}

/* Empties every ring, as the writer does, so that reaping may free it. */
static void drain_every_ring(void) {
  for (cs_ring *r = cs_ring_list(); r; r = r->next)
    atomic_store(&r->tail, atomic_load(&r->head));
}

static unsigned rings_listed(void) {
  unsigned n = 0;
  for (cs_ring *r = cs_ring_list(); r; r = r->next)
    n++;
  return n;
}

static int setup(void **state) {
  (void)state;
  main_thread = pthread_self();
  cs_ring_set_capacity(256);
  assert_true(cs_ring_session_begin());
  atomic_store(&allocs_off_main, 0);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  cs_ring_session_end();
  cs_ring_free_all();
  return 0;
}

/* ---- tests ---- */

static void test_first_callbacks_take_spares(void **state) {
  (void)state;
  enum { N = 8 };
  cs_ring_spares_want(N);
  assert_int_equal(cs_ring_spares_fill(true), N);
  assert_int_equal(cs_ring_spares_count(), N);
  pthread_t th[N];
  attacher a[N] = {0};
  for (int i = 0; i < N; i++)
    assert_int_equal(pthread_create(&th[i], NULL, attach_once, &a[i]), 0);
  for (int i = 0; i < N; i++)
    pthread_join(th[i], NULL);
  for (int i = 0; i < N; i++) {
    assert_non_null(a[i].ring);
    assert_int_equal(a[i].ring->tid, a[i].tid);
    for (int j = 0; j < i; j++)
      assert_ptr_not_equal(a[i].ring, a[j].ring);
  }
  /* No thread called the allocator: every ring was a spare. */
  assert_int_equal(atomic_load(&allocs_off_main), 0);
  assert_int_equal(cs_ring_inline_allocs(), 0);
  assert_int_equal(cs_ring_spares_count(), 0);
  assert_int_equal(rings_listed(), N);
}

static void test_no_spare_left_allocates_and_counts(void **state) {
  (void)state;
  cs_ring_spares_want(1);
  assert_int_equal(cs_ring_spares_fill(true), 1);
  attacher a[3] = {0};
  for (int i = 0; i < 3; i++) {
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, attach_once, &a[i]), 0);
    pthread_join(th, NULL);
    assert_non_null(a[i].ring);
  }
  /* The first took the spare; the other two allocated their own. */
  assert_int_equal(cs_ring_inline_allocs(), 2);
  assert_int_equal(atomic_load(&allocs_off_main), 4); /* ring + units each */
  /* The writer's refill does not wait for a busy filler, and refills. */
  assert_int_equal(cs_ring_spares_fill(false), 1);
  assert_int_equal(cs_ring_spares_count(), 1);
}

static void test_capacity_change_drops_spares(void **state) {
  (void)state;
  cs_ring_spares_want(4);
  cs_ring_spares_fill(true);
  assert_int_equal(cs_ring_spares_count(), 4);
  cs_ring_set_capacity(256); /* the same size: kept */
  assert_int_equal(cs_ring_spares_count(), 4);
  cs_ring_set_capacity(1024);
  assert_int_equal(cs_ring_spares_count(), 0);
  cs_ring_spares_fill(true);
  attacher a = {0};
  pthread_t th;
  assert_int_equal(pthread_create(&th, NULL, attach_once, &a), 0);
  pthread_join(th, NULL);
  assert_non_null(a.ring);
  assert_int_equal(a.ring->mask + 1, 1024);
  cs_ring_set_capacity(256);
}

static void test_spares_capped_by_address_space(void **state) {
  (void)state;
  /* 64 MiB rings: at most 1 GiB of spares, i.e. 16. */
  cs_ring_set_capacity(((size_t)64 << 20) / CS_UNIT_BYTES);
  cs_ring_spares_want(CS_RING_SPARES_MAX);
  cs_ring_spares_fill(true);
  assert_int_equal(cs_ring_spares_count(), 16);
  cs_ring_set_capacity(256);
  assert_int_equal(cs_ring_spares_count(), 0);
}

/* What a ring holds while the writer is off its CPU: a proxy thread's
 * ProxyStep is a START, three STATEs and a STOP (five callbacks), reserved
 * as emit.h reserves them until the ring is full. 192 bytes a step (a
 * START of two 32-byte units, one unit for each other callback), so an
 * 8 KiB ring holds 42; with 64-byte units (320 bytes a step) it held 25. */
static void *fill_with_proxy_steps(void *arg) {
  unsigned *steps = arg;
  cs_ring *r = cs_ring_for_thread();
  assert_non_null(r);
  const unsigned per_callback[5] = {cs_start_units_for[CS_EV_PROXY_STEP],
                                    CS_STATE_UNITS, CS_STATE_UNITS,
                                    CS_STATE_UNITS, CS_STOP_UNITS};
  for (;;) {
    for (int i = 0; i < 5; i++) {
      cs_unit *u = cs_ring_reserve(r, per_callback[i]);
      if (!u)
        return NULL;
      memset(u, 0, per_callback[i] * sizeof *u);
      u->h.kind = i == 0 ? CS_REC_START : i == 4 ? CS_REC_STOP : CS_REC_STATE;
      u->h.units = (uint8_t)per_callback[i];
      cs_ring_commit(r, per_callback[i]);
    }
    (*steps)++;
  }
}

static void test_ring_holds_proxy_steps(void **state) {
  (void)state;
  cs_ring_set_capacity(8192 / CS_UNIT_BYTES);
  unsigned steps = 0;
  pthread_t th;
  assert_int_equal(pthread_create(&th, NULL, fill_with_proxy_steps, &steps), 0);
  pthread_join(th, NULL);
  assert_int_equal(steps, 8192 / 192);
  cs_ring_set_capacity(256);
}

/* Threads attach all at once (lock-free pushes) while the main thread
 * reaps the rings of those that exited: every ring is listed once until
 * reaped, and none is lost. Run under TSan and ASan by scripts/test.sh. */
static unsigned reaped_count;
static void count_reaped(const cs_ring *r, void *arg) {
  (void)r;
  (void)arg;
  reaped_count++;
}

static void test_attach_races_reaping(void **state) {
  (void)state;
  enum { N = 48 };
  cs_ring_spares_want(N / 2); /* half spares, half allocated inline */
  cs_ring_spares_fill(true);
  pthread_barrier_t start;
  pthread_barrier_init(&start, NULL, N + 1);
  pthread_t th[N];
  attacher a[N] = {0};
  reaped_count = 0;
  for (int i = 0; i < N; i++) {
    a[i].start = &start;
    assert_int_equal(pthread_create(&th[i], NULL, attach_once, &a[i]), 0);
  }
  pthread_barrier_wait(&start);
  for (int round = 0; round < 200; round++) {
    drain_every_ring();
    cs_ring_reap_orphans(count_reaped, NULL);
  }
  for (int i = 0; i < N; i++)
    pthread_join(th[i], NULL);
  drain_every_ring();
  cs_ring_reap_orphans(count_reaped, NULL);
  /* Every thread got a ring; all have exited, so all are reaped. */
  for (int i = 0; i < N; i++)
    assert_non_null(a[i].ring);
  assert_int_equal(reaped_count, N);
  assert_int_equal(rings_listed(), 0);
  assert_int_equal(cs_ring_inline_allocs(), N - N / 2);
  pthread_barrier_destroy(&start);
}

static void test_rings_of_an_ended_session_are_reaped(void **state) {
  (void)state;
  /* A ring attached in this session, on this (live) thread. */
  assert_non_null(cs_ring_for_thread());
  assert_int_equal(rings_listed(), 1);
  reaped_count = 0;
  cs_ring_reap_orphans(count_reaped, NULL);
  assert_int_equal(reaped_count, 0); /* its thread lives, its session too */
  cs_ring_session_end();
  assert_true(cs_ring_session_begin());
  drain_every_ring();
  cs_ring_reap_orphans(count_reaped, NULL);
  assert_int_equal(reaped_count, 1); /* an old session's, drained */
  /* The thread attaches again, to the new session. */
  cs_ring *r = cs_ring_for_thread();
  assert_non_null(r);
  assert_int_equal(rings_listed(), 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_first_callbacks_take_spares, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_no_spare_left_allocates_and_counts,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_capacity_change_drops_spares, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_spares_capped_by_address_space,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_ring_holds_proxy_steps, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_attach_races_reaping, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_rings_of_an_ended_session_are_reaped,
                                      setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
