/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/plugin/test_rank_spans.c — the late-GPU evidence each rank exports
 * (docs/metrics.md, "Which GPU is late"): which collective timings feed
 * cclscope_rank_collective_seconds_total / cclscope_rank_collectives_total
 * (collectives with GPU stamps, complete, in communicators of two ranks or
 * more; not P2P, not proxy or host timings), the initial_sync span of NCCL
 * 2.31 (0 when that phase is missing but others are there), and the
 * global_rank label and attribute, present on these series whatever
 * CCLSCOPE_METRICS_GLOBAL_RANK says.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "event_types.h"
#include "metrics.h"

#define CTX 3 /* no context registered: labels say comm "unknown" */

static cs_metrics *new_metrics(bool label_global_rank) {
  cs_metrics_config cfg = {.window_s = 1,
                           .max_series = 100,
                           .hostname = "h",
                           .run_id = "r",
                           .pid = 1,
                           .label_global_rank = label_global_rank,
                           .global_rank = 7,
                           .want_otlp = true};
  cs_metrics *m = cs_metrics_create(&cfg, 0);
  assert_non_null(m);
  return m;
}

/* A complete AllReduce of 4 ranks whose GPU span is `gpu_us`. */
static cs_timing allreduce(uint64_t id, double gpu_us) {
  return (cs_timing){.event_id = id,
                     .etype = CS_EV_COLL,
                     .ctx = CTX,
                     .rank = 1,
                     .nranks = 4,
                     .func = "AllReduce",
                     .datatype = "ncclFloat32",
                     .algo = "RING",
                     .proto = "SIMPLE",
                     .count = 1024,
                     .bytes = 4096,
                     .source = CS_TIMING_GPU,
                     .start_ns = 1000,
                     .stop_ns = 1000 + (int64_t)(gpu_us * 1e3),
                     .has_gpu = true,
                     .gpu_start_ns = 1000,
                     .gpu_stop_ns = 1000 + (int64_t)(gpu_us * 1e3),
                     .gpu_channels = 2,
                     .alg_bw = 1,
                     .bus_bw = 1};
}

static const cs_rank_series *series(const cs_metrics *m, cs_rank_span span) {
  for (size_t i = 0; i < m->nrank_spans; i++)
    if (m->rank_spans[i].span == span && m->rank_spans[i].ctx == CTX)
      return &m->rank_spans[i];
  return NULL;
}

static void only_complete_gpu_collectives_count(void **state) {
  (void)state;
  cs_metrics *m = new_metrics(false);
  cs_timing counted = allreduce(1, 100);
  cs_metrics_timing(m, &counted);
  cs_timing p2p = allreduce(2, 50);
  p2p.etype = CS_EV_P2P;
  p2p.func = "Send";
  cs_metrics_timing(m, &p2p);
  cs_timing incomplete = allreduce(3, 50);
  incomplete.incomplete = true;
  cs_metrics_timing(m, &incomplete);
  cs_timing alone = allreduce(4, 50);
  alone.nranks = 1;
  cs_metrics_timing(m, &alone);
  cs_timing proxy = allreduce(5, 50);
  proxy.source = CS_TIMING_PROXY;
  proxy.has_gpu = false;
  cs_metrics_timing(m, &proxy);
  cs_timing host = allreduce(6, 50);
  host.source = CS_TIMING_HOST;
  host.has_gpu = false;
  cs_metrics_timing(m, &host);
  cs_timing second = allreduce(7, 300);
  cs_metrics_timing(m, &second);

  const cs_rank_series *all = series(m, CS_RANK_SPAN_ALL);
  assert_non_null(all);
  assert_int_equal(all->collectives, 2);
  assert_true(all->seconds > 399e-6 && all->seconds < 401e-6);
  /* no KernelPhase: no initial_sync series at all */
  assert_null(series(m, CS_RANK_SPAN_INITIAL_SYNC));
  cs_metrics_destroy(m);
}

static void initial_sync_counts_missing_phase_as_zero(void **state) {
  (void)state;
  cs_metrics *m = new_metrics(false);
  cs_timing waited = allreduce(1, 500);
  waited.phase_valid = 7; /* initial_sync, compute, final_sync */
  waited.phase_start_ns[0] = 1000;
  waited.phase_stop_ns[0] = 1000 + 400000; /* 400 us */
  cs_metrics_timing(m, &waited);
  cs_timing no_wait = allreduce(2, 100);
  no_wait.phase_valid = 6; /* NCCL left out a zero-length initial_sync */
  cs_metrics_timing(m, &no_wait);

  const cs_rank_series *sync = series(m, CS_RANK_SPAN_INITIAL_SYNC);
  assert_non_null(sync);
  assert_int_equal(sync->collectives, 2);
  assert_true(sync->seconds > 399e-6 && sync->seconds < 401e-6);
  assert_int_equal(series(m, CS_RANK_SPAN_ALL)->collectives, 2);
  cs_metrics_destroy(m);
}

/* Lines of `text` that start with `prefix` and contain `needle`. */
static int count_lines(const char *text, const char *prefix,
                       const char *needle) {
  int n = 0;
  for (const char *line = text; line && *line;) {
    const char *end = strchr(line, '\n');
    size_t len = end ? (size_t)(end - line) : strlen(line);
    char buf[2048];
    snprintf(buf, sizeof buf, "%.*s", (int)len, line);
    if (strncmp(buf, prefix, strlen(prefix)) == 0 && strstr(buf, needle))
      n++;
    line = end ? end + 1 : NULL;
  }
  return n;
}

/* Occurrences of `needle` in `text`. */
static int count_in(const char *text, const char *needle) {
  int n = 0;
  for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle))
    n++;
  return n;
}

static void global_rank_always_on_rank_series(void **state) {
  (void)state;
  for (int opt_in = 0; opt_in < 2; opt_in++) {
    cs_metrics *m = new_metrics(opt_in == 1);
    cs_timing t = allreduce(1, 250);
    t.phase_valid = 1;
    t.phase_start_ns[0] = 1000;
    t.phase_stop_ns[0] = 1000 + 20000;
    cs_metrics_timing(m, &t);
    cs_metrics_close_window(m, 2000000000, NULL);
    cs_jbuf_putc(&m->prom, '\0');
    const char *p = m->prom.data;
    const char *labels = "comm=\"unknown\",comm_name=\"\",rank=\"-1\",gpu=\"\","
                         "global_rank=\"7\",span=\"all\"}";
    assert_int_equal(
        count_lines(p, "cclscope_rank_collective_seconds_total{", labels), 1);
    assert_int_equal(
        count_lines(p, "cclscope_rank_collective_seconds_total{", "} 0.00025"),
        1);
    assert_int_equal(count_lines(p, "cclscope_rank_collectives_total{", labels),
                     1);
    assert_int_equal(count_lines(p, "cclscope_rank_collectives_total{",
                                 "span=\"initial_sync\"} 1"),
                     1);
    assert_int_equal(count_lines(p, "cclscope_rank_collective_seconds_total{",
                                 "span=\"initial_sync\"} 2e-05"),
                     1);
    /* once per line, whatever the opt-in says */
    assert_int_equal(count_lines(p, "cclscope_rank_", "global_rank=\"7\""), 4);
    assert_int_equal(count_lines(p, "cclscope_rank_", "\"7\",global_rank"), 0);
    /* the other series carry it only when asked to */
    assert_int_equal(
        count_lines(p, "cclscope_collective_bytes_total{", "global_rank=\"7\""),
        opt_in);
    /* OTLP: the job rank as a data point attribute of the rank points */
    cs_jbuf_putc(&m->otlp, '\0');
    const char *o = strstr(m->otlp.data, "\"cclscope.rank.collective.time\"");
    assert_non_null(o);
    assert_int_equal(count_in(o, "{\"key\":\"cclscope.global_rank\","
                                 "\"value\":{\"intValue\":\"7\"}}"),
                     4);
    assert_int_equal(count_in(o, "\"cclscope.span\""), 4);
    cs_metrics_destroy(m);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(only_complete_gpu_collectives_count),
      cmocka_unit_test(initial_sync_counts_missing_phase_as_zero),
      cmocka_unit_test(global_rank_always_on_rank_series),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
