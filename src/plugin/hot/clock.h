/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/hot/clock.h — the one clock every timestamp comes from.
 *
 * NCCL's threads call cs_clock_now() once per callback: the invariant TSC on
 * x86-64 (about 20 ns here, where clock_gettime costs about 45 ns), the
 * virtual counter on aarch64, CLOCK_MONOTONIC elsewhere or when the TSC is
 * not invariant. The writer thread maps raw ticks to Unix-epoch nanoseconds
 * with a calibration it extends against CLOCK_MONOTONIC (see below); the
 * epoch offset is taken once per session so timestamps within a file never
 * jump when the wall clock is set.
 */
#ifndef CCLSCOPE_CLOCK_H
#define CCLSCOPE_CLOCK_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

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
  /* The compiler's builtin (gcc and clang), not <x86intrin.h>: that header
   * brings some 60,000 lines of vector intrinsics into every file that
   * includes this one, most of the plugin's compile time. */
  return __builtin_ia32_rdtsc();
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

/*
 * Calibration. Raw ticks map to nanoseconds through a continuous,
 * piecewise-linear function that the writer extends every 100 ms and never
 * rewrites: each update starts a new segment at the current tick, with the
 * value the previous segment gives there (no jump) and a slope that steers
 * the small measured error against CLOCK_MONOTONIC to zero over the next
 * period. The last CS_CLOCK_SEGMENTS segments are remembered, so a stamp
 * converted late (a parent's start, formatted when it stops) gets exactly
 * the nanoseconds it would have got at once: two stamps taken in order on
 * any thread stay in order in the trace. Older stamps use the oldest segment
 * extrapolated backwards (off by parts per million of their age at most).
 * An error over CS_CLOCK_STEP_NS (suspend, a clock step) is taken at once.
 */
#define CS_CLOCK_SEGMENTS 512     /* 51 s at the writer's 100 ms */
#define CS_CLOCK_STEP_NS 1000000  /* errors above 1 ms: jump */
#define CS_CLOCK_MAX_SLEW_PPM 500 /* steering never bends the rate more */

typedef struct {
  uint64_t raw;      /* first tick of the segment */
  int64_t mono;      /* CLOCK_MONOTONIC ns the mapping gives at raw */
  uint64_t mult_q32; /* ns per tick in 32.32 fixed point */
} cs_clock_segment;

/* Owned by one thread (the writer) after start. */
typedef struct {
  cs_clock_kind kind;
  uint64_t raw0; /* first anchor: the long baseline for the rate */
  int64_t mono0;
  double ns_per_tick;   /* measured rate over the whole baseline */
  int64_t epoch_offset; /* CLOCK_REALTIME - CLOCK_MONOTONIC at start */
  uint64_t steps;       /* updates that had to jump */
  unsigned newest;      /* index of the newest segment */
  unsigned count;       /* segments remembered (1..CS_CLOCK_SEGMENTS) */
  cs_clock_segment seg[CS_CLOCK_SEGMENTS];
} cs_clock_cal;

/* Take the first anchors; with a counter, measures the rate for ~5 ms. */
void cs_clock_cal_start(cs_clock_cal *cal, cs_clock_kind kind);

/* Refresh the rate (long baseline) and start a new segment. Cheap. */
void cs_clock_cal_update(cs_clock_cal *cal);

/* The same with a given (raw, monotonic) sample: the update's arithmetic,
 * exposed so tests can feed it noisy or stepped samples. */
void cs_clock_cal_update_with(cs_clock_cal *cal, uint64_t raw, int64_t mono);

static inline int64_t cs_clock_segment_ns(const cs_clock_segment *s,
                                          uint64_t raw) {
  int64_t delta = (int64_t)(raw - s->raw);
  __int128 scaled = (__int128)delta * (__int128)s->mult_q32;
  return s->mono + (int64_t)((scaled + ((__int128)1 << 31)) >> 32);
}

/* The same for a tick at or after the segment's start, as every caller
 * but the backwards extrapolation has checked: an unsigned multiply, the
 * same nanoseconds (the product of a non-negative delta is the same
 * either way). */
static inline int64_t cs_clock_segment_ns_after(const cs_clock_segment *s,
                                                uint64_t raw) {
  unsigned __int128 scaled = (unsigned __int128)(raw - s->raw) * s->mult_q32;
  return s->mono + (int64_t)(uint64_t)((scaled + (1u << 31)) >> 32);
}

/* Stamps before the newest segment: find the segment that covered them. */
int64_t cs_clock_past_to_epoch_ns(const cs_clock_cal *cal, uint64_t raw);

/*
 * The segment the last older stamp was converted with, so that the next
 * ones of the same period need no search: the writer converts a parent's
 * start, a state's stamp or a backlog drained late one after another, all
 * from the same 100 ms. A copy of the segment and the first tick of the
 * next one (segments are never rewritten, so the range stays right while
 * the slot still holds it). One per consumer (not thread-safe); all zero
 * is empty. The answers are exactly cs_clock_past_to_epoch_ns's.
 */
typedef struct {
  cs_clock_segment seg; /* copy of the segment found last */
  uint64_t end;         /* first tick of the segment after it */
  unsigned index;       /* its slot in cal->seg */
  bool oldest;          /* it was the oldest: earlier ticks map through it */
  bool valid;
} cs_clock_past_cache;

/* cs_clock_past_to_epoch_ns, remembering the segment in `cache`. */
int64_t cs_clock_past_to_epoch_ns_cached(const cs_clock_cal *cal,
                                         cs_clock_past_cache *cache,
                                         uint64_t raw);

/* Raw ticks -> nanoseconds since the Unix epoch (a compare, a multiply and
 * a shift for recent stamps; the writer converts several per line). */
static inline int64_t cs_clock_to_epoch_ns(const cs_clock_cal *cal,
                                           uint64_t raw) {
  const cs_clock_segment *s = &cal->seg[cal->newest];
  if (__builtin_expect((int64_t)(raw - s->raw) >= 0, 1))
    return cal->epoch_offset + cs_clock_segment_ns_after(s, raw);
  return cs_clock_past_to_epoch_ns(cal, raw);
}

/* The same, an older stamp in the cached segment costing what a recent one
 * does: a compare more, no search. */
static inline int64_t cs_clock_to_epoch_ns_cached(const cs_clock_cal *cal,
                                                  cs_clock_past_cache *cache,
                                                  uint64_t raw) {
  const cs_clock_segment *s = &cal->seg[cal->newest];
  if (__builtin_expect((int64_t)(raw - s->raw) >= 0, 1))
    return cal->epoch_offset + cs_clock_segment_ns_after(s, raw);
  if (cache->valid && (int64_t)(raw - cache->seg.raw) >= 0 &&
      (int64_t)(raw - cache->end) < 0 &&
      cal->seg[cache->index].raw == cache->seg.raw)
    return cal->epoch_offset + cs_clock_segment_ns_after(&cache->seg, raw);
  return cs_clock_past_to_epoch_ns_cached(cal, cache, raw);
}

/*
 * The segment one stamp fell in, to convert the stamps that follow it (an
 * event's stop and states after its start) with a range check instead of
 * the lookups above: a copy, so that nothing the caller stores can change
 * it, and the ticks it covers from its first on (0: none, when the stamp
 * fell before the oldest segment or no later one bounds it). Valid while
 * the calibration is not updated, which only its owner, the thread that
 * converts, does: take one per event. The answers are exactly
 * cs_clock_to_epoch_ns's.
 */
typedef struct {
  cs_clock_segment seg; /* copy of the segment */
  uint64_t ticks;       /* ticks it covers from seg.raw on */
  int64_t epoch_offset; /* the calibration's */
} cs_clock_span;

/* Does the span hold `raw`? (One subtraction and one compare.) */
static inline bool cs_clock_span_has(const cs_clock_span *sp, uint64_t raw) {
  return raw - sp->seg.raw < sp->ticks;
}

/* `raw`, which the span holds, in epoch nanoseconds. */
static inline int64_t cs_clock_span_ns(const cs_clock_span *sp, uint64_t raw) {
  return sp->epoch_offset + cs_clock_segment_ns_after(&sp->seg, raw);
}

/* The span of an older stamp, found through the cache (out of line). */
cs_clock_span cs_clock_past_span(const cs_clock_cal *cal,
                                 cs_clock_past_cache *cache, uint64_t raw);

/* The span of the segment `raw` falls in: the newest (which covers every
 * later tick until the next update), the cached one, or a search. */
static inline cs_clock_span cs_clock_span_at(const cs_clock_cal *cal,
                                             cs_clock_past_cache *cache,
                                             uint64_t raw) {
  const cs_clock_segment *s = &cal->seg[cal->newest];
  if (__builtin_expect((int64_t)(raw - s->raw) >= 0, 1))
    return (cs_clock_span){.seg = *s,
                           .ticks = UINT64_C(1) << 63,
                           .epoch_offset = cal->epoch_offset};
  if (cache->valid && (int64_t)(raw - cache->seg.raw) >= 0 &&
      (int64_t)(raw - cache->end) < 0 &&
      cal->seg[cache->index].raw == cache->seg.raw)
    return (cs_clock_span){.seg = cache->seg,
                           .ticks = cache->end - cache->seg.raw,
                           .epoch_offset = cal->epoch_offset};
  return cs_clock_past_span(cal, cache, raw);
}

/* `raw` through the span when it holds it, else through the cache. */
static inline int64_t cs_clock_span_or_cached(const cs_clock_span *sp,
                                              const cs_clock_cal *cal,
                                              cs_clock_past_cache *cache,
                                              uint64_t raw) {
  if (__builtin_expect(cs_clock_span_has(sp, raw), 1))
    return cs_clock_span_ns(sp, raw);
  return cs_clock_to_epoch_ns_cached(cal, cache, raw);
}

/* Current time in epoch nanoseconds on the same scale (for derived stamps). */
int64_t cs_clock_epoch_now(const cs_clock_cal *cal);

#endif
