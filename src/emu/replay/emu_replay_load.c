/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/emu/replay/emu_replay_load.c — owns reading trace files into a replay
 * plan (emu_replay_load.h): lines come from the CLI's read layer (trace_reader,
 * trace_record, jsonl_scan), so any format that layer reads can be
 * replayed. It resolves what the file says by id into indices (parents,
 * legacy Group parents, late states, PXN parents in other files), picks the
 * communicator whose context each event was started with, and sorts every
 * plugin call of every file into one list by recorded time.
 */
#include "replay/emu_replay_load.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read/trace_reader.h"
#include "read/trace_record.h"
#include "replay/emu_replay_descr.h"

/* The low bits of a cclscope handle are the event's id in its file, the
 * top 16 its process's handleTag (docs/trace-format.md, Parents). */
#define HANDLE_ID_MASK ((UINT64_C(1) << 46) - 1)
#define MAX_DEPTH 32

/* A state call before the calls are sorted. */
typedef struct state_call {
  uint32_t ev;
  uint32_t thread;
  uint32_t state;
  int64_t ts;
} state_call;

/* A late `state` record, resolved by event id once the file is read. */
typedef struct late_state {
  uint64_t event_id;
  uint32_t thread;
  emu_rp_state_entry entry;
} late_state;

typedef struct id_index {
  uint64_t id;
  uint32_t ev;
} id_index;

/* A recorded key (thread id, communicator context) to its index in the
 * process's table: open addressing, linear probing, at most half full.
 * Traces can name hundreds of thousands of threads; a scan of the table
 * per record made loading quadratic. */
typedef struct key_map {
  int64_t *keys;
  uint32_t *index; /* index + 1; 0 marks an empty bucket */
  size_t cap;      /* buckets, a power of two (0: nothing allocated) */
  size_t n;        /* keys held */
} key_map;

/* Per-process scratch of the loader, freed when the plan is complete. */
typedef struct proc_work {
  size_t cap_events, cap_states, cap_threads, cap_comms;
  state_call *state_calls;
  size_t nstate_calls, cap_state_calls;
  late_state *lates;
  size_t nlates, cap_lates;
  id_index *ids;       /* sorted by id */
  int8_t *resolving;   /* owner/depth recursion: 0 no, 1 busy, 2 done */
  key_map thread_keys; /* tid -> index in p->threads */
  key_map comm_keys;   /* ctx -> index in p->comms */
} proc_work;

/* Stops loading when --timeout passes (0: no deadline); checked every
 * DEADLINE_EVERY lines, so an endless input cannot hold the run. */
#define DEADLINE_EVERY 4096
static uint64_t load_deadline_ns;
static bool load_timed_out;

static void *grow(void *ptr, size_t *cap, size_t need, size_t elem) {
  if (need <= *cap)
    return ptr;
  size_t n = *cap ? *cap * 2 : 64;
  while (n < need)
    n *= 2;
  void *p = realloc(ptr, n * elem);
  if (p == NULL)
    emu_die("out of memory reading traces for --replay");
  memset((char *)p + *cap * elem, 0, (n - *cap) * elem);
  *cap = n;
  return p;
}

/* ---------- threads and communicators ---------- */

static size_t key_bucket(int64_t key, size_t cap) {
  uint64_t h = (uint64_t)key * UINT64_C(0x9e3779b97f4a7c15);
  return (size_t)(h >> 32) & (cap - 1);
}

/* The index of `key`, or -1. */
static int64_t key_find(const key_map *m, int64_t key) {
  if (m->cap == 0)
    return -1;
  for (size_t b = key_bucket(key, m->cap);; b = (b + 1) & (m->cap - 1)) {
    if (m->index[b] == 0)
      return -1;
    if (m->keys[b] == key)
      return (int64_t)m->index[b] - 1;
  }
}

static void key_put_no_grow(key_map *m, int64_t key, uint32_t index) {
  size_t b = key_bucket(key, m->cap);
  while (m->index[b] != 0)
    b = (b + 1) & (m->cap - 1);
  m->keys[b] = key;
  m->index[b] = index + 1;
  m->n++;
}

static void key_put(key_map *m, int64_t key, uint32_t index) {
  if ((m->n + 1) * 2 > m->cap) {
    key_map bigger = {NULL, NULL, m->cap ? m->cap * 2 : 64, 0};
    bigger.keys = malloc(bigger.cap * sizeof *bigger.keys);
    bigger.index = calloc(bigger.cap, sizeof *bigger.index);
    if (bigger.keys == NULL || bigger.index == NULL)
      emu_die("out of memory reading traces for --replay");
    for (size_t b = 0; b < m->cap; b++)
      if (m->index[b] != 0)
        key_put_no_grow(&bigger, m->keys[b], m->index[b] - 1);
    free(m->keys);
    free(m->index);
    *m = bigger;
  }
  key_put_no_grow(m, key, index);
}

static void key_map_free(key_map *m) {
  free(m->keys);
  free(m->index);
  memset(m, 0, sizeof *m);
}

static uint32_t thread_of(emu_rp_process *p, proc_work *w, int64_t tid) {
  int64_t known = key_find(&w->thread_keys, tid);
  if (known >= 0)
    return (uint32_t)known;
  p->threads = grow(p->threads, &w->cap_threads, (size_t)p->nthreads + 1,
                    sizeof *p->threads);
  p->threads[p->nthreads].tid = tid;
  key_put(&w->thread_keys, tid, (uint32_t)p->nthreads);
  return (uint32_t)p->nthreads++;
}

static emu_rp_comm *comm_of(emu_rp_process *p, proc_work *w, int64_t ctx) {
  int64_t known = key_find(&w->comm_keys, ctx);
  if (known >= 0)
    return &p->comms[known];
  p->comms =
      grow(p->comms, &w->cap_comms, (size_t)p->ncomms + 1, sizeof *p->comms);
  key_put(&w->comm_keys, ctx, (uint32_t)p->ncomms);
  emu_rp_comm *c = &p->comms[p->ncomms++];
  memset(c, 0, sizeof *c);
  c->ctx = ctx;
  c->rank = 0;
  c->nranks = 1;
  c->nnodes = 1;
  return c;
}

static int comm_index(const proc_work *w, int64_t ctx) {
  return (int)key_find(&w->comm_keys, ctx);
}

/* ---------- records ---------- */

static bool key_is(const js_value *k, const char *name) {
  size_t n = strlen(name);
  return k->len == n && memcmp(k->ptr, name, n) == 0;
}

static void read_process(emu_rp_process *p, const rec *r) {
  js_to_i64(js_get(r->f, K_pid), &p->pid);
  js_str_copy(js_get(r->f, K_hostname), p->hostname, sizeof p->hostname);
  uint64_t tag = 0;
  if (js_to_hex_u64(js_get(r->f, K_handleTag), &tag))
    p->handle_tag = (uint16_t)tag;
  p->rccl = js_str_eq(js_get(r->f, K_host), "rccl");
  js_iter it;
  js_value k, v;
  if (!js_object_begin(&it, r->line, r->line + r->len, r->line))
    return;
  while (js_object_next(&it, &k, &v)) {
    int64_t x;
    if (key_is(&k, "ncclVersionCode") && js_to_i64(&v, &x))
      p->nccl_version = (int)x;
    else if (key_is(&k, "eventMask") && js_to_i64(&v, &x)) {
      p->mask = (int)x;
      p->has_mask = true;
    }
  }
}

static void read_lifecycle(emu_rp_process *p, proc_work *w, const rec *r) {
  int64_t ctx = r->has_ctx ? r->ctx : 0;
  emu_rp_comm *c = comm_of(p, w, ctx);
  bool init = js_str_eq(js_get(r->f, K_func), "ProfilerInit");
  if (!init && !js_str_eq(js_get(r->f, K_func), "ProfilerFinalize"))
    return;
  if (!r->start.present)
    return;
  uint32_t thread = thread_of(p, w, r->start.tid);
  if (!init) {
    c->has_finalize = true;
    c->finalize_thread = (int)thread;
    c->finalize_ts = r->start.ts;
    return;
  }
  c->has_init = true;
  c->init_thread = (int)thread;
  c->init_ts = r->start.ts;
  c->comm_id = r->has_comm ? r->comm_id : 0;
  c->name = emu_rp_intern(js_get(r->f, K_commName));
  int64_t x;
  c->rank = js_to_i64(js_get(r->f, K_rank), &x) ? (int)x : -1;
  c->nranks = js_to_i64(js_get(r->f, K_nranks), &x) ? (int)x : -1;
  c->nnodes = js_to_i64(js_get(r->f, K_nNodes), &x) ? (int)x : -1;
  const js_value *details = js_get(r->f, K_details);
  js_iter it;
  js_value k, v;
  if (details == NULL || details->type != JS_OBJECT ||
      !js_object_begin(&it, details->ptr, details->ptr + details->len, r->line))
    return;
  while (js_object_next(&it, &k, &v)) {
    if (key_is(&k, "abi") && js_to_i64(&v, &x) && p->abi == 0)
      p->abi = (int)x;
    else if (key_is(&k, "eventMask") && js_to_i64(&v, &x) && !p->has_mask) {
      p->mask = (int)x;
      p->has_mask = true;
    }
  }
}

static void add_state_calls(emu_rp_process *p, proc_work *w, uint32_t ev,
                            uint32_t thread, const emu_rp_state_entry *s) {
  for (uint32_t i = 0; i < s->count; i++) {
    p->states =
        grow(p->states, &w->cap_states, p->nstates + 1, sizeof *p->states);
    p->states[p->nstates] = s->state;
    w->state_calls = grow(w->state_calls, &w->cap_state_calls,
                          w->nstate_calls + 1, sizeof *w->state_calls);
    /* Collapsed repeats: spread evenly from ts to lastTs. */
    int64_t ts = s->ts;
    if (s->count > 1)
      ts += (s->last_ts - s->ts) * (int64_t)i / (int64_t)(s->count - 1);
    w->state_calls[w->nstate_calls++] =
        (state_call){ev, thread, (uint32_t)p->nstates, ts};
    p->nstates++;
  }
}

static void read_event(emu_rp_process *p, proc_work *w, const rec *r) {
  if (r->et >= ET_UNKNOWN) {
    p->skips.unknown_types++;
    return;
  }
  if (!r->start.present) {
    p->skips.no_start++;
    return;
  }
  p->events =
      grow(p->events, &w->cap_events, p->nevents + 1, sizeof *p->events);
  emu_rp_event *e = &p->events[p->nevents];
  memset(e, 0, sizeof *e);
  if (!emu_rp_descr_from_record(e, r)) {
    p->skips.no_details++;
    return;
  }
  uint32_t ev = (uint32_t)p->nevents++;
  e->rec_id = r->has_id ? r->id : 0;
  e->ctx = r->has_ctx ? r->ctx : -1;
  e->parent_rec_kind = (int)r->parent;
  e->parent_id = r->parent_id;
  e->parent_raw = r->parent_raw;
  e->parent_is_hint =
      js_get(r->f, K_parentHint) != NULL && js_get(r->f, K_parentRaw) == NULL;
  e->origin_pid = -1;
  js_to_i64(js_get(r->f, K_originPid), &e->origin_pid);
  e->group_ev = -1;
  e->parent_ev = -1;
  e->owner_comm = -1;
  uint32_t thread = thread_of(p, w, r->start.tid);
  e->start_thread = thread;
  e->start_ts = r->start.ts;
  if (r->has_ctx) {
    emu_rp_comm *c = comm_of(p, w, r->ctx);
    if (!c->has_init && c->comm_id == 0 && r->has_comm)
      c->comm_id = r->comm_id;
  }
  const js_value *states = js_get(r->f, K_states);
  js_iter it;
  js_value v;
  if (states != NULL && states->type == JS_ARRAY &&
      js_array_begin(&it, states->ptr, states->ptr + states->len, r->line)) {
    while (js_array_next(&it, &v)) {
      emu_rp_state_entry s;
      if (emu_rp_state_from_json(&v, r->line, &s))
        add_state_calls(p, w, ev, thread, &s);
      else
        p->skips.bad_states++;
    }
  }
}

static void read_late_state(emu_rp_process *p, proc_work *w, const rec *r) {
  late_state l;
  memset(&l, 0, sizeof l);
  int64_t tid = -1;
  if (!js_to_hex_u64(js_get(r->f, K_eventId), &l.event_id) ||
      !js_to_i64(js_get(r->f, K_tid), &tid) ||
      !emu_rp_state_from_json(js_get(r->f, K_state), r->line, &l.entry)) {
    p->skips.bad_states++;
    return;
  }
  l.thread = thread_of(p, w, tid);
  w->lates = grow(w->lates, &w->cap_lates, w->nlates + 1, sizeof *w->lates);
  w->lates[w->nlates++] = l;
}

/* The stop of an event: kept beside the event until calls are built. */
typedef struct stop_call {
  uint32_t ev;
  uint32_t thread;
  int64_t ts;
} stop_call;

typedef struct file_stops {
  stop_call *v;
  size_t n, cap;
} file_stops;

/* Reads one file. Returns false (after saying why) when it is not a trace
 * at all; then nothing of it is replayed. */
static bool read_file(emu_rp_process *p, proc_work *w, file_stops *stops,
                      const char *path) {
  tr_file f;
  int err = tr_open(&f, path, 1 << 20);
  if (err == TR_ERR_NOT_TRACE || err == TR_ERR_EMPTY) {
    fprintf(stderr, "ncclemu: replay: '%s' is %s\n", path, tr_strerror(err));
    return false;
  }
  if (err != 0) {
    fprintf(stderr, "ncclemu: replay: cannot open '%s': %s\n", path,
            tr_strerror(err));
    return false;
  }
  rec_scratch *s = malloc(sizeof *s);
  if (s == NULL)
    emu_die("out of memory reading '%s'", path);
  rec_scratch_init(s);
  bool first = true, ok = true;
  int rc;
  while ((rc = tr_next(&f)) == 1) {
    if (load_deadline_ns != 0 && f.line_no % DEADLINE_EVERY == 0 &&
        emu_now_ns() >= load_deadline_ns) {
      fprintf(stderr,
              "ncclemu: FAIL: replay timeout while reading '%s' (line %llu): "
              "--timeout passed before the traces were loaded\n",
              path, (unsigned long long)f.line_no);
      load_timed_out = true;
      ok = false;
      break;
    }
    if (f.line_len == 0)
      continue;
    rec r;
    if (!rec_decode(&r, s, f.line, f.line_len)) {
      if (first) {
        fprintf(stderr,
                "ncclemu: replay: '%s' is not a cclscope trace: line %llu is "
                "not a JSON object (%s at byte %zu)\n",
                path, (unsigned long long)f.line_no,
                s->top.error ? s->top.error : "invalid", s->top.error_at);
        ok = false;
        break;
      }
      if (++p->skips.bad_lines <= 3)
        fprintf(stderr,
                "ncclemu: replay: %s:%llu: not a JSON object (%s), line "
                "skipped\n",
                path, (unsigned long long)f.line_no,
                s->top.error ? s->top.error : "invalid");
      continue;
    }
    if (r.rt == RT_PAD)
      continue;
    if (first) {
      if (r.rt != RT_PROCESS) {
        fprintf(stderr,
                "ncclemu: replay: '%s' is not a cclscope trace: its first "
                "record is not a \"process\" record (docs/trace-format.md)\n",
                path);
        ok = false;
        break;
      }
      read_process(p, &r);
      first = false;
      continue;
    }
    switch (r.rt) {
    case RT_THREAD: {
      int64_t tid = -1;
      if (js_to_i64(js_get(r.f, K_tid), &tid)) {
        uint32_t t = thread_of(p, w, tid);
        js_str_copy(js_get(r.f, K_name), p->threads[t].name,
                    sizeof p->threads[t].name);
      }
      break;
    }
    case RT_EVENT:
      if (r.et == ET_LIFECYCLE) {
        read_lifecycle(p, w, &r);
        break;
      }
      size_t before = p->nevents;
      read_event(p, w, &r);
      if (p->nevents > before && r.end == END_STOPPED && r.stop.present) {
        stops->v = grow(stops->v, &stops->cap, stops->n + 1, sizeof *stops->v);
        stops->v[stops->n++] = (stop_call){
            (uint32_t)before, thread_of(p, w, r.stop.tid), r.stop.ts};
      }
      break;
    case RT_STATE:
      read_late_state(p, w, &r);
      break;
    case RT_MARK:
      p->skips.marks++;
      break;
    case RT_GPU_ACTIVITY:
      p->skips.gpu_activity++;
      break;
    default:
      break; /* timing (derived), processEnd, unknown record types */
    }
  }
  if (ok && first) {
    fprintf(stderr, "ncclemu: replay: '%s' is empty: not a cclscope trace\n",
            path);
    ok = false;
  }
  if (ok && rc < 0)
    fprintf(stderr,
            "ncclemu: replay: '%s': read error after line %llu: %s (the "
            "lines before are replayed)\n",
            path, (unsigned long long)f.line_no, tr_strerror(f.error));
  free(s);
  tr_close(&f);
  return ok;
}

/* ---------- resolution ---------- */

static int cmp_id(const void *a, const void *b) {
  const id_index *x = a, *y = b;
  return x->id < y->id ? -1 : x->id > y->id ? 1 : 0;
}

static void index_ids(emu_rp_process *p, proc_work *w) {
  w->ids = calloc(p->nevents ? p->nevents : 1, sizeof *w->ids);
  if (w->ids == NULL)
    emu_die("out of memory indexing events");
  for (size_t i = 0; i < p->nevents; i++)
    w->ids[i] = (id_index){p->events[i].rec_id, (uint32_t)i};
  if (p->nevents > 1)
    qsort(w->ids, p->nevents, sizeof *w->ids, cmp_id);
}

static int find_id(const emu_rp_process *p, const proc_work *w, uint64_t id) {
  if (id == 0)
    return -1;
  size_t lo = 0, hi = p->nevents;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (w->ids[mid].id < id)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < p->nevents && w->ids[lo].id == id ? (int)w->ids[lo].ev : -1;
}

/* Local parents, unknown parents that name an event of the file (socket
 * NetPlugin hints, handles of this process) and legacy Group parents. */
static void resolve_local(emu_rp_process *p, int pi, proc_work *w) {
  for (size_t i = 0; i < p->nevents; i++) {
    emu_rp_event *e = &p->events[i];
    e->parent_proc = pi;
    int found = -1;
    switch ((parent_kind)e->parent_rec_kind) {
    case PAR_LOCAL:
      found = find_id(p, w, e->parent_id);
      if (found < 0)
        p->skips.lost_parents++;
      break;
    case PAR_UNKNOWN:
      if (e->parent_is_hint)
        found = find_id(p, w, e->parent_raw);
      else if ((uint16_t)(e->parent_raw >> 48) == p->handle_tag)
        found = find_id(p, w, e->parent_raw & HANDLE_ID_MASK);
      break;
    default:
      break; /* none, dropped, bad; foreign: after every file is read */
    }
    if (found >= 0) {
      e->parent_kind = EMU_RP_PARENT_LOCAL;
      e->parent_ev = found;
    }
    e->group_ev = find_id(p, w, e->group_id);
  }
}

static void resolve_foreign(emu_rp_plan *plan, proc_work *works) {
  for (int pi = 0; pi < plan->nprocs; pi++) {
    emu_rp_process *p = &plan->procs[pi];
    for (size_t i = 0; i < p->nevents; i++) {
      emu_rp_event *e = &p->events[i];
      if ((parent_kind)e->parent_rec_kind != PAR_FOREIGN)
        continue;
      uint16_t tag = (uint16_t)(e->parent_raw >> 48);
      int found = -1, qi;
      for (qi = 0; qi < plan->nprocs && found < 0; qi++) {
        const emu_rp_process *q = &plan->procs[qi];
        if (qi == pi || q->handle_tag != tag ||
            (e->origin_pid >= 0 && q->pid != e->origin_pid))
          continue;
        found = find_id(q, &works[qi], e->parent_raw & HANDLE_ID_MASK);
        if (found >= 0)
          break;
      }
      if (found < 0) {
        p->skips.lost_parents++;
        continue;
      }
      e->parent_kind = EMU_RP_PARENT_FOREIGN;
      e->parent_proc = qi;
      e->parent_ev = found;
    }
  }
}

/* The communicator whose context NCCL passed with the event: its own ctx,
 * else its parent's (PXN events carry the originating process's context),
 * else the communicator of this process initialised last before it. */
static void resolve_owner(emu_rp_plan *plan, proc_work *works, int pi, size_t i,
                          int depth) {
  emu_rp_process *p = &plan->procs[pi];
  emu_rp_event *e = &p->events[i];
  proc_work *w = &works[pi];
  if (w->resolving[i] == 2)
    return;
  w->resolving[i] = 2; /* also stops a cycle */
  e->owner_proc = pi;
  e->depth = 0;
  if (e->parent_kind != EMU_RP_PARENT_NONE && depth < MAX_DEPTH) {
    resolve_owner(plan, works, e->parent_proc, (size_t)e->parent_ev, depth + 1);
    const emu_rp_event *parent =
        &plan->procs[e->parent_proc].events[e->parent_ev];
    e->depth = parent->depth + 1;
    if (e->ctx < 0 || e->parent_kind == EMU_RP_PARENT_FOREIGN) {
      e->owner_proc = parent->owner_proc;
      e->owner_comm = parent->owner_comm;
    }
  }
  if (e->owner_comm < 0 && e->ctx >= 0 &&
      e->parent_kind != EMU_RP_PARENT_FOREIGN)
    e->owner_comm = comm_index(w, e->ctx);
  if (e->owner_comm >= 0 || p->ncomms == 0)
    return;
  /* Guess: the communicator initialised last before this event. */
  int best = -1;
  for (int c = 0; c < p->ncomms; c++)
    if (p->comms[c].has_init && p->comms[c].init_ts <= e->start_ts &&
        (best < 0 || p->comms[c].init_ts > p->comms[best].init_ts))
      best = c;
  e->owner_proc = pi;
  e->owner_comm = best >= 0 ? best : 0;
  p->skips.no_comm++;
}

/* ---------- calls ---------- */

static int cmp_call(const void *a, const void *b) {
  const emu_rp_call *x = a, *y = b;
  if (x->ts != y->ts)
    return x->ts < y->ts ? -1 : 1;
  if (x->kind != y->kind)
    return x->kind < y->kind ? -1 : 1;
  if (x->depth != y->depth)
    return x->depth < y->depth ? -1 : 1;
  if (x->proc != y->proc)
    return x->proc < y->proc ? -1 : 1;
  return x->order < y->order ? -1 : x->order > y->order ? 1 : 0;
}

typedef struct call_list {
  emu_rp_call *v;
  size_t n, cap;
} call_list;

static void add_call(call_list *l, int64_t ts, int proc, emu_rp_call_kind kind,
                     int depth, uint32_t thread, uint32_t obj, uint32_t state) {
  l->v = grow(l->v, &l->cap, l->n + 1, sizeof *l->v);
  l->v[l->n] = (emu_rp_call){ts,
                             (uint32_t)l->n,
                             (uint16_t)proc,
                             (uint8_t)kind,
                             (uint8_t)(depth > 255 ? 255 : depth),
                             thread,
                             obj,
                             state};
  l->n++;
}

/* A communicator used by events but never initialised in the file (a
 * trace cut at the front, or made by another tool) is initialised just
 * before its first event, on that event's thread. */
static void make_up_inits(emu_rp_process *p, int pi) {
  for (size_t i = 0; i < p->nevents; i++) {
    const emu_rp_event *e = &p->events[i];
    if (e->owner_proc != pi || e->owner_comm < 0)
      continue;
    emu_rp_comm *c = &p->comms[e->owner_comm];
    if (c->has_init || (c->made_up && c->init_ts <= e->start_ts - 1))
      continue;
    c->made_up = true;
    c->init_ts = e->start_ts - 1;
    c->init_thread = (int)e->start_thread;
  }
}

static void build_calls(emu_rp_plan *plan, proc_work *works, file_stops *stops,
                        call_list *l) {
  for (int pi = 0; pi < plan->nprocs; pi++) {
    emu_rp_process *p = &plan->procs[pi];
    proc_work *w = &works[pi];
    make_up_inits(p, pi);
    for (int ci = 0; ci < p->ncomms; ci++) {
      const emu_rp_comm *c = &p->comms[ci];
      if (c->has_init || c->made_up)
        add_call(l, c->init_ts, pi, EMU_RP_CALL_INIT, 0,
                 (uint32_t)c->init_thread, (uint32_t)ci, 0);
      if (c->has_finalize && (c->has_init || c->made_up))
        add_call(l, c->finalize_ts, pi, EMU_RP_CALL_FINALIZE, 0,
                 (uint32_t)c->finalize_thread, (uint32_t)ci, 0);
    }
    for (size_t i = 0; i < p->nevents; i++) {
      const emu_rp_event *e = &p->events[i];
      add_call(l, e->start_ts, pi, EMU_RP_CALL_START, e->depth, e->start_thread,
               (uint32_t)i, 0);
    }
    for (size_t i = 0; i < w->nstate_calls; i++) {
      const state_call *s = &w->state_calls[i];
      add_call(l, s->ts, pi, EMU_RP_CALL_STATE, p->events[s->ev].depth,
               s->thread, s->ev, s->state);
    }
    for (size_t i = 0; i < stops[pi].n; i++) {
      const stop_call *s = &stops[pi].v[i];
      add_call(l, s->ts, pi, EMU_RP_CALL_STOP, p->events[s->ev].depth,
               s->thread, s->ev, 0);
    }
  }
  if (l->n > 1) /* l->v is NULL when there are no calls */
    qsort(l->v, l->n, sizeof *l->v, cmp_call);
}

/* Every process's threads, handle slots and contexts get one index range
 * in the run's shared tables. */
static void number_tables(emu_rp_plan *plan) {
  for (int pi = 0; pi < plan->nprocs; pi++) {
    emu_rp_process *p = &plan->procs[pi];
    p->thread_base = plan->nthreads;
    plan->nthreads += (uint32_t)p->nthreads;
    for (size_t i = 0; i < p->nevents; i++)
      p->events[i].slot = (uint32_t)plan->nslots++;
    for (int c = 0; c < p->ncomms; c++)
      p->comms[c].slot = (uint32_t)plan->ncontexts++;
  }
}

/* ---------- the plan ---------- */

static void free_work(proc_work *w, file_stops *stops) {
  free(w->state_calls);
  free(w->lates);
  free(w->ids);
  free(w->resolving);
  key_map_free(&w->thread_keys);
  key_map_free(&w->comm_keys);
  free(stops->v);
}

bool emu_rp_plan_load(emu_rp_plan *plan, int nfiles, char **files,
                      uint64_t deadline_ns) {
  memset(plan, 0, sizeof *plan);
  load_deadline_ns = deadline_ns;
  load_timed_out = false;
  tr_inputs in;
  memset(&in, 0, sizeof in);
  tr_inputs_named_must_be_traces = false; /* a bad file is skipped, below */
  if (!tr_inputs_collect(&in, nfiles, files))
    return false;
  plan->procs = calloc(in.n, sizeof *plan->procs);
  proc_work *works = calloc(in.n, sizeof *works);
  file_stops *stops = calloc(in.n, sizeof *stops);
  if (plan->procs == NULL || works == NULL || stops == NULL)
    emu_die("out of memory for --replay");
  for (size_t i = 0; i < in.n; i++) {
    if (plan->nprocs >= EMU_MAX_WORKERS) {
      fprintf(stderr,
              "ncclemu: replay: more than %d trace files: '%s' and the "
              "rest are left out\n",
              EMU_MAX_WORKERS, in.paths[i]);
      break;
    }
    int pi = plan->nprocs;
    emu_rp_process *p = &plan->procs[pi];
    memset(p, 0, sizeof *p);
    p->path = emu_rp_intern_text(in.paths[i]);
    memset(&works[pi], 0, sizeof works[pi]);
    memset(&stops[pi], 0, sizeof stops[pi]);
    if (!read_file(p, &works[pi], &stops[pi], in.paths[i])) {
      free(p->events);
      free(p->states);
      free(p->threads);
      free(p->comms);
      free(works[pi].state_calls);
      free(works[pi].lates);
      key_map_free(&works[pi].thread_keys);
      key_map_free(&works[pi].comm_keys);
      free(stops[pi].v);
      memset(p, 0, sizeof *p);
      memset(&works[pi], 0, sizeof works[pi]);
      memset(&stops[pi], 0, sizeof stops[pi]);
      if (load_timed_out)
        break;
      continue;
    }
    plan->nprocs++;
  }
  tr_inputs_free(&in);
  if (load_timed_out) {
    for (int pi = 0; pi < plan->nprocs; pi++)
      free_work(&works[pi], &stops[pi]);
    free(works);
    free(stops);
    emu_rp_plan_free(plan);
    return false;
  }
  if (plan->nprocs == 0) {
    fprintf(stderr, "ncclemu: replay: no trace file to replay\n");
    free(works);
    free(stops);
    emu_rp_plan_free(plan);
    return false;
  }
  for (int pi = 0; pi < plan->nprocs; pi++) {
    emu_rp_process *p = &plan->procs[pi];
    proc_work *w = &works[pi];
    index_ids(p, w);
    resolve_local(p, pi, w);
    for (size_t k = 0; k < w->nlates; k++) {
      int ev = find_id(p, w, w->lates[k].event_id);
      if (ev < 0)
        p->skips.late_orphans++;
      else
        add_state_calls(p, w, (uint32_t)ev, w->lates[k].thread,
                        &w->lates[k].entry);
    }
  }
  resolve_foreign(plan, works);
  for (int pi = 0; pi < plan->nprocs; pi++)
    if (plan->procs[pi].nevents > 0 && plan->procs[pi].ncomms == 0)
      comm_of(&plan->procs[pi], &works[pi], 0); /* no communicator at all */
  for (int pi = 0; pi < plan->nprocs; pi++) {
    works[pi].resolving = calloc(plan->procs[pi].nevents + 1, 1);
    if (works[pi].resolving == NULL)
      emu_die("out of memory resolving parents");
  }
  for (int pi = 0; pi < plan->nprocs; pi++)
    for (size_t i = 0; i < plan->procs[pi].nevents; i++)
      resolve_owner(plan, works, pi, i, 0);

  call_list l;
  memset(&l, 0, sizeof l);
  build_calls(plan, works, stops, &l);
  number_tables(plan);
  plan->calls = l.v;
  plan->ncalls = l.n;
  for (int pi = 0; pi < plan->nprocs; pi++)
    free_work(&works[pi], &stops[pi]);
  free(works);
  free(stops);
  return true;
}

void emu_rp_plan_free(emu_rp_plan *plan) {
  for (int pi = 0; pi < plan->nprocs; pi++) {
    emu_rp_process *p = &plan->procs[pi];
    free(p->threads);
    free(p->events);
    free(p->states);
    free(p->comms);
  }
  free(plan->procs);
  free(plan->calls);
  memset(plan, 0, sizeof *plan);
}

/* ---------- report ---------- */

static void add_skip(char *buf, size_t cap, size_t n, const char *what) {
  if (n == 0)
    return;
  size_t len = strlen(buf);
  snprintf(buf + len, cap - len, "%s%zu %s", len ? "; " : "", n, what);
}

void emu_rp_plan_report(const emu_rp_plan *plan) {
  for (int pi = 0; pi < plan->nprocs; pi++) {
    const emu_rp_process *p = &plan->procs[pi];
    int made_up = 0;
    for (int c = 0; c < p->ncomms; c++)
      made_up += p->comms[c].made_up;
    /* A trace that does not say (a minimal_profiler one) is replayed as
     * ncclemu's defaults or the command line say: print "not recorded". */
    char version[48] = "version not recorded", abi[24] = "ABI not recorded";
    if (p->nccl_version > 0)
      snprintf(version, sizeof version, "%d.%d.%d", p->nccl_version / 10000,
               (p->nccl_version / 100) % 100, p->nccl_version % 100);
    if (p->abi > 0)
      snprintf(abi, sizeof abi, "ABI %d", p->abi);
    fprintf(stderr,
            "ncclemu: replay: %s: pid %lld on %s, %s %s, %s: %d "
            "thread(s), %d communicator(s), %zu event(s), %zu state call(s)\n",
            p->path, (long long)p->pid, p->hostname[0] ? p->hostname : "?",
            p->rccl ? "RCCL" : "NCCL", version, abi, p->nthreads, p->ncomms,
            p->nevents, p->nstates);
    char buf[1024] = "";
    const emu_rp_skips *k = &p->skips;
    add_skip(buf, sizeof buf, k->unknown_types,
             "event(s) of an unknown type skipped");
    add_skip(buf, sizeof buf, k->no_details,
             "event(s) without details skipped (nothing to rebuild the "
             "descriptor from)");
    add_skip(buf, sizeof buf, k->no_start, "event(s) without a start skipped");
    add_skip(buf, sizeof buf, k->bad_states,
             "state(s) without id or ts skipped");
    add_skip(buf, sizeof buf, k->lost_parents,
             "parent(s) not in the replayed files (started with a NULL "
             "parent)");
    add_skip(buf, sizeof buf, k->late_orphans,
             "late state(s) of events not in the file skipped");
    add_skip(buf, sizeof buf, k->marks,
             "control-API mark(s) not replayed (not profiler calls)");
    add_skip(buf, sizeof buf, k->gpu_activity,
             "GPU activity record(s) (CUPTI) skipped (not profiler calls)");
    add_skip(buf, sizeof buf, k->bad_lines,
             "line(s) that are not JSON skipped");
    add_skip(buf, sizeof buf, k->no_comm,
             "event(s) with no known communicator (given the last one "
             "initialised)");
    add_skip(buf, sizeof buf, (size_t)made_up,
             "communicator(s) without ProfilerInit (initialised before their "
             "first event)");
    if (buf[0])
      fprintf(stderr, "ncclemu: replay: %s: %s\n", p->path, buf);
  }
}
