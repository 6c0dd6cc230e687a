/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/emu/test_emu_world.c — cmocka unit tests of ncclemu's meeting points
 * at 1,024 ranks (src/emu/nccl/emu_world.c): the comm rank of a global rank
 * (world and split, members and not), and the pacing barrier — it waits for
 * the last rank and reports the latest launch, its per-plan count is only
 * a hint (a rank eight plans ahead does not complete an earlier plan), a
 * stalled rank holds the others but not itself, an abort ends the wait;
 * the id streams of communicator threads stay distinct up to EMU_MAX_COMMS
 * (and unchanged below 64: seeded runs repeat).
 * Deadlines turn a wrong wait into a failure instead of a hang; no
 * assertion depends on how long anything takes.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "emu_threads.h"
#include "nccl/emu_world.h"

#define NRANKS 1024
/* far enough for a loaded machine: only reached when a wait is wrong */
#define SAFETY_NS (120ULL * 1000000000ULL)
/* a wait that must not succeed: the deadline ends it */
#define SHORT_NS (20ULL * 1000000ULL)

static emu_layout layout;

static void world_layout(void) {
  emu_options o;
  emu_options_defaults(&o);
  emu_layout_init(&layout, &o, 128, 8, 8);
}

/* The instance of the world communicator of comm rank r. */
static emu_comm world_comm(int r) {
  emu_comm c;
  memset(&c, 0, sizeof c);
  c.spec = &layout.comms[0];
  c.index = 0;
  c.rank = r;
  c.global_rank = r;
  c.nranks = NRANKS;
  return c;
}

static void test_comm_rank_of(void **state) {
  (void)state;
  world_layout();
  assert_int_equal(layout.nranks, NRANKS);
  assert_int_equal(layout.nworkers, 128);
  const emu_comm_spec *world = &layout.comms[0];
  assert_int_equal(emu_comm_rank_of(world, 0), 0);
  assert_int_equal(emu_comm_rank_of(world, 1023), 1023);
  assert_int_equal(emu_comm_rank_of(world, 1024), -1);
  assert_int_equal(emu_comm_rank_of(world, -1), -1);
  /* a split of the odd global ranks, in descending order */
  int members[NRANKS / 2];
  for (int i = 0; i < NRANKS / 2; i++)
    members[i] = NRANKS - 1 - 2 * i;
  int ci =
      emu_layout_add_split(&layout, 0, members, NRANKS / 2, "odd", false, 7);
  const emu_comm_spec *odd = &layout.comms[ci];
  assert_int_equal(odd->nnodes, 128);
  assert_int_equal(emu_comm_rank_of(odd, 1023), 0);
  assert_int_equal(emu_comm_rank_of(odd, 1), NRANKS / 2 - 1);
  assert_int_equal(emu_comm_rank_of(odd, 513), 255);
  assert_int_equal(emu_comm_rank_of(odd, 512), -1);
  assert_int_equal(emu_comm_rank_of(odd, 0), -1);
}

typedef struct waiter {
  emu_shared *sh;
  emu_comm comm;
  uint64_t seq;
  bool ok;
  uint64_t last_ns;
} waiter;

static void *wait_main(void *arg) {
  waiter *w = arg;
  w->ok = emu_wait_all_arrived(w->sh, &w->comm, w->seq,
                               emu_now_ns() + SAFETY_NS, &w->last_ns);
  return NULL;
}

static void test_barrier_waits_for_last(void **state) {
  (void)state;
  world_layout();
  emu_shared *sh = emu_shared_create();
  for (int r = 1; r < NRANKS; r++) {
    emu_comm c = world_comm(r);
    emu_arrive(sh, &c, 1, 1000 + (uint64_t)r);
  }
  emu_comm me = world_comm(1);
  uint64_t last = 0;
  /* rank 0 has not launched plan 1: the wait ends at its deadline */
  assert_false(
      emu_wait_all_arrived(sh, &me, 1, emu_now_ns() + SHORT_NS, &last));
  /* a waiter asleep when the last rank arrives is woken by it */
  waiter w = {sh, world_comm(2), 1, false, 0};
  pthread_t th;
  assert_int_equal(pthread_create(&th, NULL, wait_main, &w), 0);
  emu_comm zero = world_comm(0);
  emu_arrive(sh, &zero, 1, 5000);
  pthread_join(th, NULL);
  assert_true(w.ok);
  assert_int_equal(w.last_ns, 5000);
  assert_true(
      emu_wait_all_arrived(sh, &me, 1, emu_now_ns() + SAFETY_NS, &last));
  assert_int_equal(last, 5000);
}

/* Plan 9 has the residue of plan 1: ranks 1..1023 at plan 9 and everyone
 * at plan 1 bring its count to a multiple of the size minus one; rank 0
 * at plan 8 still leaves plan 9 incomplete. */
static void test_barrier_count_is_a_hint(void **state) {
  (void)state;
  world_layout();
  emu_shared *sh = emu_shared_create();
  for (uint64_t seq = 1; seq <= 9; seq++)
    for (int r = 0; r < NRANKS; r++) {
      if (r == 0 && seq == 9)
        continue;
      emu_comm c = world_comm(r);
      emu_arrive(sh, &c, seq, seq * 10000 + (uint64_t)r);
    }
  emu_comm me = world_comm(3);
  uint64_t last = 0;
  assert_true(
      emu_wait_all_arrived(sh, &me, 8, emu_now_ns() + SAFETY_NS, &last));
  assert_int_equal(last, 8 * 10000 + 1023);
  assert_false(
      emu_wait_all_arrived(sh, &me, 9, emu_now_ns() + SHORT_NS, &last));
  emu_comm zero = world_comm(0);
  emu_arrive(sh, &zero, 9, 9 * 10000 + 5000);
  assert_true(
      emu_wait_all_arrived(sh, &me, 9, emu_now_ns() + SAFETY_NS, &last));
  assert_int_equal(last, 9 * 10000 + 5000);
}

static void test_barrier_stalled_and_abort(void **state) {
  (void)state;
  world_layout();
  emu_shared *sh = emu_shared_create();
  emu_comm stalled = world_comm(5);
  emu_mark_stalled(sh, &stalled, 1);
  for (int r = 0; r < NRANKS; r++) {
    emu_comm c = world_comm(r);
    emu_arrive(sh, &c, 1, 100);
  }
  emu_comm me = world_comm(0);
  uint64_t last = 0;
  /* everyone launched, but rank 5 hangs at plan 1: the others wait */
  assert_false(
      emu_wait_all_arrived(sh, &me, 1, emu_now_ns() + SHORT_NS, &last));
  /* the stalled rank's own proxy does not wait for itself */
  assert_true(
      emu_wait_all_arrived(sh, &stalled, 1, emu_now_ns() + SAFETY_NS, &last));
  /* an abort ends every wait, with or without a deadline */
  EMU_STORE_RELAXED(&sh->abort_flag, 1);
  assert_false(emu_wait_all_arrived(sh, &me, 1, 0, &last));
  assert_false(emu_wait_all_arrived(sh, &me, 2, 0, &last));
}

static int compare_u32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return x < y ? -1 : x > y;
}

static void test_comm_streams_distinct(void **state) {
  (void)state;
  /* the historical values below communicator 64 */
  assert_int_equal(EMU_STREAM_PROXY(1, 2), 0x1000u + 64u + 2u);
  assert_int_equal(EMU_STREAM_INIT(3, 63), 0x4000u + 3u * 64u + 63u);
  assert_int_equal(EMU_STREAM_PROFILER(0, 5), 0x5000u + 5u);
  assert_int_equal(EMU_STREAM_SOCK(2, 1, 1),
                   0x8000u + (2u * 64u + 1u) * 4u + 1u);
  size_t n = (size_t)EMU_MAX_LOCAL_RANKS * EMU_MAX_COMMS * 5 + 4;
  uint32_t *all = calloc(n, sizeof *all);
  assert_non_null(all);
  size_t k = 0;
  for (int slot = 0; slot < EMU_MAX_LOCAL_RANKS; slot++)
    for (int ci = 0; ci < EMU_MAX_COMMS; ci++) {
      all[k++] = EMU_STREAM_PROXY(slot, ci);
      all[k++] = EMU_STREAM_INIT(slot, ci);
      all[k++] = EMU_STREAM_PROFILER(slot, ci);
      all[k++] = EMU_STREAM_SOCK(slot, ci, 0);
      all[k++] = EMU_STREAM_SOCK(slot, ci, 1);
    }
  /* the other threads' streams: main, an application thread, a cuda-cb
   * thread, an async thread */
  all[k++] = EMU_STREAM_MAIN;
  all[k++] = EMU_STREAM_APP(EMU_MAX_APP_THREADS - 1);
  all[k++] = EMU_STREAM_CUDACB(EMU_MAX_APP_THREADS - 1);
  all[k++] = EMU_STREAM_ASYNC(EMU_MAX_APP_THREADS - 1, 0xFFFF);
  assert_int_equal(k, n);
  qsort(all, n, sizeof *all, compare_u32);
  for (size_t i = 1; i < n; i++)
    if (all[i] == all[i - 1])
      fail_msg("stream 0x%x used twice", all[i]);
  free(all);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_comm_rank_of),
      cmocka_unit_test(test_barrier_waits_for_last),
      cmocka_unit_test(test_barrier_count_is_a_hint),
      cmocka_unit_test(test_barrier_stalled_and_abort),
      cmocka_unit_test(test_comm_streams_distinct),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
