/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/cli/verify.c — checks the outputs of `cclscope` subcommands against
 * the traces they came from and against the known truth of the generator.
 *
 *   verify summary  --cclscope BIN --dir DIR [--basis timing|enqueue]
 *                   [--straggler R] [--min-last F] [--min-wait-us W]
 *                   [--instances N] [--bw GBPS] [--lat US] [--tol FRAC]
 *                   [--lat-tol-us US] [--killed N] [--p50-us X]
 *                   [--fit min|busy|p50] [--side send|recv|both]
 *   (--fit min: the validated fit on the fastest transfer per size; busy:
 *   bytes / busy time of the link; p50: the median of its transfers' own
 *   bandwidths; neither is a line fit)
 *   verify perfetto --file JSON --dir DIR [--coll-flows N]
 *                   [--unlinked-foreign N]
 *   (--unlinked-foreign: PXN parents that name no event of the inputs and
 *   so get no arrow, e.g. those of minimal_profiler traces, whose pointers
 *   cannot be mapped across processes)
 *   verify merge    --file JSONL --dir DIR [--order start|end]
 *   verify otf2     --archive A --dir DIR --otf2-print PATH
 *
 * With --cclscope BIN, perfetto/merge/otf2 first produce their output
 * (`BIN perfetto DIR -o JSON`, ...; merge with --memory-mb MB) and fail if
 * that command fails.
 *
 * JSON outputs are parsed with cJSON (independent of cclscope's scanner);
 * the traces are counted with cclscope's own reader (unit-tested apart).
 * Prints what it checked; exit 0 when everything holds, 1 otherwise.
 */
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "read/trace_reader.h"
#include "read/trace_record.h"
#include "util/pair_map.h"

static int failures;

#define CHECK(cond, ...)                                                       \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "FAIL: " __VA_ARGS__);                                   \
      fputc('\n', stderr);                                                     \
      failures++;                                                              \
    }                                                                          \
  } while (0)

/* ---- options ---- */

typedef struct {
  const char *cclscope, *dir, *file, *archive, *otf2_print, *basis, *order;
  const char *fit, *side, *memory_mb;
  int straggler;
  double min_last, min_wait_us, bw, lat, tol, lat_tol_us, p50_us;
  long instances, killed, coll_flows, unlinked_foreign;
} options;

static void parse(options *o, int argc, char **argv) {
  memset(o, 0, sizeof *o);
  o->straggler = -1;
  o->instances = o->killed = o->coll_flows = -1;
  o->tol = 0.05;
  o->lat_tol_us = -1;
  o->bw = o->lat = o->p50_us = -1;
  o->order = "start";
  o->fit = "min";
  o->side = "both";
  for (int i = 2; i + 1 < argc; i += 2) {
    const char *k = argv[i], *v = argv[i + 1];
    if (!strcmp(k, "--cclscope"))
      o->cclscope = v;
    else if (!strcmp(k, "--dir"))
      o->dir = v;
    else if (!strcmp(k, "--file"))
      o->file = v;
    else if (!strcmp(k, "--archive"))
      o->archive = v;
    else if (!strcmp(k, "--otf2-print"))
      o->otf2_print = v;
    else if (!strcmp(k, "--basis"))
      o->basis = v;
    else if (!strcmp(k, "--order"))
      o->order = v;
    else if (!strcmp(k, "--memory-mb"))
      o->memory_mb = v;
    else if (!strcmp(k, "--fit"))
      o->fit = v;
    else if (!strcmp(k, "--side"))
      o->side = v;
    else if (!strcmp(k, "--straggler"))
      o->straggler = atoi(v);
    else if (!strcmp(k, "--min-last"))
      o->min_last = atof(v);
    else if (!strcmp(k, "--min-wait-us"))
      o->min_wait_us = atof(v);
    else if (!strcmp(k, "--instances"))
      o->instances = atol(v);
    else if (!strcmp(k, "--bw"))
      o->bw = atof(v);
    else if (!strcmp(k, "--lat"))
      o->lat = atof(v);
    else if (!strcmp(k, "--tol"))
      o->tol = atof(v);
    else if (!strcmp(k, "--lat-tol-us"))
      o->lat_tol_us = atof(v);
    else if (!strcmp(k, "--killed"))
      o->killed = atol(v);
    else if (!strcmp(k, "--p50-us"))
      o->p50_us = atof(v);
    else if (!strcmp(k, "--coll-flows"))
      o->coll_flows = atol(v);
    else if (!strcmp(k, "--unlinked-foreign"))
      o->unlinked_foreign = atol(v);
    else {
      fprintf(stderr, "verify: unknown option %s\n", k);
      exit(2);
    }
  }
}

/* ---- reading ---- */

static char *slurp_stream(FILE *f, size_t *len) {
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap + 1);
  while (buf) {
    if (n == cap) {
      char *nb = realloc(buf, cap * 2 + 1);
      if (!nb) {
        free(buf);
        return NULL;
      }
      buf = nb;
      cap *= 2;
    }
    size_t got = fread(buf + n, 1, cap - n, f);
    n += got;
    if (got == 0)
      break;
  }
  if (buf)
    buf[n] = '\0';
  if (len)
    *len = n;
  return buf;
}

static char *slurp_file(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f)
    return NULL;
  char *s = slurp_stream(f, NULL);
  fclose(f);
  return s;
}

static char *run_capture(const char *cmd) {
  FILE *p = popen(cmd, "r");
  if (!p)
    return NULL;
  char *s = slurp_stream(p, NULL);
  int rc = pclose(p);
  if (rc != 0)
    fprintf(stderr, "verify: '%s' exited with status %d\n", cmd, rc);
  return s;
}

/* What the trace folder holds. */
typedef struct {
  uint64_t records;   /* not pad, valid */
  uint64_t events;    /* NCCL events with a start */
  uint64_t lifecycle; /* ProfilerLifecycle records */
  uint64_t timing;    /* timing records with start and stop */
  uint64_t parents;   /* events with a local or foreign parent */
  uint64_t colls;     /* Coll and CeColl events with a start */
  uint64_t files;
  uint64_t line_hash; /* sum of per-line hashes (order-independent) */
} trace_counts;

static uint64_t fnv(const char *s, size_t n) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < n; i++) {
    h ^= (unsigned char)s[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

static void count_file(const char *path, trace_counts *c, rec_scratch *s) {
  tr_file f;
  if (tr_open(&f, path, 1 << 20) != 0) {
    CHECK(0, "cannot open %s", path);
    return;
  }
  c->files++;
  while (tr_next(&f) == 1) {
    rec r;
    if (!rec_decode(&r, s, f.line, f.line_len) || r.rt == RT_PAD)
      continue;
    c->records++;
    c->line_hash += fnv(f.line, f.line_len);
    if (r.rt == RT_EVENT && r.et == ET_LIFECYCLE) {
      c->lifecycle++;
    } else if (r.rt == RT_EVENT && r.start.present) {
      c->events++;
      if (r.parent == PAR_LOCAL || r.parent == PAR_FOREIGN)
        c->parents++;
      if (r.et == ET_COLL || r.et == ET_CE_COLL)
        c->colls++;
    } else if (r.rt == RT_TIMING) {
      rec_timing times; /* either format version */
      rec_timing_decode(&r, &s->sub, &times);
      if (times.start != INT64_MIN && times.stop != INT64_MIN)
        c->timing++;
    }
  }
  tr_close(&f);
}

static trace_counts count_dir(const char *dir) {
  trace_counts c;
  memset(&c, 0, sizeof c);
  tr_inputs in;
  char *args[] = {(char *)dir};
  static rec_scratch s;
  rec_scratch_init(&s);
  if (!tr_inputs_collect(&in, 1, args)) {
    CHECK(0, "no traces in %s", dir);
    return c;
  }
  for (size_t i = 0; i < in.n; i++)
    count_file(in.paths[i], &c, &s);
  tr_inputs_free(&in);
  return c;
}

static double num(const cJSON *o, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static const char *str(const cJSON *o, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* Produce the output to verify (when --cclscope is given). */
static bool produce(const options *o, const char *what) {
  if (!o->cclscope)
    return true;
  char cmd[8192];
  if (!strcmp(what, "merge"))
    snprintf(cmd, sizeof cmd,
             "'%s' -q merge --order %s --memory-mb %s '%s' -o '%s'",
             o->cclscope, o->order, o->memory_mb ? o->memory_mb : "256", o->dir,
             o->file);
  else if (!strcmp(what, "perfetto"))
    snprintf(cmd, sizeof cmd, "'%s' -q perfetto '%s' -o '%s'", o->cclscope,
             o->dir, o->file);
  else
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && '%s' -q otf2 '%s' -o '%s'",
             o->archive, o->cclscope, o->dir, o->archive);
  int rc = system(cmd);
  CHECK(rc == 0, "'%s' failed (status %d)", cmd, rc);
  return rc == 0;
}

/* ---- summary ---- */

static void verify_summary(const options *o) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "'%s' summary --json '%s'", o->cclscope, o->dir);
  char *out = run_capture(cmd);
  cJSON *doc = out ? cJSON_Parse(out) : NULL;
  CHECK(doc != NULL, "summary --json is not JSON");
  if (!doc) {
    free(out);
    return;
  }
  const cJSON *strag = cJSON_GetObjectItem(doc, "stragglers");
  if (o->basis) {
    CHECK(str(strag, "basis") && !strcmp(str(strag, "basis"), o->basis),
          "stragglers.basis is %s, expected %s", str(strag, "basis"), o->basis);
    const cJSON *colls = cJSON_GetObjectItem(doc, "collectives");
    CHECK(str(colls, "basis") && !strcmp(str(colls, "basis"), o->basis),
          "collectives.basis is %s, expected %s", str(colls, "basis"),
          o->basis);
    printf("basis %s\n", o->basis);
  }
  if (o->instances >= 0) {
    CHECK(num(strag, "instances") == (double)o->instances,
          "%g instances matched, expected %ld", num(strag, "instances"),
          o->instances);
    CHECK(num(strag, "incomplete") == 0, "%g incomplete instances",
          num(strag, "incomplete"));
  }
  if (o->straggler >= 0) {
    const cJSON *first =
        cJSON_GetArrayItem(cJSON_GetObjectItem(strag, "ranks"), 0);
    CHECK(first && num(first, "rank") == o->straggler,
          "rank ranked first is %g, expected the delayed rank %d",
          num(first, "rank"), o->straggler);
    CHECK(num(first, "lastFraction") >= o->min_last,
          "delayed rank last in %.2f of instances, expected >= %.2f",
          num(first, "lastFraction"), o->min_last);
    CHECK(num(first, "meanWaitUs") >= o->min_wait_us,
          "mean wait %.1f us, expected >= %.1f", num(first, "meanWaitUs"),
          o->min_wait_us);
    /* The worst instance is the delayed rank's, unless another rank was
     * last somewhere (allowed by --min-last < 1: a descheduled rank on a
     * busy machine), and that instance may then be the worst. */
    const cJSON *worst =
        cJSON_GetArrayItem(cJSON_GetObjectItem(strag, "worst"), 0);
    CHECK(worst && (num(worst, "lastRank") == o->straggler ||
                    num(first, "lastFraction") < 1.0),
          "worst instance's last rank is %g, and the delayed rank was last "
          "in every instance",
          num(worst, "lastRank"));
    printf("straggler rank %d: last in %.0f%% of instances, mean wait %.1f "
           "us\n",
           o->straggler, 100 * num(first, "lastFraction"),
           num(first, "meanWaitUs"));
  }
  if (o->bw > 0) {
    const cJSON *links =
        cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "network"), "links");
    int checked = 0;
    const cJSON *l;
    cJSON_ArrayForEach(l, links) {
      const char *side = str(l, "side");
      if (strcmp(o->side, "both") != 0 && (!side || strcmp(side, o->side)))
        continue;
      bool p50 = strcmp(o->fit, "p50") == 0;
      bool busy = p50 || strcmp(o->fit, "busy") == 0; /* no line fit */
      const cJSON *fit = cJSON_GetObjectItem(l, "fit");
      const char *status = str(fit, "status");
      /* a rejected fit must carry a reason and no numbers at all */
      if (status && strcmp(status, "ok") != 0) {
        CHECK(str(fit, "reason") != NULL &&
                  !cJSON_GetObjectItem(fit, "latencyUs") &&
                  !cJSON_GetObjectItem(fit, "bandwidthGBs"),
              "link %g->%g: rejected fit (%s) without a reason or with "
              "numbers",
              num(l, "from"), num(l, "to"), status);
      }
      if (!busy && (!status || strcmp(status, "ok") != 0))
        continue;
      double bw = p50    ? num(l, "p50StepGBs")
                  : busy ? num(l, "bytes") / num(l, "busyUs") / 1e3
                         : num(fit, "bandwidthGBs");
      double lat = busy ? NAN : num(fit, "latencyUs");
      CHECK(fabs(bw - o->bw) / o->bw <= o->tol,
            "link %g->%g (%s): %s bandwidth %.4f GB/s, model %.4f (tolerance "
            "%.0f%%)",
            num(l, "from"), num(l, "to"), side, o->fit, bw, o->bw,
            o->tol * 100);
      if (!busy && o->lat >= 0 && o->lat_tol_us >= 0)
        CHECK(fabs(lat - o->lat) <= o->lat_tol_us,
              "link %g->%g (%s): %s latency %.2f us, model %.2f +- %.2f",
              num(l, "from"), num(l, "to"), side, o->fit, lat, o->lat,
              o->lat_tol_us);
      if (!busy)
        CHECK(num(fit, "r2") > 0.95, "%s fit R² %.4f", o->fit, num(fit, "r2"));
      checked++;
    }
    CHECK(checked > 0, "no %s link with a %s fit", o->side, o->fit);
    printf("%d %s links: %s bandwidth within %.0f%% of %.3f GB/s\n", checked,
           o->side, o->fit, o->tol * 100, o->bw);
  }
  if (o->killed >= 0) {
    long killed = 0;
    const cJSON *h;
    cJSON_ArrayForEach(h, cJSON_GetObjectItem(doc, "health")) {
      if (cJSON_IsFalse(cJSON_GetObjectItem(h, "processEnd")))
        killed++;
    }
    CHECK(killed == o->killed, "%ld files without processEnd, expected %ld",
          killed, o->killed);
  }
  if (o->p50_us > 0) {
    const cJSON *rows =
        cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "collectives"), "rows");
    const cJSON *row = cJSON_GetArrayItem(rows, 0);
    double p50 = num(row, "p50Us");
    CHECK(fabs(p50 - o->p50_us) / o->p50_us <= 1.0 / 256,
          "p50 %.3f us, expected %.3f within the histogram's 0.39%%", p50,
          o->p50_us);
    printf("p50 %.3f us\n", p50);
  }
  cJSON_Delete(doc);
  free(out);
}

/* ---- perfetto ---- */

typedef struct {
  int64_t ts, end;
} span;

static int cmp_span(const void *a, const void *b) {
  const span *x = a, *y = b;
  if (x->ts != y->ts)
    return x->ts < y->ts ? -1 : 1;
  return x->end > y->end ? -1 : x->end < y->end; /* outer first */
}

static int64_t us_to_ns(double us) {
  return (int64_t)llround(us * 1000.0);
}

static void verify_perfetto(const options *o) {
  if (!produce(o, "perfetto"))
    return;
  trace_counts tc = count_dir(o->dir);
  char *text = slurp_file(o->file);
  cJSON *doc = text ? cJSON_Parse(text) : NULL;
  CHECK(doc != NULL, "%s is not JSON", o->file);
  if (!doc) {
    free(text);
    return;
  }
  const cJSON *events = cJSON_GetObjectItem(doc, "traceEvents");
  CHECK(cJSON_IsArray(events), "no traceEvents array");
  CHECK(cJSON_IsObject(cJSON_GetObjectItem(doc, "otherData")), "no otherData");
  pair_map flows, named, processes, xtracks;
  pair_map_init(&flows);
  pair_map_init(&named);
  pair_map_init(&processes);
  pair_map_init(&xtracks);
  uint64_t nx = 0, nstate = 0, ntiming = 0, parent_flows = 0, coll_flows = 0;
  const cJSON *e;
  size_t nspans = 0, cap = 1024;
  span *spans = malloc(cap * sizeof *spans);
  uint64_t *span_track = malloc(cap * sizeof *span_track);
  cJSON_ArrayForEach(e, events) {
    const char *ph = str(e, "ph");
    double pid = num(e, "pid"), tid = num(e, "tid");
    CHECK(ph && strlen(ph) == 1 && strchr("XsfCMi", ph[0]), "event with ph %s",
          ph ? ph : "(none)");
    CHECK(pid >= 1 && tid >= 0 && pid == floor(pid) && tid == floor(tid),
          "bad pid/tid %g/%g", pid, tid);
    if (!ph)
      continue;
    uint64_t track = ((uint64_t)pid << 32) | (uint64_t)tid;
    switch (ph[0]) {
    case 'X': {
      double ts = num(e, "ts"), dur = num(e, "dur");
      CHECK(!isnan(ts) && dur >= 0 && str(e, "name"),
            "X event without ts, dur >= 0 or name");
      const char *cat = str(e, "cat");
      if (cat && !strcmp(cat, "state"))
        nstate++;
      else if (cat && !strcmp(cat, "timing"))
        ntiming++;
      else
        nx++;
      pair_map_put(&xtracks, track, 0, 0, NULL);
      if (cat && !strcmp(cat, "state"))
        break; /* nested inside their event: not a separate check */
      if (nspans == cap) {
        cap *= 2;
        spans = realloc(spans, cap * sizeof *spans);
        span_track = realloc(span_track, cap * sizeof *span_track);
      }
      spans[nspans].ts = us_to_ns(ts);
      spans[nspans].end = us_to_ns(ts) + us_to_ns(dur);
      span_track[nspans++] = track;
      break;
    }
    case 's':
    case 'f': {
      double id = num(e, "id");
      CHECK(!isnan(id) && !isnan(num(e, "ts")), "flow without id or ts");
      bool inserted;
      uint64_t *v = pair_map_put(&flows, (uint64_t)id, 0, 0, &inserted);
      *v += ph[0] == 's' ? 1 : 1000;
      if (ph[0] == 'f') {
        CHECK(str(e, "bp") && !strcmp(str(e, "bp"), "e"),
              "flow end without bp e");
        const char *cat = str(e, "cat");
        if (cat && !strcmp(cat, "parent"))
          parent_flows++;
        else if (cat && !strcmp(cat, "collective"))
          coll_flows++;
      }
      break;
    }
    case 'C':
      CHECK(cJSON_IsObject(cJSON_GetObjectItem(e, "args")) &&
                !isnan(num(e, "ts")),
            "counter without args or ts");
      break;
    case 'M': {
      const char *name = str(e, "name");
      if (name && !strcmp(name, "thread_name"))
        pair_map_put(&named, track, 0, 0, NULL);
      if (name && !strcmp(name, "process_name"))
        pair_map_put(&processes, (uint64_t)pid, 0, 0, NULL);
      break;
    }
    default:
      break;
    }
  }
  for (size_t i = 0; i < flows.cap; i++)
    if (flows.slots[i].used)
      CHECK(flows.slots[i].value == 1001,
            "flow %" PRIu64 " has %" PRIu64 " starts and %" PRIu64 " ends",
            flows.slots[i].a, flows.slots[i].value % 1000,
            flows.slots[i].value / 1000);
  for (size_t i = 0; i < xtracks.cap; i++)
    if (xtracks.slots[i].used) {
      CHECK(pair_map_get(&named, xtracks.slots[i].a, 0) != NULL,
            "track %" PRIu64 ":%" PRIu64 " has no thread_name",
            xtracks.slots[i].a >> 32, xtracks.slots[i].a & 0xffffffff);
      CHECK(pair_map_get(&processes, xtracks.slots[i].a >> 32, 0) != NULL,
            "pid %" PRIu64 " has no process_name", xtracks.slots[i].a >> 32);
    }
  CHECK(nx == tc.events,
        "%" PRIu64 " complete events for %" PRIu64 " event records", nx,
        tc.events);
  CHECK(ntiming == tc.timing,
        "%" PRIu64 " timing slices for %" PRIu64 " timing records", ntiming,
        tc.timing);
  CHECK(parent_flows + (uint64_t)o->unlinked_foreign == tc.parents,
        "%" PRIu64 " parent arrows for %" PRIu64
        " events with a parent (%ld of them expected without one)",
        parent_flows, tc.parents, o->unlinked_foreign);
  if (o->coll_flows >= 0)
    CHECK(coll_flows == (uint64_t)o->coll_flows,
          "%" PRIu64 " collective arrows, expected %ld", coll_flows,
          o->coll_flows);
  /* complete events on one track must nest */
  uint64_t misnested = 0;
  for (size_t i = 0; i < xtracks.cap; i++) {
    if (!xtracks.slots[i].used)
      continue;
    uint64_t track = xtracks.slots[i].a;
    size_t n = 0;
    span *mine = malloc((nspans + 1) * sizeof *mine);
    for (size_t k = 0; k < nspans; k++)
      if (span_track[k] == track)
        mine[n++] = spans[k];
    qsort(mine, n, sizeof *mine, cmp_span);
    int64_t stack[64];
    int depth = 0;
    for (size_t k = 0; k < n; k++) {
      while (depth > 0 && stack[depth - 1] <= mine[k].ts)
        depth--;
      if (depth > 0 && mine[k].end > stack[depth - 1])
        misnested++;
      if (depth < 64)
        stack[depth++] = mine[k].end;
    }
    free(mine);
  }
  CHECK(misnested == 0, "%" PRIu64 " complete events overlap without nesting",
        misnested);
  printf("perfetto: %" PRIu64 " X for %" PRIu64 " events, %" PRIu64
         " timing, %" PRIu64 " parent + %" PRIu64 " collective arrows, %zu "
         "tracks, all named and nested\n",
         nx, tc.events, ntiming, parent_flows, coll_flows, xtracks.n);
  free(spans);
  free(span_track);
  pair_map_free(&flows);
  pair_map_free(&named);
  pair_map_free(&processes);
  pair_map_free(&xtracks);
  cJSON_Delete(doc);
  free(text);
}

/* ---- merge ---- */

static void verify_merge(const options *o) {
  if (!produce(o, "merge"))
    return;
  trace_counts tc = count_dir(o->dir);
  tr_file f;
  if (tr_open(&f, o->file, 1 << 20) != 0) {
    CHECK(0, "cannot open %s", o->file);
    return;
  }
  static rec_scratch s;
  rec_scratch_init(&s);
  bool by_start = strcmp(o->order, "start") == 0;
  uint64_t lines = 0, hash = 0, unsorted = 0;
  int64_t prev = INT64_MIN;
  while (tr_next(&f) == 1) {
    rec r;
    CHECK(rec_decode(&r, &s, f.line, f.line_len),
          "line %" PRIu64 " is not JSON", f.line_no);
    CHECK(r.rt != RT_PAD, "pad record in the merged output");
    lines++;
    hash += fnv(f.line, f.line_len);
    int64_t k = by_start ? rec_start_time(&r) : rec_write_time(&r);
    if (k == INT64_MIN)
      continue;
    if (k < prev)
      unsorted++;
    else
      prev = k;
  }
  tr_close(&f);
  CHECK(lines == tc.records, "%" PRIu64 " merged lines for %" PRIu64 " records",
        lines, tc.records);
  CHECK(hash == tc.line_hash, "merged lines differ from the input lines");
  CHECK(unsorted == 0, "%" PRIu64 " lines out of %s order", unsorted, o->order);
  printf("merge: %" PRIu64 " lines from %" PRIu64 " files, identical, in %s "
         "order\n",
         lines, tc.files, o->order);
}

/* ---- otf2 ---- */

static uint64_t count_prefix(const char *text, const char *prefix) {
  uint64_t n = 0;
  size_t len = strlen(prefix);
  for (const char *p = text; p && *p;) {
    if (strncmp(p, prefix, len) == 0)
      n++;
    p = strchr(p, '\n');
    if (p)
      p++;
  }
  return n;
}

static void verify_otf2(const options *o) {
  if (!produce(o, "otf2"))
    return;
  trace_counts tc = count_dir(o->dir);
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "'%s' '%s/traces.otf2'", o->otf2_print, o->archive);
  char *events = run_capture(cmd);
  snprintf(cmd, sizeof cmd, "'%s' -G '%s/traces.otf2'", o->otf2_print,
           o->archive);
  char *defs = run_capture(cmd);
  CHECK(events && defs, "otf2-print failed");
  if (!events || !defs) {
    free(events);
    free(defs);
    return;
  }
  uint64_t enters = count_prefix(events, "ENTER "),
           leaves = count_prefix(events, "LEAVE ");
  uint64_t want = tc.events + tc.lifecycle + tc.timing;
  CHECK(enters == want,
        "%" PRIu64 " ENTER events for %" PRIu64 " events (%" PRIu64
        " NCCL + %" PRIu64 " lifecycle + %" PRIu64 " timing)",
        enters, want, tc.events, tc.lifecycle, tc.timing);
  CHECK(leaves == enters, "%" PRIu64 " LEAVE for %" PRIu64 " ENTER", leaves,
        enters);
  /* One collective record pair per collective (cmd_otf2.c). */
  uint64_t begins = count_prefix(events, "MPI_COLLECTIVE_BEGIN "),
           ends = count_prefix(events, "MPI_COLLECTIVE_END ");
  CHECK(begins == tc.colls && ends == tc.colls,
        "%" PRIu64 " MPI_COLLECTIVE_BEGIN / %" PRIu64
        " MPI_COLLECTIVE_END for %" PRIu64 " collectives",
        begins, ends, tc.colls);
  uint64_t groups = count_prefix(defs, "LOCATION_GROUP ");
  CHECK(groups == tc.files, "%" PRIu64 " location groups for %" PRIu64 " files",
        groups, tc.files);
  CHECK(count_prefix(defs, "CLOCK_PROPERTIES") == 1, "no clock properties");
  CHECK(count_prefix(defs, "COMM ") >= 1, "no communicator definition");
  CHECK(strstr(defs, "COMM_GROUP") != NULL, "no COMM_GROUP group");
  printf("otf2: %" PRIu64 " enter / %" PRIu64 " leave for %" PRIu64
         " events, %" PRIu64 " collective records, %" PRIu64
         " location groups\n",
         enters, leaves, want, begins, groups);
  free(events);
  free(defs);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: verify summary|perfetto|merge|otf2 OPTIONS\n");
    return 2;
  }
  options o;
  parse(&o, argc, argv);
  cli_globals.quiet = true;
  if (!strcmp(argv[1], "summary") && o.cclscope && o.dir)
    verify_summary(&o);
  else if (!strcmp(argv[1], "perfetto") && o.file && o.dir)
    verify_perfetto(&o);
  else if (!strcmp(argv[1], "merge") && o.file && o.dir)
    verify_merge(&o);
  else if (!strcmp(argv[1], "otf2") && o.archive && o.dir && o.otf2_print)
    verify_otf2(&o);
  else {
    fprintf(stderr, "verify: missing options for %s\n", argv[1]);
    return 2;
  }
  if (failures)
    fprintf(stderr, "%d check(s) failed\n", failures);
  return failures ? 1 : 0;
}
