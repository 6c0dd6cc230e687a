/*
 * src/plugin/clock.c — choosing the clock source and calibrating raw ticks
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

/* Derived fields used by the inline conversion. */
static void refresh_fixed_point(cs_clock_cal *cal) {
  cal->mult_q32 = (uint64_t)(cal->ns_per_tick * 4294967296.0 + 0.5);
  cal->epoch_k = cal->mono_k + cal->epoch_offset;
}

void cs_clock_cal_start(cs_clock_cal *cal, cs_clock_kind kind) {
  struct timespec rt, mt;
  memset(cal, 0, sizeof *cal);
  cal->kind = kind;
  clock_gettime(CLOCK_REALTIME, &rt);
  clock_gettime(CLOCK_MONOTONIC, &mt);
  cal->epoch_offset = ((int64_t)rt.tv_sec - (int64_t)mt.tv_sec) * 1000000000 +
                      ((int64_t)rt.tv_nsec - (int64_t)mt.tv_nsec);
  if (kind == CS_CLOCK_MONOTONIC) {
    /* Raw values are CLOCK_MONOTONIC nanoseconds: anchor at 0, rate 1. */
    cal->ns_per_tick = 1.0;
    refresh_fixed_point(cal);
    return;
  }
  sample_pair(kind, &cal->raw0, &cal->mono0);
  /* A first rate from a short busy wait; refined on every update. */
  int64_t until = cal->mono0 + 5000000;
  while ((int64_t)cs_clock_monotonic_ns() < until) {
  }
  sample_pair(kind, &cal->raw_k, &cal->mono_k);
  cal->ns_per_tick = cal->raw_k > cal->raw0
                         ? (double)(cal->mono_k - cal->mono0) /
                               (double)(cal->raw_k - cal->raw0)
                         : 1.0;
  refresh_fixed_point(cal);
}

void cs_clock_cal_update(cs_clock_cal *cal) {
  uint64_t raw;
  int64_t mono;
  if (cal->kind == CS_CLOCK_MONOTONIC)
    return;
  sample_pair(cal->kind, &raw, &mono);
  if (raw <= cal->raw0 || mono <= cal->mono0)
    return;
  cal->ns_per_tick = (double)(mono - cal->mono0) / (double)(raw - cal->raw0);
  cal->raw_k = raw;
  cal->mono_k = mono;
  refresh_fixed_point(cal);
}

int64_t cs_clock_epoch_now(const cs_clock_cal *cal) {
  return cs_clock_to_epoch_ns(cal, read_raw(cal->kind));
}
