/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/emu/test_emu_profiler_thread.c — the NCCL 2.31 pieces of ncclemu
 * (nccl-behaviour §12) on their own: which runs are 2.31, the mask
 * dependency, the KernelPhase model (a straggler's initial_sync is short,
 * its peers' long), NCCL's fold rule for missing phase boundaries, the
 * slot-aware unwritten-handle rule, and the profiler thread's queue with a
 * real thread (posting, stamping, the purge at destroy, no drops past the
 * soft cap).
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
  o.host = EMU_HOST_RCCL; /* RCCL 2.31: NVIDIA's 2.31 profiler core too */
  assert_false(emu_nccl_231(&o));
  assert_true(emu_core_231(&o));
  o.nccl_version = 23007;
  assert_false(emu_core_231(&o));
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

/* --slow-rank: the slow GPU works until the stop (long compute); a peer
 * done at `computed` waits for its data until the same stop (long
 * final_sync). */
static void test_phase_model_slow_gpu(void **state) {
  (void)state;
  const uint64_t q = 1000, start = 1000000000000ULL;
  const uint64_t synced = start + 20000, normal = synced + 100000;
  const uint64_t stop = synced + 200000; /* twice the normal work */
  emu_kernel_stamps slow, peer;
  emu_kernel_phases_waiting(&slow, start, synced, stop, stop, q);
  emu_kernel_phases_waiting(&peer, start, synced, normal, stop, q);
  assert_ordered(&slow, stop);
  assert_ordered(&peer, stop);
  uint64_t slow_compute = slow.phase_end[1] - slow.phase_end[0];
  uint64_t peer_compute = peer.phase_end[1] - peer.phase_end[0];
  uint64_t slow_final = slow.phase_end[2] - slow.phase_end[1];
  uint64_t peer_final = peer.phase_end[2] - peer.phase_end[1];
  assert_true(slow_compute >= 190000);
  assert_true(peer_compute <= 100000 && peer_compute >= 90000);
  assert_true(slow_final <= 5000);
  assert_true(peer_final >= 100000);
  /* computed = stop is the plain model */
  emu_kernel_stamps plain;
  emu_kernel_phases(&plain, start, synced, stop, q);
  assert_memory_equal(&plain, &slow, sizeof plain);
  /* a computed past the stop or before the sync is clamped */
  emu_kernel_phases_waiting(&peer, start, synced, stop + 5000, stop, q);
  assert_memory_equal(&peer, &slow, sizeof peer);
  emu_kernel_phases_waiting(&peer, start, synced, start, stop, q);
  assert_ordered(&peer, stop);
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
                   EMU_SLOT_FRESH_NULL);
  assert_null(emu_check_unwritten_hazard(EMU_SLOT_FRESH_NULL));
  assert_non_null(emu_check_unwritten_hazard(EMU_SLOT_UNINITIALISED));
  assert_non_null(emu_check_unwritten_hazard(EMU_SLOT_RECYCLED));
}

/* NCCL's fold rule for the phase stamps (profilerFireKernelPhaseEvents). */
static void assert_span(const emu_phase_span *s, int phase, uint64_t from,
                        uint64_t to) {
  assert_int_equal(s->phase, phase);
  assert_int_equal(s->from, from);
  assert_int_equal(s->to, to);
}

static void test_phase_spans(void **state) {
  (void)state;
  emu_phase_span out[EMU_KERNEL_PHASES];
  emu_kernel_stamps all = {100, {200, 700, 800}};
  assert_int_equal(emu_kernel_phase_spans(&all, out), 3);
  assert_span(&out[0], 0, 100, 200);
  assert_span(&out[1], 1, 200, 700);
  assert_span(&out[2], 2, 700, 800);
  /* AFTER_OPEN missing: folded onto BEGIN, so no initial_sync and compute
   * from the kernel's start */
  emu_kernel_stamps no_open = {100, {0, 700, 800}};
  assert_int_equal(emu_kernel_phase_spans(&no_open, out), 2);
  assert_span(&out[0], 1, 100, 700);
  assert_span(&out[1], 2, 700, 800);
  /* BEFORE_CLOSE missing: folded onto END, so compute runs to the end and
   * there is no final_sync (not a final_sync from AFTER_OPEN) */
  emu_kernel_stamps no_close = {100, {200, 0, 800}};
  assert_int_equal(emu_kernel_phase_spans(&no_close, out), 2);
  assert_span(&out[0], 0, 100, 200);
  assert_span(&out[1], 1, 200, 800);
  /* neither inner boundary: the kernel did not instrument phases */
  emu_kernel_stamps none = {100, {0, 0, 800}};
  assert_int_equal(emu_kernel_phase_spans(&none, out), 0);
  /* zero-length phases are skipped */
  emu_kernel_stamps empty_compute = {100, {500, 500, 800}};
  assert_int_equal(emu_kernel_phase_spans(&empty_compute, out), 2);
  assert_span(&out[0], 0, 100, 500);
  assert_span(&out[1], 2, 500, 800);
}

/* Waits (bounded) until the thread retired the op: it emitted its stop. */
static bool wait_retired(emu_profthread *pt, const emu_proxy_op *op) {
  for (int i = 0; i < 20000; i++) {
    if (!emu_profthread_op_queued(pt, op->prof_slot, op->prof_gen, NULL))
      return true;
    emu_sleep_ns(100000);
  }
  return false;
}

/* The queue with its thread (no plugin loaded: the thread calls nothing,
 * but it polls and retires exactly as with one). At destroy NCCL purges
 * what the thread has not finished — started or not — without waiting. */
static void test_purge_at_destroy(void **state) {
  (void)state;
  emu_comm comm_a, comm_b;
  memset(&comm_a, 0, sizeof comm_a);
  memset(&comm_b, 0, sizeof comm_b);
  emu_profthread *pt = emu_profthread_create(0, 0, 0, 0, 1, 0, NULL);
  emu_profthread_start(pt);
  emu_proxy_op ops[4];
  for (int i = 0; i < 4; i++) {
    memset(&ops[i], 0, sizeof ops[i]);
    ops[i].kind = EMU_OP_KERNEL;
    ops[i].channel = (uint8_t)i;
    emu_profthread_post(pt, i < 3 ? &comm_a : &comm_b, &ops[i]);
    assert_true(ops[i].on_profthread);
  }
  assert_int_not_equal(ops[0].prof_gen, ops[1].prof_gen);
  emu_kernel_stamps s;
  emu_kernel_phases(&s, 1000, 1000, 50000, 1000);
  /* op 1 only starts; op 0 starts and ends after it, so the pass that
   * retires op 0 has seen op 1's start; op 2 never starts */
  emu_profthread_device_start(pt, ops[1].prof_slot, ops[1].prof_gen, 1000, 1000,
                              NULL);
  emu_profthread_device_start(pt, ops[0].prof_slot, ops[0].prof_gen, 1000, 1000,
                              NULL);
  emu_profthread_device_stop(pt, ops[0].prof_slot, ops[0].prof_gen, &s);
  assert_true(wait_retired(pt, &ops[0]));
  /* A stale generation is ignored (the op is not that carrier's). */
  emu_profthread_device_stop(pt, ops[3].prof_slot, ops[3].prof_gen + 7, &s);
  uint64_t started = 0;
  assert_int_equal(emu_profthread_purge(pt, &comm_a, &started), 2);
  assert_int_equal(started, 1); /* op 1: its KernelCh stop never comes */
  assert_false(
      emu_profthread_op_queued(pt, ops[1].prof_slot, ops[1].prof_gen, NULL));
  assert_false(
      emu_profthread_op_queued(pt, ops[2].prof_slot, ops[2].prof_gen, NULL));
  /* the other comm's op stays, and its stamps still arrive */
  assert_true(
      emu_profthread_op_queued(pt, ops[3].prof_slot, ops[3].prof_gen, NULL));
  /* stamps for a purged op are ignored */
  emu_profthread_device_stop(pt, ops[2].prof_slot, ops[2].prof_gen, &s);
  emu_profthread_device_start(pt, ops[3].prof_slot, ops[3].prof_gen, 1000, 1000,
                              NULL);
  emu_profthread_device_stop(pt, ops[3].prof_slot, ops[3].prof_gen, &s);
  assert_true(wait_retired(pt, &ops[3]));
  assert_int_equal(emu_profthread_purge(pt, &comm_b, &started), 0);
  assert_int_equal(started, 0);
  assert_int_equal(pt->purged, 2);
  assert_int_equal(pt->purged_started, 1);
  emu_profthread_destroy(pt);
}

/* NCCL keeps enqueueing past its soft cap (it only logs): nothing is
 * dropped, the ops stay in posting order and in flight. */
static void test_enqueue_past_soft_cap(void **state) {
  (void)state;
  emu_comm comm;
  memset(&comm, 0, sizeof comm);
  emu_profthread *pt = emu_profthread_create(0, 0, 1, 0, 1, 0, NULL);
  /* not started: nothing retires, so the queue only grows */
  emu_proxy_op op;
  emu_proxy_op first;
  for (int i = 0; i < EMU_PROF_SOFT_CAP + 5; i++) {
    memset(&op, 0, sizeof op);
    emu_profthread_post(pt, &comm, &op);
    assert_true(op.on_profthread);
    if (i == 0)
      first = op;
  }
  assert_int_equal(pt->inflight, EMU_PROF_SOFT_CAP + 5);
  assert_int_equal(pt->max_inflight, EMU_PROF_SOFT_CAP + 5);
  assert_int_equal(pt->over_cap, 5);
  assert_true(
      emu_profthread_op_queued(pt, first.prof_slot, first.prof_gen, NULL));
  assert_true(emu_profthread_op_queued(pt, op.prof_slot, op.prof_gen, NULL));
  assert_int_equal(pt->head->gen, first.prof_gen);
  assert_int_equal(pt->tail->gen, op.prof_gen);
  uint64_t started = 7;
  assert_int_equal(emu_profthread_purge(pt, &comm, &started),
                   EMU_PROF_SOFT_CAP + 5);
  assert_int_equal(started, 0);
  assert_int_equal(pt->inflight, 0);
  emu_profthread_destroy(pt);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_version_gate),
      cmocka_unit_test(test_mask_deps),
      cmocka_unit_test(test_phase_model),
      cmocka_unit_test(test_phase_model_slow_gpu),
      cmocka_unit_test(test_slot_kinds),
      cmocka_unit_test(test_phase_spans),
      cmocka_unit_test(test_purge_at_destroy),
      cmocka_unit_test(test_enqueue_past_soft_cap),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
