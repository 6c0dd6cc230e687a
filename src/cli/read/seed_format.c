/* SPDX-License-Identifier: Apache-2.0 */
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
 * lines in a small queue that tr_next hands out one by one. GPU activity
 * records (CUPTI) are tied to their KernelLaunch (seed_launch.h), and the
 * collectives' timing records are derived at the end (seed_timing.h).
 */
#include "read/seed_format.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nccl_names.h"
#include "read/jsonl_scan.h"
#include "read/seed_launch.h"
#include "read/seed_text.h"
#include "read/seed_timing.h"
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
  /* KernelLaunch events and GPU activity (CUPTI) records */
  js_value ext_corr_id, corr_id, device_id, stream, ptimer;
} seed_line;

/* A line waiting in the queue: [off, off+len) of `out`. */
typedef struct {
  size_t off, len;
  uint64_t line_no;
  bool unterminated;
} queued;

/* The states of an incarnation whose event record has not come yet. */
typedef struct {
  seed_text states; /* comma-separated state objects */
  bool used;
} pending;

/* A communicator of this file: (commId, rank) -> our ctx number. */
typedef struct {
  uint64_t comm_id;
  int64_t rank;
} comm_key;

struct seed_conv {
  int phase; /* 0: process record next, 1: pass 1 next, 2: streaming, 4:
                timing records, 3: done */
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
  pair_map nranks_of;  /* commId -> nranks + 1 (lifecycle details) */
  pair_map kc_stop_of; /* (KernelCh ordinal, 0) -> stop pTimer, (…, 1) ->
                          when its state was recorded (ns) */
  seed_launches launches;
  seed_timing *timing;
  /* output queue */
  seed_text out;
  queued *queue;
  size_t nqueue, cap_queue, qpos;
  js_fields point;
  seed_text scratch;
};

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
      {"extCorrId", offsetof(seed_line, ext_corr_id)},
      {"corrId", offsetof(seed_line, corr_id)},
      {"deviceId", offsetof(seed_line, device_id)},
      {"stream", offsetof(seed_line, stream)},
      {"pTimer", offsetof(seed_line, ptimer)},
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

/* What a minimal_profiler line is. Lifecycle records come with
 * "recordType":"event" (as the format's documentation shows them) or, as
 * real files write them, without a recordType. */
typedef enum {
  SL_OTHER = 0, /* not a record of this format */
  SL_EVENT,     /* an NCCL event */
  SL_STATE,
  SL_LIFECYCLE,
  SL_ACTIVITY /* a GPU activity record (CUPTI) */
} seed_kind;

static seed_kind kind_of(const seed_line *s) {
  if (js_str_eq(&s->record_type, "state"))
    return SL_STATE;
  if (js_str_eq(&s->record_type, "cuptiActivity"))
    return SL_ACTIVITY;
  bool event = js_str_eq(&s->record_type, "event");
  if ((event || s->record_type.type == JS_NONE) &&
      js_str_eq(&s->type, "ProfilerLifecycle"))
    return SL_LIFECYCLE;
  return event ? SL_EVENT : SL_OTHER;
}

bool seed_line_is_seed(const char *line, size_t len) {
  seed_line s;
  if (!seed_decode(&s, line, len))
    return false;
  switch (kind_of(&s)) {
  case SL_EVENT:
  case SL_STATE:
    return present(&s.event_addr) || present(&s.my_pid) ||
           present(&s.parent_obj);
  case SL_LIFECYCLE:
    /* ours always has a recordType, a ctx and a hex commId */
    return s.record_type.type == JS_NONE || present(&s.my_pid) ||
           s.comm_id.type == JS_NUMBER;
  case SL_ACTIVITY:
    return true;
  default:
    return false;
  }
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
  return kind_of(s) == SL_EVENT;
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
    int64_t ext, device;
    if (kind_of(&s) == SL_ACTIVITY && js_to_i64(&s.ext_corr_id, &ext) &&
        js_to_i64(&s.device_id, &device))
      sl_note_activity(&c->launches, ext, device);
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
    int64_t rank;
    if (in->type == ET_KERNEL_LAUNCH && js_to_i64(&s.ext_corr_id, &ext) &&
        js_to_i64(&s.rank, &rank))
      sl_note_launch(&c->launches, ext, in->ordinal, comm_of(&s), rank);
  }
  if (got < 0)
    return -1;
  sl_end_pass1(&c->launches);
  if (c->launches.oom) {
    f->error = ENOMEM;
    return -1;
  }
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
  seed_text_put(&c->out, c->scratch.p ? c->scratch.p : "", c->scratch.len);
  if (c->out.oom)
    return;
  c->queue[c->nqueue++] = (queued){off, c->scratch.len, line_no, unterminated};
}

/* ---- records we synthesize ---- */

static void put_process(seed_conv *c, int64_t pid, bool has_ts, int64_t ts) {
  queue_begin(c);
  seed_text *t = &c->scratch;
  seed_text_fmt(t,
                "{\"recordType\":\"process\",\"plugin\":\"minimal_profiler\","
                "\"formatVersion\":1,\"hostname\":\"\",\"pid\":%" PRId64,
                pid);
  if (has_ts) {
    seed_text_str(t, ",\"ts\":");
    seed_text_ts(t, ts);
  }
  seed_text_str(t, ",\"convertedFrom\":\"minimal_profiler\"}");
  queue_line(c, 1, false);
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
  seed_text *t = &c->scratch;
  seed_text_fmt(t,
                "{\"recordType\":\"event\",\"type\":\"ProfilerLifecycle\","
                "\"func\":\"%s\",\"ctx\":%" PRIu32 ",\"commId\":\"0x%" PRIx64
                "\"",
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
  seed_text_str(t, ",\"commName\":");
  if (name.type == JS_STRING)
    seed_text_value(t, &name);
  else
    seed_text_str(t, "\"\"");
  seed_text_fmt(t, ",\"rank\":%" PRId64 ",\"nranks\":", rank);
  /* a Finalize (and an Init made up for events) says the size its
   * communicator's Init said */
  int64_t n;
  const uint64_t *known = pair_map_get(&c->nranks_of, comm, 0);
  if (nranks.type == JS_NUMBER) {
    seed_text_value(t, &nranks);
    uint64_t *slot = pair_map_put(&c->nranks_of, comm, 0, 0, NULL);
    if (slot && js_to_i64(&nranks, &n) && n > 0)
      *slot = (uint64_t)n + 1;
  } else if (known && *known > 1) {
    seed_text_fmt(t, "%" PRIu64, *known - 1);
  } else {
    seed_text_str(t, "-1");
  }
  /* the GPU: its UUID as the file wrote it (an identity, see
   * docs/trace-format.md), its device from its kernels' CUPTI records */
  seed_text_str(t, ",\"nNodes\":-1,\"gpuUuid\":");
  if (s->gpu_uuid.type == JS_STRING)
    seed_text_value(t, &s->gpu_uuid);
  else
    seed_text_str(t, "\"\"");
  int64_t device;
  if (sl_device(&c->launches, comm, rank, &device))
    seed_text_fmt(t, ",\"device\":%" PRId64, device);
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
  seed_text_span(t, &start, &stop);
  seed_text_str(t, ",\"details\":");
  if (synthesized)
    seed_text_str(t, "{\"synthesized\":true}");
  else if (s->details.type == JS_OBJECT)
    seed_text_value(t, &s->details);
  else
    seed_text_str(t, "{}");
  seed_text_str(t, "}");
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

/* A state's number under `numbering` from its name as NCCL's enum spells
 * it ("ncclProfilerProxyStepSendWait") or as ours does ("SendWait"); -1 if
 * unknown. */
static int state_number(const js_value *name, nccl_numbering numbering) {
  if (name->type != JS_STRING || name->escaped)
    return -1;
  return nccl_state_from_any_name(name->ptr, name->len, numbering);
}

/* The embedded state object of a state record: name, id, ts and every
 * state-specific member (transSize, pTimer, ...). The file names no host:
 * minimal_profiler is NVIDIA's tracer, so NVIDIA's numbers, except for a
 * state only RCCL has (ProxyDiagUpdate): RCCL 2.31's number when the
 * record's id says 32, else RCCL's older one. */
static void put_state_object(seed_text *t, const seed_line *s, const char *line,
                             size_t len, int64_t ts) {
  int64_t id = -1;
  bool has_id = js_to_i64(&s->state_id, &id);
  bool rccl = false;
  int number = state_number(&s->name, NCCL_NUMBERING_NVIDIA);
  if (number < 0) {
    number = state_number(&s->name, has_id && id == 32 ? NCCL_NUMBERING_RCCL_231
                                                       : NCCL_NUMBERING_RCCL);
    rccl = number >= 0;
  }
  if (!has_id)
    id = number;
  /* RCCL's name of its number under its v6, which has them all */
  const char *name =
      number >= 0 ? nccl_state_name(number, rccl ? 6 : 7, rccl) : NULL;
  if (!name && id >= 0)
    name = nccl_state_name((int)id, 6, false);
  seed_text_fmt(t, "{\"name\":\"%s\",\"id\":%" PRId64 ",\"ts\":",
                name ? name : "unknown", id);
  seed_text_ts(t, ts);
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
      seed_text_str(t, ",");
      seed_text_value(t, &k);
      seed_text_str(t, ":");
      seed_text_value(t, &v);
    }
  seed_text_str(t, "}");
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

/* A KernelCh's stop stamp (the pTimer of its KernelChStop state) and when
 * the host saw it, kept for its event's record (seed_timing.h). */
static void note_kernel_stop(seed_conv *c, const seed_line *s,
                             const incarnation *in, int64_t ts) {
  uint64_t ptimer;
  if (in->type != ET_KERNEL_CH ||
      state_number(&s->name, NCCL_NUMBERING_NVIDIA) != 22 ||
      !js_to_u64(&s->ptimer, &ptimer))
    return;
  /* (each value set right after its own insertion: one may move another) */
  uint64_t *stamp = pair_map_put(&c->kc_stop_of, in->ordinal, 0, 0, NULL);
  if (stamp)
    *stamp = ptimer;
  uint64_t *seen = pair_map_put(&c->kc_stop_of, in->ordinal, 1, 0, NULL);
  if (seen)
    *seen = (uint64_t)ts;
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
      seed_text_str(&p->states, ",");
    put_state_object(&p->states, s, line, len, ts);
    note_kernel_stop(c, s, in, ts);
    return;
  }
  /* its event was written already: a late state record */
  queue_begin(c);
  seed_text *t = &c->scratch;
  seed_text_fmt(t,
                "{\"recordType\":\"state\",\"eventId\":\"0x%" PRIx32
                "\",\"eventType\":\"%s\",\"late\":true,\"ctx\":null,"
                "\"commId\":null,\"rank\":-1",
                in->ordinal + 1, ev_type_json_name((ev_type)in->type));
  int64_t pid, tid;
  seed_text_fmt(t, ",\"pid\":%" PRId64 ",\"tid\":%" PRId64 ",\"state\":",
                js_to_i64(&s->pid, &pid) ? pid : c->pid,
                js_to_i64(&s->tid, &tid) ? tid : -1);
  put_state_object(t, s, line, len, ts);
  seed_text_str(t, "}");
  queue_line(c, line_no, false);
}

/* ---- events ---- */

/* The descriptor fields minimal_profiler names otherwise than ours, by
 * their names in its documentation or in the files it writes (NULL:
 * kept as it is). */
static const char *renamed(ev_type et, const js_value *k) {
  if (key_is(k, "seq"))
    return "seqNumber";
  if (key_is(k, "channels"))
    return "nChannels";
  if (key_is(k, "warps"))
    return "nWarps";
  if (key_is(k, "dtype"))
    return "datatype";
  if (et == ET_NET_PLUGIN && key_is(k, "id"))
    return "pluginId";
  if (et == ET_GROUP_API && key_is(k, "depth"))
    return "groupDepth";
  if ((et == ET_KERNEL_CH || et == ET_KERNEL_PHASE) && key_is(k, "channel"))
    return "channelId";
  return NULL;
}

/* A Coll/P2p's parentGroup pointer as the id of the Group live at `t`. */
static void put_parent_group(seed_conv *c, seed_text *t, const js_value *v,
                             int64_t at) {
  uint64_t addr;
  const incarnation *g =
      seed_pointer(v, &addr) && at != INT64_MIN ? inc_at(c, addr, at) : NULL;
  if (g && g->type == ET_GROUP) {
    seed_text_fmt(t, "\"parentGroupId\":\"0x%" PRIx32 "\"", g->ordinal + 1);
  } else {
    seed_text_str(t, "\"parentGroupRaw\":");
    seed_text_value(t, v);
  }
}

/* details, with minimal_profiler's names made ours (renamed() above,
 * parentGroup as parentGroupId); func is on the event. `at`: the event's
 * start. */
static void put_details(seed_conv *c, seed_text *t, const seed_line *s,
                        const char *line, ev_type et, const op_info *op,
                        int64_t at) {
  js_iter it;
  js_value k, v;
  seed_text_str(t, "{");
  bool first = true;
  bool has_peer = false, has_channel = false, has_send = false;
  if (s->details.type == JS_OBJECT &&
      js_object_begin(&it, s->details.ptr, s->details.ptr + s->details.len,
                      line))
    while (js_object_next(&it, &k, &v)) {
      if (key_is(&k, "func"))
        continue;
      if (!first)
        seed_text_str(t, ",");
      first = false;
      if ((et == ET_COLL || et == ET_P2P) && key_is(&k, "parentGroup")) {
        put_parent_group(c, t, &v, at);
        continue;
      }
      const char *rename = renamed(et, &k);
      if (rename)
        seed_text_fmt(t, "\"%s\"", rename);
      else
        seed_text_value(t, &k);
      seed_text_str(t, ":");
      has_peer = has_peer || key_is(&k, "peer");
      has_channel = has_channel || key_is(&k, "channelId");
      if (key_is(&k, "isSend") && send_flag(&v) >= 0) {
        has_send = true;
        seed_text_str(t, send_flag(&v) ? "true" : "false");
      } else {
        seed_text_value(t, &v);
      }
    }
  /* a ProxyStep repeats its ProxyOp's peer, channel and direction */
  if (op && !has_peer && op->peer != INT32_MIN) {
    seed_text_fmt(t, "%s\"peer\":%" PRId32, first ? "" : ",", op->peer);
    first = false;
  }
  if (op && !has_channel && op->channel != INT32_MIN) {
    seed_text_fmt(t, "%s\"channelId\":%" PRId32, first ? "" : ",", op->channel);
    first = false;
  }
  if (op && !has_send && op->is_send >= 0)
    seed_text_fmt(t, "%s\"isSend\":%s", first ? "" : ",",
                  op->is_send ? "true" : "false");
  seed_text_str(t, "}");
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

/* ---- what the derived timing and the GPU activity need ---- */

/* A key of the GPU an event ran on: its gpuUuid as written (an identity,
 * whatever its form), else its communicator rank. */
static uint64_t gpu_key(const seed_line *s, uint64_t comm, int64_t rank) {
  uint64_t h = 1469598103934665603u; /* FNV-1a */
  if (s->gpu_uuid.type == JS_STRING && s->gpu_uuid.len > 0) {
    for (size_t i = 0; i < s->gpu_uuid.len; i++)
      h = (h ^ (uint8_t)s->gpu_uuid.ptr[i]) * 1099511628211u;
    return h;
  }
  return (h ^ comm) * 1099511628211u ^ (uint64_t)rank;
}

/* A Coll/P2p's descriptor for its timing record. */
static void read_operation(st_op_info *op, const seed_line *s,
                           const char *line) {
  js_value func = func_of(s, line);
  js_str_copy(&func, op->func, sizeof op->func);
  js_iter it;
  js_value k, v;
  if (s->details.type != JS_OBJECT ||
      !js_object_begin(&it, s->details.ptr, s->details.ptr + s->details.len,
                       line))
    return;
  while (js_object_next(&it, &k, &v)) {
    if (key_is(&k, "seq") || key_is(&k, "seqNumber"))
      op->has_seq = js_to_u64(&v, &op->seq);
    else if (key_is(&k, "count"))
      op->has_count = js_to_u64(&v, &op->count);
    else if (key_is(&k, "dtype") || key_is(&k, "datatype"))
      js_str_copy(&v, op->datatype, sizeof op->datatype);
    else if (key_is(&k, "algo"))
      js_str_copy(&v, op->algo, sizeof op->algo);
    else if (key_is(&k, "proto"))
      js_str_copy(&v, op->proto, sizeof op->proto);
    else if (key_is(&k, "peer"))
      op->has_peer = js_to_i64(&v, &op->peer);
  }
}

static void note_operation(seed_conv *c, const seed_line *s, const char *line,
                           ev_type et, uint32_t ordinal, uint32_t ctx,
                           const incarnation *parent, const rec_point *start,
                           const rec_point *stop, uint64_t line_no) {
  st_op_info op;
  memset(&op, 0, sizeof op);
  op.ordinal = ordinal;
  op.type = (uint8_t)et;
  op.ctx = ctx;
  op.comm_id = comm_of(s);
  if (!js_to_i64(&s->rank, &op.rank))
    op.rank = -1;
  const uint64_t *n = pair_map_get(&c->nranks_of, op.comm_id, 0);
  op.nranks = n && *n > 1 ? (int32_t)(*n - 1) : 0;
  read_operation(&op, s, line);
  bool api =
      parent && (parent->type == ET_COLL_API || parent->type == ET_P2P_API);
  op.api_ts = api ? parent->start : INT64_MIN;
  op.enq_start = start->ts;
  op.enq_stop = stop->present ? stop->ts : INT64_MIN;
  op.has_launch =
      sl_launch_of_op(&c->launches, ctx, api ? parent->ordinal + 1 : 0,
                      start->ts, &op.launch_ext);
  op.line_no = line_no;
  st_op(c->timing, &op);
}

/* A KernelCh: its stamps for its operation's timing. */
static void note_channel(seed_conv *c, const seed_line *s, const char *line,
                         uint32_t ordinal, const incarnation *parent,
                         const rec_point *start) {
  uint64_t *stop = pair_map_get(&c->kc_stop_of, ordinal, 0);
  uint64_t *seen = pair_map_get(&c->kc_stop_of, ordinal, 1);
  bool has_stop = stop && seen;
  uint64_t pt_stop = has_stop ? *stop : 0;
  int64_t stop_seen = has_stop ? (int64_t)*seen : 0;
  pair_map_remove(&c->kc_stop_of, ordinal, 0);
  pair_map_remove(&c->kc_stop_of, ordinal, 1);
  if (!parent || (parent->type != ET_COLL && parent->type != ET_P2P))
    return;
  uint64_t pt_start = 0;
  bool has_start = false;
  js_iter it;
  js_value k, v;
  if (s->details.type == JS_OBJECT &&
      js_object_begin(&it, s->details.ptr, s->details.ptr + s->details.len,
                      line))
    while (js_object_next(&it, &k, &v))
      if (key_is(&k, "pTimer"))
        has_start = js_to_u64(&v, &pt_start);
  int64_t rank = -1;
  js_to_i64(&s->rank, &rank);
  if (has_start && start->present)
    st_channel(c->timing, parent->ordinal, gpu_key(s, comm_of(s), rank),
               start->ts, pt_start, has_stop, stop_seen, pt_stop);
}

static void note_event(seed_conv *c, const seed_line *s, const char *line,
                       ev_type et, uint32_t ordinal, uint32_t ctx,
                       const incarnation *parent, const rec_point *start,
                       const rec_point *stop, uint64_t line_no) {
  uint32_t group =
      parent && parent->type == ET_GROUP_API ? parent->ordinal + 1 : 0;
  bool of_op = parent && (parent->type == ET_COLL || parent->type == ET_P2P);
  switch (et) {
  case ET_KERNEL_LAUNCH:
    sl_launch_converted(&c->launches, ordinal, ctx, group, start->ts);
    break;
  case ET_COLL_API:
  case ET_P2P_API:
    sl_api_converted(&c->launches, ordinal, group);
    break;
  case ET_COLL:
  case ET_P2P:
    note_operation(c, s, line, et, ordinal, ctx, parent, start, stop, line_no);
    break;
  case ET_KERNEL_CH:
    note_channel(c, s, line, ordinal, parent, start);
    break;
  case ET_PROXY_OP:
    if (of_op)
      st_proxy_op(c->timing, parent->ordinal, start->ts,
                  stop->present ? stop->ts : INT64_MIN);
    break;
  default:
    break;
  }
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
  seed_text *t = &c->scratch;
  seed_text_fmt(t, "{\"recordType\":\"event\",\"type\":");
  if (et == ET_UNKNOWN)
    seed_text_str(t, "\"unknown\"");
  else
    seed_text_fmt(t, "\"%s\"", ev_type_json_name(et));
  seed_text_fmt(t, ",\"id\":\"0x%" PRIx32 "\"", ordinal + 1);
  /* the parent: the incarnation of parentObj live at this start */
  uint64_t paddr;
  const op_info *op = NULL;
  const incarnation *parent = NULL;
  if (!seed_pointer(&s->parent_obj, &paddr)) {
    seed_text_str(t, ",\"parentId\":null");
  } else if (pxn && et == ET_PROXY_OP) {
    /* PXN: the Coll/P2p is in the originating process's memory */
    seed_text_fmt(t,
                  ",\"parentId\":null,\"parentStatus\":\"foreign\","
                  "\"parentRaw\":\"0x%" PRIx64 "\"",
                  paddr);
  } else {
    const incarnation *p = start.present ? inc_at(c, paddr, start.ts) : NULL;
    if (p && p->ordinal != ordinal &&
        (ev_legal_parents(et) & (1u << p->type))) {
      parent = p;
      seed_text_fmt(t, ",\"parentId\":\"0x%" PRIx32 "\"", p->ordinal + 1);
      if (et == ET_PROXY_STEP && p->type == ET_PROXY_OP)
        op = op_of(c, p->ordinal);
    } else {
      seed_text_fmt(t,
                    ",\"parentId\":null,\"parentStatus\":\"unknown\","
                    "\"parentRaw\":\"0x%" PRIx64 "\"",
                    paddr);
    }
  }
  if (pxn)
    seed_text_fmt(t, ",\"ctx\":null,\"commId\":null,\"rank\":%" PRId64, rank);
  else
    seed_text_fmt(t,
                  ",\"ctx\":%" PRIu32 ",\"commId\":\"0x%" PRIx64
                  "\",\"rank\":%" PRId64,
                  ctx, comm, rank);
  if (pxn) {
    int64_t origin;
    seed_text_str(t, ",\"isPxn\":true");
    if (js_to_i64(&s->origin_pid, &origin))
      seed_text_fmt(t, ",\"originPid\":%" PRId64, origin);
  }
  if (present(&s->ext_corr_id)) { /* KernelLaunch: names its CUPTI kernel */
    seed_text_str(t, ",\"extCorrId\":");
    seed_text_value(t, &s->ext_corr_id);
  }
  if (has_func(et)) {
    js_value func = func_of(s, line);
    if (func.type == JS_STRING) {
      seed_text_str(t, ",\"func\":");
      seed_text_value(t, &func);
    }
  }
  bool had_start = start.present;
  if (!start.present) { /* not a valid event: keep what there is */
    start.present = true;
    start.ts = stop.present ? stop.ts : c->last_ts;
  }
  seed_text_str(t, ",\"start\":");
  seed_text_point(t, &start);
  if (stop.present) {
    seed_text_str(t, ",\"stop\":");
    seed_text_point(t, &stop);
    seed_text_str(t, ",\"duration\":");
    seed_text_ts(t, stop.ts - start.ts);
    seed_text_str(t, ",\"end\":\"stopped\"");
  } else {
    seed_text_str(t, ",\"stop\":null,\"duration\":null,\"end\":\"inflight\"");
    seed_text_str(t, ",\"endTs\":");
    seed_text_ts(t, start.ts);
  }
  seed_text_str(t, ",\"details\":");
  put_details(c, t, s, line, et, op, start.ts);
  pending *p = pending_for(c, ordinal, false);
  if (p) {
    if (p->states.len) {
      seed_text_str(t, ",\"states\":[");
      seed_text_put(t, p->states.p, p->states.len);
      seed_text_str(t, "]");
    }
    pending_release(c, ordinal, p);
  }
  seed_text_str(t, "}");
  queue_line(c, line_no, false);
  if (!pxn && had_start)
    note_event(c, s, line, et, ordinal, ctx, parent, &start, &stop, line_no);
}

/* At the end: processEnd when every communicator was finalized (the
 * format writes no end record; a file whose communicators are still open
 * stays without one, as a killed process's file does). */
static void convert_end(seed_conv *c, uint64_t line_no) {
  if (c->inits == 0 || c->open_ctxs != 0)
    return;
  uint32_t n = c->next_ordinal;
  queue_begin(c);
  seed_text *t = &c->scratch;
  seed_text_str(t, "{\"recordType\":\"processEnd\",\"ts\":");
  seed_text_ts(t, c->last_ts);
  seed_text_fmt(t,
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
/* A line as it is, so that `check` reports it where it is. */
static void pass_unchanged(seed_conv *c, tr_file *f) {
  queue_begin(c);
  seed_text_put(&c->scratch, f->line, f->line_len);
  queue_line(c, f->line_no, f->line_unterminated);
}

/* ---- GPU activity (CUPTI) ---- */

/* A CUPTI activity record as a `gpuActivity` record, tied to the
 * KernelLaunch its extCorrId names (seed_launch.h); a kernel also goes to
 * the derived timing of its launch's operations. False when it has no
 * start and stop (then it is passed as it is). */
static bool convert_activity(seed_conv *c, const seed_line *s, const char *line,
                             uint64_t line_no) {
  rec_point start = {0}, stop = {0};
  if (!point_ts(c, &s->start, line, &start) ||
      !point_ts(c, &s->stop, line, &stop))
    return false;
  if (stop.ts > c->last_ts)
    c->last_ts = stop.ts;
  int64_t ext = -1, corr = -1, device = -1, rank = -1;
  bool has_ext = js_to_i64(&s->ext_corr_id, &ext);
  if (!js_to_i64(&s->corr_id, &corr))
    corr = -1;
  if (!js_to_i64(&s->device_id, &device))
    device = -1;
  uint32_t launch = 0, ctx = 0;
  uint64_t comm = 0;
  bool tied = has_ext &&
              sl_launch_by_ext(&c->launches, ext, &launch, &comm, &rank, &ctx);
  if (tied && ctx == 0)
    ctx = ctx_lookup(c, comm, rank);
  queue_begin(c);
  seed_text *t = &c->scratch;
  seed_text_str(t, "{\"recordType\":\"gpuActivity\",\"source\":\"cupti\","
                   "\"kind\":");
  if (s->type.type == JS_STRING)
    seed_text_value(t, &s->type);
  else
    seed_text_str(t, "null");
  seed_text_str(t, ",\"name\":");
  if (s->name.type == JS_STRING)
    seed_text_value(t, &s->name);
  else
    seed_text_str(t, "null");
  seed_text_fmt(t, ",\"device\":%" PRId64 ",\"stream\":", device);
  if (s->stream.type == JS_STRING || s->stream.type == JS_NUMBER)
    seed_text_value(t, &s->stream);
  else
    seed_text_str(t, "null");
  seed_text_fmt(t, ",\"corrId\":%" PRId64 ",\"extCorrId\":", corr);
  if (has_ext)
    seed_text_fmt(t, "%" PRId64, ext);
  else
    seed_text_str(t, "null");
  if (tied) {
    seed_text_fmt(t, ",\"launchId\":\"0x%" PRIx32 "\"", launch + 1);
    if (ctx)
      seed_text_fmt(t, ",\"ctx\":%" PRIu32, ctx);
    else
      seed_text_str(t, ",\"ctx\":null");
    seed_text_fmt(t, ",\"commId\":\"0x%" PRIx64 "\",\"rank\":%" PRId64, comm,
                  rank);
  } else {
    seed_text_str(t, ",\"launchId\":null,\"ctx\":null,\"commId\":null,"
                     "\"rank\":-1");
  }
  seed_text_span(t, &start, &stop);
  seed_text_str(t, ",\"details\":");
  if (s->details.type == JS_OBJECT)
    seed_text_value(t, &s->details);
  else
    seed_text_str(t, "{}");
  seed_text_str(t, ",\"convertedFrom\":\"minimal_profiler\"}");
  queue_line(c, line_no, false);
  bool kernel =
      js_str_eq(&s->type, "KERNEL") || js_str_eq(&s->type, "CONCURRENT_KERNEL");
  if (kernel && has_ext) {
    st_kernel_info k = {ext, corr, device, "", start.ts, stop.ts};
    if (s->stream.type == JS_STRING)
      js_str_copy(&s->stream, k.stream, sizeof k.stream);
    else if (s->stream.type == JS_NUMBER && s->stream.len < sizeof k.stream)
      memcpy(k.stream, s->stream.ptr, s->stream.len);
    st_kernel(c->timing, &k);
  }
  return true;
}

/* One raw line of pass 2 into the queue. */
static void convert_line(seed_conv *c, tr_file *f) {
  seed_line s;
  uint64_t line_no = f->line_no;
  seed_kind kind =
      seed_decode(&s, f->line, f->line_len) ? kind_of(&s) : SL_OTHER;
  switch (kind) {
  case SL_STATE:
    convert_state(c, &s, f->line, f->line_len, line_no);
    break;
  case SL_LIFECYCLE:
    convert_lifecycle(c, &s, f->line, line_no);
    break;
  case SL_EVENT:
    convert_event(c, &s, f->line, line_no);
    break;
  case SL_ACTIVITY:
    if (!convert_activity(c, &s, f->line, line_no))
      pass_unchanged(c, f);
    break;
  default:
    /* not JSON, or a record this conversion does not know */
    pass_unchanged(c, f);
    break;
  }
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
  pair_map_init(&c->nranks_of);
  pair_map_init(&c->kc_stop_of);
  sl_init(&c->launches);
  js_fields_init(&c->point);
  c->timing = st_new();
  if (!c->timing) {
    seed_conv_free(c);
    return NULL;
  }
  return c;
}

void seed_conv_free(seed_conv *c) {
  if (!c)
    return;
  free(c->inc);
  free(c->ops);
  pair_map_free(&c->ctx_of);
  pair_map_free(&c->pending_of);
  pair_map_free(&c->nranks_of);
  pair_map_free(&c->kc_stop_of);
  sl_free(&c->launches);
  st_free(c->timing);
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
        if (!st_finish(c->timing)) {
          f->error = ENOMEM;
          return -1;
        }
        c->phase = 4;
        break;
      }
      convert_line(c, f);
      break;
    }
    case 4: {
      /* the derived timing records, one at a time, then the end */
      uint64_t line_no;
      queue_begin(c);
      if (st_next(c->timing, &c->scratch, &line_no)) {
        queue_line(c, line_no, false);
        break;
      }
      convert_end(c, c->raw_line_no);
      report_orphans(c, f);
      c->phase = 3;
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
