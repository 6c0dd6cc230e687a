/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/plugin/test_metrics_op_transfers.c — a collective's send
 * transfers reach its series (cclscope_collective_transfers_total and its
 * bytes) when other operations are waiting at the same time, whatever
 * their ids. The metrics keep each operation's transfers in a
 * direct-mapped table until its timing names the series; ids come from
 * the plugin's per-thread blocks of 4096, so operations started on
 * different threads often share their low bits, and the slot must not
 * follow the low bits alone (src/plugin/metrics/metrics.c, op_slot).
 * Also: the fastest-transfer tables keep one entry per exact size for
 * sizes that differ only in high bits (min_point); and send steps
 * interleaved across links and channels each feed their own series (the
 * recent-series entries, step_link_series).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <string.h>

#include "assembler.h"
#include "clock.h"
#include "event_types.h"
#include "metrics.h"

#define CTX 3

static cs_metrics *new_metrics(void) {
  cs_metrics_config cfg = {.window_s = 1,
                           .max_series = 100,
                           .hostname = "h",
                           .run_id = "r",
                           .pid = 1,
                           .global_rank = -1};
  cs_metrics *m = cs_metrics_create(&cfg, 0);
  assert_non_null(m);
  return m;
}

/* A send ProxyStep of `bytes`, posted at tick 1000 and done at 2000. */
static void send_step(cs_event *e, cs_state_rec *posted, uint64_t bytes,
                      int32_t peer) {
  memset(e, 0, sizeof *e);
  memset(posted, 0, sizeof *posted);
  posted->state = 9; /* SendWait */
  posted->raw_ts = 1000;
  posted->arg = bytes;
  e->etype = CS_EV_PROXY_STEP;
  e->end = CS_END_STOPPED;
  e->ctx = CTX;
  e->rank = 0;
  e->has_link = true;
  e->link.peer = peer;
  e->link.is_send = 1;
  e->start_raw = 500;
  e->stop_raw = 2000;
  e->states = posted;
  e->nstates = 1;
}

static cs_timing allreduce(uint64_t id) {
  return (cs_timing){.event_id = id,
                     .etype = CS_EV_COLL,
                     .ctx = CTX,
                     .rank = 0,
                     .nranks = 2,
                     .func = "AllReduce",
                     .datatype = "ncclFloat32",
                     .algo = "RING",
                     .proto = "SIMPLE",
                     .count = 1024,
                     .bytes = 4096,
                     .source = CS_TIMING_HOST,
                     .start_ns = 1000,
                     .stop_ns = 2000,
                     .alg_bw = -1,
                     .bus_bw = -1};
}

static cs_clock_cal calibrated(void) {
  cs_clock_cal cal;
  cs_clock_cal_start(&cal, CS_CLOCK_MONOTONIC);
  return cal;
}

/* Two operations in flight at once whose ids are equal in their low 12
 * bits (the same place in two threads' id blocks), and more at other
 * block offsets: every transfer is counted in the collective's series. */
static void waiting_operations_keep_their_transfers(void **state) {
  (void)state;
  cs_metrics *m = new_metrics();
  cs_clock_cal cal = calibrated();
  const uint64_t ops[] = {0x1005,         0x2005,        0x3005,
                          0x7005,         0x5000 + 17,   0x9000 + 17,
                          0x10000 + 4095, 0x20000 + 4095};
  const size_t nops = sizeof ops / sizeof ops[0];
  cs_event e;
  cs_state_rec posted;
  for (size_t i = 0; i < nops; i++) {
    send_step(&e, &posted, 1000 + i, 1);
    cs_metrics_event(m, &e, ops[i], &cal);
  }
  for (size_t i = 0; i < nops; i++) {
    cs_timing t = allreduce(ops[i]);
    cs_metrics_timing(m, &t);
  }
  assert_int_equal(m->ncolls, 1);
  assert_int_equal(m->colls[0].transfers_total, nops);
  uint64_t bytes = 0;
  for (size_t i = 0; i < nops; i++)
    bytes += 1000 + i;
  assert_int_equal(m->colls[0].transfer_bytes_total, bytes);
  cs_metrics_destroy(m);
}

/* Sizes that differ only above their low bits (powers of two, multiples
 * of 1 MiB) each keep their own fastest transfer in a window's table. */
static void sizes_differing_in_high_bits_keep_their_own_entries(void **state) {
  (void)state;
  cs_metrics *m = new_metrics();
  cs_clock_cal cal = calibrated();
  cs_event e;
  cs_state_rec posted;
  const int nsizes = 20;
  for (int i = 0; i < nsizes; i++) {
    send_step(&e, &posted, (uint64_t)1 << (12 + i), 1);
    cs_metrics_event(m, &e, 0, &cal);
  }
  assert_int_equal(m->nlinks, 1);
  int kept = 0;
  for (int b = 0; b < CS_METRICS_SIZE_BUCKETS; b++)
    if (m->links[0].min_w[b].size != 0)
      kept++;
  assert_int_equal(kept, nsizes);
  cs_metrics_destroy(m);
}

/* Send steps interleaved across links and channels (channels 1 and 9
 * share the recent-series entry of their low bits; two contexts use the
 * same channel and peer): each transfer lands in its own link and channel
 * series, one series per distinct label set. */
static void interleaved_steps_feed_their_own_series(void **state) {
  (void)state;
  cs_metrics *m = new_metrics();
  cs_clock_cal cal = calibrated();
  const struct {
    uint32_t ctx;
    int32_t peer;
    uint8_t channel;
  } steps[] = {{CTX, 1, 1}, {CTX, 1, 9},     {CTX, 2, 1},
               {CTX, 1, 1}, {CTX + 1, 1, 1}, {CTX, 1, 9},
               {CTX, 2, 9}, {CTX + 1, 1, 1}, {CTX, 1, 1}};
  const size_t n = sizeof steps / sizeof steps[0];
  cs_event e;
  cs_state_rec posted;
  for (size_t i = 0; i < n; i++) {
    send_step(&e, &posted, 1u << i, steps[i].peer);
    e.ctx = steps[i].ctx;
    e.link.channel_id = steps[i].channel;
    cs_metrics_event(m, &e, 0, &cal);
  }
  /* Links (ctx, peer): (3,1) (3,2) (4,1); channels (ctx, channel): (3,1)
   * (3,9) (4,1). */
  assert_int_equal(m->nlinks, 3);
  assert_int_equal(m->nchannels, 3);
  for (size_t l = 0; l < m->nlinks; l++) {
    uint64_t bytes = 0, count = 0;
    for (size_t i = 0; i < n; i++)
      if (steps[i].ctx == m->links[l].ctx && steps[i].peer == m->links[l].dst) {
        bytes += 1u << i;
        count++;
      }
    assert_int_equal(m->links[l].transfers_total, count);
    assert_int_equal(m->links[l].bytes_total, bytes);
  }
  for (size_t c = 0; c < m->nchannels; c++) {
    uint64_t bytes = 0, count = 0;
    for (size_t i = 0; i < n; i++)
      if (steps[i].ctx == m->channels[c].ctx &&
          steps[i].channel == m->channels[c].channel) {
        bytes += 1u << i;
        count++;
      }
    assert_int_equal(m->channels[c].transfers_total, count);
    assert_int_equal(m->channels[c].bytes_total, bytes);
  }
  cs_metrics_destroy(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(waiting_operations_keep_their_transfers),
      cmocka_unit_test(sizes_differing_in_high_bits_keep_their_own_entries),
      cmocka_unit_test(interleaved_steps_feed_their_own_series),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
