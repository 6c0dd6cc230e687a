/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/metrics/metrics_prom.c — the metrics as Prometheus text exposition
 * (version 0.0.4): what the textfile and the HTTP /metrics endpoint serve.
 * Names, labels and units are listed in docs/metrics.md.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "context.h"
#include "metrics_prom.h"

/* Histogram bounds exposed: 1 µs × 4^k, k = 0..13 (1 µs .. 67 s). */
#define PROM_BOUNDS 14

static void label_value(cs_jbuf *b, const char *v) {
  cs_jbuf_putc(b, '"');
  for (; v && *v; v++) {
    if (*v == '\\' || *v == '"') {
      cs_jbuf_putc(b, '\\');
      cs_jbuf_putc(b, *v);
    } else if (*v == '\n') {
      CS_JLIT(b, "\\n");
    } else {
      cs_jbuf_putc(b, *v);
    }
  }
  cs_jbuf_putc(b, '"');
}

static void label(cs_jbuf *b, const char *name, const char *value, bool first) {
  if (!first)
    cs_jbuf_putc(b, ',');
  cs_jbuf_put(b, name, strlen(name));
  cs_jbuf_putc(b, '=');
  label_value(b, value);
}

static void number(cs_jbuf *b, double v) {
  char tmp[40];
  int n;
  if (isinf(v))
    n = snprintf(tmp, sizeof tmp, "%s", v > 0 ? "+Inf" : "-Inf");
  else if (isnan(v))
    n = snprintf(tmp, sizeof tmp, "NaN");
  else
    n = snprintf(tmp, sizeof tmp, "%.9g", v);
  cs_jbuf_put(b, tmp, (size_t)n);
}

static void head(cs_jbuf *b, const char *name, const char *type,
                 const char *help) {
  CS_JLIT(b, "# HELP ");
  cs_jbuf_put(b, name, strlen(name));
  cs_jbuf_putc(b, ' ');
  cs_jbuf_put(b, help, strlen(help));
  CS_JLIT(b, "\n# TYPE ");
  cs_jbuf_put(b, name, strlen(name));
  cs_jbuf_putc(b, ' ');
  cs_jbuf_put(b, type, strlen(type));
  cs_jbuf_putc(b, '\n');
}

/* global_rank (docs/metrics.md): the process's rank in the job; opt-in,
 * except on the rank span series (`always`), which exist to name a GPU. */
static void global_rank_label(const cs_metrics_snapshot *snap, cs_jbuf *b,
                              bool always) {
  char v[16] = "";
  if (!snap->label_global_rank && !always)
    return;
  if (snap->global_rank >= 0)
    snprintf(v, sizeof v, "%d", snap->global_rank);
  label(b, "global_rank", v, false);
}

/* run, and the communicator's rank, comm, comm_name, gpu (and the
 * opt-in global_rank, or always with `global_rank`). */
static void comm_labels(const cs_metrics_snapshot *snap, cs_jbuf *b,
                        uint32_t ctx, int rank_override, bool with_rank,
                        bool global_rank) {
  char id[24], rank[16];
  const cs_context *c = cs_ctx_get(ctx);
  label(b, "run", snap->run_id, true);
  if (c && c->has_comm_info)
    snprintf(id, sizeof id, "0x%llx", (unsigned long long)c->comm_id);
  else
    snprintf(id, sizeof id, "unknown");
  label(b, "comm", id, false);
  label(b, "comm_name", c ? c->comm_name : "", false);
  if (with_rank) {
    int r = rank_override >= 0      ? rank_override
            : c && c->has_comm_info ? c->rank
                                    : -1;
    snprintf(rank, sizeof rank, "%d", r);
    label(b, "rank", rank, false);
  }
  label(b, "gpu", c ? c->gpu_uuid : "", false);
  global_rank_label(snap, b, global_rank);
}

static const char *source_name(uint8_t s) {
  return s == 2 ? "gpu" : s == 1 ? "proxy" : "host";
}

static void coll_labels(const cs_metrics_snapshot *snap, cs_jbuf *b,
                        const cs_coll_series *s) {
  char size[16];
  comm_labels(snap, b, s->ctx, -1, true, false);
  label(b, "func", s->func, false);
  label(b, "algo", s->algo, false);
  label(b, "proto", s->proto, false);
  cs_metrics_size_label(s->size_log2, size, sizeof size);
  label(b, "size", size, false);
  label(b, "source", source_name(s->source), false);
}

static void render_collectives(const cs_metrics_snapshot *snap, cs_jbuf *b) {
  if (!snap->ncolls)
    return;
  head(b, "cclscope_collective_duration_seconds", "histogram",
       "How long collectives took, by timing source (gpu, proxy, host "
       "enqueue).");
  for (size_t i = 0; i < snap->ncolls; i++) {
    const cs_coll_series *s = &snap->colls[i];
    for (int k = 0; k <= PROM_BOUNDS; k++) {
      CS_JLIT(b, "cclscope_collective_duration_seconds_bucket{");
      coll_labels(snap, b, s);
      CS_JLIT(b, ",le=");
      char le[24];
      if (k == PROM_BOUNDS)
        snprintf(le, sizeof le, "+Inf");
      else
        snprintf(le, sizeof le, "%g", 1e-6 * pow(4, k));
      label_value(b, le);
      CS_JLIT(b, "} ");
      uint64_t n = k == PROM_BOUNDS ? s->hist.count
                                    : cs_hist_count_le_octave(&s->hist, 2 * k);
      cs_jbuf_u64(b, n);
      cs_jbuf_putc(b, '\n');
    }
    CS_JLIT(b, "cclscope_collective_duration_seconds_sum{");
    coll_labels(snap, b, s);
    CS_JLIT(b, "} ");
    number(b, s->hist.sum_s);
    CS_JLIT(b, "\ncclscope_collective_duration_seconds_count{");
    coll_labels(snap, b, s);
    CS_JLIT(b, "} ");
    cs_jbuf_u64(b, s->hist.count);
    cs_jbuf_putc(b, '\n');
  }
  head(b, "cclscope_collective_bytes_total", "counter",
       "Bytes moved by collectives (nccl-tests' size convention).");
  for (size_t i = 0; i < snap->ncolls; i++) {
    CS_JLIT(b, "cclscope_collective_bytes_total{");
    coll_labels(snap, b, &snap->colls[i]);
    CS_JLIT(b, "} ");
    cs_jbuf_u64(b, snap->colls[i].bytes_total);
    cs_jbuf_putc(b, '\n');
  }
  /* The operations' network send transfers (ProxySteps). */
  static const char *const transfer_names[] = {
      "cclscope_collective_transfers_total",
      "cclscope_collective_transfer_bytes_total",
      "cclscope_collective_transfer_seconds_total"};
  static const char *const transfer_help[] = {
      "Network send transfers (proxy steps) of these operations.",
      "Bytes of the network send transfers of these operations.",
      ("Time of the network send transfers of these operations (SendWait "
       "to completion), summed.")};
  for (int which = 0; which < 3; which++) {
    head(b, transfer_names[which], "counter", transfer_help[which]);
    for (size_t i = 0; i < snap->ncolls; i++) {
      const cs_coll_series *s = &snap->colls[i];
      cs_jbuf_put(b, transfer_names[which], strlen(transfer_names[which]));
      cs_jbuf_putc(b, '{');
      coll_labels(snap, b, s);
      CS_JLIT(b, "} ");
      number(b, which == 0   ? (double)s->transfers_total
                : which == 1 ? (double)s->transfer_bytes_total
                             : s->transfer_seconds_total);
      cs_jbuf_putc(b, '\n');
    }
  }
  head(b, "cclscope_collective_bus_bandwidth_bytes_per_second", "gauge",
       "Mean bus bandwidth over the last window (nccl-tests busBw).");
  for (size_t i = 0; i < snap->ncolls; i++) {
    if (!snap->colls[i].has_bw)
      continue;
    CS_JLIT(b, "cclscope_collective_bus_bandwidth_bytes_per_second{");
    coll_labels(snap, b, &snap->colls[i]);
    CS_JLIT(b, "} ");
    number(b, snap->colls[i].busbw_last);
    cs_jbuf_putc(b, '\n');
  }
  head(b, "cclscope_collective_algorithm_bandwidth_bytes_per_second", "gauge",
       "Mean algorithm bandwidth over the last window (bytes / duration).");
  for (size_t i = 0; i < snap->ncolls; i++) {
    if (!snap->colls[i].has_bw)
      continue;
    CS_JLIT(b, "cclscope_collective_algorithm_bandwidth_bytes_per_second{");
    coll_labels(snap, b, &snap->colls[i]);
    CS_JLIT(b, "} ");
    number(b, snap->colls[i].algbw_last);
    cs_jbuf_putc(b, '\n');
  }
}

static void link_labels(const cs_metrics_snapshot *snap, cs_jbuf *b,
                        const cs_link_series *l, const char *mode) {
  char r[16];
  comm_labels(snap, b, l->ctx, -1, false, false);
  snprintf(r, sizeof r, "%d", (int)l->src);
  label(b, "src_rank", r, false);
  snprintf(r, sizeof r, "%d", (int)l->dst);
  label(b, "dst_rank", r, false);
  if (mode)
    label(b, "mode", mode, false);
}

/* Latency, bandwidth or R² of every link whose last fit passed the
 * checks of src/common/net_fit.h; a rejected fit has no value here (its
 * status is cclscope_link_fit_valid). */
static void link_gauge(const cs_metrics_snapshot *snap, cs_jbuf *b,
                       const char *name, const char *help, int which) {
  bool any = false;
  for (size_t i = 0; i < snap->nlinks; i++)
    any |= snap->links[i].has_fit && snap->links[i].fit.status == NET_FIT_OK;
  if (!any)
    return;
  head(b, name, "gauge", help);
  for (size_t i = 0; i < snap->nlinks; i++) {
    const cs_link_series *l = &snap->links[i];
    if (!l->has_fit || l->fit.status != NET_FIT_OK)
      continue;
    double v = which == 0   ? l->fit.latency_s
               : which == 1 ? l->fit.bandwidth_bps
                            : l->fit.r2;
    cs_jbuf_put(b, name, strlen(name));
    cs_jbuf_putc(b, '{');
    link_labels(snap, b, l, "min");
    CS_JLIT(b, "} ");
    number(b, v);
    cs_jbuf_putc(b, '\n');
  }
}

/* 1 when the last fit passed the checks, else 0 with the reason. */
static void link_fit_valid(const cs_metrics_snapshot *snap, cs_jbuf *b) {
  bool any = false;
  for (size_t i = 0; i < snap->nlinks; i++)
    any |= snap->links[i].has_fit;
  if (!any)
    return;
  head(b, "cclscope_link_fit_valid", "gauge",
       "1 when the last latency/bandwidth fit passed the checks (status "
       "ok), else 0 and status names why it is not exported.");
  for (size_t i = 0; i < snap->nlinks; i++) {
    const cs_link_series *l = &snap->links[i];
    if (!l->has_fit)
      continue;
    CS_JLIT(b, "cclscope_link_fit_valid{");
    link_labels(snap, b, l, "min");
    label(b, "status", net_fit_status_name(l->fit.status), false);
    CS_JLIT(b, "} ");
    cs_jbuf_putc(b, l->fit.status == NET_FIT_OK ? '1' : '0');
    cs_jbuf_putc(b, '\n');
  }
}

static void render_links(const cs_metrics_snapshot *snap, cs_jbuf *b) {
  if (!snap->nlinks)
    return;
  head(b, "cclscope_link_transfers_total", "counter",
       "Network send transfers (ProxyStep) from src_rank to dst_rank.");
  for (size_t i = 0; i < snap->nlinks; i++) {
    CS_JLIT(b, "cclscope_link_transfers_total{");
    link_labels(snap, b, &snap->links[i], NULL);
    CS_JLIT(b, "} ");
    cs_jbuf_u64(b, snap->links[i].transfers_total);
    cs_jbuf_putc(b, '\n');
  }
  head(b, "cclscope_link_bytes_total", "counter",
       "Bytes sent over the network from src_rank to dst_rank.");
  for (size_t i = 0; i < snap->nlinks; i++) {
    CS_JLIT(b, "cclscope_link_bytes_total{");
    link_labels(snap, b, &snap->links[i], NULL);
    CS_JLIT(b, "} ");
    cs_jbuf_u64(b, snap->links[i].bytes_total);
    cs_jbuf_putc(b, '\n');
  }
  link_gauge(snap, b, "cclscope_link_latency_seconds",
             "Fitted latency of time = latency + size / bandwidth over the "
             "fastest send transfer per size (last window with transfers; "
             "only fits that passed the checks).",
             0);
  link_gauge(snap, b, "cclscope_link_bandwidth_bytes_per_second",
             "Fitted bandwidth of one transfer (last window).", 1);
  link_gauge(snap, b, "cclscope_link_fit_r2",
             "R squared of the latency/bandwidth fit (last window).", 2);
  link_fit_valid(snap, b);
}

static void channel_labels(const cs_metrics_snapshot *snap, cs_jbuf *b,
                           const cs_channel_series *c) {
  char ch[8];
  comm_labels(snap, b, c->ctx, c->rank, true, false);
  snprintf(ch, sizeof ch, "%u", c->channel);
  label(b, "channel", ch, false);
}

static void render_channels(const cs_metrics_snapshot *snap, cs_jbuf *b) {
  if (!snap->nchannels)
    return;
  head(b, "cclscope_channel_transfers_total", "counter",
       "Network send transfers per channel.");
  for (size_t i = 0; i < snap->nchannels; i++) {
    CS_JLIT(b, "cclscope_channel_transfers_total{");
    channel_labels(snap, b, &snap->channels[i]);
    CS_JLIT(b, "} ");
    cs_jbuf_u64(b, snap->channels[i].transfers_total);
    cs_jbuf_putc(b, '\n');
  }
  head(b, "cclscope_channel_bytes_total", "counter",
       "Bytes sent over the network per channel.");
  for (size_t i = 0; i < snap->nchannels; i++) {
    CS_JLIT(b, "cclscope_channel_bytes_total{");
    channel_labels(snap, b, &snap->channels[i]);
    CS_JLIT(b, "} ");
    cs_jbuf_u64(b, snap->channels[i].bytes_total);
    cs_jbuf_putc(b, '\n');
  }
  head(b, "cclscope_channel_transfer_size_bytes", "gauge",
       "Mean transfer size per channel over the last window.");
  for (size_t i = 0; i < snap->nchannels; i++) {
    if (!snap->channels[i].has_last)
      continue;
    CS_JLIT(b, "cclscope_channel_transfer_size_bytes{");
    channel_labels(snap, b, &snap->channels[i]);
    CS_JLIT(b, "} ");
    number(b, snap->channels[i].size_last);
    cs_jbuf_putc(b, '\n');
  }
  head(b, "cclscope_channel_transfer_duration_seconds", "gauge",
       "Mean transfer time per channel over the last window.");
  for (size_t i = 0; i < snap->nchannels; i++) {
    if (!snap->channels[i].has_last)
      continue;
    CS_JLIT(b, "cclscope_channel_transfer_duration_seconds{");
    channel_labels(snap, b, &snap->channels[i]);
    CS_JLIT(b, "} ");
    number(b, snap->channels[i].seconds_last);
    cs_jbuf_putc(b, '\n');
  }
  /* The per-channel fit, as the links' (valid fits only). */
  bool any_fit = false;
  for (size_t i = 0; i < snap->nchannels; i++)
    any_fit |=
        snap->channels[i].has_fit && snap->channels[i].fit.status == NET_FIT_OK;
  for (int which = 0; any_fit && which < 2; which++) {
    const char *name = which ? "cclscope_channel_bandwidth_bytes_per_second"
                             : "cclscope_channel_latency_seconds";
    head(b, name, "gauge",
         "Fit of time = latency + size / bandwidth over the channel's "
         "fastest send transfer per size (last window with transfers; valid "
         "fits only).");
    for (size_t i = 0; i < snap->nchannels; i++) {
      const cs_channel_series *c = &snap->channels[i];
      if (!c->has_fit || c->fit.status != NET_FIT_OK)
        continue;
      cs_jbuf_put(b, name, strlen(name));
      cs_jbuf_putc(b, '{');
      channel_labels(snap, b, c);
      CS_JLIT(b, "} ");
      number(b, which ? c->fit.bandwidth_bps : c->fit.latency_s);
      cs_jbuf_putc(b, '\n');
    }
  }
}

static const char *rank_span_name(uint8_t span) {
  return span == CS_RANK_SPAN_INITIAL_SYNC ? "initial_sync" : "all";
}

/* The rank span series (label set R, docs/metrics.md): the evidence a
 * Prometheus rule compares across the ranks of one communicator to name a
 * late GPU (packaging/prometheus/cclscope-rules.yml). */
static void render_rank_spans(const cs_metrics_snapshot *snap, cs_jbuf *b) {
  if (!snap->nrank_spans)
    return;
  static const char *const names[] = {"cclscope_rank_collective_seconds_total",
                                      "cclscope_rank_collectives_total"};
  static const char *const help[] = {
      ("GPU time of this rank's collectives in the communicator, summed: "
       "span all = first KernelCh start to last stop, initial_sync = NCCL "
       "2.31's wait for the peers' launch. Shortest on a late rank."),
      "Collectives summed in cclscope_rank_collective_seconds_total."};
  for (int which = 0; which < 2; which++) {
    head(b, names[which], "counter", help[which]);
    for (size_t i = 0; i < snap->nrank_spans; i++) {
      const cs_rank_series *r = &snap->rank_spans[i];
      cs_jbuf_put(b, names[which], strlen(names[which]));
      cs_jbuf_putc(b, '{');
      comm_labels(snap, b, r->ctx, -1, true, true);
      label(b, "span", rank_span_name(r->span), false);
      CS_JLIT(b, "} ");
      number(b, which == 0 ? r->seconds : (double)r->collectives);
      cs_jbuf_putc(b, '\n');
    }
  }
}

static void plugin_sample(const cs_metrics_snapshot *snap, cs_jbuf *b,
                          const char *name, const char *extra_name,
                          const char *extra_value, double v) {
  char pid[16];
  snprintf(pid, sizeof pid, "%d", (int)snap->pid);
  cs_jbuf_put(b, name, strlen(name));
  cs_jbuf_putc(b, '{');
  label(b, "run", snap->run_id, true);
  label(b, "pid", pid, false);
  if (extra_name)
    label(b, extra_name, extra_value, false);
  CS_JLIT(b, "} ");
  number(b, v);
  cs_jbuf_putc(b, '\n');
}

static void render_plugin(const cs_metrics_snapshot *snap, cs_jbuf *b) {
  const cs_metrics_health *h = snap->health;
  head(b, "cclscope_plugin_callbacks_total", "counter",
       "Profiler callbacks recorded by this process.");
  plugin_sample(snap, b, "cclscope_plugin_callbacks_total", NULL, NULL,
                (double)h->callbacks);
  head(b, "cclscope_plugin_dropped_total", "counter",
       "Records dropped because a thread's ring was full.");
  plugin_sample(snap, b, "cclscope_plugin_dropped_total", "kind", "start",
                (double)h->dropped_starts);
  plugin_sample(snap, b, "cclscope_plugin_dropped_total", "kind", "state",
                (double)h->dropped_states);
  plugin_sample(snap, b, "cclscope_plugin_dropped_total", "kind", "stop",
                (double)h->dropped_stops);
  head(b, "cclscope_plugin_reclaimed_total", "counter",
       "Events NCCL never stopped, reclaimed by the plugin, by reason.");
  static const char *const reasons[] = {"none", "abandoned", "parent-stopped",
                                        "no-progress", "finalize"};
  for (int r = 1; r < CS_RECLAIM_COUNT; r++)
    plugin_sample(snap, b, "cclscope_plugin_reclaimed_total", "reason",
                  reasons[r], (double)h->reclaimed[r]);
  head(b, "cclscope_plugin_events_inflight", "gauge",
       "Events started and not yet ended.");
  plugin_sample(snap, b, "cclscope_plugin_events_inflight", NULL, NULL,
                (double)h->inflight);
  head(b, "cclscope_plugin_ring_high_water_bytes", "gauge",
       "Most ring bytes ever waiting for the writer (any thread).");
  plugin_sample(snap, b, "cclscope_plugin_ring_high_water_bytes", NULL, NULL,
                (double)h->ring_high_water_bytes);
  head(b, "cclscope_plugin_threads", "gauge",
       "Threads that called the plugin.");
  plugin_sample(snap, b, "cclscope_plugin_threads", NULL, NULL,
                (double)h->threads);
  head(b, "cclscope_plugin_timings_total", "counter",
       "Collective timings derived, by source.");
  static const char *const sources[] = {"host", "proxy", "gpu"};
  for (int s = 0; s < 3; s++)
    plugin_sample(snap, b, "cclscope_plugin_timings_total", "source",
                  sources[s], (double)h->timings[s]);
  head(b, "cclscope_plugin_sampled_out_total", "counter",
       "Operations left out on purpose, by reason (CCLSCOPE_SAMPLE*, "
       "CCLSCOPE_MIN_BYTES).");
  plugin_sample(snap, b, "cclscope_plugin_sampled_out_total", "reason",
                "sample", (double)h->sampled_out);
  plugin_sample(snap, b, "cclscope_plugin_sampled_out_total", "reason",
                "min_bytes", (double)h->too_small);
  head(b, "cclscope_hangs_total", "counter",
       "Operations the hang watchdog reported (no progress for "
       "CCLSCOPE_HANG_TIMEOUT).");
  plugin_sample(snap, b, "cclscope_hangs_total", NULL, NULL, (double)h->hangs);
  head(b, "cclscope_plugin_series_dropped_total", "counter",
       "Metric series not created because a table was full.");
  plugin_sample(snap, b, "cclscope_plugin_series_dropped_total", NULL, NULL,
                (double)snap->series_dropped);
}

static void render_steps(const cs_metrics_snapshot *snap, cs_jbuf *b) {
  const cs_metrics_steps *st = snap->steps;
  if (!st->has_step)
    return;
  head(b, "cclscope_step", "gauge",
       "The latest training step marked with cclscope_step().");
  plugin_sample(snap, b, "cclscope_step", NULL, NULL, (double)st->step);
  head(b, "cclscope_step_duration_seconds", "histogram",
       "Time from one step mark to the next.");
  char pid[16];
  snprintf(pid, sizeof pid, "%d", (int)snap->pid);
  for (int k = 0; k <= PROM_BOUNDS; k++) {
    CS_JLIT(b, "cclscope_step_duration_seconds_bucket{");
    label(b, "run", snap->run_id, true);
    label(b, "pid", pid, false);
    char le[24];
    if (k == PROM_BOUNDS)
      snprintf(le, sizeof le, "+Inf");
    else
      snprintf(le, sizeof le, "%g", 1e-6 * pow(4, k));
    CS_JLIT(b, ",le=");
    label_value(b, le);
    CS_JLIT(b, "} ");
    cs_jbuf_u64(b, k == PROM_BOUNDS
                       ? st->duration.count
                       : cs_hist_count_le_octave(&st->duration, 2 * k));
    cs_jbuf_putc(b, '\n');
  }
  plugin_sample(snap, b, "cclscope_step_duration_seconds_sum", NULL, NULL,
                st->duration.sum_s);
  plugin_sample(snap, b, "cclscope_step_duration_seconds_count", NULL, NULL,
                (double)st->duration.count);
}

void cs_metrics_render_prometheus(const cs_metrics_snapshot *snap,
                                  cs_jbuf *out) {
  render_steps(snap, out);
  render_collectives(snap, out);
  render_links(snap, out);
  render_channels(snap, out);
  render_rank_spans(snap, out);
  render_plugin(snap, out);
}
