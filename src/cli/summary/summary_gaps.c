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
 * a record can be written after records of operations that started later.
 * So each GPU queues its last reports (a window of WINDOW_MIN) and lets the
 * earliest go when the queue is full, which keeps the memory bounded and
 * gives the arrival order exactly as long as no record is written more
 * than a window after a record that arrived later. A report that comes
 * after a later one already went (counted: gapsOutOfOrder in the JSON)
 * widens its GPU's window (doubled, up to WINDOW_MAX) for what follows; it
 * and the report after it have gaps from a neighbour out of order.
 */
#include <stdlib.h>
#include <string.h>

#include "summary/summary.h"

/* Reports held back per GPU: at first, and at most. ncclemu's training
 * step writes records up to ~85 out of arrival order, and a record out of
 * the window makes the gaps differ from the SQL's, which sorts them all:
 * 256 from the start (about 20 KB a GPU), 4096 (320 KB) at most. */
#define WINDOW_MIN 256
#define WINDOW_MAX 4096
/* A completion up to this long after an arrival still counts as before it:
 * GPU times are converted to the host's clock with errors of tens of us
 * (ncclemu's modelled GPU clocks show up to ~50 us), and a host that
 * waited for its GPU calls again only after the completion. */
#define CLOCK_SLACK_NS 100000

struct gpu_history {
  gap_report *queue; /* `window` reports at most, allocated on first use */
  int queued;
  int window;
  bool released;           /* a report went: the two fields below are set */
  int64_t last_arrival;    /* of the report released last */
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

/* Room for `window` reports; false when out of memory (the queue keeps
 * what it had). */
static bool set_window(struct gpu_history *h, int window) {
  gap_report *q = realloc(h->queue, (size_t)window * sizeof *q);
  if (!q)
    return false;
  h->queue = q;
  h->window = window;
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

int64_t gap_after(int64_t prev_arrival, int64_t prev_completion,
                  int64_t arrival) {
  int64_t end = prev_arrival;
  if (prev_completion <= arrival + CLOCK_SLACK_NS &&
      prev_completion > prev_arrival)
    end = prev_completion;
  return arrival - end;
}

/* The report first in arrival order leaves the queue: its gap is set from
 * the report released before it, and a collective goes on to strag_add. */
static void release_earliest(summary *s, struct gpu_history *h) {
  int first = 0;
  for (int i = 1; i < h->queued; i++)
    if (arrives_before(h->queue[i].who.arrival, h->queue[i].who.completion,
                       h->queue[first].who.arrival,
                       h->queue[first].who.completion))
      first = i;
  gap_report r = h->queue[first];
  h->queue[first] = h->queue[--h->queued];
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
  if (h && h->window == 0 && !set_window(h, WINDOW_MIN))
    h = NULL;
  if (!h) { /* out of memory: match it without a gap */
    if (r->matched)
      strag_add(s, r->comm_id, r->func, r->seq, r->bytes, true, r->nranks,
                &r->who);
    return;
  }
  /* written later than the window allows: counted, and the window widened
   * for what follows */
  if (h->released && arrives_before(r->who.arrival, r->who.completion,
                                    h->last_arrival, h->last_completion)) {
    s->strag.gaps_out_of_order++;
    if (h->window < WINDOW_MAX)
      set_window(h, h->window * 2);
  }
  if (h->queued == h->window)
    release_earliest(s, h);
  h->queue[h->queued++] = *r;
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
    free(st->history[i].queue);
  free(st->history);
  st->history = NULL;
  st->nhistory = st->cap_history = 0;
}
