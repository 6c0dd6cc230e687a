/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/summary/summary_gaps.c — each GPU's own time between operations:
 * the gap from the end of its previous operation (or its previous call,
 * when that came later) to its arrival at the next, which tells a rank
 * that was late by itself from one that was late because its previous
 * operation ended late (summary_stragglers.c).
 *
 * A GPU is the process and device of a communicator rank (gpu_of); when
 * the trace does not say, the communicator rank stands for it. Timing
 * records arrive in each file's order, which is roughly completion order:
 * a record can be written after records of operations that started later.
 * So each GPU queues its last reports (a window of WINDOW_MIN) and lets the
 * earliest arrival go when the queue is full; its gap is its arrival minus
 * the latest completion not after it (CLOCK_SLACK_NS allowed) among the
 * reports already gone (the completions of as many) and those still queued
 * — or minus the GPU's previous arrival when that is later: a host that
 * enqueues ahead of its GPU (asynchronous launches) spends the time between
 * its calls, not the time since a completion it never waited for. The gap
 * can be negative: a completion just after the arrival, within the slack.
 *
 * A host far ahead of its GPU (tens of calls in flight on several
 * communicators) writes records further out of order than that window: a
 * report that arrives earlier than one already gone widens its GPU's
 * window (doubled, up to WINDOW_MAX), so the reports after it are ordered
 * again; the few before are matched against fewer completions.
 */
#include <stdlib.h>
#include <string.h>

#include "summary/summary.h"

/* Reports held back per GPU, and completions remembered after their
 * reports went on: at first, and at most (ncclemu's training step writes
 * records up to ~85 out of arrival order; 512 leaves room and bounds the
 * memory to about 40 KB a GPU). */
#define WINDOW_MIN 32
#define WINDOW_MAX 512
/* A completion up to this long after an arrival still counts as before it:
 * GPU times are converted to the host's clock with errors of tens of us
 * (ncclemu's modelled GPU clocks show up to ~50 us), and a host that
 * waited for its GPU calls again only after the completion. */
#define CLOCK_SLACK_NS 100000

struct gpu_history {
  gap_report *queue; /* `window` reports at most, allocated on first use */
  int queued;
  int64_t *done; /* completion times of the last `window` gone, a ring */
  int ndone, next_done;
  int window;
  int64_t last_arrival; /* of the report released last, INT64_MIN: none */
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
  h->last_arrival = INT64_MIN;
  *idx = st->nhistory;
  return h;
}

/* Room for `window` reports and completions; false when out of memory
 * (the history keeps what it had). The ring of completions is unrolled
 * into its new place, oldest first. */
static bool set_window(struct gpu_history *h, int window) {
  gap_report *q = realloc(h->queue, (size_t)window * sizeof *q);
  if (!q)
    return false;
  h->queue = q;
  int64_t *d = malloc((size_t)window * sizeof *d);
  if (!d)
    return false;
  int keep = h->ndone < window ? h->ndone : window;
  for (int i = 0; i < keep; i++) {
    int from =
        (h->next_done - keep + i + 2 * h->window) % (h->window ? h->window : 1);
    d[i] = h->done[from];
  }
  free(h->done);
  h->done = d;
  h->ndone = keep;
  h->next_done = keep % window;
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

/* The report with the earliest arrival leaves the queue: its gap is set,
 * its completion remembered, and a collective goes on to strag_add. */
static void release_earliest(summary *s, struct gpu_history *h) {
  int first = 0;
  for (int i = 1; i < h->queued; i++)
    if (h->queue[i].who.arrival < h->queue[first].who.arrival)
      first = i;
  gap_report r = h->queue[first];
  h->queue[first] = h->queue[--h->queued];
  int64_t prev = INT64_MIN, until = r.who.arrival + CLOCK_SLACK_NS;
  for (int i = 0; i < h->ndone; i++)
    if (h->done[i] <= until && h->done[i] > prev)
      prev = h->done[i];
  for (int i = 0; i < h->queued; i++)
    if (h->queue[i].who.completion <= until &&
        h->queue[i].who.completion > prev)
      prev = h->queue[i].who.completion;
  if (h->last_arrival > prev && h->last_arrival <= r.who.arrival)
    prev = h->last_arrival;
  h->last_arrival = r.who.arrival;
  r.who.gap = prev == INT64_MIN ? STRAG_UNKNOWN : r.who.arrival - prev;
  h->done[h->next_done] = r.who.completion;
  h->next_done = (h->next_done + 1) % h->window;
  if (h->ndone < h->window)
    h->ndone++;
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
  /* written later than the window allows: widen it for what follows */
  if (r->who.arrival < h->last_arrival && h->window < WINDOW_MAX)
    set_window(h, h->window * 2);
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
  for (size_t i = 0; i < st->nhistory; i++) {
    free(st->history[i].queue);
    free(st->history[i].done);
  }
  free(st->history);
  st->history = NULL;
  st->nhistory = st->cap_history = 0;
}
