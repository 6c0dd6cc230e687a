/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/emu/nccl/emu_model.h — realistic numbers: algorithm/protocol choice,
 * channels, warps, proxy step counts (nccl-behaviour §8.3 formulas), bytes
 * per step, a bandwidth/latency model for durations, and the fake GPU
 * %globaltimer. Pure functions; emu_model.c.
 */
#ifndef NCCLEMU_MODEL_H
#define NCCLEMU_MODEL_H

#include "emu_options.h"

/* What NCCL would decide for one collective on one communicator. */
typedef struct emu_coll_shape {
  const char *algo;  /* "RING", ... */
  const char *proto; /* "LL", "LL128", "SIMPLE" */
  int nchannels;
  int nwarps;
  int slice_steps;
  int chunk_steps;
  uint64_t step_size;  /* buffer bytes per step id */
  uint64_t chunk_size; /* args->chunkSize (bytes of data per chunk) */
  int nsteps_per_loop;
  int nchunks_per_loop;
  int nloops;
  int nsteps;             /* sub->nsteps per channel, in step ids */
  int profiler_steps;     /* DIVUP(nsteps, slice_steps) */
  uint64_t step_bytes;    /* bytes one profiler step moves at most */
  uint64_t channel_bytes; /* bytes one channel moves in one direction */
} emu_coll_shape;

/* `bytes` = count * datatype size of the user's buffer (per rank; for
 * AllGather the send size). */
void emu_model_coll(emu_coll_shape *s, emu_func func, uint64_t bytes,
                    int nranks, int max_channels);
/* Send/recv over the network: chunk = 128 KiB (NCCL_P2P_NET_CHUNKSIZE),
 * sliceSteps = chunkSteps = 1. */
void emu_model_p2p(emu_coll_shape *s, uint64_t bytes, int max_channels);

/* Durations (ns). */
/* A network step from comm rank `from` to `to`: net_lat_us + bytes at
 * bw_gbps / nchannels, the bytes time times slow_link_factor on the
 * --slow-link pair. */
uint64_t emu_model_net_step_ns(const emu_options *o, uint64_t bytes,
                               int nchannels, int from, int to);
uint64_t emu_model_intra_ns(const emu_options *o, emu_func func, uint64_t bytes,
                            int nranks);
uint64_t emu_model_launch_ns(void);
/* --slow-rank: how many times its normal time a kernel of a communicator
 * with these members (global ranks) takes: --slow-factor when the slow
 * GPU is one of them (its peers wait for its data), else 1. */
double emu_model_gpu_stretch(const emu_options *o, const int *members,
                             int nmembers);

/* Fake %globaltimer: CLOCK_REALTIME + offset + drift, quantised. */
typedef struct emu_gpu_clock {
  int64_t offset_ns;
  double drift_ppm;
  uint64_t quantum_ns;
  uint64_t t0_realtime_ns;
} emu_gpu_clock;
void emu_gpu_clock_init(emu_gpu_clock *c, const emu_options *o, int rank);
uint64_t emu_gpu_clock_at(const emu_gpu_clock *c, uint64_t realtime_ns);

/* Parses --sizes ("4K,1M,32M"). */
bool emu_parse_sizes(const char *s, uint64_t *sizes, int *n);

#endif
