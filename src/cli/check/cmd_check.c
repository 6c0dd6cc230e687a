/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/check/cmd_check.c — `cclscope check DIR|FILE...`: validate traces
 * against the invariants of docs/invariants.md and the format of
 * docs/trace-format.md.
 *
 * Files are checked one after the other, streaming, while -j/--jobs
 * threads read and decode the next lines ahead (read/read_ahead.h), so the
 * findings and their order do not depend on the jobs; per file it keeps 16
 * bytes per event id (id_table.h) plus the references not yet resolvable
 * (children written before their parent). PXN parents are resolved across
 * files at the end by re-reading only the files they point to; one missing
 * from a file that ended without processEnd or lost lines is a note, as a
 * missing parent inside such a file is. Findings
 * are errors (exit 1) or notes (information: drops, a process that was
 * killed...). Output: "FILE:LINE: error[code]: message (invariant)", one
 * per line, then a one-line verdict. Reclaimed events are neither: they
 * are how the plugin closes events NCCL never stops (every reason is
 * NCCL's normal behaviour), so a clean run says how many, by reason, in
 * one line worded as such before the verdict, never as a finding.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "check/id_table.h"
#include "check/timing_check.h"
#include "cli.h"
#include "cli_options.h"
#include "read/read_ahead.h"
#include "read/trace_reader.h"
#include "read/trace_record.h"
#include "util/jsonw.h"
#include "util/pair_map.h"
#include "util/progress.h"

/* ---- findings ---- */

typedef enum { SEV_ERROR, SEV_NOTE } severity;

typedef enum {
  F_JSON,
  F_TRUNCATED,
  F_FIRST_RECORD,
  F_AFTER_END,
  F_MISSING_KEY,
  F_DUPLICATE_ID,
  F_END,
  F_DURATION,
  F_PARENT_MISSING,
  F_PARENT_TYPE,
  F_CHILD_OLDER,
  F_PARENT_FOREIGN,
  F_LIFECYCLE,
  F_COUNTERS,
  F_REFERENCE,
  F_TIMING_IDENTITY,
  F_READ,
  N_NO_PROCESS_END,
  N_DROPS,
  N_INFLIGHT,
  N_PARENTS_UNWRITTEN,
  N_FOREIGN_ELSEWHERE,
  N_UNKNOWN,
  F_CODE_COUNT
} finding_code;

typedef struct {
  const char *name;
  severity sev;
  const char *invariant;
} code_info;

static const code_info codes[F_CODE_COUNT] = {
    [F_JSON] = {"json", SEV_ERROR, "every line is one complete JSON object"},
    [F_TRUNCATED] = {"truncated", SEV_ERROR,
                     "every line is one complete JSON object"},
    [F_FIRST_RECORD] = {"first-record", SEV_ERROR,
                        "lifecycle records present: a file starts with its "
                        "process record"},
    [F_AFTER_END] = {"after-end", SEV_ERROR, "processEnd is the last line"},
    [F_MISSING_KEY] = {"missing-key", SEV_ERROR,
                       "records have the keys of docs/trace-format.md"},
    [F_DUPLICATE_ID] = {"duplicate-id", SEV_ERROR,
                        "event ids are unique within a file"},
    [F_END] = {"end", SEV_ERROR,
               "every started event is ended or accounted for"},
    [F_DURATION] = {"duration", SEV_ERROR, "duration = stop.ts - start.ts"},
    [F_PARENT_MISSING] = {"parent-missing", SEV_ERROR,
                          "exact parents or none: a parentId names an event "
                          "of the same file"},
    [F_PARENT_TYPE] = {"parent-type", SEV_ERROR,
                       "exact parents or none: the parent has a legal type"},
    [F_CHILD_OLDER] = {"child-older", SEV_ERROR,
                       "children are not older than their parents"},
    [F_PARENT_FOREIGN] = {"parent-foreign", SEV_ERROR,
                          "exact parents or none: a PXN parent names an "
                          "event of its process's file"},
    [F_LIFECYCLE] = {"lifecycle", SEV_ERROR, "lifecycle records present"},
    [F_COUNTERS] = {"counters", SEV_ERROR,
                    "eventsStarted = stopped + reclaimed + inflight + "
                    "droppedStarts, and every counted event is written"},
    [F_REFERENCE] = {"reference", SEV_ERROR,
                     "timing, state and GPU activity records refer to "
                     "events of their file"},
    [F_TIMING_IDENTITY] = {"timing-identity", SEV_ERROR,
                           "a timing record repeats its process's runId, "
                           "globalRank, hostname, pid and its "
                           "communicator's device and commName"},
    [F_READ] = {"read", SEV_ERROR, "the file can be read"},
    [N_NO_PROCESS_END] = {"no-process-end", SEV_NOTE, NULL},
    [N_DROPS] = {"drops", SEV_NOTE, NULL},
    [N_INFLIGHT] = {"inflight", SEV_NOTE, NULL},
    [N_PARENTS_UNWRITTEN] = {"parents-unwritten", SEV_NOTE, NULL},
    [N_FOREIGN_ELSEWHERE] = {"foreign-elsewhere", SEV_NOTE, NULL},
    [N_UNKNOWN] = {"unknown", SEV_NOTE, NULL},
};

typedef struct {
  char *file;
  uint64_t line;
  finding_code code;
  char *message;
} finding;

/* ---- reclaimed events: NCCL's normal behaviour, not findings ---- */

/* The reclaimReason values of docs/trace-format.md; any other is an
 * error[end]. */
typedef enum {
  RECLAIM_ABANDONED,
  RECLAIM_PARENT_STOPPED,
  RECLAIM_NO_PROGRESS,
  RECLAIM_FINALIZE,
  RECLAIM_REASON_COUNT
} reclaim_reason;

static const struct {
  const char *name; /* reclaimReason */
  const char *what; /* what such events are */
} reclaim_reasons[RECLAIM_REASON_COUNT] = {
    [RECLAIM_ABANDONED] = {"abandoned", "receive steps NCCL started again"},
    [RECLAIM_PARENT_STOPPED] = {"parent-stopped", "their parent ended first"},
    [RECLAIM_NO_PROGRESS] = {"no-progress",
                             "ProxyOps of a transport that reports no "
                             "progress"},
    [RECLAIM_FINALIZE] = {"finalize", "still open when their communicator "
                                      "was finalized"},
};

/* A reference to an event id of the same file not yet resolvable. */
typedef enum { REF_PARENT, REF_STATE, REF_TIMING, REF_LAUNCH } ref_kind;
typedef struct {
  uint64_t target;
  uint64_t child_id;
  int64_t child_start;
  uint32_t line;
  uint8_t child_type;
  uint8_t kind;
} ref;

/* A PXN parent: event `id` in the file whose process has handleTag `tag`
 * (and pid `origin_pid` on the same host, when known). */
typedef struct {
  uint64_t id;
  uint64_t child_id;
  int64_t origin_pid;
  uint32_t tag;
  uint32_t file;
  uint64_t line;
} foreign_ref;

/* What check learns about each file's process (for PXN resolution). */
typedef struct {
  bool has_tag;
  uint32_t tag;
  int64_t pid;
  char host[128];
  bool ended;          /* the file holds its processEnd */
  uint64_t lines_lost; /* processEnd's linesLost (0 without processEnd) */
} file_identity;

typedef struct {
  /* options */
  uint64_t max_per_code; /* per file; 0 = unlimited */
  bool json;
  bool notes;
  /* results */
  uint64_t files, records, lines_bytes;
  uint64_t errors, notes_count;
  uint64_t reclaimed[RECLAIM_REASON_COUNT]; /* event records, by reason */
  finding *findings;                        /* --json only */
  size_t nfindings, cap_findings;
  foreign_ref *frefs;
  size_t nfrefs, cap_frefs;
  file_identity *ids;
  progress prog;
  uint64_t bytes_before; /* of files already done (progress) */
} checker;

/* Per-file state. */
typedef struct {
  const char *path;
  uint32_t index;
  id_table ids;
  ref *refs;
  size_t nrefs, cap_refs, compact_at;
  pair_map ctxs; /* ctx -> CTX_* bits | (first use line << 8) */
  uint64_t per_code[F_CODE_COUNT];
  uint64_t records;
  uint64_t event_lines;
  uint64_t by_end[4]; /* by end_kind, NCCL events only */
  bool saw_first;
  bool saw_end;
  uint64_t end_line;
  bool end_reason_finalize;
  bool have_end_counters;
  uint64_t end_events_written, end_lines_lost;
  uint64_t end_stopped, end_reclaimed, end_inflight;
  bool have_end_parents_dropped;
  uint64_t end_parents_dropped;
  uint64_t parents_dropped;   /* events written with parentStatus dropped */
  uint64_t parents_unwritten; /* parent ids the file's end explains */
  bool saw_acct;              /* the accounting record (since 2026-11) */
  uint64_t acct_line;
  rec_accounting acct;
  timing_facts timing; /* what timing records must repeat */
} file_check;

enum { CTX_INIT = 1, CTX_FINALIZE = 2, CTX_USED = 4 };

static void report(checker *c, file_check *fc, uint64_t line, finding_code code,
                   const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void report(checker *c, file_check *fc, uint64_t line, finding_code code,
                   const char *fmt, ...) {
  const code_info *ci = &codes[code];
  if (ci->sev == SEV_ERROR)
    c->errors++;
  else
    c->notes_count++;
  if (ci->sev == SEV_NOTE && !c->notes)
    return;
  uint64_t n = ++fc->per_code[code];
  if (c->max_per_code && n > c->max_per_code)
    return;
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (c->json) {
    if (c->nfindings == c->cap_findings) {
      size_t ncap = c->cap_findings ? c->cap_findings * 2 : 64;
      finding *nf = realloc(c->findings, ncap * sizeof *nf);
      if (!nf)
        return;
      c->findings = nf;
      c->cap_findings = ncap;
    }
    finding *f = &c->findings[c->nfindings++];
    f->file = strdup(fc->path);
    f->line = line;
    f->code = code;
    f->message = strdup(msg);
    return;
  }
  char where[64] = "";
  if (line)
    snprintf(where, sizeof where, "%" PRIu64 ":", line);
  if (ci->sev == SEV_ERROR)
    printf("%s:%s error[%s]: %s (invariant: %s)\n", fc->path, where, ci->name,
           msg, ci->invariant);
  else
    printf("%s:%s note[%s]: %s\n", fc->path, where, ci->name, msg);
}

/* After a file: say how many findings of each code were not printed. */
static void report_suppressed(checker *c, file_check *fc) {
  if (!c->max_per_code || c->json)
    return;
  for (int k = 0; k < F_CODE_COUNT; k++)
    if (fc->per_code[k] > c->max_per_code)
      printf("%s: ... %" PRIu64 " more [%s] not shown (--max-findings)\n",
             fc->path, fc->per_code[k] - c->max_per_code, codes[k].name);
}

/* ---- references ---- */

static void check_parent_entry(checker *c, file_check *fc, const ref *r,
                               const id_entry *p) {
  if (r->kind == REF_PARENT) {
    if (!(ev_legal_parents((ev_type)r->child_type) & (1u << p->type)))
      report(c, fc, r->line, F_PARENT_TYPE,
             "%s 0x%" PRIx64 " has parent 0x%" PRIx64
             " of type %s (line %u), which cannot be its parent",
             ev_type_short_name((ev_type)r->child_type), r->child_id, r->target,
             ev_type_short_name((ev_type)p->type), p->line);
    else if (r->child_start < p->start_ns)
      report(c, fc, r->line, F_CHILD_OLDER,
             "%s 0x%" PRIx64 " starts %.3f us before its parent %s 0x%" PRIx64
             " (line %u)",
             ev_type_short_name((ev_type)r->child_type), r->child_id,
             (double)(p->start_ns - r->child_start) / 1e3,
             ev_type_short_name((ev_type)p->type), r->target, p->line);
  } else if (r->kind == REF_TIMING) {
    if (p->type != ET_COLL && p->type != ET_P2P && p->type != ET_CE_COLL)
      report(c, fc, r->line, F_REFERENCE,
             "timing record for 0x%" PRIx64 " which is a %s (line %u), not a "
             "Coll, P2p or CeColl",
             r->target, ev_type_short_name((ev_type)p->type), p->line);
  } else if (r->kind == REF_LAUNCH && p->type != ET_KERNEL_LAUNCH) {
    report(c, fc, r->line, F_REFERENCE,
           "GPU activity of launch 0x%" PRIx64 " which is a %s (line %u), "
           "not a KernelLaunch",
           r->target, ev_type_short_name((ev_type)p->type), p->line);
  }
}

/* A parent id with no record is explained when the process was killed
 * before processEnd (the parent was still in flight: events are written
 * when they end) or when lines could not be written (linesLost); then it is
 * counted for one note. Otherwise the link is wrong. */
static void report_unresolved(checker *c, file_check *fc, const ref *r) {
  if (r->kind == REF_PARENT && (!fc->saw_end || fc->end_lines_lost)) {
    fc->parents_unwritten++;
    return;
  }
  if (r->kind == REF_PARENT)
    report(c, fc, r->line, F_PARENT_MISSING,
           "parent 0x%" PRIx64 " of %s 0x%" PRIx64 " is not in this file",
           r->target, ev_type_short_name((ev_type)r->child_type), r->child_id);
  else if (r->kind == REF_TIMING)
    report(c, fc, r->line, F_REFERENCE,
           "timing record for event 0x%" PRIx64 ", which is not in this file",
           r->target);
  else if (r->kind == REF_LAUNCH)
    report(c, fc, r->line, F_REFERENCE,
           "GPU activity of launch 0x%" PRIx64 ", which is not in this file",
           r->target);
  /* Late states of events never written are possible (dropped stop
   * leaves the event reclaimed... it is still written); report too. */
  else
    report(c, fc, r->line, F_REFERENCE,
           "late state of event 0x%" PRIx64 ", which is not in this file",
           r->target);
}

/* Resolve what can be resolved now; keep the rest. */
static void resolve_refs(checker *c, file_check *fc, bool final) {
  size_t keep = 0;
  for (size_t i = 0; i < fc->nrefs; i++) {
    const ref *r = &fc->refs[i];
    const id_entry *p = id_table_find(&fc->ids, r->target);
    if (p)
      check_parent_entry(c, fc, r, p);
    else if (final)
      report_unresolved(c, fc, r);
    else
      fc->refs[keep++] = *r;
  }
  fc->nrefs = final ? 0 : keep;
  fc->compact_at = fc->nrefs * 2 > 65536 ? fc->nrefs * 2 : 65536;
}

static void add_ref(checker *c, file_check *fc, ref_kind kind, uint64_t target,
                    const rec *r, uint64_t line) {
  const id_entry *p = id_table_find(&fc->ids, target);
  ref x = {target,
           r->id,
           r->start.present ? r->start.ts : INT64_MAX,
           (uint32_t)(line > UINT32_MAX ? UINT32_MAX : line),
           (uint8_t)r->et,
           (uint8_t)kind};
  if (p) {
    check_parent_entry(c, fc, &x, p);
    return;
  }
  if (fc->nrefs == fc->cap_refs) {
    size_t ncap = fc->cap_refs ? fc->cap_refs * 2 : 1024;
    ref *nr = realloc(fc->refs, ncap * sizeof *nr);
    if (!nr)
      return;
    fc->refs = nr;
    fc->cap_refs = ncap;
  }
  fc->refs[fc->nrefs++] = x;
  if (fc->nrefs >= fc->compact_at)
    resolve_refs(c, fc, false);
}

/* ---- counters ---- */

typedef struct {
  bool ok;
  uint64_t started, stopped, reclaimed, inflight, dropped_starts;
  uint64_t dropped_states, dropped_stops;
  bool has_parents_dropped; /* since format 1 of 2026-11 */
  uint64_t parents_dropped;
} counters;

static counters read_counters(const js_value *v, js_fields *scratch,
                              const char *base) {
  counters k;
  memset(&k, 0, sizeof k);
  if (!v || v->type != JS_OBJECT ||
      !js_fields_decode(scratch, v->ptr, v->ptr + v->len, base, false))
    return k;
  k.ok = js_to_u64(js_get(scratch, K_eventsStarted), &k.started) &&
         js_to_u64(js_get(scratch, K_stopped), &k.stopped) &&
         js_to_u64(js_get(scratch, K_reclaimed), &k.reclaimed) &&
         js_to_u64(js_get(scratch, K_inflight), &k.inflight) &&
         js_to_u64(js_get(scratch, K_droppedStarts), &k.dropped_starts);
  js_to_u64(js_get(scratch, K_droppedStates), &k.dropped_states);
  js_to_u64(js_get(scratch, K_droppedStops), &k.dropped_stops);
  k.has_parents_dropped =
      js_to_u64(js_get(scratch, K_parentsDropped), &k.parents_dropped);
  return k;
}

static void check_identity(checker *c, file_check *fc, uint64_t line,
                           const counters *k, const char *where) {
  if (!k->ok) {
    report(c, fc, line, F_MISSING_KEY,
           "%s: counters eventsStarted, stopped, reclaimed, inflight, "
           "droppedStarts missing or not numbers",
           where);
    return;
  }
  uint64_t sum = k->stopped + k->reclaimed + k->inflight + k->dropped_starts;
  if (sum != k->started)
    report(c, fc, line, F_COUNTERS,
           "%s: eventsStarted %" PRIu64 " != stopped %" PRIu64
           " + reclaimed %" PRIu64 " + inflight %" PRIu64
           " + droppedStarts %" PRIu64 " (= %" PRIu64 ")",
           where, k->started, k->stopped, k->reclaimed, k->inflight,
           k->dropped_starts, sum);
}

/* ---- records ---- */

/* " 0x" and `id` in lowercase hex, as " 0x%" PRIx64 writes it, into buf
 * (24 bytes): every event line names its id in case a finding needs it,
 * and snprintf was a visible part of check's own time. */
static const char *id_text(char *buf, uint64_t id) {
  char digits[16];
  int n = 0;
  do {
    digits[n++] = "0123456789abcdef"[id & 0xf];
    id >>= 4;
  } while (id);
  char *p = buf;
  *p++ = ' ';
  *p++ = '0';
  *p++ = 'x';
  while (n > 0)
    *p++ = digits[--n];
  *p = '\0';
  return buf;
}

static void check_event(checker *c, file_check *fc, rec_scratch *s,
                        const rec *r, uint64_t line) {
  const js_fields *f = r->f;
  const char *tname = ev_type_short_name(r->et);
  if (r->et == ET_UNKNOWN && !js_str_eq(js_get(f, K_type), "unknown")) {
    if (!js_get(f, K_type))
      report(c, fc, line, F_MISSING_KEY, "event without \"type\"");
    else
      report(c, fc, line, N_UNKNOWN, "event type this cclscope does not know");
  }
  if (!r->start.present) {
    report(c, fc, line, F_MISSING_KEY,
           "%s without a valid \"start\" {ts,pid,tid}", tname);
  }
  if (r->et == ET_LIFECYCLE) {
    int64_t ctx;
    if (!js_to_i64(js_get(f, K_ctx), &ctx)) {
      report(c, fc, line, F_MISSING_KEY, "ProfilerLifecycle without \"ctx\"");
      return;
    }
    bool init = js_str_eq(js_get(f, K_func), "ProfilerInit");
    bool fin = js_str_eq(js_get(f, K_func), "ProfilerFinalize");
    if (!init && !fin) {
      report(c, fc, line, F_MISSING_KEY,
             "ProfilerLifecycle with func other than ProfilerInit or "
             "ProfilerFinalize");
      return;
    }
    uint64_t *bits = pair_map_put(&fc->ctxs, (uint64_t)ctx, 0, 0, NULL);
    if (bits) {
      if (init && (*bits & CTX_INIT))
        report(c, fc, line, F_LIFECYCLE, "second ProfilerInit for ctx %" PRId64,
               ctx);
      if (fin && !(*bits & CTX_INIT))
        report(c, fc, line, F_LIFECYCLE,
               "ProfilerFinalize for ctx %" PRId64 " before its ProfilerInit",
               ctx);
      *bits |= init ? CTX_INIT : CTX_FINALIZE;
    }
    if (init)
      timing_facts_init_record(&fc->timing, r);
    if (fin) {
      const js_value *d = js_get(f, K_details);
      js_fields *sub = &s->sub;
      if (d && d->type == JS_OBJECT &&
          js_fields_decode(sub, d->ptr, d->ptr + d->len, r->line, false)) {
        const js_value *pc = js_get(sub, K_processCounters);
        if (pc) {
          /* copy: read_counters reuses `sub` */
          js_value v = *pc;
          counters k = read_counters(&v, &s->state, r->line);
          check_identity(c, fc, line, &k, "ProfilerFinalize processCounters");
        }
      }
    }
    return;
  }
  /* NCCL events */
  fc->event_lines++;
  if (!r->has_id) {
    report(c, fc, line, F_MISSING_KEY, "%s without a hex \"id\"", tname);
  } else {
    id_entry *e = id_table_slot(&fc->ids, r->id);
    if (e && e->line) {
      report(c, fc, line, F_DUPLICATE_ID,
             "id 0x%" PRIx64 " was already used by the %s on line %u", r->id,
             ev_type_short_name((ev_type)e->type), e->line);
    } else if (e) {
      e->line = (uint32_t)(line > UINT32_MAX ? UINT32_MAX : line);
      e->type = (uint8_t)r->et;
      e->start_ns = r->start.present ? r->start.ts : INT64_MIN;
    }
  }
  if (!js_get(f, K_parentId))
    report(c, fc, line, F_MISSING_KEY, "%s without \"parentId\"", tname);
  switch (r->parent) {
  case PAR_LOCAL:
    add_ref(c, fc, REF_PARENT, r->parent_id, r, line);
    break;
  case PAR_FOREIGN: {
    if (c->nfrefs == c->cap_frefs) {
      size_t ncap = c->cap_frefs ? c->cap_frefs * 2 : 256;
      foreign_ref *nf = realloc(c->frefs, ncap * sizeof *nf);
      if (!nf)
        break;
      c->frefs = nf;
      c->cap_frefs = ncap;
    }
    foreign_ref *x = &c->frefs[c->nfrefs++];
    x->id = r->parent_raw & ((UINT64_C(1) << 47) - 1);
    x->tag = (uint32_t)(r->parent_raw >> 48);
    x->child_id = r->id;
    x->file = fc->index;
    x->line = line;
    if (!js_to_i64(js_get(f, K_originPid), &x->origin_pid))
      x->origin_pid = -1;
    break;
  }
  case PAR_DROPPED:
    fc->parents_dropped++;
    break;
  case PAR_BAD:
    report(c, fc, line, F_MISSING_KEY,
           "%s: malformed parent (parentId must be a hex id or null; "
           "parentStatus foreign/unknown needs parentRaw or parentHint, "
           "dropped needs neither)",
           tname);
    break;
  default:
    break;
  }
  if (!js_get(f, K_ctx) || !js_get(f, K_commId))
    report(c, fc, line, F_MISSING_KEY, "%s without \"ctx\" or \"commId\"",
           tname);
  if (r->has_ctx) {
    uint64_t *bits = pair_map_put(&fc->ctxs, (uint64_t)r->ctx, 0, 0, NULL);
    if (bits && !(*bits & CTX_USED))
      *bits |= CTX_USED | (line << 8);
  }
  /* how it ended */
  char idbuf[24];
  const char *idtxt = r->has_id ? id_text(idbuf, r->id) : "";
  switch (r->end) {
  case END_STOPPED: {
    fc->by_end[END_STOPPED]++;
    if (!r->stop.present) {
      report(c, fc, line, F_END,
             "%s%s is \"stopped\" but has no stop {ts,pid,tid}", tname, idtxt);
      break;
    }
    int64_t dur;
    if (r->start.present && r->stop.ts < r->start.ts)
      report(c, fc, line, F_END, "%s%s stops %.3f us before it starts", tname,
             idtxt, (double)(r->start.ts - r->stop.ts) / 1e3);
    if (!js_to_ns(js_get(f, K_duration), &dur))
      report(c, fc, line, F_DURATION, "%s%s: stopped without a duration", tname,
             idtxt);
    else if (r->start.present && dur != r->stop.ts - r->start.ts)
      report(c, fc, line, F_DURATION,
             "%s%s: duration %.3f us but stop - start = %.3f us", tname, idtxt,
             (double)dur / 1e3, (double)(r->stop.ts - r->start.ts) / 1e3);
    break;
  }
  case END_RECLAIMED:
  case END_INFLIGHT:
    fc->by_end[r->end]++;
    if (r->stop.present)
      report(c, fc, line, F_END, "%s%s is \"%s\" but has a stop", tname, idtxt,
             r->end == END_RECLAIMED ? "reclaimed" : "inflight");
    if (!r->has_end_ts)
      report(c, fc, line, F_END, "%s%s is \"%s\" without \"endTs\"", tname,
             idtxt, r->end == END_RECLAIMED ? "reclaimed" : "inflight");
    if (r->end == END_RECLAIMED) {
      const js_value *why = js_get(f, K_reclaimReason);
      int reason = 0;
      while (reason < RECLAIM_REASON_COUNT &&
             !js_str_eq(why, reclaim_reasons[reason].name))
        reason++;
      if (reason == RECLAIM_REASON_COUNT)
        report(c, fc, line, F_END,
               "%s%s is reclaimed without a known \"reclaimReason\"", tname,
               idtxt);
      else
        c->reclaimed[reason]++;
    }
    break;
  case END_NONE:
    report(c, fc, line, F_END,
           "%s%s has no \"end\": neither stopped, reclaimed nor in flight "
           "(missing stop)",
           tname, idtxt);
    break;
  case END_BAD:
    report(c, fc, line, F_END, "%s%s has an unknown \"end\" value", tname,
           idtxt);
    break;
  }
}

static void check_process_end(checker *c, file_check *fc, rec_scratch *s,
                              const rec *r, uint64_t line) {
  const js_fields *f = r->f;
  fc->saw_end = true;
  fc->end_line = line;
  fc->end_reason_finalize = js_str_eq(js_get(f, K_reason), "finalize");
  bool ok = js_to_u64(js_get(f, K_eventsWritten), &fc->end_events_written);
  ok = js_to_u64(js_get(f, K_linesLost), &fc->end_lines_lost) && ok;
  counters k = read_counters(js_get(f, K_counters), &s->sub, r->line);
  check_identity(c, fc, line, &k, "processEnd counters");
  if (!ok) {
    report(c, fc, line, F_MISSING_KEY,
           "processEnd without eventsWritten/linesLost numbers");
    return;
  }
  if (!k.ok)
    return;
  fc->have_end_counters = true;
  fc->end_stopped = k.stopped;
  fc->end_reclaimed = k.reclaimed;
  fc->end_inflight = k.inflight;
  fc->have_end_parents_dropped = k.has_parents_dropped;
  fc->end_parents_dropped = k.parents_dropped;
  if (k.dropped_starts || k.dropped_states || k.dropped_stops)
    report(c, fc, line, N_DROPS,
           "the plugin dropped %" PRIu64 " event starts, %" PRIu64
           " states and %" PRIu64
           " stops (rings full: raise CCLSCOPE_RING_SIZE)",
           k.dropped_starts, k.dropped_states, k.dropped_stops);
  if (fc->end_lines_lost && !fc->saw_acct) /* else said with the record */
    report(c, fc, line, N_DROPS,
           "%" PRIu64 " lines could not be written (disk full or I/O error)",
           fc->end_lines_lost);
}

/* The accounting record: what the file lost, counted where a full disk
 * could not take it away (its processEnd may be among the losses). */
static void check_accounting(checker *c, file_check *fc, const rec *r,
                             uint64_t line) {
  fc->saw_acct = true;
  fc->acct_line = line;
  if (!rec_accounting_decode(r, &fc->acct))
    report(c, fc, line, F_MISSING_KEY,
           "accounting record without its numbers (linesLost, bytesLost, "
           "writeErrors, writeErrno, compressErrors, linesLostCompressing, "
           "eventsWritten, droppedStarts, droppedStates, droppedStops)");
  const rec_accounting *a = &fc->acct;
  if (!a->lines_lost)
    return;
  char writes[160] = "", compressor[96] = "";
  if (a->write_errors)
    snprintf(writes, sizeof writes, "; %" PRIu64 " failed writes (last: %s)",
             a->write_errors, strerror((int)a->write_errno));
  if (a->compress_errors)
    snprintf(compressor, sizeof compressor,
             "; the compressor failed on %" PRIu64 " chunks (%" PRIu64
             " lines)",
             a->compress_errors, a->lines_lost_compressing);
  report(c, fc, line, N_DROPS,
         "%" PRIu64 " lines (%" PRIu64 " bytes) could not be written%s%s",
         a->lines_lost, a->bytes_lost, writes, compressor);
}

/* Checks that need the whole file. */
static void finish_file(checker *c, file_check *fc) {
  /* The accounting record counts every line lost, processEnd's included:
   * it explains what is missing as processEnd's linesLost does. */
  if (fc->saw_acct && fc->acct.lines_lost > fc->end_lines_lost)
    fc->end_lines_lost = fc->acct.lines_lost;
  /* how the file ended, for the PXN children of other files */
  c->ids[fc->index].ended = fc->saw_end;
  c->ids[fc->index].lines_lost = fc->end_lines_lost;
  resolve_refs(c, fc, true);
  if (fc->parents_unwritten && !fc->saw_end && !fc->end_lines_lost)
    report(c, fc, 0, N_PARENTS_UNWRITTEN,
           "%" PRIu64 " events name parents that are not in the file: the "
           "process ended without processEnd (killed?) while those parents "
           "were in flight",
           fc->parents_unwritten);
  else if (fc->parents_unwritten)
    report(c, fc, fc->end_line, N_PARENTS_UNWRITTEN,
           "%" PRIu64 " events name parents that are not in the file: %" PRIu64
           " lines could not be written (linesLost)",
           fc->parents_unwritten, fc->end_lines_lost);
  if (fc->parents_dropped)
    report(c, fc, fc->saw_end ? fc->end_line : 0, N_DROPS,
           "%" PRIu64 " events were written with parentStatus \"dropped\": "
           "their parent's start did not fit in a full ring",
           fc->parents_dropped);
  for (size_t i = 0; i < fc->ctxs.cap; i++) {
    const pair_map_slot *sl = &fc->ctxs.slots[i];
    if (!sl->used)
      continue;
    uint64_t bits = sl->value;
    if ((bits & CTX_USED) && !(bits & CTX_INIT))
      report(c, fc, bits >> 8, F_LIFECYCLE,
             "events of ctx %" PRIu64 " but no ProfilerInit record for it",
             sl->a);
    if ((bits & CTX_INIT) && !(bits & CTX_FINALIZE) && fc->saw_end &&
        fc->end_reason_finalize)
      report(c, fc, fc->end_line, F_LIFECYCLE,
             "processEnd says \"finalize\" but ctx %" PRIu64
             " has no ProfilerFinalize record",
             sl->a);
  }
  if (!fc->saw_end && fc->saw_acct && fc->acct.closed) {
    report(c, fc, fc->acct_line, N_NO_PROCESS_END,
           "file ends without processEnd: the process closed it (\"%s\") but "
           "its last lines, processEnd among them, could not be written "
           "(%" PRIu64 " lines lost in all)",
           fc->acct.reason, fc->acct.lines_lost);
  } else if (!fc->saw_end && fc->end_lines_lost) {
    report(c, fc, fc->acct_line, N_NO_PROCESS_END,
           "file ends without processEnd: process killed or still running, "
           "after %" PRIu64 " lines could not be written",
           fc->end_lines_lost);
  } else if (!fc->saw_end) {
    report(c, fc, 0, N_NO_PROCESS_END,
           "file ends without processEnd: process killed or still running");
  } else if (fc->have_end_counters) {
    uint64_t lost = fc->end_lines_lost;
    /* parentsDropped: written by plugins since 2026-11; older files lack
     * it, and then what the file has is counted as is. */
    uint64_t dropped_counted = fc->have_end_parents_dropped
                                   ? fc->end_parents_dropped
                                   : fc->parents_dropped;
    const struct {
      const char *name;
      uint64_t counted, written;
    } kinds[] = {
        {"stopped", fc->end_stopped, fc->by_end[END_STOPPED]},
        {"reclaimed", fc->end_reclaimed, fc->by_end[END_RECLAIMED]},
        {"inflight", fc->end_inflight, fc->by_end[END_INFLIGHT]},
        {"with a dropped parent", dropped_counted, fc->parents_dropped}};
    for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
      bool bad = lost == 0 ? kinds[k].counted != kinds[k].written
                           : kinds[k].written > kinds[k].counted ||
                                 kinds[k].counted - kinds[k].written > lost;
      if (bad)
        report(c, fc, fc->end_line, F_COUNTERS,
               "counters say %" PRIu64 " events %s, the file has %" PRIu64
               " such event records (linesLost %" PRIu64 ")",
               kinds[k].counted, kinds[k].name, kinds[k].written, lost);
    }
    if (fc->end_events_written != fc->event_lines)
      report(c, fc, fc->end_line, F_COUNTERS,
             "processEnd says eventsWritten %" PRIu64 ", the file has %" PRIu64
             " event records",
             fc->end_events_written, fc->event_lines);
    if (fc->end_inflight)
      report(c, fc, fc->end_line, N_INFLIGHT,
             "%" PRIu64 " events were still in flight at exit",
             fc->end_inflight);
  }
  report_suppressed(c, fc);
}

/* The newest trace format this check knows (docs/trace-format.md). */
#define CHECK_FORMAT_VERSION 2

/* Where timing_check's problems go: findings at the record's line. */
typedef struct {
  checker *c;
  file_check *fc;
  uint64_t line;
} timing_problem_sink;

static void on_timing_problem(void *arg, timing_problem kind,
                              const char *message) {
  timing_problem_sink *t = arg;
  finding_code code = kind == TIMING_DURATION   ? F_DURATION
                      : kind == TIMING_IDENTITY ? F_TIMING_IDENTITY
                                                : F_MISSING_KEY;
  report(t->c, t->fc, t->line, code, "%s", message);
}

/* One line, already decoded (read_ahead.h): `r` when `parsed`, else the
 * reason is in s->top. */
static void check_line(checker *c, file_check *fc, rec_scratch *s,
                       const ra_line_info *tf, rec r, bool parsed) {
  uint64_t line = tf->line_no;
  if (tf->line_unterminated) {
    report(c, fc, line, F_TRUNCATED,
           "the last line has no newline: it was cut short%s",
           parsed ? "" : " (incomplete JSON)");
    if (!parsed)
      return;
  } else if (!parsed) {
    report(c, fc, line, F_JSON, "invalid JSON: %s at column %zu",
           s->top.error ? s->top.error : "unknown error", s->top.error_at + 1);
    return;
  }
  if (r.rt == RT_PAD)
    return;
  fc->records++;
  if (fc->saw_end)
    report(c, fc, line, F_AFTER_END,
           "record after processEnd (line %" PRIu64 ")", fc->end_line);
  if (!fc->saw_first) {
    fc->saw_first = true;
    if (r.rt != RT_PROCESS)
      report(c, fc, line, F_FIRST_RECORD,
             "the first record is not a \"process\" record");
  }
  switch (r.rt) {
  case RT_PROCESS: {
    file_identity *id = &c->ids[fc->index];
    uint64_t tag;
    if (js_to_hex_u64(js_get(r.f, K_handleTag), &tag)) {
      id->has_tag = true;
      id->tag = (uint32_t)tag;
    }
    if (!js_to_i64(js_get(r.f, K_pid), &id->pid))
      report(c, fc, line, F_MISSING_KEY, "process record without \"pid\"");
    js_str_copy(js_get(r.f, K_hostname), id->host, sizeof id->host);
    int64_t version;
    if (js_to_i64(js_get(r.f, K_formatVersion), &version) &&
        version > CHECK_FORMAT_VERSION)
      report(c, fc, line, N_UNKNOWN,
             "format version %" PRId64 " is newer than this cclscope (%d)",
             version, CHECK_FORMAT_VERSION);
    timing_facts_process(&fc->timing, &r);
    break;
  }
  case RT_EVENT:
    check_event(c, fc, s, &r, line);
    break;
  case RT_PROCESS_END:
    check_process_end(c, fc, s, &r, line);
    break;
  case RT_ACCOUNTING:
    check_accounting(c, fc, &r, line);
    break;
  case RT_TIMING: {
    uint64_t target;
    if (!js_to_hex_u64(js_get(r.f, K_eventId), &target)) {
      report(c, fc, line, F_MISSING_KEY, "timing record without \"eventId\"");
      break;
    }
    r.id = target;
    r.et = ET_UNKNOWN;
    add_ref(c, fc, REF_TIMING, target, &r, line);
    timing_problem_sink sink = {c, fc, line};
    timing_check(&fc->timing, &r, &s->sub, on_timing_problem, &sink);
    break;
  }
  case RT_STATE: {
    uint64_t target;
    if (!js_to_hex_u64(js_get(r.f, K_eventId), &target)) {
      report(c, fc, line, F_MISSING_KEY, "state record without \"eventId\"");
      break;
    }
    r.id = target;
    add_ref(c, fc, REF_STATE, target, &r, line);
    break;
  }
  case RT_THREAD:
  case RT_MARK:
    if (!r.has_ts)
      report(c, fc, line, F_MISSING_KEY, "record without a valid \"ts\"");
    break;
  case RT_GPU_ACTIVITY: {
    uint64_t launch;
    if (!r.start.present || !r.stop.present || r.stop.ts < r.start.ts)
      report(c, fc, line, F_MISSING_KEY,
             "gpuActivity record without a valid start and stop");
    else if (js_to_hex_u64(js_get(r.f, K_launchId), &launch))
      add_ref(c, fc, REF_LAUNCH, launch, &r, line);
    break;
  }
  default:
    report(c, fc, line, N_UNKNOWN, "record type this cclscope does not know");
    break;
  }
}

static void check_file(checker *c, ra_reader *ra, uint32_t index,
                       const char *path, rec_scratch *s) {
  file_check fc;
  memset(&fc, 0, sizeof fc);
  fc.path = path;
  fc.index = index;
  fc.compact_at = 65536;
  id_table_init(&fc.ids);
  pair_map_init(&fc.ctxs);
  timing_facts_init(&fc.timing);
  ra_line_info tf;
  rec r;
  bool parsed;
  int got;
  while ((got = ra_next(ra, index, s, &r, &parsed, &tf)) == RA_LINE) {
    check_line(c, &fc, s, &tf, r, parsed);
    progress_update(&c->prog, c->bytes_before + tf.bytes_read);
  }
  if (got == RA_OPEN_ERROR) {
    report(c, &fc, 0, F_READ, "cannot open: %s", tr_strerror(tf.error));
  } else {
    if (got == RA_READ_ERROR)
      report(c, &fc, tf.line_no, F_READ, "read error: %s",
             tr_strerror(tf.error));
    c->lines_bytes += tf.text_bytes;
    c->bytes_before += tf.bytes_read;
  }
  c->records += fc.records;
  finish_file(c, &fc);
  id_table_free(&fc.ids);
  pair_map_free(&fc.ctxs);
  timing_facts_free(&fc.timing);
  free(fc.refs);
}

/* ---- PXN parents across files ---- */

static int cmp_fref(const void *a, const void *b) {
  const foreign_ref *x = a, *y = b;
  if (x->file != y->file)
    return x->file < y->file ? -1 : 1;
  return x->line < y->line ? -1 : x->line > y->line;
}

/* The id of an event line. Fast path for the plugin's key order
 * ("recordType":"event","type":...,"id":"0x..." near the start), full
 * decoding otherwise. */
static bool event_id_of_line(const char *line, size_t len, rec_scratch *s,
                             uint64_t *id) {
  static const char ev[] = "{\"recordType\":\"event\",\"type\":\"ncclProfile";
  size_t head = len < 128 ? len : 128;
  if (len > sizeof ev && memcmp(line, ev, sizeof ev - 1) == 0) {
    const char *p = memmem(line, head, ",\"id\":\"0x", 9);
    if (p) {
      js_value v = {p + 7, 0, JS_STRING, false};
      const char *q = v.ptr;
      while (q < line + len && *q != '"')
        q++;
      v.len = (size_t)(q - v.ptr);
      if (js_to_hex_u64(&v, id))
        return true;
    }
  }
  rec r;
  if (!rec_decode(&r, s, line, len) || r.rt != RT_EVENT || !r.has_id)
    return false;
  *id = r.id;
  return true;
}

/* The file of the process that issued PXN parent `x`, or -1. */
static long target_file(const checker *c, const tr_inputs *in,
                        const foreign_ref *x) {
  const file_identity *from = &c->ids[x->file];
  for (size_t i = 0; i < in->n; i++) {
    const file_identity *id = &c->ids[i];
    if (!id->has_tag || id->tag != x->tag || i == x->file)
      continue;
    if (x->origin_pid >= 0 && id->pid != x->origin_pid)
      continue;
    if (from->host[0] && id->host[0] && strcmp(from->host, id->host) != 0)
      continue;
    return (long)i;
  }
  return -1;
}

/* A parent missing from its process's file is explained, as in one file
 * (report_unresolved), when that file ended without processEnd (the process
 * was killed or is still running: the parent was in flight, or ended but
 * its line was not written yet) or when it lost lines. The ids cannot tell
 * more: an event in flight at the kill may be older than lines the file
 * holds. A file that ended normally holds every event its process
 * recorded: then the missing parent is an error. */
static bool end_explains_missing(const file_identity *parent_file) {
  return !parent_file->ended || parent_file->lines_lost > 0;
}

/* The PXN parents of one child file that their files' ends explain, per
 * parent file: how many, and the first child's line. */
typedef struct {
  uint64_t *count;      /* by parent file index */
  uint64_t *first_line; /* by parent file index */
  uint32_t *touched;    /* parent files with count > 0, in first-seen order */
  size_t ntouched;
} unwritten_tally;

static void tally_unwritten(unwritten_tally *t, uint32_t parent_file,
                            uint64_t line) {
  if (t->count[parent_file]++ == 0) {
    t->first_line[parent_file] = line;
    t->touched[t->ntouched++] = parent_file;
  }
}

/* One note per parent file, then the tally is empty again. */
static void report_unwritten(checker *c, file_check *fc, unwritten_tally *t,
                             const tr_inputs *in) {
  for (size_t k = 0; k < t->ntouched; k++) {
    uint32_t f = t->touched[k];
    const file_identity *pf = &c->ids[f];
    if (!pf->ended)
      report(c, fc, t->first_line[f], N_PARENTS_UNWRITTEN,
             "%" PRIu64 " PXN parents are not in %s (the file of handleTag "
             "0x%x): that process ended without processEnd (killed?) before "
             "writing them",
             t->count[f], in->paths[f], pf->tag);
    else
      report(c, fc, t->first_line[f], N_PARENTS_UNWRITTEN,
             "%" PRIu64 " PXN parents are not in %s (the file of handleTag "
             "0x%x): %" PRIu64 " of its lines could not be written (linesLost)",
             t->count[f], in->paths[f], pf->tag, pf->lines_lost);
    t->count[f] = 0;
  }
  t->ntouched = 0;
}

static void resolve_foreign(checker *c, const tr_inputs *in, rec_scratch *s) {
  if (c->nfrefs == 0)
    return;
  /* wanted[(file, id)] = 1 once seen */
  pair_map wanted;
  pair_map_init(&wanted);
  long *targets = malloc(c->nfrefs * sizeof *targets);
  bool *needed = calloc(in->n, sizeof *needed);
  unwritten_tally tally = {calloc(in->n, sizeof(uint64_t)),
                           calloc(in->n, sizeof(uint64_t)),
                           calloc(in->n, sizeof(uint32_t)), 0};
  if (!targets || !needed || !tally.count || !tally.first_line ||
      !tally.touched) {
    fprintf(stderr, "cclscope check: out of memory: PXN parents not checked\n");
    free(targets);
    free(needed);
    free(tally.count);
    free(tally.first_line);
    free(tally.touched);
    return;
  }
  for (size_t i = 0; i < c->nfrefs; i++) {
    targets[i] = target_file(c, in, &c->frefs[i]);
    if (targets[i] >= 0) {
      pair_map_put(&wanted, (uint64_t)targets[i], c->frefs[i].id, 0, NULL);
      needed[targets[i]] = true;
    }
  }
  for (size_t f = 0; f < in->n; f++) {
    if (!needed[f])
      continue;
    tr_file tf;
    if (tr_open(&tf, in->paths[f], 1 << 20) != 0)
      continue;
    while (tr_next(&tf) == 1) {
      uint64_t id;
      if (!event_id_of_line(tf.line, tf.line_len, s, &id))
        continue;
      uint64_t *v = pair_map_get(&wanted, f, id);
      if (v)
        *v = 1;
    }
    tr_close(&tf);
  }
  /* Report per child file, in line order. */
  qsort(c->frefs, c->nfrefs, sizeof *c->frefs, cmp_fref);
  size_t i = 0;
  while (i < c->nfrefs) {
    uint32_t file = c->frefs[i].file;
    file_check fc;
    memset(&fc, 0, sizeof fc);
    fc.path = in->paths[file];
    uint64_t elsewhere = 0;
    for (; i < c->nfrefs && c->frefs[i].file == file; i++) {
      const foreign_ref *x = &c->frefs[i];
      long t = target_file(c, in, x);
      if (t < 0) {
        elsewhere++;
        continue;
      }
      uint64_t *v = pair_map_get(&wanted, (uint64_t)t, x->id);
      if (v && *v)
        continue;
      if (end_explains_missing(&c->ids[t]))
        tally_unwritten(&tally, (uint32_t)t, x->line);
      else
        report(c, &fc, x->line, F_PARENT_FOREIGN,
               "PXN parent 0x%" PRIx64 " of event 0x%" PRIx64
               " is not in %s (the file of handleTag 0x%x, which ended with "
               "processEnd)",
               x->id, x->child_id, in->paths[t], x->tag);
    }
    report_unwritten(c, &fc, &tally, in);
    if (elsewhere)
      report(c, &fc, 0, N_FOREIGN_ELSEWHERE,
             "%" PRIu64 " PXN parents belong to processes whose traces are "
             "not among the inputs",
             elsewhere);
    report_suppressed(c, &fc);
  }
  free(targets);
  free(needed);
  free(tally.count);
  free(tally.first_line);
  free(tally.touched);
  pair_map_free(&wanted);
}

/* ---- command ---- */

static void print_json(const checker *c) {
  jsonw w;
  jw_init(&w, stdout);
  jw_obj_begin(&w);
  jw_key(&w, "files");
  jw_u64(&w, c->files);
  jw_key(&w, "records");
  jw_u64(&w, c->records);
  jw_key(&w, "bytes");
  jw_u64(&w, c->lines_bytes);
  jw_key(&w, "errors");
  jw_u64(&w, c->errors);
  jw_key(&w, "notes");
  jw_u64(&w, c->notes_count);
  jw_key(&w, "reclaimed");
  jw_obj_begin(&w);
  for (int k = 0; k < RECLAIM_REASON_COUNT; k++) {
    jw_key(&w, reclaim_reasons[k].name);
    jw_u64(&w, c->reclaimed[k]);
  }
  jw_obj_end(&w);
  jw_key(&w, "findings");
  jw_arr_begin(&w);
  for (size_t i = 0; i < c->nfindings; i++) {
    const finding *f = &c->findings[i];
    jw_newline(&w);
    jw_obj_begin(&w);
    jw_key(&w, "file");
    jw_str(&w, f->file);
    jw_key(&w, "line");
    if (f->line)
      jw_u64(&w, f->line);
    else
      jw_null(&w);
    jw_key(&w, "severity");
    jw_str(&w, codes[f->code].sev == SEV_ERROR ? "error" : "note");
    jw_key(&w, "code");
    jw_str(&w, codes[f->code].name);
    jw_key(&w, "message");
    jw_str(&w, f->message);
    jw_key(&w, "invariant");
    jw_str(&w, codes[f->code].invariant);
    jw_obj_end(&w);
  }
  jw_arr_end(&w);
  jw_obj_end(&w);
  jw_newline(&w);
  jw_flush(&w);
}

/* The line about reclaimed events, when there are any: how many, by
 * reason, and that this is how NCCL behaves. */
static void print_reclaimed(const checker *c) {
  uint64_t total = 0;
  for (int k = 0; k < RECLAIM_REASON_COUNT; k++)
    total += c->reclaimed[k];
  if (!total)
    return;
  printf("cclscope check: %" PRIu64 " event%s that NCCL never stops %s "
         "closed by the plugin (reclaimed): ",
         total, total == 1 ? "" : "s", total == 1 ? "was" : "were");
  const char *sep = "";
  for (int k = 0; k < RECLAIM_REASON_COUNT; k++) {
    if (!c->reclaimed[k])
      continue;
    printf("%s%" PRIu64 " %s (%s)", sep, c->reclaimed[k],
           reclaim_reasons[k].name, reclaim_reasons[k].what);
    sep = ", ";
  }
  printf("; this is how NCCL behaves, not a fault\n");
}

static const cli_option check_options[] = {{"json", false, 'J'},
                                           {"max-findings", true, 'm'},
                                           {"no-notes", false, 'n'},
                                           {NULL, false, 0}};

static const cli_command_line check_command_line = {
    .cmd = "check",
    .options = check_options,
};

int cmd_check(int argc, char **argv) {
  checker c;
  memset(&c, 0, sizeof c);
  c.max_per_code = 20;
  c.notes = true;
  cli_parser p;
  cli_parse_begin(&p, &check_command_line, argc, argv);
  int o;
  while ((o = cli_parse_next(&p)) > 0) {
    switch (o) {
    case 'J':
      c.json = true;
      break;
    case 'm': {
      long long v;
      if (!cli_number(p.value, 0, LLONG_MAX, &v))
        return usage_error("check", "--max-findings needs a number, not '%s'",
                           p.value);
      c.max_per_code = (uint64_t)v;
      break;
    }
    case 'n':
      c.notes = false;
      break;
    }
  }
  if (o == CLI_PARSE_EXIT)
    return p.status;
  tr_inputs in;
  if (!tr_inputs_collect(&in, p.ninputs, p.inputs))
    return EXIT_FINDINGS;
  c.ids = calloc(in.n, sizeof *c.ids);
  rec_scratch *s = malloc(sizeof *s);
  if (!c.ids || !s) {
    fprintf(stderr, "cclscope check: out of memory\n");
    free(c.ids);
    free(s);
    tr_inputs_free(&in);
    return EXIT_FINDINGS;
  }
  rec_scratch_init(s);
  progress_start(&c.prog, "check", in.total_bytes);
  double t0 = progress_now();
  /* the files are read and decoded ahead on tr_jobs threads, and checked
   * here one after the other, in order */
  ra_reader *ra = ra_open(in.paths, in.n, tr_jobs);
  if (!ra) {
    fprintf(stderr, "cclscope check: out of memory\n");
    free(c.ids);
    free(s);
    tr_inputs_free(&in);
    return EXIT_FINDINGS;
  }
  for (size_t i = 0; i < in.n; i++) {
    check_file(&c, ra, (uint32_t)i, in.paths[i], s);
    c.files++;
  }
  ra_close(ra);
  resolve_foreign(&c, &in, s);
  progress_finish(&c.prog);
  double secs = progress_now() - t0;
  if (c.json) {
    print_json(&c);
  } else {
    if (c.notes)
      print_reclaimed(&c);
    printf("cclscope check: %" PRIu64 " file%s, %" PRIu64 " records: %" PRIu64
           " error%s, %" PRIu64 " note%s — %s\n",
           c.files, c.files == 1 ? "" : "s", c.records, c.errors,
           c.errors == 1 ? "" : "s", c.notes_count,
           c.notes_count == 1 ? "" : "s", c.errors ? "FAILED" : "OK");
  }
  if (!cli_globals.quiet && secs > 0 && c.lines_bytes > (64u << 20))
    fprintf(stderr, "cclscope check: %.1f MB in %.2f s (%.0f MB/s)\n",
            (double)c.lines_bytes / 1e6, secs,
            (double)c.lines_bytes / 1e6 / secs);
  for (size_t i = 0; i < c.nfindings; i++) {
    free(c.findings[i].file);
    free(c.findings[i].message);
  }
  free(c.findings);
  free(c.frefs);
  free(c.ids);
  free(s);
  tr_inputs_free(&in);
  return c.errors ? EXIT_FINDINGS : EXIT_OK;
}
