/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/metrics/metrics.h — aggregated metrics (docs/metrics.md), built by
 * the writer thread from the same event stream as the trace:
 *
 *   collectives  per (communicator, function, algorithm, protocol, message
 *                size bucket, timing source): count, bytes, a duration
 *                histogram (cumulative), and algorithm/bus bandwidth
 *                averaged over the last window;
 *   links        per (communicator, source rank -> destination rank), from
 *                network send steps: transfers, bytes, and a least-squares
 *                fit time = latency + size / bandwidth with R², over all
 *                points of the window (mode avg) and over the fastest
 *                transfer of each size (mode min);
 *   channels     per (communicator, channel): transfers, bytes, average
 *                transfer size and time over the window;
 *   rank spans   per (communicator, rank): the GPU time of its collectives
 *                and, on NCCL 2.31, of their initial_sync phase, summed
 *                (the evidence of a late GPU, compared across ranks by
 *                Prometheus rules, never inside the plugin);
 *   plugin       the plugin's own health: callbacks, drops, reclaims,
 *                in-flight events, ring high-water mark, timings.
 *
 * Every table is bounded (`max_series` entries each); what does not fit is
 * counted in cclscope_plugin_series_dropped_total. A window closes every
 * `window_s` seconds; counters and histograms are cumulative since the
 * session started, gauges describe the last window (closed after
 * `window_s`, or `window_events` ended events if that comes first). Writer
 * thread only,
 * except the rendered texts, which exporters copy under their own locks.
 */
#ifndef CCLSCOPE_METRICS_H
#define CCLSCOPE_METRICS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "assembler.h"
#include "clock.h"
#include "completion.h"
#include "json_writer.h"
#include "metrics_snapshot.h"

typedef struct {
  double window_s;
  unsigned window_events; /* also close after this many events; 0: off */
  unsigned max_series;
  const char *hostname;
  const char *run_id;
  pid_t pid;
  /* CCLSCOPE_METRICS_GLOBAL_RANK: the process's job rank (-1: unknown) as
   * a label on the per-communicator series */
  bool label_global_rank;
  int global_rank;
  bool want_otlp; /* render OTLP JSON at each window */
  const char *service_name;
  const char *resource_attrs; /* OTEL_RESOURCE_ATTRIBUTES, may be NULL */
} cs_metrics_config;

typedef struct {
  cs_metrics_config cfg;
  int64_t start_ns;      /* session start */
  int64_t window_end_ns; /* when the current window closes */
  int64_t last_close_ns;
  uint64_t events_w;              /* events seen in the current window */
  cs_clock_past_cache clock_past; /* the segment of the last older stamp */
  cs_coll_series *colls;
  size_t ncolls;
  cs_link_series *links;
  size_t nlinks;
  cs_channel_series *channels;
  size_t nchannels;
  cs_rank_series *rank_spans;
  size_t nrank_spans;
  uint64_t series_dropped;
  cs_metrics_health health;
  cs_metrics_steps steps;
  /* Rendered at each window close. */
  cs_jbuf prom;
  cs_jbuf otlp;
  uint64_t windows;
} cs_metrics;

cs_metrics *cs_metrics_create(const cs_metrics_config *cfg, int64_t now_ns);
void cs_metrics_destroy(cs_metrics *m);

/* A collective's derived timing (completion.c). */
void cs_metrics_timing(cs_metrics *m, const cs_timing *t);
/* Is `e` a network send step that stopped, the only ended event whose
 * transfer the metrics take (and whose op_id they read)? Inline: the
 * writer asks before looking the operation up. */
static inline bool cs_metrics_takes_transfer(const cs_event *e) {
  return e->etype == CS_EV_PROXY_STEP && e->has_link && e->link.is_send &&
         e->end == CS_END_STOPPED;
}
/* The transfer of a send step cs_metrics_takes_transfer accepted (out of
 * line; cs_metrics_event calls it). */
void cs_metrics_take_transfer(cs_metrics *m, const cs_event *e, uint64_t op_id,
                              const cs_clock_cal *cal);
/* An ended event: network send steps feed links and channels, and the
 * transfers of the operation `op_id` (the Coll/P2p the step's ProxyOp
 * belongs to; 0: unknown), added to its series when its timing comes.
 * Inline: every other event is only counted, without a call. */
static inline void cs_metrics_event(cs_metrics *m, const cs_event *e,
                                    uint64_t op_id, const cs_clock_cal *cal) {
  m->events_w++;
  if (cs_metrics_takes_transfer(e))
    cs_metrics_take_transfer(m, e, op_id, cal);
}

/* A step mark (cclscope_step) at `ts_ns`. */
void cs_metrics_step(cs_metrics *m, int64_t step, int64_t ts_ns);

/* Is the window over? After `window_s`, or after `window_events` events,
 * whichever comes first (the OTel profiler design's two triggers). */
static inline bool cs_metrics_window_due(const cs_metrics *m, int64_t now_ns) {
  return now_ns >= m->window_end_ns ||
         (m->cfg.window_events && m->events_w >= m->cfg.window_events);
}
/* Close the window: compute gauges and render m->prom (and m->otlp). */
void cs_metrics_close_window(cs_metrics *m, int64_t now_ns,
                             const cs_metrics_health *health);

/* Render m->prom from the tables as they are now. Closing a window does
 * this; the writer also calls it once before the first window closes, so
 * that the first scrape finds something. */
void cs_metrics_render_prom_now(cs_metrics *m);

/* The end-of-run summary, one line per call of `line` (summary.c). */
void cs_metrics_summary(const cs_metrics *m,
                        void (*line)(void *arg, const char *text), void *arg);

#endif
