/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/convert/cmd_perfetto.c — `cclscope perfetto DIR -o trace.json`:
 * Chrome trace-event JSON for ui.perfetto.dev and chrome://tracing.
 *
 * Mapping (docs/cli.md "perfetto"): pid = trace file (1, 2, ... in input
 * order, named "HOST pid PID"); tid = a track of timeline.h (communicator
 * rank x thread x lane, numbered per process); every event is a complete
 * event (ph X), GPU activity records too, on a GPU lane per (GPU, stream)
 * of their rank; parent links (and KernelLaunch -> its kernel) and the
 * same collective on successive ranks are flow arrows (ph s/f); network send
 * bandwidth and collective busBw are counters (ph C); names and order are
 * metadata (ph M). Records arrive in start order (ordered_reader ORD_START), so
 * memory is bounded: a parent cache of recent events, the collectives waiting
 * for their other ranks, and one counter bin per process (plus the sort's
 * --memory-mb).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_options.h"
#include "convert/timeline.h"
#include "read/ordered_reader.h"
#include "util/jsonw.h"

#define PARENT_CACHE_BITS 18
#define STEP_CACHE_BITS 16
#define MAX_WAITING_COLLS (1u << 20)

/* Where an event was drawn (for arrows pointing at it later). */
typedef struct {
  uint64_t file;
  uint64_t id;
  uint32_t pid;
  uint32_t tid;
  int64_t start;
} drawn_event;

/* The last `cap` events drawn, exactly (FIFO eviction): an arrow to a
 * parent drawn more than `cap` events earlier is the only one missed. */
typedef struct {
  pair_map index; /* (file, id) -> ring slot + 1 */
  drawn_event *ring;
  size_t cap, next, n;
} event_cache;

/* The previous rank's Coll of one collective instance. */
typedef struct {
  uint32_t pid, tid;
  int64_t start;
  int seen;
} coll_link;

/* Network send bytes of one process in the current counter bin. */
typedef struct {
  int64_t bin; /* index of the bin being filled, INT64_MIN none */
  uint64_t bytes;
  bool emitted_any;
} counter_bin;

typedef struct {
  /* options */
  bool flows;
  bool states;
  int64_t bin_ns;
  /* state */
  jsonw w;
  timeline tl;
  int64_t base; /* ns subtracted from every timestamp */
  bool have_base;
  event_cache parents;
  event_cache steps;
  pair_map tag_to_file; /* (handleTag, pid) -> file + 1; (tag, -1) too */
  pair_map colls;       /* (comm, func|seq) -> coll_link index + 1 */
  coll_link *links;
  size_t nlinks, cap_links;
  size_t *free_links; /* slots of completed instances, reused */
  size_t nfree;
  intern_tab funcs;
  counter_bin *bins; /* per file */
  uint64_t flow_id;
  uint64_t written, parent_flows, coll_flows, parents_missed;
  uint64_t gpu_activities; /* drawn on GPU lanes */
  ord_reader *rd;
} perfetto;

/* ---- small helpers ---- */

static bool cache_init(event_cache *c, int bits) {
  pair_map_init(&c->index);
  c->cap = (size_t)1 << bits;
  c->next = c->n = 0;
  c->ring = calloc(c->cap, sizeof *c->ring);
  return c->ring != NULL;
}

static void cache_free(event_cache *c) {
  pair_map_free(&c->index);
  free(c->ring);
}

static void cache_put(event_cache *c, size_t file, uint64_t id, uint32_t pid,
                      uint32_t tid, int64_t start) {
  bool inserted;
  uint64_t *slot = pair_map_put(&c->index, file, id, 0, &inserted);
  if (!slot)
    return;
  if (!inserted) { /* the same id again (a duplicate): update */
    drawn_event *d = &c->ring[*slot - 1];
    d->pid = pid;
    d->tid = tid;
    d->start = start;
    return;
  }
  size_t at = c->next;
  if (c->n == c->cap) {
    pair_map_remove(&c->index, c->ring[at].file, c->ring[at].id);
    slot = pair_map_get(&c->index, file, id); /* removal may move it */
  } else {
    c->n++;
  }
  *slot = at + 1;
  c->ring[at] = (drawn_event){file, id, pid, tid, start};
  c->next = (at + 1) % c->cap;
}

static const drawn_event *cache_get(const event_cache *c, size_t file,
                                    uint64_t id) {
  const uint64_t *slot = pair_map_get(&c->index, file, id);
  return slot ? &c->ring[*slot - 1] : NULL;
}

static void ts_field(perfetto *p, const char *key, int64_t ns) {
  jw_key(&p->w, key);
  jw_ns_as_us(&p->w, ns - p->base);
}

static void begin_event(perfetto *p, const char *ph, uint32_t pid,
                        uint32_t tid) {
  jw_newline(&p->w);
  jw_obj_begin(&p->w);
  jw_key(&p->w, "ph");
  jw_str(&p->w, ph);
  jw_key(&p->w, "pid");
  jw_u64(&p->w, pid);
  jw_key(&p->w, "tid");
  jw_u64(&p->w, tid);
  p->written++;
}

static void flow(perfetto *p, const char *cat, const char *name,
                 uint32_t from_pid, uint32_t from_tid, int64_t from_ts,
                 uint32_t to_pid, uint32_t to_tid, int64_t to_ts) {
  uint64_t id = ++p->flow_id;
  begin_event(p, "s", from_pid, from_tid);
  jw_key(&p->w, "id");
  jw_u64(&p->w, id);
  jw_key(&p->w, "cat");
  jw_str(&p->w, cat);
  jw_key(&p->w, "name");
  jw_str(&p->w, name);
  ts_field(p, "ts", from_ts);
  jw_obj_end(&p->w);
  begin_event(p, "f", to_pid, to_tid);
  jw_key(&p->w, "bp");
  jw_str(&p->w, "e");
  jw_key(&p->w, "id");
  jw_u64(&p->w, id);
  jw_key(&p->w, "cat");
  jw_str(&p->w, cat);
  jw_key(&p->w, "name");
  jw_str(&p->w, name);
  ts_field(p, "ts", to_ts);
  jw_obj_end(&p->w);
}

static void counter(perfetto *p, uint32_t pid, const char *name,
                    const char *series, int64_t ts, double value) {
  begin_event(p, "C", pid, 0);
  jw_key(&p->w, "name");
  jw_str(&p->w, name);
  ts_field(p, "ts", ts);
  jw_key(&p->w, "args");
  jw_obj_begin(&p->w);
  jw_key(&p->w, series);
  jw_double(&p->w, value, 4);
  jw_obj_end(&p->w);
  jw_obj_end(&p->w);
}

/* ---- counters: network send GB/s per process ---- */

static void flush_bin(perfetto *p, size_t file) {
  counter_bin *b = &p->bins[file];
  if (b->bin == INT64_MIN)
    return;
  uint32_t pid = (uint32_t)file + 1;
  int64_t t0 = p->base + b->bin * p->bin_ns;
  counter(p, pid, "net send GB/s", "GB/s", t0,
          (double)b->bytes / (double)p->bin_ns);
  /* back to zero at the end of the bin (the next bin overwrites it) */
  counter(p, pid, "net send GB/s", "GB/s", t0 + p->bin_ns, 0.0);
  b->bytes = 0;
  b->bin = INT64_MIN;
}

static void add_send_bytes(perfetto *p, size_t file, int64_t ts,
                           uint64_t bytes) {
  counter_bin *b = &p->bins[file];
  int64_t rel = ts - p->base;
  int64_t bin = rel >= 0 ? rel / p->bin_ns : -1;
  if (b->bin != INT64_MIN && bin > b->bin)
    flush_bin(p, file);
  if (b->bin == INT64_MIN)
    b->bin = bin;
  b->bytes += bytes; /* a late record joins the current bin */
}

/* Bytes of a send ProxyStep (SendWait transSize), 0 if none. */
static uint64_t send_step_bytes(const rec *r, rec_scratch *sc) {
  rec_states_iter it;
  rec_state e;
  uint64_t bytes = 0;
  if (!rec_states_begin(&it, r, &sc->state))
    return 0;
  while (rec_states_next(&it, &e))
    if (e.has_id && e.id == 9)
      js_to_u64(&e.size_value, &bytes); /* as before: absent leaves it */
  return bytes;
}

/* ---- events ---- */

static bool can_be_parent(ev_type t) {
  return t != ET_NET_PLUGIN && t != ET_KERNEL_CH && t != ET_KERNEL_PHASE &&
         t != ET_PROXY_DIAG && t != ET_CE_SYNC && t != ET_CE_BATCH;
}

static void write_states(perfetto *p, const rec *r, rec_scratch *sc,
                         uint32_t pid, uint32_t tid, int64_t end) {
  rec_states_iter it;
  rec_state e;
  if (!rec_states_begin(&it, r, &sc->state))
    return;
  char name[64] = "";
  int64_t prev_ts = INT64_MIN;
  while (rec_states_next(&it, &e)) {
    if (!e.has_ts)
      continue;
    int64_t ts = e.ts;
    if (prev_ts != INT64_MIN && ts >= prev_ts) {
      begin_event(p, "X", pid, tid);
      jw_key(&p->w, "name");
      jw_str(&p->w, name);
      jw_key(&p->w, "cat");
      jw_str(&p->w, "state");
      ts_field(p, "ts", prev_ts);
      jw_key(&p->w, "dur");
      jw_ns_as_us(&p->w, ts - prev_ts);
      jw_obj_end(&p->w);
    }
    js_str_copy(&e.name, name, sizeof name); /* not a string: kept */
    prev_ts = ts;
  }
  if (prev_ts != INT64_MIN && end >= prev_ts) {
    begin_event(p, "X", pid, tid);
    jw_key(&p->w, "name");
    jw_str(&p->w, name);
    jw_key(&p->w, "cat");
    jw_str(&p->w, "state");
    ts_field(p, "ts", prev_ts);
    jw_key(&p->w, "dur");
    jw_ns_as_us(&p->w, end - prev_ts);
    jw_obj_end(&p->w);
  }
}

static long file_of_foreign(perfetto *p, uint64_t raw, int64_t origin_pid) {
  uint32_t tag = (uint32_t)(raw >> 48);
  const uint64_t *f = pair_map_get(&p->tag_to_file, tag, (uint64_t)origin_pid);
  if (!f)
    f = pair_map_get(&p->tag_to_file, tag, UINT64_MAX);
  return f ? (long)*f - 1 : -1;
}

static void parent_arrow(perfetto *p, const rec *r, size_t file, uint32_t pid,
                         uint32_t tid) {
  const drawn_event *d = NULL;
  if (r->parent == PAR_LOCAL) {
    d = cache_get(r->et == ET_NET_PLUGIN ? &p->steps : &p->parents, file,
                  r->parent_id);
  } else if (r->parent == PAR_FOREIGN) {
    int64_t origin = -1;
    js_to_i64(js_get(r->f, K_originPid), &origin);
    long pf = file_of_foreign(p, r->parent_raw, origin);
    if (pf >= 0)
      d = cache_get(&p->parents, (size_t)pf,
                    r->parent_raw & ((UINT64_C(1) << 47) - 1));
  } else {
    return;
  }
  if (!d) {
    p->parents_missed++;
    return;
  }
  flow(p, "parent", "parent", d->pid, d->tid, d->start, pid, tid, r->start.ts);
  p->parent_flows++;
}

/* Same collective on the previous rank -> this one (arrival order). */
static void collective_arrow(perfetto *p, const rec *r, rec_scratch *sc,
                             size_t file, uint32_t pid, uint32_t tid) {
  const js_value *d = js_get(r->f, K_details);
  uint64_t seq;
  if (!r->has_comm || !d ||
      !js_fields_decode(&sc->sub, d->ptr, d->ptr + d->len, r->line, false) ||
      !js_to_u64(js_get(&sc->sub, K_seqNumber), &seq))
    return;
  char func[64] = "?";
  js_str_copy(js_get(r->f, K_func), func, sizeof func);
  uint32_t fid = intern_id(&p->funcs, func, strlen(func));
  uint64_t key = ((uint64_t)(fid & 0xFF) << 56) | (seq & ((1ull << 56) - 1));
  const tl_ctx *c = tl_ctx_of(&p->tl, file, r->ctx);
  int nranks = c && c->nranks > 0 ? (int)c->nranks : 0;
  if (p->colls.n >= MAX_WAITING_COLLS) {
    pair_map_clear(&p->colls); /* instances that never completed */
    p->nlinks = 0;
    p->nfree = 0;
  }
  bool inserted;
  uint64_t *idx = pair_map_put(&p->colls, r->comm_id, key, 0, &inserted);
  if (!idx)
    return;
  if (inserted) {
    if (p->nfree > 0) {
      *idx = p->free_links[--p->nfree] + 1;
    } else {
      if (p->nlinks == p->cap_links) {
        size_t ncap = p->cap_links ? p->cap_links * 2 : 256;
        coll_link *nl = realloc(p->links, ncap * sizeof *nl);
        size_t *nf = realloc(p->free_links, ncap * sizeof *nf);
        if (nf)
          p->free_links = nf;
        if (!nl || !nf) {
          if (nl)
            p->links = nl;
          pair_map_remove(&p->colls, r->comm_id, key);
          return;
        }
        p->links = nl;
        p->cap_links = ncap;
      }
      *idx = ++p->nlinks;
    }
    coll_link *l = &p->links[*idx - 1];
    l->pid = pid;
    l->tid = tid;
    l->start = r->start.ts;
    l->seen = 1;
    return;
  }
  coll_link *l = &p->links[*idx - 1];
  char name[96];
  snprintf(name, sizeof name, "%s #%" PRIu64, func, seq);
  flow(p, "collective", name, l->pid, l->tid, l->start, pid, tid, r->start.ts);
  p->coll_flows++;
  l->pid = pid;
  l->tid = tid;
  l->start = r->start.ts;
  if (++l->seen >= nranks && nranks > 0) {
    p->free_links[p->nfree++] = *idx - 1;
    pair_map_remove(&p->colls, r->comm_id, key);
  }
}

static void on_event(perfetto *p, const rec *r, rec_scratch *sc, size_t file) {
  uint32_t pid = (uint32_t)file + 1;
  if (r->et == ET_LIFECYCLE) {
    if (!r->start.present)
      return;
    char func[32] = "", comm[96] = "";
    js_str_copy(js_get(r->f, K_func), func, sizeof func);
    js_str_copy(js_get(r->f, K_commName), comm, sizeof comm);
    begin_event(p, "i", pid, 0);
    jw_key(&p->w, "s");
    jw_str(&p->w, "p");
    jw_key(&p->w, "name");
    char name[160];
    snprintf(name, sizeof name, "%s %s r%" PRId64, func, comm, r->rank);
    jw_str(&p->w, name);
    ts_field(p, "ts", r->start.ts);
    jw_obj_end(&p->w);
    return;
  }
  if (!r->start.present)
    return;
  int64_t start = r->start.ts;
  int64_t end = rec_end_time(r);
  if (end == INT64_MIN || end < start)
    end = start;
  int64_t tid_os = r->start.tid;
  long track = tl_place(&p->tl, file, r->has_ctx ? r->ctx : -1, tid_os, start,
                        end, 0, NULL, NULL);
  if (track < 0)
    return;
  uint32_t tid = p->tl.tracks[track].local_id;
  char name[128];
  tl_event_name(r, &sc->sub, true, name, sizeof name);
  begin_event(p, "X", pid, tid);
  jw_key(&p->w, "name");
  jw_str(&p->w, name);
  jw_key(&p->w, "cat");
  jw_str(&p->w, ev_type_short_name(r->et));
  ts_field(p, "ts", start);
  jw_key(&p->w, "dur");
  jw_ns_as_us(&p->w, end - start);
  jw_key(&p->w, "args");
  jw_obj_begin(&p->w);
  if (r->has_id) {
    jw_key(&p->w, "id");
    jw_hex(&p->w, r->id);
  }
  if (r->parent == PAR_LOCAL) {
    jw_key(&p->w, "parentId");
    jw_hex(&p->w, r->parent_id);
  } else if (r->parent == PAR_FOREIGN || r->parent == PAR_UNKNOWN) {
    jw_key(&p->w, r->parent == PAR_FOREIGN ? "parentForeign" : "parentUnknown");
    jw_hex(&p->w, r->parent_raw);
  } else if (r->parent == PAR_DROPPED) {
    jw_key(&p->w, "parentDropped");
    jw_bool(&p->w, true);
  }
  jw_key(&p->w, "rank");
  jw_i64(&p->w, r->rank);
  if (r->has_comm) {
    jw_key(&p->w, "commId");
    jw_hex(&p->w, r->comm_id);
  }
  jw_key(&p->w, "end");
  jw_str(&p->w, r->end == END_STOPPED     ? "stopped"
                : r->end == END_RECLAIMED ? "reclaimed"
                : r->end == END_INFLIGHT  ? "inflight"
                                          : "?");
  const js_value *d = js_get(r->f, K_details);
  if (d && d->type == JS_OBJECT) {
    jw_key(&p->w, "details");
    jw_raw(&p->w, d->ptr, d->len);
  }
  jw_obj_end(&p->w);
  jw_obj_end(&p->w);
  if (p->states && (r->et == ET_PROXY_STEP || r->et == ET_KERNEL_CH))
    write_states(p, r, sc, pid, tid, end);
  if (r->has_id && can_be_parent(r->et))
    cache_put(r->et == ET_PROXY_STEP ? &p->steps : &p->parents, file, r->id,
              pid, tid, start);
  if (p->flows) {
    parent_arrow(p, r, file, pid, tid);
    if (r->et == ET_COLL || r->et == ET_CE_COLL)
      collective_arrow(p, r, sc, file, pid, tid);
  }
  if (r->et == ET_PROXY_STEP) {
    uint64_t bytes = send_step_bytes(r, sc);
    if (bytes)
      add_send_bytes(p, file, start, bytes);
  }
}

static void on_timing(perfetto *p, const rec *r, rec_scratch *sc, size_t file) {
  int64_t ctx = -1;
  rec_timing times;
  rec_timing_decode(r, &sc->sub, &times);
  int64_t start = times.start, stop = times.stop;
  if (start == INT64_MIN || stop == INT64_MIN)
    return;
  js_to_i64(js_get(r->f, K_ctx), &ctx);
  long track = tl_place(&p->tl, file, ctx, TL_COMPLETION_TID, start,
                        stop < start ? start : stop, 0, NULL, NULL);
  if (track < 0)
    return;
  uint32_t pid = (uint32_t)file + 1, tid = p->tl.tracks[track].local_id;
  char func[64] = "?", source[16] = "?";
  js_str_copy(js_get(r->f, K_func), func, sizeof func);
  js_str_copy(js_get(r->f, K_source), source, sizeof source);
  char name[96];
  snprintf(name, sizeof name, "%s (%s)", func, source);
  begin_event(p, "X", pid, tid);
  jw_key(&p->w, "name");
  jw_str(&p->w, name);
  jw_key(&p->w, "cat");
  jw_str(&p->w, "timing");
  ts_field(p, "ts", start);
  jw_key(&p->w, "dur");
  jw_ns_as_us(&p->w, stop < start ? 0 : stop - start);
  jw_key(&p->w, "args");
  jw_raw(&p->w, r->line, r->len);
  jw_obj_end(&p->w);
  double bus;
  if (js_to_double(js_get(r->f, K_busBw), &bus)) {
    counter(p, pid, "busBw GB/s", "GB/s", start, bus);
    counter(p, pid, "busBw GB/s", "GB/s", stop, 0.0);
  }
}

/* A GPU activity (CUPTI kernel) on its GPU lane, with an arrow from the
 * KernelLaunch that started it. */
static void on_activity(perfetto *p, const rec *r, size_t file) {
  if (!r->start.present || !r->stop.present)
    return;
  int64_t start = r->start.ts;
  int64_t end = r->stop.ts < start ? start : r->stop.ts;
  long track = tl_place(&p->tl, file, r->has_ctx ? r->ctx : -1, tl_gpu_tid(r),
                        start, end, 0, NULL, NULL);
  if (track < 0)
    return;
  uint32_t pid = (uint32_t)file + 1, tid = p->tl.tracks[track].local_id;
  char name[256];
  tl_activity_name(r, name, sizeof name);
  begin_event(p, "X", pid, tid);
  jw_key(&p->w, "name");
  jw_str(&p->w, name);
  jw_key(&p->w, "cat");
  jw_str(&p->w, "gpu");
  ts_field(p, "ts", start);
  jw_key(&p->w, "dur");
  jw_ns_as_us(&p->w, end - start);
  jw_key(&p->w, "args");
  jw_raw(&p->w, r->line, r->len);
  jw_obj_end(&p->w);
  p->gpu_activities++;
  uint64_t launch;
  if (!p->flows || !js_to_hex_u64(js_get(r->f, K_launchId), &launch))
    return;
  const drawn_event *d = cache_get(&p->parents, file, launch);
  if (!d) {
    p->parents_missed++;
    return;
  }
  flow(p, "launch", "launch", d->pid, d->tid, d->start, pid, tid, start);
  p->parent_flows++;
}

static void on_mark(perfetto *p, const rec *r, size_t file) {
  if (!r->has_ts)
    return;
  char label[96] = "mark";
  js_str_copy(js_get(r->f, K_label), label, sizeof label);
  int64_t step;
  char name[128];
  if (js_to_i64(js_get(r->f, K_step), &step))
    snprintf(name, sizeof name, "%s %" PRId64, label, step);
  else
    snprintf(name, sizeof name, "%s", label);
  begin_event(p, "i", (uint32_t)file + 1, 0);
  jw_key(&p->w, "s");
  jw_str(&p->w, "p");
  jw_key(&p->w, "name");
  jw_str(&p->w, name);
  ts_field(p, "ts", r->ts);
  jw_obj_end(&p->w);
}

static void metadata(perfetto *p, const char *what, uint32_t pid, uint32_t tid,
                     const char *name, int64_t sort) {
  begin_event(p, "M", pid, tid);
  jw_key(&p->w, "name");
  jw_str(&p->w, what);
  jw_key(&p->w, "args");
  jw_obj_begin(&p->w);
  if (name) {
    jw_key(&p->w, "name");
    jw_str(&p->w, name);
  } else {
    jw_key(&p->w, "sort_index");
    jw_i64(&p->w, sort);
  }
  jw_obj_end(&p->w);
  jw_obj_end(&p->w);
}

static void write_metadata(perfetto *p, const ord_reader *rd) {
  for (size_t i = 0; i < rd->n; i++) {
    const ord_identity *id = &rd->files[i].id;
    char name[256];
    const char *base = strrchr(rd->files[i].path, '/');
    if (id->has_process)
      snprintf(name, sizeof name, "%s pid %" PRId64, id->host, id->pid);
    else
      snprintf(name, sizeof name, "%s", base ? base + 1 : rd->files[i].path);
    metadata(p, "process_name", (uint32_t)i + 1, 0, name, 0);
    metadata(p, "process_sort_index", (uint32_t)i + 1, 0, NULL, (int64_t)i);
  }
  for (size_t k = 0; k < p->tl.ntracks; k++) {
    const tl_track *t = &p->tl.tracks[k];
    char name[512];
    tl_track_name(&p->tl, t, name, sizeof name);
    metadata(p, "thread_name", (uint32_t)t->file + 1, t->local_id, name, 0);
    metadata(p, "thread_sort_index", (uint32_t)t->file + 1, t->local_id, NULL,
             t->local_id);
  }
}

/* Which file each (handleTag, pid) names, for PXN arrows. */
static void map_tags(perfetto *p, const ord_reader *rd) {
  for (size_t i = 0; i < rd->n; i++) {
    const ord_identity *id = &rd->files[i].id;
    if (!id->has_tag)
      continue;
    pair_map_put(&p->tag_to_file, id->handle_tag, (uint64_t)id->pid, i + 1,
                 NULL);
    pair_map_put(&p->tag_to_file, id->handle_tag, UINT64_MAX, i + 1, NULL);
  }
}

/* The trace of `in` into `out`: records sorted first, or through the
 * reorder window (`windowed`, ord_open_window_records: every identity is
 * known once the first record is out). 0, 1 (findings), -1 (out of
 * memory), or RUN_GAVE_UP: the window met a record too far out of order,
 * `out` holds a part to throw away. */
enum { RUN_GAVE_UP = 2 };
static int run(perfetto *p, const tr_inputs *in, size_t memory, FILE *out,
               bool windowed) {
  ord_reader rd;
  if (!(windowed
            ? ord_open_window_records(&rd, in, ORD_START, memory, "perfetto")
            : ord_open(&rd, in, ORD_START, memory, "perfetto")))
    return -1;
  p->rd = &rd;
  bool tags_mapped = !windowed;
  if (tags_mapped)
    map_tags(p, &rd);
  rec_scratch *sc = malloc(sizeof *sc);
  p->bins = malloc((rd.n ? rd.n : 1) * sizeof *p->bins);
  if (!sc || !p->bins) {
    free(sc);
    ord_close(&rd);
    return -1;
  }
  rec_scratch_init(sc);
  for (size_t i = 0; i < rd.n; i++) {
    p->bins[i].bin = INT64_MIN;
    p->bins[i].bytes = 0;
  }
  jw_init(&p->w, out);
  jw_obj_begin(&p->w);
  jw_key(&p->w, "traceEvents");
  jw_arr_begin(&p->w);
  ord_where where;
  const rec *r;
  while ((r = ord_next(&rd, &where)) != NULL) {
    if (!tags_mapped) {
      map_tags(p, &rd);
      tags_mapped = true;
    }
    if (!p->have_base && where.key != INT64_MIN) {
      p->base = where.key - where.key % 1000000000; /* whole second */
      p->have_base = true;
    }
    tl_note(&p->tl, where.file, r);
    switch (r->rt) {
    case RT_EVENT:
      on_event(p, r, sc, where.file);
      break;
    case RT_TIMING:
      on_timing(p, r, sc, where.file);
      break;
    case RT_GPU_ACTIVITY:
      on_activity(p, r, where.file);
      break;
    case RT_MARK:
      on_mark(p, r, where.file);
      break;
    default:
      break;
    }
  }
  if (rd.out_of_window) {
    free(sc);
    ord_close(&rd);
    return RUN_GAVE_UP;
  }
  for (size_t i = 0; i < rd.n; i++)
    flush_bin(p, i);
  write_metadata(p, &rd);
  jw_arr_end(&p->w);
  jw_key(&p->w, "displayTimeUnit");
  jw_str(&p->w, "ns");
  jw_key(&p->w, "otherData");
  jw_obj_begin(&p->w);
  jw_key(&p->w, "producer");
  jw_str(&p->w, "cclscope perfetto " CCLSCOPE_VERSION);
  jw_key(&p->w, "epochBaseUs");
  jw_ns_as_us(&p->w, p->base);
  jw_key(&p->w, "records");
  jw_u64(&p->w, rd.records);
  jw_key(&p->w, "unplaced");
  jw_u64(&p->w, p->tl.unplaced);
  jw_obj_end(&p->w);
  jw_obj_end(&p->w);
  jw_newline(&p->w);
  jw_flush(&p->w);
  if (!cli_globals.quiet) {
    fprintf(stderr,
            "cclscope perfetto: %" PRIu64 " records from %zu files -> %" PRIu64
            " trace events on %zu tracks (%" PRIu64 " parent arrows, %" PRIu64
            " collective arrows)\n",
            rd.records, rd.n, p->written, p->tl.ntracks, p->parent_flows,
            p->coll_flows);
    if (p->gpu_activities)
      fprintf(stderr,
              "cclscope perfetto: %" PRIu64 " GPU activities (CUPTI) on GPU "
              "lanes\n",
              p->gpu_activities);
    if (p->tl.unplaced)
      fprintf(stderr,
              "cclscope perfetto: %" PRIu64 " events left out: more than %d "
              "overlapping events on one thread\n",
              p->tl.unplaced, LANE_MAX_PER_GROUP);
  }
  int status = rd.unreadable_files || rd.failed ? 1 : 0;
  free(sc);
  ord_close(&rd);
  return status;
}

static const cli_option perfetto_options[] = {{"no-flows", false, 'n'},
                                              {"states", false, 's'},
                                              {"bin-us", true, 'b'},
                                              {NULL, false, 0}};

static const cli_command_line perfetto_command_line = {
    .cmd = "perfetto",
    .options = perfetto_options,
    .output_usage = "-o FILE",
    .memory_mb = true,
};

/* One run of the command's work with a state of its own: run()'s result. */
static int perfetto_into(FILE *out, const tr_inputs *in, size_t memory,
                         bool flows, bool states, int64_t bin_ns,
                         bool windowed) {
  perfetto *p = calloc(1, sizeof *p);
  if (!p)
    return -1;
  p->flows = flows;
  p->states = states;
  p->bin_ns = bin_ns;
  pair_map_init(&p->tag_to_file);
  pair_map_init(&p->colls);
  intern_init(&p->funcs);
  int rc = -1;
  if (tl_init(&p->tl, in->n) && cache_init(&p->parents, PARENT_CACHE_BITS) &&
      cache_init(&p->steps, STEP_CACHE_BITS))
    rc = run(p, in, memory, out, windowed);
  tl_free(&p->tl);
  cache_free(&p->parents);
  cache_free(&p->steps);
  pair_map_free(&p->tag_to_file);
  pair_map_free(&p->colls);
  intern_free(&p->funcs);
  free(p->links);
  free(p->free_links);
  free(p->bins);
  free(p);
  return rc;
}

int cmd_perfetto(int argc, char **argv) {
  bool flows = true, states = false;
  int64_t bin_ns = 1000000;
  cli_parser parser;
  cli_parse_begin(&parser, &perfetto_command_line, argc, argv);
  int o;
  while ((o = cli_parse_next(&parser)) > 0) {
    switch (o) {
    case 'n':
      flows = false;
      break;
    case 's':
      states = true;
      break;
    case 'b': {
      long long us;
      if (!cli_number(parser.value, 1, 1000000000, &us))
        return usage_error("perfetto", "--bin-us needs a positive number");
      bin_ns = us * 1000;
      break;
    }
    }
  }
  if (o == CLI_PARSE_EXIT)
    return parser.status;
  const char *output = parser.output;
  tr_inputs in;
  if (!tr_inputs_collect(&in, parser.ninputs, parser.inputs))
    return EXIT_FINDINGS;
  if (output_is_an_input("perfetto", output, &in)) {
    tr_inputs_free(&in);
    return EXIT_USAGE;
  }
  if (nothing_to_convert("perfetto", &in)) {
    tr_inputs_free(&in);
    return EXIT_FINDINGS;
  }
  bool to_stdout = strcmp(output, "-") == 0;
  FILE *out = to_stdout ? stdout : fopen(output, "w");
  if (!out) {
    fprintf(stderr, "cclscope perfetto: cannot create '%s': %s\n", output,
            strerror(errno));
    tr_inputs_free(&in);
    return EXIT_FINDINGS;
  }
  static char outbuf[1 << 20];
  setvbuf(out, outbuf, _IOFBF, sizeof outbuf);
  /* a file can be started again when the window gives up: the fast way
   * first, for inputs it suits (as merge) */
  bool windowed = !to_stdout && ord_window_suits(&in);
  int rc = perfetto_into(out, &in, parser.memory_bytes, flows, states, bin_ns,
                         windowed);
  if (rc == RUN_GAVE_UP) {
    if (!cli_globals.quiet)
      fprintf(stderr,
              "cclscope perfetto: the inputs are out of order by more than "
              "--memory-mb holds; sorting them on disk\n");
    if (fflush(out) != 0 || ftruncate(fileno(out), 0) != 0 ||
        fseek(out, 0, SEEK_SET) != 0) {
      fprintf(stderr, "cclscope perfetto: cannot start '%s' again: %s\n",
              output, strerror(errno));
      rc = 1;
    } else {
      rc = perfetto_into(out, &in, parser.memory_bytes, flows, states, bin_ns,
                         false);
    }
  }
  if (rc < 0)
    fprintf(stderr, "cclscope perfetto: out of memory\n");
  int status = rc == 0 ? EXIT_OK : EXIT_FINDINGS;
  if (fflush(out) != 0 || ferror(out)) {
    fprintf(stderr, "cclscope perfetto: writing '%s' failed: %s\n", output,
            strerror(errno));
    status = EXIT_FINDINGS;
  }
  if (!to_stdout)
    fclose(out);
  tr_inputs_free(&in);
  return status;
}
