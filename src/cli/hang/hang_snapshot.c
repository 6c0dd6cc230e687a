/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/hang/hang_snapshot.c — reading one in-flight snapshot
 * (inflight_*.json, docs/hang.md) into the hang data model with the CLI's
 * own JSON scanner: the process, its communicators with their progress per
 * function, and its operations in flight reduced to what they wait on (the
 * head of each ProxyStep pipeline).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hang/hang.h"
#include "nccl_names.h"
#include "read/jsonl_scan.h"

#define MAX_SNAPSHOT_BYTES (256u << 20)

typedef struct {
  const char *base; /* start of the text, for the scanner's offsets */
  const char *path;
} ctx;

/* One ProxyStep as listed in an operation's events. */
typedef struct {
  uint64_t id;
  int64_t channel, peer, step;
  bool is_send;
  char state[HANG_STATE];
  double idle_s;
  int64_t since_ns;
} step_ev;

typedef struct {
  step_ev *v;
  size_t n, cap;
} step_list;

static char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  char *buf = NULL;
  size_t n = 0, cap = 0;
  for (;;) {
    if (n + 65536 > cap) {
      cap = cap ? cap * 2 : 65536 * 2;
      char *nb = cap <= MAX_SNAPSHOT_BYTES ? realloc(buf, cap + 1) : NULL;
      if (!nb) {
        free(buf);
        fclose(f);
        errno = ENOMEM;
        return NULL;
      }
      buf = nb;
    }
    size_t got = fread(buf + n, 1, cap - n, f);
    n += got;
    if (got == 0)
      break;
  }
  bool err = ferror(f);
  fclose(f);
  if (err) {
    free(buf);
    errno = EIO;
    return NULL;
  }
  buf[n] = '\0';
  *len = n;
  return buf;
}

static bool key_is(const js_value *k, const char *name) {
  return js_str_eq(k, name);
}

static void copy_str(const js_value *v, char *buf, size_t cap) {
  if (!js_str_copy(v, buf, cap))
    buf[0] = '\0';
}

/* ---- communicators ---- */

static void read_progress(hang_db *db, size_t mi, const ctx *c,
                          const js_value *arr) {
  js_iter it, ot;
  js_value el, k, v;
  if (!js_array_begin(&it, arr->ptr, arr->ptr + arr->len, c->base))
    return;
  while (js_array_next(&it, &el)) {
    if (el.type != JS_OBJECT ||
        !js_object_begin(&ot, el.ptr, el.ptr + el.len, c->base))
      continue;
    hang_progress p;
    memset(&p, 0, sizeof p);
    while (js_object_next(&ot, &k, &v)) {
      if (key_is(&k, "func"))
        copy_str(&v, p.func, sizeof p.func);
      else if (key_is(&k, "started"))
        js_to_u64(&v, &p.started);
      else if (key_is(&k, "finished"))
        js_to_u64(&v, &p.finished);
      else if (key_is(&k, "lastStartedSeq"))
        p.has_started_seq = js_to_u64(&v, &p.last_started);
      else if (key_is(&k, "lastFinishedSeq"))
        p.has_finished_seq = js_to_u64(&v, &p.last_finished);
    }
    hang_progress *dst = hang_member_progress(&db->members[mi], p.func);
    if (dst)
      *dst = p;
  }
}

static void read_communicators(hang_db *db, size_t si, const ctx *c,
                               const js_value *arr) {
  js_iter it, ot;
  js_value el, k, v;
  if (!js_array_begin(&it, arr->ptr, arr->ptr + arr->len, c->base))
    return;
  while (js_array_next(&it, &el)) {
    if (el.type != JS_OBJECT ||
        !js_object_begin(&ot, el.ptr, el.ptr + el.len, c->base))
      continue;
    uint64_t comm = 0;
    bool has_comm = false, finalized = false;
    int64_t rank = -1, nranks = 0;
    char name[HANG_NAME] = "";
    js_value progress = {0};
    while (js_object_next(&ot, &k, &v)) {
      if (key_is(&k, "commId"))
        has_comm = js_to_hex_u64(&v, &comm);
      else if (key_is(&k, "commName"))
        copy_str(&v, name, sizeof name);
      else if (key_is(&k, "rank"))
        js_to_i64(&v, &rank);
      else if (key_is(&k, "nranks"))
        js_to_i64(&v, &nranks);
      else if (key_is(&k, "finalized"))
        js_to_bool(&v, &finalized);
      else if (key_is(&k, "progress") && v.type == JS_ARRAY)
        progress = v;
    }
    if (!has_comm || rank < 0)
      continue; /* ABI v1-v3: no communicator details to match ranks by */
    hang_member *m = hang_db_member(db, si, comm, rank);
    if (!m)
      continue;
    memcpy(m->comm_name, name, sizeof name);
    m->nranks = nranks;
    m->finalized = finalized;
    if (progress.type == JS_ARRAY)
      read_progress(db, (size_t)(m - db->members), c, &progress);
  }
}

/* ---- operations ---- */

static void read_event(const ctx *c, const js_value *obj, step_list *steps,
                       hang_op *op) {
  js_iter it;
  js_value k, v;
  if (obj->type != JS_OBJECT ||
      !js_object_begin(&it, obj->ptr, obj->ptr + obj->len, c->base))
    return;
  step_ev s;
  memset(&s, 0, sizeof s);
  s.channel = s.peer = s.step = -1;
  char type[HANG_NAME] = "", dir[8] = "";
  while (js_object_next(&it, &k, &v)) {
    if (key_is(&k, "id"))
      js_to_hex_u64(&v, &s.id);
    else if (key_is(&k, "type"))
      copy_str(&v, type, sizeof type);
    else if (key_is(&k, "idle"))
      js_to_double(&v, &s.idle_s);
    else if (key_is(&k, "lastProgress"))
      js_to_ns(&v, &s.since_ns);
    else if (key_is(&k, "step"))
      js_to_i64(&v, &s.step);
    else if (key_is(&k, "channel"))
      js_to_i64(&v, &s.channel);
    else if (key_is(&k, "peer"))
      js_to_i64(&v, &s.peer);
    else if (key_is(&k, "direction"))
      copy_str(&v, dir, sizeof dir);
    else if (key_is(&k, "state"))
      copy_str(&v, s.state, sizeof s.state);
  }
  int etype = nccl_event_from_json_str(type);
  if (etype == NCCL_EV_PROXY_OP)
    op->proxy_ops++;
  else if (etype == NCCL_EV_KERNEL_CH)
    op->kernel_chs++;
  if (etype != NCCL_EV_PROXY_STEP || s.step < 0 || s.peer < 0)
    return;
  for (size_t i = 0; i < steps->n; i++)
    if (steps->v[i].id == s.id)
      return; /* the waitingEvent is also in events[] */
  op->proxy_steps++;
  s.is_send = strcmp(dir, "send") == 0;
  if (steps->n == steps->cap) {
    size_t ncap = steps->cap ? steps->cap * 2 : 64;
    step_ev *nv = realloc(steps->v, ncap * sizeof *nv);
    if (!nv)
      return;
    steps->v = nv;
    steps->cap = ncap;
  }
  steps->v[steps->n++] = s;
}

static bool same_pipe(const step_ev *s, const hang_head *h) {
  return s->channel == h->channel && s->peer == h->peer &&
         s->is_send == h->is_send;
}

/* The head of each (channel, direction, peer): its lowest step in flight,
 * the one the pipeline waits for first. */
static void make_heads(hang_op *op, const step_list *steps) {
  op->last_other_step_ns = INT64_MIN;
  for (size_t i = 0; i < steps->n; i++) {
    const step_ev *s = &steps->v[i];
    hang_wait w = hang_wait_of_state(s->state);
    bool first_arrival =
        s->step == 0 && (w == HW_GPU_CONSUME || w == HW_GPU_FLUSH);
    if (!first_arrival && s->since_ns > op->last_other_step_ns)
      op->last_other_step_ns = s->since_ns;
  }
  if (steps->n == 0)
    return;
  op->heads = calloc(steps->n, sizeof *op->heads);
  if (!op->heads)
    return;
  for (size_t i = 0; i < steps->n; i++) {
    const step_ev *s = &steps->v[i];
    hang_head *h = NULL;
    for (size_t j = 0; j < op->nheads && !h; j++)
      if (same_pipe(s, &op->heads[j]))
        h = &op->heads[j];
    if (!h) {
      h = &op->heads[op->nheads++];
      h->channel = s->channel;
      h->peer = s->peer;
      h->is_send = s->is_send;
      h->step = INT64_MAX;
      h->runner_pid = -1;
    }
    h->steps_in_flight++;
    if (s->step < h->step) {
      h->step = s->step;
      memcpy(h->state, s->state, sizeof h->state);
      h->wait = hang_wait_of_state(s->state);
      h->idle_s = s->idle_s;
      h->since_ns = s->since_ns;
    }
  }
}

static bool push_op(hang_op **ops, size_t *n, const hang_op *op) {
  hang_op *p = realloc(*ops, (*n + 1) * sizeof *p);
  if (!p)
    return false;
  *ops = p;
  p[(*n)++] = *op;
  return true;
}

static void read_operation(hang_db *db, size_t si, const ctx *c,
                           const js_value *obj, step_list *steps) {
  js_iter it;
  js_value k, v;
  if (obj->type != JS_OBJECT ||
      !js_object_begin(&it, obj->ptr, obj->ptr + obj->len, c->base))
    return;
  hang_op op;
  memset(&op, 0, sizeof op);
  op.peer = op.rank = op.origin_pid = -1;
  uint64_t comm = 0;
  bool has_comm = false;
  js_value events = {0}, waiting_event = {0};
  while (js_object_next(&it, &k, &v)) {
    if (key_is(&k, "type"))
      copy_str(&v, op.type, sizeof op.type);
    else if (key_is(&k, "commId"))
      has_comm = js_to_hex_u64(&v, &comm);
    else if (key_is(&k, "rank"))
      js_to_i64(&v, &op.rank);
    else if (key_is(&k, "func"))
      copy_str(&v, op.func, sizeof op.func);
    else if (key_is(&k, "seqNumber"))
      op.has_seq = js_to_u64(&v, &op.seq);
    else if (key_is(&k, "peer"))
      js_to_i64(&v, &op.peer);
    else if (key_is(&k, "count"))
      op.has_count = js_to_u64(&v, &op.count);
    else if (key_is(&k, "datatype"))
      copy_str(&v, op.datatype, sizeof op.datatype);
    else if (key_is(&k, "root"))
      op.has_root = js_to_i64(&v, &op.root);
    else if (key_is(&k, "originPid"))
      js_to_i64(&v, &op.origin_pid);
    else if (key_is(&k, "age"))
      js_to_double(&v, &op.age_s);
    else if (key_is(&k, "lastProgress"))
      js_to_ns(&v, &op.last_progress_ns);
    else if (key_is(&k, "idle"))
      js_to_double(&v, &op.idle_s);
    else if (key_is(&k, "hung"))
      js_to_bool(&v, &op.hung);
    else if (key_is(&k, "waiting"))
      copy_str(&v, op.waiting, sizeof op.waiting);
    else if (key_is(&k, "waitingEvent"))
      waiting_event = v;
    else if (key_is(&k, "eventsInFlight")) {
      uint64_t n = 0;
      js_to_u64(&v, &n);
      op.events_in_flight = (size_t)n;
    } else if (key_is(&k, "events") && v.type == JS_ARRAY)
      events = v;
  }
  steps->n = 0;
  if (events.type == JS_ARRAY) {
    js_iter at;
    js_value el;
    if (js_array_begin(&at, events.ptr, events.ptr + events.len, c->base))
      while (js_array_next(&at, &el)) {
        op.events_listed++;
        read_event(c, &el, steps, &op);
      }
  }
  if (waiting_event.type == JS_OBJECT) {
    hang_op scratch = op; /* counted once, in events[] */
    read_event(c, &waiting_event, steps, &scratch);
    op.proxy_steps = scratch.proxy_steps;
  }
  make_heads(&op, steps);
  op.pxn = nccl_event_from_json_str(op.type) == NCCL_EV_PROXY_OP &&
           op.origin_pid >= 0;
  const hang_source *src = &db->sources[si];
  int64_t last = op.last_progress_ns ? op.last_progress_ns
                                     : src->ts_ns - (int64_t)(op.idle_s * 1e9);
  for (size_t i = 0; i < op.nheads; i++) {
    if (op.pxn)
      op.heads[i].runner_pid = src->pid; /* its proxy is ours */
    op.heads[i].seen_ns = src->ts_ns;
    op.heads[i].op_last_ns = last;
  }
  if (op.hung)
    db->hung_ops++;
  bool ok;
  if (has_comm && op.rank >= 0) {
    hang_member *m = hang_db_member(db, si, comm, op.rank);
    ok = m && push_op(&m->ops, &m->nops, &op);
  } else {
    hang_source *s = &db->sources[si];
    ok = push_op(&s->orphans, &s->norphans, &op);
  }
  if (!ok)
    free(op.heads);
}

/* ---- the file ---- */

bool hang_read_snapshot(hang_db *db, const char *path) {
  size_t len = 0;
  char *text = slurp(path, &len);
  if (!text) {
    fprintf(stderr, "cclscope hang: cannot read '%s': %s\n", path,
            strerror(errno));
    return false;
  }
  ctx c = {text, path};
  js_iter it;
  js_value k, v;
  bool is_snapshot = false;
  js_value comms = {0}, ops = {0};
  hang_source tmp;
  memset(&tmp, 0, sizeof tmp);
  tmp.pid = -1;
  if (js_object_begin(&it, text, text + len, text)) {
    while (js_object_next(&it, &k, &v)) {
      if (key_is(&k, "recordType"))
        is_snapshot = js_str_eq(&v, "inflight");
      else if (key_is(&k, "reason"))
        copy_str(&v, tmp.reason, sizeof tmp.reason);
      else if (key_is(&k, "hostname"))
        copy_str(&v, tmp.hostname, sizeof tmp.hostname);
      else if (key_is(&k, "pid"))
        js_to_i64(&v, &tmp.pid);
      else if (key_is(&k, "ts"))
        js_to_ns(&v, &tmp.ts_ns);
      else if (key_is(&k, "hangTimeout"))
        js_to_double(&v, &tmp.timeout_s);
      else if (key_is(&k, "communicators") && v.type == JS_ARRAY)
        comms = v;
      else if (key_is(&k, "operations") && v.type == JS_ARRAY)
        ops = v;
    }
  }
  if (it.error || !is_snapshot) {
    if (it.error)
      fprintf(stderr,
              "cclscope hang: '%s' is not an in-flight snapshot: %s at "
              "byte %zu\n",
              path, it.error, it.error_at);
    else
      fprintf(stderr,
              "cclscope hang: '%s' is not an in-flight snapshot (no "
              "\"recordType\":\"inflight\")\n",
              path);
    free(text);
    return false;
  }
  hang_source *s = hang_db_add_source(db, path);
  if (!s) {
    free(text);
    fprintf(stderr, "cclscope hang: out of memory\n");
    return false;
  }
  char *keep = s->path;
  *s = tmp;
  s->path = keep;
  s->last_ts_ns = INT64_MIN;
  size_t si = db->nsources - 1;
  db->snapshots++;
  if (db->snapshots == 1 || tmp.ts_ns > db->newest_ts_ns)
    db->newest_ts_ns = tmp.ts_ns;
  if (db->snapshots == 1 || tmp.ts_ns < db->oldest_ts_ns)
    db->oldest_ts_ns = tmp.ts_ns;
  if (comms.type == JS_ARRAY)
    read_communicators(db, si, &c, &comms);
  if (ops.type == JS_ARRAY) {
    step_list steps = {NULL, 0, 0};
    js_iter at;
    js_value el;
    if (js_array_begin(&at, ops.ptr, ops.ptr + ops.len, c.base))
      while (js_array_next(&at, &el))
        read_operation(db, si, &c, &el, &steps);
    free(steps.v);
  }
  free(text);
  return true;
}
