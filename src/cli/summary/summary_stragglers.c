/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/summary/summary_stragglers.c — which rank makes the others wait.
 *
 * A collective instance is (communicator, function, seqNumber): NCCL's
 * per-function counter is the same on every rank for the same collective.
 * Each rank reports its arrival (apiNs/apiTs of the timing record, else the
 * start of its enqueue) and completion (stop). When every rank of the
 * communicator has reported (nranks from the lifecycle or timing records),
 * the instance is scored and forgotten:
 *   spread  = last arrival - first arrival
 *   wait    = last arrival - median arrival (how long a typical rank waited
 *             for the last one); the last rank is "last" when spread > 0
 *   per rank: arrival - median arrival, completion - median completion.
 * Instances still waiting at the end (a rank's file or event missing) are
 * scored with the ranks they have (>= 2) and counted as incomplete.
 * Timing-record instances and enqueue-event instances are kept apart.
 *
 * Own or inherited: a rank can be last because it was slow itself (compute,
 * host work, a delay) or because its previous operation finished late —
 * it was waiting on someone else in another communicator (a pipeline
 * bubble, a peer that was itself waiting). Each timing report carries the
 * rank's gap: arrival - the later of its GPU's previous arrival and the
 * latest completion of another of its operations (summary_gaps.c). The last
 * rank (the latest arrival; of equal ones, the lowest rank) owns how much its
 * gap exceeds the instance's median gap, at most the wait; the rest is
 * inherited. The shipped SQL (share/clickhouse/queries/) computes the same.
 * Where the gaps cannot be compared (a GPU's first operation: startup skew) the
 * wait is unattributed; on the enqueue basis, which has no gaps, it is own,
 * except in a communicator's first call of a function (seqNumber 0), where
 * the processes' launch skew shows: unattributed.
 *
 * Evidence for the verdict (summary_verdict.c): in every instance whose
 * arrivals differ and whose wait is attributable, each rank counts whether
 * it was last, whether it arrived after the median arrival and whether its
 * gap exceeded the median gap (by more than GAP_TOLERANCE_NS), beside the
 * chance of each if lateness fell on any rank alike (1/n, and the share of
 * ranks after each median).
 *
 * GPU-measured wait (NCCL 2.31 KernelPhase): each rank's initial_sync is how
 * long its kernel waited for the peers. The rank with the shortest one
 * arrived last on the GPU; it made the others wait median - shortest
 * (not on its GPU's first operation, whose lateness is start-up skew).
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "summary/summary.h"

#define SEQ_BITS 56

static uint64_t inst_key(uint32_t func, bool timing, uint64_t seq) {
  return ((uint64_t)(func & 0x7F) << 57) | ((uint64_t)timing << SEQ_BITS) |
         (seq & ((UINT64_C(1) << SEQ_BITS) - 1));
}

static rank_row *rank_row_for(straggler_state *st, uint64_t comm, int32_t rank,
                              bool timing) {
  uint64_t key = ((uint64_t)(uint32_t)rank << 1) | (uint64_t)timing;
  bool inserted;
  uint64_t *idx = pair_map_put(&st->rank_index, comm, key, 0, &inserted);
  if (!idx)
    return NULL;
  if (!inserted)
    return &st->ranks[*idx - 1];
  if (st->nranks == st->cap_ranks) {
    size_t ncap = st->cap_ranks ? st->cap_ranks * 2 : 64;
    rank_row *nr = realloc(st->ranks, ncap * sizeof *nr);
    if (!nr) {
      pair_map_remove(&st->rank_index, comm, key);
      return NULL;
    }
    st->ranks = nr;
    st->cap_ranks = ncap;
  }
  rank_row *row = &st->ranks[st->nranks++];
  memset(row, 0, sizeof *row);
  row->comm_id = comm;
  row->rank = rank;
  row->timing = timing;
  *idx = st->nranks;
  return row;
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

static int64_t median(int64_t *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_i64);
  return n % 2 ? v[n / 2] : v[n / 2 - 1] + (v[n / 2] - v[n / 2 - 1]) / 2;
}

static void keep_worst(straggler_state *st, const worst_instance *w,
                       bool timing) {
  worst_instance *list = st->worst[timing];
  int *n = &st->nworst[timing];
  int pos = *n;
  while (pos > 0 && list[pos - 1].spread < w->spread)
    pos--;
  if (pos >= WORST_KEEP)
    return;
  int last = *n < WORST_KEEP ? *n : WORST_KEEP - 1;
  memmove(&list[pos + 1], &list[pos], (size_t)(last - pos) * sizeof *list);
  list[pos] = *w;
  if (*n < WORST_KEEP)
    (*n)++;
}

/* The median of the known values of one field of the instance's ranks;
 * false when fewer than two are known. */
static bool known_median(const instance *in, size_t offset, int64_t *scratch,
                         int64_t *med) {
  int k = 0;
  for (int i = 0; i < in->nseen; i++) {
    int64_t v;
    memcpy(&v, (const char *)&in->ranks[i] + offset, sizeof v);
    if (v != STRAG_UNKNOWN)
      scratch[k++] = v;
  }
  if (k < 2)
    return false;
  *med = median(scratch, k);
  return true;
}

/* GPU-measured: the rank with the shortest initial_sync came last. */
static void score_gpu_wait(straggler_state *st, const instance *in,
                           int64_t *scratch) {
  int64_t med;
  if (!known_median(in, offsetof(inst_rank, gpu_wait), scratch, &med))
    return;
  int last = -1;
  for (int i = 0; i < in->nseen; i++) {
    const inst_rank *x = &in->ranks[i];
    if (x->gpu_wait == STRAG_UNKNOWN)
      continue;
    rank_row *row = rank_row_for(st, in->comm_id, x->rank, in->timing);
    if (row) {
      row->gpu_instances++;
      row->gpu_wait_sum += x->gpu_wait;
    }
    if (last < 0 || x->gpu_wait < in->ranks[last].gpu_wait ||
        (x->gpu_wait == in->ranks[last].gpu_wait &&
         x->rank < in->ranks[last].rank))
      last = i;
  }
  /* A GPU's first operation blames no one: its kernel started late by the
   * process's start-up, as on the host side (unattributed). */
  if (last < 0 || med - in->ranks[last].gpu_wait <= 0 ||
      in->ranks[last].gap == STRAG_UNKNOWN)
    return;
  rank_row *row =
      rank_row_for(st, in->comm_id, in->ranks[last].rank, in->timing);
  if (row) {
    row->gpu_times_last++;
    row->gpu_caused_sum += med - in->ranks[last].gpu_wait;
  }
}

/* A gap counts as longer than the instance's median gap only by more than
 * this: gaps end at GPU times converted to the host's clock, which can be
 * off by tens of us for one GPU all along (summary_gaps.c), and a thread
 * that drives several GPUs calls for the second a few us after the first;
 * neither is a GPU that is late by its own doing. */
#define GAP_TOLERANCE_NS 50000

/* The verdict's counts of one tested instance, for every rank of it
 * (med_gap: the median of the known gaps, when have_gaps). */
static void add_evidence(straggler_state *st, const instance *in, int last,
                         int64_t med_a, bool have_gaps, int64_t med_gap) {
  int n = in->nseen, after = 0, gaps = 0, longer = 0;
  for (int i = 0; i < n; i++) {
    const inst_rank *x = &in->ranks[i];
    after += x->arrival > med_a;
    if (have_gaps && x->gap != STRAG_UNKNOWN) {
      gaps++;
      longer += x->gap > med_gap + GAP_TOLERANCE_NS;
    }
  }
  for (int i = 0; i < n; i++) {
    const inst_rank *x = &in->ranks[i];
    rank_row *row = rank_row_for(st, in->comm_id, x->rank, in->timing);
    if (!row)
      continue;
    strag_evidence *e = &row->evidence;
    e->tested++;
    e->last += i == last;
    e->after_median += x->arrival > med_a;
    e->chance_last += 1.0 / n;
    e->chance_after += (double)after / n;
    if (have_gaps && x->gap != STRAG_UNKNOWN) {
      e->gap_tested++;
      e->gap_longer += x->gap > med_gap + GAP_TOLERANCE_NS;
      e->chance_gap += (double)longer / gaps;
    }
  }
}

static void score(straggler_state *st, const instance *in) {
  int n = in->nseen;
  bool t = in->timing;
  if (n < 2) {
    st->single[t]++;
    return;
  }
  st->matched[t]++;
  if (in->nranks > 0 && n < in->nranks)
    st->incomplete[t]++;
  int64_t *arr = malloc(2 * (size_t)n * sizeof *arr);
  if (!arr)
    return;
  int64_t *comp = arr + n;
  int last = 0;
  int64_t first_arrival = in->ranks[0].arrival;
  for (int i = 0; i < n; i++) {
    arr[i] = in->ranks[i].arrival;
    comp[i] = in->ranks[i].completion;
    if (in->ranks[i].arrival > in->ranks[last].arrival ||
        (in->ranks[i].arrival == in->ranks[last].arrival &&
         in->ranks[i].rank < in->ranks[last].rank))
      last = i; /* ties: the lowest rank, whatever order they came in */
    if (in->ranks[i].arrival < first_arrival)
      first_arrival = in->ranks[i].arrival;
  }
  int64_t med_a = median(arr, n), med_c = median(comp, n);
  int64_t med_gap = 0;
  bool have_gaps = known_median(in, offsetof(inst_rank, gap), arr, &med_gap);
  score_gpu_wait(st, in, arr);
  strag_kind_score(st, in);
  free(arr);
  for (int i = 0; i < n; i++) {
    rank_row *row = rank_row_for(st, in->comm_id, in->ranks[i].rank, t);
    if (!row)
      continue;
    row->instances++;
    row->arrival_off_sum += in->ranks[i].arrival - med_a;
    row->completion_off_sum += in->ranks[i].completion - med_c;
  }
  int64_t spread = in->ranks[last].arrival - first_arrival;
  if (spread <= 0)
    return;
  int64_t wait = in->ranks[last].arrival - med_a;
  rank_row *row = rank_row_for(st, in->comm_id, in->ranks[last].rank, t);
  int64_t own = wait, unattributed = 0;
  bool attributable = true;
  if (have_gaps && in->ranks[last].gap != STRAG_UNKNOWN) {
    own = in->ranks[last].gap - med_gap;
    own = own < 0 ? 0 : own > wait ? wait : own;
  } else if (t || in->seq == 0) { /* a first operation: startup skew */
    own = 0;
    unattributed = wait;
    attributable = false;
  }
  if (attributable)
    add_evidence(st, in, last, med_a, have_gaps, med_gap);
  if (row) {
    row->times_last++;
    row->wait_sum += wait;
    row->own_wait_sum += own;
    row->unattributed_wait_sum += unattributed;
    if (wait > row->wait_max)
      row->wait_max = wait;
  }
  worst_instance w = {in->comm_id,          in->func, in->seq, in->bytes, n,
                      in->ranks[last].rank, spread,   wait};
  keep_worst(st, &w, t);
}

static void drop(instance *in) {
  free(in->ranks);
  free(in);
}

void strag_add(summary *s, uint64_t comm_id, uint32_t func, uint64_t seq,
               uint64_t bytes, bool timing, int nranks, const inst_rank *who) {
  straggler_state *st = &s->strag;
  uint64_t key = inst_key(func, timing, seq);
  bool inserted;
  uint64_t *slot = pair_map_put(&st->index, comm_id, key, 0, &inserted);
  if (!slot)
    return;
  instance *in = (instance *)(uintptr_t)*slot;
  if (inserted) {
    in = calloc(1, sizeof *in);
    if (!in) {
      pair_map_remove(&st->index, comm_id, key);
      return;
    }
    in->comm_id = comm_id;
    in->seq = seq;
    in->func = func;
    in->bytes = bytes;
    in->timing = timing;
    *slot = (uint64_t)(uintptr_t)in;
    if (st->index.n > st->waiting_high_water)
      st->waiting_high_water = st->index.n;
  }
  if (nranks > 0 && in->nranks <= 0)
    in->nranks = nranks;
  for (int i = 0; i < in->nseen; i++) {
    if (in->ranks[i].rank == who->rank) {
      st->duplicates++;
      return;
    }
  }
  if (in->nseen == in->cap) {
    int ncap = in->cap ? in->cap * 2 : (in->nranks > 0 ? in->nranks : 8);
    inst_rank *nr = realloc(in->ranks, (size_t)ncap * sizeof *nr);
    if (!nr)
      return;
    in->ranks = nr;
    in->cap = ncap;
  }
  in->ranks[in->nseen++] = *who;
  if (in->nranks > 0 && in->nseen >= in->nranks) {
    score(st, in);
    pair_map_remove(&st->index, comm_id, key);
    drop(in);
  }
}

void strag_finish(summary *s) {
  straggler_state *st = &s->strag;
  gaps_finish(s); /* reports still queued for their gaps */
  for (size_t i = 0; i < st->index.cap; i++) {
    if (!st->index.slots[i].used)
      continue;
    instance *in = (instance *)(uintptr_t)st->index.slots[i].value;
    score(st, in);
    drop(in);
  }
  pair_map_clear(&st->index);
}

rank_row *strag_rank_row(straggler_state *st, uint64_t comm, int32_t rank,
                         bool timing) {
  return rank_row_for(st, comm, rank, timing);
}

int strag_blame_order(int64_t caused_x, uint64_t last_x, int64_t own_x,
                      int64_t caused_y, uint64_t last_y, int64_t own_y) {
  if (caused_x != caused_y)
    return caused_x > caused_y ? -1 : 1;
  if (last_x != last_y)
    return last_x > last_y ? -1 : 1;
  if (own_x != own_y)
    return own_x > own_y ? -1 : 1;
  return 0;
}

int64_t strag_caused(int64_t wait, int64_t unattributed) {
  return wait - unattributed;
}

int64_t strag_inherited(int64_t wait, int64_t own, int64_t unattributed) {
  return wait - own - unattributed;
}
