/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/writer/gpu_clock.c — see gpu_clock.h for the model.
 */
#include "gpu_clock.h"

#include <string.h>

/* Drift beyond this is not a clock but noise (or a bug): clamp. */
#define MAX_SLOPE 200e-6

void cs_gpu_clock_init(cs_gpu_clock *g) {
  memset(g, 0, sizeof *g);
}

/* The drift is the change of the lower envelope between the oldest and
 * the newest complete bucket (every minimum carries about the same bias,
 * the fastest observation delay, so it cancels); a least-squares slope
 * through noisy minima would turn microseconds of noise into drift. The
 * line then goes through the lowest point relative to it. */
static void refit(cs_gpu_clock *g) {
  const cs_gpu_bucket *newest = &g->buckets[g->newest];
  const cs_gpu_bucket *oldest = NULL, *complete = NULL;
  int prev = (g->newest + CS_GPU_CLOCK_BUCKETS - 1) % CS_GPU_CLOCK_BUCKETS;
  if (g->buckets[prev].start_ns)
    complete = &g->buckets[prev];
  for (int i = 0; i < CS_GPU_CLOCK_BUCKETS; i++) {
    const cs_gpu_bucket *b = &g->buckets[i];
    if (b->start_ns && (!oldest || b->start_ns < oldest->start_ns))
      oldest = b;
  }
  /* Minima are noisy by tens of ns: 0.4 s of baseline is enough. */
  double slope = 0;
  bool slope_known = complete && oldest && complete != oldest &&
                     complete->host_at_min - oldest->host_at_min >= 400000000;
  if (slope_known)
    slope = (double)(complete->min_offset - oldest->min_offset) /
            (double)(complete->host_at_min - oldest->host_at_min);
  if (slope > MAX_SLOPE)
    slope = MAX_SLOPE;
  if (slope < -MAX_SLOPE)
    slope = -MAX_SLOPE;
  int64_t t0 = newest->host_at_min;
  int64_t y0 = newest->min_offset;
  double best = 0;
  for (int i = 0; i < CS_GPU_CLOCK_BUCKETS; i++) {
    const cs_gpu_bucket *b = &g->buckets[i];
    if (!b->start_ns)
      continue;
    /* Without a drift estimate, old minima would pull the line back. */
    if (!slope_known && b != newest && b != complete)
      continue;
    double resid =
        (double)(b->min_offset - y0) - slope * (double)(b->host_at_min - t0);
    if (resid < best)
      best = resid;
  }
  g->anchor_ns = t0;
  g->base = y0 + (int64_t)(best + (best >= 0 ? 0.5 : -0.5));
  g->slope = slope;
  g->valid = true;
}

void cs_gpu_clock_sample(cs_gpu_clock *g, int64_t host_ns, uint64_t ptimer) {
  int64_t offset = host_ns - (int64_t)ptimer;
  cs_gpu_bucket *b = &g->buckets[g->newest];
  g->samples++;
  if (b->start_ns && host_ns < b->start_ns + CS_GPU_CLOCK_BUCKET_NS &&
      host_ns >= b->start_ns) {
    if (offset >= b->min_offset)
      return; /* not a better bound: the fit stands */
    b->min_offset = offset;
    b->host_at_min = host_ns;
  } else {
    g->newest = (g->newest + 1) % CS_GPU_CLOCK_BUCKETS;
    b = &g->buckets[g->newest];
    b->start_ns = host_ns;
    b->min_offset = offset;
    b->host_at_min = host_ns;
    /* Forget buckets that fell out of the window. */
    for (int i = 0; i < CS_GPU_CLOCK_BUCKETS; i++) {
      cs_gpu_bucket *old = &g->buckets[i];
      if (old->start_ns &&
          host_ns - old->start_ns >
              (int64_t)CS_GPU_CLOCK_BUCKETS * CS_GPU_CLOCK_BUCKET_NS)
        old->start_ns = 0;
    }
  }
  refit(g);
}

bool cs_gpu_clock_to_host(const cs_gpu_clock *g, uint64_t ptimer,
                          int64_t *host_ns) {
  if (!g->valid)
    return false;
  /* Evaluate the offset at the stamp's own (approximate) host time. */
  int64_t approx = (int64_t)ptimer + g->base;
  double drift = g->slope * (double)(approx - g->anchor_ns);
  *host_ns = approx + (int64_t)(drift + (drift >= 0 ? 0.5 : -0.5));
  return true;
}
