/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/metrics/metrics_snapshot.h — the metrics as the renderers see
 * them: the series tables metrics.c keeps (their types are declared here),
 * the plugin's health and steps, and who the process is. metrics.c builds
 * a cs_metrics_snapshot and hands it to metrics_prom.c and metrics_otlp.c,
 * which read it and call nothing back: the data flows one way. Writer
 * thread only.
 */
#ifndef CCLSCOPE_METRICS_SNAPSHOT_H
#define CCLSCOPE_METRICS_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "assembler.h" /* CS_RECLAIM_COUNT */
#include "net_fit.h"
#include "stats.h"

#define CS_METRICS_SIZE_BUCKETS 48 /* log2 of the message size */

typedef struct {
  uint32_t ctx;
  char func[24];
  char algo[20];
  char proto[12];
  uint8_t size_log2;
  uint8_t source; /* cs_timing_source */
  cs_hist hist;   /* cumulative */
  uint64_t bytes_total;
  double algbw_sum_w, busbw_sum_w; /* window */
  uint64_t bw_n_w;
  bool has_bw; /* last window had a bandwidth */
  double algbw_last, busbw_last;
  double busbw_sum_total; /* whole run, for the end-of-run summary */
  uint64_t bw_n_total;
  /* The operations' network send transfers (ProxySteps): count, bytes and
   * time from SendWait to the step's stop, summed (the OTel design's
   * transfers per collective / P2P operation). */
  uint64_t transfers_total, transfer_bytes_total;
  double transfer_seconds_total;
} cs_coll_series;

typedef struct {
  uint64_t size;
  double seconds;
} cs_min_point;

/* A send link. The fit is the shared one (src/common/net_fit.h): the
 * fastest transfer of each distinct size in the window (an open-addressed
 * table keyed by the exact size; sizes beyond its room are left out), then
 * validated: `fit.status` says whether latency and bandwidth may be shown. */
typedef struct {
  uint32_t ctx;
  int32_t src, dst;
  uint64_t transfers_total, bytes_total;
  cs_min_point min_w[CS_METRICS_SIZE_BUCKETS]; /* window, per exact size */
  bool has_fit;       /* a window with transfers has closed */
  net_fit_result fit; /* last window's */
} cs_link_series;

/* A channel: its send transfers, their mean size and time per window, and
 * the same fit as a link's (latency and bandwidth of this channel). */
typedef struct {
  uint32_t ctx;
  int32_t rank;
  uint8_t channel;
  uint64_t transfers_total, bytes_total;
  uint64_t n_w, bytes_w;
  double seconds_w;
  bool has_last;
  double size_last, seconds_last;
  cs_min_point min_w[CS_METRICS_SIZE_BUCKETS]; /* window, per exact size */
  bool has_fit;
  net_fit_result fit; /* last window with transfers */
} cs_channel_series;

/* Which span of a rank's collectives a cs_rank_series sums. */
typedef enum {
  CS_RANK_SPAN_ALL = 0,          /* first KernelCh start -> last stop */
  CS_RANK_SPAN_INITIAL_SYNC = 1, /* NCCL 2.31's KernelPhase initial_sync */
  CS_RANK_SPANS = 2
} cs_rank_span;

/* The arrival evidence of one (communicator, rank): its GPU's time in the
 * communicator's collectives, summed, so that a Prometheus rule can set
 * the ranks of one communicator side by side (docs/metrics.md, "Which GPU
 * is late"). A rank that arrives late waits least: its spans are the
 * shortest of its communicator. Measured by this rank alone. */
typedef struct {
  uint32_t ctx;         /* the communicator and this rank in it */
  uint8_t span;         /* cs_rank_span */
  uint64_t collectives; /* collectives summed (cumulative) */
  double seconds;       /* their spans, summed (cumulative) */
} cs_rank_series;

typedef struct {
  uint64_t callbacks;
  uint64_t dropped_starts, dropped_states, dropped_stops;
  uint64_t reclaimed[CS_RECLAIM_COUNT];
  uint64_t inflight;
  uint64_t ring_high_water_bytes; /* most ring bytes ever waiting */
  uint64_t threads;
  uint64_t timings[3];
  uint64_t timings_batched;
  uint64_t sampled_out;      /* operations left out by CCLSCOPE_SAMPLE* */
  uint64_t too_small;        /* ... by CCLSCOPE_MIN_BYTES */
  uint64_t hangs;            /* operations reported by the hang watchdog */
  uint64_t trace_lines_lost; /* lines the trace file lost (its accounting
                                record's linesLost), as of the last flush */
} cs_metrics_health;

/* Training steps marked through the control API (cclscope_step). */
typedef struct {
  bool has_step;
  int64_t step;         /* the latest step number */
  uint64_t marks_total; /* step marks seen */
  int64_t last_ns;      /* when the latest step began */
  cs_hist duration;     /* time from one step mark to the next */
} cs_metrics_steps;

/* Everything a renderer reads. The tables are the aggregator's own (not
 * copies): valid until the metrics change again, i.e. for the render. */
typedef struct {
  /* Who: labels and resource attributes on every series. */
  const char *run_id;
  const char *hostname;
  pid_t pid;
  bool label_global_rank;     /* CCLSCOPE_METRICS_GLOBAL_RANK */
  int global_rank;            /* -1: unknown (label value "") */
  const char *service_name;   /* OTLP service.name; NULL or "" = cclscope */
  const char *resource_attrs; /* OTEL_RESOURCE_ATTRIBUTES, may be NULL */
  int64_t start_ns;           /* session start: counters count from here */
  const cs_coll_series *colls;
  size_t ncolls;
  const cs_link_series *links;
  size_t nlinks;
  const cs_channel_series *channels;
  size_t nchannels;
  const cs_rank_series *rank_spans;
  size_t nrank_spans;
  uint64_t series_dropped; /* series that did not fit a table */
  const cs_metrics_health *health;
  const cs_metrics_steps *steps;
} cs_metrics_snapshot;

/* "1MiB" etc. for a size bucket (2^log2 bytes; 0xFF = 0 bytes). */
void cs_metrics_size_label(uint8_t log2, char *out, size_t outlen);

#endif
