/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/read/ptimer_fit.h — putting the GPU `pTimer` stamps of a
 * minimal_profiler file (KernelCh start and stop: %globaltimer ns, a clock
 * of each GPU's own) on the file's host clock, from everything the file
 * says about each GPU.
 *
 * Two kinds of evidence, per GPU and per half second of host time:
 *   - upper bounds of the offset (host - GPU clock): a callback that
 *     reports a stamp runs after the GPU wrote it (docs/nccl-behaviour.md
 *     §9), so `callback ts - pTimer` is never below the true offset. The
 *     smallest per bucket is kept (the lower envelope, as the plugin's
 *     writer/gpu_clock.h does online).
 *   - lower bounds: a CUPTI kernel record on the host clock that started
 *     the work which wrote a stamp (the kernel starts before its blocks
 *     read %globaltimer), so `kernel start - pTimer` is never above it.
 *     The largest per bucket is kept.
 * A stamp is converted with the bounds of the buckets within 8 s of the
 * time it was observed, moved along the GPU's drift (the change of the
 * upper envelope between its first and last bucket, clamped to 200 ppm):
 * the largest lower bound when there is one and it is not above the
 * smallest upper bound nor more than 1 s below it (otherwise the CUPTI
 * times are not on the trace's clock; within those limits it is within
 * the kernel's start-up, a few µs, of the truth, however late the proxy
 * thread saw the stamps), else
 * the smallest upper bound (late by the fastest observation, usually a
 * µs or two, but by as much as the proxy thread slept when it polled
 * rarely). Durations between two stamps of one GPU need no conversion.
 *
 * Memory: 48 bytes per GPU and half second that has stamps.
 */
#ifndef CCLSCOPE_CLI_PTIMER_FIT_H
#define CCLSCOPE_CLI_PTIMER_FIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/pair_map.h"

typedef struct ptf_bucket ptf_bucket;
typedef struct ptf_gpu ptf_gpu;

typedef struct {
  ptf_bucket *buckets;
  size_t nbuckets, cap_buckets;
  pair_map index; /* (gpu, bucket number) -> index + 1 (before ptf_finish) */
  ptf_gpu *gpus;  /* after ptf_finish: per GPU its run of buckets */
  size_t ngpus;
  bool finished;
  bool oom;
} ptimer_fit;

void ptf_init(ptimer_fit *f);
void ptf_free(ptimer_fit *f);

/* The host saw `ptimer` of GPU `gpu` at `host_ns` (an upper bound). */
void ptf_seen(ptimer_fit *f, uint64_t gpu, int64_t host_ns, uint64_t ptimer);
/* The work that wrote `ptimer` started at `host_ns` or later (a lower
 * bound). */
void ptf_not_before(ptimer_fit *f, uint64_t gpu, int64_t host_ns,
                    uint64_t ptimer);

/* No more evidence: sort and fit. False when out of memory. */
bool ptf_finish(ptimer_fit *f);

/* `ptimer` of `gpu`, observed about `near_ns` (host), on the host clock;
 * false when the GPU has no evidence within 8 s of it. *anchored says
 * whether a lower bound (a CUPTI kernel) placed it. */
bool ptf_to_host(const ptimer_fit *f, uint64_t gpu, uint64_t ptimer,
                 int64_t near_ns, int64_t *host_ns, bool *anchored);

#endif
