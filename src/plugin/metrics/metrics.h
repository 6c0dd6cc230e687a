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
 *   plugin       the plugin's own health: callbacks, drops, reclaims,
 *                in-flight events, ring high-water mark, timings.
 *
 * Every table is bounded (`max_series` entries each); what does not fit is
 * counted in cclscope_plugin_series_dropped_total. A window closes every
 * `window_s` seconds; counters and histograms are cumulative since the
 * session started, gauges describe the last window. Writer thread only,
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
} cs_coll_series;

typedef struct {
  uint64_t size;
  double seconds;
} cs_min_point;

typedef struct {
  uint32_t ctx;
  int32_t src, dst;
  uint64_t transfers_total, bytes_total;
  cs_fit fit_w;                                /* window, all points */
  cs_min_point min_w[CS_METRICS_SIZE_BUCKETS]; /* window, per size */
  bool ok_avg, ok_min;                         /* last window's fits */
  double lat_avg, bw_avg, r2_avg;
  double lat_min, bw_min, r2_min;
  uint64_t points_last;
} cs_link_series;

typedef struct {
  uint32_t ctx;
  int32_t rank;
  uint8_t channel;
  uint64_t transfers_total, bytes_total;
  uint64_t n_w, bytes_w;
  double seconds_w;
  bool has_last;
  double size_last, seconds_last;
} cs_channel_series;

typedef struct {
  uint64_t callbacks;
  uint64_t dropped_starts, dropped_states, dropped_stops;
  uint64_t reclaimed[CS_RECLAIM_COUNT];
  uint64_t inflight;
  uint64_t ring_high_water;
  uint64_t threads;
  uint64_t timings[3];
  uint64_t timings_batched;
  uint64_t sampled_out; /* operations left out by CCLSCOPE_SAMPLE* */
  uint64_t too_small;   /* ... by CCLSCOPE_MIN_BYTES */
  uint64_t hangs;       /* operations reported by the hang watchdog */
} cs_metrics_health;

/* Training steps marked through the control API (cclscope_step). */
typedef struct {
  bool has_step;
  int64_t step;         /* the latest step number */
  uint64_t marks_total; /* step marks seen */
  int64_t last_ns;      /* when the latest step began */
  cs_hist duration;     /* time from one step mark to the next */
} cs_metrics_steps;

typedef struct {
  double window_s;
  unsigned max_series;
  const char *hostname;
  const char *run_id;
  pid_t pid;
  bool want_otlp; /* render OTLP JSON at each window */
  const char *service_name;
  const char *resource_attrs; /* OTEL_RESOURCE_ATTRIBUTES, may be NULL */
} cs_metrics_config;

typedef struct {
  cs_metrics_config cfg;
  int64_t start_ns;      /* session start */
  int64_t window_end_ns; /* when the current window closes */
  int64_t last_close_ns;
  cs_coll_series *colls;
  size_t ncolls;
  cs_link_series *links;
  size_t nlinks;
  cs_channel_series *channels;
  size_t nchannels;
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
/* An ended event: network send steps feed links and channels. */
void cs_metrics_event(cs_metrics *m, const cs_event *e,
                      const cs_clock_cal *cal);

/* A step mark (cclscope_step) at `ts_ns`. */
void cs_metrics_step(cs_metrics *m, int64_t step, int64_t ts_ns);

/* Is the window over? */
static inline bool cs_metrics_window_due(const cs_metrics *m, int64_t now_ns) {
  return now_ns >= m->window_end_ns;
}
/* Close the window: compute gauges and render m->prom (and m->otlp). */
void cs_metrics_close_window(cs_metrics *m, int64_t now_ns,
                             const cs_metrics_health *health);

/* Renderers (metrics_prom.c, metrics_otlp.c). */
void cs_metrics_render_prometheus(const cs_metrics *m, cs_jbuf *out);
void cs_metrics_render_otlp(const cs_metrics *m, int64_t now_ns, cs_jbuf *out);

/* The end-of-run summary, one line per call of `line` (summary.c). */
void cs_metrics_summary(const cs_metrics *m,
                        void (*line)(void *arg, const char *text), void *arg);

/* "1MiB" etc. for a size bucket (2^log2 bytes). */
void cs_metrics_size_label(uint8_t log2, char *out, size_t outlen);

#endif
