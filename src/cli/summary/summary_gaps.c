/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/summary/summary_gaps.c — each GPU's own time between operations:
 * its gap, which tells a rank that was late by itself from one that was
 * late because its previous operation ended late (summary_stragglers.c).
 *
 * The definition (docs/cli.md, Stragglers: own or inherited; the shipped
 * SQL, share/clickhouse/queries/, computes the same): a GPU's timing
 * reports are put in arrival order (ties: earlier completion first). The
 * gap of a report is its arrival minus the later of
 *   - the arrival of the report before it in that order (a host that
 *     enqueues ahead of its GPU spends the time between its calls), and
 *   - the latest completion of another report of the GPU that came no
 *     later than GAP_CLOCK_SLACK_NS after the arrival (a host that waited
 *     for its GPU: any communicator, P2P included; GPU times are converted
 *     to the host's clock with errors of tens of us).
 * A GPU's first report has no gap. The gap can be negative: a completion
 * just after the arrival, within the slack.
 *
 * A GPU is the process and device of a communicator rank (gpu_of); when
 * the trace does not say, the communicator rank stands for it. Timing
 * records arrive in each file's order, which is roughly completion order:
 * a record can be written after records of operations that started later
 * (a host ahead of its GPU: ncclemu's mixed scenario, 200 calls per rank,
 * writes records up to ~320 out of arrival order). So each GPU holds its
 * last reports back in a heap ordered by arrival (a window of WINDOW_MIN
 * at most; the memory grows with what is held) and lets the earliest go
 * when the window is full. Every report's completion also goes into a
 * second heap, ordered by completion; as the released arrivals grow, the
 * completions up to the latest arrival + slack leave it for the two
 * latest kept (two: the latest may be the released report's own). This is
 * exact as long as no record is written more than a window after the
 * records it should have come before. A report that comes after a later
 * one already went, or whose completion should have counted for a report
 * already gone (counted: gapsOutOfOrder in the JSON), widens its GPU's
 * window (doubled, up to WINDOW_MAX) for what follows.
 */
#include <stdlib.h>
#include <string.h>

#include "summary/summary.h"

/* Reports held back per GPU, at first and at most: 2048 from the start
 * (about 200 KB a GPU when full; a GPU with fewer reports holds less),
 * 32768 at most. A record out of the window makes the gaps differ from the
 * SQL's, which sorts them all. */
#define WINDOW_MIN 2048
#define WINDOW_MAX 32768
/* The heaps' first allocation (entries). */
#define HEAP_FIRST 64

/* A completion and the report it belongs to (gap_report.order). */
typedef struct {
  int64_t completion;
  uint64_t order;
} completion_of;

struct gpu_history {
  gap_report *heap; /* held-back reports, a binary heap: earliest first */
  int queued;       /* reports in the heap */
  int cap;          /* reports allocated (grows up to `window`) */
  int window;       /* reports held back at most */
  /* completions not yet at most slack after a released arrival, a binary
   * heap: earliest first */
  completion_of *pending;
  size_t npending, cap_pending;
  /* the two latest completions that left `pending` (latest first; a
   * completion of STRAG_UNKNOWN: none yet) */
  completion_of latest[2];
  uint64_t next_order;    /* the number of the next report */
  bool released;          /* a report went: the two fields below are set */
  int64_t last_arrival;   /* of the report released last */
  int64_t last_threshold; /* its arrival + slack */
};

static struct gpu_history *history_for(summary *s, uint64_t a, uint64_t b) {
  straggler_state *st = &s->strag;
  bool inserted;
  uint64_t *idx = pair_map_put(&st->history_index, a, b, 0, &inserted);
  if (!idx)
    return NULL;
  if (!inserted)
    return &st->history[*idx - 1];
  if (st->nhistory == st->cap_history) {
    size_t ncap = st->cap_history ? st->cap_history * 2 : 16;
    struct gpu_history *nh = realloc(st->history, ncap * sizeof *nh);
    if (!nh) {
      pair_map_remove(&st->history_index, a, b);
      return NULL;
    }
    st->history = nh;
    st->cap_history = ncap;
  }
  struct gpu_history *h = &st->history[st->nhistory++];
  memset(h, 0, sizeof *h);
  h->window = WINDOW_MIN;
  h->latest[0].completion = h->latest[1].completion = STRAG_UNKNOWN;
  *idx = st->nhistory;
  return h;
}

static struct gpu_history *gpu_history_of(summary *s, uint64_t comm_id,
                                          int32_t rank) {
  int device;
  const file_health *fh = gpu_of(s, comm_id, rank, &device);
  if (fh) /* the top bit keeps GPU keys apart from communicator ids */
    return history_for(s, (UINT64_C(1) << 63) | (uint64_t)(fh - s->health),
                       (uint64_t)(device + 1));
  return history_for(s, comm_id & ~(UINT64_C(1) << 63), (uint64_t)rank);
}

/* Room for one more report, and one more completion; false when out of
 * memory. */
static bool heaps_room(struct gpu_history *h) {
  if (h->queued == h->cap) {
    int cap = h->cap ? h->cap * 2 : HEAP_FIRST;
    if (cap > h->window)
      cap = h->window;
    gap_report *q = realloc(h->heap, (size_t)cap * sizeof *q);
    if (!q)
      return false;
    h->heap = q;
    h->cap = cap;
  }
  if (h->npending == h->cap_pending) {
    size_t cap = h->cap_pending ? h->cap_pending * 2 : HEAP_FIRST;
    completion_of *p = realloc(h->pending, cap * sizeof *p);
    if (!p)
      return false;
    h->pending = p;
    h->cap_pending = cap;
  }
  return true;
}

/* Arrival order: earlier arrival first, then earlier completion. */
static bool arrives_before(const inst_rank *x, const inst_rank *y) {
  return x->arrival < y->arrival ||
         (x->arrival == y->arrival && x->completion < y->completion);
}

static void heap_push(struct gpu_history *h, const gap_report *r) {
  int i = h->queued++;
  while (i > 0 && arrives_before(&r->who, &h->heap[(i - 1) / 2].who)) {
    h->heap[i] = h->heap[(i - 1) / 2];
    i = (i - 1) / 2;
  }
  h->heap[i] = *r;
}

/* The earliest report, taken out of the heap (queued > 0). */
static gap_report heap_pop(struct gpu_history *h) {
  gap_report first = h->heap[0];
  gap_report moved = h->heap[--h->queued];
  int i = 0;
  for (;;) {
    int child = 2 * i + 1;
    if (child >= h->queued)
      break;
    if (child + 1 < h->queued &&
        arrives_before(&h->heap[child + 1].who, &h->heap[child].who))
      child++;
    if (!arrives_before(&h->heap[child].who, &moved.who))
      break;
    h->heap[i] = h->heap[child];
    i = child;
  }
  h->heap[i] = moved;
  return first;
}

static void pending_push(struct gpu_history *h, completion_of c) {
  size_t i = h->npending++;
  while (i > 0 && c.completion < h->pending[(i - 1) / 2].completion) {
    h->pending[i] = h->pending[(i - 1) / 2];
    i = (i - 1) / 2;
  }
  h->pending[i] = c;
}

static completion_of pending_pop(struct gpu_history *h) {
  completion_of first = h->pending[0];
  completion_of moved = h->pending[--h->npending];
  size_t i = 0;
  for (;;) {
    size_t child = 2 * i + 1;
    if (child >= h->npending)
      break;
    if (child + 1 < h->npending &&
        h->pending[child + 1].completion < h->pending[child].completion)
      child++;
    if (h->pending[child].completion >= moved.completion)
      break;
    h->pending[i] = h->pending[child];
    i = child;
  }
  h->pending[i] = moved;
  return first;
}

/* The completions up to `threshold` leave `pending`; the two latest are
 * kept (they leave in completion order, except one written out of order:
 * placed by its value all the same). */
static void take_completions(struct gpu_history *h, int64_t threshold) {
  while (h->npending > 0 && h->pending[0].completion <= threshold) {
    completion_of c = pending_pop(h);
    if (h->latest[0].completion == STRAG_UNKNOWN ||
        c.completion >= h->latest[0].completion) {
      h->latest[1] = h->latest[0];
      h->latest[0] = c;
    } else if (h->latest[1].completion == STRAG_UNKNOWN ||
               c.completion >= h->latest[1].completion) {
      h->latest[1] = c;
    }
  }
}

int64_t gap_after(int64_t prev_arrival, int64_t latest_completion,
                  int64_t arrival) {
  int64_t end = prev_arrival;
  if (latest_completion != STRAG_UNKNOWN && latest_completion > end)
    end = latest_completion;
  return arrival - end;
}

/* The report first in arrival order leaves the heap with its gap set, and
 * a collective goes on to strag_add. */
static void release_earliest(summary *s, struct gpu_history *h) {
  gap_report r = heap_pop(h);
  int64_t threshold = r.who.arrival + GAP_CLOCK_SLACK_NS;
  take_completions(h, threshold);
  /* the latest completion of another report */
  const completion_of *other =
      h->latest[0].order != r.order ? &h->latest[0] : &h->latest[1];
  r.who.gap = h->released
                  ? gap_after(h->last_arrival, other->completion, r.who.arrival)
                  : STRAG_UNKNOWN;
  h->released = true;
  h->last_arrival = r.who.arrival;
  h->last_threshold = threshold;
  if (r.matched)
    strag_add(s, r.comm_id, r.func, r.seq, r.bytes, true, r.nranks, &r.who);
}

void gaps_add(summary *s, const gap_report *r) {
  struct gpu_history *h = gpu_history_of(s, r->comm_id, r->who.rank);
  /* written later than the window allows (it arrived before a report
   * already gone, or completed in time to count for one): counted, and the
   * window widened for what follows */
  if (h && h->released &&
      (r->who.arrival < h->last_arrival ||
       r->who.completion <= h->last_threshold)) {
    s->strag.gaps_out_of_order++;
    if (h->window < WINDOW_MAX)
      h->window *= 2;
  }
  if (h && h->queued == h->window)
    release_earliest(s, h);
  if (!h || !heaps_room(h)) { /* out of memory: match it without a gap */
    if (r->matched)
      strag_add(s, r->comm_id, r->func, r->seq, r->bytes, true, r->nranks,
                &r->who);
    return;
  }
  gap_report q = *r;
  q.order = h->next_order++;
  heap_push(h, &q);
  pending_push(h, (completion_of){q.who.completion, q.order});
}

void gaps_finish(summary *s) {
  straggler_state *st = &s->strag;
  for (size_t i = 0; i < st->nhistory; i++)
    while (st->history[i].queued > 0)
      release_earliest(s, &st->history[i]);
}

void gaps_free(summary *s) {
  straggler_state *st = &s->strag;
  for (size_t i = 0; i < st->nhistory; i++) {
    free(st->history[i].heap);
    free(st->history[i].pending);
  }
  free(st->history);
  st->history = NULL;
  st->nhistory = st->cap_history = 0;
}
