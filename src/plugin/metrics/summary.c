/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/metrics/summary.c — the end-of-run summary a process prints at its
 * last finalize (or exit): collectives by function and size with count,
 * p50/p99 duration and bus bandwidth; the slowest links; what was dropped
 * (trace lines a full disk or a failing compressor cost included) or
 * reclaimed. Computed from the metrics tables (metrics.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"

#define SUMMARY_ROWS 24
#define SUMMARY_LINKS 5

typedef struct {
  char func[24];
  uint8_t size_log2;
  cs_hist hist;
  double busbw_sum;
  uint64_t bw_n;
  uint8_t best_source;
} row;

static void fmt_seconds(double s, char *out, size_t n) {
  if (s >= 1)
    snprintf(out, n, "%.2f s", s);
  else if (s >= 1e-3)
    snprintf(out, n, "%.2f ms", s * 1e3);
  else
    snprintf(out, n, "%.1f us", s * 1e6);
}

static int by_count(const void *a, const void *b) {
  const row *x = a, *y = b;
  return x->hist.count < y->hist.count   ? 1
         : x->hist.count > y->hist.count ? -1
                                         : 0;
}

/* Fitted links first, slowest first; then the links without a fit. */
static int by_bandwidth(const void *a, const void *b) {
  const cs_link_series *x = *(const cs_link_series *const *)a;
  const cs_link_series *y = *(const cs_link_series *const *)b;
  bool xo = x->fit.status == NET_FIT_OK, yo = y->fit.status == NET_FIT_OK;
  if (xo != yo)
    return xo ? -1 : 1;
  double bx = x->fit.bandwidth_bps, by = y->fit.bandwidth_bps;
  return bx < by ? -1 : bx > by;
}

void cs_metrics_summary(const cs_metrics *m,
                        void (*line)(void *arg, const char *text), void *arg) {
  char text[256];
  row *rows = calloc(m->ncolls ? m->ncolls : 1, sizeof *rows);
  size_t nrows = 0;
  uint64_t total = 0;
  if (!rows)
    return;
  /* Merge the series of all communicators/algorithms by function and size. */
  for (size_t i = 0; i < m->ncolls; i++) {
    const cs_coll_series *s = &m->colls[i];
    row *r = NULL;
    for (size_t j = 0; j < nrows && !r; j++)
      if (rows[j].size_log2 == s->size_log2 &&
          strcmp(rows[j].func, s->func) == 0)
        r = &rows[j];
    if (!r) {
      r = &rows[nrows++];
      memcpy(r->func, s->func, sizeof r->func);
      r->size_log2 = s->size_log2;
    }
    for (int b = 0; b < CS_HIST_BUCKETS; b++)
      r->hist.buckets[b] += s->hist.buckets[b];
    r->hist.count += s->hist.count;
    r->hist.sum_s += s->hist.sum_s;
    r->busbw_sum += s->busbw_sum_total;
    r->bw_n += s->bw_n_total;
    if (s->source > r->best_source)
      r->best_source = s->source;
    total += s->hist.count;
  }
  qsort(rows, nrows, sizeof *rows, by_count);
  snprintf(text, sizeof text, "summary for %s pid %d: %llu collectives timed",
           m->cfg.hostname, (int)m->cfg.pid, (unsigned long long)total);
  line(arg, text);
  if (nrows) {
    snprintf(text, sizeof text, "  %-14s %8s %9s %10s %10s %12s %-5s", "func",
             "size", "count", "p50", "p99", "busBw", "from");
    line(arg, text);
  }
  static const char *const sources[] = {"host", "proxy", "gpu"};
  for (size_t i = 0; i < nrows && i < SUMMARY_ROWS; i++) {
    row *r = &rows[i];
    char size[16], p50[16], p99[16], bw[16];
    cs_metrics_size_label(r->size_log2, size, sizeof size);
    fmt_seconds(cs_hist_quantile(&r->hist, 0.5), p50, sizeof p50);
    fmt_seconds(cs_hist_quantile(&r->hist, 0.99), p99, sizeof p99);
    if (r->bw_n)
      snprintf(bw, sizeof bw, "%.2f GB/s",
               r->busbw_sum / (double)r->bw_n / 1e9);
    else
      snprintf(bw, sizeof bw, "-");
    snprintf(text, sizeof text, "  %-14s %8s %9llu %10s %10s %12s %-5s",
             r->func[0] ? r->func : "?", size,
             (unsigned long long)r->hist.count, p50, p99, bw,
             sources[r->best_source]);
    line(arg, text);
  }
  if (nrows > SUMMARY_ROWS) {
    snprintf(text, sizeof text, "  ... %zu more (see the trace or metrics)",
             nrows - SUMMARY_ROWS);
    line(arg, text);
  }
  free(rows);

  /* The slowest links by fitted bandwidth (the last window with
   * transfers; the same fit and checks as the metrics and the CLI). */
  const cs_link_series **links =
      calloc(m->nlinks ? m->nlinks : 1, sizeof *links);
  size_t nlinks = 0;
  for (size_t i = 0; links && i < m->nlinks; i++)
    if (m->links[i].has_fit)
      links[nlinks++] = &m->links[i];
  if (links && nlinks) {
    qsort(links, nlinks, sizeof *links, by_bandwidth);
    line(arg, "  slowest links (src->dst: latency, bandwidth, R2; fastest "
              "send transfer per size):");
    for (size_t i = 0; i < nlinks && i < SUMMARY_LINKS; i++) {
      const cs_link_series *l = links[i];
      if (l->fit.status == NET_FIT_OK) {
        char lat[16];
        fmt_seconds(l->fit.latency_s, lat, sizeof lat);
        snprintf(text, sizeof text, "    %d->%d: %s, %.2f GB/s, %.3f",
                 (int)l->src, (int)l->dst, lat, l->fit.bandwidth_bps / 1e9,
                 l->fit.r2);
      } else {
        snprintf(text, sizeof text, "    %d->%d: not fitted (%s)", (int)l->src,
                 (int)l->dst, net_fit_reason(l->fit.status));
      }
      line(arg, text);
    }
  }
  free(links);
  const cs_metrics_health *h = &m->health;
  uint64_t reclaimed = 0;
  for (int r = 1; r < CS_RECLAIM_COUNT; r++)
    reclaimed += h->reclaimed[r];
  snprintf(text, sizeof text,
           "  dropped records: %llu starts, %llu states, %llu stops, %llu "
           "trace lines not written; reclaimed events: %llu",
           (unsigned long long)h->dropped_starts,
           (unsigned long long)h->dropped_states,
           (unsigned long long)h->dropped_stops,
           (unsigned long long)h->trace_lines_lost,
           (unsigned long long)reclaimed);
  line(arg, text);
}
