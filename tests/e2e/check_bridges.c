/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/e2e/check_bridges.c — what the bridges (src/plugin/hot/bridge.h) told
 * the tools, against the trace the plugin wrote in the same run.
 *
 * usage:
 *   check_bridges nvtx TRACE_DIR RECORDER_BASE [--min-marks N]
 *   check_bridges nvtx-only RECORDER_BASE TYPE...   (no trace: metrics mode)
 *   check_bridges nvtx-off TRACE_DIR RECORDER_BASE
 *   check_bridges roctx TRACE_DIR FAKE_ROCTX_BASE [--min-marks N]
 *   check_bridges roctx-off TRACE_DIR FAKE_ROCTX_BASE
 *   check_bridges cupti TRACE_DIR FAKE_CUPTI_BASE
 *   check_bridges cupti-fail TRACE_DIR FAKE_CUPTI_BASE
 *
 * nvtx: for every trace file (one per process) the NVTX recorder's file
 * RECORDER_BASE.<pid> (tests/stand_in_plugins/nvtx_recorder.c) must hold:
 *   - per thread: depth never negative, every push popped by the end;
 *   - per category: as many ranges as the trace has events of that type
 *     (GroupApi, CollApi, P2pApi, KernelLaunch, Group, Coll, P2p, CeColl),
 *     and each category named after its type;
 *   - per thread, exactly the sequence of pushes, pops and marks the rule
 *     of bridge.h gives when applied to the trace's own start/stop records
 *     (thread and nanosecond time of every call): a start pushes a range
 *     (message = function name or type, payload = seqNumber, count or id);
 *     a stop pops it, and whatever is above it, if it is on that thread's
 *     stack, else nothing; control-API marks are marks on the same thread;
 *   - at least N step marks (--min-marks).
 * nvtx-only: only the recorder's own rules, and ranges of each TYPE.
 * nvtx-off: the run has host events, and no recorder file exists.
 * roctx: the same per-thread sequence in the fake ROCTX's file
 *   FAKE_ROCTX_BASE.<pid> (tests/stand_in_plugins/fake_roctx.c), with what
 *   ROCTX can carry: a push per host event named as the NVTX range (no
 *   category, no payload), marks named "step <n>" or by their label;
 *   ROCTX's levels never negative (no failed push or pop); as many pushes
 *   as host events; at least N step marks.
 * roctx-off: the run has host events, and no fake ROCTX file exists.
 * cupti: per process, the fake CUPTI's file RECORDER_BASE.<pid> holds one
 *   push of kind CUSTOM2 (5) with id = the trace id per KernelLaunch, on
 *   the thread that started it, and the matching pop on the same thread.
 * cupti-fail (FAKE_CUPTI_FAIL=1): one failed push per KernelLaunch, no pop.
 */
#include <dirent.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

static int failures;
#define MAX_REPORTS 30

#define CHECK(cond, ...)                                                       \
  do {                                                                         \
    if (!(cond)) {                                                             \
      if (failures++ < MAX_REPORTS) {                                          \
        printf("FAIL: " __VA_ARGS__);                                          \
        printf("\n");                                                          \
      }                                                                        \
    }                                                                          \
  } while (0)

/* Which tool's recording is checked: what a range or mark carries. */
typedef enum { TOOL_NVTX, TOOL_ROCTX } tool_t;
static const char *const tool_names[] = {"NVTX", "ROCTX"};

/* ---- small tools ---- */

typedef struct {
  char **v;
  size_t n, cap;
} lines_t;

static bool read_lines(const char *path, lines_t *out) {
  FILE *f = fopen(path, "r");
  if (!f)
    return false;
  memset(out, 0, sizeof *out);
  char *buf = NULL;
  size_t cap = 0;
  ssize_t len;
  while ((len = getline(&buf, &cap, f)) > 0) {
    if (out->n == out->cap) {
      out->cap = out->cap ? out->cap * 2 : 256;
      out->v = realloc(out->v, out->cap * sizeof *out->v);
    }
    out->v[out->n++] = strdup(buf);
  }
  free(buf);
  fclose(f);
  return true;
}

static void free_lines(lines_t *l) {
  for (size_t i = 0; i < l->n; i++)
    free(l->v[i]);
  free(l->v);
}

static const char *str(const cJSON *o, const char *k) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
  return cJSON_IsString(v) ? v->valuestring : NULL;
}

static bool num(const cJSON *o, const char *k, double *out) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
  if (!cJSON_IsNumber(v))
    return false;
  *out = v->valuedouble;
  return true;
}

static uint64_t hex(const cJSON *o, const char *k) {
  const char *s = str(o, k);
  return s ? strtoull(s, NULL, 16) : 0;
}

/* Exact timestamps: "µs.nnn" after `key` in the raw line, as ns (a double
 * keeps only ~0.25 µs at today's epoch). Searches from `from`. */
static bool raw_ts(const char *line, const char *key, int64_t *ns) {
  const char *p = strstr(line, key);
  if (!p)
    return false;
  p += strlen(key);
  char *end;
  long long us = strtoll(p, &end, 10);
  int64_t frac = 0;
  if (*end == '.') {
    int digits = 0;
    for (end++; *end >= '0' && *end <= '9'; end++, digits++)
      if (digits < 3)
        frac = frac * 10 + (*end - '0');
    for (; digits < 3; digits++)
      frac *= 10;
  }
  *ns = (int64_t)us * 1000 + frac;
  return true;
}

static size_t trace_files(const char *dir, char paths[][4096], size_t max) {
  DIR *d = opendir(dir);
  size_t n = 0;
  if (!d)
    return 0;
  struct dirent *e;
  while ((e = readdir(d)) && n < max) {
    size_t len = strlen(e->d_name);
    if (strncmp(e->d_name, "trace_", 6) == 0 && len > 6 &&
        strcmp(e->d_name + len - 6, ".jsonl") == 0)
      snprintf(paths[n++], 4096, "%s/%s", dir, e->d_name);
  }
  closedir(d);
  return n;
}

/* ---- the trace's host events and marks ---- */

enum {
  T_GROUP_API,
  T_COLL_API,
  T_P2P_API,
  T_KERNEL_LAUNCH,
  T_GROUP,
  T_COLL,
  T_P2P,
  T_CE_COLL,
  NTYPES
};
static const char *const json_types[NTYPES] = {
    "ncclProfileGroupApi",     "ncclProfileCollApi", "ncclProfileP2pApi",
    "ncclProfileKernelLaunch", "ncclProfileGroup",   "ncclProfileColl",
    "ncclProfileP2p",          "ncclProfileCeColl"};
static const char *const short_types[NTYPES] = {
    "GroupApi", "CollApi", "P2pApi", "KernelLaunch",
    "Group",    "Coll",    "P2p",    "CeColl"};
/* NVTX category = cclscope's event type + 1 (bridge_nvtx.c): NCCL's bit
 * index of the type, plus one. */
static const int categories[NTYPES] = {9, 10, 11, 12, 1, 2, 3, 13};
#define CAT_MARK 18

static int type_index(const char *json_type) {
  for (int i = 0; i < NTYPES; i++)
    if (json_type && strcmp(json_type, json_types[i]) == 0)
      return i;
  return -1;
}

typedef struct {
  int type;
  uint64_t id;
  char func[32];
  uint64_t payload; /* what the range must carry */
  long start_tid, stop_tid;
  int64_t start_ns, stop_ns;
  bool stopped;
} host_event;

typedef struct {
  long tid;
  int64_t ns;
  bool step;
  int64_t value;
  char label[80];
} mark_t;

typedef struct {
  long pid;
  host_event *ev;
  size_t nev;
  mark_t *marks;
  size_t nmarks;
  size_t counts[NTYPES];
} trace_info;

static bool load_trace(const char *path, trace_info *t) {
  lines_t lines;
  memset(t, 0, sizeof *t);
  t->pid = -1;
  if (!read_lines(path, &lines)) {
    CHECK(false, "cannot read %s", path);
    return false;
  }
  t->ev = calloc(lines.n + 1, sizeof *t->ev);
  t->marks = calloc(lines.n + 1, sizeof *t->marks);
  for (size_t i = 0; i < lines.n; i++) {
    const char *raw = lines.v[i];
    cJSON *o = cJSON_Parse(raw);
    CHECK(o, "%s line %zu is not JSON", path, i + 1);
    if (!o)
      continue;
    const char *rt = str(o, "recordType");
    double d = -1;
    if (rt && strcmp(rt, "process") == 0 && num(o, "pid", &d))
      t->pid = (long)d;
    if (rt && strcmp(rt, "mark") == 0) {
      const char *kind = str(o, "kind");
      mark_t *m = &t->marks[t->nmarks];
      if (kind && (strcmp(kind, "step") == 0 || strcmp(kind, "label") == 0)) {
        num(o, "tid", &d);
        m->tid = (long)d;
        raw_ts(raw, "\"ts\":", &m->ns);
        m->step = strcmp(kind, "step") == 0;
        m->value = num(o, "step", &d) ? (int64_t)d : -1;
        snprintf(m->label, sizeof m->label, "%s",
                 str(o, "label") ? str(o, "label") : "");
        t->nmarks++;
      }
    }
    int ti = rt && strcmp(rt, "event") == 0 ? type_index(str(o, "type")) : -1;
    if (ti >= 0) {
      host_event *e = &t->ev[t->nev++];
      const cJSON *start = cJSON_GetObjectItemCaseSensitive(o, "start");
      const cJSON *stop = cJSON_GetObjectItemCaseSensitive(o, "stop");
      const cJSON *det = cJSON_GetObjectItemCaseSensitive(o, "details");
      e->type = ti;
      e->id = hex(o, "id");
      snprintf(e->func, sizeof e->func, "%s",
               str(o, "func") ? str(o, "func") : "");
      num(start, "tid", &d);
      e->start_tid = (long)d;
      raw_ts(raw, "\"start\":{\"ts\":", &e->start_ns);
      e->stopped = cJSON_IsObject(stop);
      if (e->stopped) {
        num(stop, "tid", &d);
        e->stop_tid = (long)d;
        raw_ts(raw, "\"stop\":{\"ts\":", &e->stop_ns);
      }
      d = 0;
      switch (ti) {
      case T_COLL:
      case T_CE_COLL:
        num(det, "seqNumber", &d);
        e->payload = (uint64_t)d;
        break;
      case T_COLL_API:
      case T_P2P_API:
      case T_P2P:
        num(det, "count", &d);
        e->payload = (uint64_t)d;
        break;
      default:
        e->payload = e->id;
        break;
      }
      t->counts[ti]++;
    }
    cJSON_Delete(o);
  }
  free_lines(&lines);
  CHECK(t->pid > 0, "%s has no process record", path);
  return t->pid > 0;
}

static void free_trace(trace_info *t) {
  free(t->ev);
  free(t->marks);
}

/* ---- the recorder's file ---- */

typedef struct {
  long tid;
  char call[24];
  char domain[32];
  bool has_domain;
  char msg[80];
  char msg_type[16];
  char payload_type[8];
  int64_t payload;
  long cat;
  long rc; /* ROCTX: what push/pop returned (the level, < 0: failed) */
} rec_call;

typedef struct {
  rec_call *c;
  size_t n;
} recording;

static bool load_recording(const char *path, recording *r) {
  lines_t lines;
  memset(r, 0, sizeof *r);
  if (!read_lines(path, &lines))
    return false;
  r->c = calloc(lines.n + 1, sizeof *r->c);
  for (size_t i = 0; i < lines.n; i++) {
    cJSON *o = cJSON_Parse(lines.v[i]);
    CHECK(o, "%s line %zu is not JSON", path, i + 1);
    if (!o)
      continue;
    rec_call *c = &r->c[r->n++];
    double d = -1;
    num(o, "tid", &d);
    c->tid = (long)d;
    snprintf(c->call, sizeof c->call, "%s",
             str(o, "call") ? str(o, "call") : "");
    c->has_domain = str(o, "domain") != NULL;
    snprintf(c->domain, sizeof c->domain, "%s",
             c->has_domain ? str(o, "domain") : "");
    snprintf(c->msg, sizeof c->msg, "%s", str(o, "msg") ? str(o, "msg") : "");
    snprintf(c->msg_type, sizeof c->msg_type, "%s",
             str(o, "msgType") ? str(o, "msgType") : "");
    snprintf(c->payload_type, sizeof c->payload_type, "%s",
             str(o, "payloadType") ? str(o, "payloadType") : "");
    c->payload = num(o, "payload", &d) ? (int64_t)d : INT64_MIN;
    c->cat = num(o, "cat", &d) ? (long)d : -1;
    c->rc = num(o, "rc", &d) ? (long)d : 0;
    cJSON_Delete(o);
  }
  free_lines(&lines);
  return true;
}

static void check_balanced(const char *path, const recording *r);

/* Checks that need only the NVTX recording: returns the number of ranges
 * per category (index = NVTX category) through `per_cat`. */
static void check_recording_alone(const char *path, const recording *r,
                                  size_t per_cat[CAT_MARK + 1]) {
  bool init = false, created = false;
  char cat_names[CAT_MARK + 1][80];
  memset(cat_names, 0, sizeof cat_names);
  for (size_t i = 0; i < r->n; i++) {
    const rec_call *c = &r->c[i];
    if (strcmp(c->call, "init") == 0) {
      init = true;
      continue;
    }
    CHECK(c->has_domain && strcmp(c->domain, "cclscope") == 0,
          "%s: %s outside the domain \"cclscope\"", path, c->call);
    if (strcmp(c->call, "domainCreate") == 0)
      created = true;
    else if (strcmp(c->call, "nameCategory") == 0 && c->cat >= 0 &&
             c->cat <= CAT_MARK)
      snprintf(cat_names[c->cat], sizeof cat_names[c->cat], "%s", c->msg);
    else if (strcmp(c->call, "push") == 0 && c->cat >= 0 && c->cat <= CAT_MARK)
      per_cat[c->cat]++;
    else
      CHECK(strcmp(c->call, "registerString") == 0 ||
                strcmp(c->call, "pop") == 0 || strcmp(c->call, "mark") == 0,
            "%s: unexpected call %s (category %ld)", path, c->call, c->cat);
  }
  CHECK(init && created, "%s: NVTX did not attach, or no domain was created",
        path);
  for (int t = 0; t < NTYPES; t++)
    CHECK(strcmp(cat_names[categories[t]], short_types[t]) == 0,
          "%s: category %d is named \"%s\", expected \"%s\"", path,
          categories[t], cat_names[categories[t]], short_types[t]);
  CHECK(strcmp(cat_names[CAT_MARK], "Mark") == 0,
        "%s: category %d (marks) is named \"%s\"", path, CAT_MARK,
        cat_names[CAT_MARK]);
  check_balanced(path, r);
}

/* Per thread: depth never negative, zero at the end. */
static void check_balanced(const char *path, const recording *r) {
  long tids[4096];
  long depth[4096];
  size_t ntids = 0;
  for (size_t i = 0; i < r->n; i++) {
    const rec_call *c = &r->c[i];
    bool push = strcmp(c->call, "push") == 0, pop = strcmp(c->call, "pop") == 0;
    if (!push && !pop)
      continue;
    size_t k = 0;
    while (k < ntids && tids[k] != c->tid)
      k++;
    if (k == ntids && ntids < 4096) {
      tids[ntids] = c->tid;
      depth[ntids++] = 0;
    }
    depth[k] += push ? 1 : -1;
    CHECK(depth[k] >= 0, "%s: thread %ld pops a range it did not push", path,
          c->tid);
  }
  for (size_t k = 0; k < ntids; k++)
    CHECK(depth[k] == 0, "%s: thread %ld ends with %ld ranges open", path,
          tids[k], depth[k]);
}

/* ---- the bridge's rule, applied to the trace ---- */

typedef struct {
  long tid;
  int64_t ns;
  int kind; /* 0 start, 1 stop, 2 mark */
  size_t index;
  uint64_t id; /* tie-break */
} call_t;

static int by_time(const void *a, const void *b) {
  const call_t *x = a, *y = b;
  if (x->tid != y->tid)
    return x->tid < y->tid ? -1 : 1;
  if (x->ns != y->ns)
    return x->ns < y->ns ? -1 : 1;
  if (x->kind != y->kind)
    return x->kind < y->kind ? -1 : 1; /* a start before a stop */
  return x->id < y->id ? -1 : x->id > y->id;
}

static bool is_range_call(const rec_call *c) {
  return strcmp(c->call, "push") == 0 || strcmp(c->call, "pop") == 0 ||
         strcmp(c->call, "mark") == 0;
}

static const recording *sort_rec; /* qsort has no context argument */
static int by_thread(const void *a, const void *b) {
  size_t x = *(const size_t *)a, y = *(const size_t *)b;
  long tx = sort_rec->c[x].tid, ty = sort_rec->c[y].tid;
  if (tx != ty)
    return tx < ty ? -1 : 1;
  return x < y ? -1 : x > y; /* keep each thread's order */
}

/* One expected call against the next recorded call of the thread. */
static void expect_one(tool_t tool, const char *path, long tid, size_t pos,
                       const rec_call *got, const trace_info *t,
                       const call_t *c, bool pop) {
  if (pop) {
    CHECK(got && strcmp(got->call, "pop") == 0,
          "%s: thread %ld, call %zu: expected a pop (stop of event 0x%" PRIx64
          "), got %s",
          path, tid, pos, t->ev[c->index].id, got ? got->call : "nothing");
    return;
  }
  if (c->kind == 2 && tool == TOOL_ROCTX) { /* no payload: in the text */
    const mark_t *m = &t->marks[c->index];
    char text[96];
    if (m->step)
      snprintf(text, sizeof text, "step %" PRId64, m->value);
    else
      snprintf(text, sizeof text, "%s", m->label);
    CHECK(got && strcmp(got->call, "mark") == 0 && strcmp(got->msg, text) == 0,
          "%s: thread %ld, call %zu: expected mark \"%s\", got %s \"%s\"", path,
          tid, pos, text, got ? got->call : "nothing", got ? got->msg : "");
    return;
  }
  if (c->kind == 2) {
    const mark_t *m = &t->marks[c->index];
    bool ok = got && strcmp(got->call, "mark") == 0 && got->cat == CAT_MARK;
    if (ok && m->step)
      ok = strcmp(got->msg, "step") == 0 &&
           strcmp(got->payload_type, "i64") == 0 && got->payload == m->value;
    else if (ok)
      ok = strcmp(got->msg_type, "ascii") == 0 &&
           strcmp(got->msg, m->label) == 0;
    CHECK(ok,
          "%s: thread %ld, call %zu: expected mark %s %" PRId64
          " \"%s\", got %s \"%s\" %" PRId64,
          path, tid, pos, m->step ? "step" : "label", m->value, m->label,
          got ? got->call : "nothing", got ? got->msg : "",
          got ? got->payload : 0);
    return;
  }
  const host_event *e = &t->ev[c->index];
  const char *msg = e->func[0] ? e->func : short_types[e->type];
  if (tool == TOOL_ROCTX) { /* the NVTX message, nothing else */
    CHECK(got && strcmp(got->call, "push") == 0 && strcmp(got->msg, msg) == 0,
          "%s: thread %ld, call %zu: expected push of %s 0x%" PRIx64
          " (\"%s\"), got %s \"%s\"",
          path, tid, pos, short_types[e->type], e->id, msg,
          got ? got->call : "nothing", got ? got->msg : "");
    return;
  }
  bool ok = got && strcmp(got->call, "push") == 0 &&
            got->cat == categories[e->type] && strcmp(got->msg, msg) == 0 &&
            strcmp(got->msg_type, "registered") == 0 &&
            strcmp(got->payload_type, "u64") == 0 &&
            (uint64_t)got->payload == e->payload;
  CHECK(ok,
        "%s: thread %ld, call %zu: expected push of %s 0x%" PRIx64
        " (\"%s\", category %d, payload %" PRIu64 "), got %s \"%s\" "
        "(%s, category %ld, payload %" PRId64 ")",
        path, tid, pos, short_types[e->type], e->id, msg, categories[e->type],
        e->payload, got ? got->call : "nothing", got ? got->msg : "",
        got ? got->msg_type : "", got ? got->cat : -1, got ? got->payload : 0);
}

static void check_sequence(tool_t tool, const char *path, const trace_info *t,
                           const recording *r) {
  /* The trace's calls, per thread in time order. */
  call_t *calls = calloc(2 * t->nev + t->nmarks + 1, sizeof *calls);
  size_t n = 0;
  for (size_t i = 0; i < t->nev; i++) {
    const host_event *e = &t->ev[i];
    calls[n++] = (call_t){e->start_tid, e->start_ns, 0, i, e->id};
    if (e->stopped)
      calls[n++] = (call_t){e->stop_tid, e->stop_ns, 1, i, e->id};
  }
  for (size_t i = 0; i < t->nmarks; i++)
    calls[n++] = (call_t){t->marks[i].tid, t->marks[i].ns, 2, i, 0};
  qsort(calls, n, sizeof *calls, by_time);
  /* The recorded range calls, per thread in recorded order. */
  size_t *rec = calloc(r->n + 1, sizeof *rec);
  size_t nrec = 0;
  for (size_t j = 0; j < r->n; j++)
    if (is_range_call(&r->c[j]))
      rec[nrec++] = j;
  sort_rec = r;
  qsort(rec, nrec, sizeof *rec, by_thread);

  size_t i = 0, j = 0;
  while (i < n || j < nrec) {
    long ct = i < n ? calls[i].tid : LONG_MAX;
    long rt = j < nrec ? r->c[rec[j]].tid : LONG_MAX;
    long tid = ct < rt ? ct : rt;
    size_t i_end = i, j_end = j;
    while (i_end < n && calls[i_end].tid == tid)
      i_end++;
    while (j_end < nrec && r->c[rec[j_end]].tid == tid)
      j_end++;
    /* Apply the rule of bridge.h to this thread's calls. */
    size_t stack[128], depth = 0, pos = j, expected = 0;
    for (; i < i_end; i++) {
      const call_t *c = &calls[i];
      size_t pops = 0;
      if (c->kind == 1) {
        for (size_t k = depth; k-- > 0;) {
          if (stack[k] == c->index) {
            pops = depth - k;
            depth = k;
            break;
          }
        }
      } else if (c->kind == 0 && depth < 128) { /* CS_BRIDGE_DEPTH */
        stack[depth++] = c->index;
      }
      size_t need = c->kind == 1 ? pops : 1;
      for (size_t k = 0; k < need; k++, expected++) {
        const rec_call *got = pos < j_end ? &r->c[rec[pos++]] : NULL;
        expect_one(tool, path, tid, expected + 1, got, t, c, c->kind == 1);
      }
    }
    CHECK(j_end - j == expected,
          "%s: thread %ld made %zu %s range/mark calls, the trace explains "
          "%zu",
          path, tid, j_end - j, tool_names[tool], expected);
    j = j_end;
  }
  free(rec);
  free(calls);
}

static int run_nvtx(const char *dir, const char *base, size_t min_marks) {
  static char paths[64][4096];
  size_t nfiles = trace_files(dir, paths, 64);
  CHECK(nfiles > 0, "no trace files in %s", dir);
  size_t total_ranges = 0, total_marks = 0, total_funcs = 0;
  for (size_t f = 0; f < nfiles; f++) {
    trace_info t;
    if (!load_trace(paths[f], &t))
      continue;
    char rpath[4200];
    snprintf(rpath, sizeof rpath, "%s.%ld", base, t.pid);
    recording r;
    if (!load_recording(rpath, &r)) {
      CHECK(false, "no NVTX recording %s for %s", rpath, paths[f]);
      free_trace(&t);
      continue;
    }
    size_t per_cat[CAT_MARK + 1] = {0};
    check_recording_alone(rpath, &r, per_cat);
    for (int ty = 0; ty < NTYPES; ty++) {
      CHECK(per_cat[categories[ty]] == t.counts[ty],
            "%s: %zu %s ranges, the trace has %zu %s events", rpath,
            per_cat[categories[ty]], short_types[ty], t.counts[ty],
            short_types[ty]);
      total_ranges += per_cat[categories[ty]];
    }
    for (size_t i = 0; i < t.nev; i++)
      total_funcs += t.ev[i].func[0] != 0;
    for (size_t i = 0; i < r.n; i++)
      total_marks +=
          strcmp(r.c[i].call, "mark") == 0 && strcmp(r.c[i].msg, "step") == 0;
    check_sequence(TOOL_NVTX, rpath, &t, &r);
    printf("pid %ld: %zu host events, %zu marks, %zu NVTX calls checked\n",
           t.pid, t.nev, t.nmarks, r.n);
    free(r.c);
    free_trace(&t);
  }
  CHECK(total_ranges > 0 && total_funcs > 0,
        "nothing to check: %zu ranges, %zu events with a function name",
        total_ranges, total_funcs);
  CHECK(total_marks >= min_marks, "%zu step marks, expected at least %zu",
        total_marks, min_marks);
  return failures ? 1 : 0;
}

static int run_nvtx_only(const char *base, int ntypes, char **types) {
  char dir[4096], prefix[1024];
  const char *slash = strrchr(base, '/');
  snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - base) : 1,
           slash ? base : ".");
  snprintf(prefix, sizeof prefix, "%s.", slash ? slash + 1 : base);
  DIR *d = opendir(dir);
  size_t files = 0, per_cat[CAT_MARK + 1] = {0};
  struct dirent *e;
  while (d && (e = readdir(d))) {
    if (strncmp(e->d_name, prefix, strlen(prefix)) != 0)
      continue;
    char path[8200];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    recording r;
    if (load_recording(path, &r)) {
      check_recording_alone(path, &r, per_cat);
      free(r.c);
      files++;
    }
  }
  if (d)
    closedir(d);
  CHECK(files > 0, "no NVTX recordings %s*", base);
  for (int i = 0; i < ntypes; i++) {
    int ty = -1;
    for (int k = 0; k < NTYPES; k++)
      if (strcmp(types[i], short_types[k]) == 0)
        ty = k;
    CHECK(ty >= 0 && per_cat[categories[ty]] > 0, "no %s ranges", types[i]);
  }
  printf("%zu recordings checked\n", files);
  return failures ? 1 : 0;
}

/* nvtx-off, roctx-off: host events, and no file of the tool. */
static int run_tool_off(tool_t tool, const char *dir, const char *base) {
  static char paths[64][4096];
  size_t nfiles = trace_files(dir, paths, 64), events = 0;
  for (size_t f = 0; f < nfiles; f++) {
    trace_info t;
    if (!load_trace(paths[f], &t))
      continue;
    events += t.nev;
    char rpath[4200];
    snprintf(rpath, sizeof rpath, "%s.%ld", base, t.pid);
    FILE *rf = fopen(rpath, "r");
    CHECK(!rf, "%s exists: %s was used with the bridge off", rpath,
          tool_names[tool]);
    if (rf)
      fclose(rf);
    free_trace(&t);
  }
  CHECK(nfiles > 0 && events > 0, "no host events in %s: nothing was tested",
        dir);
  printf("%zu traces, %zu host events, no %s calls\n", nfiles, events,
         tool_names[tool]);
  return failures ? 1 : 0;
}

/* ---- ROCTX ---- */

static int run_roctx(const char *dir, const char *base, size_t min_marks) {
  static char paths[64][4096];
  size_t nfiles = trace_files(dir, paths, 64);
  CHECK(nfiles > 0, "no trace files in %s", dir);
  size_t total_ranges = 0, total_marks = 0, total_funcs = 0;
  for (size_t f = 0; f < nfiles; f++) {
    trace_info t;
    if (!load_trace(paths[f], &t))
      continue;
    char rpath[4200];
    snprintf(rpath, sizeof rpath, "%s.%ld", base, t.pid);
    recording r;
    if (!load_recording(rpath, &r)) {
      CHECK(false, "no ROCTX recording %s for %s", rpath, paths[f]);
      free_trace(&t);
      continue;
    }
    size_t pushes = 0;
    for (size_t i = 0; i < r.n; i++) {
      const rec_call *c = &r.c[i];
      CHECK(strcmp(c->call, "push") == 0 || strcmp(c->call, "pop") == 0 ||
                strcmp(c->call, "mark") == 0,
            "%s: unexpected call %s", rpath, c->call);
      CHECK(c->rc >= 0, "%s: thread %ld: %s returned %ld", rpath, c->tid,
            c->call, c->rc);
      pushes += strcmp(c->call, "push") == 0;
      total_marks +=
          strcmp(c->call, "mark") == 0 && strncmp(c->msg, "step ", 5) == 0;
    }
    CHECK(pushes == t.nev,
          "%s: %zu ROCTX ranges, the trace has %zu host "
          "events",
          rpath, pushes, t.nev);
    total_ranges += pushes;
    for (size_t i = 0; i < t.nev; i++)
      total_funcs += t.ev[i].func[0] != 0;
    check_balanced(rpath, &r);
    check_sequence(TOOL_ROCTX, rpath, &t, &r);
    printf("pid %ld: %zu host events, %zu marks, %zu ROCTX calls checked\n",
           t.pid, t.nev, t.nmarks, r.n);
    free(r.c);
    free_trace(&t);
  }
  CHECK(total_ranges > 0 && total_funcs > 0,
        "nothing to check: %zu ranges, %zu events with a function name",
        total_ranges, total_funcs);
  CHECK(total_marks >= min_marks, "%zu step marks, expected at least %zu",
        total_marks, min_marks);
  return failures ? 1 : 0;
}

/* ---- CUPTI ---- */

static int run_cupti(const char *dir, const char *base, bool fail_mode) {
  static char paths[64][4096];
  size_t nfiles = trace_files(dir, paths, 64), launches = 0;
  CHECK(nfiles > 0, "no trace files in %s", dir);
  for (size_t f = 0; f < nfiles; f++) {
    trace_info t;
    if (!load_trace(paths[f], &t))
      continue;
    char rpath[4200];
    snprintf(rpath, sizeof rpath, "%s.%ld", base, t.pid);
    lines_t lines;
    if (!read_lines(rpath, &lines)) {
      CHECK(t.counts[T_KERNEL_LAUNCH] == 0,
            "no fake CUPTI calls (%s) for %zu KernelLaunch events", rpath,
            t.counts[T_KERNEL_LAUNCH]);
      free_trace(&t);
      continue;
    }
    size_t nl = t.counts[T_KERNEL_LAUNCH];
    launches += nl;
    bool *pushed = calloc(t.nev + 1, sizeof *pushed);
    /* Per thread: a stack of pushed ids (CUPTI's semantics). */
    struct {
      long tid;
      uint64_t ids[16];
      int depth;
    } threads[256];
    size_t nthreads = 0, pushes = 0, pops = 0;
    for (size_t i = 0; i < lines.n; i++) {
      char call[8];
      long tid;
      int kind, rc;
      unsigned long long id;
      if (sscanf(lines.v[i], "%7s %ld %d %llu %d", call, &tid, &kind, &id,
                 &rc) != 5) {
        CHECK(false, "%s line %zu: bad line", rpath, i + 1);
        continue;
      }
      CHECK(kind == 5, "%s line %zu: kind %d, expected CUSTOM2 (5)", rpath,
            i + 1, kind);
      size_t k = 0;
      while (k < nthreads && threads[k].tid != tid)
        k++;
      if (k == nthreads && nthreads < 256) {
        threads[nthreads].tid = tid;
        threads[nthreads++].depth = 0;
      }
      if (strcmp(call, "push") == 0) {
        pushes++;
        CHECK(fail_mode ? rc == 15 : rc == 0, "%s line %zu: push returned %d",
              rpath, i + 1, rc);
        size_t match = t.nev;
        for (size_t e = 0; e < t.nev; e++)
          if (t.ev[e].type == T_KERNEL_LAUNCH && t.ev[e].id == id)
            match = e;
        CHECK(match < t.nev, "%s line %zu: pushed id %llu is no KernelLaunch",
              rpath, i + 1, id);
        if (match < t.nev) {
          CHECK(!pushed[match], "%s: KernelLaunch %llu pushed twice", rpath,
                id);
          pushed[match] = true;
          CHECK(t.ev[match].start_tid == tid,
                "%s: KernelLaunch %llu started on thread %ld, pushed on %ld",
                rpath, id, t.ev[match].start_tid, tid);
        }
        if (rc == 0 && threads[k].depth < 16)
          threads[k].ids[threads[k].depth++] = id;
      } else {
        pops++;
        CHECK(!fail_mode, "%s line %zu: a pop after failed pushes", rpath,
              i + 1);
        CHECK(rc == 0 && threads[k].depth > 0 &&
                  threads[k].ids[threads[k].depth - 1] == id,
              "%s line %zu: thread %ld popped %llu (rc %d) without pushing it",
              rpath, i + 1, tid, id, rc);
        if (threads[k].depth > 0)
          threads[k].depth--;
        for (size_t e = 0; e < t.nev; e++)
          if (t.ev[e].type == T_KERNEL_LAUNCH && t.ev[e].id == id)
            CHECK(t.ev[e].stopped && t.ev[e].stop_tid == tid,
                  "%s: KernelLaunch %llu popped on thread %ld, stopped on %ld",
                  rpath, id, tid, t.ev[e].stop_tid);
      }
    }
    for (size_t k = 0; k < nthreads; k++)
      CHECK(threads[k].depth == 0, "%s: thread %ld ends with %d ids pushed",
            rpath, threads[k].tid, threads[k].depth);
    CHECK(pushes == nl, "%s: %zu pushes for %zu KernelLaunch events", rpath,
          pushes, nl);
    CHECK(fail_mode ? pops == 0 : pops == nl,
          "%s: %zu pops for %zu KernelLaunch events", rpath, pops, nl);
    printf("pid %ld: %zu KernelLaunch, %zu pushes, %zu pops\n", t.pid, nl,
           pushes, pops);
    free(pushed);
    free_lines(&lines);
    free_trace(&t);
  }
  CHECK(launches > 0, "no KernelLaunch events: nothing was tested");
  return failures ? 1 : 0;
}

int main(int argc, char **argv) {
  if (argc >= 4 && strcmp(argv[1], "nvtx") == 0) {
    size_t min_marks = 0;
    if (argc >= 6 && strcmp(argv[4], "--min-marks") == 0)
      min_marks = (size_t)atoi(argv[5]);
    int rc = run_nvtx(argv[2], argv[3], min_marks);
    printf("%s\n", rc ? "FAIL" : "PASS");
    return rc;
  }
  if (argc >= 3 && strcmp(argv[1], "nvtx-only") == 0) {
    int rc = run_nvtx_only(argv[2], argc - 3, argv + 3);
    printf("%s\n", rc ? "FAIL" : "PASS");
    return rc;
  }
  if (argc == 4 && strcmp(argv[1], "nvtx-off") == 0)
    return run_tool_off(TOOL_NVTX, argv[2], argv[3]);
  if (argc >= 4 && strcmp(argv[1], "roctx") == 0) {
    size_t min_marks = 0;
    if (argc >= 6 && strcmp(argv[4], "--min-marks") == 0)
      min_marks = (size_t)atoi(argv[5]);
    int rc = run_roctx(argv[2], argv[3], min_marks);
    printf("%s\n", rc ? "FAIL" : "PASS");
    return rc;
  }
  if (argc == 4 && strcmp(argv[1], "roctx-off") == 0)
    return run_tool_off(TOOL_ROCTX, argv[2], argv[3]);
  if (argc == 4 &&
      (strcmp(argv[1], "cupti") == 0 || strcmp(argv[1], "cupti-fail") == 0)) {
    int rc = run_cupti(argv[2], argv[3], strcmp(argv[1], "cupti-fail") == 0);
    printf("%s\n", rc ? "FAIL" : "PASS");
    return rc;
  }
  fprintf(stderr, "usage: check_bridges nvtx|nvtx-only|nvtx-off|roctx|"
                  "roctx-off|cupti|cupti-fail ...\n");
  return 2;
}
