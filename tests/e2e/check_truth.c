/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/e2e/check_truth.c — does cclscope's trace say exactly what NCCL
 * (ncclemu) did? Compares the trace files of a run with ncclemu's ground
 * truth, call by call:
 *
 *   every start the plugin received and answered with a recorded handle is
 *   one event in that process's trace, of the same type, with the same
 *   descriptor fields, and nothing else is an event (no phantoms);
 *   every parent link is exact or explicitly not: the parent's id, or null
 *   with parentStatus (foreign: the raw value NCCL delivered; unknown) —
 *   never another event's id;
 *   an event is `stopped` only if NCCL stopped it; an event NCCL never
 *   stopped is reclaimed or in flight;
 *   every state NCCL recorded on a recorded event is in the trace (embedded,
 *   collapsed with `count`, or as a late `state` record).
 *
 * usage: check_truth TRACE_DIR TRUTH_FILE...
 * Prints what it compared, and every mismatch; exit 0 only if none.
 */
#include <dirent.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "trace_read.h"
#include "u64map.h"

#define ID_MASK ((UINT64_C(1) << 46) - 1)
#define QUIET_BIT (UINT64_C(1) << 46)
#define MAX_PROCS 64
#define MAX_REPORTS 30

typedef struct {
  int pid;
  uint16_t tag;
  trace_t trace;
  cs_u64map events;           /* our id -> cJSON event */
  cs_u64map stopped_in_truth; /* our id -> (void*)1 */
  cs_u64map states_in_truth;  /* our id -> count */
} proc_t;

static proc_t procs[MAX_PROCS];
static int nprocs;
static cs_u64map truth_starts; /* emulator id -> cJSON start */
static cJSON **truth_lines;
static size_t ntruth, cap_truth;
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

static uint64_t hex_of(const cJSON *o, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  if (!cJSON_IsString(v))
    return 0;
  return strtoull(v->valuestring, NULL, 16);
}

static const char *str_of(const cJSON *o, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* For messages: never NULL. */
static const char *txt(const cJSON *o, const char *key) {
  const char *s = str_of(o, key);
  return s ? s : "?";
}

static double num_of(const cJSON *o, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static bool is_true(const cJSON *o, const char *key) {
  return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, key));
}

static proc_t *proc_of(int pid) {
  for (int i = 0; i < nprocs; i++)
    if (procs[i].pid == pid)
      return &procs[i];
  return NULL;
}

/* ---- loading ---- */

static void load_traces(const char *dir) {
  char paths[MAX_PROCS][4096];
  size_t n = trace_find_files(dir, paths, MAX_PROCS);
  for (size_t i = 0; i < n; i++) {
    proc_t *p = &procs[nprocs];
    if (!trace_load(&p->trace, paths[i])) {
      mismatch("cannot read %s", paths[i]);
      continue;
    }
    if (p->trace.bad_lines)
      mismatch("%s: %zu lines are not JSON objects", paths[i],
               p->trace.bad_lines);
    const cJSON *proc = trace_find_record(&p->trace, "process");
    if (!proc) {
      mismatch("%s: no process record", paths[i]);
      continue;
    }
    p->pid = (int)num_of(proc, "pid");
    p->tag = (uint16_t)hex_of(proc, "handleTag");
    cs_u64map_init(&p->events, 1024);
    cs_u64map_init(&p->stopped_in_truth, 1024);
    cs_u64map_init(&p->states_in_truth, 1024);
    for (size_t k = 0; k < p->trace.count; k++) {
      const cJSON *r = p->trace.lines[k];
      const char *rt = str_of(r, "recordType");
      const char *type = str_of(r, "type");
      if (!rt || strcmp(rt, "event") != 0 || !type ||
          strcmp(type, "ProfilerLifecycle") == 0)
        continue;
      uint64_t id = hex_of(r, "id");
      if (cs_u64map_get(&p->events, id))
        mismatch("pid %d: id 0x%" PRIx64 " appears twice", p->pid, id);
      cs_u64map_put(&p->events, id, (void *)r);
    }
    nprocs++;
  }
}

static void load_truth(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) {
    mismatch("cannot read truth %s", path);
    return;
  }
  char *line = NULL;
  size_t cap = 0;
  while (getline(&line, &cap, f) > 0) {
    cJSON *o = cJSON_Parse(line);
    if (!o) {
      mismatch("%s: a truth line is not JSON", path);
      continue;
    }
    if (ntruth == cap_truth) {
      cap_truth = cap_truth ? cap_truth * 2 : 4096;
      truth_lines = realloc(truth_lines, cap_truth * sizeof *truth_lines);
    }
    truth_lines[ntruth++] = o;
    const char *call = str_of(o, "call");
    if (call && strcmp(call, "start") == 0)
      cs_u64map_put(&truth_starts, hex_of(o, "id"), o);
  }
  free(line);
  fclose(f);
}

/* ---- what a handle means ---- */

typedef enum { H_NONE, H_QUIET, H_OURS, H_OTHER } handle_kind;

/* The plugin's answer to a start, as the truth recorded it. */
static handle_kind classify(const cJSON *start, const proc_t *p, uint64_t *id) {
  const char *h = str_of(start, "handle");
  if (!h || strcmp(h, "unwritten") == 0)
    return H_NONE;
  uint64_t v = strtoull(h, NULL, 16);
  if (v == 0)
    return H_NONE;
  if ((uint16_t)(v >> 48) != p->tag || (v >> 47 & 1))
    return H_OTHER;
  if (v & QUIET_BIT)
    return H_QUIET;
  *id = v & ID_MASK;
  return H_OURS;
}

/* "ProxyOp" -> "ncclProfileProxyOp". */
static bool same_type(const char *truth_type, const char *trace_type) {
  return truth_type && trace_type &&
         strncmp(trace_type, "ncclProfile", 11) == 0 &&
         strcmp(trace_type + 11, truth_type) == 0;
}

/* ---- checks ---- */

static uint64_t expected_parent_raw(const cJSON *start) {
  return hex_of(start, "parent_obj");
}

static void check_details(const cJSON *start, const cJSON *ev, int pid) {
  const char *type = txt(start, "type");
  const cJSON *d = cJSON_GetObjectItemCaseSensitive(ev, "details");
  struct {
    const char *truth, *trace, *only_type;
  } fields[] = {
      {"seqNumber", "seqNumber", "Coll"},
      {"count", "count", "Coll"},
      {"peer", "peer", "P2p"},
      {"count", "count", "P2p"},
      {"step", "step", "ProxyStep"},
      {"channel", "channelId", "ProxyOp"},
      {"peer", "peer", "ProxyOp"},
      {"nSteps", "nSteps", "ProxyOp"},
      {"channel", "channelId", "KernelCh"},
      {"channel", "channelId", "KernelPhase"},
      {"phaseId", "phaseId", "KernelPhase"},
      {"pTimer", "pTimer", "KernelPhase"},
  };
  for (size_t i = 0; i < sizeof fields / sizeof *fields; i++) {
    if (strcmp(type, fields[i].only_type) != 0)
      continue;
    double want = num_of(start, fields[i].truth);
    double got = num_of(d, fields[i].trace);
    if (isnan(want))
      continue; /* this ABI does not deliver it */
    if (want != got)
      mismatch("pid %d %s %s: %s is %g in the trace, %g in the truth", pid,
               type, txt(start, "id"), fields[i].trace, got, want);
  }
  const char *func = str_of(start, "func");
  const char *tfunc = str_of(ev, "func");
  if (func && tfunc && strcmp(func, tfunc) != 0)
    mismatch("pid %d %s %s: func %s in the trace, %s in the truth", pid, type,
             txt(start, "id"), tfunc, func);
}

static void check_parent(const cJSON *start, const cJSON *ev, proc_t *p) {
  const char *type = txt(start, "type");
  const cJSON *pid_json = cJSON_GetObjectItemCaseSensitive(ev, "parentId");
  const char *status = str_of(ev, "parentStatus");
  uint64_t got =
      cJSON_IsString(pid_json) ? strtoull(pid_json->valuestring, NULL, 16) : 0;
  const cJSON *tp = cJSON_GetObjectItemCaseSensitive(start, "parent");
  if (!cJSON_IsString(tp)) {
    /* NCCL passed no parent of ours (NULL, or something the emulator
     * does not track): the trace must not invent one. */
    if (got)
      mismatch("pid %d %s %s: parentId 0x%" PRIx64 " but NCCL gave none",
               p->pid, type, txt(start, "id"), got);
    return;
  }
  const cJSON *pstart =
      cs_u64map_get(&truth_starts, strtoull(tp->valuestring, NULL, 16));
  if (!pstart) {
    if (got)
      mismatch("pid %d %s %s: parentId set, truth parent unknown", p->pid, type,
               txt(start, "id"));
    return;
  }
  int ppid = (int)num_of(pstart, "pid");
  proc_t *pp = proc_of(ppid);
  uint64_t pid_ours = 0;
  handle_kind pk = pp ? classify(pstart, pp, &pid_ours) : H_OTHER;
  if (ppid != p->pid) {
    /* PXN: another process's Coll/P2p. Never a local id; foreign with the
     * raw value NCCL delivered (which links to the other trace). */
    if (got)
      mismatch("pid %d %s %s: a foreign parent became local id 0x%" PRIx64,
               p->pid, type, txt(start, "id"), got);
    if (pk == H_OURS && (!status || strcmp(status, "foreign") != 0))
      mismatch("pid %d %s %s: PXN parent not marked foreign", p->pid, type,
               txt(start, "id"));
    if (pk == H_OURS && status && strcmp(status, "foreign") == 0) {
      uint64_t raw = hex_of(ev, "parentRaw");
      if ((raw & ID_MASK) != pid_ours || (uint16_t)(raw >> 48) != pp->tag)
        mismatch("pid %d %s %s: parentRaw 0x%" PRIx64 " does not name pid %d's "
                 "event 0x%" PRIx64,
                 p->pid, type, txt(start, "id"), raw, ppid, pid_ours);
    }
    return;
  }
  if (pk != H_OURS) {
    if (got)
      mismatch("pid %d %s %s: parentId 0x%" PRIx64 " for a parent that was not "
               "recorded",
               p->pid, type, txt(start, "id"), got);
    return;
  }
  if (got == pid_ours)
    return; /* exact */
  if (got)
    mismatch("pid %d %s %s: WRONG parent 0x%" PRIx64 ", truth says 0x%" PRIx64,
             p->pid, type, txt(start, "id"), got, pid_ours);
  else if (!status)
    mismatch("pid %d %s %s: parent 0x%" PRIx64 " lost without a parentStatus",
             p->pid, type, txt(start, "id"), pid_ours);
  (void)expected_parent_raw;
}

static size_t states_in_trace(const cJSON *ev) {
  size_t n = 0;
  const cJSON *st = cJSON_GetObjectItemCaseSensitive(ev, "states");
  const cJSON *s;
  cJSON_ArrayForEach(s, st) {
    double c = num_of(s, "count");
    n += isnan(c) ? 1 : (size_t)c;
  }
  return n;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: check_truth TRACE_DIR TRUTH_FILE...\n");
    return 2;
  }
  cs_u64map_init(&truth_starts, 4096);
  load_traces(argv[1]);
  for (int i = 2; i < argc; i++)
    load_truth(argv[i]);
  if (nprocs == 0)
    mismatch("no trace files in %s", argv[1]);

  size_t compared = 0, quiet = 0, parents = 0, stops = 0, states = 0;
  /* Starts: one event each, same type, fields, parent. */
  for (size_t i = 0; i < ntruth; i++) {
    const cJSON *o = truth_lines[i];
    const char *call = str_of(o, "call");
    if (!call || strcmp(call, "start") != 0 || !is_true(o, "delivered"))
      continue;
    proc_t *p = proc_of((int)num_of(o, "pid"));
    if (!p) {
      mismatch("no trace for pid %d", (int)num_of(o, "pid"));
      continue;
    }
    uint64_t id;
    handle_kind k = classify(o, p, &id);
    if (k == H_QUIET) {
      quiet++;
      continue;
    }
    if (k != H_OURS) {
      mismatch("pid %d %s %s: handle %s is not one of ours", p->pid,
               txt(o, "type"), txt(o, "id"), txt(o, "handle"));
      continue;
    }
    const cJSON *ev = cs_u64map_get(&p->events, id);
    if (!ev) {
      mismatch("pid %d %s %s (our id 0x%" PRIx64 "): no event in the trace",
               p->pid, txt(o, "type"), txt(o, "id"), id);
      continue;
    }
    compared++;
    if (!same_type(str_of(o, "type"), str_of(ev, "type")))
      mismatch("pid %d %s: type %s in the trace, %s in the truth", p->pid,
               txt(o, "id"), txt(ev, "type"), txt(o, "type"));
    check_details(o, ev, p->pid);
    check_parent(o, ev, p);
    parents++;
  }
  /* Stops and states, by the handle NCCL passed. */
  for (size_t i = 0; i < ntruth; i++) {
    const cJSON *o = truth_lines[i];
    const char *call = str_of(o, "call");
    if (!call || !is_true(o, "delivered") ||
        (strcmp(call, "stop") != 0 && strcmp(call, "state") != 0))
      continue;
    proc_t *p = proc_of((int)num_of(o, "pid"));
    uint64_t v = hex_of(o, "handle");
    if (!p || (uint16_t)(v >> 48) != p->tag || (v >> 46 & 3) != 0)
      continue; /* NULL, foreign, quiet */
    uint64_t id = v & ID_MASK;
    if (strcmp(call, "stop") == 0) {
      cs_u64map_put(&p->stopped_in_truth, id, (void *)1);
    } else {
      uintptr_t n = (uintptr_t)cs_u64map_get(&p->states_in_truth, id);
      cs_u64map_put(&p->states_in_truth, id, (void *)(n + 1));
    }
  }
  for (int k = 0; k < nprocs; k++) {
    proc_t *p = &procs[k];
    /* late states, by event id */
    cs_u64map late;
    cs_u64map_init(&late, 64);
    for (size_t j = 0; j < p->trace.count; j++) {
      const cJSON *r = p->trace.lines[j];
      const char *rt = str_of(r, "recordType");
      if (rt && strcmp(rt, "state") == 0) {
        uint64_t id = hex_of(r, "eventId");
        uintptr_t n = (uintptr_t)cs_u64map_get(&late, id);
        cs_u64map_put(&late, id, (void *)(n + 1));
      }
    }
    size_t cap = cs_u64map_capacity(&p->events);
    for (size_t j = 0; j < cap; j++) {
      if (!p->events.slots[j].key)
        continue;
      uint64_t id = p->events.slots[j].key;
      const cJSON *ev = p->events.slots[j].value;
      const char *end = str_of(ev, "end");
      bool truth_stop = cs_u64map_get(&p->stopped_in_truth, id) != NULL;
      if (end && strcmp(end, "stopped") == 0 && !truth_stop)
        mismatch("pid %d %s 0x%" PRIx64 ": stopped in the trace, never by NCCL",
                 p->pid, txt(ev, "type"), id);
      if (end && strcmp(end, "stopped") != 0 && truth_stop) {
        const char *why = str_of(ev, "reclaimReason");
        /* A stop after its communicator ended, or a never-stopped ProxyOp's
         * late stop at abort, may lose to the reclaim. */
        if (!why ||
            (strcmp(why, "finalize") != 0 && strcmp(why, "no-progress") != 0))
          mismatch("pid %d %s 0x%" PRIx64
                   ": NCCL stopped it, trace says %s (%s)",
                   p->pid, txt(ev, "type"), id, end, why ? why : "-");
      }
      stops++;
      size_t want = (uintptr_t)cs_u64map_get(&p->states_in_truth, id);
      size_t have = states_in_trace(ev) + (uintptr_t)cs_u64map_get(&late, id);
      if (have != want)
        mismatch("pid %d %s 0x%" PRIx64
                 ": %zu states in the trace, %zu in the truth",
                 p->pid, txt(ev, "type"), id, have, want);
      states += want;
    }
    /* No phantoms: every event was a delivered start. */
    size_t starts = 0;
    for (size_t i = 0; i < ntruth; i++) {
      const cJSON *o = truth_lines[i];
      const char *call = str_of(o, "call");
      uint64_t id;
      if (call && strcmp(call, "start") == 0 && is_true(o, "delivered") &&
          (int)num_of(o, "pid") == p->pid && classify(o, p, &id) == H_OURS)
        starts++;
    }
    if (starts != p->events.count)
      mismatch("pid %d: %zu events in the trace, %zu recorded starts in the "
               "truth",
               p->pid, p->events.count, starts);
    cs_u64map_free(&late);
  }
  printf("check_truth: %d processes, %zu events compared (%zu quiet), %zu "
         "parents, %zu ends, %zu states: %d mismatches\n",
         nprocs, compared, quiet, parents, stops, states, mismatches);
  return mismatches ? 1 : 0;
}
