/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/writer/gpu_clock.h — mapping a GPU's %globaltimer (KernelCh and
 * KernelPhase pTimers) onto the host clock of the trace.
 *
 * Every KernelCh callback happens after the GPU wrote its stamp, so
 * `host_now - pTimer` is an upper bound of the offset between the clocks
 * (docs/nccl-behaviour.md §9). Per GPU we keep the minimum of these bounds
 * per half-second bucket (the lower envelope) and fit a line through the
 * bucket minima of the last few seconds, which follows a drifting clock.
 * A converted stamp is therefore at most "the fastest observation delay"
 * late, typically a microsecond or two. Durations between two stamps of
 * the same GPU need no conversion and are exact up to the timer's tick.
 * Writer thread only.
 */
#ifndef CCLSCOPE_GPU_CLOCK_H
#define CCLSCOPE_GPU_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

#define CS_GPU_CLOCK_BUCKETS 16          /* a sliding window of 8 s */
#define CS_GPU_CLOCK_BUCKET_NS 500000000 /* 0.5 s */

typedef struct {
  int64_t start_ns; /* host time the bucket begins; 0 = empty */
  int64_t min_offset;
  int64_t host_at_min;
} cs_gpu_bucket;

typedef struct {
  cs_gpu_bucket buckets[CS_GPU_CLOCK_BUCKETS];
  int newest; /* index of the newest bucket */
  bool valid;
  /* Fitted offset(t) = base + slope * (t - anchor), refreshed per sample.
   * Large values stay integers: a double holds ~1e18 ns only to ~256 ns. */
  int64_t anchor_ns;
  int64_t base;
  double slope; /* ns of offset per ns of host time (drift) */
  uint64_t samples;
} cs_gpu_clock;

void cs_gpu_clock_init(cs_gpu_clock *g);

/* One observation: the host saw `ptimer` at `host_ns` (epoch ns). */
void cs_gpu_clock_sample(cs_gpu_clock *g, int64_t host_ns, uint64_t ptimer);

/* `ptimer` in host epoch ns; false until a sample was seen. */
bool cs_gpu_clock_to_host(const cs_gpu_clock *g, uint64_t ptimer,
                          int64_t *host_ns);

#endif
