/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/plugin/test_clock.c — the tick-to-nanosecond calibration
 * (src/plugin/hot/clock.c): a stamp converted late gets the nanoseconds it got
 * at once, stamps in order stay in order, the mapping tracks
 * CLOCK_MONOTONIC through noisy samples, a large error is stepped, and the
 * cached and spanned conversions give what the search gives.
 *
 * The synthetic tests feed cs_clock_cal_update_with() a counter running at
 * 3 ticks per ns (a 3 GHz TSC) with ±150 ns of sampling noise, the size
 * seen in virtual machines; the live test uses the real counter.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "clock.h"

/* Heap: the calibration remembers its segments (a few KiB). */
static cs_clock_cal *new_counter_cal(void) {
  cs_clock_cal *cal = calloc(1, sizeof *cal);
  assert_non_null(cal);
  /* Start with the real counter (a valid kind and epoch offset), then
   * re-anchor on the synthetic timeline: raw 3e9 ticks = mono 1e9 ns. */
  cs_clock_cal_start(cal, CS_CLOCK_COUNTER);
  cal->raw0 = 3000000000ull;
  cal->mono0 = 1000000000;
  cal->count = 1;
  cal->newest = 0;
  cal->seg[0].raw = cal->raw0;
  cal->seg[0].mono = cal->mono0;
  cal->ns_per_tick = 1.0 / 3.0 * 1.00002; /* a 20 ppm first estimate */
  cal->seg[0].mult_q32 = (uint64_t)(cal->ns_per_tick * 4294967296.0 + 0.5);
  return cal;
}

/* Deterministic noise in [-150, 150] ns. */
static int64_t noise(unsigned *state) {
  *state = *state * 1103515245u + 12345u;
  return (int64_t)((*state >> 8) % 301) - 150;
}

/* Late conversion equals early conversion, and order is kept, across 30 s
 * of 100 ms updates with noisy samples. */
static void test_late_conversion_is_exact(void **state) {
  (void)state;
  cs_clock_cal *cal = new_counter_cal();
  enum { UPDATES = 300, PER_PERIOD = 16 };
  static uint64_t raws[UPDATES * PER_PERIOD];
  static int64_t first[UPDATES * PER_PERIOD];
  unsigned rng = 7;
  size_t n = 0;
  for (int u = 1; u <= UPDATES; u++) {
    /* Stamps taken during the period, converted at once... */
    for (int k = 0; k < PER_PERIOD; k++) {
      uint64_t raw = cal->raw0 + (uint64_t)(u - 1) * 300000000ull +
                     (uint64_t)k * 18750000ull + (uint64_t)(rng % 1000);
      rng = rng * 69069u + 1u;
      raws[n] = raw;
      first[n] = cs_clock_to_epoch_ns(cal, raw);
      n++;
    }
    /* ...then the writer's update at the end of the period. */
    uint64_t raw = cal->raw0 + (uint64_t)u * 300000000ull;
    int64_t mono = cal->mono0 + (int64_t)u * 100000000 + noise(&rng);
    cs_clock_cal_update_with(cal, raw, mono);
  }
  assert_int_equal(cal->steps, 0);
  for (size_t i = 0; i < n; i++) {
    int64_t again = cs_clock_to_epoch_ns(cal, raws[i]);
    if (again != first[i])
      fail_msg("stamp %zu: %lld ns at once, %lld ns later", i,
               (long long)first[i], (long long)again);
    if (i > 0 && raws[i] > raws[i - 1])
      assert_true(again >= cs_clock_to_epoch_ns(cal, raws[i - 1]));
  }
  free(cal);
}

/* Order holds across an update even for stamps a few ns apart: the new
 * segment starts where the old one is (no jump back). */
static void test_no_jump_at_an_update(void **state) {
  (void)state;
  cs_clock_cal *cal = new_counter_cal();
  unsigned rng = 11;
  for (int u = 1; u <= 50; u++) {
    uint64_t raw = cal->raw0 + (uint64_t)u * 300000000ull;
    int64_t mono = cal->mono0 + (int64_t)u * 100000000 + noise(&rng);
    int64_t just_before = cs_clock_to_epoch_ns(cal, raw - 1);
    cs_clock_cal_update_with(cal, raw, mono);
    int64_t at = cs_clock_to_epoch_ns(cal, raw);
    assert_true(at >= just_before);
    assert_true(at - just_before <= 1);
  }
  free(cal);
}

/* The mapping converges on CLOCK_MONOTONIC despite a 20 ppm first rate and
 * noisy samples, and stays within the noise. */
static void test_tracks_the_monotonic_clock(void **state) {
  (void)state;
  cs_clock_cal *cal = new_counter_cal();
  unsigned rng = 3;
  int64_t worst_late = 0;
  for (int u = 1; u <= 200; u++) {
    uint64_t raw = cal->raw0 + (uint64_t)u * 300000000ull;
    int64_t truth = cal->mono0 + (int64_t)u * 100000000;
    if (u > 20) {
      int64_t err = cs_clock_to_epoch_ns(cal, raw) - cal->epoch_offset - truth;
      if (err < 0)
        err = -err;
      if (err > worst_late)
        worst_late = err;
    }
    cs_clock_cal_update_with(cal, raw, truth + noise(&rng));
  }
  /* Noise is ±150 ns; steering keeps the error of the same order. */
  if (worst_late > 600)
    fail_msg("mapping strays %lld ns from CLOCK_MONOTONIC",
             (long long)worst_late);
  free(cal);
}

/* An error beyond CS_CLOCK_STEP_NS (a suspended VM) is taken at once. */
static void test_large_error_is_stepped(void **state) {
  (void)state;
  cs_clock_cal *cal = new_counter_cal();
  uint64_t raw = cal->raw0 + 300000000ull;
  int64_t mono = cal->mono0 + 100000000 + 5000000; /* 5 ms off */
  cs_clock_cal_update_with(cal, raw, mono);
  assert_int_equal(cal->steps, 1);
  assert_int_equal(cs_clock_to_epoch_ns(cal, raw) - cal->epoch_offset, mono);
  free(cal);
}

/* Stamps older than every remembered segment still convert, in order. */
static void test_stamps_older_than_the_history(void **state) {
  (void)state;
  cs_clock_cal *cal = new_counter_cal();
  unsigned rng = 5;
  int64_t at_start = cs_clock_to_epoch_ns(cal, cal->raw0 + 1000);
  int64_t later = cs_clock_to_epoch_ns(cal, cal->raw0 + 2000);
  for (int u = 1; u <= CS_CLOCK_SEGMENTS + 40; u++) {
    uint64_t raw = cal->raw0 + (uint64_t)u * 300000000ull;
    cs_clock_cal_update_with(cal, raw,
                             cal->mono0 + (int64_t)u * 100000000 + noise(&rng));
  }
  assert_int_equal(cal->count, CS_CLOCK_SEGMENTS);
  int64_t a = cs_clock_to_epoch_ns(cal, cal->raw0 + 1000);
  int64_t b = cs_clock_to_epoch_ns(cal, cal->raw0 + 2000);
  assert_true(b > a);
  /* Off by parts per million of a minute at most. */
  assert_true(llabs(a - at_start) < 100000);
  assert_true(llabs(b - later) < 100000);
  free(cal);
}

/* Stamps to convert around segment position `i` (0 the oldest): the ticks
 * on both sides of its start and end, and a few inside. */
static size_t stamps_around(const cs_clock_cal *cal, unsigned i, unsigned *rng,
                            uint64_t *out) {
  unsigned oldest =
      (cal->newest + CS_CLOCK_SEGMENTS - (cal->count - 1)) % CS_CLOCK_SEGMENTS;
  const cs_clock_segment *s = &cal->seg[(oldest + i) % CS_CLOCK_SEGMENTS];
  uint64_t start = s->raw;
  uint64_t end = i + 1 < cal->count
                     ? cal->seg[(oldest + i + 1) % CS_CLOCK_SEGMENTS].raw
                     : start + 300000000ull;
  size_t n = 0;
  out[n++] = start - 1;
  out[n++] = start;
  out[n++] = start + 1;
  for (int k = 0; k < 4; k++) {
    *rng = *rng * 69069u + 1u;
    out[n++] = start + (uint64_t)*rng % (end - start);
  }
  out[n++] = end - 1;
  out[n++] = end;
  out[n++] = end + 1;
  return n;
}

/* Compare the cached conversion with the search on `raw`. */
static void expect_same(const cs_clock_cal *cal, cs_clock_past_cache *cache,
                        uint64_t raw, int update) {
  int64_t searched = cs_clock_to_epoch_ns(cal, raw);
  int64_t cached = cs_clock_to_epoch_ns_cached(cal, cache, raw);
  if (cached != searched)
    fail_msg("after update %d, tick %llu: searched %lld ns, cached %lld ns",
             update, (unsigned long long)raw, (long long)searched,
             (long long)cached);
}

/* The cached conversion gives exactly what the search gives: stamps on
 * both sides of every boundary, walked forwards, backwards and at random,
 * through one cache, while updates (some of them steps, where the mapping
 * jumps, so a neighbouring segment gives other nanoseconds) add segments
 * and push the oldest ones out of the history. */
static void test_cached_conversion_is_the_searched_one(void **state) {
  (void)state;
  cs_clock_cal *cal = new_counter_cal();
  cs_clock_past_cache cache = {0};
  unsigned rng = 17;
  uint64_t raw = cal->raw0;
  int64_t mono = cal->mono0;
  uint64_t stamps[16];
  for (int u = 1; u <= CS_CLOCK_SEGMENTS + 120; u++) {
    /* Periods of uneven length; every 7th update a 3 ms step. */
    rng = rng * 69069u + 1u;
    uint64_t period = 150000000ull + rng % 300000000u;
    raw += period;
    mono += (int64_t)(period / 3) + noise(&rng) + (u % 7 == 0 ? 3000000 : 0);
    /* Before the update: around the oldest period, then inside it, so
     * that the cache holds the oldest segment... */
    size_t n = stamps_around(cal, 0, &rng, stamps);
    for (size_t k = 0; k < n; k++)
      expect_same(cal, &cache, stamps[k], u);
    expect_same(cal, &cache, stamps[1] + 1, u);
    cs_clock_cal_update_with(cal, raw, mono);
    /* ...which the update may push out of the history: the same stamps
     * then map through the next segment, extrapolated backwards. */
    expect_same(cal, &cache, stamps[1] + 1, u);
    for (size_t k = 0; k < n; k++)
      expect_same(cal, &cache, stamps[k], u);
    /* Forwards and backwards over the last few boundaries. */
    unsigned last = cal->count - 1, first = last > 6 ? last - 6 : 0;
    for (unsigned i = first; i <= last; i++) {
      n = stamps_around(cal, i, &rng, stamps);
      for (size_t k = 0; k < n; k++)
        expect_same(cal, &cache, stamps[k], u);
    }
    for (unsigned i = last + 1; i-- > first;) {
      n = stamps_around(cal, i, &rng, stamps);
      for (size_t k = n; k-- > 0;)
        expect_same(cal, &cache, stamps[k], u);
    }
    /* Anywhere in the history. */
    rng = rng * 69069u + 1u;
    n = stamps_around(cal, rng % cal->count, &rng, stamps);
    for (size_t k = 0; k < n; k++)
      expect_same(cal, &cache, stamps[k], u);
  }
  assert_true(cal->steps > 0);
  assert_int_equal(cal->count, CS_CLOCK_SEGMENTS);
  free(cal);
}

/* Stamps converted through the span of an earlier one (`first`, an
 * event's start) give exactly what the search gives, whether the span
 * holds them or they fall back to the cache. */
static void expect_same_through_span(const cs_clock_cal *cal,
                                     cs_clock_past_cache *cache, uint64_t first,
                                     const uint64_t *raws, size_t n,
                                     int update) {
  cs_clock_span sp = cs_clock_span_at(cal, cache, first);
  for (size_t k = 0; k < n; k++) {
    int64_t searched = cs_clock_to_epoch_ns(cal, raws[k]);
    int64_t spanned = cs_clock_span_or_cached(&sp, cal, cache, raws[k]);
    if (spanned != searched)
      fail_msg("after update %d, span of tick %llu, tick %llu: searched %lld "
               "ns, through the span %lld ns",
               update, (unsigned long long)first, (unsigned long long)raws[k],
               (long long)searched, (long long)spanned);
  }
}

/* A span holds the ticks of its segment and no other: from every stamp
 * around every boundary of the recent history (the newest segment
 * included, and the oldest while updates push segments out), the stamps
 * around the same boundary and the next converted through it, as an
 * event's stop and states are after its start. */
static void test_span_conversion_is_the_searched_one(void **state) {
  (void)state;
  cs_clock_cal *cal = new_counter_cal();
  cs_clock_past_cache cache = {0};
  unsigned rng = 29;
  uint64_t raw = cal->raw0;
  int64_t mono = cal->mono0;
  uint64_t here[16], next[16];
  for (int u = 1; u <= CS_CLOCK_SEGMENTS + 60; u++) {
    rng = rng * 69069u + 1u;
    uint64_t period = 150000000ull + rng % 300000000u;
    raw += period;
    mono += (int64_t)(period / 3) + noise(&rng) + (u % 5 == 0 ? 3000000 : 0);
    size_t n = stamps_around(cal, 0, &rng, here);
    cs_clock_cal_update_with(cal, raw, mono);
    /* The oldest segment's stamps, some of them now before the history. */
    for (size_t k = 0; k < n; k++)
      expect_same_through_span(cal, &cache, here[k], here, n, u);
    unsigned last = cal->count - 1, first = last > 4 ? last - 4 : 0;
    for (unsigned i = first; i <= last; i++) {
      n = stamps_around(cal, i, &rng, here);
      size_t m = i < last ? stamps_around(cal, i + 1, &rng, next) : 0;
      for (size_t k = 0; k < n; k++) {
        expect_same_through_span(cal, &cache, here[k], here, n, u);
        expect_same_through_span(cal, &cache, here[k], next, m, u);
      }
    }
  }
  /* The span of a stamp inside an older segment is that segment: its first
   * and last ticks, not the next segment's first. */
  unsigned oldest =
      (cal->newest + CS_CLOCK_SEGMENTS - (cal->count - 1)) % CS_CLOCK_SEGMENTS;
  const cs_clock_segment *s = &cal->seg[(oldest + 10) % CS_CLOCK_SEGMENTS];
  const cs_clock_segment *after = &cal->seg[(oldest + 11) % CS_CLOCK_SEGMENTS];
  cs_clock_span sp = cs_clock_span_at(cal, &cache, s->raw + 5);
  assert_true(cs_clock_span_has(&sp, s->raw));
  assert_true(cs_clock_span_has(&sp, after->raw - 1));
  assert_false(cs_clock_span_has(&sp, after->raw));
  assert_false(cs_clock_span_has(&sp, s->raw - 1));
  /* Before the history: extrapolated, no range. */
  sp = cs_clock_span_at(cal, &cache, cal->seg[oldest].raw - 1000);
  assert_false(cs_clock_span_has(&sp, cal->seg[oldest].raw - 1000));
  free(cal);
}

/* Stamps of one period converted in a row: after the first, no search
 * (the cache holds the period's segment). */
static void test_one_period_needs_one_search(void **state) {
  (void)state;
  cs_clock_cal *cal = new_counter_cal();
  unsigned rng = 23;
  for (int u = 1; u <= 20; u++)
    cs_clock_cal_update_with(cal, cal->raw0 + (uint64_t)u * 300000000ull,
                             cal->mono0 + (int64_t)u * 100000000 + noise(&rng));
  cs_clock_past_cache cache = {0};
  uint64_t period_start = cal->raw0 + 5 * 300000000ull;
  (void)cs_clock_to_epoch_ns_cached(cal, &cache, period_start + 10);
  assert_true(cache.valid);
  assert_int_equal(cache.seg.raw, period_start);
  assert_int_equal(cache.end, period_start + 300000000ull);
  unsigned searched_slot = cache.index;
  for (uint64_t t = period_start; t < period_start + 300000000ull;
       t += 1000003ull)
    assert_int_equal(cs_clock_to_epoch_ns_cached(cal, &cache, t),
                     cs_clock_to_epoch_ns(cal, t));
  /* Still the same segment: nothing was searched again. */
  assert_int_equal(cache.index, searched_slot);
  assert_int_equal(cache.seg.raw, period_start);
  free(cal);
}

/* The real counter: stamps taken in order on this thread, converted after
 * many real updates, are in order and near CLOCK_MONOTONIC. */
static void test_live_counter(void **state) {
  (void)state;
  cs_clock_cal *cal = calloc(1, sizeof *cal);
  assert_non_null(cal);
  cs_clock_cal_start(cal, cs_clock_choose("auto"));
  enum { N = 2000 };
  static uint64_t raws[N];
  static int64_t first[N];
  for (int i = 0; i < N; i++) {
    raws[i] = cal->kind == CS_CLOCK_COUNTER ? cs_clock_counter()
                                            : cs_clock_monotonic_ns();
    first[i] = cs_clock_to_epoch_ns(cal, raws[i]);
    if (i % 20 == 19)
      cs_clock_cal_update(cal);
  }
  for (int i = 0; i < N; i++) {
    assert_int_equal(cs_clock_to_epoch_ns(cal, raws[i]), first[i]);
    if (i > 0)
      assert_true(first[i] >= first[i - 1]);
  }
  int64_t mono = (int64_t)cs_clock_monotonic_ns();
  int64_t mapped = cs_clock_epoch_now(cal) - cal->epoch_offset;
  assert_true(llabs(mapped - mono) < 1000000);
  free(cal);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_late_conversion_is_exact),
      cmocka_unit_test(test_no_jump_at_an_update),
      cmocka_unit_test(test_tracks_the_monotonic_clock),
      cmocka_unit_test(test_large_error_is_stepped),
      cmocka_unit_test(test_stamps_older_than_the_history),
      cmocka_unit_test(test_cached_conversion_is_the_searched_one),
      cmocka_unit_test(test_span_conversion_is_the_searched_one),
      cmocka_unit_test(test_one_period_needs_one_search),
      cmocka_unit_test(test_live_counter),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
