/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/e2e/check_replay.c — did `ncclemu --replay` make the plugin record
 * what was recorded? Compares the traces of a recording with the traces
 * of its replay, process by process (paired by host name and the
 * communicators each process initialised: commId and rank):
 *
 *   the same communicator inits and finalizes;
 *   event by event in start order: the same type, the same kind of parent
 *   (none, dropped, unknown, or the TYPE of the local parent, or of the
 *   PXN parent in another file), the same end (stopped or not), the same
 *   number of states, the same descriptor: `details` member by member
 *   (but for the ids and pids that a replay renumbers: parentGroupId, a
 *   ProxyOp's pid), `func` and `rank`;
 *   threads: the recorded tid of each event maps to the replayed tid of
 *   its counterpart, and that map is a bijection.
 *
 * With --paced (a replay with --speed recorded): the replayed events span
 * at least the recorded time (first start to last start, over all files).
 *
 * Reads the traces with the CLI's read layer (exact nanosecond times).
 * usage: check_replay RECORDED_DIR REPLAYED_DIR [--paced]
 * Prints what it compared and every mismatch; exit 0 only if none.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read/trace_reader.h"
#include "read/trace_record.h"

#define ID_MASK ((UINT64_C(1) << 46) - 1)
#define MAX_FILES 64
#define MAX_REPORTS 30

typedef struct {
  uint64_t id;
  int type; /* ev_type */
  int parent_kind;
  uint64_t parent_id, parent_raw;
  int64_t start_ts, start_tid;
  bool stopped;
  size_t nstates;
  int parent_type; /* resolved: ev_type, -1 unknown */
  int depth;       /* parents above it (how a replay orders equal times) */
  size_t line;     /* position in the file */
  char *descr;     /* func, rank and details as "key=value;" text */
} event_t;

typedef struct {
  uint64_t comm_id;
  int64_t rank, nranks;
  bool finalize;
} life_t;

typedef struct {
  char path[4096];
  char host[64];
  uint16_t tag;
  event_t *ev;
  size_t nev, cap;
  event_t **by_id; /* sorted by id */
  life_t life[64];
  int nlife;
  char key[2048]; /* sorted inits: pairs recorded with replayed (+ host) */
  bool minimal;   /* a minimal_profiler recording (fewer details, no host) */
} file_t;

typedef struct {
  file_t f[MAX_FILES];
  int n;
} dir_t;

static int mismatches;

static void mismatch(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
static void mismatch(const char *fmt, ...) {
  if (++mismatches > MAX_REPORTS)
    return;
  va_list ap;
  va_start(ap, fmt);
  fputs("MISMATCH: ", stdout);
  vprintf(fmt, ap);
  fputc('\n', stdout);
  va_end(ap);
}

static size_t count_states(const rec *r) {
  const js_value *st = js_get(r->f, K_states);
  js_iter it;
  js_value v, k, x;
  size_t n = 0;
  if (st == NULL || st->type != JS_ARRAY ||
      !js_array_begin(&it, st->ptr, st->ptr + st->len, r->line))
    return 0;
  while (js_array_next(&it, &v)) {
    uint64_t count = 1;
    js_iter o;
    if (v.type == JS_OBJECT &&
        js_object_begin(&o, v.ptr, v.ptr + v.len, r->line))
      while (js_object_next(&o, &k, &x))
        if (k.len == 5 && memcmp(k.ptr, "count", 5) == 0)
          js_to_u64(&x, &count);
    n += count;
  }
  return n;
}

static int cmp_life(const void *a, const void *b) {
  const life_t *x = a, *y = b;
  if (x->finalize != y->finalize)
    return x->finalize ? 1 : -1;
  if (x->comm_id != y->comm_id)
    return x->comm_id < y->comm_id ? -1 : 1;
  return x->rank < y->rank ? -1 : x->rank > y->rank ? 1 : 0;
}

/* Start order as a replay makes the calls: by time, then (equal times)
 * parents before children, then the order of the file. */
static int cmp_start(const void *a, const void *b) {
  const event_t *x = a, *y = b;
  if (x->start_ts != y->start_ts)
    return x->start_ts < y->start_ts ? -1 : 1;
  if (x->depth != y->depth)
    return x->depth < y->depth ? -1 : 1;
  return x->line < y->line ? -1 : x->line > y->line ? 1 : 0;
}

static void append(char **buf, size_t *len, size_t *cap, const char *p,
                   size_t n) {
  if (*len + n + 1 > *cap) {
    *cap = (*len + n + 1) * 2;
    *buf = realloc(*buf, *cap);
    if (*buf == NULL) {
      perror("check_replay");
      exit(2);
    }
  }
  memcpy(*buf + *len, p, n);
  *len += n;
  (*buf)[*len] = '\0';
}

static bool renumbered(const js_value *k, int type) {
  return (k->len == 13 && memcmp(k->ptr, "parentGroupId", 13) == 0) ||
         (type == ET_PROXY_OP && k->len == 3 && memcmp(k->ptr, "pid", 3) == 0);
}

/* What the descriptor said, as comparable text. */
static char *descr_text(const rec *r) {
  char *buf = NULL;
  size_t len = 0, cap = 0;
  char head[64];
  snprintf(head, sizeof head, "rank=%" PRId64 ";", r->rank);
  append(&buf, &len, &cap, head, strlen(head));
  const js_value *func = js_get(r->f, K_func);
  if (func != NULL) {
    append(&buf, &len, &cap, "func=", 5);
    append(&buf, &len, &cap, func->ptr, func->len);
    append(&buf, &len, &cap, ";", 1);
  }
  const js_value *d = js_get(r->f, K_details);
  js_iter it;
  js_value k, v;
  if (d != NULL && d->type == JS_OBJECT &&
      js_object_begin(&it, d->ptr, d->ptr + d->len, r->line))
    while (js_object_next(&it, &k, &v)) {
      if (renumbered(&k, (int)r->et))
        continue;
      append(&buf, &len, &cap, k.ptr, k.len);
      append(&buf, &len, &cap, "=", 1);
      append(&buf, &len, &cap, v.ptr, v.len);
      append(&buf, &len, &cap, ";", 1);
    }
  return buf;
}

static void add_event(file_t *f, const rec *r) {
  if (f->nev == f->cap) {
    f->cap = f->cap ? f->cap * 2 : 256;
    f->ev = realloc(f->ev, f->cap * sizeof *f->ev);
    if (f->ev == NULL) {
      perror("check_replay");
      exit(2);
    }
  }
  event_t *e = &f->ev[f->nev++];
  memset(e, 0, sizeof *e);
  e->id = r->id;
  e->type = (int)r->et;
  e->parent_kind = (int)r->parent;
  e->parent_id = r->parent_id;
  e->parent_raw = r->parent_raw;
  e->start_ts = r->start.ts;
  e->start_tid = r->start.tid;
  e->stopped = r->end == END_STOPPED;
  e->nstates = count_states(r);
  e->parent_type = -1;
  e->depth = -1;
  e->line = f->nev - 1;
  e->descr = descr_text(r);
}

static bool load_file(file_t *f, const char *path) {
  snprintf(f->path, sizeof f->path, "%s", path);
  tr_file tf;
  if (tr_open(&tf, path, 1 << 20) != 0) {
    mismatch("cannot open %s", path);
    return false;
  }
  f->minimal = tf.format == TR_FORMAT_MINIMAL_PROFILER;
  static rec_scratch s;
  rec_scratch_init(&s);
  /* late states, by event id, added once every event is read */
  uint64_t *late = NULL;
  size_t nlate = 0, caplate = 0;
  while (tr_next(&tf) == 1) {
    rec r;
    if (!rec_decode(&r, &s, tf.line, tf.line_len)) {
      mismatch("%s:%llu: not a JSON object", path,
               (unsigned long long)tf.line_no);
      continue;
    }
    if (r.rt == RT_PROCESS) {
      uint64_t tag = 0;
      js_to_hex_u64(js_get(r.f, K_handleTag), &tag);
      f->tag = (uint16_t)tag;
      js_str_copy(js_get(r.f, K_hostname), f->host, sizeof f->host);
    } else if (r.rt == RT_EVENT && r.et == ET_LIFECYCLE) {
      if (f->nlife < 64) {
        life_t *l = &f->life[f->nlife++];
        l->comm_id = r.comm_id;
        l->rank = r.rank;
        js_to_i64(js_get(r.f, K_nranks), &l->nranks);
        l->finalize = js_str_eq(js_get(r.f, K_func), "ProfilerFinalize");
      }
    } else if (r.rt == RT_EVENT) {
      add_event(f, &r);
    } else if (r.rt == RT_STATE) {
      uint64_t id;
      if (js_to_hex_u64(js_get(r.f, K_eventId), &id)) {
        if (nlate == caplate) {
          caplate = caplate ? caplate * 2 : 64;
          late = realloc(late, caplate * sizeof *late);
        }
        late[nlate++] = id;
      }
    }
  }
  tr_close(&tf);
  for (size_t i = 0; i < nlate; i++)
    for (size_t k = 0; k < f->nev; k++)
      if (f->ev[k].id == late[i])
        f->ev[k].nstates++;
  free(late);
  qsort(f->life, (size_t)f->nlife, sizeof *f->life, cmp_life);
  /* The key is the communicators; the host is compared apart (same_process):
   * a minimal_profiler recording names no host, and its replay runs here. */
  size_t len = 0;
  f->key[0] = '\0';
  for (int i = 0; i < f->nlife && len < sizeof f->key - 64; i++)
    if (!f->life[i].finalize)
      len += (size_t)snprintf(f->key + len, sizeof f->key - len,
                              " %" PRIx64 ":%" PRId64, f->life[i].comm_id,
                              f->life[i].rank);
  return true;
}

/* A replayed file belongs to a recorded one when it initialised the same
 * communicators at the same ranks on the same host (any host when the
 * recording did not name one). */
static bool same_process(const file_t *recorded, const file_t *replayed) {
  if (strcmp(recorded->key, replayed->key) != 0)
    return false;
  return recorded->host[0] == '\0' ||
         strcmp(recorded->host, replayed->host) == 0;
}

static int cmp_id(const void *a, const void *b) {
  const event_t *x = *(const event_t *const *)a,
                *y = *(const event_t *const *)b;
  return x->id < y->id ? -1 : x->id > y->id ? 1 : 0;
}

/* Events by id (f->by_id, sorted), for parent lookups. */
static event_t *find_event(const file_t *f, uint64_t id) {
  size_t lo = 0, hi = f->nev;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (f->by_id[mid]->id < id)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < f->nev && f->by_id[lo]->id == id ? f->by_id[lo] : NULL;
}

/* The parent as a replay finds it: a local id, an unknown parent's hint or
 * handle of this process, a PXN parent in the file whose handle tag the
 * raw value carries. */
static event_t *parent_of(dir_t *d, int fi, const event_t *e) {
  const file_t *f = &d->f[fi];
  switch (e->parent_kind) {
  case PAR_LOCAL:
    return find_event(f, e->parent_id);
  case PAR_UNKNOWN: {
    event_t *p = find_event(f, e->parent_raw);
    if (p == NULL && (uint16_t)(e->parent_raw >> 48) == f->tag)
      p = find_event(f, e->parent_raw & ID_MASK);
    return p;
  }
  case PAR_FOREIGN:
    for (int k = 0; k < d->n; k++)
      if (k != fi && d->f[k].tag == (uint16_t)(e->parent_raw >> 48))
        return find_event(&d->f[k], e->parent_raw & ID_MASK);
    return NULL;
  default:
    return NULL;
  }
}

static int depth_of(dir_t *d, int fi, event_t *e, int guard) {
  if (e->depth >= 0)
    return e->depth;
  e->depth = 0; /* also ends a cycle */
  event_t *p = guard < 32 ? parent_of(d, fi, e) : NULL;
  if (p != NULL) {
    int pf = fi;
    for (int k = 0; k < d->n; k++)
      if (p >= d->f[k].ev && p < d->f[k].ev + d->f[k].nev)
        pf = k;
    e->depth = depth_of(d, pf, p, guard + 1) + 1;
  }
  return e->depth;
}

/* The parent's type: in the file (local) or in the file whose handle tag
 * the raw value carries (PXN); then the start order. */
static void resolve_parents(dir_t *d) {
  for (int fi = 0; fi < d->n; fi++) {
    file_t *f = &d->f[fi];
    f->by_id = calloc(f->nev + 1, sizeof *f->by_id);
    if (f->by_id == NULL) {
      perror("check_replay");
      exit(2);
    }
    for (size_t i = 0; i < f->nev; i++)
      f->by_id[i] = &f->ev[i];
    qsort(f->by_id, f->nev, sizeof *f->by_id, cmp_id);
  }
  for (int fi = 0; fi < d->n; fi++) {
    file_t *f = &d->f[fi];
    for (size_t i = 0; i < f->nev; i++) {
      event_t *e = &f->ev[i];
      const event_t *p = NULL;
      if (e->parent_kind == PAR_LOCAL || e->parent_kind == PAR_FOREIGN)
        p = parent_of(d, fi, e);
      e->parent_type = p != NULL ? p->type : -1;
      depth_of(d, fi, e, 0);
    }
  }
  /* sorting moves events: only after every file's parents are resolved */
  for (int fi = 0; fi < d->n; fi++)
    qsort(d->f[fi].ev, d->f[fi].nev, sizeof *d->f[fi].ev, cmp_start);
}

/* First start to last start over every file, in ns. */
static int64_t span_of(const dir_t *d) {
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (int i = 0; i < d->n; i++)
    for (size_t k = 0; k < d->f[i].nev; k++) {
      int64_t t = d->f[i].ev[k].start_ts;
      lo = t < lo ? t : lo;
      hi = t > hi ? t : hi;
    }
  return hi >= lo ? hi - lo : 0;
}

static bool load_dir(dir_t *d, char *dir) {
  tr_inputs in;
  memset(&in, 0, sizeof in);
  if (!tr_inputs_collect(&in, 1, &dir))
    return false;
  for (size_t i = 0; i < in.n && d->n < MAX_FILES; i++)
    if (load_file(&d->f[d->n], in.paths[i]))
      d->n++;
  tr_inputs_free(&in);
  resolve_parents(d);
  return true;
}

static const char *parent_text(const event_t *e, char *buf, size_t n) {
  static const char *kinds[] = {"none",    "local",   "foreign",
                                "unknown", "dropped", "bad"};
  const char *kind =
      e->parent_kind >= 0 && e->parent_kind <= 5 ? kinds[e->parent_kind] : "?";
  if (e->parent_kind == PAR_LOCAL || e->parent_kind == PAR_FOREIGN)
    snprintf(buf, n, "%s %s", kind,
             e->parent_type >= 0 ? ev_type_short_name((ev_type)e->parent_type)
                                 : "(not in the files)");
  else
    snprintf(buf, n, "%s", kind);
  return buf;
}

/* A parent the recording could not name (unknown, or in a process whose
 * trace is not among the files) is started with a NULL parent by a replay
 * (docs/ncclemu.md, Replay): not a difference. */
static bool replay_cannot_know(const event_t *recorded,
                               const event_t *replayed) {
  bool unnamed =
      recorded->parent_kind == PAR_UNKNOWN ||
      (recorded->parent_kind == PAR_FOREIGN && recorded->parent_type < 0);
  return unnamed && replayed->parent_kind == PAR_NONE;
}

/* A minimal_profiler recording has fewer details than a replay delivers:
 * every "key=value;" it has must be in the replayed text, except its
 * rank -1 (what that format writes for a PXN event's rank). */
static bool descr_within(const char *recorded, const char *replayed) {
  const char *p = recorded;
  while (*p) {
    const char *end = strchr(p, ';');
    size_t n = end ? (size_t)(end - p) + 1 : strlen(p);
    bool found = (n == 8 && strncmp(p, "rank=-1;", 8) == 0);
    for (const char *q = replayed; !found && *q;) {
      if (strncmp(q, p, n) == 0)
        found = true;
      const char *next = strchr(q, ';');
      q = next ? next + 1 : q + strlen(q);
    }
    if (!found)
      return false;
    p += n;
  }
  return true;
}

typedef struct {
  int64_t from, to;
} tid_pair;

static void compare(const file_t *a, const file_t *b, size_t *events,
                    size_t *threads) {
  if (a->nlife != b->nlife)
    mismatch("%s: %d lifecycle records recorded, %d replayed", a->key, a->nlife,
             b->nlife);
  for (int i = 0; i < a->nlife && i < b->nlife; i++)
    if (cmp_life(&a->life[i], &b->life[i]) != 0 ||
        a->life[i].nranks != b->life[i].nranks)
      mismatch("%s: lifecycle %d differs (commId %" PRIx64 " rank %" PRId64
               " vs commId %" PRIx64 " rank %" PRId64 ")",
               a->key, i, a->life[i].comm_id, a->life[i].rank,
               b->life[i].comm_id, b->life[i].rank);
  if (a->nev != b->nev)
    mismatch("%s: %zu events recorded, %zu replayed", a->key, a->nev, b->nev);
  tid_pair map[256];
  int nmap = 0;
  size_t n = a->nev < b->nev ? a->nev : b->nev;
  for (size_t i = 0; i < n; i++) {
    const event_t *x = &a->ev[i], *y = &b->ev[i];
    char pa[64], pb[64];
    if (x->type != y->type) {
      mismatch("%s: event %zu in start order is %s recorded, %s replayed",
               a->key, i, ev_type_short_name((ev_type)x->type),
               ev_type_short_name((ev_type)y->type));
      continue;
    }
    if (strcmp(parent_text(x, pa, sizeof pa), parent_text(y, pb, sizeof pb)) &&
        !replay_cannot_know(x, y))
      mismatch("%s: %s 0x%" PRIx64 ": parent %s recorded, %s replayed", a->key,
               ev_type_short_name((ev_type)x->type), x->id, pa, pb);
    if (x->stopped != y->stopped)
      mismatch("%s: %s 0x%" PRIx64 ": %s recorded, %s replayed", a->key,
               ev_type_short_name((ev_type)x->type), x->id,
               x->stopped ? "stopped" : "not stopped",
               y->stopped ? "stopped" : "not stopped");
    if (a->minimal ? !descr_within(x->descr, y->descr)
                   : strcmp(x->descr, y->descr) != 0)
      mismatch("%s: %s 0x%" PRIx64 ": descriptor %s recorded, %s replayed",
               a->key, ev_type_short_name((ev_type)x->type), x->id, x->descr,
               y->descr);
    if (x->nstates != y->nstates)
      mismatch("%s: %s 0x%" PRIx64 ": %zu states recorded, %zu replayed",
               a->key, ev_type_short_name((ev_type)x->type), x->id, x->nstates,
               y->nstates);
    int k = 0;
    while (k < nmap && map[k].from != x->start_tid && map[k].to != y->start_tid)
      k++;
    if (k == nmap && nmap < 256) {
      map[nmap++] = (tid_pair){x->start_tid, y->start_tid};
    } else if (k < nmap &&
               (map[k].from != x->start_tid || map[k].to != y->start_tid)) {
      mismatch("%s: %s 0x%" PRIx64 ": recorded tid %" PRId64
               " -> replayed tid %" PRId64 ", but tid %" PRId64 " -> %" PRId64
               " before (not a bijection)",
               a->key, ev_type_short_name((ev_type)x->type), x->id,
               x->start_tid, y->start_tid, map[k].from, map[k].to);
    }
    (*events)++;
  }
  *threads += (size_t)nmap;
}

int main(int argc, char **argv) {
  bool paced = argc == 4 && strcmp(argv[3], "--paced") == 0;
  if (argc != 3 && !paced) {
    fprintf(stderr,
            "usage: check_replay RECORDED_DIR REPLAYED_DIR [--paced]\n");
    return 2;
  }
  static dir_t rec_dir, rep_dir;
  if (!load_dir(&rec_dir, argv[1]) || !load_dir(&rep_dir, argv[2]))
    return 2;
  if (rec_dir.n != rep_dir.n)
    mismatch("%d recorded trace files, %d replayed", rec_dir.n, rep_dir.n);
  size_t events = 0, threads = 0;
  for (int i = 0; i < rec_dir.n; i++) {
    const file_t *a = &rec_dir.f[i], *b = NULL;
    for (int k = 0; k < rep_dir.n && b == NULL; k++)
      if (same_process(a, &rep_dir.f[k]))
        b = &rep_dir.f[k];
    if (b == NULL) {
      mismatch("%s (%s): no replayed trace of this process", a->path, a->key);
      continue;
    }
    compare(a, b, &events, &threads);
  }
  if (paced) {
    /* Sleeping makes calls late, never early: a lower bound holds on any
     * machine (1 us of slack per file for the clock mapping). */
    int64_t want = span_of(&rec_dir), got = span_of(&rep_dir);
    printf("check_replay: recorded span %.3f ms, replayed %.3f ms\n",
           (double)want / 1e6, (double)got / 1e6);
    if (got + 1000 * rec_dir.n < want)
      mismatch("--speed recorded replayed %" PRId64 " ns of calls in %" PRId64
               " ns",
               want, got);
  }
  printf("check_replay: %d processes, %zu events compared, %zu threads "
         "mapped: %d mismatches\n",
         rec_dir.n, events, threads, mismatches);
  return mismatches ? 1 : 0;
}
