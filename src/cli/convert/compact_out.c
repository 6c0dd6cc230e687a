/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/convert/compact_out.c — a trace's lines as compact records or
 * line records in stored frames (see compact_out.h).
 *
 * Two states are kept apart. What the reader of the frame will know (the
 * frame's writer record, the contexts and strings it told, the previous
 * values deltas are taken against) starts afresh with each frame. What
 * this side's formatter has cached (cs_fmt: the pieces of each context it
 * formatted) lives until the writer's identity changes; the reader's
 * formatter starts empty at each writer record and fills the same pieces
 * from the same records, so both write the same text as long as a context
 * serial keeps one commId in a frame: a line that would change it is kept
 * as a line, unformatted.
 */
#include "convert/compact_out.h"

#include <stdlib.h>
#include <string.h>

#include "convert/line_inputs.h"
#include "cst_format.h"
#include "read/jsonl_scan.h"
#include "trace_compact_codec.h"
#include "trace_fmt.h"

/* A frame is written once its records reach this size. */
enum { FRAME_BYTES = 1 << 20 };

/* The writer's identity as a writer record tells it. */
typedef struct {
  int32_t pid;
  bool rccl;
  int global_rank;
  char *run_id; /* owned; NULL for null */
  char *hostname;
} co_identity;

/* A context the frame told its reader. */
typedef struct {
  uint32_t serial;
  cs_fmt_comm comm; /* comm_name points at name */
  char *name;
} co_told;

/* The commId a context's pieces were formatted with (see the top). */
typedef struct {
  uint32_t serial;
  bool has_comm_info;
  uint64_t comm_id;
} co_piece;

/* A context as its ProfilerInit record says: what an event line does not
 * show, so that its first description in a frame is the whole one. */
typedef struct {
  uint32_t serial;
  int abi;
  int device; /* -1: null */
  char *name; /* owned; "" when null */
} co_known;

/* The frame's string table: text at strings[off, off + len). */
typedef struct {
  size_t off;
  uint32_t len;
  uint32_t index; /* UINT32_MAX: empty slot */
} co_str;

struct co_out {
  FILE *out;
  co_counts counts;
  bool oom;
  /* the frame being filled */
  unsigned char *payload;
  size_t len, cap;
  uint32_t records;
  /* what its reader knows */
  bool started; /* its writer record is written */
  cs_cx_prev prev;
  co_str *table;
  uint32_t table_cap, nstrings;
  char *strings;
  size_t strings_len, strings_cap;
  co_told *told;
  uint32_t ntold, told_cap;
  /* this side's formatter */
  bool prepared; /* fmt holds `id` */
  co_identity id;
  cs_fmt fmt;
  co_piece *pieces;
  uint32_t npieces, pieces_cap;
  /* what the trace said before (its process and ProfilerInit records) */
  co_identity learned;
  int default_abi; /* the last ProfilerInit's (the plugin's default) */
  co_known *known;
  uint32_t nknown, known_cap;
  /* scratch */
  li_scratch scratch;
  char *text; /* a line formatted again */
  size_t text_cap;
  unsigned char *body; /* a record's body */
  size_t body_cap;
};

co_out *co_new(FILE *out) {
  co_out *o = calloc(1, sizeof *o);
  if (!o)
    return NULL;
  o->out = out;
  o->default_abi = 6;
  o->learned.global_rank = -1;
  return o;
}

static void identity_free(co_identity *id) {
  free(id->run_id);
  free(id->hostname);
  id->run_id = id->hostname = NULL;
}

static void forget_told(co_out *o) {
  for (uint32_t i = 0; i < o->ntold; i++)
    free(o->told[i].name);
  o->ntold = 0;
}

void co_free(co_out *o) {
  if (!o)
    return;
  forget_told(o);
  free(o->told);
  identity_free(&o->id);
  identity_free(&o->learned);
  free(o->payload);
  free(o->table);
  free(o->strings);
  free(o->pieces);
  for (uint32_t i = 0; i < o->nknown; i++)
    free(o->known[i].name);
  free(o->known);
  li_scratch_free(&o->scratch);
  free(o->text);
  free(o->body);
  free(o);
}

co_counts co_get_counts(const co_out *o) {
  return o->counts;
}

/* Room for `n` bytes at *buf (of *cap bytes). */
static bool room(void **buf, size_t *cap, size_t n) {
  if (*cap >= n)
    return true;
  size_t c = *cap ? *cap : 4096;
  while (c < n)
    c *= 2;
  void *p = realloc(*buf, c);
  if (!p)
    return false;
  *buf = p;
  *cap = c;
  return true;
}

static char *dup_or_null(const char *s) {
  return s ? strdup(s) : NULL;
}

static bool same_str(const char *a, const char *b) {
  return a == b || (a && b && strcmp(a, b) == 0);
}

/* ---- frames ---- */

/* The frame's records out as one stored frame; its reader's state ends. */
static bool flush_frame(co_out *o) {
  o->started = false;
  if (o->records == 0)
    return true;
  unsigned char head[CST_FRAME_HEADER];
  cst_frame_info info = {CST_CODEC_STORED, (uint32_t)o->len, o->records};
  cst_frame_header(head, &info);
  bool ok = fwrite(head, 1, sizeof head, o->out) == sizeof head &&
            fwrite(o->payload, 1, o->len, o->out) == o->len;
  o->len = 0;
  o->records = 0;
  return ok;
}

/* A record of kind `kind` with body[0, n) into the frame. */
static bool put_record(co_out *o, unsigned kind, const void *body, size_t n) {
  if (!room((void **)&o->payload, &o->cap, o->len + CST_REC_HEAD_MAX + n)) {
    o->oom = true;
    return false;
  }
  o->len += cst_rec_head(o->payload + o->len, kind, (uint32_t)n);
  memcpy(o->payload + o->len, body, n);
  o->len += n;
  o->records++;
  return true;
}

static bool put_line_record(co_out *o, const char *line, size_t len) {
  if (!room((void **)&o->payload, &o->cap,
            o->len + CST_REC_HEAD_MAX + len + 1)) {
    o->oom = true;
    return false;
  }
  o->len += cst_rec_head(o->payload + o->len, CST_REC_LINE, (uint32_t)len + 1);
  memcpy(o->payload + o->len, line, len);
  o->len += len;
  o->payload[o->len++] = '\n';
  o->records++;
  o->counts.as_lines++;
  return true;
}

/* ---- the frame's string table (the writing side of get_str in
 *      src/cli/read/cst_records.c) ---- */

static uint32_t str_hash(const char *s, size_t n) {
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < n; i++)
    h = (h ^ (unsigned char)s[i]) * 16777619u;
  return h;
}

static void table_clear(co_out *o) {
  for (uint32_t i = 0; i < o->table_cap; i++)
    o->table[i].index = UINT32_MAX;
  o->nstrings = 0;
  o->strings_len = 0;
}

/* The slot of s[0, n): its entry, or the empty slot it would take. */
static co_str *table_slot(co_out *o, const char *s, size_t n) {
  uint32_t mask = o->table_cap - 1;
  for (uint32_t i = str_hash(s, n) & mask;; i = (i + 1) & mask) {
    co_str *e = &o->table[i];
    if (e->index == UINT32_MAX ||
        (e->len == n && memcmp(o->strings + e->off, s, n) == 0))
      return e;
  }
}

/* Twice the slots (kept at most half full). */
static bool table_grow(co_out *o) {
  uint32_t old_cap = o->table_cap;
  co_str *old = o->table;
  uint32_t cap = old_cap ? 2 * old_cap : 256;
  o->table = malloc(cap * sizeof *o->table);
  if (!o->table) {
    o->table = old;
    return false;
  }
  o->table_cap = cap;
  for (uint32_t i = 0; i < cap; i++)
    o->table[i].index = UINT32_MAX;
  for (uint32_t i = 0; i < old_cap; i++)
    if (old[i].index != UINT32_MAX)
      *table_slot(o, o->strings + old[i].off, old[i].len) = old[i];
  free(old);
  return true;
}

/* A string: 0 for NULL, (index + 1) << 1 for one the frame has, else its
 * length << 1 | 1 and its bytes (the next index). The body has room for
 * every string of the line it comes from (encode_record). */
static void put_str(cs_cx *cx, const char **s) {
  co_out *o = cx->arg;
  const char *v = *s;
  if (!v) {
    *cx->out++ = 0;
    return;
  }
  size_t n = strlen(v);
  if ((2 * (o->nstrings + 1) > o->table_cap && !table_grow(o)) ||
      /* + 1: an allocated table even for "" (no memcpy from NULL) */
      !room((void **)&o->strings, &o->strings_cap, o->strings_len + n + 1)) {
    o->oom = cx->bad = true;
    return;
  }
  co_str *e = table_slot(o, v, n);
  if (e->index != UINT32_MAX) {
    cx->out = cst_put_varint(cx->out, (uint64_t)(e->index + 1) << 1);
    return;
  }
  cx->out = cst_put_varint(cx->out, (uint64_t)n << 1 | 1);
  memcpy(cx->out, v, n);
  cx->out += n;
  memcpy(o->strings + o->strings_len, v, n);
  *e = (co_str){o->strings_len, (uint32_t)n, o->nstrings++};
  o->strings_len += n;
}

/* A compact record whose body `encode` writes (at most `max` bytes, its
 * strings included) into the frame. */
typedef void (*encode_fn)(cs_cx *cx, void *arg);
static bool encode_record(co_out *o, unsigned kind, size_t max,
                          encode_fn encode, void *arg) {
  if (!room((void **)&o->body, &o->body_cap, max)) {
    o->oom = true;
    return false;
  }
  cs_cx cx = {.reading = false,
              .out = o->body,
              .prev = &o->prev,
              /* cst_file_header writes CST_VERSION: its layout */
              .gpu_deltas = CST_VERSION >= 3,
              .str = put_str,
              .arg = o};
  encode(&cx, arg);
  if (cx.bad)
    return false;
  return put_record(o, kind, o->body, (size_t)(cx.out - o->body));
}

/* ---- the writer and its contexts ---- */

static void encode_writer(cs_cx *cx, void *arg) {
  cs_cx_writer(cx, arg);
}

/* The frame's writer record, its reader's state afresh. */
static bool start_frame(co_out *o) {
  memset(&o->prev, 0, sizeof o->prev);
  table_clear(o);
  forget_told(o);
  size_t max = cs_cx_writer_max() + 2 * CST_VARINT_MAX +
               (o->id.run_id ? strlen(o->id.run_id) : 0) +
               (o->id.hostname ? strlen(o->id.hostname) : 0);
  if (!encode_record(o, CST_REC_WRITER, max, encode_writer, &o->fmt))
    return false;
  o->started = true;
  return true;
}

static bool same_identity(const co_identity *a, const co_identity *b) {
  return a->pid == b->pid && a->rccl == b->rccl &&
         a->global_rank == b->global_rank && same_str(a->run_id, b->run_id) &&
         same_str(a->hostname, b->hostname);
}

/* This side's formatter for the identity of a line (`w`: its pid, and the
 * rest when it has it; otherwise the identity so far). A frame whose
 * writer said otherwise ends first. */
static bool prepare(co_out *o, const li_writer *w) {
  const co_identity *base = o->prepared ? &o->id : &o->learned;
  co_identity want = {
      .pid = w->pid,
      .rccl = base->rccl,
      .global_rank = w->has_identity ? w->global_rank : base->global_rank,
      .run_id = (char *)(w->has_identity ? w->run_id : base->run_id),
      .hostname = (char *)(w->has_identity ? w->hostname : base->hostname),
  };
  if (o->prepared && same_identity(&want, &o->id))
    return true;
  if (o->started && !flush_frame(o))
    return false;
  co_identity next = want;
  next.run_id = dup_or_null(want.run_id);
  next.hostname = dup_or_null(want.hostname);
  if ((want.run_id && !next.run_id) || (want.hostname && !next.hostname)) {
    identity_free(&next);
    o->oom = true;
    return false;
  }
  identity_free(&o->id);
  o->id = next;
  o->fmt = (cs_fmt){.pid = next.pid,
                    .rccl = next.rccl,
                    .default_abi = 6,
                    .run_id = next.run_id,
                    .hostname = next.hostname,
                    .global_rank = next.global_rank};
  cs_fmt_init(&o->fmt);
  o->npieces = 0;
  o->prepared = true;
  return true;
}

static const co_known *find_known(const co_out *o, uint32_t serial) {
  for (uint32_t i = o->nknown; i-- > 0;)
    if (o->known[i].serial == serial)
      return &o->known[i];
  return NULL;
}

static co_told *find_told(co_out *o, uint32_t serial) {
  for (uint32_t i = 0; i < o->ntold; i++)
    if (o->told[i].serial == serial)
      return &o->told[i];
  return NULL;
}

/* The context a line names (`c`), as the frame will tell it: what the
 * frame told of it before, or what the trace said, with what the line
 * shows. `timing`: the line shows its device and name too. */
static cs_fmt_comm context_of(co_out *o, const li_comm *c, bool timing) {
  const co_told *t = find_told(o, c->serial);
  const co_known *k = t ? NULL : find_known(o, c->serial);
  cs_fmt_comm m =
      t   ? t->comm
      : k ? (cs_fmt_comm){.abi = k->abi,
                          .device = k->device,
                          .comm_name = k->name}
          : (cs_fmt_comm){.abi = o->default_abi, .device = -1, .comm_name = ""};
  m.has_comm_info = c->has_comm_info;
  m.comm_id = c->has_comm_info ? c->comm_id : 0;
  if (timing) {
    m.device = c->device;
    m.comm_name = c->has_comm_info ? c->comm_name : "";
  }
  return m;
}

/* May context `c` be formatted in this formatter's session? Not with
 * another commId than before (see the top); remembered when first seen. */
static bool piece_agrees(co_out *o, const li_comm *c) {
  for (uint32_t i = 0; i < o->npieces; i++)
    if (o->pieces[i].serial == c->serial)
      return o->pieces[i].has_comm_info == c->has_comm_info &&
             (!c->has_comm_info || o->pieces[i].comm_id == c->comm_id);
  if (o->npieces == o->pieces_cap) {
    uint32_t cap = o->pieces_cap ? 2 * o->pieces_cap : 32;
    co_piece *p = realloc(o->pieces, cap * sizeof *p);
    if (!p) {
      o->oom = true;
      return false;
    }
    o->pieces = p;
    o->pieces_cap = cap;
  }
  o->pieces[o->npieces++] = (co_piece){c->serial, c->has_comm_info, c->comm_id};
  return true;
}

typedef struct {
  uint32_t serial;
  cs_fmt_comm *comm;
} context_arg;

static void encode_context(cs_cx *cx, void *arg) {
  context_arg *a = arg;
  cs_cx_context(cx, &a->serial, a->comm);
}

/* Context `serial` (`m`) told in this frame, unless it already is so. */
static bool tell_context(co_out *o, uint32_t serial, const cs_fmt_comm *m) {
  co_told *t = find_told(o, serial);
  if (t && t->comm.has_comm_info == m->has_comm_info &&
      t->comm.comm_id == m->comm_id && t->comm.abi == m->abi &&
      t->comm.device == m->device && same_str(t->comm.comm_name, m->comm_name))
    return true;
  cs_fmt_comm copy = *m;
  context_arg a = {serial, &copy};
  size_t max = cs_cx_context_max() + CST_VARINT_MAX +
               (m->comm_name ? strlen(m->comm_name) : 0);
  if (!encode_record(o, CST_REC_CONTEXT, max, encode_context, &a))
    return false;
  char *name = strdup(m->comm_name ? m->comm_name : "");
  if (!name) {
    o->oom = true;
    return false;
  }
  if (!t) {
    if (o->ntold == o->told_cap) {
      uint32_t cap = o->told_cap ? 2 * o->told_cap : 16;
      co_told *p = realloc(o->told, cap * sizeof *p);
      if (!p) {
        free(name);
        o->oom = true;
        return false;
      }
      o->told = p;
      o->told_cap = cap;
    }
    t = &o->told[o->ntold++];
    t->name = NULL;
  }
  free(t->name);
  t->serial = serial;
  t->comm = *m;
  t->name = name;
  t->comm.comm_name = name;
  return true;
}

/* ---- event and timing lines ---- */

/* Does the formatted text[0, n) equal the line? */
static bool same_text(const char *text, size_t n, const char *line,
                      size_t len) {
  return n == len && memcmp(text, line, len) == 0;
}

typedef struct {
  cs_event *e;
  cs_cx_event_extra *x;
} event_arg;

static void encode_event(cs_cx *cx, void *arg) {
  event_arg *a = arg;
  cs_cx_event(cx, a->e, a->x);
}

typedef struct {
  cs_timing *r;
  bool *missing;
} timing_arg;

static void encode_timing(cs_cx *cx, void *arg) {
  timing_arg *a = arg;
  cs_cx_timing(cx, a->r, a->missing);
}

/* Before a compact record: the frame's writer record, and its context
 * (`m`, NULL: none) told. */
static bool before_record(co_out *o, const li_comm *c, const cs_fmt_comm *m) {
  if (!o->started && !start_frame(o))
    return false;
  return !m || tell_context(o, c->serial, m);
}

/* 1: written as a compact record; 0: it is not the formatter's line;
 * -1: no memory, or a frame could not be written. */
static int event_line(co_out *o, const char *line, size_t len) {
  cs_event e;
  cs_fmt_times t;
  li_comm c;
  li_writer w;
  bool oom = false;
  if (!li_event(&o->scratch, line, len, &e, &t, &c, &w, &oom))
    return oom ? -1 : 0;
  if (!prepare(o, &w))
    return -1;
  if (c.present && !piece_agrees(o, &c))
    return o->oom ? -1 : 0;
  cs_fmt_comm m = c.present ? context_of(o, &c, false) : (cs_fmt_comm){0};
  size_t reclaim = t.reclaim ? CS_CUR_STR_MAX(strlen(t.reclaim)) : 0;
  if (!room((void **)&o->text, &o->text_cap,
            cs_fmt_event_max(&e) + reclaim + 1)) {
    o->oom = true;
    return -1;
  }
  /* Without a context, the record says the ABI its states are named by
   * (the reader formats with it as the default). */
  cs_cx_event_extra x = {
      .times = &t, .ctx_missing = !c.present, .abi = o->default_abi};
  o->fmt.default_abi = x.abi;
  char *end = cs_fmt_event(&o->fmt, o->text, &e, c.present ? &m : NULL, &t);
  if (!same_text(o->text, (size_t)(end - o->text), line, len))
    return 0;
  if (!before_record(o, &c, c.present ? &m : NULL))
    return -1;
  event_arg a = {&e, &x};
  /* Its strings all come from the line: they take less than the line. */
  size_t max = cs_cx_event_max(&e) + len + 8 * CST_VARINT_MAX;
  return encode_record(o, CST_REC_EVENT, max, encode_event, &a) ? 1 : -1;
}

static int timing_line(co_out *o, const char *line, size_t len) {
  cs_timing r;
  li_comm c;
  li_writer w;
  bool oom = false;
  if (!li_timing(&o->scratch, line, len, &r, &c, &w, &oom))
    return oom ? -1 : 0;
  if (!prepare(o, &w))
    return -1;
  if (c.present && !piece_agrees(o, &c))
    return o->oom ? -1 : 0;
  cs_fmt_comm m = c.present ? context_of(o, &c, true) : (cs_fmt_comm){0};
  if (!room((void **)&o->text, &o->text_cap,
            cs_fmt_timing_max(&o->fmt, &r) + 1)) {
    o->oom = true;
    return -1;
  }
  char *end = cs_fmt_timing(&o->fmt, o->text, &r, c.present ? &m : NULL);
  if (!same_text(o->text, (size_t)(end - o->text), line, len))
    return 0;
  if (!before_record(o, &c, c.present ? &m : NULL))
    return -1;
  bool missing = !c.present;
  timing_arg a = {&r, &missing};
  size_t max = cs_cx_timing_max() + len + 8 * CST_VARINT_MAX;
  return encode_record(o, CST_REC_TIMING, max, encode_timing, &a) ? 1 : -1;
}

/* ---- what the other records say ---- */

#define HAS_PREFIX(line, len, lit)                                             \
  ((len) >= sizeof(lit) - 1 && memcmp((line), (lit), sizeof(lit) - 1) == 0)

static bool key_is(const js_value *k, const char *name) {
  return k->len == strlen(name) && memcmp(k->ptr, name, k->len) == 0;
}

/* A string value as an owned copy into *out (NULL for null). */
static void learn_str(co_out *o, const js_value *v, char **out) {
  if (v->type != JS_STRING && v->type != JS_NULL)
    return;
  char *copy = NULL;
  if (v->type == JS_STRING) {
    copy = malloc(v->len + 1);
    if (!copy) {
      o->oom = true;
      return;
    }
    js_str_copy(v, copy, v->len + 1);
  }
  free(*out);
  *out = copy;
}

/* The process record: who writes (the first writer record's guess). */
static void learn_process(co_out *o, const char *line, size_t len) {
  js_iter it;
  js_value k, v;
  if (!js_object_begin(&it, line, line + len, line))
    return;
  while (js_object_next(&it, &k, &v)) {
    int64_t n;
    if (key_is(&k, "hostname"))
      learn_str(o, &v, &o->learned.hostname);
    else if (key_is(&k, "runId"))
      learn_str(o, &v, &o->learned.run_id);
    else if (key_is(&k, "pid") && js_to_i64(&v, &n))
      o->learned.pid = (int32_t)n;
    else if (key_is(&k, "globalRank"))
      o->learned.global_rank = js_to_i64(&v, &n) ? (int)n : -1;
    else if (key_is(&k, "host"))
      o->learned.rccl = js_str_eq(&v, "rccl");
  }
}

/* A ProfilerInit record: its context's ABI (the default from then on),
 * device and name. */
static void learn_init(co_out *o, const char *line, size_t len) {
  js_iter it, details;
  js_value k, v, dk, dv;
  int64_t ctx = -1, abi = -1, device = -1;
  js_value name = {.type = JS_NONE};
  bool init = false;
  if (!js_object_begin(&it, line, line + len, line))
    return;
  while (js_object_next(&it, &k, &v)) {
    if (key_is(&k, "func"))
      init = js_str_eq(&v, "ProfilerInit");
    else if (key_is(&k, "ctx") && !js_to_i64(&v, &ctx))
      ctx = -1;
    else if (key_is(&k, "commName"))
      name = v;
    else if (key_is(&k, "device") && !js_to_i64(&v, &device))
      device = -1;
    else if (key_is(&k, "details") && v.type == JS_OBJECT &&
             js_object_begin(&details, v.ptr, v.ptr + v.len, line))
      while (js_object_next(&details, &dk, &dv))
        if (key_is(&dk, "abi") && !js_to_i64(&dv, &abi))
          abi = -1;
  }
  if (!init || ctx < 0 || ctx > UINT32_MAX || abi < 0 || abi > 1000 ||
      device < -1 || device > INT32_MAX)
    return;
  o->default_abi = (int)abi;
  if (o->nknown == o->known_cap) {
    uint32_t cap = o->known_cap ? 2 * o->known_cap : 16;
    co_known *p = realloc(o->known, cap * sizeof *p);
    if (!p) {
      o->oom = true;
      return;
    }
    o->known = p;
    o->known_cap = cap;
  }
  char *text = calloc(1, name.type == JS_STRING ? name.len + 1 : 1);
  if (!text) {
    o->oom = true;
    return;
  }
  if (name.type == JS_STRING)
    js_str_copy(&name, text, name.len + 1);
  o->known[o->nknown++] =
      (co_known){(uint32_t)ctx, (int)abi, (int)device, text};
}

/* ---- lines ---- */

bool co_line(co_out *o, const char *line, size_t len) {
  int got = 0;
  bool record = false; /* an event or timing line */
  if (HAS_PREFIX(line, len, "{\"recordType\":\"event\",\"type\":\"Profiler")) {
    learn_init(o, line, len);
  } else if (HAS_PREFIX(line, len, "{\"recordType\":\"event\",")) {
    record = true;
    got = event_line(o, line, len);
  } else if (HAS_PREFIX(line, len, "{\"recordType\":\"timing\",")) {
    record = true;
    got = timing_line(o, line, len);
  } else if (HAS_PREFIX(line, len, "{\"recordType\":\"process\",")) {
    learn_process(o, line, len);
  }
  if (got < 0 || o->oom)
    return false;
  if (got == 1) {
    o->counts.compact++;
  } else {
    if (!put_line_record(o, line, len))
      return false;
    o->counts.fallbacks += record;
  }
  return o->len < FRAME_BYTES || flush_frame(o);
}

bool co_finish(co_out *o) {
  return flush_frame(o);
}
