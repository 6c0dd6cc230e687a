/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/writer/completion.h — when did a collective really run, and how
 * fast.
 *
 * NCCL's stopEvent on a Coll/P2p only means "enqueued". What really
 * happened is in its children: KernelCh GPU stamps (when the kernel ran on
 * each channel) and ProxyOps (when the network moved the data). For every
 * Coll, P2p and CeColl this module collects those children as they end and,
 * once the operation and every child it started have ended (and the
 * expected number of KernelCh arrived, or a timeout passed), produces one
 * cs_timing: the best available span — GPU, else proxy, else the host
 * enqueue — with its source, the bytes moved and the nccl-tests algorithm
 * and bus bandwidth. Batched collectives (sharing one GPU work batch, hence
 * identical stamps) are detected and flagged. Writer thread only.
 */
#ifndef CCLSCOPE_COMPLETION_H
#define CCLSCOPE_COMPLETION_H

#include <stdbool.h>
#include <stdint.h>

#include "assembler.h"
#include "clock.h"
#include "event_types.h"

typedef enum {
  CS_TIMING_HOST = 0,  /* only the host enqueue span is known */
  CS_TIMING_PROXY = 1, /* first ProxyOp start -> last ProxyOp stop */
  CS_TIMING_GPU = 2    /* first KernelCh start -> last stop (GPU clock) */
} cs_timing_source;

#define CS_TIMING_PHASES 3 /* KernelPhase ids 0..2 */

typedef struct {
  uint64_t event_id;
  uint8_t etype; /* CS_EV_COLL, CS_EV_P2P or CS_EV_CE_COLL */
  uint32_t ctx;
  int32_t rank;
  int32_t nranks; /* of the communicator, 0 if unknown */
  const char *func;
  const char *datatype;
  const char *algo;  /* Coll only */
  const char *proto; /* Coll only */
  uint64_t count;
  uint64_t seq;
  bool has_seq;
  int32_t peer; /* P2p only */
  uint64_t bytes;
  int64_t api_ns; /* CollApi/P2pApi start, 0 if unknown */
  int64_t enq_start_ns;
  int64_t enq_stop_ns; /* 0: the event was never stopped */
  cs_timing_source source;
  int64_t start_ns;
  int64_t stop_ns;
  bool has_gpu;
  int64_t gpu_start_ns;
  int64_t gpu_stop_ns;
  uint16_t gpu_channels;
  uint16_t gpu_rejected; /* stamp pairs rejected as inconsistent */
  /* NCCL 2.31 KernelPhase spans on the host clock (bit p of phase_valid:
   * phase p = initial_sync, compute, final_sync), over all channels. */
  uint8_t phase_valid;
  int64_t phase_start_ns[CS_TIMING_PHASES];
  int64_t phase_stop_ns[CS_TIMING_PHASES];
  bool batched;
  /* Emitted before all its events ended (timed out waiting, or its
   * communicator ended): the span covers what was seen. */
  bool incomplete;
  bool has_proxy;
  int64_t proxy_start_ns;
  int64_t proxy_stop_ns;
  uint16_t proxy_ops;
  double alg_bw; /* bytes/s; < 0: not meaningful (host source, 0 time) */
  double bus_bw;
} cs_timing;

typedef struct {
  void (*on_timing)(void *arg, const cs_timing *t);
  void *arg;
  const cs_clock_cal *cal;
  int64_t grace_ns;   /* quiet time after the last child before emitting */
  int64_t timeout_ns; /* emit with what is known after this long */
} cs_completion_config;

typedef struct cs_completion cs_completion;

cs_completion *cs_completion_create(const cs_completion_config *cfg);
void cs_completion_destroy(cs_completion *c);

/* Every event start and end, as the assembler sees them. Most events
 * (steps, network events, API calls, groups) are none of this module's
 * business: the inline test of the type below costs them no call. */
void cs_completion_take_start(cs_completion *c, const cs_event *e);
void cs_completion_take_end(cs_completion *c, const cs_event *e);

/* The types whose starts are taken: operations, their API calls (the
 * arrival), and the children that time them. */
#define CS_COMPLETION_START_TYPES                                              \
  ((1u << CS_EV_COLL) | (1u << CS_EV_P2P) | (1u << CS_EV_CE_COLL) |            \
   (1u << CS_EV_COLL_API) | (1u << CS_EV_P2P_API) | (1u << CS_EV_KERNEL_CH) |  \
   (1u << CS_EV_PROXY_OP) | (1u << CS_EV_KERNEL_PHASE))
/* The types whose ends are taken: the same but the API calls. */
#define CS_COMPLETION_END_TYPES                                                \
  ((1u << CS_EV_COLL) | (1u << CS_EV_P2P) | (1u << CS_EV_CE_COLL) |            \
   (1u << CS_EV_KERNEL_CH) | (1u << CS_EV_PROXY_OP) |                          \
   (1u << CS_EV_KERNEL_PHASE))

static inline void cs_completion_started(cs_completion *c, const cs_event *e) {
  if (e->etype < 32 && (CS_COMPLETION_START_TYPES >> e->etype) & 1u)
    cs_completion_take_start(c, e);
}

static inline void cs_completion_ended(cs_completion *c, const cs_event *e) {
  if (e->etype < 32 && (CS_COMPLETION_END_TYPES >> e->etype) & 1u)
    cs_completion_take_end(c, e);
}

/* The writer's current time (host epoch ns), before feeding events. */
void cs_completion_set_now(cs_completion *c, int64_t now_ns);

/* Emit what is ready (or timed out). */
void cs_completion_tick(cs_completion *c);

/* Emit everything of one context (0: of every context). */
void cs_completion_flush(cs_completion *c, uint32_t ctx);

/* Counters for the plugin's health metrics. */
typedef struct {
  uint64_t emitted[3]; /* by cs_timing_source */
  uint64_t batched;
  uint64_t gpu_rejected;
  uint64_t timed_out;
  uint64_t pending;
} cs_completion_counters;
const cs_completion_counters *
cs_completion_get_counters(const cs_completion *c);

/* nccl-tests conventions: bytes counted for `func` given NCCL's `count`
 * and datatype on `nranks` ranks, and the bus-bandwidth factor. */
uint64_t cs_collective_bytes(const char *func, uint64_t count,
                             const char *datatype, int nranks);
double cs_bus_bw_factor(const char *func, int nranks);

#endif
