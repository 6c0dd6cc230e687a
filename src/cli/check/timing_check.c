/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/check/timing_check.c — checks of timing records against the
 * format and against their file's process and lifecycle records (see
 * timing_check.h).
 */
#include "check/timing_check.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void timing_facts_init(timing_facts *t) {
  memset(t, 0, sizeof *t);
  t->format_version = 1;
  pair_map_init(&t->comm_of);
}

void timing_facts_free(timing_facts *t) {
  pair_map_free(&t->comm_of);
  free(t->comms);
  memset(t, 0, sizeof *t);
}

/* A number or null: *known says which; false for anything else. */
static bool int_or_null(const js_value *v, bool *known, int64_t *out) {
  *known = false;
  *out = 0;
  if (v && v->type == JS_NULL)
    return true;
  *known = js_to_i64(v, out);
  return *known;
}

void timing_facts_process(timing_facts *t, const rec *r) {
  const js_fields *f = r->f;
  t->has_process = true;
  if (!js_to_i64(js_get(f, K_formatVersion), &t->format_version))
    t->format_version = 1;
  js_str_copy(js_get(f, K_runId), t->run_id, sizeof t->run_id);
  js_str_copy(js_get(f, K_hostname), t->hostname, sizeof t->hostname);
  if (!js_to_i64(js_get(f, K_pid), &t->pid))
    t->pid = -1;
  int_or_null(js_get(f, K_globalRank), &t->global_rank_known, &t->global_rank);
}

void timing_facts_init_record(timing_facts *t, const rec *r) {
  int64_t ctx;
  if (!js_to_i64(js_get(r->f, K_ctx), &ctx))
    return;
  bool inserted;
  uint64_t *slot = pair_map_put(&t->comm_of, (uint64_t)ctx, 0, 0, &inserted);
  if (!slot)
    return;
  if (*slot == 0) {
    if (t->ncomms == t->cap_comms) {
      size_t cap = t->cap_comms ? t->cap_comms * 2 : 8;
      timing_comm *grown = realloc(t->comms, cap * sizeof *grown);
      if (!grown) {
        pair_map_remove(&t->comm_of, (uint64_t)ctx, 0);
        return; /* timing records of this ctx are then not compared */
      }
      t->comms = grown;
      t->cap_comms = cap;
    }
    *slot = ++t->ncomms;
  }
  timing_comm *c = &t->comms[*slot - 1];
  int_or_null(js_get(r->f, K_device), &c->device_known, &c->device);
  c->name[0] = '\0';
  js_str_copy(js_get(r->f, K_commName), c->name, sizeof c->name);
}

typedef struct {
  timing_report_fn report;
  void *arg;
  char id[32]; /* "timing record of 0x…" for messages */
} reporter;

static void say(const reporter *rp, timing_problem kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void say(const reporter *rp, timing_problem kind, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  rp->report(rp->arg, kind, msg);
}

/* ---- format version 2 ---- */

/* An integer-ns key (nullable ones may be null). */
static bool ns_key(const reporter *rp, const js_fields *f, js_key k,
                   bool nullable, const char *where, int64_t *out) {
  const js_value *v = js_get(f, k);
  *out = INT64_MIN;
  if (nullable && v && v->type == JS_NULL)
    return true;
  if (js_to_i64(v, out))
    return true;
  say(rp, TIMING_MISSING_KEY, "%s%s without an integer \"%s\"%s", rp->id, where,
      js_key_name(k), nullable ? " (or null)" : "");
  return false;
}

/* "gpu", "proxy" and each phase: {"startNs", "stopNs", …}. */
static void check_span(const reporter *rp, const js_value *obj, js_fields *sub,
                       const char *base, const char *name) {
  char where[64];
  snprintf(where, sizeof where, ": \"%s\"", name);
  if (obj->type != JS_OBJECT ||
      !js_fields_decode(sub, obj->ptr, obj->ptr + obj->len, base, false)) {
    say(rp, TIMING_MISSING_KEY, "%s: \"%s\" is not an object", rp->id, name);
    return;
  }
  int64_t start, stop;
  bool ok = ns_key(rp, sub, K_startNs, false, where, &start);
  ok = ns_key(rp, sub, K_stopNs, false, where, &stop) && ok;
  if (ok && stop < start)
    say(rp, TIMING_DURATION, "%s: \"%s\" stops %" PRId64 " ns before it starts",
        rp->id, name, start - stop);
}

static void check_phases(const reporter *rp, const js_value *phases,
                         js_fields *sub, const char *base) {
  js_iter it;
  js_value k, v;
  if (phases->type != JS_OBJECT ||
      !js_object_begin(&it, phases->ptr, phases->ptr + phases->len, base)) {
    say(rp, TIMING_MISSING_KEY, "%s: \"phases\" is not an object", rp->id);
    return;
  }
  while (js_object_next(&it, &k, &v)) {
    char name[48];
    snprintf(name, sizeof name, "phases.%.*s", (int)(k.len < 32 ? k.len : 32),
             k.ptr);
    check_span(rp, &v, sub, base, name);
  }
}

static void check_string_is(const reporter *rp, const js_fields *f, js_key k,
                            const char *want) {
  char got[256];
  const js_value *v = js_get(f, k);
  if (!v || v->type != JS_STRING) {
    say(rp, TIMING_MISSING_KEY, "%s without a string \"%s\"", rp->id,
        js_key_name(k));
    return;
  }
  js_str_copy(v, got, sizeof got);
  if (strcmp(got, want) != 0)
    say(rp, TIMING_IDENTITY, "%s: \"%s\" is \"%s\", its %s says \"%s\"", rp->id,
        js_key_name(k), got,
        k == K_commName ? "ProfilerInit" : "process record", want);
}

static void check_int_is(const reporter *rp, const js_fields *f, js_key k,
                         bool want_known, int64_t want, const char *whose) {
  bool known;
  int64_t got;
  if (!int_or_null(js_get(f, k), &known, &got)) {
    say(rp, TIMING_MISSING_KEY, "%s without an integer (or null) \"%s\"",
        rp->id, js_key_name(k));
    return;
  }
  if (known != want_known || (known && got != want)) {
    char g[24] = "null", w[24] = "null";
    if (known)
      snprintf(g, sizeof g, "%" PRId64, got);
    if (want_known)
      snprintf(w, sizeof w, "%" PRId64, want);
    say(rp, TIMING_IDENTITY, "%s: \"%s\" is %s, its %s says %s", rp->id,
        js_key_name(k), g, whose, w);
  }
}

static void check_identity(const timing_facts *t, const reporter *rp,
                           const rec *r) {
  const js_fields *f = r->f;
  if (t->has_process) {
    check_string_is(rp, f, K_runId, t->run_id);
    check_string_is(rp, f, K_hostname, t->hostname);
    check_int_is(rp, f, K_pid, t->pid >= 0, t->pid, "process record");
    check_int_is(rp, f, K_globalRank, t->global_rank_known, t->global_rank,
                 "process record");
  }
  int64_t ctx;
  const uint64_t *slot = js_to_i64(js_get(f, K_ctx), &ctx)
                             ? pair_map_get(&t->comm_of, (uint64_t)ctx, 0)
                             : NULL;
  if (!slot) { /* no ProfilerInit to compare with: the types only */
    bool known;
    int64_t device;
    if (!int_or_null(js_get(f, K_device), &known, &device))
      say(rp, TIMING_MISSING_KEY, "%s without an integer (or null) \"device\"",
          rp->id);
    const js_value *name = js_get(f, K_commName);
    if (!name || name->type != JS_STRING)
      say(rp, TIMING_MISSING_KEY, "%s without a string \"commName\"", rp->id);
    return;
  }
  const timing_comm *c = &t->comms[*slot - 1];
  check_int_is(rp, f, K_device, c->device_known, c->device, "ProfilerInit");
  check_string_is(rp, f, K_commName, c->name);
}

static void check_v2(const timing_facts *t, const reporter *rp, const rec *r,
                     js_fields *sub) {
  const js_fields *f = r->f;
  static const js_key v1_keys[] = {K_start, K_stop, K_duration, K_apiTs,
                                   K_enqueue};
  for (size_t i = 0; i < sizeof v1_keys / sizeof v1_keys[0]; i++)
    if (js_get(f, v1_keys[i]))
      say(rp, TIMING_MISSING_KEY,
          "%s has \"%s\", a format version 1 key, in a version %" PRId64
          " file",
          rp->id, js_key_name(v1_keys[i]), t->format_version);
  int64_t start, stop, duration, ignored;
  bool ok = ns_key(rp, f, K_startNs, false, "", &start);
  ok = ns_key(rp, f, K_stopNs, false, "", &stop) && ok;
  ok = ns_key(rp, f, K_durationNs, false, "", &duration) && ok;
  if (ok && duration != stop - start)
    say(rp, TIMING_DURATION,
        "%s: durationNs %" PRId64 " but stopNs - startNs = %" PRId64, rp->id,
        duration, stop - start);
  ns_key(rp, f, K_apiNs, true, "", &ignored);
  ns_key(rp, f, K_enqueueStartNs, false, "", &ignored);
  ns_key(rp, f, K_enqueueStopNs, true, "", &ignored);
  const js_value *gpu = js_get(f, K_gpu);
  if (gpu)
    check_span(rp, gpu, sub, r->line, "gpu");
  const js_value *proxy = js_get(f, K_proxy);
  if (proxy)
    check_span(rp, proxy, sub, r->line, "proxy");
  const js_value *phases = js_get(f, K_phases);
  if (phases)
    check_phases(rp, phases, sub, r->line);
  check_identity(t, rp, r);
}

/* ---- format version 1 ---- */

static void check_v1(const reporter *rp, const rec *r, js_fields *sub) {
  rec_timing times;
  rec_timing_decode(r, sub, &times);
  if (times.start == INT64_MIN || times.stop == INT64_MIN) {
    say(rp, TIMING_MISSING_KEY, "%s without \"start\" and \"stop\"", rp->id);
    return;
  }
  if (times.duration != INT64_MIN && times.duration != times.stop - times.start)
    say(rp, TIMING_DURATION, "%s: duration %.3f us but stop - start = %.3f us",
        rp->id, (double)times.duration / 1e3,
        (double)(times.stop - times.start) / 1e3);
}

void timing_check(const timing_facts *t, const rec *r, js_fields *sub,
                  timing_report_fn report, void *arg) {
  reporter rp = {report, arg, "timing record"};
  uint64_t id;
  if (js_to_hex_u64(js_get(r->f, K_eventId), &id))
    snprintf(rp.id, sizeof rp.id, "timing record of 0x%" PRIx64, id);
  if (t->format_version >= 2)
    check_v2(t, &rp, r, sub);
  else
    check_v1(&rp, r, sub);
}
