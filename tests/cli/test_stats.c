/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/cli/test_stats.c — the numbers behind `summary`: the log-bucket
 * histogram's error bound, the bus-bandwidth
 * factors, the binomial tail of the straggler verdict, the gap of the
 * own/inherited split and who is last among equal arrivals; and the
 * containers:
 * pair_map (with deletions), intern tables, lane placement.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "convert/lanes.h"
#include "summary/log_hist.h"
#include "summary/nccl_model.h"
#include "summary/summary.h"
#include "util/intern.h"
#include "util/pair_map.h"

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

/* Exact quantile with the same rank rule (ceil(q n), 1-based). */
static int64_t exact_quantile(const int64_t *sorted, size_t n, double q) {
  size_t rank = (size_t)ceil(q * (double)n);
  if (rank < 1)
    rank = 1;
  return sorted[rank - 1];
}

static uint64_t rng_state = 88172645463325252ull;
static uint64_t rng(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}

static void histogram_error_bound(void **state) {
  (void)state;
  enum { N = 20000 };
  static int64_t v[N];
  lhist h;
  lhist_init(&h);
  for (size_t i = 0; i < N; i++) {
    /* log-uniform from 1 ns to ~10 s: every magnitude is exercised */
    double e = (double)(rng() % 10000) / 10000.0 * 10.0;
    v[i] = (int64_t)pow(10.0, e);
    assert_true(lhist_add(&h, v[i]));
  }
  qsort(v, N, sizeof v[0], cmp_i64);
  assert_int_equal(h.count, N);
  assert_int_equal(h.min, v[0]);
  assert_int_equal(h.max, v[N - 1]);
  static const double qs[] = {0.001, 0.1, 0.25, 0.5, 0.9, 0.99, 0.999};
  for (size_t i = 0; i < sizeof qs / sizeof qs[0]; i++) {
    int64_t want = exact_quantile(v, N, qs[i]);
    int64_t got = lhist_quantile(&h, qs[i]);
    double err = fabs((double)(got - want)) / (double)want;
    assert_true(err <= 1.0 / 256.0 + 1e-12);
  }
  lhist_free(&h);
}

static void histogram_small_values_exact(void **state) {
  (void)state;
  lhist h;
  lhist_init(&h);
  for (int64_t x = 1; x <= 100; x++)
    lhist_add(&h, x);
  assert_int_equal(lhist_quantile(&h, 0.5), 50);
  assert_int_equal(lhist_quantile(&h, 0.9), 90);
  assert_int_equal(lhist_quantile(&h, 0.99), 99);
  assert_int_equal(lhist_quantile(&h, 1.0), 100);
  assert_true(fabs(lhist_mean(&h) - 50.5) < 1e-9);
  lhist_add(&h, -5); /* negative durations count as 0 */
  assert_int_equal(h.min, 0);
  lhist other;
  lhist_init(&other);
  for (int i = 0; i < 101; i++)
    lhist_add(&other, 1000);
  assert_true(lhist_merge(&h, &other));
  assert_int_equal(h.count, 202);
  assert_int_equal(h.max, 1000);
  assert_int_equal(lhist_quantile(&h, 0.75), 1000);
  lhist_free(&h);
  lhist_free(&other);
  lhist empty;
  lhist_init(&empty);
  assert_int_equal(lhist_quantile(&empty, 0.5), 0);
}

static void bus_factors(void **state) {
  (void)state;
  assert_true(fabs(nccl_bus_factor("AllReduce", 8) - 1.75) < 1e-12);
  assert_true(fabs(nccl_bus_factor("AllGather", 4) - 0.75) < 1e-12);
  assert_true(fabs(nccl_bus_factor("ReduceScatter", 2) - 0.5) < 1e-12);
  assert_true(fabs(nccl_bus_factor("Broadcast", 8) - 1.0) < 1e-12);
  assert_true(fabs(nccl_bus_factor("Send", 8) - 1.0) < 1e-12);
  assert_true(fabs(nccl_bus_factor("AllReduce", 1) - 1.0) < 1e-12);
  assert_int_equal(nccl_datatype_size("ncclFloat32"), 4);
  assert_int_equal(nccl_datatype_size("ncclBfloat16"), 2);
  assert_int_equal(nccl_datatype_size("ncclUint64"), 8);
  assert_int_equal(nccl_datatype_size("ncclInt8"), 1);
  assert_int_equal(nccl_datatype_size("whatever"), 0);
  assert_true(fabs(nccl_bus_factor("Gather", 4) - 0.75) < 1e-12);
  /* sizes as the plugin's timing records: the whole buffer for AllGather */
  assert_int_equal(nccl_collective_bytes("AllReduce", 1024, "ncclFloat32", 8),
                   4096);
  assert_int_equal(nccl_collective_bytes("AllGather", 1024, "ncclInt8", 8),
                   8192);
  assert_int_equal(nccl_collective_bytes("ReduceScatter", 10, "ncclFloat64", 4),
                   320);
  assert_int_equal(nccl_collective_bytes("Broadcast", 7, "unknownType", 4), 7);
}

static void map_insert_remove(void **state) {
  (void)state;
  pair_map m;
  pair_map_init(&m);
  enum { N = 5000 };
  for (uint64_t i = 0; i < N; i++) {
    bool inserted;
    uint64_t *v = pair_map_put(&m, i % 7, i, i * 3, &inserted);
    assert_non_null(v);
    assert_true(inserted);
  }
  assert_int_equal(m.n, N);
  for (uint64_t i = 0; i < N; i += 2)
    assert_true(pair_map_remove(&m, i % 7, i));
  assert_false(pair_map_remove(&m, 0, 0));
  for (uint64_t i = 0; i < N; i++) {
    uint64_t *v = pair_map_get(&m, i % 7, i);
    if (i % 2) {
      assert_non_null(v);
      assert_int_equal(*v, i * 3);
    } else {
      assert_null(v);
    }
  }
  bool inserted;
  uint64_t *v = pair_map_put(&m, 1, 1, 99, &inserted);
  assert_false(inserted);
  assert_int_equal(*v, 3);
  pair_map_free(&m);
}

static void intern_ids(void **state) {
  (void)state;
  intern_tab t;
  intern_init(&t);
  uint32_t a = intern_id(&t, "AllReduce", 9);
  uint32_t b = intern_id(&t, "Send", 4);
  assert_int_equal(a, 1);
  assert_int_equal(b, 2);
  assert_int_equal(intern_id(&t, "AllReduceX", 9), a); /* n bytes only */
  assert_string_equal(intern_str(&t, b), "Send");
  assert_string_equal(intern_str(&t, 0), "");
  for (int i = 0; i < 1000; i++) {
    char buf[16];
    snprintf(buf, sizeof buf, "s%d", i);
    assert_int_equal(intern_id(&t, buf, strlen(buf)), (uint32_t)i + 3);
  }
  intern_free(&t);
}

typedef struct {
  int64_t leaves[16];
  int n;
} leave_log;

static void log_leave(void *arg, lane *l, const lane_frame *f) {
  (void)l;
  leave_log *log = arg;
  log->leaves[log->n++] = f->end;
}

static void lanes_nest_and_overflow(void **state) {
  (void)state;
  lane_group g;
  lane_group_init(&g);
  leave_log log = {{0}, 0};
  bool created;
  /* [0,100] then nested [10,20] on lane 0 */
  assert_int_equal(lanes_place(&g, 0, 100, 1, log_leave, &log, &created), 0);
  assert_true(created);
  assert_int_equal(lanes_place(&g, 10, 20, 2, log_leave, &log, &created), 0);
  assert_false(created);
  /* [15,30] overlaps [10,20] without nesting: lane 1 */
  assert_int_equal(lanes_place(&g, 15, 30, 3, log_leave, &log, &created), 1);
  assert_true(created);
  /* [25,40]: lane 0 closes [10,20] (leave at 20) and nests in [0,100] */
  assert_int_equal(lanes_place(&g, 25, 40, 4, log_leave, &log, &created), 0);
  assert_int_equal(log.n, 1);
  assert_int_equal(log.leaves[0], 20);
  /* [22,24] starts before lane 0's last write (25): nests on lane 1 */
  assert_int_equal(lanes_place(&g, 22, 24, 5, log_leave, &log, &created), 1);
  assert_false(created);
  lanes_close_all(&g, log_leave, &log);
  /* leaves are in time order per lane: lane 0, then lane 1 */
  assert_int_equal(log.n, 5);
  assert_int_equal(log.leaves[1], 40);
  assert_int_equal(log.leaves[2], 100);
  assert_int_equal(log.leaves[3], 24);
  assert_int_equal(log.leaves[4], 30);
  lane_group_free(&g);
  /* at most LANE_MAX_PER_GROUP lanes */
  lane_group_init(&g);
  for (int i = 0; i < LANE_MAX_PER_GROUP; i++)
    assert_int_equal(lanes_place(&g, i, 1000 + i, 0, NULL, NULL, &created), i);
  assert_int_equal(lanes_place(&g, 500, 2000, 0, NULL, NULL, &created), -1);
  lane_group_free(&g);
}

/* The exact tail, summed term by term in doubles (small n only). */
static double exact_tail(int n, int k, double p) {
  double sum = 0;
  for (int j = k; j <= n; j++) {
    double c = 1;
    for (int i = 0; i < j; i++)
      c = c * (n - i) / (i + 1);
    sum += c * pow(p, j) * pow(1 - p, n - j);
  }
  return sum;
}

/* log10 P(X >= k), X ~ Binomial(n, p), as the verdict computes it: exact
 * against a direct sum, 0 at or below the mean, far tails without
 * underflow. */
static void binomial_tail(void **state) {
  (void)state;
  static const struct {
    int n, k;
    double p;
  } cases[] = {{10, 8, 0.5},    {10, 10, 0.5}, {20, 9, 0.125}, {60, 30, 0.25},
               {99, 40, 0.125}, {40, 40, 0.5}, {7, 3, 0.1}};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    double want = log10(exact_tail(cases[i].n, cases[i].k, cases[i].p));
    double got = strag_log10_binomial_tail((uint64_t)cases[i].n,
                                           (uint64_t)cases[i].k, cases[i].p);
    assert_true(fabs(got - want) < 1e-9 * (1 + fabs(want)));
  }
  /* at or below the mean: no evidence */
  assert_true(strag_log10_binomial_tail(100, 50, 0.5) == 0.0);
  assert_true(strag_log10_binomial_tail(100, 3, 0.125) == 0.0);
  assert_true(strag_log10_binomial_tail(100, 0, 0.3) == 0.0);
  /* impossible counts */
  assert_true(isinf(strag_log10_binomial_tail(10, 11, 0.5)));
  assert_true(isinf(strag_log10_binomial_tail(10, 1, 0.0)));
  /* last in every one of 10^6 instances of 16 ranks: 10^6 * log10(1/16),
   * far below what a double holds, still a finite log */
  double far = strag_log10_binomial_tail(1000000, 1000000, 1.0 / 16);
  assert_true(fabs(far - 1e6 * log10(1.0 / 16)) < 1e-3);
  /* a large count a little beyond the mean: between 0 and the normal
   * approximation's order of magnitude (z = 5: about 3e-7) */
  double mid = strag_log10_binomial_tail(1000000, 62500 + 1210, 1.0 / 16);
  assert_true(mid < -5.5 && mid > -7.5);
}

/* A gap runs from the later of the GPU's previous arrival and the latest
 * completion of another of its operations (at most 100 us after the
 * arrival: chosen by summary_gaps.c): the definition the shipped SQL
 * computes too. */
static void gap_definition(void **state) {
  (void)state;
  /* waited for the GPU: from the completion */
  assert_int_equal(gap_after(1000, 5000, 9000), 4000);
  /* a completion just after the arrival (clock error): negative */
  assert_int_equal(gap_after(1000, 109000, 9000), -100000);
  /* no completion in time (a host ahead of its GPU): from the call */
  assert_int_equal(gap_after(1000, STRAG_UNKNOWN, 9000), 8000);
  /* a completion before the previous call: from the call */
  assert_int_equal(gap_after(6000, 5000, 9000), 3000);
}

/* Of two ranks with the same latest arrival, the lower rank is last,
 * whatever order their reports came in (the SQL has no order to go by). */
static void last_of_equal_arrivals(void **state) {
  (void)state;
  summary s;
  memset(&s, 0, sizeof s);
  const inst_rank reports[] = {
      /* arrival, completion, gap, gpu_wait, rank: ranks 2 and 1 arrive
       * last together, rank 2 reported first */
      {5000, 9000, 700, STRAG_UNKNOWN, 2, STRAG_UNKNOWN, STRAG_UNKNOWN},
      {5000, 9000, 300, STRAG_UNKNOWN, 1, STRAG_UNKNOWN, STRAG_UNKNOWN},
      {1000, 9000, 100, STRAG_UNKNOWN, 0, STRAG_UNKNOWN, STRAG_UNKNOWN},
      {1000, 9000, 100, STRAG_UNKNOWN, 3, STRAG_UNKNOWN, STRAG_UNKNOWN},
  };
  for (int i = 0; i < 4; i++)
    strag_add(&s, 0xc0, 1, 7, 1024, true, 4, &reports[i]);
  assert_int_equal(s.strag.matched[1], 1);
  uint64_t last[4] = {0, 0, 0, 0};
  int64_t wait[4] = {0, 0, 0, 0}, own[4] = {0, 0, 0, 0};
  for (size_t i = 0; i < s.strag.nranks; i++) {
    const rank_row *r = &s.strag.ranks[i];
    assert_true(r->rank >= 0 && r->rank < 4);
    last[r->rank] = r->times_last;
    wait[r->rank] = r->wait_sum;
    own[r->rank] = r->own_wait_sum;
  }
  assert_int_equal(last[1], 1);
  assert_int_equal(last[2], 0);
  /* wait = 5000 - median arrival (1000 + 4000 / 2) = 2000; own = rank 1's
   * gap 300 - median gap (100 + 200 / 2) = 100 (rank 2's would be 500) */
  assert_int_equal(wait[1], 2000);
  assert_int_equal(own[1], 100);
  summary_free(&s);
}

/* A GPU's records written in reverse arrival order, 1000 of them (within
 * the window): the gaps come from the previous record in arrival order all
 * the same, so its peer, late by 10 ns at every call with the same gaps,
 * owns none of it; 3000 of them (beyond the window) are counted as out of
 * order. */
static void gaps_in_arrival_order(void **state) {
  (void)state;
  for (int round = 0; round < 2; round++) {
    int n = round == 0 ? 1000 : 3000;
    summary s;
    memset(&s, 0, sizeof s);
    for (int k = 0; k < n; k++) {
      int i = n - 1 - k; /* rank 0: last call first */
      gap_report r0 = {0xa,
                       (uint64_t)i,
                       1024,
                       1,
                       2,
                       true,
                       {(int64_t)i * 1000000, (int64_t)i * 1000000 + 500000,
                        STRAG_UNKNOWN, STRAG_UNKNOWN, 0, STRAG_UNKNOWN,
                        STRAG_UNKNOWN},
                       0};
      gaps_add(&s, &r0);
    }
    for (int i = 0; i < n; i++) { /* rank 1: in order, 10 ns later */
      gap_report r1 = {0xa,
                       (uint64_t)i,
                       1024,
                       1,
                       2,
                       true,
                       {(int64_t)i * 1000000 + 10,
                        (int64_t)i * 1000000 + 500010, STRAG_UNKNOWN,
                        STRAG_UNKNOWN, 1, STRAG_UNKNOWN, STRAG_UNKNOWN},
                       0};
      gaps_add(&s, &r1);
    }
    strag_finish(&s);
    const rank_row *late = NULL;
    for (size_t i = 0; i < s.strag.nranks; i++)
      if (s.strag.ranks[i].rank == 1)
        late = &s.strag.ranks[i];
    assert_non_null(late);
    assert_int_equal(late->times_last, (uint64_t)n);
    if (round == 0) {
      assert_int_equal(s.strag.gaps_out_of_order, 0);
      /* wait 5 ns each (median of two arrivals: 5 ns before the last);
       * the first call's is start-up skew, the rest inherited */
      assert_int_equal(late->wait_sum, (int64_t)n * 5);
      assert_int_equal(late->unattributed_wait_sum, 5);
      assert_int_equal(late->own_wait_sum, 0);
    } else {
      assert_true(s.strag.gaps_out_of_order > 0);
    }
    summary_free(&s);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(histogram_error_bound),
      cmocka_unit_test(histogram_small_values_exact),
      cmocka_unit_test(bus_factors),
      cmocka_unit_test(map_insert_remove),
      cmocka_unit_test(intern_ids),
      cmocka_unit_test(lanes_nest_and_overflow),
      cmocka_unit_test(binomial_tail),
      cmocka_unit_test(gap_definition),
      cmocka_unit_test(last_of_equal_arrivals),
      cmocka_unit_test(gaps_in_arrival_order),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
