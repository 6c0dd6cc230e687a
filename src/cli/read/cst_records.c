/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/read/cst_records.c — a binary trace's records back into lines
 * (see cst_records.h).
 */
#include "read/cst_records.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cst_format.h"
#include "read/line_members.h"
#include "read/trace_codec.h"
#include "trace_accounting.h"
#include "trace_compact_codec.h"
#include "trace_fmt.h"

/* Strings live in blocks that never move while a frame is read. */
typedef struct str_block {
  struct str_block *next;
  size_t used, cap;
  char data[];
} str_block;

enum { STR_BLOCK = 64 << 10 };

typedef struct {
  uint32_t serial;
  cs_fmt_comm comm; /* comm_name points at name */
  char *name;
  /* described again in the frame with other communicator info (a file
   * the plugin does not write): the formatter may keep the first's text,
   * so its events' lines are parsed rather than decoded from the record */
  bool redescribed;
} ctx_entry;

struct cst_records {
  bool gpu_deltas; /* version 3's layout (cs_cx.gpu_deltas) */
  cs_fmt fmt;
  bool started; /* the frame's writer record was read */
  cs_cx_prev prev;
  /* the frame's string table */
  const char **strs;
  uint32_t nstrs, strs_cap;
  str_block *blocks;
  /* the contexts the frame described */
  ctx_entry *ctxs;
  uint32_t nctxs, ctxs_cap;
  /* one event's states, decoded */
  cs_state_rec *states;
  int64_t *state_ns;
  uint32_t states_cap;
  /* the lines made */
  char *text;
  size_t text_len, text_cap;
  bool oom;
  /* the event lines among them, decoded (cst_records_decoded), and where
   * the formatter says the members of the last one begin */
  cs_fmt_members members;
  cst_decoded_line *lines;
  size_t nlines, lines_cap;
  /* the frame being read (cst_records_begin): its payload, kept by the
   * caller, how far its records were read, and how many */
  const unsigned char *payload;
  size_t payload_len, at;
  bool whole;
  uint32_t records, count;
  bool done; /* every record of it was read (or an error ended it) */
};

cst_records *cst_records_new(unsigned version) {
  cst_records *r = calloc(1, sizeof(cst_records));
  if (r)
    r->gpu_deltas = version >= 3;
  return r;
}

static void forget_frame(cst_records *r) {
  while (r->blocks) {
    str_block *b = r->blocks;
    r->blocks = b->next;
    free(b);
  }
  r->nstrs = 0;
  for (uint32_t i = 0; i < r->nctxs; i++)
    free(r->ctxs[i].name);
  r->nctxs = 0;
  memset(&r->prev, 0, sizeof r->prev);
  r->started = false;
}

void cst_records_free(cst_records *r) {
  if (!r)
    return;
  forget_frame(r);
  free((char *)r->fmt.run_id);
  free((char *)r->fmt.hostname);
  free(r->strs);
  free(r->ctxs);
  free(r->states);
  free(r->state_ns);
  free(r->text);
  free(r->lines);
  free(r);
}

/* A copy of s[0, n) with its NUL, in the frame's blocks; NULL without
 * memory. */
static const char *keep_string(cst_records *r, const unsigned char *s,
                               size_t n) {
  str_block *b = r->blocks;
  if (!b || b->cap - b->used < n + 1) {
    size_t cap = n + 1 > STR_BLOCK ? n + 1 : STR_BLOCK;
    b = malloc(sizeof *b + cap);
    if (!b)
      return NULL;
    b->next = r->blocks;
    b->used = 0;
    b->cap = cap;
    r->blocks = b;
  }
  char *out = b->data + b->used;
  memcpy(out, s, n);
  out[n] = '\0';
  b->used += n + 1;
  return out;
}

/* The reading side of the string references (put_str in trace_compact.c):
 * 0 NULL, even an index + 1, odd a new string of that length. */
static void get_str(cs_cx *cx, const char **s) {
  cst_records *r = cx->arg;
  uint64_t v = 0;
  cs_cx_u64(cx, &v);
  *s = NULL;
  if (cx->bad || v == 0)
    return;
  if (!(v & 1)) {
    uint64_t index = (v >> 1) - 1;
    if (index >= r->nstrs)
      cx->bad = true;
    else
      *s = r->strs[index];
    return;
  }
  uint64_t len = v >> 1;
  if (len > (uint64_t)(cx->end - cx->in)) {
    cx->bad = true;
    return;
  }
  if (r->nstrs == r->strs_cap) {
    uint32_t cap = r->strs_cap ? 2 * r->strs_cap : 64;
    const char **p = realloc(r->strs, cap * sizeof *p);
    if (!p) {
      r->oom = cx->bad = true;
      return;
    }
    r->strs = p;
    r->strs_cap = cap;
  }
  const char *copy = keep_string(r, cx->in, (size_t)len);
  if (!copy) {
    r->oom = cx->bad = true;
    return;
  }
  cx->in += len;
  r->strs[r->nstrs++] = copy;
  *s = copy;
}

static bool states_room(cs_cx *cx, uint32_t n, cs_state_rec **states,
                        int64_t **state_ns) {
  cst_records *r = cx->arg;
  /* Every state takes at least 3 bytes: a count beyond that is corrupt. */
  if (n > (size_t)(cx->end - cx->in))
    return false;
  if (n > r->states_cap) {
    cs_state_rec *s = realloc(r->states, n * sizeof *s);
    if (s)
      r->states = s;
    int64_t *ns = realloc(r->state_ns, 2 * (size_t)n * sizeof *ns);
    if (ns)
      r->state_ns = ns;
    if (!s || !ns) {
      r->oom = true;
      return false;
    }
    r->states_cap = n;
  }
  memset(r->states, 0, n * sizeof *r->states);
  *states = r->states;
  *state_ns = r->state_ns;
  return true;
}

/* Context `ctx` as the frame described it (NULL: not described). */
static const ctx_entry *lookup_ctx(const cst_records *r, uint32_t ctx) {
  for (uint32_t i = 0; i < r->nctxs; i++)
    if (r->ctxs[i].serial == ctx)
      return &r->ctxs[i];
  return NULL;
}

static const cs_fmt_comm *lookup_comm(const cst_records *r, uint32_t ctx) {
  const ctx_entry *e = lookup_ctx(r, ctx);
  return e ? &e->comm : NULL;
}

/* Room for `n` more bytes of text. */
static bool text_room(cst_records *r, size_t n) {
  if (r->text_cap - r->text_len >= n)
    return true;
  size_t cap = r->text_cap ? r->text_cap : 1 << 20;
  while (cap - r->text_len < n)
    cap *= 2;
  char *p = realloc(r->text, cap);
  if (!p)
    return false;
  r->text = p;
  r->text_cap = cap;
  return true;
}

static cs_cx reader(cst_records *r, const unsigned char *body, size_t len) {
  return (cs_cx){.reading = true,
                 .in = body,
                 .end = body + len,
                 .prev = &r->prev,
                 .gpu_deltas = r->gpu_deltas,
                 .str = get_str,
                 .states = states_room,
                 .arg = r};
}

static int read_writer(cst_records *r, cs_cx *cx) {
  forget_frame(r);
  cs_fmt f = {.default_abi = 6};
  cs_cx_writer(cx, &f);
  if (cx->bad)
    return r->oom ? ENOMEM : TC_ERR_CORRUPT;
  /* The strings outlive the frame's table: the formatter keeps them. */
  free((char *)r->fmt.run_id);
  free((char *)r->fmt.hostname);
  f.run_id = f.run_id ? strdup(f.run_id) : NULL;
  f.hostname = f.hostname ? strdup(f.hostname) : NULL;
  r->fmt = f;
  cs_fmt_init(&r->fmt);
  r->started = true;
  return 0;
}

static int read_context(cst_records *r, cs_cx *cx) {
  uint32_t serial = 0;
  cs_fmt_comm m = {0};
  cs_cx_context(cx, &serial, &m);
  if (cx->bad)
    return r->oom ? ENOMEM : TC_ERR_CORRUPT;
  /* A context's name is shorter (hot/context.h): the timing line's room
   * (cs_fmt_timing_max) counts on it. */
  if (m.comm_name && strlen(m.comm_name) >= CS_FMT_COMM_NAME_MAX)
    return TC_ERR_CORRUPT;
  ctx_entry *e = NULL;
  for (uint32_t i = 0; i < r->nctxs && !e; i++)
    if (r->ctxs[i].serial == serial)
      e = &r->ctxs[i];
  if (!e) {
    if (r->nctxs == r->ctxs_cap) {
      uint32_t cap = r->ctxs_cap ? 2 * r->ctxs_cap : 16;
      ctx_entry *p = realloc(r->ctxs, cap * sizeof *p);
      if (!p)
        return ENOMEM;
      r->ctxs = p;
      r->ctxs_cap = cap;
    }
    e = &r->ctxs[r->nctxs++];
    e->name = NULL;
    e->redescribed = false;
  } else if (e->comm.has_comm_info != m.has_comm_info ||
             e->comm.comm_id != m.comm_id) {
    e->redescribed = true;
  }
  free(e->name);
  e->serial = serial;
  e->comm = m;
  e->name = strdup(m.comm_name ? m.comm_name : "");
  if (!e->name) {
    r->nctxs--;
    return ENOMEM;
  }
  e->comm.comm_name = e->name;
  return 0;
}

/* A time the line carries exactly as rec_decode reads it back: epoch
 * microseconds with three decimals, of a non-negative time that the
 * plain form holds (trace_record.c's plain_time_ns). */
static bool plain_time(int64_t ns) {
  return ns >= 0 && ns <= INT64_C(9000000000000000000);
}

/* The record rec_decode makes of the line cs_fmt_event made of `e`
 * (trace_fmt.c), from what the line was made of: the same fields, key by
 * key. False for times the text would not carry back exactly: that line
 * is parsed. */
static bool event_rec(const cst_records *r, const cs_event *e,
                      const cs_fmt_comm *comm, const cs_fmt_times *t,
                      rec *out) {
  bool stopped = e->end == CS_END_STOPPED;
  if (e->etype >= CS_EV_COUNT || !plain_time(t->start_ns) ||
      !plain_time(t->end_ns))
    return false;
  memset(out, 0, sizeof *out);
  out->rt = RT_EVENT;
  out->et = (ev_type)e->etype; /* the same numbering (NCCL's bits) */
  out->has_id = true;
  out->id = e->id;
  switch (e->parent_kind) { /* cur_parent */
  case CS_PARENT_LOCAL:
    out->parent = e->parent_hint ? PAR_UNKNOWN : PAR_LOCAL;
    if (e->parent_hint)
      out->parent_raw = e->parent;
    else
      out->parent_id = e->parent;
    break;
  case CS_PARENT_FOREIGN:
    out->parent = PAR_FOREIGN;
    out->parent_raw = e->parent;
    break;
  case CS_PARENT_UNKNOWN:
    out->parent = PAR_UNKNOWN;
    out->parent_raw = e->parent;
    break;
  case CS_PARENT_DROPPED:
    out->parent = PAR_DROPPED;
    break;
  default:
    out->parent = PAR_NONE;
    break;
  }
  if (comm) { /* cur_comm: "ctx":null,"commId":null without one */
    out->has_ctx = true;
    out->ctx = (int64_t)e->ctx;
    out->has_comm = comm->has_comm_info;
    out->comm_id = comm->has_comm_info ? comm->comm_id : 0;
  }
  out->rank = e->rank;
  out->start = (rec_point){t->start_ns, r->fmt.pid, e->start_tid, true};
  if (stopped) {
    out->stop = (rec_point){t->end_ns, r->fmt.pid, e->stop_tid, true};
    out->end = END_STOPPED;
  } else {
    out->stop = (rec_point){0, -1, -1, false}; /* "stop":null */
    out->end = e->end == CS_END_RECLAIMED ? END_RECLAIMED : END_INFLIGHT;
    out->has_end_ts = true;
    out->end_ts = t->end_ns;
  }
  return true;
}

/* The event line just made at line[0, len) of `e`, decoded, kept for
 * cst_records_decoded; without memory (or times its text would not carry
 * back exactly) the line simply comes without and is parsed as any
 * other. */
static void keep_decoded(cst_records *r, const char *line, size_t len,
                         const cs_event *e, const cs_fmt_comm *comm,
                         const cs_fmt_times *t) {
  if (r->nlines == r->lines_cap) {
    size_t cap = r->lines_cap ? 2 * r->lines_cap : 1024;
    cst_decoded_line *l = realloc(r->lines, cap * sizeof *l);
    if (!l)
      return;
    r->lines = l;
    r->lines_cap = cap;
  }
  cst_decoded_line *l = &r->lines[r->nlines];
  if (len > UINT32_MAX || !event_rec(r, e, comm, t, &l->r))
    return;
  const cs_fmt_members *m = &r->members;
  l->off = (size_t)(line - r->text);
  l->len = len;
  l->marks.n = m->n;
  l->marks.escaped = m->escaped;
  memcpy(l->marks.key, m->key, m->n);
  memcpy(l->marks.at, m->at, m->n * sizeof m->at[0]);
  r->nlines++;
}

static int read_event(cst_records *r, cs_cx *cx) {
  cs_event e;
  memset(&e, 0, sizeof e);
  cs_fmt_times t = {0};
  cs_cx_event_extra x = {.times = &t, .abi = 6};
  cs_cx_event(cx, &e, &x);
  if (cx->bad)
    return r->oom ? ENOMEM : TC_ERR_CORRUPT;
  /* The reclaim reason is a string of the file's: its room too. */
  size_t reclaim = t.reclaim ? CS_CUR_STR_MAX(strlen(t.reclaim)) : 0;
  if (!text_room(r, cs_fmt_event_max(&e) + reclaim + 1))
    return ENOMEM;
  int abi = r->fmt.default_abi;
  if (x.ctx_missing)
    r->fmt.default_abi = x.abi;
  const ctx_entry *ce = x.ctx_missing ? NULL : lookup_ctx(r, e.ctx);
  const cs_fmt_comm *comm = ce ? &ce->comm : NULL;
  char *line = r->text + r->text_len;
  char *end = cs_fmt_event_members(&r->fmt, line, &e, comm, &t, &r->members);
  r->fmt.default_abi = abi;
  if (!ce || !ce->redescribed)
    keep_decoded(r, line, (size_t)(end - line), &e, comm, &t);
  *end++ = '\n';
  r->text_len = (size_t)(end - r->text);
  return 0;
}

static int read_timing(cst_records *r, cs_cx *cx) {
  cs_timing t;
  memset(&t, 0, sizeof t);
  bool missing = false;
  cs_cx_timing(cx, &t, &missing);
  if (cx->bad)
    return r->oom ? ENOMEM : TC_ERR_CORRUPT;
  if (!text_room(r, cs_fmt_timing_max(&r->fmt, &t) + 1))
    return ENOMEM;
  const cs_fmt_comm *comm = missing ? NULL : lookup_comm(r, t.ctx);
  char *end = cs_fmt_timing(&r->fmt, r->text + r->text_len, &t, comm);
  *end++ = '\n';
  r->text_len = (size_t)(end - r->text);
  return 0;
}

/* One record's body into lines. */
static int read_record(cst_records *r, unsigned kind, const unsigned char *b,
                       uint32_t len) {
  if (kind == CST_REC_LINE) {
    if (len == 0 || b[len - 1] != '\n')
      return TC_ERR_CORRUPT;
    if (!text_room(r, len))
      return ENOMEM;
    memcpy(r->text + r->text_len, b, len);
    r->text_len += len;
    return 0;
  }
  if (kind == CST_REC_ACCOUNTING) { /* its line, exactly as JSONL has it */
    cs_acct a;
    if (!cs_acct_unpack(b, len, &a))
      return TC_ERR_CORRUPT;
    if (!text_room(r, CS_ACCT_LINE))
      return ENOMEM;
    cs_acct_format(&a, r->text + r->text_len);
    r->text_len += CS_ACCT_LINE;
    return 0;
  }
  cs_cx cx = reader(r, b, len);
  int e;
  if (kind == CST_REC_WRITER)
    e = read_writer(r, &cx);
  else if (!r->started) /* a compact record before its frame's writer */
    return TC_ERR_CORRUPT;
  else if (kind == CST_REC_CONTEXT)
    e = read_context(r, &cx);
  else if (kind == CST_REC_EVENT)
    e = read_event(r, &cx);
  else if (kind == CST_REC_TIMING)
    e = read_timing(r, &cx);
  else
    return TC_ERR_CORRUPT;
  if (!e && cx.in != cx.end)
    return TC_ERR_CORRUPT; /* a body longer than its fields */
  return e;
}

void cst_records_begin(cst_records *r, const unsigned char *p, size_t n,
                       bool whole, uint32_t records) {
  r->payload = p;
  r->payload_len = n;
  r->at = 0;
  r->whole = whole;
  r->records = records;
  r->count = 0;
  r->done = false;
  r->started = false; /* every frame tells its own writer */
  r->oom = false;
}

/* The frame's next records as lines appended to r->text, until it holds
 * `want` bytes or the frame ends (then the count is checked). An error
 * ends the frame. */
static int walk_records(cst_records *r, size_t want) {
  const unsigned char *p = r->payload;
  size_t n = r->payload_len;
  while (r->at < n && r->text_len < want) {
    unsigned kind;
    size_t body, next;
    uint32_t len;
    int k = cst_rec_parse(p + r->at, n - r->at, &kind, &body, &len, &next);
    if (k < 0 || (k == 0 && r->whole))
      return r->done = true, TC_ERR_CORRUPT;
    if (k == 0) { /* torn: a cut record ends it */
      r->at = n;
      break;
    }
    int e = read_record(r, kind, p + r->at + body, len);
    if (e)
      return r->done = true, e;
    r->at += next;
    r->count++;
  }
  if (r->at < n && r->text_len >= want)
    return 0; /* more to come */
  r->done = true;
  if (r->whole && r->count != r->records)
    return TC_ERR_CORRUPT;
  return 0;
}

int cst_records_more(cst_records *r, size_t want, const char **text,
                     size_t *text_len) {
  r->text_len = 0;
  r->nlines = 0;
  *text = r->text;
  *text_len = 0;
  if (r->done)
    return 0;
  int e = walk_records(r, want ? want : 1);
  if (e)
    return e;
  *text = r->text;
  *text_len = r->text_len;
  return 0;
}

void cst_records_decoded(const cst_records *r, const cst_decoded_line **lines,
                         size_t *nlines) {
  *lines = r->lines;
  *nlines = r->nlines;
}
