/*
 * src/cli/read/seed_format.c — minimal_profiler traces read as cclscope
 * records (see seed_format.h; the mapping is documented in
 * docs/trace-format.md "Reading minimal_profiler traces").
 *
 * Two passes over the file. Pass 1 lists every NCCL event record as an
 * incarnation (pointer, start, stop, position, type) and sorts them by
 * pointer and start: a pointer is reused once its event ended, so "the
 * event at pointer P at time t" is the incarnation of P that started last
 * at or before t. Pass 2 streams: each line becomes zero or more of our
 * lines in a small queue that tr_next hands out one by one.
 */
#include "read/seed_format.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nccl_names.h"
#include "read/jsonl_scan.h"
#include "read/trace_reader.h"
#include "read/trace_record.h"
#include "util/pair_map.h"

/* ---- data ---- */

/* One event record of the file (pass 1). */
typedef struct {
  uint64_t addr;
  int64_t start, stop;
  uint32_t ordinal; /* position among the file's NCCL events: id - 1 */
  uint8_t type;     /* ev_type */
} incarnation;

/* What a ProxyStep repeats from its ProxyOp (pass 1, in ordinal order). */
typedef struct {
  uint32_t ordinal;
  int32_t peer, channel; /* INT32_MIN when absent */
  int8_t is_send;        /* -1 when absent */
} op_info;

/* The members of one minimal_profiler line that the conversion reads. */
typedef struct {
  js_value record_type, type, func, gpu_uuid, comm_id, rank, start, stop,
      my_pid, origin_pid, parent_obj, event_addr, is_pxn, details, ts, name,
      state_id, pid, tid;
} seed_line;

/* A growing text. `oom` once an allocation failed (the text is then
 * incomplete and the line is dropped). */
typedef struct {
  char *p;
  size_t len, cap;
  bool oom;
} text;

/* A line waiting in the queue: [off, off+len) of `out`. */
typedef struct {
  size_t off, len;
  uint64_t line_no;
  bool unterminated;
} queued;

/* The states of an incarnation whose event record has not come yet. */
typedef struct {
  text states; /* comma-separated state objects */
  bool used;
} pending;

/* A communicator of this file: (commId, rank) -> our ctx number. */
typedef struct {
  uint64_t comm_id;
  int64_t rank;
} comm_key;

struct seed_conv {
  int phase; /* 0: process record next, 1: pass 1 next, 2: streaming, 3:
                done */
  /* pass 1 */
  incarnation *inc;
  size_t ninc, cap_inc;
  op_info *ops;
  size_t nops, cap_ops;
  uint64_t raw_lines; /* pass 2 reads no further than pass 1 did */
  int64_t pid;
  int64_t first_ts;
  /* pass 2 */
  uint64_t raw_line_no;
  uint32_t next_ordinal;
  uint32_t next_ctx;
  pair_map ctx_of; /* (commId, rank + 1) -> ctx */
  uint32_t open_ctxs, inits;
  int64_t last_ts;
  pair_map pending_of; /* (ordinal, 0) -> index + 1 in pendings */
  pending *pendings;
  size_t npendings, cap_pendings;
  size_t *free_pendings; /* indexes of unused pendings (a stack) */
  size_t nfree_pendings;
  uint64_t orphan_states;
  /* output queue */
  text out;
  queued *queue;
  size_t nqueue, cap_queue, qpos;
  js_fields point;
  text scratch;
};

/* ---- text ---- */

static void text_put(text *t, const char *s, size_t n) {
  if (t->oom)
    return;
  if (t->len + n + 1 > t->cap) {
    size_t ncap = t->cap ? t->cap * 2 : 1024;
    while (ncap < t->len + n + 1)
      ncap *= 2;
    char *np = realloc(t->p, ncap);
    if (!np) {
      t->oom = true;
      return;
    }
    t->p = np;
    t->cap = ncap;
  }
  memcpy(t->p + t->len, s, n);
  t->len += n;
  t->p[t->len] = '\0';
}

static void text_str(text *t, const char *s) {
  text_put(t, s, strlen(s));
}

static void text_fmt(text *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void text_fmt(text *t, const char *fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n < 0)
    return;
  if ((size_t)n < sizeof buf) {
    text_put(t, buf, (size_t)n);
    return;
  }
  char *big = malloc((size_t)n + 1);
  if (!big) {
    t->oom = true;
    return;
  }
  va_start(ap, fmt);
  vsnprintf(big, (size_t)n + 1, fmt, ap);
  va_end(ap);
  text_put(t, big, (size_t)n);
  free(big);
}

/* A value exactly as it was written (strings with their quotes). */
static void text_value(text *t, const js_value *v) {
  if (v->type == JS_STRING) {
    text_put(t, "\"", 1);
    text_put(t, v->ptr, v->len);
    text_put(t, "\"", 1);
  } else {
    text_put(t, v->ptr, v->len);
  }
}

/* ns -> "1234.567" (µs with three decimals, the trace's own form). */
static void text_ts(text *t, int64_t ns) {
  uint64_t mag = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
  char buf[32];
  size_t at = sizeof buf;
  for (int digit = 0; digit < 3 || mag > 0 || digit == 3; digit++) {
    if (digit == 3)
      buf[--at] = '.';
    buf[--at] = (char)('0' + mag % 10);
    mag /= 10;
  }
  if (ns < 0)
    buf[--at] = '-';
  text_put(t, buf + at, sizeof buf - at);
}

/* ---- reading a minimal_profiler line ---- */

/* (The first byte first: most keys differ there, and this runs for every
 * member of every line.) */
static bool key_is(const js_value *k, const char *name) {
  return k->type == JS_STRING && k->len > 0 && k->ptr[0] == name[0] &&
         !k->escaped && k->len == strlen(name) &&
         memcmp(k->ptr, name, k->len) == 0;
}

/* The members the conversion reads; false when the line is not an
 * object. */
static bool seed_decode(seed_line *s, const char *line, size_t len) {
  memset(s, 0, sizeof *s);
  js_iter it;
  if (!js_object_begin(&it, line, line + len, line))
    return false;
  static const struct {
    const char *name;
    size_t offset;
  } keys[] = {
      {"recordType", offsetof(seed_line, record_type)},
      {"type", offsetof(seed_line, type)},
      {"func", offsetof(seed_line, func)},
      {"gpuUuid", offsetof(seed_line, gpu_uuid)},
      {"commId", offsetof(seed_line, comm_id)},
      {"rank", offsetof(seed_line, rank)},
      {"start", offsetof(seed_line, start)},
      {"stop", offsetof(seed_line, stop)},
      {"myPid", offsetof(seed_line, my_pid)},
      {"originPid", offsetof(seed_line, origin_pid)},
      {"parentObj", offsetof(seed_line, parent_obj)},
      {"eventAddr", offsetof(seed_line, event_addr)},
      {"isPxn", offsetof(seed_line, is_pxn)},
      {"details", offsetof(seed_line, details)},
      {"ts", offsetof(seed_line, ts)},
      {"name", offsetof(seed_line, name)},
      {"id", offsetof(seed_line, state_id)},
      {"pid", offsetof(seed_line, pid)},
      {"tid", offsetof(seed_line, tid)},
  };
  js_value k, v;
  while (js_object_next(&it, &k, &v))
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
      if (key_is(&k, keys[i].name)) {
        *(js_value *)((char *)s + keys[i].offset) = v;
        break;
      }
  return !it.error && js_rest_is_blank(&it);
}

static bool present(const js_value *v) {
  return v->type != JS_NONE && v->type != JS_NULL;
}

/* A pointer "0x7f..." (or a number); false for none, null, "(nil)". */
static bool seed_pointer(const js_value *v, uint64_t *out) {
  *out = 0;
  if (!present(v))
    return false;
  return js_to_hex_u64(v, out) && *out != 0;
}

bool seed_line_is_seed(const char *line, size_t len) {
  seed_line s;
  if (!seed_decode(&s, line, len))
    return false;
  bool event = js_str_eq(&s.record_type, "event");
  bool state = js_str_eq(&s.record_type, "state");
  return (event || state) && (present(&s.event_addr) || present(&s.my_pid) ||
                              present(&s.parent_obj));
}

/* ---- incarnations ---- */

static int cmp_inc(const void *a, const void *b) {
  const incarnation *x = a, *y = b;
  if (x->addr != y->addr)
    return x->addr < y->addr ? -1 : 1;
  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  return x->ordinal < y->ordinal ? -1 : x->ordinal > y->ordinal;
}

/* The incarnation of `addr` that started last at or before `t`, or NULL. */
static const incarnation *inc_at(const seed_conv *c, uint64_t addr, int64_t t) {
  size_t lo = 0, hi = c->ninc; /* first entry > (addr, t) */
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    const incarnation *m = &c->inc[mid];
    if (m->addr < addr || (m->addr == addr && m->start <= t))
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo == 0 || c->inc[lo - 1].addr != addr)
    return NULL;
  return &c->inc[lo - 1];
}

static bool point_ts(seed_conv *c, const js_value *v, const char *line,
                     rec_point *out) {
  return rec_point_decode(v, &c->point, line, out);
}

/* commId: a JSON number in this format (a hex string also accepted). */
static uint64_t comm_of(const seed_line *s) {
  uint64_t comm = 0;
  if (!js_to_u64(&s->comm_id, &comm) && !js_to_hex_u64(&s->comm_id, &comm))
    comm = 0;
  return comm;
}

static bool is_nccl_event(const seed_line *s) {
  return js_str_eq(&s->record_type, "event") &&
         !js_str_eq(&s->type, "ProfilerLifecycle");
}

/* isSend as JSON true/false (this format may write 1/0); -1 if neither. */
static int send_flag(const js_value *v) {
  bool b;
  int64_t n;
  if (js_to_bool(v, &b))
    return b;
  if (js_to_i64(v, &n))
    return n != 0;
  return -1;
}

/* Keep a ProxyOp's peer, channelId and isSend for its ProxySteps. */
static bool note_op(seed_conv *c, const seed_line *s, const char *line,
                    uint32_t ordinal) {
  if (c->nops == c->cap_ops) {
    size_t ncap = c->cap_ops ? c->cap_ops * 2 : 256;
    op_info *no = realloc(c->ops, ncap * sizeof *no);
    if (!no)
      return false;
    c->ops = no;
    c->cap_ops = ncap;
  }
  op_info *o = &c->ops[c->nops++];
  o->ordinal = ordinal;
  o->peer = o->channel = INT32_MIN;
  o->is_send = -1;
  js_iter it;
  js_value k, v;
  int64_t n;
  if (s->details.type == JS_OBJECT &&
      js_object_begin(&it, s->details.ptr, s->details.ptr + s->details.len,
                      line))
    while (js_object_next(&it, &k, &v)) {
      if (key_is(&k, "peer") && js_to_i64(&v, &n))
        o->peer = (int32_t)n;
      else if (key_is(&k, "channelId") && js_to_i64(&v, &n))
        o->channel = (int32_t)n;
      else if (key_is(&k, "isSend"))
        o->is_send = (int8_t)send_flag(&v);
    }
  return true;
}

static const op_info *op_of(const seed_conv *c, uint32_t ordinal) {
  size_t lo = 0, hi = c->nops;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (c->ops[mid].ordinal < ordinal)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < c->nops && c->ops[lo].ordinal == ordinal ? &c->ops[lo] : NULL;
}

/* Pass 1: list the event records, note the process id and first time. */
static int pass1(seed_conv *c, tr_file *f) {
  int got;
  uint32_t ordinal = 0;
  while ((got = tr_next_raw(f)) == 1) {
    seed_line s;
    if (!seed_decode(&s, f->line, f->line_len))
      continue;
    rec_point start = {0}, stop = {0};
    point_ts(c, &s.start, f->line, &start);
    point_ts(c, &s.stop, f->line, &stop);
    int64_t ts;
    if (start.present && start.ts < c->first_ts)
      c->first_ts = start.ts;
    if (js_to_ns(&s.ts, &ts) && ts < c->first_ts)
      c->first_ts = ts;
    if (c->pid < 0 && !js_to_i64(&s.my_pid, &c->pid))
      c->pid = start.present ? start.pid : -1;
    if (!is_nccl_event(&s))
      continue;
    if (c->ninc == c->cap_inc) {
      size_t ncap = c->cap_inc ? c->cap_inc * 2 : 1024;
      incarnation *ni = realloc(c->inc, ncap * sizeof *ni);
      if (!ni) {
        f->error = ENOMEM;
        return -1;
      }
      c->inc = ni;
      c->cap_inc = ncap;
    }
    incarnation *in = &c->inc[c->ninc++];
    seed_pointer(&s.event_addr, &in->addr);
    in->start = start.present ? start.ts : INT64_MIN;
    in->stop = stop.present ? stop.ts : INT64_MAX;
    in->ordinal = ordinal++;
    in->type = (uint8_t)ev_type_from_json(&s.type);
    if (in->type == ET_PROXY_OP && !note_op(c, &s, f->line, in->ordinal)) {
      f->error = ENOMEM;
      return -1;
    }
  }
  if (got < 0)
    return -1;
  c->raw_lines = f->line_no;
  if (c->ninc > 1)
    qsort(c->inc, c->ninc, sizeof *c->inc, cmp_inc);
  int err = tr_rewind(f);
  if (err) {
    f->error = err;
    return -1;
  }
  return 0;
}

/* ---- the output queue ---- */

static void queue_begin(seed_conv *c) {
  c->scratch.len = 0;
  c->scratch.oom = false;
}

/* Queue the line built in c->scratch. */
static void queue_line(seed_conv *c, uint64_t line_no, bool unterminated) {
  if (c->scratch.oom)
    return;
  if (c->nqueue == c->cap_queue) {
    size_t ncap = c->cap_queue ? c->cap_queue * 2 : 8;
    queued *nq = realloc(c->queue, ncap * sizeof *nq);
    if (!nq)
      return;
    c->queue = nq;
    c->cap_queue = ncap;
  }
  size_t off = c->out.len;
  text_put(&c->out, c->scratch.p ? c->scratch.p : "", c->scratch.len);
  if (c->out.oom)
    return;
  c->queue[c->nqueue++] = (queued){off, c->scratch.len, line_no, unterminated};
}

/* ---- records we synthesize ---- */

static void put_process(seed_conv *c, int64_t pid, bool has_ts, int64_t ts) {
  queue_begin(c);
  text *t = &c->scratch;
  text_fmt(t,
           "{\"recordType\":\"process\",\"plugin\":\"minimal_profiler\","
           "\"formatVersion\":1,\"hostname\":\"\",\"pid\":%" PRId64,
           pid);
  if (has_ts) {
    text_str(t, ",\"ts\":");
    text_ts(t, ts);
  }
  text_str(t, ",\"convertedFrom\":\"minimal_profiler\"}");
  queue_line(c, 1, false);
}

static void put_point(text *t, const rec_point *p) {
  text_str(t, "{\"ts\":");
  text_ts(t, p->ts);
  text_fmt(t, ",\"pid\":%" PRId64 ",\"tid\":%" PRId64 "}", p->pid, p->tid);
}

/* The ctx of (commId, rank), or 0 when it has none yet. */
static uint32_t ctx_lookup(seed_conv *c, uint64_t comm, int64_t rank) {
  uint64_t *v = pair_map_get(&c->ctx_of, comm, (uint64_t)(rank + 1));
  return v ? (uint32_t)*v : 0;
}

/* A lifecycle record. `s` may be an event of that communicator (then the
 * record is a ProfilerInit synthesized for it, its details say so). */
static void put_lifecycle(seed_conv *c, const seed_line *s, const char *line,
                          bool init, uint32_t ctx, uint64_t comm, int64_t rank,
                          bool synthesized, uint64_t line_no) {
  queue_begin(c);
  text *t = &c->scratch;
  text_fmt(t,
           "{\"recordType\":\"event\",\"type\":\"ProfilerLifecycle\","
           "\"func\":\"%s\",\"ctx\":%" PRIu32 ",\"commId\":\"0x%" PRIx64 "\"",
           init ? "ProfilerInit" : "ProfilerFinalize", ctx, comm);
  /* commName and nranks: from the lifecycle record's details */
  js_value name = {0}, nranks = {0}, k, v;
  js_iter it;
  if (!synthesized && s->details.type == JS_OBJECT &&
      js_object_begin(&it, s->details.ptr, s->details.ptr + s->details.len,
                      line))
    while (js_object_next(&it, &k, &v)) {
      if (key_is(&k, "commName") && v.type == JS_STRING)
        name = v;
      else if (key_is(&k, "nranks") && v.type == JS_NUMBER)
        nranks = v;
    }
  text_str(t, ",\"commName\":");
  if (name.type == JS_STRING)
    text_value(t, &name);
  else
    text_str(t, "\"\"");
  text_fmt(t, ",\"rank\":%" PRId64 ",\"nranks\":", rank);
  if (nranks.type == JS_NUMBER)
    text_value(t, &nranks);
  else
    text_str(t, "-1");
  text_str(t, ",\"nNodes\":-1,\"gpuUuid\":");
  if (s->gpu_uuid.type == JS_STRING)
    text_value(t, &s->gpu_uuid);
  else
    text_str(t, "\"\"");
  rec_point start = {0}, stop = {0};
  point_ts(c, &s->start, line, &start);
  point_ts(c, &s->stop, line, &stop);
  if (!start.present) {
    start.present = true;
    start.ts = c->last_ts;
    start.pid = c->pid;
  }
  if (synthesized || !stop.present)
    stop = start;
  text_str(t, ",\"start\":");
  put_point(t, &start);
  text_str(t, ",\"stop\":");
  put_point(t, &stop);
  text_str(t, ",\"duration\":");
  text_ts(t, stop.ts - start.ts);
  text_str(t, ",\"details\":");
  if (synthesized)
    text_str(t, "{\"synthesized\":true}");
  else if (s->details.type == JS_OBJECT)
    text_value(t, &s->details);
  else
    text_str(t, "{}");
  text_str(t, "}");
  queue_line(c, line_no, false);
}

/* ---- lifecycle ---- */

static void convert_lifecycle(seed_conv *c, const seed_line *s,
                              const char *line, uint64_t line_no) {
  uint64_t comm = comm_of(s);
  int64_t rank = -1;
  if (!js_to_i64(&s->rank, &rank))
    rank = -1;
  bool init = !js_str_eq(&s->func, "ProfilerFinalize");
  rec_point stop;
  if (point_ts(c, &s->stop, line, &stop) && stop.ts > c->last_ts)
    c->last_ts = stop.ts;
  uint32_t ctx = ctx_lookup(c, comm, rank);
  if (init || ctx == 0) {
    /* a new ctx: an Init, or a Finalize whose Init is not in the file */
    ctx = ++c->next_ctx;
    uint64_t *v = pair_map_put(&c->ctx_of, comm, (uint64_t)(rank + 1), 0, NULL);
    if (v)
      *v = ctx;
    c->open_ctxs++;
    c->inits++;
    if (!init)
      put_lifecycle(c, s, line, true, ctx, comm, rank, true, line_no);
  }
  put_lifecycle(c, s, line, init, ctx, comm, rank, false, line_no);
  if (!init) {
    pair_map_remove(&c->ctx_of, comm, (uint64_t)(rank + 1));
    c->open_ctxs--;
  }
}

/* ---- states ---- */

/* A state's number from its name as NCCL's enum spells it
 * ("ncclProfilerProxyStepSendWait") or as ours does ("SendWait"); -1 if
 * unknown. */
static int state_number(const js_value *name) {
  if (name->type != JS_STRING || name->escaped)
    return -1;
  return nccl_state_from_any_name(name->ptr, name->len);
}

/* The embedded state object of a state record: name, id, ts and every
 * state-specific member (transSize, pTimer, ...). */
static void put_state_object(text *t, const seed_line *s, const char *line,
                             size_t len, int64_t ts) {
  int64_t id = -1;
  int number = state_number(&s->name);
  if (!js_to_i64(&s->state_id, &id))
    id = number;
  const char *name = number >= 0 ? nccl_state_name(number, 7, false) : NULL;
  if (!name && id >= 0)
    name = nccl_state_name((int)id, 6, false);
  text_fmt(t, "{\"name\":\"%s\",\"id\":%" PRId64 ",\"ts\":",
           name ? name : "unknown", id);
  text_ts(t, ts);
  js_iter it;
  js_value k, v;
  if (js_object_begin(&it, line, line + len, line))
    while (js_object_next(&it, &k, &v)) {
      static const char *const known[] = {
          "recordType", "eventAddr", "ts", "name", "id", "pid", "tid", "type"};
      bool skip = false;
      for (size_t i = 0; i < sizeof known / sizeof *known && !skip; i++)
        skip = key_is(&k, known[i]);
      if (skip)
        continue;
      text_str(t, ",");
      text_value(t, &k);
      text_str(t, ":");
      text_value(t, &v);
    }
  text_str(t, "}");
}

static pending *pending_for(seed_conv *c, uint32_t ordinal, bool create) {
  uint64_t *slot = pair_map_get(&c->pending_of, ordinal, 0);
  if (slot)
    return &c->pendings[*slot - 1];
  if (!create)
    return NULL;
  size_t idx;
  if (c->nfree_pendings > 0) {
    idx = c->free_pendings[--c->nfree_pendings];
  } else {
    if (c->npendings == c->cap_pendings) {
      size_t ncap = c->cap_pendings ? c->cap_pendings * 2 : 64;
      pending *np = realloc(c->pendings, ncap * sizeof *np);
      size_t *nf = realloc(c->free_pendings, ncap * sizeof *nf);
      if (nf)
        c->free_pendings = nf;
      if (!np || !nf) {
        if (np)
          c->pendings = np;
        return NULL;
      }
      c->pendings = np;
      c->cap_pendings = ncap;
    }
    idx = c->npendings++;
    memset(&c->pendings[idx], 0, sizeof *c->pendings);
  }
  uint64_t *v = pair_map_put(&c->pending_of, ordinal, 0, 0, NULL);
  if (!v)
    return NULL;
  *v = idx + 1;
  pending *p = &c->pendings[idx];
  p->used = true;
  p->states.len = 0;
  p->states.oom = false;
  return p;
}

static void pending_release(seed_conv *c, uint32_t ordinal, pending *p) {
  p->used = false;
  p->states.len = 0;
  pair_map_remove(&c->pending_of, ordinal, 0);
  c->free_pendings[c->nfree_pendings++] = (size_t)(p - c->pendings);
}

/* A state record: kept for its event's record, written as a late state
 * record when that was already written, or counted as an orphan. */
static void convert_state(seed_conv *c, const seed_line *s, const char *line,
                          size_t len, uint64_t line_no) {
  uint64_t addr;
  int64_t ts;
  const incarnation *in = NULL;
  if (seed_pointer(&s->event_addr, &addr) && js_to_ns(&s->ts, &ts))
    in = inc_at(c, addr, ts);
  if (!in) {
    c->orphan_states++;
    return;
  }
  if (ts > c->last_ts)
    c->last_ts = ts;
  if (in->ordinal >= c->next_ordinal) {
    pending *p = pending_for(c, in->ordinal, true);
    if (!p) {
      c->orphan_states++;
      return;
    }
    if (p->states.len)
      text_str(&p->states, ",");
    put_state_object(&p->states, s, line, len, ts);
    return;
  }
  /* its event was written already: a late state record */
  queue_begin(c);
  text *t = &c->scratch;
  text_fmt(t,
           "{\"recordType\":\"state\",\"eventId\":\"0x%" PRIx32
           "\",\"eventType\":\"%s\",\"late\":true,\"ctx\":null,"
           "\"commId\":null,\"rank\":-1",
           in->ordinal + 1, ev_type_json_name((ev_type)in->type));
  int64_t pid, tid;
  text_fmt(t, ",\"pid\":%" PRId64 ",\"tid\":%" PRId64 ",\"state\":",
           js_to_i64(&s->pid, &pid) ? pid : c->pid,
           js_to_i64(&s->tid, &tid) ? tid : -1);
  put_state_object(t, s, line, len, ts);
  text_str(t, "}");
  queue_line(c, line_no, false);
}

/* ---- events ---- */

/* details, with minimal_profiler's names made ours: seq -> seqNumber,
 * channels -> nChannels, NetPlugin id -> pluginId; func is on the event. */
static void put_details(text *t, const seed_line *s, const char *line,
                        ev_type et, const op_info *op) {
  js_iter it;
  js_value k, v;
  text_str(t, "{");
  bool first = true;
  bool has_peer = false, has_channel = false, has_send = false;
  if (s->details.type == JS_OBJECT &&
      js_object_begin(&it, s->details.ptr, s->details.ptr + s->details.len,
                      line))
    while (js_object_next(&it, &k, &v)) {
      const char *rename = NULL;
      if (key_is(&k, "func"))
        continue;
      if (key_is(&k, "seq"))
        rename = "seqNumber";
      else if (key_is(&k, "channels"))
        rename = "nChannels";
      else if (et == ET_NET_PLUGIN && key_is(&k, "id"))
        rename = "pluginId";
      if (!first)
        text_str(t, ",");
      first = false;
      if (rename)
        text_fmt(t, "\"%s\"", rename);
      else
        text_value(t, &k);
      text_str(t, ":");
      has_peer = has_peer || key_is(&k, "peer");
      has_channel = has_channel || key_is(&k, "channelId");
      if (key_is(&k, "isSend") && send_flag(&v) >= 0) {
        has_send = true;
        text_str(t, send_flag(&v) ? "true" : "false");
      } else {
        text_value(t, &v);
      }
    }
  /* a ProxyStep repeats its ProxyOp's peer, channel and direction */
  if (op && !has_peer && op->peer != INT32_MIN) {
    text_fmt(t, "%s\"peer\":%" PRId32, first ? "" : ",", op->peer);
    first = false;
  }
  if (op && !has_channel && op->channel != INT32_MIN) {
    text_fmt(t, "%s\"channelId\":%" PRId32, first ? "" : ",", op->channel);
    first = false;
  }
  if (op && !has_send && op->is_send >= 0)
    text_fmt(t, "%s\"isSend\":%s", first ? "" : ",",
             op->is_send ? "true" : "false");
  text_str(t, "}");
}

static bool has_func(ev_type et) {
  return et == ET_COLL || et == ET_P2P || et == ET_COLL_API ||
         et == ET_P2P_API || et == ET_CE_COLL;
}

/* The func of a Coll/P2p...: the event's, else its details'. */
static js_value func_of(const seed_line *s, const char *line) {
  if (s->func.type == JS_STRING && s->func.len > 0)
    return s->func;
  js_value none = {0}, k, v;
  js_iter it;
  if (s->details.type == JS_OBJECT &&
      js_object_begin(&it, s->details.ptr, s->details.ptr + s->details.len,
                      line))
    while (js_object_next(&it, &k, &v))
      if (key_is(&k, "func") && v.type == JS_STRING)
        return v;
  return none;
}

static void convert_event(seed_conv *c, const seed_line *s, const char *line,
                          uint64_t line_no) {
  ev_type et = ev_type_from_json(&s->type);
  uint32_t ordinal = c->next_ordinal++;
  rec_point start = {0}, stop = {0};
  point_ts(c, &s->start, line, &start);
  point_ts(c, &s->stop, line, &stop);
  bool pxn = false;
  js_to_bool(&s->is_pxn, &pxn);
  uint64_t comm = comm_of(s);
  int64_t rank = -1;
  if (!js_to_i64(&s->rank, &rank))
    rank = -1;
  if (stop.present && stop.ts > c->last_ts)
    c->last_ts = stop.ts;
  /* the communicator; a ProfilerInit first when the file has none */
  uint32_t ctx = 0;
  if (!pxn) {
    ctx = ctx_lookup(c, comm, rank);
    if (ctx == 0) {
      ctx = ++c->next_ctx;
      uint64_t *v =
          pair_map_put(&c->ctx_of, comm, (uint64_t)(rank + 1), 0, NULL);
      if (v)
        *v = ctx;
      c->open_ctxs++;
      c->inits++;
      put_lifecycle(c, s, line, true, ctx, comm, rank, true, line_no);
    }
  }
  queue_begin(c);
  text *t = &c->scratch;
  text_fmt(t, "{\"recordType\":\"event\",\"type\":");
  if (et == ET_UNKNOWN)
    text_str(t, "\"unknown\"");
  else
    text_fmt(t, "\"%s\"", ev_type_json_name(et));
  text_fmt(t, ",\"id\":\"0x%" PRIx32 "\"", ordinal + 1);
  /* the parent: the incarnation of parentObj live at this start */
  uint64_t paddr;
  const op_info *op = NULL;
  if (!seed_pointer(&s->parent_obj, &paddr)) {
    text_str(t, ",\"parentId\":null");
  } else if (pxn && et == ET_PROXY_OP) {
    /* PXN: the Coll/P2p is in the originating process's memory */
    text_fmt(t,
             ",\"parentId\":null,\"parentStatus\":\"foreign\","
             "\"parentRaw\":\"0x%" PRIx64 "\"",
             paddr);
  } else {
    const incarnation *p = start.present ? inc_at(c, paddr, start.ts) : NULL;
    if (p && p->ordinal != ordinal &&
        (ev_legal_parents(et) & (1u << p->type))) {
      text_fmt(t, ",\"parentId\":\"0x%" PRIx32 "\"", p->ordinal + 1);
      if (et == ET_PROXY_STEP && p->type == ET_PROXY_OP)
        op = op_of(c, p->ordinal);
    } else {
      text_fmt(t,
               ",\"parentId\":null,\"parentStatus\":\"unknown\","
               "\"parentRaw\":\"0x%" PRIx64 "\"",
               paddr);
    }
  }
  if (pxn)
    text_fmt(t, ",\"ctx\":null,\"commId\":null,\"rank\":%" PRId64, rank);
  else
    text_fmt(t,
             ",\"ctx\":%" PRIu32 ",\"commId\":\"0x%" PRIx64
             "\",\"rank\":%" PRId64,
             ctx, comm, rank);
  if (pxn) {
    int64_t origin;
    text_str(t, ",\"isPxn\":true");
    if (js_to_i64(&s->origin_pid, &origin))
      text_fmt(t, ",\"originPid\":%" PRId64, origin);
  }
  if (has_func(et)) {
    js_value func = func_of(s, line);
    if (func.type == JS_STRING) {
      text_str(t, ",\"func\":");
      text_value(t, &func);
    }
  }
  if (!start.present) { /* not a valid event: keep what there is */
    start.present = true;
    start.ts = stop.present ? stop.ts : c->last_ts;
  }
  text_str(t, ",\"start\":");
  put_point(t, &start);
  if (stop.present) {
    text_str(t, ",\"stop\":");
    put_point(t, &stop);
    text_str(t, ",\"duration\":");
    text_ts(t, stop.ts - start.ts);
    text_str(t, ",\"end\":\"stopped\"");
  } else {
    text_str(t, ",\"stop\":null,\"duration\":null,\"end\":\"inflight\"");
    text_str(t, ",\"endTs\":");
    text_ts(t, start.ts);
  }
  text_str(t, ",\"details\":");
  put_details(t, s, line, et, op);
  pending *p = pending_for(c, ordinal, false);
  if (p) {
    if (p->states.len) {
      text_str(t, ",\"states\":[");
      text_put(t, p->states.p, p->states.len);
      text_str(t, "]");
    }
    pending_release(c, ordinal, p);
  }
  text_str(t, "}");
  queue_line(c, line_no, false);
}

/* At the end: processEnd when every communicator was finalized (the
 * format writes no end record; a file whose communicators are still open
 * stays without one, as a killed process's file does). */
static void convert_end(seed_conv *c, uint64_t line_no) {
  if (c->inits == 0 || c->open_ctxs != 0)
    return;
  uint32_t n = c->next_ordinal;
  queue_begin(c);
  text *t = &c->scratch;
  text_str(t, "{\"recordType\":\"processEnd\",\"ts\":");
  text_ts(t, c->last_ts);
  text_fmt(t,
           ",\"pid\":%" PRId64
           ",\"reason\":\"finalize\",\"eventsWritten\":%" PRIu32
           ",\"linesLost\":0,\"counters\":{\"eventsStarted\":%" PRIu32
           ",\"stopped\":%" PRIu32
           ",\"reclaimed\":0,\"inflight\":0,\"droppedStarts\":0,"
           "\"droppedStates\":0,\"droppedStops\":0},"
           "\"convertedFrom\":\"minimal_profiler\"}",
           c->pid, n, n, n);
  queue_line(c, line_no, false);
}

/* One raw line of pass 2 into the queue. */
static void convert_line(seed_conv *c, tr_file *f) {
  seed_line s;
  uint64_t line_no = f->line_no;
  if (!seed_decode(&s, f->line, f->line_len) ||
      (!js_str_eq(&s.record_type, "event") &&
       !js_str_eq(&s.record_type, "state"))) {
    /* not JSON, or a record this conversion does not know: as it is, so
     * that `check` reports it where it is */
    queue_begin(c);
    text_put(&c->scratch, f->line, f->line_len);
    queue_line(c, line_no, f->line_unterminated);
    return;
  }
  if (js_str_eq(&s.record_type, "state"))
    convert_state(c, &s, f->line, f->line_len, line_no);
  else if (js_str_eq(&s.type, "ProfilerLifecycle"))
    convert_lifecycle(c, &s, f->line, line_no);
  else
    convert_event(c, &s, f->line, line_no);
}

/* ---- the converter ---- */

seed_conv *seed_conv_new(void) {
  seed_conv *c = calloc(1, sizeof *c);
  if (!c)
    return NULL;
  c->pid = -1;
  c->first_ts = INT64_MAX;
  pair_map_init(&c->ctx_of);
  pair_map_init(&c->pending_of);
  js_fields_init(&c->point);
  return c;
}

void seed_conv_free(seed_conv *c) {
  if (!c)
    return;
  free(c->inc);
  free(c->ops);
  pair_map_free(&c->ctx_of);
  pair_map_free(&c->pending_of);
  for (size_t i = 0; i < c->npendings; i++)
    free(c->pendings[i].states.p);
  free(c->pendings);
  free(c->free_pendings);
  free(c->out.p);
  free(c->queue);
  free(c->scratch.p);
  free(c);
}

static void report_orphans(seed_conv *c, tr_file *f) {
  if (c->orphan_states && tr_notice_once(f->path, TR_NOTICE_ORPHAN_STATES))
    tr_say(f,
           "cclscope: '%s': %" PRIu64 " minimal_profiler state records "
           "name no event of the file (an event that never stopped is not "
           "written in that format); left out\n",
           f->path, c->orphan_states);
  c->orphan_states = 0;
}

int seed_conv_next(seed_conv *c, tr_file *f) {
  while (c->qpos == c->nqueue) {
    c->qpos = c->nqueue = 0;
    c->out.len = 0;
    c->out.oom = false;
    switch (c->phase) {
    case 0: {
      /* pass 1 first: the process record needs the pid and first time */
      c->phase = 1;
      if (pass1(c, f) < 0)
        return -1;
      put_process(c, c->pid, c->first_ts != INT64_MAX, c->first_ts);
      c->last_ts = c->first_ts != INT64_MAX ? c->first_ts : 0;
      c->phase = 2;
      break;
    }
    case 2: {
      f->line_no = c->raw_line_no;
      int got = c->raw_line_no < c->raw_lines ? tr_next_raw(f) : 0;
      c->raw_line_no = f->line_no;
      if (got < 0)
        return -1;
      if (got == 0) {
        convert_end(c, c->raw_line_no);
        report_orphans(c, f);
        c->phase = 3;
        break;
      }
      convert_line(c, f);
      break;
    }
    default:
      return 0;
    }
  }
  const queued *q = &c->queue[c->qpos++];
  f->line = c->out.p + q->off;
  f->line_len = q->len;
  f->line_no = q->line_no;
  f->line_unterminated = q->unterminated;
  return 1;
}
