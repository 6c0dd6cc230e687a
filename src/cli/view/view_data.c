/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/view/view_data.c — see view_data.h.
 */
#include "view/view_data.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util/jsonw.h"

#define PXN_ID_MASK ((UINT64_C(1) << 47) - 1)

bool view_data_init(view_data *v, size_t nfiles, uint64_t detail_budget,
                    int64_t detail_from) {
  memset(v, 0, sizeof *v);
  intern_init(&v->strings);
  view_ov_init(&v->ov);
  v->detail_budget = detail_budget;
  v->detail_from = detail_from;
  v->first_key = INT64_MIN;
  v->detail_t0 = INT64_MAX;
  v->detail_t1 = INT64_MIN;
  pair_map_init(&v->global_of);
  pair_map_init(&v->tags);
  v->sc = malloc(sizeof *v->sc);
  v->dense = calloc(nfiles ? nfiles : 1, sizeof *v->dense);
  v->ndense = nfiles;
  if (!v->sc || !v->dense || !tl_init(&v->tl, nfiles)) {
    free(v->sc);
    v->sc = NULL;
    free(v->dense);
    v->dense = NULL;
    return false;
  }
  rec_scratch_init(v->sc);
  return true;
}

void view_data_free(view_data *v) {
  tl_free(&v->tl);
  intern_free(&v->strings);
  free(v->ev);
  free(v->tm);
  free(v->marks);
  free(v->buf);
  free(v->sc);
  view_ov_free(&v->ov);
  for (size_t i = 0; v->dense && i < v->ndense; i++)
    free(v->dense[i].slots);
  free(v->dense);
  pair_map_free(&v->global_of);
  pair_map_free(&v->tags);
  memset(v, 0, sizeof *v);
}

void view_data_use_tiles(view_data *v, view_tiles *tiles,
                         const ord_reader *rd) {
  v->tiles = tiles;
  v->rd = rd;
}

static bool grow(void **p, size_t *cap, size_t n, size_t size) {
  if (n < *cap)
    return true;
  size_t ncap = *cap ? *cap * 2 : 1024;
  void *np = realloc(*p, ncap * size);
  if (!np)
    return false;
  *p = np;
  *cap = ncap;
  return true;
}

static uint32_t str_id(view_data *v, const char *s) {
  return s && s[0] ? intern_id(&v->strings, s, strlen(s)) : 0;
}

static uint32_t str_of(view_data *v, const js_value *val) {
  char buf[256];
  if (!val || val->type != JS_STRING || !js_str_copy(val, buf, sizeof buf))
    return 0;
  return str_id(v, buf);
}

/* ---- the extra line: the record's other keys, times made relative ---- */

/* put() when the buffer has no room for n more bytes (and its NUL). */
static void put_grow(view_data *v, const char *s, size_t n) {
  size_t ncap = v->cap_buf ? v->cap_buf : 1024;
  while (ncap < v->nbuf + n + 1)
    ncap *= 2;
  char *nb = realloc(v->buf, ncap);
  if (!nb) {
    v->oom = true;
    return;
  }
  v->buf = nb;
  v->cap_buf = ncap;
  memcpy(v->buf + v->nbuf, s, n);
  v->nbuf += n;
}

static inline void put(view_data *v, const char *s, size_t n) {
  if (v->nbuf + n + 1 > v->cap_buf) {
    put_grow(v, s, n);
    return;
  }
  memcpy(v->buf + v->nbuf, s, n);
  v->nbuf += n;
}

/* put() of one byte. */
static inline void put1(view_data *v, char c) {
  if (v->nbuf + 2 > v->cap_buf) {
    put_grow(v, &c, 1);
    return;
  }
  v->buf[v->nbuf++] = c;
}

/* put() of a signed integer in decimal. */
static void put_i64(view_data *v, int64_t value) {
  char digits[24];
  char *end = digits + sizeof digits, *p = end;
  uint64_t mag = value < 0 ? (uint64_t)0 - (uint64_t)value : (uint64_t)value;
  do {
    *--p = (char)('0' + mag % 10);
    mag /= 10;
  } while (mag);
  if (value < 0)
    *--p = '-';
  put(v, p, (size_t)(end - p));
}

static void put_key(view_data *v, const js_value *k) {
  put1(v, '"');
  put(v, k->ptr, k->len);
  put(v, "\":", 2);
}

/* How a key's number is a time: fractional microseconds since the epoch,
 * integer nanoseconds since the epoch (timing records of format version
 * 2), or not a time. */
typedef enum { TIME_NONE = 0, TIME_US, TIME_NS } time_key;

/* What a key is to the detail lines, from its raw text (bits): */
enum {
  KEY_COLUMN = 1,      /* an event's columns hold it exactly (web/README.md):
                          recordType type id parentId ctx commId rank func
                          start duration end */
  KEY_TIME_US = 2,     /* ts lastTs apiTs start stop endTs */
  KEY_TIME_NS = 4,     /* apiNs enqueueStartNs enqueueStopNs startNs stopNs */
  KEY_RECORD_TYPE = 8, /* recordType */
  KEY_STOP = 16,       /* stop */
  KEY_END_TS = 32      /* endTs */
};

/* The KEY_ bits of key k as written (escapes not decoded: a key with one
 * is none of these), by its length first: one or two comparisons a key
 * instead of one per name. */
static unsigned raw_key_kind(const js_value *k) {
  const char *p = k->ptr;
  switch (k->len) {
  case 2:
    if (memcmp(p, "ts", 2) == 0)
      return KEY_TIME_US;
    if (memcmp(p, "id", 2) == 0)
      return KEY_COLUMN;
    break;
  case 3:
    if (memcmp(p, "ctx", 3) == 0 || memcmp(p, "end", 3) == 0)
      return KEY_COLUMN;
    break;
  case 4:
    if (memcmp(p, "type", 4) == 0 || memcmp(p, "rank", 4) == 0 ||
        memcmp(p, "func", 4) == 0)
      return KEY_COLUMN;
    if (memcmp(p, "stop", 4) == 0)
      return KEY_TIME_US | KEY_STOP;
    break;
  case 5:
    if (memcmp(p, "start", 5) == 0)
      return KEY_COLUMN | KEY_TIME_US;
    if (memcmp(p, "apiTs", 5) == 0)
      return KEY_TIME_US;
    if (memcmp(p, "endTs", 5) == 0)
      return KEY_TIME_US | KEY_END_TS;
    if (memcmp(p, "apiNs", 5) == 0)
      return KEY_TIME_NS;
    break;
  case 6:
    if (memcmp(p, "commId", 6) == 0)
      return KEY_COLUMN;
    if (memcmp(p, "lastTs", 6) == 0)
      return KEY_TIME_US;
    if (memcmp(p, "stopNs", 6) == 0)
      return KEY_TIME_NS;
    break;
  case 7:
    if (memcmp(p, "startNs", 7) == 0)
      return KEY_TIME_NS;
    break;
  case 8:
    if (memcmp(p, "parentId", 8) == 0 || memcmp(p, "duration", 8) == 0)
      return KEY_COLUMN;
    break;
  case 10:
    if (memcmp(p, "recordType", 10) == 0)
      return KEY_COLUMN | KEY_RECORD_TYPE;
    break;
  case 13:
    if (memcmp(p, "enqueueStopNs", 13) == 0)
      return KEY_TIME_NS;
    break;
  case 14:
    if (memcmp(p, "enqueueStartNs", 14) == 0)
      return KEY_TIME_NS;
    break;
  }
  return 0;
}

/* The KEY_ bits of a top-level key: its columns and times as written, and
 * recordType, stop and endTs also with escapes decoded (js_str_eq), as
 * the reader names them. */
static unsigned top_key_kind(const js_value *k) {
  unsigned kind = raw_key_kind(k);
  if (k->type != JS_STRING)
    return kind & ~(unsigned)(KEY_RECORD_TYPE | KEY_STOP | KEY_END_TS);
  if (!k->escaped)
    return kind;
  if (js_str_eq(k, "recordType"))
    kind |= KEY_RECORD_TYPE;
  if (js_str_eq(k, "stop"))
    kind |= KEY_STOP;
  if (js_str_eq(k, "endTs"))
    kind |= KEY_END_TS;
  return kind;
}

static time_key time_key_of(unsigned kind) {
  if (kind & KEY_TIME_US)
    return TIME_US;
  if (kind & KEY_TIME_NS)
    return TIME_NS;
  return TIME_NONE;
}

/* A value, with the numbers of time keys as ns since base (recursively). */
static void put_value(view_data *v, const js_value *val, time_key time,
                      const char *base, int depth) {
  int64_t ns;
  if (val->type == JS_NUMBER && ((time == TIME_US && js_to_ns(val, &ns)) ||
                                 (time == TIME_NS && js_to_i64(val, &ns)))) {
    put_i64(v, ns - v->base);
    return;
  }
  js_iter it;
  js_value k, e;
  if (val->type == JS_OBJECT && depth < 16 &&
      js_object_begin(&it, val->ptr, val->ptr + val->len, base)) {
    bool first = true;
    put1(v, '{');
    while (js_object_next(&it, &k, &e)) {
      if (!first)
        put1(v, ',');
      first = false;
      put_key(v, &k);
      put_value(v, &e, time_key_of(raw_key_kind(&k)), base, depth + 1);
    }
    put1(v, '}');
    return;
  }
  if (val->type == JS_ARRAY && depth < 16 &&
      js_array_begin(&it, val->ptr, val->ptr + val->len, base)) {
    bool first = true;
    put1(v, '[');
    while (js_array_next(&it, &e)) {
      if (!first)
        put1(v, ',');
      first = false;
      put_value(v, &e, TIME_NONE, base, depth + 1);
    }
    put1(v, ']');
    return;
  }
  if (val->type == JS_STRING) {
    put1(v, '"');
    put(v, val->ptr, val->len);
    put1(v, '"');
  } else {
    put(v, val->ptr, val->len);
  }
}

/* ---- the same for the plugin's own lines, in one pass ---- */

/* The plugin writes its lines without whitespace between tokens; for
 * such a line the general path's extra line is the line itself less the
 * members it leaves out, with the numbers of time keys rewritten. So the
 * plain_ functions below walk the line once, token by token with no
 * iterator per level, and copy it in runs between those changes. Whatever
 * they are not sure gives the general path's bytes stops them
 * (whitespace, a token out of place, a backslash outside a string or in a
 * top-level key, nesting as deep as put_value copies verbatim): they
 * return false and extra_line takes the general path instead. */
typedef struct {
  view_data *v;
  const char *run; /* the line's bytes from here on are not put yet */
  const char *end; /* the line's end */
} plain_walk;

/* Put the run up to `upto`. */
static void plain_flush(plain_walk *w, const char *upto) {
  put(w->v, w->run, (size_t)(upto - w->run));
  w->run = upto;
}

/* The closing quote of the string whose opening quote is at `q` (a
 * backslash escapes the next byte, as scan_string has it), or NULL. The
 * plugin's strings are short: a byte loop. */
static const char *plain_string_end(const char *q, const char *end,
                                    bool *escaped) {
  const char *s = q + 1;
  while (s < end) {
    char c = *s;
    if (c == '"')
      return s;
    if (c == '\\') {
      *escaped = true;
      s += 2; /* and the byte it escapes */
    } else {
      s++;
    }
  }
  return NULL;
}

static bool plain_container(plain_walk *w, const char **p, int depth,
                            bool rewrite);

/* A value at `depth` (0: a member of the line); `time` for a number,
 * rewritten only when `rewrite` (members left out are only read past). */
static bool plain_value(plain_walk *w, const char **p, time_key time, int depth,
                        bool rewrite) {
  const char *q = *p, *end = w->end;
  if (q >= end)
    return false;
  char c = *q;
  if (c == '"') {
    bool escaped = false;
    const char *close = plain_string_end(q, end, &escaped);
    if (!close)
      return false;
    *p = close + 1;
    return true;
  }
  if (c == '{' || c == '[')
    return plain_container(w, p, depth, rewrite);
  const char *num = js_number_end(q, end);
  if (num) {
    int64_t ns;
    if (rewrite && time != TIME_NONE) {
      js_value val = {q, (size_t)(num - q), JS_NUMBER, false};
      if ((time == TIME_US && js_to_ns(&val, &ns)) ||
          (time == TIME_NS && js_to_i64(&val, &ns))) {
        plain_flush(w, q);
        put_i64(w->v, ns - w->v->base);
        w->run = num;
      }
    }
    *p = num;
    return true;
  }
  static const struct {
    const char *text;
    size_t len;
  } literals[] = {{"true", 4}, {"false", 5}, {"null", 4}};
  for (size_t i = 0; i < sizeof literals / sizeof literals[0]; i++) {
    if ((size_t)(end - q) >= literals[i].len &&
        memcmp(q, literals[i].text, literals[i].len) == 0) {
      *p = q + literals[i].len;
      return true;
    }
  }
  return false;
}

/* A key at *p (its quote) and its colon: the key's raw text in *key, *p
 * past the colon. */
static bool plain_key(const plain_walk *w, const char **p, js_value *key) {
  const char *k = *p, *close;
  bool escaped = false;
  if (k >= w->end || *k != '"' ||
      !(close = plain_string_end(k, w->end, &escaped)) || close + 1 >= w->end ||
      close[1] != ':')
    return false;
  *key = (js_value){k + 1, (size_t)(close - k - 1), JS_STRING, escaped};
  *p = close + 2;
  return true;
}

/* After a member or element at *p: `close` (*done) or a comma, read. */
static bool plain_next(const plain_walk *w, const char **p, char close,
                       bool *done) {
  if (*p >= w->end)
    return false;
  *done = **p == close;
  if (!*done && **p != ',')
    return false;
  (*p)++;
  return true;
}

/* An object or array at `depth`, with the time keys of its objects. */
static bool plain_container(plain_walk *w, const char **p, int depth,
                            bool rewrite) {
  const char *q = *p;
  if (depth >= 16) /* put_value copies these verbatim */
    return false;
  bool object = *q == '{';
  char close = object ? '}' : ']';
  q++;
  bool done = q < w->end && *q == close;
  if (done)
    q++;
  while (!done) {
    time_key time = TIME_NONE;
    if (object) {
      js_value key;
      if (!plain_key(w, &q, &key))
        return false;
      time = time_key_of(raw_key_kind(&key));
    }
    if (!plain_value(w, &q, time, depth + 1, rewrite) ||
        !plain_next(w, &q, close, &done))
      return false;
  }
  *p = q;
  return true;
}

/* extra_line's members, after its brace: false when the line is not
 * plain (what was put is then for the caller to take back). */
static bool plain_line(view_data *v, const rec *r, bool skip_columns,
                       bool skip_stop) {
  plain_walk w = {v, r->line + 1, r->line + r->len};
  const char *q = r->line;
  if (q >= w.end || *q != '{')
    return false;
  q++;
  bool any_kept = false;
  const char *prev_end = NULL; /* the comma after the member before */
  bool done = q < w.end && *q == '}';
  while (!done) {
    const char *member = q;
    js_value key;
    if (!plain_key(&w, &q, &key) || key.escaped)
      return false; /* top_key_kind decodes escaped keys */
    unsigned kind = raw_key_kind(&key);
    bool skip = (kind & KEY_RECORD_TYPE) ||
                (skip_columns && (kind & KEY_COLUMN)) ||
                (skip_stop && (kind & KEY_STOP)) ||
                (skip_columns && r->end != END_BAD && (kind & KEY_END_TS));
    if (skip) {
      /* left out with the comma before it (none before the first) */
      plain_flush(&w, prev_end ? prev_end : member);
    } else if (!any_kept && prev_end) {
      /* the first member kept: not the comma before it */
      plain_flush(&w, prev_end);
      w.run = member;
    }
    if (!plain_value(&w, &q, time_key_of(kind), 0, !skip))
      return false;
    if (skip)
      w.run = q;
    else
      any_kept = true;
    prev_end = q;
    if (!plain_next(&w, &q, '}', &done))
      return false;
  }
  plain_flush(&w, q - 1); /* all but the closing brace */
  return true;
}

/* Write the record's keys (less `skip_columns` ones) as one line to
 * `extra`, counted in *lines and *bytes; returns its line number. */
static uint32_t extra_line(view_data *v, const rec *r, bool skip_columns,
                           bool skip_stop, FILE *extra, uint32_t *lines,
                           uint64_t *bytes) {
  v->nbuf = 0;
  put1(v, '{');
  if (!plain_line(v, r, skip_columns, skip_stop)) {
    v->nbuf = 1; /* not plain: the general way, from the brace */
    js_iter it;
    js_value k, val;
    bool first = true;
    if (js_object_begin(&it, r->line, r->line + r->len, r->line)) {
      while (js_object_next(&it, &k, &val)) {
        unsigned kind = top_key_kind(&k);
        if ((kind & KEY_RECORD_TYPE) || (skip_columns && (kind & KEY_COLUMN)) ||
            (skip_stop && (kind & KEY_STOP)) ||
            (skip_columns && r->end != END_BAD && (kind & KEY_END_TS)))
          continue;
        if (!first)
          put1(v, ',');
        first = false;
        put_key(v, &k);
        put_value(v, &val, time_key_of(kind), r->line, 0);
      }
    }
  }
  put(v, "}\n", 2);
  if (!v->oom) {
    fwrite(v->buf, 1, v->nbuf, extra);
    *bytes += v->nbuf;
  }
  return (*lines)++;
}

/* ---- the detail budget ---- */

/* Whether a record starting at `start` (ns since the epoch) is embedded
 * in detail; records before detail_from and after the budget ran out are
 * not (the budget is spent in start order, so the detail is one span). */
static bool in_detail(view_data *v, int64_t start) {
  if (v->detail_full)
    return false;
  if (v->first_key != INT64_MIN && start - v->first_key < v->detail_from)
    return false;
  uint64_t used = v->extra_bytes + (v->nev + v->ntm) * VIEW_COLUMN_BYTES;
  if (used >= v->detail_budget) {
    v->detail_full = true;
    return false;
  }
  if (v->tiles)
    view_tiles_cut(v->tiles); /* a tile never straddles the page's span */
  if (start - v->base < v->detail_t0)
    v->detail_t0 = start - v->base;
  if (start - v->base > v->detail_t1)
    v->detail_t1 = start - v->base;
  return true;
}

static int64_t details_seq(view_data *v, const rec *r) {
  const js_value *d = js_get(r->f, K_details);
  uint64_t seq;
  if ((r->et == ET_COLL || r->et == ET_CE_COLL) && d && d->type == JS_OBJECT &&
      js_fields_decode(&v->sc->sub, d->ptr, d->ptr + d->len, r->line, false) &&
      js_to_u64(js_get(&v->sc->sub, K_seqNumber), &seq) && seq <= INT64_MAX)
    return (int64_t)seq;
  return -1;
}

/* ---- global numbers and parents across tiles ---- */

static bool tiling(const view_data *v) {
  return v->tiles && !v->tiles->failed;
}

/* The file of a PXN parent: (handleTag, pid) of the files, else the one
 * file with that tag; -1 when none. */
static long file_of_tag(view_data *v, uint64_t tag, int64_t pid) {
  if (!v->tags_built && v->rd) {
    v->tags_built = true;
    for (size_t i = 0; i < v->rd->n; i++) {
      const ord_identity *id = &v->rd->files[i].id;
      if (!id->has_tag)
        continue;
      pair_map_put(&v->tags, id->handle_tag, (uint64_t)id->pid, i + 1, NULL);
      pair_map_put(&v->tags, id->handle_tag, UINT64_MAX, i + 1, NULL);
    }
  }
  const uint64_t *f = pair_map_get(&v->tags, tag, (uint64_t)pid);
  if (!f)
    f = pair_map_get(&v->tags, tag, UINT64_MAX);
  return f ? (long)*f - 1 : -1;
}

/* What an item of the events' columns says beyond its times and track:
 * from an event record, or made for a GPU activity record (which has no
 * id of its own; its "parent" is the KernelLaunch that started it). */
typedef struct {
  uint8_t type;  /* ev_type, or VIEW_TYPE_GPU_ACTIVITY */
  uint32_t name; /* strings */
  uint32_t func; /* strings, 0 none */
  int64_t seq;   /* -1 none */
  bool has_id;
  uint64_t id;
  parent_kind pk;
  uint64_t parent_ref; /* local parent id, or PXN/unknown raw value */
  int64_t origin_pid;  /* PXN: originPid, else -1 */
} item_facts;

/* The global number of an item's parent among the events read so far
 * (parents start before their children), -1. */
/* The global number + 1 of (file, event id), NULL when it has none. */
static const uint64_t *global_of_get(const view_data *v, size_t file,
                                     uint64_t id) {
  if (file < v->ndense && id < v->dense[file].len && v->dense[file].slots[id])
    return &v->dense[file].slots[id];
  return pair_map_get(&v->global_of, file, id);
}

/* Gives (file, event id) the global number + 1 `value` unless it has one
 * (a repeated id keeps its first event's). A file's dense slots grow to
 * take an id only while at least about half of them would be used; other
 * ids go to the map. False when out of memory. */
static bool global_of_put(view_data *v, size_t file, uint64_t id,
                          uint64_t value) {
  if (file < v->ndense) {
    view_id_dense *d = &v->dense[file];
    if (id >= d->len && id < 2 * (uint64_t)d->used + 4096) {
      size_t len = (size_t)id + 1 + d->len / 2;
      uint64_t *slots = realloc(d->slots, len * sizeof *slots);
      if (!slots)
        return false;
      memset(slots + d->len, 0, (len - d->len) * sizeof *slots);
      d->slots = slots;
      d->len = len;
    }
    if (id < d->len) {
      if (d->slots[id] ||
          (v->global_of.n && pair_map_get(&v->global_of, file, id)))
        return true; /* numbered before */
      d->slots[id] = value;
      d->used++;
      return true;
    }
  }
  return pair_map_put(&v->global_of, file, id, value, NULL) != NULL;
}

static int64_t global_parent(view_data *v, const item_facts *x, size_t file) {
  const uint64_t *g = NULL;
  if (x->pk == PAR_LOCAL) {
    g = global_of_get(v, file, x->parent_ref);
  } else if (x->pk == PAR_FOREIGN) {
    long f = file_of_tag(v, x->parent_ref >> 48, x->origin_pid);
    if (f >= 0)
      g = global_of_get(v, (size_t)f, x->parent_ref & PXN_ID_MASK);
  }
  return g ? (int64_t)*g - 1 : -1;
}

/* The next global event number, remembered by (file, id). */
static uint64_t number_event(view_data *v, const item_facts *x, size_t file) {
  uint64_t g = v->ev_global++;
  if (v->tiles && x->has_id && !global_of_put(v, file, x->id, g + 1))
    v->oom = true;
  return g;
}

/* ---- records ---- */

static uint8_t end_code(const rec *r) {
  return r->end == END_STOPPED     ? 0
         : r->end == END_RECLAIMED ? 1
         : r->end == END_INFLIGHT  ? 2
                                   : 3;
}

/* An event beyond the page's detail, into the open tile. */
static bool tile_event(view_data *v, const rec *r, const item_facts *x,
                       size_t file, long track, int64_t start, int64_t end,
                       bool plain_stop) {
  view_tiles *t = v->tiles;
  FILE *out = view_tiles_extra(t, v->ev_global, v->tm_global);
  if (!out) {
    v->dropped_events++;
    return true; /* reported at the end */
  }
  view_tile_event e;
  memset(&e, 0, sizeof e);
  e.parent = global_parent(v, x, file);
  number_event(v, x, file);
  e.start = start - v->base;
  e.dur = end - start;
  e.id = x->has_id && x->id < (UINT64_C(1) << 53) ? (int64_t)x->id : -1;
  e.rank = r->rank;
  e.seq = x->seq;
  e.track = (uint32_t)track;
  e.name = x->name;
  e.func = x->func;
  e.type = x->type;
  e.end = end_code(r);
  e.pk = (uint8_t)x->pk;
  e.line = extra_line(v, r, true, plain_stop, out, &t->lines, &t->extra_bytes);
  v->tiled_events++;
  return view_tiles_add_event(t, &e) && !v->oom;
}

/* An item of the events' columns (an event or a GPU activity) on the track
 * of (file, ctx, os_tid): in the page, in a tile, or in the overview
 * only. */
static bool add_item(view_data *v, const rec *r, const item_facts *x,
                     size_t file, int64_t ctx, int64_t os_tid, FILE *extra) {
  int64_t start = r->start.ts, end = rec_end_time(r);
  if (end == INT64_MIN || end < start)
    end = start;
  if (x->seq >= 0)
    view_ov_note(&v->ov, start - v->base, end - start, x->seq, ctx,
                 (uint32_t)file, x->func);
  bool embed = in_detail(v, start);
  if (!embed && !tiling(v)) {
    v->dropped_events++;
    return !v->ov.oom;
  }
  long track = tl_place(&v->tl, file, ctx, os_tid, start, end, 0, NULL, NULL);
  if (track < 0)
    return true; /* counted in tl.unplaced */
  /* stop is implied (start + dur, same pid/tid) for a plain stopped event */
  bool plain_stop = r->end == END_STOPPED && r->stop.present &&
                    r->stop.pid == r->start.pid && r->stop.tid == r->start.tid;
  if (!embed)
    return tile_event(v, r, x, file, track, start, end, plain_stop);
  if (!grow((void **)&v->ev, &v->cap_ev, v->nev, sizeof *v->ev))
    return false;
  int64_t gparent = v->tiles ? global_parent(v, x, file) : -1;
  if (v->nev + v->ntm == 0) { /* the page's run starts here */
    v->ev_base = v->ev_global;
    v->tm_base = v->tm_global;
  }
  number_event(v, x, file);
  view_event *e = &v->ev[v->nev++];
  memset(e, 0, sizeof *e);
  e->start = start - v->base;
  e->dur = end - start;
  e->rank = r->rank;
  e->seq = x->seq;
  e->has_id = x->has_id;
  e->id = x->id;
  e->pk = (uint8_t)x->pk;
  e->parent_ref = x->parent_ref;
  e->parent = -1;
  e->gparent = gparent;
  e->origin_pid = x->origin_pid;
  e->track = (uint32_t)track;
  e->file = (uint32_t)file;
  e->name = x->name;
  e->func = x->func;
  e->type = x->type;
  e->end = end_code(r);
  e->line =
      extra_line(v, r, true, plain_stop, extra, &v->lines, &v->extra_bytes);
  return !v->oom;
}

static bool add_event(view_data *v, const rec *r, size_t file, FILE *extra) {
  if (!r->start.present) {
    v->skipped++;
    return true;
  }
  item_facts x;
  x.type = (uint8_t)r->et;
  char name[160];
  tl_event_name(r, &v->sc->sub, false, name, sizeof name);
  x.name = str_id(v, name);
  x.func = str_of(v, js_get(r->f, K_func));
  x.seq = details_seq(v, r);
  x.has_id = r->has_id;
  x.id = r->id;
  x.pk = r->parent;
  x.parent_ref = r->parent == PAR_LOCAL ? r->parent_id : r->parent_raw;
  if (!js_to_i64(js_get(r->f, K_originPid), &x.origin_pid))
    x.origin_pid = -1;
  return add_item(v, r, &x, file, r->has_ctx ? r->ctx : -1, r->start.tid,
                  extra);
}

/* A GPU activity (CUPTI kernel) on its GPU lane, linked to its
 * KernelLaunch as to a parent. */
static bool add_activity(view_data *v, const rec *r, size_t file, FILE *extra) {
  if (!r->start.present || !r->stop.present) {
    v->skipped++;
    return true;
  }
  item_facts x;
  memset(&x, 0, sizeof x);
  x.type = VIEW_TYPE_GPU_ACTIVITY;
  char name[256];
  tl_activity_name(r, name, sizeof name);
  x.name = str_id(v, name);
  x.seq = -1;
  x.origin_pid = -1;
  x.pk = js_to_hex_u64(js_get(r->f, K_launchId), &x.parent_ref) ? PAR_LOCAL
                                                                : PAR_NONE;
  v->gpu_activities++;
  return add_item(v, r, &x, file, r->has_ctx ? r->ctx : -1, tl_gpu_tid(r),
                  extra);
}

/* The global number of a timing record's event among those read so far
 * (it starts before its timing record), -1. */
static int64_t global_event(view_data *v, size_t file, uint64_t event_id) {
  const uint64_t *g = global_of_get(v, file, event_id);
  return g ? (int64_t)*g - 1 : -1;
}

static bool add_timing(view_data *v, const rec *r, size_t file, FILE *extra) {
  int64_t ctx = -1;
  rec_timing times;
  rec_timing_decode(r, &v->sc->sub, &times);
  int64_t start = times.start, stop = times.stop;
  if (start == INT64_MIN || stop == INT64_MIN) {
    v->skipped++;
    return true;
  }
  if (stop < start)
    stop = start;
  bool embed = in_detail(v, start);
  if (!embed && !tiling(v)) {
    v->dropped_timing++;
    return true;
  }
  js_to_i64(js_get(r->f, K_ctx), &ctx);
  long track = tl_place(&v->tl, file, ctx, TL_COMPLETION_TID, start, stop, 0,
                        NULL, NULL);
  if (track < 0)
    return true;
  uint64_t event_id;
  if (!js_to_hex_u64(js_get(r->f, K_eventId), &event_id))
    event_id = UINT64_MAX;
  char func[64] = "?", source[16] = "?", name[96];
  js_str_copy(js_get(r->f, K_func), func, sizeof func);
  js_str_copy(js_get(r->f, K_source), source, sizeof source);
  snprintf(name, sizeof name, "%s (%s)", func, source);
  int64_t gev = v->tiles ? global_event(v, file, event_id) : -1;
  if (!embed) {
    view_tiles *tl = v->tiles;
    FILE *out = view_tiles_extra(tl, v->ev_global, v->tm_global);
    if (!out) {
      v->dropped_timing++;
      return true;
    }
    view_tile_timing t = {
        start - v->base, stop - start,      gev, (uint32_t)track,
        str_id(v, name), str_id(v, source), 0};
    v->tm_global++;
    t.line = extra_line(v, r, false, false, out, &tl->lines, &tl->extra_bytes);
    v->tiled_timing++;
    return view_tiles_add_timing(tl, &t) && !v->oom;
  }
  if (!grow((void **)&v->tm, &v->cap_tm, v->ntm, sizeof *v->tm))
    return false;
  if (v->nev + v->ntm == 0) { /* the page's run starts here */
    v->ev_base = v->ev_global;
    v->tm_base = v->tm_global;
  }
  v->tm_global++;
  view_timing *t = &v->tm[v->ntm++];
  memset(t, 0, sizeof *t);
  t->start = start - v->base;
  t->dur = stop - start;
  t->ev = -1;
  t->gev = gev;
  t->event_id = event_id;
  t->track = (uint32_t)track;
  t->file = (uint32_t)file;
  t->name = str_id(v, name);
  t->source = str_id(v, source);
  t->line = extra_line(v, r, false, false, extra, &v->lines, &v->extra_bytes);
  return !v->oom;
}

/* Marks go with the detail when the page has tiles: those outside the
 * page's own span to the open tile; without tiles all are in the page. */
static bool add_mark(view_data *v, const rec *r, size_t file) {
  if (!r->has_ts) {
    v->skipped++;
    return true;
  }
  view_mark m;
  m.ts = r->ts - v->base;
  m.file = (uint32_t)file;
  m.kind = 0;
  js_iter it;
  js_value k, val;
  if (js_object_begin(&it, r->line, r->line + r->len, r->line))
    while (js_object_next(&it, &k, &val))
      if (js_str_eq(&k, "kind"))
        m.kind = str_of(v, &val);
  m.label = str_of(v, js_get(r->f, K_label));
  if (!js_to_i64(js_get(r->f, K_step), &m.step))
    m.step = INT64_MIN;
  if (tiling(v) && !in_detail(v, r->ts) &&
      view_tiles_extra(v->tiles, v->ev_global, v->tm_global)) {
    view_tile_mark tm = {m.ts, m.step, m.file, m.kind, m.label};
    v->tiled_marks++;
    return view_tiles_add_mark(v->tiles, &tm);
  }
  if (!grow((void **)&v->marks, &v->cap_marks, v->nmarks, sizeof *v->marks))
    return false;
  v->marks[v->nmarks++] = m;
  return true;
}

bool view_data_add(view_data *v, const rec *r, size_t file, int64_t key,
                   FILE *extra) {
  if (!v->have_base && key != INT64_MIN) {
    v->base = key - key % 1000000000; /* a whole second */
    v->have_base = true;
    v->first_key = key;
  }
  tl_note(&v->tl, file, r);
  switch (r->rt) {
  case RT_EVENT:
    return add_event(v, r, file, extra);
  case RT_TIMING:
    return add_timing(v, r, file, extra);
  case RT_GPU_ACTIVITY:
    return add_activity(v, r, file, extra);
  case RT_MARK:
    return add_mark(v, r, file);
  case RT_STATE:
    v->late_states++;
    return true;
  default:
    return true;
  }
}

/* ---- resolving and writing ---- */

static void resolve(view_data *v, const ord_reader *rd) {
  pair_map rows, tags;
  pair_map_init(&rows);
  pair_map_init(&tags);
  for (size_t i = 0; i < v->nev; i++)
    if (v->ev[i].has_id)
      pair_map_put(&rows, v->ev[i].file, v->ev[i].id, i + 1, NULL);
  for (size_t i = 0; i < rd->n; i++) {
    const ord_identity *id = &rd->files[i].id;
    if (!id->has_tag)
      continue;
    pair_map_put(&tags, id->handle_tag, (uint64_t)id->pid, i + 1, NULL);
    pair_map_put(&tags, id->handle_tag, UINT64_MAX, i + 1, NULL);
  }
  for (size_t i = 0; i < v->nev; i++) {
    view_event *e = &v->ev[i];
    const uint64_t *row = NULL;
    if (e->pk == PAR_LOCAL) {
      row = pair_map_get(&rows, e->file, e->parent_ref);
    } else if (e->pk == PAR_FOREIGN) {
      uint64_t tag = e->parent_ref >> 48;
      const uint64_t *f = pair_map_get(&tags, tag, (uint64_t)e->origin_pid);
      if (!f)
        f = pair_map_get(&tags, tag, UINT64_MAX);
      if (f)
        row = pair_map_get(&rows, *f - 1, e->parent_ref & PXN_ID_MASK);
    }
    e->parent = row ? (int64_t)*row - 1 : -1;
  }
  for (size_t i = 0; i < v->ntm; i++) {
    const uint64_t *row = pair_map_get(&rows, v->tm[i].file, v->tm[i].event_id);
    v->tm[i].ev = row ? (int64_t)*row - 1 : -1;
  }
  pair_map_free(&rows);
  pair_map_free(&tags);
}

#define COLUMN(w, name, n, expr)                                               \
  do {                                                                         \
    jw_key(w, name);                                                           \
    jw_arr_begin(w);                                                           \
    for (size_t i = 0; i < (n); i++)                                           \
      jw_i64(w, (int64_t)(expr));                                              \
    jw_arr_end(w);                                                             \
  } while (0)

static void write_tracks(view_data *v, jsonw *w) {
  const timeline *t = &v->tl;
  jw_key(w, "tracks");
  jw_arr_begin(w);
  for (size_t k = 0; k < t->ntracks; k++) {
    const tl_track *tk = &t->tracks[k];
    const tl_ctx *c = tl_ctx_of(t, tk->file, tk->ctx);
    jw_obj_begin(w);
    jw_key(w, "file");
    jw_u64(w, tk->file);
    jw_key(w, "ctx");
    jw_i64(w, tk->ctx);
    jw_key(w, "comm");
    jw_str(w, c && c->name ? intern_str(&t->names, c->name) : "");
    jw_key(w, "commId");
    if (c && c->has_comm)
      jw_hex(w, c->comm_id);
    else
      jw_null(w);
    jw_key(w, "rank");
    jw_i64(w, c ? c->rank : -1);
    jw_key(w, "nranks");
    jw_i64(w, c ? c->nranks : -1);
    jw_key(w, "completion");
    jw_bool(w, tk->os_tid == TL_COMPLETION_TID);
    bool gpu = tl_tid_is_gpu(tk->os_tid);
    jw_key(w, "gpu"); /* a GPU lane: its name */
    if (gpu) {
      char lane_name[64];
      tl_gpu_lane_name(tk->os_tid, lane_name, sizeof lane_name);
      jw_str(w, lane_name);
    } else {
      jw_null(w);
    }
    jw_key(w, "tid");
    if (tk->os_tid == TL_COMPLETION_TID || gpu) {
      jw_null(w);
    } else {
      jw_i64(w, tk->os_tid);
    }
    jw_key(w, "thread");
    const uint64_t *nm =
        tk->os_tid == TL_COMPLETION_TID || gpu
            ? NULL
            : pair_map_get(&t->thread_names, tk->file, (uint64_t)tk->os_tid);
    jw_str(w, nm ? intern_str(&t->names, (uint32_t)*nm) : "");
    jw_key(w, "lane");
    jw_i64(w, tk->lane);
    jw_obj_end(w);
  }
  jw_arr_end(w);
}

static void write_files(jsonw *w, const ord_reader *rd) {
  jw_key(w, "files");
  jw_arr_begin(w);
  for (size_t i = 0; i < rd->n; i++) {
    const ord_identity *id = &rd->files[i].id;
    const char *path = rd->files[i].path;
    const char *slash = strrchr(path, '/');
    jw_obj_begin(w);
    jw_key(w, "path");
    jw_str(w, slash ? slash + 1 : path);
    jw_key(w, "host");
    jw_str(w, id->has_process ? id->host : "");
    jw_key(w, "pid");
    jw_i64(w, id->has_process ? id->pid : -1);
    jw_key(w, "globalRank");
    if (id->has_process && id->global_rank >= 0)
      jw_i64(w, id->global_rank);
    else
      jw_null(w);
    jw_key(w, "tag");
    if (id->has_tag)
      jw_hex(w, id->handle_tag);
    else
      jw_null(w);
    jw_obj_end(w);
  }
  jw_arr_end(w);
}

static void write_events(view_data *v, jsonw *w) {
  const view_event *e = v->ev;
  size_t n = v->nev;
  jw_key(w, "events");
  jw_obj_begin(w);
  jw_newline(w);
  COLUMN(w, "track", n, e[i].track);
  jw_newline(w);
  COLUMN(w, "start", n, e[i].start);
  jw_newline(w);
  COLUMN(w, "dur", n, e[i].dur);
  jw_newline(w);
  COLUMN(w, "type", n, e[i].type);
  COLUMN(w, "name", n, e[i].name);
  COLUMN(w, "func", n, e[i].func);
  COLUMN(w, "end", n, e[i].end);
  jw_newline(w);
  /* ids are < 2^47 in cclscope traces; -1 for none or one too large */
  COLUMN(w, "id", n,
         e[i].has_id && e[i].id < (UINT64_C(1) << 53) ? (int64_t)e[i].id : -1);
  /* parents as global numbers (= rows when the page has no tiles) */
  COLUMN(w, "parent", n,
         e[i].parent >= 0 ? e[i].parent + (int64_t)v->ev_base : e[i].gparent);
  COLUMN(w, "pk", n, e[i].pk);
  COLUMN(w, "rank", n, e[i].rank);
  COLUMN(w, "seq", n, e[i].seq);
  jw_newline(w);
  COLUMN(w, "line", n, e[i].line);
  jw_obj_end(w);
  jw_newline(w);
}

static void write_timing(view_data *v, jsonw *w) {
  const view_timing *t = v->tm;
  size_t n = v->ntm;
  jw_key(w, "timing");
  jw_obj_begin(w);
  COLUMN(w, "track", n, t[i].track);
  COLUMN(w, "start", n, t[i].start);
  COLUMN(w, "dur", n, t[i].dur);
  COLUMN(w, "ev", n, t[i].ev >= 0 ? t[i].ev + (int64_t)v->ev_base : t[i].gev);
  COLUMN(w, "name", n, t[i].name);
  COLUMN(w, "source", n, t[i].source);
  COLUMN(w, "line", n, t[i].line);
  jw_obj_end(w);
  jw_newline(w);
}

static void write_marks(view_data *v, jsonw *w) {
  jw_key(w, "marks");
  jw_arr_begin(w);
  for (size_t i = 0; i < v->nmarks; i++) {
    const view_mark *m = &v->marks[i];
    jw_obj_begin(w);
    jw_key(w, "file");
    jw_u64(w, m->file);
    jw_key(w, "ts");
    jw_i64(w, m->ts);
    jw_key(w, "kind");
    jw_str(w, intern_str(&v->strings, m->kind));
    jw_key(w, "label");
    jw_str(w, intern_str(&v->strings, m->label));
    jw_key(w, "step");
    if (m->step == INT64_MIN)
      jw_null(w);
    else
      jw_i64(w, m->step);
    jw_obj_end(w);
  }
  jw_arr_end(w);
}

static void write_detail(view_data *v, jsonw *w) {
  jw_key(w, "detail");
  jw_obj_begin(w);
  jw_key(w, "complete");
  jw_bool(w, v->dropped_events + v->dropped_timing + v->tiled_events +
                     v->tiled_timing ==
                 0);
  jw_key(w, "from");
  jw_i64(w, v->detail_t0 == INT64_MAX ? 0 : v->detail_t0);
  jw_key(w, "to");
  jw_i64(w, v->detail_t1 == INT64_MIN ? 0 : v->detail_t1);
  jw_key(w, "firstRecord");
  jw_i64(w, v->first_key == INT64_MIN ? 0 : v->first_key - v->base);
  jw_key(w, "budgetBytes");
  if (v->detail_budget == UINT64_MAX)
    jw_null(w);
  else
    jw_u64(w, v->detail_budget);
  jw_key(w, "droppedEvents");
  jw_u64(w, v->dropped_events);
  jw_key(w, "droppedTiming");
  jw_u64(w, v->dropped_timing);
  jw_key(w, "tiledEvents");
  jw_u64(w, v->tiled_events);
  jw_key(w, "tiledTiming");
  jw_u64(w, v->tiled_timing);
  jw_key(w, "tiledMarks");
  jw_u64(w, v->tiled_marks);
  jw_key(w, "eventBase");
  jw_u64(w, v->ev_base);
  jw_key(w, "timingBase");
  jw_u64(w, v->tm_base);
  jw_obj_end(w);
}

/* How many bytes of tiles the page keeps loaded at most: as much as its
 * own detail, and 8 tiles at least. */
static uint64_t tile_load_bytes(const view_data *v) {
  uint64_t at_least = v->tiles ? 8 * v->tiles->tile_bytes : 0;
  uint64_t b = v->detail_budget > (UINT64_C(1) << 40) ? 0 : v->detail_budget;
  return b > at_least ? b : at_least;
}

void view_data_write(view_data *v, const ord_reader *rd, FILE *out,
                     const char *summary_json, size_t summary_len,
                     const summary *sum) {
  if (v->tiles)
    view_tiles_cut(v->tiles); /* the last tile */
  resolve(v, rd);
  jsonw *w = malloc(sizeof *w);
  if (!w) {
    v->oom = true;
    return;
  }
  jw_init(w, out);
  jw_obj_begin(w);
  jw_key(w, "format");
  jw_u64(w, 1);
  jw_key(w, "producer");
  jw_str(w, "cclscope view " CCLSCOPE_VERSION);
  jw_key(w, "baseUs"); /* a string: exact beyond 2^53 */
  char base[32];
  snprintf(base, sizeof base, "%" PRId64, v->base / 1000);
  jw_str(w, base);
  jw_key(w, "inputs");
  jw_obj_begin(w);
  jw_key(w, "files");
  jw_u64(w, rd->n);
  jw_key(w, "records");
  jw_u64(w, rd->records);
  jw_key(w, "invalidLines");
  jw_u64(w, rd->invalid);
  jw_key(w, "unplaced");
  jw_u64(w, v->tl.unplaced);
  jw_key(w, "withoutTime");
  jw_u64(w, v->skipped);
  jw_key(w, "lateStates");
  jw_u64(w, v->late_states);
  jw_key(w, "gpuActivities");
  jw_u64(w, v->gpu_activities);
  jw_obj_end(w);
  write_detail(v, w);
  jw_newline(w);
  view_tiles_write_index(v->tiles, tile_load_bytes(v), w);
  view_ov_write(&v->ov, &v->tl, rd, sum, w);
  if (v->ov.oom)
    v->oom = true;
  jw_key(w, "types");
  jw_arr_begin(w);
  for (int t = 0; t < ET_COUNT; t++)
    jw_str(w, ev_type_short_name((ev_type)t));
  jw_str(w, "GpuActivity"); /* VIEW_TYPE_GPU_ACTIVITY */
  jw_arr_end(w);
  jw_newline(w);
  jw_key(w, "strings");
  jw_arr_begin(w);
  jw_str(w, "");
  for (size_t i = 0; i < v->strings.n; i++)
    jw_str(w, v->strings.strs[i]);
  jw_arr_end(w);
  jw_newline(w);
  write_files(w, rd);
  jw_newline(w);
  write_tracks(v, w);
  jw_newline(w);
  write_events(v, w);
  write_timing(v, w);
  write_marks(v, w);
  jw_newline(w);
  jw_key(w, "summary");
  if (summary_json && summary_len)
    jw_raw(w, summary_json, summary_len);
  else
    jw_null(w);
  jw_obj_end(w);
  jw_flush(w);
  free(w);
}
