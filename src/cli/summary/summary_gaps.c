/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/summary/summary_gaps.c — each GPU's own time between operations:
 * its gap, which tells a rank that was late by itself from one that was
 * late because its previous operation ended late (summary_stragglers.c).
 *
 * The definition (docs/cli.md, Stragglers: own or inherited; the shipped
 * SQL, share/clickhouse/queries/, computes the same): a GPU's timing
 * reports are put in arrival order (ties: earlier completion first); the
 * gap of a report is its arrival minus the end of the report before it in
 * that order — that report's completion when it came no later than
 * CLOCK_SLACK_NS after the arrival (the GPU was waited for), else that
 * report's arrival (a host that enqueues ahead of its GPU spends the time
 * between its calls, not the time since a completion it never waited
 * for). A GPU's first report has no gap. The gap can be negative: a
 * completion just after the arrival, within the slack.
 *
 * A GPU is the process and device of a communicator rank (gpu_of); when
 * the trace does not say, the communicator rank stands for it. Timing
 * records arrive in each file's order, which is roughly completion order:
 * a record can be written after records of operations that started later
 * (a host ahead of its GPU: ncclemu's mixed scenario, 200 calls per rank,
 * writes records up to ~320 out of arrival order). So each GPU holds its
 * last reports back in a heap ordered by arrival (a window of WINDOW_MIN
 * at most; the memory grows with what is held) and lets the earliest go
 * when the window is full, which keeps the memory bounded and gives the
 * arrival order exactly as long as no record is written more than a
 * window after a record that arrived later. A report that comes after a
 * later one already went (counted: gapsOutOfOrder in the JSON) widens its
 * GPU's window (doubled, up to WINDOW_MAX) for what follows; it and the
 * report after it have gaps from a neighbour out of order.
 */
#include <stdlib.h>
#include <string.h>

#include "summary/summary.h"

/* Reports held back per GPU, at first and at most: 2048 from the start
 * (160 KB a GPU when full; a GPU with fewer reports holds less), 32768 at
 * most. A record out of the window makes the gaps differ from the SQL's,
 * which sorts them all. */
#define WINDOW_MIN 2048
#define WINDOW_MAX 32768
/* The heap's first allocation (reports). */
#define HEAP_FIRST 64
/* A completion up to this long after an arrival still counts as before it:
 * GPU times are converted to the host's clock with errors of tens of us
 * (ncclemu's modelled GPU clocks show up to ~50 us), and a host that
 * waited for its GPU calls again only after the completion. */
#define CLOCK_SLACK_NS 100000

struct gpu_history {
  gap_report *heap;     /* held-back reports, a binary heap: earliest first */
  int queued;           /* reports in the heap */
  int cap;              /* reports allocated (grows up to `window`) */
  int window;           /* reports held back at most */
  bool released;        /* a report went: the two fields below are set */
  int64_t last_arrival; /* of the report released last */
  int64_t last_completion; /* of the report released last */
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
  *idx = st->nhistory;
  return h;
}

/* Room for one more report in the heap; false when out of memory. */
static bool heap_room(struct gpu_history *h) {
  if (h->queued < h->cap)
    return true;
  int cap = h->cap ? h->cap * 2 : HEAP_FIRST;
  if (cap > h->window)
    cap = h->window;
  gap_report *q = realloc(h->heap, (size_t)cap * sizeof *q);
  if (!q)
    return false;
  h->heap = q;
  h->cap = cap;
  return true;
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

/* Arrival order: earlier arrival first, then earlier completion. */
static bool arrives_before(int64_t arrival_x, int64_t completion_x,
                           int64_t arrival_y, int64_t completion_y) {
  return arrival_x < arrival_y ||
         (arrival_x == arrival_y && completion_x < completion_y);
}

static bool report_before(const gap_report *x, const gap_report *y) {
  return arrives_before(x->who.arrival, x->who.completion, y->who.arrival,
                        y->who.completion);
}

static void heap_push(struct gpu_history *h, const gap_report *r) {
  int i = h->queued++;
  while (i > 0 && report_before(r, &h->heap[(i - 1) / 2])) {
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
        report_before(&h->heap[child + 1], &h->heap[child]))
      child++;
    if (!report_before(&h->heap[child], &moved))
      break;
    h->heap[i] = h->heap[child];
    i = child;
  }
  h->heap[i] = moved;
  return first;
}

int64_t gap_after(int64_t prev_arrival, int64_t prev_completion,
                  int64_t arrival) {
  int64_t end = prev_arrival;
  if (prev_completion <= arrival + CLOCK_SLACK_NS &&
      prev_completion > prev_arrival)
    end = prev_completion;
  return arrival - end;
}

/* The report first in arrival order leaves the heap: its gap is set from
 * the report released before it, and a collective goes on to strag_add. */
static void release_earliest(summary *s, struct gpu_history *h) {
  gap_report r = heap_pop(h);
  r.who.gap = h->released ? gap_after(h->last_arrival, h->last_completion,
                                      r.who.arrival)
                          : STRAG_UNKNOWN;
  h->released = true;
  h->last_arrival = r.who.arrival;
  h->last_completion = r.who.completion;
  if (r.matched)
    strag_add(s, r.comm_id, r.func, r.seq, r.bytes, true, r.nranks, &r.who);
}

void gaps_add(summary *s, const gap_report *r) {
  struct gpu_history *h = gpu_history_of(s, r->comm_id, r->who.rank);
  if (h && h->window == 0)
    h->window = WINDOW_MIN;
  /* written later than the window allows: counted, and the window widened
   * for what follows */
  if (h && h->released &&
      arrives_before(r->who.arrival, r->who.completion, h->last_arrival,
                     h->last_completion)) {
    s->strag.gaps_out_of_order++;
    if (h->window < WINDOW_MAX)
      h->window *= 2;
  }
  if (h && h->queued == h->window)
    release_earliest(s, h);
  if (!h || !heap_room(h)) { /* out of memory: match it without a gap */
    if (r->matched)
      strag_add(s, r->comm_id, r->func, r->seq, r->bytes, true, r->nranks,
                &r->who);
    return;
  }
  heap_push(h, r);
}

void gaps_finish(summary *s) {
  straggler_state *st = &s->strag;
  for (size_t i = 0; i < st->nhistory; i++)
    while (st->history[i].queued > 0)
      release_earliest(s, &st->history[i]);
}

void gaps_free(summary *s) {
  straggler_state *st = &s->strag;
  for (size_t i = 0; i < st->nhistory; i++)
    free(st->history[i].heap);
  free(st->history);
  st->history = NULL;
  st->nhistory = st->cap_history = 0;
}
