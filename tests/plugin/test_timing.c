/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/plugin/test_timing.c — completion timing from first principles:
 * GPU-clock calibration against offset, drift, quantisation and a clock
 * that starts at boot; quantiles and the latency/bandwidth fit; a
 * collective's timing from its children (source choice, rejected stamp
 * pairs, batched work, waiting for every channel, bandwidth formulas).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "completion.h"
#include "context.h"
#include "event_types.h"
#include "gpu_clock.h"
#include "nccl_names.h"
#include "stats.h"

/* ---- GPU clock ---- */

static uint64_t lcg(uint64_t *s) {
  *s = *s * 6364136223846793005ull + 1442695040888963407ull;
  return *s >> 33;
}

/* GPU time = host + offset + drift, quantised; the host sees each stamp
 * 1..30 µs after the GPU wrote it. Worst conversion error over a run. */
static int64_t worst_error(int64_t offset, double drift_ppm, uint64_t quantum) {
  cs_gpu_clock g;
  cs_gpu_clock_init(&g);
  uint64_t seed = 42;
  int64_t t0 = INT64_C(1795000000000000000), worst = 0;
  for (int i = 0; i < 40000; i++) {
    int64_t truth = t0 + (int64_t)i * 500000; /* every 0.5 ms, 20 s */
    double drift = (double)(truth - t0) * drift_ppm * 1e-6;
    uint64_t ptimer = (uint64_t)(truth + offset + (int64_t)drift);
    ptimer -= ptimer % quantum;
    int64_t seen = truth + 1000 + (int64_t)(lcg(&seed) % 29000);
    cs_gpu_clock_sample(&g, seen, ptimer);
    int64_t host;
    if (i > 2000 && cs_gpu_clock_to_host(&g, ptimer, &host)) {
      int64_t err = llabs(host - truth);
      if (err > worst)
        worst = err;
    }
  }
  return worst;
}

static void test_gpu_clock_offset_drift_quantum(void **state) {
  (void)state;
  /* Error budget: the fastest observation delay (1 µs) + one tick. */
  assert_true(worst_error(0, 0, 1) < 3000);
  assert_true(worst_error(-3700000000LL, 0, 1000) < 3000);
  assert_true(worst_error(12345678, 20.0, 1000) < 4000);
  assert_true(worst_error(-5000000, -50.0, 32) < 4000);
  /* A timer that counts from boot, not from the epoch. */
  assert_true(worst_error(-INT64_C(1794990000000000000), 5.0, 1000) < 4000);
}

static void test_gpu_clock_needs_a_sample(void **state) {
  (void)state;
  cs_gpu_clock g;
  int64_t host;
  cs_gpu_clock_init(&g);
  assert_false(cs_gpu_clock_to_host(&g, 123, &host));
  cs_gpu_clock_sample(&g, 1000000, 400);
  assert_true(cs_gpu_clock_to_host(&g, 400, &host));
  assert_int_equal(host, 1000000);
}

/* ---- statistics ---- */

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static void test_histogram_quantiles(void **state) {
  (void)state;
  enum { N = 20000 };
  static double v[N];
  cs_hist h;
  memset(&h, 0, sizeof h);
  uint64_t seed = 7;
  for (int i = 0; i < N; i++) {
    /* log-uniform between 10 µs and 100 ms */
    double u = (double)(lcg(&seed) % 1000000) / 1e6;
    v[i] = 1e-5 * pow(1e4, u);
    cs_hist_add(&h, v[i]);
  }
  qsort(v, N, sizeof *v, cmp_double);
  double qs[] = {0.5, 0.9, 0.99};
  for (int i = 0; i < 3; i++) {
    double exact = v[(int)(qs[i] * N) - 1];
    double est = cs_hist_quantile(&h, qs[i]);
    assert_true(fabs(est - exact) / exact < 0.10);
  }
  assert_int_equal(h.count, N);
  assert_int_equal(cs_hist_count_le_octave(&h, 26), N); /* all <= 67 s */
  assert_int_equal(cs_hist_count_le_octave(&h, 3), 0);  /* none <= 8 µs */
}

/* ---- completion ---- */

typedef struct {
  cs_timing got[8];
  int n;
} timings;

static void capture(void *arg, const cs_timing *t) {
  timings *s = arg;
  if (s->n < 8)
    s->got[s->n++] = *t;
}

static cs_clock_cal cal; /* CLOCK_MONOTONIC: raw = ns, plus an offset */
static uint32_t ctx8;

static int setup(void **state) {
  (void)state;
  cs_clock_cal_start(&cal, CS_CLOCK_MONOTONIC);
  cs_ctx_clear_all();
  ctx8 = cs_ctx_reserve();
  cs_context *c = &cs_contexts[ctx8 & (CS_MAX_CONTEXTS - 1)];
  c->abi = 6;
  c->has_comm_info = true;
  c->nranks = 8;
  c->mask = 0xFF4F; /* default preset: KernelCh on */
  cs_ctx_publish(ctx8);
  return 0;
}

static cs_completion *make(timings *out) {
  memset(out, 0, sizeof *out);
  cs_completion_config cfg = {.on_timing = capture,
                              .arg = out,
                              .cal = &cal,
                              .grace_ns = 1000,
                              .timeout_ns = 1000000000};
  cs_completion *c = cs_completion_create(&cfg);
  assert_non_null(c);
  return c;
}

static cs_event coll(uint64_t id, uint64_t start, uint64_t stop,
                     uint8_t channels) {
  cs_event e;
  memset(&e, 0, sizeof e);
  e.id = id;
  e.etype = CS_EV_COLL;
  e.ctx = ctx8;
  e.start_raw = start;
  e.stop_raw = stop;
  e.end = CS_END_STOPPED;
  e.p.coll.func = "AllReduce";
  e.p.coll.datatype = "ncclFloat32";
  e.p.coll.algo = "RING";
  e.p.coll.proto = "SIMPLE";
  e.p.coll.count = 1 << 20; /* 4 MiB */
  e.p.coll.seq = id;
  e.p.coll.n_channels = channels;
  return e;
}

static cs_state_rec stop_state[16];
static cs_event kernel(uint64_t id, uint64_t parent, uint8_t channel,
                       uint64_t seen_start, uint64_t ptimer_start,
                       uint64_t seen_stop, uint64_t ptimer_stop) {
  cs_event e;
  memset(&e, 0, sizeof e);
  e.id = id;
  e.etype = CS_EV_KERNEL_CH;
  e.parent_kind = CS_PARENT_LOCAL;
  e.parent = parent;
  e.ctx = ctx8;
  e.start_raw = seen_start;
  e.stop_raw = seen_stop + 10;
  e.end = CS_END_STOPPED;
  e.p.kernel_ch.channel_id = channel;
  e.p.kernel_ch.ptimer = ptimer_start;
  e.p.kernel_ch.has_ptimer = 1;
  cs_state_rec *s = &stop_state[id % 16];
  s->state = 22;
  s->repeat = 1;
  s->raw_ts = seen_stop;
  s->arg = ptimer_stop;
  e.states = s;
  e.nstates = 1;
  return e;
}

static cs_event proxy(uint64_t id, uint64_t parent, uint64_t start,
                      uint64_t stop) {
  cs_event e;
  memset(&e, 0, sizeof e);
  e.id = id;
  e.etype = CS_EV_PROXY_OP;
  e.parent_kind = CS_PARENT_LOCAL;
  e.parent = parent;
  e.ctx = ctx8;
  e.start_raw = start;
  e.stop_raw = stop;
  e.end = CS_END_STOPPED;
  return e;
}

static void run(cs_completion *c, const cs_event *e, bool start) {
  if (start)
    cs_completion_started(c, e);
  else
    cs_completion_ended(c, e);
}

static void settle(cs_completion *c, int64_t now) {
  cs_completion_set_now(c, now);
  cs_completion_tick(c);
}

static void test_gpu_timing_and_bandwidth(void **state) {
  (void)state;
  timings out;
  cs_completion *c = make(&out);
  /* GPU clock = host clock (offset 0): stamps line up with what we saw. */
  cs_event co = coll(10, 1000000, 1002000, 2);
  cs_event k0 = kernel(11, 10, 0, 1100000, 1050000, 3100000, 3050000);
  cs_event k1 = kernel(12, 10, 1, 1100100, 1060000, 3200000, 3150000);
  cs_event p0 = proxy(13, 10, 1003000, 3300000);
  run(c, &co, true);
  run(c, &k0, true);
  run(c, &k1, true);
  run(c, &p0, true);
  run(c, &co, false);
  run(c, &k0, false);
  settle(c, 10000000);
  assert_int_equal(out.n, 0); /* one channel still to come */
  run(c, &k1, false);
  run(c, &p0, false);
  settle(c, 20000000);
  assert_int_equal(out.n, 1);
  const cs_timing *t = &out.got[0];
  assert_int_equal(t->source, CS_TIMING_GPU);
  assert_int_equal(t->gpu_channels, 2);
  /* First channel start -> last channel stop, in GPU time: 2.1 ms. */
  assert_int_equal(t->stop_ns - t->start_ns, 3150000 - 1050000);
  assert_int_equal(t->bytes, 4u << 20);
  double expect_alg = (double)(4u << 20) / 2.1e-3;
  assert_true(fabs(t->alg_bw - expect_alg) / expect_alg < 1e-3);
  assert_true(fabs(t->bus_bw - expect_alg * 2 * 7 / 8) / t->bus_bw < 1e-3);
  assert_true(t->has_proxy);
  assert_int_equal(t->proxy_ops, 1);
  assert_false(t->batched);
  assert_false(t->incomplete);
  cs_completion_destroy(c);
}

static cs_state_rec phase_state[16];
static cs_event kernel_phase(uint64_t id, uint64_t kernel_ch, uint8_t phase,
                             uint64_t seen_start, uint64_t ptimer_start,
                             uint64_t seen_stop, uint64_t ptimer_stop) {
  static const char *const names[] = {"initial_sync", "compute", "final_sync"};
  cs_event e;
  memset(&e, 0, sizeof e);
  e.id = id;
  e.etype = CS_EV_KERNEL_PHASE;
  e.parent_kind = CS_PARENT_LOCAL;
  e.parent = kernel_ch; /* NCCL 2.31: a KernelPhase's parent is its KernelCh */
  e.ctx = ctx8;
  e.start_raw = seen_start;
  e.stop_raw = seen_stop + 10;
  e.end = CS_END_STOPPED;
  e.p.kernel_phase.channel_id = 0;
  e.p.kernel_phase.phase_id = phase;
  e.p.kernel_phase.phase_name = names[phase];
  e.p.kernel_phase.ptimer = ptimer_start;
  cs_state_rec *st = &phase_state[id % 16];
  st->state = 31;
  st->repeat = 1;
  st->raw_ts = seen_stop;
  st->arg = ptimer_stop;
  e.states = st;
  e.nstates = 1;
  return e;
}

/* KernelPhase children (NCCL 2.31) belong to their KernelCh's operation:
 * their spans land in its timing, converted like KernelCh's, and they do
 * not count as channels nor make trackers of their own. */
static void test_kernel_phases_join_their_operation(void **state) {
  (void)state;
  timings out;
  cs_completion *c = make(&out);
  cs_event co = coll(40, 1000000, 1002000, 1);
  cs_event k0 = kernel(41, 40, 0, 1100000, 1050000, 3100000, 3050000);
  cs_event sync = kernel_phase(42, 41, 0, 2600000, 1050000, 2600010, 2550000);
  cs_event comp = kernel_phase(43, 41, 1, 3090000, 2550000, 3090010, 3045000);
  cs_event fin = kernel_phase(44, 41, 2, 3095000, 3045000, 3095010, 3050000);
  run(c, &co, true);
  run(c, &k0, true);
  run(c, &co, false);
  const cs_event *phases[] = {&sync, &comp, &fin};
  for (int i = 0; i < 3; i++) {
    run(c, phases[i], true);
    run(c, phases[i], false);
  }
  run(c, &k0, false);
  settle(c, 20000000);
  assert_int_equal(out.n, 1);
  const cs_timing *t = &out.got[0];
  assert_int_equal(t->event_id, 40);
  assert_int_equal(t->gpu_channels, 1); /* phases are not channels */
  assert_int_equal(t->phase_valid, 7);
  /* GPU clock = host clock here: the spans are the stamps. */
  assert_int_equal(t->phase_stop_ns[0] - t->phase_start_ns[0], 1500000);
  assert_int_equal(t->phase_stop_ns[1] - t->phase_start_ns[1], 495000);
  assert_int_equal(t->phase_stop_ns[2] - t->phase_start_ns[2], 5000);
  assert_int_equal(t->phase_start_ns[0], t->gpu_start_ns);
  assert_int_equal(t->phase_stop_ns[2], t->gpu_stop_ns);
  /* nothing left behind: no tracker was made for the KernelCh id */
  assert_int_equal(cs_completion_get_counters(c)->pending, 0);
  cs_completion_destroy(c);
}

/* Two GPUs of one process: their profiler threads draw event ids from
 * blocks of 4096 of their own and start their KernelChs in step, so the
 * KernelChs of the two operations sit at the same offset of their blocks.
 * Both operations keep their phases (a cache indexed by the low bits of
 * the id lost the first one's to the second). */
static void test_kernel_phases_of_two_threads(void **state) {
  (void)state;
  timings out;
  cs_completion *c = make(&out);
  const uint64_t a = 4096, b = 2 * 4096; /* the two threads' blocks */
  cs_event co_a = coll(a + 40, 1000000, 1002000, 1);
  cs_event co_b = coll(b + 40, 1000000, 1002000, 1);
  cs_event k_a = kernel(a + 41, a + 40, 0, 1100000, 1050000, 3100000, 3050000);
  cs_event k_b = kernel(b + 41, b + 40, 0, 1100000, 1050000, 3100000, 3050000);
  run(c, &co_a, true);
  run(c, &co_b, true);
  run(c, &k_a, true);
  run(c, &k_b, true);
  run(c, &co_a, false);
  run(c, &co_b, false);
  for (uint64_t base = a; base <= b; base += 4096) {
    cs_event sync = kernel_phase(base + 42, base + 41, 0, 2600000, 1050000,
                                 2600010, 2550000);
    cs_event comp = kernel_phase(base + 43, base + 41, 1, 3090000, 2550000,
                                 3090010, 3045000);
    cs_event fin = kernel_phase(base + 44, base + 41, 2, 3095000, 3045000,
                                3095010, 3050000);
    const cs_event *phases[] = {&sync, &comp, &fin};
    for (int i = 0; i < 3; i++) {
      run(c, phases[i], true);
      run(c, phases[i], false);
    }
  }
  run(c, &k_a, false);
  run(c, &k_b, false);
  settle(c, 20000000);
  assert_int_equal(out.n, 2);
  for (int i = 0; i < 2; i++) {
    assert_int_equal(out.got[i].phase_valid, 7);
    assert_int_equal(out.got[i].phase_stop_ns[1] - out.got[i].phase_start_ns[1],
                     495000);
  }
  cs_completion_destroy(c);
}

static cs_event coll_api(uint64_t id, uint64_t start) {
  cs_event e;
  memset(&e, 0, sizeof e);
  e.id = id;
  e.etype = CS_EV_COLL_API;
  e.ctx = ctx8;
  e.start_raw = start;
  e.stop_raw = start + 500;
  e.end = CS_END_STOPPED;
  return e;
}

/* The arrival time (apiNs) of a collective is its CollApi's start. Two
 * application threads (or two GPUs' threads) draw event ids from blocks
 * of 4096 of their own and call in step, so their CollApis sit at the same
 * offset of their blocks. Each collective keeps its own CollApi's start (a
 * cache indexed by the low bits of the id gave both the second one's). */
static void test_api_start_of_two_threads(void **state) {
  (void)state;
  timings out;
  cs_completion *c = make(&out);
  const uint64_t a = 4096, b = 2 * 4096; /* the two threads' blocks */
  cs_event api_a = coll_api(a + 39, 900000);
  cs_event api_b = coll_api(b + 39, 950000);
  cs_event co_a = coll(a + 40, 1000000, 1002000, 1);
  cs_event co_b = coll(b + 40, 1000000, 1002000, 1);
  co_a.parent_kind = co_b.parent_kind = CS_PARENT_LOCAL;
  co_a.parent = a + 39;
  co_b.parent = b + 39;
  cs_event k_a = kernel(a + 41, a + 40, 0, 1100000, 1050000, 3100000, 3050000);
  cs_event k_b = kernel(b + 41, b + 40, 0, 1100000, 1050000, 3100000, 3050000);
  run(c, &api_a, true);
  run(c, &api_b, true);
  run(c, &co_a, true);
  run(c, &co_b, true);
  run(c, &api_a, false);
  run(c, &api_b, false);
  run(c, &k_a, true);
  run(c, &k_b, true);
  run(c, &co_a, false);
  run(c, &co_b, false);
  run(c, &k_a, false);
  run(c, &k_b, false);
  settle(c, 20000000);
  assert_int_equal(out.n, 2);
  for (int i = 0; i < 2; i++) {
    const cs_timing *t = &out.got[i];
    uint64_t api_raw = t->event_id == a + 40 ? 900000 : 950000;
    assert_true(t->event_id == a + 40 || t->event_id == b + 40);
    assert_int_equal(t->api_ns, cs_clock_to_epoch_ns(&cal, api_raw));
  }
  cs_completion_destroy(c);
}

/* The CollApi start is remembered for the recent calls of all threads:
 * a collective finds its call's start after thousands of other calls
 * (grouped calls start their collectives at the group's end). */
static void test_api_start_survives_other_calls(void **state) {
  (void)state;
  timings out;
  cs_completion *c = make(&out);
  cs_event api = coll_api(7, 800000);
  run(c, &api, true);
  run(c, &api, false);
  /* 1000 calls of 3 other threads, none of them the first call's id */
  for (uint64_t i = 0; i < 1000; i++) {
    for (uint64_t thread = 1; thread <= 3; thread++) {
      cs_event other = coll_api(thread * 4096 + i, 810000 + i);
      run(c, &other, true);
      run(c, &other, false);
    }
  }
  cs_event co = coll(8, 1000000, 1002000, 1);
  co.parent_kind = CS_PARENT_LOCAL;
  co.parent = 7;
  cs_event k = kernel(9, 8, 0, 1100000, 1050000, 3100000, 3050000);
  run(c, &co, true);
  run(c, &k, true);
  run(c, &co, false);
  run(c, &k, false);
  settle(c, 20000000);
  assert_int_equal(out.n, 1);
  assert_int_equal(out.got[0].api_ns, cs_clock_to_epoch_ns(&cal, 800000));
  cs_completion_destroy(c);
}

static void test_aborted_operation_is_incomplete(void **state) {
  (void)state;
  timings out;
  cs_completion *c = make(&out);
  /* Hung, then its communicator was finalized: the kernel channel never
   * stopped and the ProxyOp was given up at finalize. */
  cs_event co = coll(60, 1000000, 1001000, 1);
  cs_event k = kernel(61, 60, 0, 1100000, 1050000, 1200000, 1150000);
  k.end = CS_END_RECLAIMED;
  k.reclaim = CS_RECLAIM_FINALIZE;
  k.nstates = 0; /* no KernelChStop */
  k.end_raw = 5000000;
  cs_event p = proxy(62, 60, 1003000, 0);
  p.end = CS_END_RECLAIMED;
  p.reclaim = CS_RECLAIM_FINALIZE;
  p.end_raw = 5000000;
  /* A healthy one whose ProxyOp NCCL never profiles (CollNet, memcpy):
   * reclaimed for no progress, the operation itself completed. */
  cs_event ok = coll(70, 2000000, 2001000, 1);
  cs_event ok_k = kernel(71, 70, 0, 2100000, 2050000, 2200000, 2150000);
  cs_event ok_p = proxy(72, 70, 2003000, 0);
  ok_p.end = CS_END_RECLAIMED;
  ok_p.reclaim = CS_RECLAIM_NO_PROGRESS;
  ok_p.end_raw = 7000000;
  const cs_event *all[] = {&co, &k, &p, &ok, &ok_k, &ok_p};
  for (int i = 0; i < 6; i++)
    run(c, all[i], true);
  for (int i = 0; i < 6; i++)
    run(c, all[i], false);
  cs_completion_set_now(c, 10000000);
  cs_completion_flush(c, 0);
  assert_int_equal(out.n, 2);
  for (int i = 0; i < 2; i++) {
    if (out.got[i].event_id == 60)
      assert_true(out.got[i].incomplete);
    else
      assert_false(out.got[i].incomplete);
  }
  cs_completion_destroy(c);
}

static void test_fallbacks_and_rejected_stamps(void **state) {
  (void)state;
  timings out;
  cs_completion *c = make(&out);
  /* A stamp pair with stop before start (ring overwrite): rejected, so
   * the proxy span is the best source. */
  cs_event co = coll(20, 1000000, 1002000, 1);
  cs_event k = kernel(21, 20, 0, 1100000, 1090000, 1200000, 1080000);
  cs_event p = proxy(22, 20, 1003000, 1503000);
  run(c, &co, true);
  run(c, &k, true);
  run(c, &p, true);
  run(c, &co, false);
  run(c, &k, false);
  run(c, &p, false);
  /* A collective with no children at all: the host enqueue span. */
  cs_event lone = coll(30, 2000000, 2000500, 0);
  run(c, &lone, true);
  run(c, &lone, false);
  settle(c, 10000000);
  assert_int_equal(out.n, 2);
  for (int i = 0; i < 2; i++) {
    const cs_timing *t = &out.got[i];
    if (t->event_id == 20) {
      assert_int_equal(t->source, CS_TIMING_PROXY);
      assert_int_equal(t->gpu_rejected, 1);
      assert_int_equal(t->stop_ns - t->start_ns, 500000);
    } else {
      assert_int_equal(t->event_id, 30);
      assert_int_equal(t->source, CS_TIMING_HOST);
      assert_int_equal(t->stop_ns - t->start_ns, 500);
      assert_true(t->bus_bw < 0); /* no bandwidth from an enqueue span */
    }
  }
  cs_completion_destroy(c);
}

static void test_batched_work_is_flagged(void **state) {
  (void)state;
  timings out;
  cs_completion *c = make(&out);
  /* Two small collectives in one work batch: identical stamps. */
  cs_event a = coll(40, 1000000, 1001000, 1);
  cs_event b = coll(41, 1001000, 1002000, 1);
  cs_event ka = kernel(42, 40, 0, 1100000, 1050000, 1200000, 1150000);
  cs_event kb = kernel(43, 41, 0, 1100000, 1050000, 1200000, 1150000);
  run(c, &a, true);
  run(c, &b, true);
  run(c, &ka, true);
  run(c, &kb, true);
  run(c, &a, false);
  run(c, &b, false);
  run(c, &ka, false);
  run(c, &kb, false);
  settle(c, 10000000);
  assert_int_equal(out.n, 2);
  assert_true(out.got[0].batched);
  assert_true(out.got[1].batched);
  assert_int_equal(cs_completion_get_counters(c)->batched, 2);
  cs_completion_destroy(c);
}

static void test_child_before_parent_and_timeout(void **state) {
  (void)state;
  timings out;
  cs_completion *c = make(&out);
  /* The KernelCh start is processed before its Coll's (another ring). */
  cs_event co = coll(50, 1000000, 1001000, 4);
  cs_event k = kernel(51, 50, 0, 1100000, 1050000, 1200000, 1150000);
  run(c, &k, true);
  run(c, &co, true);
  run(c, &k, false);
  run(c, &co, false);
  settle(c, 100000000);
  assert_int_equal(out.n, 0); /* 4 channels expected, 1 arrived */
  settle(c, 2000000000);      /* past the timeout: emitted anyway */
  assert_int_equal(out.n, 1);
  assert_int_equal(out.got[0].source, CS_TIMING_GPU);
  assert_int_equal(cs_completion_get_counters(c)->timed_out, 1);
  cs_completion_destroy(c);
}

static void test_bytes_and_factors(void **state) {
  (void)state;
  assert_int_equal(nccl_datatype_size("ncclBfloat16"), 2);
  assert_int_equal(nccl_datatype_size("ncclFloat64"), 8);
  assert_int_equal(nccl_datatype_size("nope"), 0);
  assert_int_equal(cs_collective_bytes("AllReduce", 100, "ncclFloat32", 8),
                   400);
  /* AllGather counts bytes (ncclInt8) per rank; nccl-tests the total. */
  assert_int_equal(cs_collective_bytes("AllGather", 100, "ncclInt8", 8), 800);
  assert_int_equal(cs_collective_bytes("ReduceScatter", 100, "ncclFloat32", 4),
                   1600);
  assert_true(fabs(cs_bus_bw_factor("AllReduce", 8) - 1.75) < 1e-12);
  assert_true(fabs(cs_bus_bw_factor("AllGather", 8) - 0.875) < 1e-12);
  assert_true(fabs(cs_bus_bw_factor("Send", 8) - 1.0) < 1e-12);
  assert_true(fabs(cs_bus_bw_factor("Broadcast", 8) - 1.0) < 1e-12);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_gpu_clock_offset_drift_quantum),
      cmocka_unit_test(test_gpu_clock_needs_a_sample),
      cmocka_unit_test(test_histogram_quantiles),
      cmocka_unit_test(test_gpu_timing_and_bandwidth),
      cmocka_unit_test(test_kernel_phases_join_their_operation),
      cmocka_unit_test(test_kernel_phases_of_two_threads),
      cmocka_unit_test(test_api_start_of_two_threads),
      cmocka_unit_test(test_api_start_survives_other_calls),
      cmocka_unit_test(test_aborted_operation_is_incomplete),
      cmocka_unit_test(test_fallbacks_and_rejected_stamps),
      cmocka_unit_test(test_batched_work_is_flagged),
      cmocka_unit_test(test_child_before_parent_and_timeout),
      cmocka_unit_test(test_bytes_and_factors),
  };
  return cmocka_run_group_tests(tests, setup, NULL);
}
