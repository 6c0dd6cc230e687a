/*
 * src/plugin/clock.h — the one clock every timestamp comes from.
 *
 * NCCL's threads call cs_clock_now() once per callback: the invariant TSC on
 * x86-64 (about 20 ns here, where clock_gettime costs about 45 ns), the
 * virtual counter on aarch64, CLOCK_MONOTONIC elsewhere or when the TSC is
 * not invariant. The writer thread maps raw ticks to Unix-epoch nanoseconds
 * with a calibration it refreshes against CLOCK_MONOTONIC (long baseline for
 * the rate, latest anchor for the offset); the epoch offset is taken once per
 * session so timestamps within a file never jump.
 */
#ifndef CCLSCOPE_CLOCK_H
#define CCLSCOPE_CLOCK_H

#include <stdatomic.h>
#include <stdint.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

typedef enum { CS_CLOCK_MONOTONIC = 0, CS_CLOCK_COUNTER = 1 } cs_clock_kind;

/* Set once per session, before any thread records (src/plugin/session.c). */
extern _Atomic int cs_clock_source;

static inline uint64_t cs_clock_monotonic_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The hardware counter (falls back to CLOCK_MONOTONIC where there is none). */
static inline uint64_t cs_clock_counter(void) {
#if defined(__x86_64__) || defined(__i386__)
  return __rdtsc();
#elif defined(__aarch64__)
  uint64_t v;
  __asm__ volatile("mrs %0, cntvct_el0" : "=r"(v));
  return v;
#else
  return cs_clock_monotonic_ns();
#endif
}

static inline uint64_t cs_clock_now(void) {
  if (__builtin_expect(
          atomic_load_explicit(&cs_clock_source, memory_order_relaxed) ==
              CS_CLOCK_COUNTER,
          1))
    return cs_clock_counter();
  return cs_clock_monotonic_ns();
}

/* Decide the source: "auto" (counter when invariant), "tsc", "monotonic". */
cs_clock_kind cs_clock_choose(const char *preference);

/* Calibration state, owned by one thread (the writer) after start. */
typedef struct {
  cs_clock_kind kind;
  uint64_t raw0; /* first anchor */
  int64_t mono0;
  uint64_t raw_k; /* latest anchor */
  int64_t mono_k;
  double ns_per_tick;
  uint64_t mult_q32;    /* ns_per_tick in 32.32 fixed point */
  int64_t epoch_k;      /* epoch ns at raw_k */
  int64_t epoch_offset; /* CLOCK_REALTIME - CLOCK_MONOTONIC at start */
} cs_clock_cal;

/* Take the first anchors; with a counter, measures the rate for ~5 ms. */
void cs_clock_cal_start(cs_clock_cal *cal, cs_clock_kind kind);

/* Refresh the rate (long baseline) and the anchor. Cheap; call often. */
void cs_clock_cal_update(cs_clock_cal *cal);

/* Raw ticks -> nanoseconds since the Unix epoch (fixed point: a multiply
 * and a shift; the writer converts several stamps per line). */
static inline int64_t cs_clock_to_epoch_ns(const cs_clock_cal *cal,
                                           uint64_t raw) {
  int64_t delta = (int64_t)(raw - cal->raw_k);
  __int128 scaled = (__int128)delta * (__int128)cal->mult_q32;
  return cal->epoch_k + (int64_t)((scaled + ((__int128)1 << 31)) >> 32);
}

/* Current time in epoch nanoseconds on the same scale (for derived stamps). */
int64_t cs_clock_epoch_now(const cs_clock_cal *cal);

#endif
