/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/metrics/metrics_otlp.c — the metrics as one OTLP/HTTP JSON request
 * body (opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest
 * in the protobuf JSON mapping: 64-bit integers are strings, enums numbers).
 * Temporality is cumulative (2); gauges describe the last window.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "context.h"
#include "metrics_otlp.h"
#include "otlp_resource.h"

#define OTLP_BOUNDS 14 /* 1 µs × 4^k, as the Prometheus exposition */

static void kv_str(cs_jbuf *b, const char *key, const char *value, bool first) {
  if (!first)
    cs_jbuf_putc(b, ',');
  CS_JLIT(b, "{\"key\":");
  cs_jbuf_str(b, key);
  CS_JLIT(b, ",\"value\":{\"stringValue\":");
  cs_jbuf_str(b, value ? value : "");
  CS_JLIT(b, "}}");
}

/* An attribute whose value may be unknown: omitted when empty (OTLP
 * backends treat "" as a value, not as "unknown"). Never the first. */
static void kv_str_known(cs_jbuf *b, const char *key, const char *value) {
  if (value && *value)
    kv_str(b, key, value, false);
}

static void kv_int(cs_jbuf *b, const char *key, int64_t value, bool first) {
  if (!first)
    cs_jbuf_putc(b, ',');
  CS_JLIT(b, "{\"key\":");
  cs_jbuf_str(b, key);
  CS_JLIT(b, ",\"value\":{\"intValue\":\"");
  cs_jbuf_i64(b, value);
  CS_JLIT(b, "\"}}");
}

static void u64_str(cs_jbuf *b, uint64_t v) {
  cs_jbuf_putc(b, '"');
  cs_jbuf_u64(b, v);
  cs_jbuf_putc(b, '"');
}

static void comm_attrs(cs_jbuf *b, uint32_t ctx, int rank_override) {
  char id[24];
  const cs_context *c = cs_ctx_get(ctx);
  if (c && c->has_comm_info)
    snprintf(id, sizeof id, "0x%llx", (unsigned long long)c->comm_id);
  else
    snprintf(id, sizeof id, "unknown");
  kv_str(b, "nccl.comm.id", id, true);
  kv_str_known(b, "nccl.comm.name", c ? c->comm_name : NULL);
  kv_int(b, "nccl.rank",
         rank_override >= 0      ? rank_override
         : c && c->has_comm_info ? c->rank
                                 : -1,
         false);
  kv_str_known(b, "gpu.uuid", c ? c->gpu_uuid : NULL);
}

static const char *source_name(uint8_t s) {
  return s == 2 ? "gpu" : s == 1 ? "proxy" : "host";
}

static void coll_attrs(cs_jbuf *b, const cs_coll_series *s) {
  char size[16];
  cs_metrics_size_label(s->size_log2, size, sizeof size);
  CS_JLIT(b, "\"attributes\":[");
  comm_attrs(b, s->ctx, -1);
  kv_str(b, "nccl.collective", s->func, false);
  kv_str_known(b, "nccl.algorithm", s->algo);
  kv_str_known(b, "nccl.protocol", s->proto);
  kv_str(b, "cclscope.size_bucket", size, false);
  kv_str(b, "cclscope.timing.source", source_name(s->source), false);
  cs_jbuf_putc(b, ']');
}

static void times(cs_jbuf *b, const cs_metrics_snapshot *snap, int64_t now_ns) {
  CS_JLIT(b, ",\"startTimeUnixNano\":");
  u64_str(b, (uint64_t)snap->start_ns);
  CS_JLIT(b, ",\"timeUnixNano\":");
  u64_str(b, (uint64_t)now_ns);
}

/* A histogram data point's count, sum, buckets (not cumulative in OTLP)
 * and their bounds: 1 µs × 4^k, as in the Prometheus exposition. */
static void hist_fields(cs_jbuf *b, const cs_hist *h) {
  CS_JLIT(b, ",\"count\":");
  u64_str(b, h->count);
  CS_JLIT(b, ",\"sum\":");
  cs_jbuf_double(b, h->sum_s);
  CS_JLIT(b, ",\"bucketCounts\":[");
  uint64_t below = 0;
  for (int k = 0; k <= OTLP_BOUNDS; k++) {
    uint64_t le =
        k == OTLP_BOUNDS ? h->count : cs_hist_count_le_octave(h, 2 * k);
    if (k)
      cs_jbuf_putc(b, ',');
    u64_str(b, le - below);
    below = le;
  }
  CS_JLIT(b, "],\"explicitBounds\":[");
  for (int k = 0; k < OTLP_BOUNDS; k++) {
    if (k)
      cs_jbuf_putc(b, ',');
    cs_jbuf_double(b, 1e-6 * pow(4, k));
  }
  cs_jbuf_putc(b, ']');
}

static void metric_head(cs_jbuf *b, bool *first, const char *name,
                        const char *unit, const char *description) {
  if (!*first)
    cs_jbuf_putc(b, ',');
  *first = false;
  CS_JLIT(b, "{\"name\":");
  cs_jbuf_str(b, name);
  CS_JLIT(b, ",\"description\":");
  cs_jbuf_str(b, description);
  CS_JLIT(b, ",\"unit\":");
  cs_jbuf_str(b, unit);
  cs_jbuf_putc(b, ',');
}

/* A data point's value: whole numbers as asInt, others as asDouble. */
static void point_value(cs_jbuf *b, double v, bool whole) {
  if (whole) {
    CS_JLIT(b, ",\"asInt\":");
    u64_str(b, (uint64_t)v);
  } else {
    CS_JLIT(b, ",\"asDouble\":");
    cs_jbuf_double(b, v);
  }
}

static void sum_open(cs_jbuf *b) {
  CS_JLIT(b, "\"sum\":{\"aggregationTemporality\":2,\"isMonotonic\":true,"
             "\"dataPoints\":[");
}

/* What a collective series' counter counts (the OTLP sums below). */
typedef enum {
  COLL_BYTES,
  COLL_TRANSFERS,
  COLL_TRANSFER_BYTES,
  COLL_TRANSFER_SECONDS
} coll_counter;

static void coll_sum(const cs_metrics_snapshot *snap, int64_t now_ns,
                     cs_jbuf *b, bool *first, const char *name,
                     const char *unit, const char *description,
                     coll_counter which) {
  metric_head(b, first, name, unit, description);
  sum_open(b);
  for (size_t i = 0; i < snap->ncolls; i++) {
    const cs_coll_series *s = &snap->colls[i];
    if (i)
      cs_jbuf_putc(b, ',');
    cs_jbuf_putc(b, '{');
    coll_attrs(b, s);
    times(b, snap, now_ns);
    point_value(b,
                which == COLL_BYTES            ? (double)s->bytes_total
                : which == COLL_TRANSFERS      ? (double)s->transfers_total
                : which == COLL_TRANSFER_BYTES ? (double)s->transfer_bytes_total
                                               : s->transfer_seconds_total,
                which != COLL_TRANSFER_SECONDS);
    cs_jbuf_putc(b, '}');
  }
  CS_JLIT(b, "]}}");
}

static void render_collectives(const cs_metrics_snapshot *snap, int64_t now_ns,
                               cs_jbuf *b, bool *first) {
  if (!snap->ncolls)
    return;
  metric_head(b, first, "cclscope.collective.duration", "s",
              "How long collectives took, by timing source.");
  CS_JLIT(b, "\"histogram\":{\"aggregationTemporality\":2,\"dataPoints\":[");
  for (size_t i = 0; i < snap->ncolls; i++) {
    const cs_coll_series *s = &snap->colls[i];
    if (i)
      cs_jbuf_putc(b, ',');
    cs_jbuf_putc(b, '{');
    coll_attrs(b, s);
    times(b, snap, now_ns);
    hist_fields(b, &s->hist);
    cs_jbuf_putc(b, '}');
  }
  CS_JLIT(b, "]}}");

  coll_sum(snap, now_ns, b, first, "cclscope.collective.bytes", "By",
           "Bytes moved by collectives (nccl-tests' size convention).",
           COLL_BYTES);
  coll_sum(snap, now_ns, b, first, "cclscope.collective.transfers", "1",
           "Network send transfers (proxy steps) of these operations.",
           COLL_TRANSFERS);
  coll_sum(snap, now_ns, b, first, "cclscope.collective.transfer.bytes", "By",
           "Bytes of the network send transfers of these operations.",
           COLL_TRANSFER_BYTES);
  coll_sum(snap, now_ns, b, first, "cclscope.collective.transfer.duration", "s",
           "Time of the network send transfers of these operations (SendWait "
           "to completion), summed.",
           COLL_TRANSFER_SECONDS);

  for (int which = 0; which < 2; which++) {
    bool any = false;
    for (size_t i = 0; i < snap->ncolls; i++)
      any |= snap->colls[i].has_bw;
    if (!any)
      break;
    metric_head(b, first,
                which ? "cclscope.collective.algorithm_bandwidth"
                      : "cclscope.collective.bus_bandwidth",
                "By/s", "Mean bandwidth over the last window.");
    CS_JLIT(b, "\"gauge\":{\"dataPoints\":[");
    bool first_point = true;
    for (size_t i = 0; i < snap->ncolls; i++) {
      const cs_coll_series *s = &snap->colls[i];
      if (!s->has_bw)
        continue;
      if (!first_point)
        cs_jbuf_putc(b, ',');
      first_point = false;
      cs_jbuf_putc(b, '{');
      coll_attrs(b, s);
      CS_JLIT(b, ",\"timeUnixNano\":");
      u64_str(b, (uint64_t)now_ns);
      CS_JLIT(b, ",\"asDouble\":");
      cs_jbuf_double(b, which ? s->algbw_last : s->busbw_last);
      cs_jbuf_putc(b, '}');
    }
    CS_JLIT(b, "]}}");
  }
}

/* `status_of`: also the fit's status (the validity metric). */
static void link_attrs(cs_jbuf *b, const cs_link_series *l, const char *mode,
                       const cs_link_series *status_of) {
  CS_JLIT(b, "\"attributes\":[");
  comm_attrs(b, l->ctx, l->src);
  kv_int(b, "nccl.src_rank", l->src, false);
  kv_int(b, "nccl.dst_rank", l->dst, false);
  if (mode)
    kv_str(b, "cclscope.fit.mode", mode, false);
  if (status_of)
    kv_str(b, "cclscope.fit.status", net_fit_status_name(status_of->fit.status),
           false);
  cs_jbuf_putc(b, ']');
}

static void render_links(const cs_metrics_snapshot *snap, int64_t now_ns,
                         cs_jbuf *b, bool *first) {
  if (!snap->nlinks)
    return;
  metric_head(b, first, "cclscope.link.bytes", "By",
              "Bytes sent over the network from src_rank to dst_rank.");
  CS_JLIT(b, "\"sum\":{\"aggregationTemporality\":2,\"isMonotonic\":true,"
             "\"dataPoints\":[");
  for (size_t i = 0; i < snap->nlinks; i++) {
    if (i)
      cs_jbuf_putc(b, ',');
    cs_jbuf_putc(b, '{');
    link_attrs(b, &snap->links[i], NULL, NULL);
    times(b, snap, now_ns);
    CS_JLIT(b, ",\"asInt\":");
    u64_str(b, snap->links[i].bytes_total);
    cs_jbuf_putc(b, '}');
  }
  CS_JLIT(b, "]}}");
  /* Only fits that passed the checks of src/common/net_fit.h have a
   * latency and bandwidth; every fitted link has a validity point. */
  metric_head(b, first, "cclscope.link.transfers", "1",
              "Network send transfers from src_rank to dst_rank.");
  sum_open(b);
  for (size_t i = 0; i < snap->nlinks; i++) {
    if (i)
      cs_jbuf_putc(b, ',');
    cs_jbuf_putc(b, '{');
    link_attrs(b, &snap->links[i], NULL, NULL);
    times(b, snap, now_ns);
    point_value(b, (double)snap->links[i].transfers_total, true);
    cs_jbuf_putc(b, '}');
  }
  CS_JLIT(b, "]}}");
  static const char *const names[] = {
      "cclscope.link.latency", "cclscope.link.bandwidth",
      "cclscope.link.fit.valid", "cclscope.link.fit.r2"};
  static const char *const units[] = {"s", "By/s", "1", "1"};
  static const char *const help[] = {
      "Fit of time = latency + size / bandwidth over the fastest send "
      "transfer per size (last window with transfers).",
      "Fit of time = latency + size / bandwidth over the fastest send "
      "transfer per size (last window with transfers).",
      "1 when the last fit passed the checks, else 0; attribute status "
      "says why.",
      "R2 of the latency/bandwidth fit (valid fits only)."};
  for (int which = 0; which < 4; which++) {
    bool any = false;
    for (size_t i = 0; i < snap->nlinks; i++)
      any |= snap->links[i].has_fit &&
             (which == 2 || snap->links[i].fit.status == NET_FIT_OK);
    if (!any)
      continue;
    metric_head(b, first, names[which], units[which], help[which]);
    CS_JLIT(b, "\"gauge\":{\"dataPoints\":[");
    bool first_point = true;
    for (size_t i = 0; i < snap->nlinks; i++) {
      const cs_link_series *l = &snap->links[i];
      bool ok = l->has_fit && l->fit.status == NET_FIT_OK;
      if (!l->has_fit || (which != 2 && !ok))
        continue;
      if (!first_point)
        cs_jbuf_putc(b, ',');
      first_point = false;
      cs_jbuf_putc(b, '{');
      link_attrs(b, l, "min", which == 2 ? l : NULL);
      CS_JLIT(b, ",\"timeUnixNano\":");
      u64_str(b, (uint64_t)now_ns);
      if (which == 2) {
        CS_JLIT(b, ",\"asInt\":");
        u64_str(b, ok ? 1 : 0);
      } else {
        CS_JLIT(b, ",\"asDouble\":");
        cs_jbuf_double(b, which == 3   ? l->fit.r2
                          : which == 1 ? l->fit.bandwidth_bps
                                       : l->fit.latency_s);
      }
      cs_jbuf_putc(b, '}');
    }
    CS_JLIT(b, "]}}");
  }
}

static void channel_attrs(cs_jbuf *b, const cs_channel_series *c) {
  CS_JLIT(b, "\"attributes\":[");
  comm_attrs(b, c->ctx, c->rank);
  kv_int(b, "nccl.channel", c->channel, false);
  cs_jbuf_putc(b, ']');
}

/* What a channel metric shows. */
typedef enum {
  CHANNEL_TRANSFERS,
  CHANNEL_BYTES,
  CHANNEL_SIZE,     /* window mean */
  CHANNEL_DURATION, /* window mean */
  CHANNEL_LATENCY,  /* fit, valid only */
  CHANNEL_BANDWIDTH
} channel_value;

static bool channel_has(const cs_channel_series *c, channel_value which) {
  if (which == CHANNEL_SIZE || which == CHANNEL_DURATION)
    return c->has_last;
  if (which == CHANNEL_LATENCY || which == CHANNEL_BANDWIDTH)
    return c->has_fit && c->fit.status == NET_FIT_OK;
  return true;
}

static double channel_number(const cs_channel_series *c, channel_value which) {
  switch (which) {
  case CHANNEL_TRANSFERS:
    return (double)c->transfers_total;
  case CHANNEL_BYTES:
    return (double)c->bytes_total;
  case CHANNEL_SIZE:
    return c->size_last;
  case CHANNEL_DURATION:
    return c->seconds_last;
  case CHANNEL_LATENCY:
    return c->fit.latency_s;
  default:
    return c->fit.bandwidth_bps;
  }
}

/* The channel series as in Prometheus (docs/metrics.md), with the
 * per-channel latency and bandwidth fit. */
static void render_channels(const cs_metrics_snapshot *snap, int64_t now_ns,
                            cs_jbuf *b, bool *first) {
  static const struct {
    const char *name, *unit, *description;
    channel_value which;
  } metrics[] = {
      {"cclscope.channel.transfers", "1", "Network send transfers per channel.",
       CHANNEL_TRANSFERS},
      {"cclscope.channel.bytes", "By", "Bytes sent per channel.",
       CHANNEL_BYTES},
      {"cclscope.channel.transfer.size", "By",
       "Mean send transfer size per channel over the last window.",
       CHANNEL_SIZE},
      {"cclscope.channel.transfer.duration", "s",
       "Mean send transfer time per channel over the last window.",
       CHANNEL_DURATION},
      {"cclscope.channel.latency", "s",
       "Fit of time = latency + size / bandwidth over the channel's fastest "
       "send transfer per size (valid fits only).",
       CHANNEL_LATENCY},
      {"cclscope.channel.bandwidth", "By/s",
       "Fit of time = latency + size / bandwidth over the channel's fastest "
       "send transfer per size (valid fits only).",
       CHANNEL_BANDWIDTH},
  };
  for (size_t m = 0; m < sizeof metrics / sizeof metrics[0]; m++) {
    channel_value which = metrics[m].which;
    bool any = false;
    for (size_t i = 0; i < snap->nchannels; i++)
      any |= channel_has(&snap->channels[i], which);
    if (!any)
      continue;
    bool counter = which == CHANNEL_TRANSFERS || which == CHANNEL_BYTES;
    metric_head(b, first, metrics[m].name, metrics[m].unit,
                metrics[m].description);
    if (counter)
      sum_open(b);
    else
      CS_JLIT(b, "\"gauge\":{\"dataPoints\":[");
    bool first_point = true;
    for (size_t i = 0; i < snap->nchannels; i++) {
      const cs_channel_series *c = &snap->channels[i];
      if (!channel_has(c, which))
        continue;
      if (!first_point)
        cs_jbuf_putc(b, ',');
      first_point = false;
      cs_jbuf_putc(b, '{');
      channel_attrs(b, c);
      if (counter) {
        times(b, snap, now_ns);
      } else {
        CS_JLIT(b, ",\"timeUnixNano\":");
        u64_str(b, (uint64_t)now_ns);
      }
      point_value(b, channel_number(c, which), counter);
      cs_jbuf_putc(b, '}');
    }
    CS_JLIT(b, "]}}");
  }
}

/* The rank span series (docs/metrics.md, "Which GPU is late"): the
 * communicator's attributes, the span, and the process's job rank (always
 * here, when known: these series exist to name a GPU). */
static void rank_span_attrs(const cs_metrics_snapshot *snap, cs_jbuf *b,
                            const cs_rank_series *r) {
  CS_JLIT(b, "\"attributes\":[");
  comm_attrs(b, r->ctx, -1);
  kv_str(b, "cclscope.span",
         r->span == CS_RANK_SPAN_INITIAL_SYNC ? "initial_sync" : "all", false);
  if (snap->global_rank >= 0)
    kv_int(b, "cclscope.global_rank", snap->global_rank, false);
  cs_jbuf_putc(b, ']');
}

static void render_rank_spans(const cs_metrics_snapshot *snap, int64_t now_ns,
                              cs_jbuf *b, bool *first) {
  if (!snap->nrank_spans)
    return;
  for (int which = 0; which < 2; which++) {
    if (which == 0)
      metric_head(b, first, "cclscope.rank.collective.time", "s",
                  "GPU time of this rank's collectives in the communicator, "
                  "summed (span all or initial_sync). Shortest on a late "
                  "rank.");
    else
      metric_head(b, first, "cclscope.rank.collectives", "1",
                  "Collectives summed in cclscope.rank.collective.time.");
    sum_open(b);
    for (size_t i = 0; i < snap->nrank_spans; i++) {
      const cs_rank_series *r = &snap->rank_spans[i];
      if (i)
        cs_jbuf_putc(b, ',');
      cs_jbuf_putc(b, '{');
      rank_span_attrs(snap, b, r);
      times(b, snap, now_ns);
      point_value(b, which == 0 ? r->seconds : (double)r->collectives,
                  which == 1);
      cs_jbuf_putc(b, '}');
    }
    CS_JLIT(b, "]}}");
  }
}

/* A monotonic sum with one string attribute per point (the plugin's own
 * counters by kind, reason or source). */
static void plugin_counter_by(const cs_metrics_snapshot *snap, int64_t now_ns,
                              cs_jbuf *b, bool *first, const char *name,
                              const char *description, const char *attribute,
                              const char *const *values, const uint64_t *counts,
                              int n) {
  metric_head(b, first, name, "1", description);
  sum_open(b);
  for (int k = 0; k < n; k++) {
    if (k)
      cs_jbuf_putc(b, ',');
    CS_JLIT(b, "{\"attributes\":[");
    kv_str(b, attribute, values[k], true);
    cs_jbuf_putc(b, ']');
    times(b, snap, now_ns);
    point_value(b, (double)counts[k], true);
    cs_jbuf_putc(b, '}');
  }
  CS_JLIT(b, "]}}");
}

/* A gauge without attributes. */
static void plugin_gauge(cs_jbuf *b, bool *first, int64_t now_ns,
                         const char *name, const char *unit,
                         const char *description, uint64_t value) {
  metric_head(b, first, name, unit, description);
  CS_JLIT(b, "\"gauge\":{\"dataPoints\":[{\"attributes\":[],"
             "\"timeUnixNano\":");
  u64_str(b, (uint64_t)now_ns);
  point_value(b, (double)value, true);
  CS_JLIT(b, "}]}}");
}

/* A monotonic sum without attributes (the plugin's own counters). */
static void plugin_counter(const cs_metrics_snapshot *snap, int64_t now_ns,
                           cs_jbuf *b, bool *first, const char *name,
                           const char *description, uint64_t value) {
  metric_head(b, first, name, "1", description);
  CS_JLIT(b, "\"sum\":{\"aggregationTemporality\":2,\"isMonotonic\":true,"
             "\"dataPoints\":[{\"attributes\":[]");
  times(b, snap, now_ns);
  CS_JLIT(b, ",\"asInt\":");
  u64_str(b, value);
  CS_JLIT(b, "}]}}");
}

static void render_plugin(const cs_metrics_snapshot *snap, int64_t now_ns,
                          cs_jbuf *b, bool *first) {
  const cs_metrics_health *h = snap->health;
  plugin_counter(snap, now_ns, b, first, "cclscope.plugin.callbacks",
                 "Profiler callbacks recorded by this process.", h->callbacks);
  static const char *const kinds[] = {"start", "state", "stop"};
  uint64_t drops[] = {h->dropped_starts, h->dropped_states, h->dropped_stops};
  plugin_counter_by(snap, now_ns, b, first, "cclscope.plugin.dropped",
                    "Records dropped because a thread's ring was full.",
                    "cclscope.drop.kind", kinds, drops, 3);
  static const char *const reasons[] = {"abandoned", "parent-stopped",
                                        "no-progress", "finalize"};
  plugin_counter_by(
      snap, now_ns, b, first, "cclscope.plugin.reclaimed",
      "Events NCCL never stopped, reclaimed by the plugin, by reason.",
      "cclscope.reclaim.reason", reasons, h->reclaimed + 1,
      CS_RECLAIM_COUNT - 1);
  static const char *const sources[] = {"host", "proxy", "gpu"};
  plugin_counter_by(snap, now_ns, b, first, "cclscope.plugin.timings",
                    "Collective timings derived, by source.",
                    "cclscope.timing.source", sources, h->timings, 3);
  static const char *const sampling[] = {"sample", "min_bytes"};
  uint64_t left_out[] = {h->sampled_out, h->too_small};
  plugin_counter_by(snap, now_ns, b, first, "cclscope.plugin.sampled_out",
                    "Operations left out on purpose, by reason.",
                    "cclscope.sample.reason", sampling, left_out, 2);
  plugin_counter(snap, now_ns, b, first, "cclscope.plugin.hangs",
                 "Operations the hang watchdog reported.", h->hangs);
  plugin_counter(snap, now_ns, b, first, "cclscope.plugin.series_dropped",
                 "Metric series not created because a table was full.",
                 snap->series_dropped);
  plugin_gauge(b, first, now_ns, "cclscope.plugin.events_inflight", "1",
               "Events started and not yet ended.", h->inflight);
  plugin_gauge(b, first, now_ns, "cclscope.plugin.ring.high_water", "By",
               "Most ring bytes ever waiting for the writer (any thread).",
               h->ring_high_water_bytes);
  plugin_gauge(b, first, now_ns, "cclscope.plugin.threads", "1",
               "Threads that called the plugin.", h->threads);
}

static void render_steps(const cs_metrics_snapshot *snap, int64_t now_ns,
                         cs_jbuf *b, bool *first) {
  const cs_metrics_steps *st = snap->steps;
  if (!st->has_step)
    return;
  metric_head(b, first, "cclscope.step", "1",
              "The latest training step marked with cclscope_step().");
  CS_JLIT(b, "\"gauge\":{\"dataPoints\":[{\"attributes\":[],"
             "\"timeUnixNano\":");
  u64_str(b, (uint64_t)now_ns);
  CS_JLIT(b, ",\"asInt\":\"");
  cs_jbuf_i64(b, st->step);
  CS_JLIT(b, "\"}]}}");
  metric_head(b, first, "cclscope.step.duration", "s",
              "Time from one step mark to the next.");
  CS_JLIT(b, "\"histogram\":{\"aggregationTemporality\":2,\"dataPoints\":[{"
             "\"attributes\":[]");
  times(b, snap, now_ns);
  hist_fields(b, &st->duration);
  CS_JLIT(b, "}]}}");
}

void cs_metrics_render_otlp(const cs_metrics_snapshot *snap, int64_t now_ns,
                            cs_jbuf *b) {
  CS_JLIT(b, "{\"resourceMetrics\":[{\"resource\":{\"attributes\":");
  cs_otlp_render_resource(snap, b);
  CS_JLIT(b, "},\"scopeMetrics\":[{\"scope\":{\"name\":\"cclscope\","
             "\"version\":\"" CCLSCOPE_VERSION "\"},\"metrics\":[");
  bool first = true;
  render_steps(snap, now_ns, b, &first);
  render_collectives(snap, now_ns, b, &first);
  render_links(snap, now_ns, b, &first);
  render_channels(snap, now_ns, b, &first);
  render_rank_spans(snap, now_ns, b, &first);
  render_plugin(snap, now_ns, b, &first);
  CS_JLIT(b, "]}]}]}");
}
