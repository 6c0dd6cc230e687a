/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/summary/summary_gpus.c — the straggler rows gathered per GPU.
 *
 * A (communicator, rank) row says how long that rank kept the others of
 * one communicator waiting; a GPU is a rank of several communicators (world,
 * data-, tensor-, pipeline-parallel groups). Here the rows of one basis are
 * summed per GPU — the process that initialised them and the GPU's rank in
 * the job (gpu_global_rank) — so the GPU that caused the job the most
 * wait comes first (strag_blame_order; own or inherited, see
 * summary_stragglers.c, explains it but does not order it), whichever
 * communicators it was late in.
 */
#include <stdlib.h>
#include <string.h>

#include "summary/summary.h"

static int cmp_gpus(const void *a, const void *b) {
  const gpu_row *x = a, *y = b;
  int blame = strag_blame_order(
      strag_caused(x->wait_sum, x->unattributed_wait_sum), x->times_last,
      x->own_wait_sum, strag_caused(y->wait_sum, y->unattributed_wait_sum),
      y->times_last, y->own_wait_sum);
  if (blame != 0)
    return blame;
  if (x->global_rank != y->global_rank)
    return x->global_rank < y->global_rank ? -1 : 1;
  return x->file < y->file ? -1 : x->file > y->file;
}

gpu_row *gpu_rows(const summary *s, bool timing, size_t *n) {
  *n = 0;
  gpu_row *rows = calloc(s->strag.nranks + 1, sizeof *rows);
  if (!rows)
    return NULL;
  for (size_t i = 0; i < s->strag.nranks; i++) {
    const rank_row *r = &s->strag.ranks[i];
    if (r->timing != timing)
      continue;
    int device;
    const file_health *h = gpu_of(s, r->comm_id, r->rank, &device);
    if (!h)
      continue; /* no lifecycle record names this rank: no GPU to sum to */
    const char *source;
    int64_t g = gpu_global_rank(s, h, r->comm_id, r->rank, device, &source);
    size_t file = (size_t)(h - s->health);
    gpu_row *row = NULL;
    for (size_t k = 0; k < *n && !row; k++)
      if (rows[k].file == file && rows[k].global_rank == g && g >= 0)
        row = &rows[k];
    if (!row) {
      row = &rows[(*n)++];
      row->file = file;
      row->health = h;
      row->global_rank = g;
      row->source = source;
      row->device = device;
    }
    row->comms++;
    row->instances += r->instances;
    row->times_last += r->times_last;
    row->wait_sum += r->wait_sum;
    row->own_wait_sum += r->own_wait_sum;
    row->unattributed_wait_sum += r->unattributed_wait_sum;
    if (r->wait_max > row->wait_max)
      row->wait_max = r->wait_max;
    row->gpu_instances += r->gpu_instances;
    row->gpu_times_last += r->gpu_times_last;
    row->gpu_wait_sum += r->gpu_wait_sum;
    row->gpu_caused_sum += r->gpu_caused_sum;
    row->evidence.tested += r->evidence.tested;
    row->evidence.last += r->evidence.last;
    row->evidence.after_median += r->evidence.after_median;
    row->evidence.chance_last += r->evidence.chance_last;
    row->evidence.chance_after += r->evidence.chance_after;
    row->evidence.gap_tested += r->evidence.gap_tested;
    row->evidence.gap_longer += r->evidence.gap_longer;
    row->evidence.chance_gap += r->evidence.chance_gap;
    strag_kind_add(&row->compute, &r->compute);
  }
  qsort(rows, *n, sizeof *rows, cmp_gpus);
  return rows;
}
