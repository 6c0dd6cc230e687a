/*
 * tests/emu/test_emu_profiler_thread.c — the NCCL 2.31 pieces of ncclemu
 * (nccl-behaviour §12) on their own: which runs are 2.31, the mask
 * dependency, the KernelPhase model (a straggler's initial_sync is short,
 * its peers' long), the slot-aware unwritten-handle rule, and the profiler
 * thread's ring with a real thread (posting, stamping, purge, drops).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "check/emu_check.h"
#include "nccl/emu_profiler_thread.h"

static void test_version_gate(void **state) {
  (void)state;
  emu_options o;
  memset(&o, 0, sizeof o);
  o.host = EMU_HOST_NCCL;
  o.nccl_version = 23007;
  assert_false(emu_nccl_231(&o));
  o.nccl_version = 23100;
  assert_true(emu_nccl_231(&o));
  o.nccl_version = 23102;
  assert_true(emu_nccl_231(&o));
  o.host = EMU_HOST_RCCL; /* RCCL has no profiler thread */
  assert_false(emu_nccl_231(&o));
}

static void test_mask_deps(void **state) {
  (void)state;
  assert_int_equal(emu_enforce_mask_deps(ncclProfileKernelPhase),
                   ncclProfileKernelPhase | ncclProfileKernelCh);
  assert_int_equal(emu_enforce_mask_deps(ncclProfileColl), ncclProfileColl);
  assert_int_equal(emu_enforce_mask_deps(0), 0);
}

static void assert_ordered(const emu_kernel_stamps *s, uint64_t stop) {
  assert_true(s->start <= s->phase_end[0]);
  assert_true(s->phase_end[0] <= s->phase_end[1]);
  assert_true(s->phase_end[1] <= s->phase_end[2]);
  assert_true(s->phase_end[2] == stop);
}

static void test_phase_model(void **state) {
  (void)state;
  const uint64_t q = 1000, start = 1000000000000ULL;
  const uint64_t stop = start + 12000000; /* 12 ms kernel */
  /* The straggler: everyone was there before it started. */
  emu_kernel_stamps late;
  emu_kernel_phases(&late, start, start - 5000000, stop, q);
  assert_ordered(&late, stop);
  /* A peer: it waited 10 ms for the straggler. */
  emu_kernel_stamps peer;
  emu_kernel_phases(&peer, start, start + 10000000, stop, q);
  assert_ordered(&peer, stop);
  uint64_t late_sync = late.phase_end[0] - late.start;
  uint64_t peer_sync = peer.phase_end[0] - peer.start;
  assert_true(late_sync > 0); /* short, not absent */
  assert_true(late_sync <= 2 * q + q);
  assert_true(peer_sync >= 10000000);
  assert_true(late_sync < peer_sync);
  /* compute takes the rest, final_sync a small tail (<= 5 us) */
  assert_true(late.phase_end[2] - late.phase_end[1] <= 5000);
  assert_true(late.phase_end[1] - late.phase_end[0] > 11000000);
  /* stamps on the quantum grid of the start */
  assert_int_equal((peer.phase_end[1] - start) % q, 0);
  /* a zero-length kernel: every phase empty (none will be emitted) */
  emu_kernel_stamps zero;
  emu_kernel_phases(&zero, start, start, start, q);
  assert_int_equal(zero.phase_end[0], start);
  assert_int_equal(zero.phase_end[2], start);
}

static void test_slot_kinds(void **state) {
  (void)state;
  assert_int_equal(emu_check_slot_kind(ncclProfileCeSync), EMU_SLOT_FRESH_NULL);
  assert_int_equal(emu_check_slot_kind(ncclProfileCeBatch),
                   EMU_SLOT_FRESH_NULL);
  assert_int_equal(emu_check_slot_kind(ncclProfileProxyCtrl),
                   EMU_SLOT_UNINITIALISED);
  assert_int_equal(emu_check_slot_kind(ncclProfileProxyStep),
                   EMU_SLOT_RECYCLED);
  assert_int_equal(emu_check_slot_kind(ncclProfileKernelPhase),
                   EMU_SLOT_RECYCLED);
  assert_null(emu_check_unwritten_hazard(EMU_SLOT_FRESH_NULL));
  assert_non_null(emu_check_unwritten_hazard(EMU_SLOT_UNINITIALISED));
  assert_non_null(emu_check_unwritten_hazard(EMU_SLOT_RECYCLED));
}

/* The ring with its thread (no plugin loaded: the thread calls nothing,
 * but it polls, retires and wakes the purge exactly as with one). */
static void test_ring(void **state) {
  (void)state;
  emu_comm comm_a, comm_b;
  memset(&comm_a, 0, sizeof comm_a);
  memset(&comm_b, 0, sizeof comm_b);
  emu_profthread *pt = emu_profthread_create(0, 0, 0, 0, 1, NULL);
  emu_profthread_start(pt);
  emu_proxy_op ops[3];
  for (int i = 0; i < 3; i++) {
    memset(&ops[i], 0, sizeof ops[i]);
    ops[i].kind = EMU_OP_KERNEL;
    ops[i].channel = (uint8_t)i;
    emu_profthread_post(pt, i < 2 ? &comm_a : &comm_b, &ops[i]);
    assert_true(ops[i].on_profthread);
  }
  assert_int_not_equal(ops[0].prof_gen, ops[1].prof_gen);
  emu_kernel_stamps s;
  emu_kernel_phases(&s, 1000, 1000, 50000, 1000);
  for (int i = 0; i < 2; i++) {
    emu_profthread_device_start(pt, ops[i].prof_slot, ops[i].prof_gen, 1000,
                                1000, NULL);
    emu_profthread_device_stop(pt, ops[i].prof_slot, ops[i].prof_gen, &s);
  }
  /* A stale generation is ignored (the op is not that carrier's). */
  emu_profthread_device_stop(pt, ops[2].prof_slot, ops[2].prof_gen + 7, &s);
  emu_profthread_purge(pt, &comm_a); /* returns once both were handled */
  pthread_mutex_lock(&pt->mu);
  assert_true(pt->ring[ops[0].prof_slot].done);
  assert_true(pt->ring[ops[1].prof_slot].done);
  assert_false(pt->ring[ops[2].prof_slot].done);
  assert_false(pt->ring[ops[2].prof_slot].stamped_stop);
  pthread_mutex_unlock(&pt->mu);
  emu_profthread_device_start(pt, ops[2].prof_slot, ops[2].prof_gen, 1000, 1000,
                              NULL);
  emu_profthread_device_stop(pt, ops[2].prof_slot, ops[2].prof_gen, &s);
  emu_profthread_purge(pt, &comm_b);
  pthread_mutex_lock(&pt->mu);
  assert_true(pt->ring[ops[2].prof_slot].done);
  pthread_mutex_unlock(&pt->mu);
  emu_profthread_destroy(pt);
}

static void test_ring_full_drops(void **state) {
  (void)state;
  emu_comm comm;
  memset(&comm, 0, sizeof comm);
  emu_profthread *pt = emu_profthread_create(0, 0, 1, 0, 1, NULL);
  /* not started: nothing retires, so the ring fills */
  emu_proxy_op op;
  for (int i = 0; i < EMU_PROF_RING; i++) {
    memset(&op, 0, sizeof op);
    emu_profthread_post(pt, &comm, &op);
    assert_true(op.on_profthread);
  }
  memset(&op, 0, sizeof op);
  emu_profthread_post(pt, &comm, &op);
  assert_false(op.on_profthread); /* beyond the soft limit: dropped */
  assert_int_equal(pt->dropped, 1);
  emu_profthread_destroy(pt);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_version_gate),
      cmocka_unit_test(test_mask_deps),
      cmocka_unit_test(test_phase_model),
      cmocka_unit_test(test_slot_kinds),
      cmocka_unit_test(test_ring),
      cmocka_unit_test(test_ring_full_drops),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
