/*
 * src/cli/summary/summary_gaps.c — each GPU's own time between operations:
 * the gap from the end of its previous operation to its arrival at the
 * next, which tells a rank that was late by itself from one that was late
 * because its previous operation ended late (summary_stragglers.c).
 *
 * A GPU is the process and device of a communicator rank (gpu_of); when
 * the trace does not say, the communicator rank stands for it. Timing
 * records arrive in each file's order, which is roughly completion order:
 * a record can be written after records of operations that started later.
 * So each GPU queues its last REORDER_KEEP reports and lets the earliest
 * arrival go when the queue is full; its gap is its arrival minus the
 * latest completion not after it (CLOCK_SLACK_NS allowed) among the reports
 * already gone (HISTORY_KEEP of them) and those still queued. The gap can
 * be negative: a completion just after the arrival, within the slack.
 */
#include <stdlib.h>
#include <string.h>

#include "summary/summary.h"

/* Reports held back per GPU: more than a writer reorders in practice. */
#define REORDER_KEEP 32
/* Completions remembered per GPU after their reports went on. */
#define HISTORY_KEEP 16
/* A completion up to this long after an arrival still counts as before it:
 * GPU times are converted to the host's clock with errors of tens of us
 * (ncclemu's modelled GPU clocks show up to ~50 us), and a host that
 * waited for its GPU calls again only after the completion. */
#define CLOCK_SLACK_NS 100000

struct gpu_history {
  gap_report queue[REORDER_KEEP];
  int queued;
  int64_t done[HISTORY_KEEP]; /* completion times, a ring */
  int ndone, next_done;
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
  h->queued = 0;
  h->ndone = h->next_done = 0;
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
  r.who.gap = prev == INT64_MIN ? STRAG_UNKNOWN : r.who.arrival - prev;
  h->done[h->next_done] = r.who.completion;
  h->next_done = (h->next_done + 1) % HISTORY_KEEP;
  if (h->ndone < HISTORY_KEEP)
    h->ndone++;
  if (r.matched)
    strag_add(s, r.comm_id, r.func, r.seq, r.bytes, true, r.nranks, &r.who);
}

void gaps_add(summary *s, const gap_report *r) {
  struct gpu_history *h = gpu_history_of(s, r->comm_id, r->who.rank);
  if (!h) { /* out of memory: match it without a gap */
    if (r->matched)
      strag_add(s, r->comm_id, r->func, r->seq, r->bytes, true, r->nranks,
                &r->who);
    return;
  }
  if (h->queued == REORDER_KEEP)
    release_earliest(s, h);
  h->queue[h->queued++] = *r;
}

void gaps_finish(summary *s) {
  straggler_state *st = &s->strag;
  for (size_t i = 0; i < st->nhistory; i++)
    while (st->history[i].queued > 0)
      release_earliest(s, &st->history[i]);
}
