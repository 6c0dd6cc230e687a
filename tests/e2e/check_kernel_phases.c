/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/e2e/check_kernel_phases.c — what NCCL 2.31 changed for GPU events
 * (nccl-behaviour §12), judged from an ncclemu run's ground truth and the
 * plugin's traces:
 *
 *   every KernelCh and KernelPhase call was made on a profiler thread
 *   (role "profiler"), none on the proxy thread;
 *   KernelPhase children exist, each names a KernelCh as parent, carries
 *   its phase's name, and ends (state 31's pTimer) no earlier than it began;
 *   the plugin's traces hold KernelPhase events and timing records with
 *   phase spans converted to the host clock;
 *   with --straggler R: rank R's typical (median) initial_sync is shorter
 *   than every other rank's (it arrives last, so it waits least);
 *   with --no-kernels (scenarios without kernels: one rank, copy engine):
 *   no KernelCh and no KernelPhase at all;
 *   with --symmetric: symmetric collectives have a Coll with isSymColl, a
 *   kernelVariant whose suffix is algo, no proto, and the trace says so;
 *   every symmetric Coll has nChannels 0 except its plan's first when
 *   KernelCh is on, which names the channels of the plan's KernelCh — all
 *   of which are its children;
 *   with --eager-cudacb: every Coll of the (eager, blocking) launches was
 *   started on the CUDA callback thread, none as a graph replay.
 *
 * usage: check_kernel_phases [--straggler R | --no-kernels | --symmetric |
 *        --eager-cudacb]... TRACE_DIR TRUTH_FILE...
 * Prints what it found and every failure; exit 0 only if none.
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "trace_read.h"
#include "u64map.h"

#define MAX_PROCS 64
#define MAX_RANKS 64
#define MAX_SAMPLES 4096

static int failures;

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...) {
  if (++failures > 30)
    return;
  va_list ap;
  va_start(ap, fmt);
  fputs("FAIL: ", stdout);
  vprintf(fmt, ap);
  fputc('\n', stdout);
  va_end(ap);
}

static const char *str_of(const cJSON *o, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  return cJSON_IsString(v) ? v->valuestring : NULL;
}

static bool str_is(const cJSON *o, const char *key, const char *want) {
  const char *s = str_of(o, key);
  return s && strcmp(s, want) == 0;
}

static double num_of(const cJSON *o, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static uint64_t hex_of(const cJSON *o, const char *key) {
  const char *s = str_of(o, key);
  return s ? strtoull(s, NULL, 16) : 0;
}

/* ---- the truth ---- */
static cJSON **lines;
static size_t nlines, cap_lines;

static void load_truth(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) {
    fail("cannot read truth %s", path);
    return;
  }
  char *line = NULL;
  size_t cap = 0;
  while (getline(&line, &cap, f) > 0) {
    cJSON *o = cJSON_Parse(line);
    if (!o)
      continue;
    if (nlines == cap_lines) {
      cap_lines = cap_lines ? cap_lines * 2 : 4096;
      lines = realloc(lines, cap_lines * sizeof *lines);
      if (!lines) {
        fprintf(stderr, "out of memory\n");
        exit(2);
      }
    }
    lines[nlines++] = o;
  }
  free(line);
  fclose(f);
}

/* Per rank: initial_sync durations (ns) of the phases that ended. */
typedef struct {
  double v[MAX_SAMPLES];
  int n;
} samples;
static samples initial_sync[MAX_RANKS];

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(samples *s) {
  qsort(s->v, (size_t)s->n, sizeof *s->v, cmp_double);
  return s->n ? s->v[s->n / 2] : NAN;
}

int main(int argc, char **argv) {
  int straggler = -1;
  bool no_kernels = false, symmetric = false, eager_cudacb = false;
  int a = 1;
  for (; a < argc && strncmp(argv[a], "--", 2) == 0; a++) {
    if (strcmp(argv[a], "--straggler") == 0 && a + 1 < argc)
      straggler = atoi(argv[++a]);
    else if (strcmp(argv[a], "--no-kernels") == 0)
      no_kernels = true;
    else if (strcmp(argv[a], "--symmetric") == 0)
      symmetric = true;
    else if (strcmp(argv[a], "--eager-cudacb") == 0)
      eager_cudacb = true;
    else
      break;
  }
  if (argc - a < 2) {
    fprintf(stderr, "usage: check_kernel_phases [--straggler R | "
                    "--no-kernels | --symmetric | --eager-cudacb]... "
                    "TRACE_DIR TRUTH_FILE...\n");
    return 2;
  }
  const char *dir = argv[a];
  for (int i = a + 1; i < argc; i++)
    load_truth(argv[i]);

  /* Event ids (per truth: unique across processes) -> their start. */
  cs_u64map starts;
  cs_u64map_init(&starts, 4096);
  for (size_t i = 0; i < nlines; i++)
    if (str_is(lines[i], "call", "start"))
      cs_u64map_put(&starts, hex_of(lines[i], "id"), lines[i]);

  size_t kernel_ch = 0, phases = 0, phase_states = 0;
  static const char *const names[] = {"initial_sync", "compute", "final_sync"};
  for (size_t i = 0; i < nlines; i++) {
    const cJSON *o = lines[i];
    const char *call = str_of(o, "call");
    if (!call)
      continue;
    const cJSON *start = NULL;
    if (strcmp(call, "start") == 0)
      start = o;
    else if (strcmp(call, "state") == 0 || strcmp(call, "stop") == 0)
      start = cs_u64map_get(&starts, hex_of(o, "id"));
    if (!start || !(str_is(start, "type", "KernelCh") ||
                    str_is(start, "type", "KernelPhase")))
      continue;
    if (!str_is(o, "role", "profiler"))
      fail("%s of %s %s on thread %s (role %s), not a profiler thread", call,
           str_of(start, "type"), str_of(start, "id"), str_of(o, "thr"),
           str_of(o, "role"));
    if (o != start)
      continue;
    if (str_is(o, "type", "KernelCh")) {
      kernel_ch++;
      continue;
    }
    phases++;
    int phase = (int)num_of(o, "phaseId");
    if (phase < 0 || phase > 2 || !str_is(o, "phaseName", names[phase]))
      fail("KernelPhase %s: phaseId %d named %s", str_of(o, "id"), phase,
           str_of(o, "phaseName"));
    const cJSON *parent = cs_u64map_get(&starts, hex_of(o, "parent"));
    if (str_of(o, "parent") && (!parent || !str_is(parent, "type", "KernelCh")))
      fail("KernelPhase %s: parent %s is not a KernelCh", str_of(o, "id"),
           str_of(o, "parent"));
  }
  /* Phase ends: state 31 with the end stamp. */
  for (size_t i = 0; i < nlines; i++) {
    const cJSON *o = lines[i];
    if (!str_is(o, "call", "state") || num_of(o, "state") != 31)
      continue;
    const cJSON *start = cs_u64map_get(&starts, hex_of(o, "id"));
    if (!start || !str_is(start, "type", "KernelPhase"))
      continue;
    phase_states++;
    double begin = num_of(start, "pTimer"), end = num_of(o, "pTimer");
    if (!(end >= begin))
      fail("KernelPhase %s ends at %.0f before it began at %.0f",
           str_of(start, "id"), end, begin);
    int rank = (int)num_of(start, "grank");
    if (num_of(start, "phaseId") == 0 && rank >= 0 && rank < MAX_RANKS &&
        initial_sync[rank].n < MAX_SAMPLES)
      initial_sync[rank].v[initial_sync[rank].n++] = end - begin;
  }
  if (no_kernels && (kernel_ch || phases))
    fail("%zu KernelCh and %zu KernelPhase where no kernel runs", kernel_ch,
         phases);
  if (!no_kernels && kernel_ch == 0)
    fail("no KernelCh start in the truth");
  if (!no_kernels && (phases == 0 || phase_states == 0))
    fail("no KernelPhase in the truth (%zu starts, %zu ends)", phases,
         phase_states);

  /* KernelCh per parent task: how many, and the channels they name. */
  cs_u64map ch_children, ch_span;
  cs_u64map_init(&ch_children, 1024);
  cs_u64map_init(&ch_span, 1024);
  for (size_t i = 0; i < nlines; i++) {
    const cJSON *o = lines[i];
    if (!str_is(o, "call", "start") || !str_is(o, "type", "KernelCh") ||
        !str_of(o, "parent"))
      continue;
    uint64_t parent = hex_of(o, "parent");
    uintptr_t n = (uintptr_t)cs_u64map_get(&ch_children, parent);
    cs_u64map_put(&ch_children, parent, (void *)(n + 1));
    uintptr_t span = (uintptr_t)num_of(o, "channel") + 1;
    if (span > (uintptr_t)cs_u64map_get(&ch_span, parent))
      cs_u64map_put(&ch_span, parent, (void *)span);
  }
  /* The head of a symmetric plan: its first symmetric Coll, per group. */
  cs_u64map sym_head;
  cs_u64map_init(&sym_head, 1024);

  /* Colls: symmetric ones, and where they were started. */
  size_t sym_colls = 0, colls = 0;
  for (size_t i = 0; i < nlines; i++) {
    const cJSON *o = lines[i];
    if (!str_is(o, "call", "start") || !str_is(o, "type", "Coll"))
      continue;
    colls++;
    if (eager_cudacb && (!str_is(o, "role", "cudacb") ||
                         str_is(o, "quirk", "stale_capture_parent")))
      fail("Coll %s started on %s (quirk %s), not as an eager launch on the "
           "CUDA callback thread",
           str_of(o, "id"), str_of(o, "thr"), str_of(o, "quirk"));
    if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "isSymColl")))
      continue;
    sym_colls++;
    const char *variant = str_of(o, "kernelVariant");
    const char *func = str_of(o, "func");
    const char *algo = str_of(o, "algo");
    size_t flen = func ? strlen(func) : 0;
    if (!variant || !func || !algo || strncmp(variant, func, flen) != 0 ||
        variant[flen] != '_' || strcmp(variant + flen + 1, algo) != 0)
      fail("symmetric Coll %s: kernelVariant %s, func %s, algo %s",
           str_of(o, "id"), variant, func, algo);
    if (!str_is(o, "proto", ""))
      fail("symmetric Coll %s: proto \"%s\", not empty", str_of(o, "id"),
           str_of(o, "proto"));
    /* nChannels: the channel count only on the plan's head, and only when
     * KernelCh is on; 0 otherwise. All the plan's KernelCh go to the head,
     * on channels below its nChannels (§12). */
    uint64_t id = hex_of(o, "id");
    uint64_t group =
        (uint64_t)num_of(o, "pid") << 48 ^ hex_of(o, "parent_group");
    bool head =
        !str_of(o, "parent_group") || cs_u64map_get(&sym_head, group) == NULL;
    if (head && str_of(o, "parent_group"))
      cs_u64map_put(&sym_head, group, (void *)(uintptr_t)1);
    int nch = (int)num_of(o, "nChannels");
    uintptr_t children = (uintptr_t)cs_u64map_get(&ch_children, id);
    uintptr_t span = (uintptr_t)cs_u64map_get(&ch_span, id);
    if (!head && (nch != 0 || children != 0))
      fail("symmetric Coll %s is not its plan's first: nChannels %d and %zu "
           "KernelCh, want 0 and none",
           str_of(o, "id"), nch, (size_t)children);
    if (head && kernel_ch == 0 && nch != 0)
      fail("symmetric Coll %s: nChannels %d without KernelCh, want 0",
           str_of(o, "id"), nch);
    if (head && kernel_ch > 0 && (nch == 0 || span > (uintptr_t)nch))
      fail("symmetric Coll %s (its plan's first): nChannels %d, its KernelCh "
           "reach channel %zu",
           str_of(o, "id"), nch, (size_t)span);
  }
  if (symmetric && sym_colls == 0)
    fail("no symmetric Coll in the truth");
  if (eager_cudacb && colls == 0)
    fail("no Coll in the truth");

  /* The plugin's side. */
  char paths[MAX_PROCS][4096];
  size_t nfiles = trace_find_files(dir, paths, MAX_PROCS);
  size_t trace_phases = 0, timings = 0, timings_with_phases = 0;
  size_t trace_sym = 0;
  for (size_t f = 0; f < nfiles; f++) {
    trace_t t;
    if (!trace_load(&t, paths[f])) {
      fail("cannot read %s", paths[f]);
      continue;
    }
    trace_phases += trace_count_events(&t, "ncclProfileKernelPhase");
    for (size_t k = 0; k < t.count; k++) {
      const cJSON *r = t.lines[k];
      const cJSON *d = cJSON_GetObjectItemCaseSensitive(r, "details");
      if (str_is(r, "recordType", "event") &&
          str_is(r, "type", "ncclProfileColl") &&
          cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(d, "isSymColl")))
        trace_sym++;
    }
    for (size_t k = 0; k < t.count; k++) {
      const cJSON *r = t.lines[k];
      if (!str_is(r, "recordType", "timing"))
        continue;
      timings++;
      const cJSON *ph = cJSON_GetObjectItemCaseSensitive(r, "phases");
      if (!cJSON_IsObject(ph))
        continue;
      timings_with_phases++;
      const cJSON *p;
      cJSON_ArrayForEach(p, ph) {
        /* format version 2: integer ns; version 1: microseconds */
        bool v2 = cJSON_GetObjectItemCaseSensitive(p, "startNs") != NULL;
        double s = v2 ? num_of(p, "startNs") / 1e3 : num_of(p, "start");
        double e = v2 ? num_of(p, "stopNs") / 1e3 : num_of(p, "stop");
        if (!(e >= s) || !(s > 1e15)) /* epoch microseconds */
          fail("%s: timing %s phase %s spans %.3f .. %.3f", paths[f],
               str_of(r, "eventId"), p->string, s, e);
      }
    }
    trace_free(&t);
  }
  if (nfiles == 0)
    fail("no trace files in %s", dir);
  if (trace_sym != sym_colls)
    fail("%zu symmetric Colls in the traces, %zu in the truth", trace_sym,
         sym_colls);
  if (!no_kernels && trace_phases == 0)
    fail("no ncclProfileKernelPhase event in the traces");
  if (!no_kernels && timings > 0 && timings_with_phases == 0)
    fail("%zu timing records, none with phases", timings);

  if (straggler >= 0) {
    double mine = median(&initial_sync[straggler]);
    if (isnan(mine))
      fail("the straggler (rank %d) has no initial_sync phase", straggler);
    for (int r = 0; r < MAX_RANKS; r++) {
      if (r == straggler || initial_sync[r].n == 0)
        continue;
      double theirs = median(&initial_sync[r]);
      printf("rank %d: median initial_sync %.0f ns (%d)\n", r, theirs,
             initial_sync[r].n);
      if (!(mine < theirs))
        fail("the straggler's (rank %d) median initial_sync %.0f ns is not "
             "shorter than rank %d's %.0f ns",
             straggler, mine, r, theirs);
    }
    printf("straggler rank %d: median initial_sync %.0f ns (%d)\n", straggler,
           mine, initial_sync[straggler].n);
  }
  printf("check_kernel_phases: %zu KernelCh, %zu KernelPhase (%zu ended), "
         "%zu of %zu Colls symmetric in the truth; %zu KernelPhase events, "
         "%zu symmetric Colls, %zu of %zu timings with phases in the traces: "
         "%d failures\n",
         kernel_ch, phases, phase_states, sym_colls, colls, trace_phases,
         trace_sym, timings_with_phases, timings, failures);
  cs_u64map_free(&starts);
  cs_u64map_free(&ch_children);
  cs_u64map_free(&ch_span);
  cs_u64map_free(&sym_head);
  for (size_t i = 0; i < nlines; i++)
    cJSON_Delete(lines[i]);
  free(lines);
  return failures ? 1 : 0;
}
