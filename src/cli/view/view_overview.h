/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/view/view_overview.h — the page's overview of ranks x time: one
 * row per GPU, its collectives coloured by how late this GPU arrived at
 * each, and the GPU that the straggler verdict of `cclscope summary`
 * names (summary_verdict.c) marked as the straggler: one analysis, one
 * answer; the page does not judge lateness itself.
 *
 * Every Coll/CeColl event with a seqNumber is noted (view_ov_note), also
 * those beyond the detail budget of the page, as a small fixed record.
 * view_ov_write then resolves each (file, communicator context) to a GPU
 * row — its global rank as `cclscope summary` tells it (gpu_of,
 * gpu_global_rank), else the process's launcher rank — and computes each
 * instance's arrival lateness: its start minus the earliest start of the
 * same (communicator, func, seqNumber) on any rank. The page gets two
 * levels of detail: per row, fixed time buckets (count, busiest time, most
 * lateness), always; and the instances themselves, when there are no more
 * than VIEW_OV_MAX_INSTANCES. Both are bounded, so the overview stays a
 * few MB whatever the trace size (layout: web/README.md).
 */
#ifndef CCLSCOPE_CLI_VIEW_OVERVIEW_H
#define CCLSCOPE_CLI_VIEW_OVERVIEW_H

#include <stdbool.h>
#include <stdint.h>

#include "convert/timeline.h"
#include "read/ordered_reader.h"
#include "summary/summary.h"
#include "util/jsonw.h"

/* Cells (rows x buckets) of the bucket level, and instances embedded one
 * by one: beyond this only the buckets are. */
#define VIEW_OV_MAX_CELLS (512u * 1024u)
#define VIEW_OV_MAX_INSTANCES 300000u

typedef struct {
  int64_t start, dur; /* ns since the page's base */
  int64_t seq;
  int64_t ctx;
  uint32_t file;
  uint32_t func; /* string id of the page's string table */
} view_ov_coll;

typedef struct {
  view_ov_coll *colls;
  size_t n, cap;
  bool oom;
} view_overview;

void view_ov_init(view_overview *o);
void view_ov_free(view_overview *o);
void view_ov_note(view_overview *o, int64_t start, int64_t dur, int64_t seq,
                  int64_t ctx, uint32_t file, uint32_t func);

/* Writes the key "overview" and its object. `sum` (NULL when the summary
 * failed or was not run) names each communicator rank's GPU and gives the
 * straggler verdict; without it no GPU is marked. */
void view_ov_write(view_overview *o, const timeline *tl, const ord_reader *rd,
                   const summary *sum, jsonw *w);

#endif
