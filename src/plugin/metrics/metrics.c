/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/metrics/metrics.c — aggregation and windows (see metrics.h).
 * Series are found by a 64-bit hash of their labels (kept in a small
 * u64map index per table) and checked field by field.
 */
#include "metrics.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "context.h"
#include "event_types.h"
#include "metrics_otlp.h"
#include "metrics_prom.h"
#include "u64map.h"

/* A PXN sender resolved to one of this process's contexts (pxn_ctx). */
#define PXN_CACHE 32
typedef struct {
  bool used;
  int32_t origin_pid, rank, peer;
  uint32_t ctx; /* 0: no single candidate */
} pxn_entry;

/* An operation's send transfers, waiting for its timing (which names its
 * series). Direct-mapped by operation id: a newer operation taking the slot
 * of one still waiting costs the older one its transfers, nothing more. */
#define OP_TRANSFER_SLOT_BITS 12
#define OP_TRANSFER_SLOTS (1u << OP_TRANSFER_SLOT_BITS)
typedef struct {
  uint64_t op_id; /* 0: free */
  uint64_t transfers, bytes;
  double seconds;
} op_transfers;

/* The link and channel series the last send step on a channel fed, by
 * the channel's low bits: a ProxyOp's steps (one link, one channel) come
 * in runs, so the series are hashed and looked up once per run, not per
 * step. Entries are an index + 1 into the table (0: none), checked field
 * by field before use (series are never removed or moved). */
#define RECENT_SERIES 8
typedef struct {
  uint32_t link;
  uint32_t channel;
} recent_series;

/* Per-table hash indexes, private to this file. */
typedef struct {
  op_transfers ops[OP_TRANSFER_SLOTS];
  cs_u64map colls, links, channels, rank_spans;
  pxn_entry pxn[PXN_CACHE];
  unsigned pxn_next;                   /* round-robin replacement */
  recent_series recent[RECENT_SERIES]; /* by channel % RECENT_SERIES */
} metrics_index;

/* The index lives right after the public struct (one allocation). */
typedef struct {
  cs_metrics m;
  metrics_index idx;
} metrics_block;

static metrics_index *idx(cs_metrics *m) {
  return &((metrics_block *)(void *)m)->idx;
}

static uint64_t hash_str(uint64_t h, const char *s) {
  for (; s && *s; s++)
    h = (h ^ (unsigned char)*s) * UINT64_C(0x100000001b3);
  return (h ^ 0xff) * UINT64_C(0x100000001b3);
}

static uint64_t hash_u64(uint64_t h, uint64_t v) {
  return (h ^ v) * UINT64_C(0x9E3779B97F4A7C15) + 0x632be59bd9b4e019ull;
}

static uint8_t size_bucket(uint64_t bytes) {
  if (bytes == 0)
    return 0xFF;
  return (uint8_t)(63 - __builtin_clzll(bytes));
}

cs_metrics *cs_metrics_create(const cs_metrics_config *cfg, int64_t now_ns) {
  metrics_block *b = calloc(1, sizeof *b);
  if (!b)
    return NULL;
  cs_metrics *m = &b->m;
  m->cfg = *cfg;
  if (m->cfg.max_series == 0)
    m->cfg.max_series = 2000;
  m->start_ns = now_ns;
  m->last_close_ns = now_ns;
  m->window_end_ns = now_ns + (int64_t)(cfg->window_s * 1e9);
  m->colls = calloc(m->cfg.max_series, sizeof *m->colls);
  m->links = calloc(m->cfg.max_series, sizeof *m->links);
  m->channels = calloc(m->cfg.max_series, sizeof *m->channels);
  m->rank_spans = calloc(m->cfg.max_series, sizeof *m->rank_spans);
  cs_jbuf_init(&m->prom);
  cs_jbuf_init(&m->otlp);
  if (!m->colls || !m->links || !m->channels || !m->rank_spans ||
      !cs_u64map_init(&b->idx.colls, 64) ||
      !cs_u64map_init(&b->idx.links, 64) ||
      !cs_u64map_init(&b->idx.channels, 64) ||
      !cs_u64map_init(&b->idx.rank_spans, 64)) {
    cs_metrics_destroy(m);
    return NULL;
  }
  return m;
}

void cs_metrics_destroy(cs_metrics *m) {
  if (!m)
    return;
  metrics_index *x = idx(m);
  cs_u64map_free(&x->colls);
  cs_u64map_free(&x->links);
  cs_u64map_free(&x->channels);
  cs_u64map_free(&x->rank_spans);
  free(m->colls);
  free(m->links);
  free(m->channels);
  free(m->rank_spans);
  cs_jbuf_free(&m->prom);
  cs_jbuf_free(&m->otlp);
  free(m); /* the block starts with m */
}

/* ---- finding series ---- */

static void copy_label(char *dst, size_t n, const char *src) {
  snprintf(dst, n, "%s", src ? src : "");
}

static cs_coll_series *coll_series(cs_metrics *m, const cs_timing *t) {
  uint8_t bucket = size_bucket(t->bytes);
  uint64_t h = hash_u64(hash_u64(0xcbf29ce484222325ull, t->ctx),
                        (uint64_t)bucket << 8 | t->source);
  h = hash_str(hash_str(hash_str(h, t->func), t->algo), t->proto);
  if (!h)
    h = 1;
  char func[24], algo[20], proto[12];
  copy_label(func, sizeof func, t->func);
  copy_label(algo, sizeof algo, t->algo);
  copy_label(proto, sizeof proto, t->proto);
  for (int probe = 0; probe < 8; probe++, h = hash_u64(h, 1) | 1) {
    uintptr_t at = (uintptr_t)cs_u64map_get(&idx(m)->colls, h);
    if (!at)
      break;
    cs_coll_series *s = &m->colls[at - 1];
    if (s->ctx == t->ctx && s->size_log2 == bucket && s->source == t->source &&
        strcmp(s->func, func) == 0 && strcmp(s->algo, algo) == 0 &&
        strcmp(s->proto, proto) == 0)
      return s;
  }
  if (m->ncolls >= m->cfg.max_series) {
    m->series_dropped++;
    return NULL;
  }
  cs_coll_series *s = &m->colls[m->ncolls++];
  s->ctx = t->ctx;
  s->size_log2 = bucket;
  s->source = (uint8_t)t->source;
  memcpy(s->func, func, sizeof func);
  memcpy(s->algo, algo, sizeof algo);
  memcpy(s->proto, proto, sizeof proto);
  cs_u64map_put(&idx(m)->colls, h, (void *)(uintptr_t)m->ncolls);
  return s;
}

static cs_link_series *link_series(cs_metrics *m, uint32_t ctx, int32_t src,
                                   int32_t dst) {
  uint64_t h = hash_u64(hash_u64(hash_u64(0x84222325ull, ctx), (uint32_t)src),
                        (uint32_t)dst) |
               1;
  for (int probe = 0; probe < 8; probe++, h = hash_u64(h, 2) | 1) {
    uintptr_t at = (uintptr_t)cs_u64map_get(&idx(m)->links, h);
    if (!at)
      break;
    cs_link_series *s = &m->links[at - 1];
    if (s->ctx == ctx && s->src == src && s->dst == dst)
      return s;
  }
  if (m->nlinks >= m->cfg.max_series) {
    m->series_dropped++;
    return NULL;
  }
  cs_link_series *s = &m->links[m->nlinks++];
  s->ctx = ctx;
  s->src = src;
  s->dst = dst;
  cs_u64map_put(&idx(m)->links, h, (void *)(uintptr_t)m->nlinks);
  return s;
}

static cs_channel_series *channel_series(cs_metrics *m, uint32_t ctx,
                                         int32_t rank, uint8_t channel) {
  uint64_t h = hash_u64(hash_u64(hash_u64(0x3c6ef372ull, ctx), (uint32_t)rank),
                        channel) |
               1;
  for (int probe = 0; probe < 8; probe++, h = hash_u64(h, 3) | 1) {
    uintptr_t at = (uintptr_t)cs_u64map_get(&idx(m)->channels, h);
    if (!at)
      break;
    cs_channel_series *s = &m->channels[at - 1];
    if (s->ctx == ctx && s->rank == rank && s->channel == channel)
      return s;
  }
  if (m->nchannels >= m->cfg.max_series) {
    m->series_dropped++;
    return NULL;
  }
  cs_channel_series *s = &m->channels[m->nchannels++];
  s->ctx = ctx;
  s->rank = rank;
  s->channel = channel;
  cs_u64map_put(&idx(m)->channels, h, (void *)(uintptr_t)m->nchannels);
  return s;
}

/* link_series and channel_series for a send step on `channel`, through
 * the series that channel's previous step fed when they match. */
static cs_link_series *step_link_series(cs_metrics *m, uint32_t ctx,
                                        int32_t src, int32_t dst,
                                        uint8_t channel) {
  uint32_t *recent = &idx(m)->recent[channel % RECENT_SERIES].link;
  if (*recent) {
    cs_link_series *s = &m->links[*recent - 1];
    if (s->ctx == ctx && s->src == src && s->dst == dst)
      return s;
  }
  cs_link_series *s = link_series(m, ctx, src, dst);
  if (s)
    *recent = (uint32_t)(s - m->links) + 1;
  return s;
}

static cs_channel_series *step_channel_series(cs_metrics *m, uint32_t ctx,
                                              int32_t rank, uint8_t channel) {
  uint32_t *recent = &idx(m)->recent[channel % RECENT_SERIES].channel;
  if (*recent) {
    cs_channel_series *s = &m->channels[*recent - 1];
    if (s->ctx == ctx && s->rank == rank && s->channel == channel)
      return s;
  }
  cs_channel_series *s = channel_series(m, ctx, rank, channel);
  if (s)
    *recent = (uint32_t)(s - m->channels) + 1;
  return s;
}

static cs_rank_series *rank_series(cs_metrics *m, uint32_t ctx,
                                   cs_rank_span span) {
  uint64_t h = hash_u64(hash_u64(0x1b873593ull, ctx), (uint64_t)span) | 1;
  for (int probe = 0; probe < 8; probe++, h = hash_u64(h, 4) | 1) {
    uintptr_t at = (uintptr_t)cs_u64map_get(&idx(m)->rank_spans, h);
    if (!at)
      break;
    cs_rank_series *s = &m->rank_spans[at - 1];
    if (s->ctx == ctx && s->span == span)
      return s;
  }
  if (m->nrank_spans >= m->cfg.max_series) {
    m->series_dropped++;
    return NULL;
  }
  cs_rank_series *s = &m->rank_spans[m->nrank_spans++];
  s->ctx = ctx;
  s->span = (uint8_t)span;
  cs_u64map_put(&idx(m)->rank_spans, h, (void *)(uintptr_t)m->nrank_spans);
  return s;
}

/* ---- feeding ---- */

void cs_metrics_step(cs_metrics *m, int64_t step, int64_t ts_ns) {
  cs_metrics_steps *st = &m->steps;
  if (st->has_step && ts_ns > st->last_ns)
    cs_hist_add(&st->duration, (double)(ts_ns - st->last_ns) / 1e9);
  st->has_step = true;
  st->step = step;
  st->last_ns = ts_ns;
  st->marks_total++;
}

/* The slot comes from a mixing hash: operation ids come in per-thread
 * blocks of 4096, so ids of operations started on different threads often
 * share their low bits, and the low bits of a product depend only on the
 * low bits of its factors (test_metrics_op_transfers). */
static op_transfers *op_slot(cs_metrics *m, uint64_t op_id) {
  return &idx(m)->ops[cs_u64_hash(op_id) >> (64 - OP_TRANSFER_SLOT_BITS)];
}

static void rank_span_add(cs_metrics *m, uint32_t ctx, cs_rank_span span,
                          int64_t ns) {
  cs_rank_series *r = rank_series(m, ctx, span);
  if (!r)
    return;
  r->collectives++;
  r->seconds += ns > 0 ? (double)ns / 1e9 : 0.0;
}

/* A collective's spans on this rank's GPU: what the rank measures alone
 * of its arrival (docs/metrics.md, "Which GPU is late"). Only collectives
 * (every rank of the communicator runs them; a P2P waits for one peer)
 * with GPU stamps and all their channels, in communicators of two ranks or
 * more. When NCCL reports KernelPhases, initial_sync is counted for every
 * such collective, as 0 when that phase was not reported (zero length): a
 * late rank that does not wait at all must not drop out of the comparison. */
static void rank_spans_of(cs_metrics *m, const cs_timing *t) {
  if (t->etype != CS_EV_COLL || t->source != CS_TIMING_GPU || t->incomplete ||
      t->nranks < 2)
    return;
  rank_span_add(m, t->ctx, CS_RANK_SPAN_ALL, t->gpu_stop_ns - t->gpu_start_ns);
  if (t->phase_valid)
    rank_span_add(
        m, t->ctx, CS_RANK_SPAN_INITIAL_SYNC,
        t->phase_valid & 1u ? t->phase_stop_ns[0] - t->phase_start_ns[0] : 0);
}

void cs_metrics_timing(cs_metrics *m, const cs_timing *t) {
  rank_spans_of(m, t);
  cs_coll_series *s = coll_series(m, t);
  op_transfers *o = op_slot(m, t->event_id);
  if (o->op_id == t->event_id) {
    if (s) {
      s->transfers_total += o->transfers;
      s->transfer_bytes_total += o->bytes;
      s->transfer_seconds_total += o->seconds;
    }
    o->op_id = 0;
  }
  if (!s)
    return;
  cs_hist_add(&s->hist, (double)(t->stop_ns - t->start_ns) / 1e9);
  s->bytes_total += t->bytes;
  if (t->bus_bw >= 0) {
    s->algbw_sum_w += t->alg_bw;
    s->busbw_sum_w += t->bus_bw;
    s->bw_n_w++;
    s->busbw_sum_total += t->bus_bw;
    s->bw_n_total++;
  }
}

/* The slot of `size` in a window table of fastest transfers (linear
 * probing from a hash of the exact size); NULL when it is full of other
 * sizes. */
static cs_min_point *min_point(cs_min_point *table, uint64_t size) {
  uint64_t h = cs_u64_hash(size); /* sizes often differ in high bits only */
  for (int probe = 0; probe < CS_METRICS_SIZE_BUCKETS; probe++) {
    cs_min_point *p = &table[(h + (uint64_t)probe) % CS_METRICS_SIZE_BUCKETS];
    if (p->size == 0 || p->size == size)
      return p;
  }
  return NULL;
}

/* Keep the transfer if it is the fastest of its size in the window. */
static void keep_fastest(cs_min_point *table, uint64_t size, double seconds) {
  cs_min_point *p = min_point(table, size);
  if (p && (p->size == 0 || seconds < p->seconds)) {
    p->size = size;
    p->seconds = seconds;
  }
}

/* The window's fit through its fastest transfers (src/common/net_fit.h);
 * a window without transfers keeps the last fit. The table is emptied. */
static void close_fit(cs_min_point *table, bool *has_fit, net_fit_result *fit) {
  net_fit_acc acc;
  net_fit_init(&acc);
  for (int b = 0; b < CS_METRICS_SIZE_BUCKETS; b++)
    if (table[b].size)
      net_fit_add(&acc, (double)table[b].size, table[b].seconds);
  if (acc.n > 0) {
    *fit = net_fit_solve(&acc);
    *has_fit = true;
  }
  memset(table, 0, sizeof(cs_min_point) * CS_METRICS_SIZE_BUCKETS);
}

/* The communicator of a PXN send this process's proxy ran for another
 * process (its context is foreign: never dereferenced, so the event has
 * none). PXN routes through a local rank of the same communicator, so the
 * candidates are this process's communicators that have both the sending
 * rank and its peer, with another rank of their own. Exactly one: its
 * context; none or several: 0 (the series says comm "unknown"). Cached per
 * (origin pid, rank, peer): the table scan runs once per sender. */
static uint32_t pxn_ctx(cs_metrics *m, const cs_event *e) {
  metrics_index *x = idx(m);
  for (int i = 0; i < PXN_CACHE; i++) {
    const pxn_entry *p = &x->pxn[i];
    if (p->used && p->origin_pid == e->origin_pid && p->rank == e->rank &&
        p->peer == e->link.peer)
      return p->ctx;
  }
  uint32_t found = 0;
  uint64_t found_comm = 0;
  int candidates = 0;
  for (uint32_t slot = 0; slot < CS_MAX_CONTEXTS; slot++) {
    uint32_t serial =
        atomic_load_explicit(&cs_contexts[slot].serial, memory_order_acquire);
    const cs_context *c = cs_ctx_get(serial);
    if (!c || !c->has_comm_info || c->rank == e->rank || e->rank >= c->nranks ||
        e->link.peer >= c->nranks)
      continue;
    if (candidates == 0 || c->comm_id != found_comm)
      candidates++;
    found = serial;
    found_comm = c->comm_id;
  }
  pxn_entry *p = &x->pxn[x->pxn_next++ % PXN_CACHE];
  *p = (pxn_entry){.used = true,
                   .origin_pid = e->origin_pid,
                   .rank = e->rank,
                   .peer = e->link.peer,
                   .ctx = candidates == 1 ? found : 0};
  return p->ctx;
}

/* A send step's transfer: size posted at SendWait, done at its stop. */
void cs_metrics_take_transfer(cs_metrics *m, const cs_event *e, uint64_t op_id,
                              const cs_clock_cal *cal) {
  const cs_state_rec *posted = NULL;
  for (uint32_t i = 0; i < e->nstates; i++)
    if (e->states[i].state == 9 /* SendWait */)
      posted = &e->states[i];
  if (!posted || posted->arg == 0)
    return;
  double seconds =
      (double)(cs_clock_to_epoch_ns_cached(cal, &m->clock_past, e->stop_raw) -
               cs_clock_to_epoch_ns_cached(cal, &m->clock_past,
                                           posted->raw_ts)) /
      1e9;
  if (seconds <= 0)
    return;
  uint64_t size = posted->arg;
  uint32_t ctx = e->ctx;
  if (!ctx && e->foreign_owner && e->rank >= 0 && e->link.peer >= 0)
    ctx = pxn_ctx(m, e);
  cs_link_series *l =
      step_link_series(m, ctx, e->rank, e->link.peer, e->link.channel_id);
  if (l) {
    l->transfers_total++;
    l->bytes_total += size;
    keep_fastest(l->min_w, size, seconds);
  }
  cs_channel_series *c =
      step_channel_series(m, e->ctx, e->rank, e->link.channel_id);
  if (c) {
    c->transfers_total++;
    c->bytes_total += size;
    c->n_w++;
    c->bytes_w += size;
    c->seconds_w += seconds;
    keep_fastest(c->min_w, size, seconds);
  }
  if (op_id) {
    op_transfers *o = op_slot(m, op_id);
    if (o->op_id != op_id)
      *o = (op_transfers){.op_id = op_id};
    o->transfers++;
    o->bytes += size;
    o->seconds += seconds;
  }
}

/* ---- closing a window ---- */

/* What the renderers read (metrics_snapshot.h). */
static cs_metrics_snapshot snapshot_of(const cs_metrics *m) {
  return (cs_metrics_snapshot){.run_id = m->cfg.run_id,
                               .hostname = m->cfg.hostname,
                               .pid = m->cfg.pid,
                               .label_global_rank = m->cfg.label_global_rank,
                               .global_rank = m->cfg.global_rank,
                               .service_name = m->cfg.service_name,
                               .resource_attrs = m->cfg.resource_attrs,
                               .start_ns = m->start_ns,
                               .colls = m->colls,
                               .ncolls = m->ncolls,
                               .links = m->links,
                               .nlinks = m->nlinks,
                               .channels = m->channels,
                               .nchannels = m->nchannels,
                               .rank_spans = m->rank_spans,
                               .nrank_spans = m->nrank_spans,
                               .series_dropped = m->series_dropped,
                               .health = &m->health,
                               .steps = &m->steps};
}

void cs_metrics_render_prom_now(cs_metrics *m) {
  cs_metrics_snapshot snap = snapshot_of(m);
  m->prom.len = 0;
  cs_metrics_render_prometheus(&snap, &m->prom);
}

void cs_metrics_close_window(cs_metrics *m, int64_t now_ns,
                             const cs_metrics_health *health) {
  for (size_t i = 0; i < m->ncolls; i++) {
    cs_coll_series *s = &m->colls[i];
    s->has_bw = s->bw_n_w > 0;
    if (s->has_bw) {
      s->algbw_last = s->algbw_sum_w / (double)s->bw_n_w;
      s->busbw_last = s->busbw_sum_w / (double)s->bw_n_w;
    }
    s->algbw_sum_w = s->busbw_sum_w = 0;
    s->bw_n_w = 0;
  }
  for (size_t i = 0; i < m->nlinks; i++) {
    cs_link_series *l = &m->links[i];
    close_fit(l->min_w, &l->has_fit, &l->fit);
  }
  for (size_t i = 0; i < m->nchannels; i++) {
    cs_channel_series *c = &m->channels[i];
    close_fit(c->min_w, &c->has_fit, &c->fit);
    c->has_last = c->n_w > 0;
    if (c->has_last) {
      c->size_last = (double)c->bytes_w / (double)c->n_w;
      c->seconds_last = c->seconds_w / (double)c->n_w;
    }
    c->n_w = c->bytes_w = 0;
    c->seconds_w = 0;
  }
  if (health)
    m->health = *health;
  m->last_close_ns = now_ns;
  if (m->window_end_ns > now_ns) /* closed by its event count: restart */
    m->window_end_ns = now_ns + (int64_t)(m->cfg.window_s * 1e9);
  while (m->window_end_ns <= now_ns)
    m->window_end_ns += (int64_t)(m->cfg.window_s * 1e9);
  m->events_w = 0;
  m->windows++;
  cs_metrics_render_prom_now(m);
  if (m->cfg.want_otlp) {
    cs_metrics_snapshot snap = snapshot_of(m);
    m->otlp.len = 0;
    cs_metrics_render_otlp(&snap, now_ns, &m->otlp);
  }
}
