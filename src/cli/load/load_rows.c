/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/load/load_rows.c — trace records as table rows (load_rows.h).
 * The column order of each row is schema.sql's, as load_table_columns
 * lists it.
 */
#include "load/load_rows.h"

#include <stdlib.h>
#include <string.h>

static const struct {
  const char *name;
  const char *columns;
} tables[LT_COUNT] = {
    [LT_TIMING] = {"timing",
                   "recordType, runId, globalRank, hostname, pid, device, "
                   "eventId, type, ctx, commId, commName, rank, nranks, "
                   "func, seqNumber, peer, algo, proto, count, datatype, "
                   "bytes, apiNs, enqueueStartNs, enqueueStopNs, source, "
                   "startNs, stopNs, durationNs, algBw, busBw, incomplete, "
                   "file, line"},
    [LT_COMMS] = {"comms", "runId, globalRank, hostname, pid, device, "
                           "gpuUuid, ctx, commId, commName, rank, nranks, "
                           "nNodes, file, line"},
    [LT_PROCESSES] = {"processes",
                      "runId, runIdSource, globalRank, globalRankSource, "
                      "localRank, worldSize, hostname, pid, ppid, host, "
                      "ncclVersion, pluginVersion, formatVersion, clock, "
                      "mode, eventMask, compression, startNs, endNs, "
                      "endReason, eventsWritten, linesLost, bytesLost, "
                      "writeErrors, droppedStarts, droppedStates, "
                      "droppedStops, timingRecords, file, line"},
    [LT_EVENTS] = {"events",
                   "runId, globalRank, hostname, pid, eventId, type, "
                   "parentId, parentStatus, ctx, commId, rank, func, tid, "
                   "startNs, stopNs, durationNs, endState, reclaimReason, "
                   "endNs, details, states, file, line"},
    [LT_PROXY_STEPS] = {"proxy_steps",
                        "runId, globalRank, hostname, pid, eventId, "
                        "parentId, ctx, commId, rank, step, peer, "
                        "channelId, isSend, startNs, stopNs, endState, "
                        "transSize, states, file, line"},
};

const char *load_table_name(load_table t) {
  return tables[t].name;
}
const char *load_table_columns(load_table t) {
  return tables[t].columns;
}

/* ---- the members of one object, looked up by name ---- */

/* Keys a record may have that the reader's key table does not know
 * (format 2's, the process record's): looked up by their text. */
enum { MAX_MEMBERS = 64 };

typedef struct {
  js_value key[MAX_MEMBERS];
  js_value val[MAX_MEMBERS];
  int n;
} members;

static void members_read(members *m, const char *p, size_t len) {
  js_iter it;
  m->n = 0;
  if (!js_object_begin(&it, p, p + len, p))
    return;
  while (m->n < MAX_MEMBERS &&
         js_object_next(&it, &m->key[m->n], &m->val[m->n]))
    m->n++;
}

static const js_value *member(const members *m, const char *name) {
  size_t len = strlen(name);
  for (int i = 0; i < m->n; i++)
    if (m->key[i].len == len && !m->key[i].escaped &&
        memcmp(m->key[i].ptr, name, len) == 0)
      return m->val[i].type == JS_NULL ? NULL : &m->val[i];
  return NULL;
}

/* ---- identity ---- */

void load_file_begin(load_file *lf, const char *file) {
  memset(lf, 0, sizeof *lf);
  lf->file = file;
}

void load_file_end(load_file *lf) {
  for (size_t i = 0; i < lf->nctxs; i++)
    free(lf->ctxs[i].comm_name);
  free(lf->ctxs);
  free(lf->process_line);
  free(lf->end_line);
  memset(lf, 0, sizeof *lf);
}

static char *copy_line(const rec *r, size_t *len) {
  char *c = malloc(r->len + 1);
  if (c) {
    memcpy(c, r->line, r->len);
    c[r->len] = '\0';
    *len = r->len;
  }
  return c;
}

static bool note_ctx(load_file *lf, const rec *r) {
  if (!r->has_ctx || r->ctx < 0 || r->ctx > (1 << 20))
    return true;
  size_t ctx = (size_t)r->ctx;
  if (ctx >= lf->nctxs) {
    size_t n = ctx + 16;
    load_ctx *c = realloc(lf->ctxs, n * sizeof *c);
    if (!c)
      return false;
    memset(c + lf->nctxs, 0, (n - lf->nctxs) * sizeof *c);
    lf->ctxs = c;
    lf->nctxs = n;
  }
  load_ctx *c = &lf->ctxs[ctx];
  if (c->known)
    return true;
  c->known = true;
  c->has_device = js_to_i64(js_get(r->f, K_device), &c->device);
  const js_value *name = js_get(r->f, K_commName);
  size_t cap = name && name->type == JS_STRING ? name->len + 1 : 1;
  c->comm_name = calloc(1, cap);
  if (!c->comm_name)
    return false;
  if (cap > 1)
    js_str_copy(name, c->comm_name, cap);
  return true;
}

bool load_file_note(load_file *lf, const rec *r) {
  switch (r->rt) {
  case RT_PROCESS:
    if (lf->process_line)
      return true; /* the first one is the file's */
    lf->process_line = copy_line(r, &lf->process_len);
    if (!lf->process_line)
      return false;
    js_str_copy(js_get(r->f, K_runId), lf->run_id, sizeof lf->run_id);
    js_str_copy(js_get(r->f, K_hostname), lf->hostname, sizeof lf->hostname);
    js_to_u64(js_get(r->f, K_pid), &lf->pid);
    lf->has_global_rank =
        js_to_i64(js_get(r->f, K_globalRank), &lf->global_rank) &&
        lf->global_rank >= 0;
    return true;
  case RT_EVENT:
    if (r->et == ET_LIFECYCLE &&
        js_str_eq(js_get(r->f, K_func), "ProfilerInit"))
      return note_ctx(lf, r);
    return true;
  case RT_TIMING:
    lf->timing_records++;
    return true;
  case RT_PROCESS_END:
    free(lf->end_line);
    lf->end_line = copy_line(r, &lf->end_len);
    return lf->end_line != NULL;
  case RT_ACCOUNTING:
    lf->has_accounting = true;
    rec_accounting_decode(r, &lf->accounting);
    return true;
  default:
    return true;
  }
}

load_table load_table_of(const rec *r, load_table *also) {
  *also = LT_COUNT;
  switch (r->rt) {
  case RT_TIMING:
    return LT_TIMING;
  case RT_EVENT:
    if (r->et == ET_PROXY_STEP)
      return LT_PROXY_STEPS;
    if (r->et == ET_LIFECYCLE &&
        js_str_eq(js_get(r->f, K_func), "ProfilerInit"))
      *also = LT_COMMS;
    return LT_EVENTS;
  default:
    return LT_COUNT;
  }
}

static const load_ctx *ctx_of(const load_file *lf, int64_t ctx) {
  if (ctx < 0 || (uint64_t)ctx >= lf->nctxs || !lf->ctxs[ctx].known)
    return NULL;
  return &lf->ctxs[ctx];
}

/* runId, globalRank, hostname, pid: the record's own when it has them
 * (format 2's timing records), else the process record's. */
static void identity(row_buf *b, const load_file *lf, const members *m) {
  const js_value *v;
  if (m && (v = member(m, "runId")) != NULL)
    row_json_str(b, v, false);
  else
    row_cstr(b, lf->run_id);
  int64_t i;
  if (m && js_to_i64(member(m, "globalRank"), &i))
    row_i64(b, i);
  else if (lf->has_global_rank)
    row_i64(b, lf->global_rank);
  else
    row_null(b);
  if (m && (v = member(m, "hostname")) != NULL)
    row_json_str(b, v, false);
  else
    row_cstr(b, lf->hostname);
  uint64_t u;
  if (m && js_to_u64(member(m, "pid"), &u))
    row_u64(b, u);
  else
    row_u64(b, lf->pid);
}

static void where(row_buf *b, const load_file *lf, uint64_t line) {
  row_cstr(b, lf->file);
  row_u64(b, line);
}

static void int_or_null(row_buf *b, const js_value *v) {
  int64_t i;
  if (js_to_i64(v, &i))
    row_i64(b, i);
  else
    row_null(b);
}

static void int_or(row_buf *b, const js_value *v, int64_t otherwise) {
  int64_t i;
  row_i64(b, js_to_i64(v, &i) ? i : otherwise);
}

static void uint_or(row_buf *b, const js_value *v, uint64_t otherwise) {
  uint64_t u;
  row_u64(b, js_to_u64(v, &u) ? u : otherwise);
}

/* A timestamp: format 2's integer ns under `ns_key`, else format 1's µs
 * under `us_key` (NULL: none) in `m`. */
static bool timestamp(const members *m, const char *ns_key, const char *us_key,
                      int64_t *out) {
  if (js_to_i64(member(m, ns_key), out))
    return true;
  return us_key && js_to_ns(member(m, us_key), out);
}

/* Format 1's enqueue span: {"start":µs,"stop":µs}. */
static bool enqueue_v1(const members *m, const char *key, int64_t *out) {
  const js_value *e = member(m, "enqueue");
  if (!e || e->type != JS_OBJECT)
    return false;
  members sub;
  members_read(&sub, e->ptr, e->len);
  return js_to_ns(member(&sub, key), out);
}

void row_timing(row_buf *b, const load_file *lf, const rec *r, uint64_t line) {
  members m;
  members_read(&m, r->line, r->len);
  int64_t ctx_no = -1;
  js_to_i64(member(&m, "ctx"), &ctx_no);
  const load_ctx *ctx = ctx_of(lf, ctx_no);
  row_cstr(b, "timing");
  identity(b, lf, &m);
  int64_t i;
  if (js_to_i64(member(&m, "device"), &i))
    row_i64(b, i);
  else if (ctx && ctx->has_device)
    row_i64(b, ctx->device);
  else
    row_null(b);
  row_json_str(b, member(&m, "eventId"), false);
  row_json_str(b, member(&m, "type"), false);
  row_u64(b, ctx_no >= 0 ? (uint64_t)ctx_no : 0);
  row_json_str(b, member(&m, "commId"), false);
  const js_value *name = member(&m, "commName");
  if (name)
    row_json_str(b, name, false);
  else
    row_cstr(b, ctx ? ctx->comm_name : "");
  int_or(b, member(&m, "rank"), -1);
  int_or(b, member(&m, "nranks"), 0);
  row_json_str(b, member(&m, "func"), false);
  int_or_null(b, member(&m, "seqNumber"));
  int_or_null(b, member(&m, "peer"));
  row_json_str(b, member(&m, "algo"), true);
  row_json_str(b, member(&m, "proto"), true);
  uint_or(b, member(&m, "count"), 0);
  row_json_str(b, member(&m, "datatype"), false);
  uint_or(b, member(&m, "bytes"), 0);
  int64_t t;
  if (timestamp(&m, "apiNs", "apiTs", &t))
    row_i64(b, t);
  else
    row_null(b);
  if (!timestamp(&m, "enqueueStartNs", NULL, &t) &&
      !enqueue_v1(&m, "start", &t))
    t = 0;
  row_i64(b, t);
  if (!timestamp(&m, "enqueueStopNs", NULL, &t) && !enqueue_v1(&m, "stop", &t))
    t = 0;
  row_i64(b, t);
  row_json_str(b, member(&m, "source"), false);
  int64_t start, stop, duration;
  bool has_start = timestamp(&m, "startNs", "start", &start);
  bool has_stop = timestamp(&m, "stopNs", "stop", &stop);
  row_i64(b, has_start ? start : 0);
  row_i64(b, has_stop ? stop : 0);
  if (has_start && has_stop)
    duration = stop - start;
  else if (!timestamp(&m, "durationNs", "duration", &duration))
    duration = 0;
  row_i64(b, duration);
  row_json_number(b, member(&m, "algBw"));
  row_json_number(b, member(&m, "busBw"));
  bool incomplete = false;
  js_to_bool(member(&m, "incomplete"), &incomplete);
  row_u64(b, incomplete ? 1 : 0);
  where(b, lf, line);
  row_end(b);
}

void row_comm(row_buf *b, const load_file *lf, const rec *r, uint64_t line) {
  const js_fields *f = r->f;
  identity(b, lf, NULL);
  int_or_null(b, js_get(f, K_device));
  row_json_str(b, js_get(f, K_gpuUuid), false);
  row_u64(b, r->has_ctx && r->ctx >= 0 ? (uint64_t)r->ctx : 0);
  row_json_str(b, js_get(f, K_commId), false);
  row_json_str(b, js_get(f, K_commName), false);
  row_i64(b, r->rank);
  int_or(b, js_get(f, K_nranks), -1);
  int_or(b, js_get(f, K_nNodes), -1);
  where(b, lf, line);
  row_end(b);
}

static void point_ns(row_buf *b, const rec_point *p) {
  if (p->present)
    row_i64(b, p->ts);
  else
    row_null(b);
}

void row_event(row_buf *b, const load_file *lf, const rec *r, uint64_t line) {
  const js_fields *f = r->f;
  identity(b, lf, NULL);
  row_json_str(b, js_get(f, K_id), false);
  row_json_str(b, js_get(f, K_type), false);
  row_json_str(b, js_get(f, K_parentId), true);
  row_json_str(b, js_get(f, K_parentStatus), false);
  if (r->has_ctx && r->ctx >= 0)
    row_i64(b, r->ctx);
  else
    row_null(b);
  row_json_str(b, js_get(f, K_commId), true);
  row_i64(b, r->rank);
  row_json_str(b, js_get(f, K_func), false);
  if (r->start.present)
    row_i64(b, r->start.tid);
  else
    row_null(b);
  point_ns(b, &r->start);
  point_ns(b, &r->stop);
  if (r->start.present && r->stop.present)
    row_i64(b, r->stop.ts - r->start.ts);
  else
    row_null(b);
  row_json_str(b, js_get(f, K_end), false);
  row_json_str(b, js_get(f, K_reclaimReason), false);
  if (r->has_end_ts)
    row_i64(b, r->end_ts);
  else
    row_null(b);
  row_json_text(b, js_get(f, K_details));
  row_json_text(b, js_get(f, K_states));
  where(b, lf, line);
  row_end(b);
}

/* The largest transSize of a step's states (SendWait, RecvFlushWait). */
static bool largest_trans_size(const rec *r, rec_scratch *sc, uint64_t *out) {
  const js_value *states = js_get(r->f, K_states);
  js_iter it;
  js_value v;
  bool found = false;
  *out = 0;
  if (!states ||
      !js_array_begin(&it, states->ptr, states->ptr + states->len, r->line))
    return false;
  while (js_array_next(&it, &v)) {
    uint64_t size;
    if (v.type == JS_OBJECT &&
        js_fields_decode(&sc->state, v.ptr, v.ptr + v.len, r->line, false) &&
        js_to_u64(js_get(&sc->state, K_transSize), &size)) {
      found = true;
      if (size > *out)
        *out = size;
    }
  }
  return found;
}

void row_proxy_step(row_buf *b, const load_file *lf, const rec *r,
                    rec_scratch *sc, uint64_t line) {
  const js_fields *f = r->f;
  identity(b, lf, NULL);
  row_json_str(b, js_get(f, K_id), false);
  row_json_str(b, js_get(f, K_parentId), true);
  if (r->has_ctx && r->ctx >= 0)
    row_i64(b, r->ctx);
  else
    row_null(b);
  row_json_str(b, js_get(f, K_commId), true);
  row_i64(b, r->rank);
  const js_value *d = js_get(f, K_details);
  const js_fields *df = NULL;
  if (d && d->type == JS_OBJECT &&
      js_fields_decode(&sc->sub, d->ptr, d->ptr + d->len, r->line, false))
    df = &sc->sub;
  int_or_null(b, df ? js_get(df, K_step) : NULL);
  int_or_null(b, df ? js_get(df, K_peer) : NULL);
  int_or_null(b, df ? js_get(df, K_channelId) : NULL);
  bool is_send;
  if (df && js_to_bool(js_get(df, K_isSend), &is_send))
    row_u64(b, is_send ? 1 : 0);
  else
    row_null(b);
  point_ns(b, &r->start);
  point_ns(b, &r->stop);
  row_json_str(b, js_get(f, K_end), false);
  uint64_t size;
  if (largest_trans_size(r, sc, &size))
    row_u64(b, size);
  else
    row_null(b);
  row_json_text(b, js_get(f, K_states));
  where(b, lf, line);
  row_end(b);
}

void row_process(row_buf *b, const load_file *lf) {
  members p, e, counters;
  members_read(&p, lf->process_line ? lf->process_line : "{}",
               lf->process_line ? lf->process_len : 2);
  members_read(&e, lf->end_line ? lf->end_line : "{}",
               lf->end_line ? lf->end_len : 2);
  const js_value *c = member(&e, "counters");
  members_read(&counters, c && c->type == JS_OBJECT ? c->ptr : "{}",
               c && c->type == JS_OBJECT ? c->len : 2);
  row_cstr(b, lf->run_id);
  row_json_str(b, member(&p, "runIdSource"), false);
  if (lf->has_global_rank)
    row_i64(b, lf->global_rank);
  else
    row_null(b);
  row_json_str(b, member(&p, "globalRankSource"), false);
  int_or_null(b, member(&p, "localRank"));
  int_or_null(b, member(&p, "worldSize"));
  row_cstr(b, lf->hostname);
  row_u64(b, lf->pid);
  int_or_null(b, member(&p, "ppid"));
  row_json_str(b, member(&p, "host"), false);
  row_json_str(b, member(&p, "ncclVersion"), false);
  row_json_str(b, member(&p, "pluginVersion"), false);
  uint_or(b, member(&p, "formatVersion"), 0);
  row_json_str(b, member(&p, "clock"), false);
  row_json_str(b, member(&p, "mode"), false);
  uint_or(b, member(&p, "eventMask"), 0);
  row_json_str(b, member(&p, "compression"), false);
  int64_t t;
  row_i64(b, timestamp(&p, "tsNs", "ts", &t) ? t : 0);
  if (timestamp(&e, "tsNs", "ts", &t))
    row_i64(b, t);
  else
    row_null(b);
  const js_value *reason = member(&e, "reason");
  if (reason)
    row_json_str(b, reason, false);
  else
    row_cstr(b, lf->has_accounting ? lf->accounting.reason : "");
  uint64_t u;
  if (js_to_u64(member(&e, "eventsWritten"), &u))
    row_u64(b, u);
  else if (lf->has_accounting && lf->accounting.closed)
    row_u64(b, lf->accounting.events_written);
  else
    row_null(b);
  /* lost lines: the larger of processEnd's and the accounting record's */
  uint64_t lost = 0;
  js_to_u64(member(&e, "linesLost"), &lost);
  const rec_accounting *a = &lf->accounting;
  row_u64(b, a->lines_lost > lost ? a->lines_lost : lost);
  row_u64(b, a->bytes_lost);
  row_u64(b, a->write_errors);
  const char *dropped[3] = {"droppedStarts", "droppedStates", "droppedStops"};
  const uint64_t acct[3] = {a->dropped_starts, a->dropped_states,
                            a->dropped_stops};
  for (int k = 0; k < 3; k++)
    row_u64(b, js_to_u64(member(&counters, dropped[k]), &u) ? u : acct[k]);
  row_u64(b, lf->timing_records);
  where(b, lf, lf->process_line_no ? lf->process_line_no : 1);
  row_end(b);
}
