/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/emu/nccl/emu_model.c — owns the numbers: protocol/algorithm choice by
 * size, channel and warp counts, the ring step formulas of nccl-behaviour §8.3
 * (nsteps = nstepsPerLoop x nLoops x chunkSteps; profiler nSteps =
 * nsteps/sliceSteps), the bandwidth/latency model and the fake GPU clock.
 *
 * Protocol buffers (NCCL defaults): SIMPLE 4 MiB / 8 steps = 512 KiB per
 * step, chunkSteps 4, sliceSteps 2; LL 256 KiB (half is flags) -> 16 KiB of
 * data per step, chunkSteps = sliceSteps = 1; LL128 ~4.7 MiB with 120/128 of
 * each line data, chunkSteps = sliceSteps = 1.
 */
#include "nccl/emu_model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DIVUP(a, b) (((a) + (b)-1) / (b))
#define KIB (1024ULL)
#define MIB (1024ULL * 1024ULL)

static int ring_steps_per_loop(emu_func f, int n) {
  switch (f) {
  case EMU_FUNC_ALLREDUCE:
    return 2 * (n - 1);
  case EMU_FUNC_ALLGATHER:
  case EMU_FUNC_REDUCESCATTER:
    return n - 1;
  default:
    return 1; /* Broadcast, Reduce: a chain */
  }
}

static int ring_chunks_per_loop(emu_func f, int n) {
  switch (f) {
  case EMU_FUNC_ALLREDUCE:
  case EMU_FUNC_ALLGATHER:
  case EMU_FUNC_REDUCESCATTER:
    return n;
  default:
    return 1;
  }
}

void emu_model_coll(emu_coll_shape *s, emu_func func, uint64_t bytes,
                    int nranks, int max_channels) {
  memset(s, 0, sizeof *s);
  s->algo = "RING";
  /* Total bytes on the wire per rank decide the protocol. */
  uint64_t total = bytes;
  if (func == EMU_FUNC_ALLGATHER)
    total = bytes * (uint64_t)nranks;
  if (total <= 64 * KIB) {
    s->proto = "LL";
    s->nwarps = 8;
    s->step_size = 32 * KIB; /* 256 KiB buffer / 8; half is flags */
    s->chunk_steps = 1;
    s->slice_steps = 1;
    s->chunk_size = s->step_size / 2;
  } else if (total <= 4 * MIB) {
    s->proto = "LL128";
    s->nwarps = 16;
    s->step_size = 600 * KIB;
    s->chunk_steps = 1;
    s->slice_steps = 1;
    s->chunk_size = s->step_size * 120 / 128;
  } else {
    s->proto = "SIMPLE";
    s->nwarps = 16;
    s->step_size = 512 * KIB; /* 4 MiB buffer / NCCL_STEPS */
    s->chunk_steps = 4;
    s->slice_steps = 2;
    s->chunk_size = s->step_size * (uint64_t)s->chunk_steps;
  }
  /* Channels grow with the size: one per 512 KiB, at least 1. */
  int nc = (int)DIVUP(total, 512 * KIB);
  if (nc < 1)
    nc = 1;
  if (nc > max_channels)
    nc = max_channels;
  s->nchannels = nc;
  s->nsteps_per_loop = ring_steps_per_loop(func, nranks);
  s->nchunks_per_loop = ring_chunks_per_loop(func, nranks);
  uint64_t data = func == EMU_FUNC_ALLGATHER ? bytes * (uint64_t)nranks : bytes;
  uint64_t loop_size =
      (uint64_t)nc * (uint64_t)s->nchunks_per_loop * s->chunk_size;
  s->nloops = (int)DIVUP(data, loop_size);
  if (s->nloops < 1)
    s->nloops = 1;
  s->nsteps = s->nsteps_per_loop * s->nloops * s->chunk_steps;
  s->profiler_steps = (int)DIVUP(s->nsteps, s->slice_steps);
  /* One profiler step moves sliceSteps step buffers at most; the data of a
   * chunk is spread over the steps of its chunk. */
  uint64_t chunk_data =
      DIVUP(data, (uint64_t)nc * (uint64_t)s->nchunks_per_loop * s->nloops);
  uint64_t per_step = s->step_size * (uint64_t)s->slice_steps;
  if (strcmp(s->proto, "SIMPLE") != 0)
    per_step = s->chunk_size;
  uint64_t steps_per_chunk = (uint64_t)DIVUP(s->chunk_steps, s->slice_steps);
  uint64_t spread = DIVUP(chunk_data, steps_per_chunk);
  s->step_bytes = spread < per_step ? spread : per_step;
  s->channel_bytes = s->step_bytes * (uint64_t)s->profiler_steps;
}

void emu_model_p2p(emu_coll_shape *s, uint64_t bytes, int max_channels) {
  memset(s, 0, sizeof *s);
  s->algo = "RING";
  s->proto = "SIMPLE";
  s->nwarps = 16;
  s->chunk_size = 128 * KIB;
  s->step_size = s->chunk_size;
  s->chunk_steps = 1;
  s->slice_steps = 1;
  int nc = bytes >= 1 * MIB ? 2 : 1; /* NCCL_NCHANNELS_PER_NET_PEER */
  if (nc > max_channels)
    nc = max_channels;
  s->nchannels = nc;
  uint64_t part = DIVUP(bytes, (uint64_t)nc);
  s->nsteps = part == 0 ? 1 : (int)DIVUP(part, s->chunk_size);
  s->nsteps_per_loop = s->nsteps;
  s->nchunks_per_loop = 1;
  s->nloops = 1;
  s->profiler_steps = s->nsteps;
  s->step_bytes = part < s->chunk_size ? part : s->chunk_size;
  s->channel_bytes = part;
}

uint64_t emu_model_net_step_ns(const emu_options *o, uint64_t bytes,
                               int nchannels, int from, int to) {
  double bw = o->bw_gbps * 1e9 / (nchannels > 0 ? nchannels : 1);
  if (from == o->slow_link_from && to == o->slow_link_to)
    bw /= o->slow_link_factor;
  return (uint64_t)(o->net_lat_us * 1000.0) +
         (uint64_t)((double)bytes / bw * 1e9);
}

uint64_t emu_model_intra_ns(const emu_options *o, emu_func func, uint64_t bytes,
                            int nranks) {
  double factor = 1.0;
  if (nranks > 1) {
    if (func == EMU_FUNC_ALLREDUCE)
      factor = 2.0 * (nranks - 1) / nranks;
    else if (func == EMU_FUNC_ALLGATHER)
      factor = (double)(nranks - 1); /* bytes = send size */
    else if (func == EMU_FUNC_REDUCESCATTER)
      factor = (double)(nranks - 1) / nranks;
  }
  double bw = o->nvlink_gbps * 1e9;
  return (uint64_t)(o->lat_us * 1000.0) +
         (uint64_t)((double)bytes * factor / bw * 1e9);
}

uint64_t emu_model_launch_ns(void) {
  return 4000;
}

double emu_model_gpu_stretch(const emu_options *o, const int *members,
                             int nmembers) {
  if (o->slow_rank < 0 || o->slow_factor <= 1.0)
    return 1.0;
  for (int i = 0; i < nmembers; i++)
    if (members[i] == o->slow_rank)
      return o->slow_factor;
  return 1.0;
}

void emu_gpu_clock_init(emu_gpu_clock *c, const emu_options *o, int rank) {
  c->offset_ns = o->gpu_clock_offset_ns;
  /* Each GPU drifts a little differently; rank 0 uses the given value. */
  c->drift_ppm = o->gpu_clock_drift_ppm * (1.0 + 0.1 * (rank % 4));
  c->quantum_ns = o->gpu_clock_quantum_ns ? o->gpu_clock_quantum_ns : 1;
  c->t0_realtime_ns = emu_realtime_ns();
}

uint64_t emu_gpu_clock_at(const emu_gpu_clock *c, uint64_t realtime_ns) {
  double since = (double)(int64_t)(realtime_ns - c->t0_realtime_ns);
  int64_t drift = (int64_t)(since * c->drift_ppm * 1e-6);
  uint64_t v = realtime_ns + (uint64_t)c->offset_ns + (uint64_t)drift;
  return v - v % c->quantum_ns;
}

bool emu_parse_sizes(const char *s, uint64_t *sizes, int *n) {
  char buf[512];
  snprintf(buf, sizeof buf, "%s", s);
  *n = 0;
  char *save = NULL;
  for (char *tok = strtok_r(buf, ",", &save); tok != NULL;
       tok = strtok_r(NULL, ",", &save)) {
    if (*n >= EMU_MAX_SIZES)
      return false;
    if (!emu_parse_size(tok, &sizes[*n]))
      return false;
    (*n)++;
  }
  return *n > 0;
}
