/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/hot/clock.c — choosing the clock source and calibrating raw ticks
 * against CLOCK_MONOTONIC / CLOCK_REALTIME (see clock.h for the model).
 */
#include "clock.h"

#include <stdbool.h>
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

_Atomic int cs_clock_source = CS_CLOCK_MONOTONIC;

static bool counter_is_invariant(void) {
#if defined(__x86_64__) || defined(__i386__)
  unsigned a, b, c, d;
  if (!__get_cpuid(0x80000000u, &a, &b, &c, &d) || a < 0x80000007u)
    return false;
  __get_cpuid(0x80000007u, &a, &b, &c, &d);
  return (d >> 8) & 1u; /* invariant TSC */
#elif defined(__aarch64__)
  return true; /* the generic timer's virtual counter is architecturally fixed
                */
#else
  return false;
#endif
}

cs_clock_kind cs_clock_choose(const char *preference) {
  if (preference && strcmp(preference, "monotonic") == 0)
    return CS_CLOCK_MONOTONIC;
#if defined(__x86_64__) || defined(__i386__) || defined(__aarch64__)
  if (preference && strcmp(preference, "tsc") == 0)
    return CS_CLOCK_COUNTER;
  return counter_is_invariant() ? CS_CLOCK_COUNTER : CS_CLOCK_MONOTONIC;
#else
  return CS_CLOCK_MONOTONIC;
#endif
}

static uint64_t read_raw(cs_clock_kind kind) {
  return kind == CS_CLOCK_MONOTONIC ? cs_clock_monotonic_ns()
                                    : cs_clock_counter();
}

/* One (raw, monotonic) pair, the tightest of a few tries. */
static void sample_pair(cs_clock_kind kind, uint64_t *raw, int64_t *mono) {
  uint64_t best_gap = UINT64_MAX;
  for (int i = 0; i < 8; i++) {
    uint64_t a = read_raw(kind);
    int64_t m = (int64_t)cs_clock_monotonic_ns();
    uint64_t b = read_raw(kind);
    if (b - a < best_gap) {
      best_gap = b - a;
      *raw = a + (b - a) / 2;
      *mono = m;
    }
  }
}

/* The i-th remembered segment, 0 the oldest. */
static const cs_clock_segment *segment_at(const cs_clock_cal *cal, unsigned i) {
  unsigned oldest =
      (cal->newest + CS_CLOCK_SEGMENTS - (cal->count - 1)) % CS_CLOCK_SEGMENTS;
  return &cal->seg[(oldest + i) % CS_CLOCK_SEGMENTS];
}

static void push_segment(cs_clock_cal *cal, uint64_t raw, int64_t mono,
                         double ns_per_tick) {
  cal->newest = (cal->newest + 1) % CS_CLOCK_SEGMENTS;
  if (cal->count < CS_CLOCK_SEGMENTS)
    cal->count++;
  cs_clock_segment *s = &cal->seg[cal->newest];
  s->raw = raw;
  s->mono = mono;
  s->mult_q32 = (uint64_t)(ns_per_tick * 4294967296.0 + 0.5);
}

void cs_clock_cal_start(cs_clock_cal *cal, cs_clock_kind kind) {
  struct timespec rt, mt;
  memset(cal, 0, sizeof *cal);
  cal->kind = kind;
  clock_gettime(CLOCK_REALTIME, &rt);
  clock_gettime(CLOCK_MONOTONIC, &mt);
  cal->epoch_offset = ((int64_t)rt.tv_sec - (int64_t)mt.tv_sec) * 1000000000 +
                      ((int64_t)rt.tv_nsec - (int64_t)mt.tv_nsec);
  cal->newest = CS_CLOCK_SEGMENTS - 1; /* the first push lands at 0 */
  if (kind == CS_CLOCK_MONOTONIC) {
    /* Raw values are CLOCK_MONOTONIC nanoseconds: one segment, rate 1. */
    cal->ns_per_tick = 1.0;
    push_segment(cal, 0, 0, 1.0);
    return;
  }
  sample_pair(kind, &cal->raw0, &cal->mono0);
  /* A first rate from a short busy wait; refined on every update. */
  int64_t until = cal->mono0 + 5000000;
  while ((int64_t)cs_clock_monotonic_ns() < until) {
  }
  uint64_t raw;
  int64_t mono;
  sample_pair(kind, &raw, &mono);
  cal->ns_per_tick =
      raw > cal->raw0 ? (double)(mono - cal->mono0) / (double)(raw - cal->raw0)
                      : 1.0;
  push_segment(cal, raw, mono, cal->ns_per_tick);
}

void cs_clock_cal_update_with(cs_clock_cal *cal, uint64_t raw, int64_t mono) {
  if (cal->kind == CS_CLOCK_MONOTONIC)
    return;
  const cs_clock_segment *last = &cal->seg[cal->newest];
  if (raw <= last->raw || raw <= cal->raw0 || mono <= cal->mono0)
    return;
  cal->ns_per_tick = (double)(mono - cal->mono0) / (double)(raw - cal->raw0);
  int64_t mapped = cs_clock_segment_ns(last, raw);
  int64_t error = mono - mapped;
  if (error > CS_CLOCK_STEP_NS || error < -CS_CLOCK_STEP_NS) {
    cal->steps++;
    push_segment(cal, raw, mono, cal->ns_per_tick);
    return;
  }
  /* Continue from where the mapping is, and close the error over one more
   * period as long as the last one, bending the rate by a bounded amount. */
  double period_ticks = (double)(raw - last->raw);
  double bend = (double)error / (period_ticks * cal->ns_per_tick);
  double limit = CS_CLOCK_MAX_SLEW_PPM * 1e-6;
  if (bend > limit)
    bend = limit;
  if (bend < -limit)
    bend = -limit;
  push_segment(cal, raw, mapped, cal->ns_per_tick * (1.0 + bend));
}

void cs_clock_cal_update(cs_clock_cal *cal) {
  uint64_t raw;
  int64_t mono;
  if (cal->kind == CS_CLOCK_MONOTONIC)
    return;
  sample_pair(cal->kind, &raw, &mono);
  cs_clock_cal_update_with(cal, raw, mono);
}

/* Position (0 the oldest) of the last segment starting at or before raw;
 * the oldest when none does. */
static unsigned past_position(const cs_clock_cal *cal, uint64_t raw) {
  unsigned lo = 0, hi = cal->count; /* answer in [lo, hi) */
  while (hi - lo > 1) {
    unsigned mid = lo + (hi - lo) / 2;
    if ((int64_t)(raw - segment_at(cal, mid)->raw) >= 0)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

int64_t cs_clock_past_to_epoch_ns(const cs_clock_cal *cal, uint64_t raw) {
  return cal->epoch_offset +
         cs_clock_segment_ns(segment_at(cal, past_position(cal, raw)), raw);
}

/* The cached segment, when it was the oldest: it covers the ticks before
 * it too (the inline check takes those from its start on). It stays the
 * oldest until an update pushes it out, which overwrites its slot. */
static bool cached_oldest_covers(const cs_clock_cal *cal,
                                 const cs_clock_past_cache *cache,
                                 uint64_t raw) {
  return cache->valid && cache->oldest && (int64_t)(raw - cache->end) < 0 &&
         cal->seg[cache->index].raw == cache->seg.raw;
}

int64_t cs_clock_past_to_epoch_ns_cached(const cs_clock_cal *cal,
                                         cs_clock_past_cache *cache,
                                         uint64_t raw) {
  if (cached_oldest_covers(cal, cache, raw))
    return cal->epoch_offset + cs_clock_segment_ns(&cache->seg, raw);
  unsigned at = past_position(cal, raw);
  const cs_clock_segment *s = segment_at(cal, at);
  /* Called for stamps before the newest segment only, so one follows;
   * with a single segment (a monotonic clock) nothing is cached. */
  if (at + 1 < cal->count) {
    cache->seg = *s;
    cache->end = segment_at(cal, at + 1)->raw;
    cache->index = (unsigned)(s - cal->seg);
    cache->oldest = at == 0;
    cache->valid = true;
  }
  return cal->epoch_offset + cs_clock_segment_ns(s, raw);
}

cs_clock_span cs_clock_past_span(const cs_clock_cal *cal,
                                 cs_clock_past_cache *cache, uint64_t raw) {
  cs_clock_span sp = {.epoch_offset = cal->epoch_offset};
  unsigned at = past_position(cal, raw);
  const cs_clock_segment *s = segment_at(cal, at);
  sp.seg = *s;
  /* Cached as cs_clock_past_to_epoch_ns_cached does. A single segment (a
   * monotonic clock) has no bound; a stamp before the oldest segment is
   * extrapolated: neither gets a range. */
  if (at + 1 < cal->count) {
    uint64_t end = segment_at(cal, at + 1)->raw;
    cache->seg = *s;
    cache->end = end;
    cache->index = (unsigned)(s - cal->seg);
    cache->oldest = at == 0;
    cache->valid = true;
    if ((int64_t)(raw - s->raw) >= 0)
      sp.ticks = end - s->raw;
  }
  return sp;
}

int64_t cs_clock_epoch_now(const cs_clock_cal *cal) {
  return cs_clock_to_epoch_ns(cal, read_raw(cal->kind));
}
