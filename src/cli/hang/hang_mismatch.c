/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/hang/hang_mismatch.c — ranks that called the collective with
 * other arguments than the others (docs/hang.md, "What each class looks
 * like"; NCCL's side: docs/nccl-behaviour.md §6.6).
 *
 * NCCL does not compare a collective's arguments across ranks, and its
 * seqNumber counts per function: a rank that calls AllGather where the
 * others call AllReduce looks, by the AllReduce counter, like a rank that
 * never called it. What says the ranks are at the same point is the
 * number of collectives each started on the communicator (the sum of its
 * snapshot's progress counters, point-to-point ones left out). Among the ranks
 * with a snapshot at the most common such point, each one's current call (its
 * newest collective in flight on the communicator: function, count, datatype,
 * root) is compared; the calls that differ from the most common one are the
 * culprits of every group of that communicator. No majority (the ranks
 * split evenly): every rank compared is named, with low confidence.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hang/hang_explain.h"
#include "nccl_names.h"

/* One rank's current call, at its point in the communicator's sequence. */
typedef struct {
  int64_t rank;
  const hang_member *m;
  uint64_t position; /* collectives it started on the communicator */
  const hang_op *op; /* its newest collective in flight; NULL: none */
  size_t kind;       /* index of the first rank with the same call */
} call;

static bool same_call(const hang_op *a, const hang_op *b) {
  return strcmp(a->func, b->func) == 0 && a->has_count == b->has_count &&
         a->count == b->count && strcmp(a->datatype, b->datatype) == 0 &&
         a->has_root == b->has_root && a->root == b->root;
}

/* Point-to-point functions (ncclFunc_t SendRecv, Send, Recv): ranks call
 * different numbers of them legitimately (pipelines), so they do not count
 * towards a rank's point in the sequence of collectives. */
static bool is_p2p_func(const char *func) {
  for (int f = 5; f <= 7; f++)
    if (strcmp(func, nccl_func_name(f)) == 0)
      return true;
  return false;
}

static uint64_t position_of(const hang_member *m) {
  uint64_t n = 0;
  for (size_t i = 0; i < m->nprogress; i++)
    if (!is_p2p_func(m->progress[i].func))
      n += m->progress[i].started;
  return n;
}

/* The newest collective in flight (the one that started last). */
static const hang_op *current_op(const hang_member *m) {
  const hang_op *best = NULL;
  for (size_t k = 0; k < m->nops; k++) {
    const hang_op *op = &m->ops[k];
    if (op->pxn || !op->has_seq || !op->func[0] ||
        nccl_event_from_json_str(op->type) == NCCL_EV_P2P)
      continue;
    if (!best || op->age_s < best->age_s)
      best = op;
  }
  return best;
}

/* The ranks of `comm` from one group (every group of a communicator has
 * every rank): one entry per rank with a snapshot. */
static size_t collect_calls(const hang_group *g, call *calls) {
  size_t n = 0;
  for (int64_t r = 0; r < g->nranks; r++) {
    const hang_rank *hr = &g->ranks[r];
    if (!hr->m || !hr->src || hr->src->is_trace)
      continue;
    calls[n++] = (call){r, hr->m, position_of(hr->m), current_op(hr->m), 0};
  }
  return n;
}

/* The most common position among ranks with a call in flight. */
static bool common_position(const call *calls, size_t n, uint64_t *pos) {
  size_t best = 0;
  for (size_t i = 0; i < n; i++) {
    if (!calls[i].op)
      continue;
    size_t same = 0;
    for (size_t j = 0; j < n; j++)
      same += calls[j].op && calls[j].position == calls[i].position;
    if (same > best) {
      best = same;
      *pos = calls[i].position;
    }
  }
  return best >= 2;
}

typedef struct {
  uint64_t comm;
  call *calls; /* the ranks compared (at the common position) */
  size_t ncalls;
  size_t majority; /* kind of the most common call; SIZE_MAX: a tie */
  size_t majority_n;
  int64_t *odd; /* ranks whose call is not the majority's (all on a tie) */
  size_t nodd;
  bool one_process; /* the odd ranks are all of one process */
  hang_confidence confidence;
  char text[HANG_WAITING * 2];
} finding;

static void describe_call(const hang_op *op, bool with_root, hang_text *b) {
  hang_text_add(b, "%s seqNumber %" PRIu64, op->func, op->seq);
  if (op->has_count)
    hang_text_add(b, " count %" PRIu64, op->count);
  if (op->datatype[0])
    hang_text_add(b, " %s", op->datatype);
  if (with_root && op->has_root)
    hang_text_add(b, " root %" PRId64, op->root);
}

/* "rank 5 called AllReduce seqNumber 1 count 1024 ncclFloat32, ranks 0-4,
 * 6-7 AllReduce seqNumber 1 count 4096 ncclFloat32 (the 2nd collective
 * each started on the communicator)" */
static void describe(finding *f, uint64_t position) {
  hang_text b;
  hang_text_init(&b, f->text, sizeof f->text);
  bool roots_differ = false;
  for (size_t i = 1; i < f->ncalls; i++)
    roots_differ |= f->calls[i].op->has_root != f->calls[0].op->has_root ||
                    f->calls[i].op->root != f->calls[0].op->root;
  int64_t *ranks = malloc(f->ncalls * sizeof *ranks);
  if (!ranks)
    return;
  /* the odd calls first, then the majority's */
  for (int pass = 0; pass < 2; pass++)
    for (size_t k = 0; k < f->ncalls; k++) {
      if (f->calls[k].kind != k)
        continue; /* not the first of its kind */
      bool is_majority = k == f->majority;
      if (is_majority != (pass == 1))
        continue;
      size_t n = 0;
      for (size_t i = 0; i < f->ncalls; i++)
        if (f->calls[i].kind == k)
          ranks[n++] = f->calls[i].rank;
      char list[256];
      hang_ranges(ranks, n, list, sizeof list);
      hang_text_add(&b, "%s%s %s %s", b.len ? ", " : "",
                    n == 1 ? "rank" : "ranks", list, b.len ? "" : "called ");
      describe_call(f->calls[k].op, roots_differ, &b);
    }
  uint64_t tens = position % 100;
  const char *th = tens >= 11 && tens <= 13 ? "th"
                   : position % 10 == 1     ? "st"
                   : position % 10 == 2     ? "nd"
                   : position % 10 == 3     ? "rd"
                                            : "th";
  hang_text_add(
      &b, " (the %" PRIu64 "%s collective each started on the communicator)",
      position, th);
  free(ranks);
}

static const hang_source *source_of(const hang_group *g, int64_t rank) {
  return g->ranks[rank].src;
}

/* Which ranks disagree, and how sure that is. */
static bool judge(const hang_group *g, finding *f) {
  size_t best = 0, kinds = 0;
  bool tie = false;
  for (size_t k = 0; k < f->ncalls; k++) {
    if (f->calls[k].kind != k)
      continue;
    kinds++;
    size_t n = 0;
    for (size_t i = 0; i < f->ncalls; i++)
      n += f->calls[i].kind == k;
    if (n > best) {
      best = n;
      f->majority = k;
      tie = false;
    } else if (n == best) {
      tie = true;
    }
  }
  if (kinds < 2)
    return true; /* they agree */
  f->majority_n = best;
  if (tie)
    f->majority = SIZE_MAX;
  f->odd = malloc(f->ncalls * sizeof *f->odd);
  if (!f->odd)
    return false;
  for (size_t i = 0; i < f->ncalls; i++)
    if (tie || f->calls[i].kind != f->majority)
      f->odd[f->nodd++] = f->calls[i].rank;
  f->one_process = true;
  for (size_t i = 1; i < f->nodd; i++)
    f->one_process &= source_of(g, f->odd[i]) == source_of(g, f->odd[0]);
  if (tie)
    f->confidence = HC_LOW; /* nothing says which side is wrong */
  else if (f->one_process && f->majority_n >= 2)
    f->confidence = HC_HIGH;
  else
    f->confidence = HC_MEDIUM;
  return true;
}

/* The finding becomes the verdict of group `g` (of its communicator). */
static bool apply(hang_group *g, const finding *f) {
  bool *odd = calloc((size_t)g->nranks, sizeof *odd);
  int64_t *culprits = malloc(f->nodd * sizeof *culprits);
  if (!odd || !culprits) {
    free(odd);
    free(culprits);
    return false;
  }
  for (size_t i = 0; i < f->nodd; i++)
    odd[f->odd[i]] = true;
  for (size_t i = 0; i < f->ncalls; i++) {
    hang_rank *hr = &g->ranks[f->calls[i].rank];
    if (odd[hr->rank]) {
      hr->evidence = HE_MISMATCH;
      hr->evidence_head = NULL;
    } else {
      /* its call is the majority's: what it waits for, or that it never
       * started the odd rank's function, is the consequence */
      hr->evidence = HE_NONE;
    }
  }
  memcpy(culprits, f->odd, f->nodd * sizeof *culprits);
  free(g->culprits);
  g->culprits = culprits;
  g->nculprits = f->nodd;
  g->top = HE_MISMATCH;
  g->culprit_process = f->nodd > 1 && f->one_process;
  g->confidence = f->confidence;
  g->ncycle = 0;
  snprintf(g->mismatch, sizeof g->mismatch, "%s", f->text);
  g->hclass = hang_class_of(g);
  free(odd);
  return true;
}

static bool find_in_comm(hang_report *r, size_t first) {
  hang_group *g0 = &r->groups[first];
  finding f;
  memset(&f, 0, sizeof f);
  f.comm = g0->comm_id;
  f.calls = malloc((size_t)g0->nranks * sizeof *f.calls);
  if (!f.calls)
    return false;
  size_t n = collect_calls(g0, f.calls);
  uint64_t pos = 0;
  bool ok = true;
  if (common_position(f.calls, n, &pos)) {
    for (size_t i = 0; i < n; i++)
      if (f.calls[i].op && f.calls[i].position == pos)
        f.calls[f.ncalls++] = f.calls[i];
    for (size_t i = 0; i < f.ncalls; i++) {
      f.calls[i].kind = i;
      for (size_t k = 0; k < i; k++)
        if (f.calls[k].kind == k && same_call(f.calls[k].op, f.calls[i].op)) {
          f.calls[i].kind = k;
          break;
        }
    }
    ok = judge(g0, &f);
    if (ok && f.nodd) {
      describe(&f, pos);
      for (size_t i = first; ok && i < r->ngroups; i++)
        if (r->groups[i].comm_id == f.comm && r->groups[i].has_seq)
          ok = apply(&r->groups[i], &f);
    }
  }
  free(f.calls);
  free(f.odd);
  return ok;
}

bool hang_find_mismatches(const hang_db *db, hang_report *r) {
  (void)db;
  for (size_t i = 0; i < r->ngroups; i++) {
    bool seen = false; /* groups are sorted by communicator */
    for (size_t j = 0; j < i && !seen; j++)
      seen = r->groups[j].comm_id == r->groups[i].comm_id;
    if (!seen && r->groups[i].ranks && !find_in_comm(r, i))
      return false;
  }
  return true;
}
