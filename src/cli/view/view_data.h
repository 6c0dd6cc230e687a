/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/view/view_data.h — what `cclscope view` embeds in its page: the
 * events of the traces as columns, ready for the canvas timeline of web/.
 *
 * Records are fed in exact start order (ordered_reader ORD_START). Each
 * event is placed on a track of timeline.h (file x communicator context x
 * thread x lane, so that the events of a track nest) and kept as one fixed
 * row of numbers; timing records go to a per-context "completion" track,
 * GPU activity records (CUPTI kernels) to a GPU lane per (GPU, stream) of
 * their context, as items of the events' columns;
 * marks and communicator names are kept as they come. Whatever a details
 * panel needs beyond the columns (descriptor details, states, reclaim
 * reason, ...) is written at once, one JSON object per line, to the
 * "extra" stream (view_data_line), with every timestamp rewritten as an
 * integer number of ns since the page's base time, so memory holds only
 * the columns. view_data_write then writes the columns, with parents,
 * PXN parents and timing records resolved to row numbers. The layout of
 * both is documented in web/README.md. When the page has tiles
 * (view_tiles.h), the detail beyond the budget goes to them instead of
 * being left to the overview, and every event and timing record with
 * detail gets a global number, by which parents link across the page and
 * its tiles.
 */
#ifndef CCLSCOPE_CLI_VIEW_DATA_H
#define CCLSCOPE_CLI_VIEW_DATA_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "convert/timeline.h"
#include "read/ordered_reader.h"
#include "util/intern.h"
#include "util/pair_map.h"
#include "view/view_overview.h"
#include "view/view_tiles.h"

/* The type code of GPU activity items (CUPTI kernels) in the events'
 * columns: after NCCL's types and the lifecycle (`types` names it). */
#define VIEW_TYPE_GPU_ACTIVITY ((uint8_t)ET_COUNT)

typedef struct {
  int64_t start; /* ns since base */
  int64_t dur;   /* ns (end - start; 0 when the event has no end) */
  int64_t rank;  /* -1 when absent */
  int64_t seq;   /* seqNumber of Coll/CeColl, else -1 */
  uint64_t id;
  uint64_t parent_ref; /* local parentId, or PXN/unknown raw value */
  int64_t parent;      /* row of the parent (resolved at the end), -1 */
  int64_t gparent;     /* its global number when read, -1 (tiles only) */
  int64_t origin_pid;  /* PXN: originPid, else -1 */
  uint32_t track;
  uint32_t file;
  uint32_t name; /* strings: display name ("AllReduce", "ProxyStep send") */
  uint32_t func; /* strings: func, 0 if none */
  uint32_t line; /* its line in the extra stream */
  uint8_t type;  /* ev_type, or VIEW_TYPE_GPU_ACTIVITY */
  uint8_t end;   /* 0 stopped, 1 reclaimed, 2 inflight, 3 other */
  uint8_t pk;    /* parent_kind */
  bool has_id;
} view_event;

typedef struct {
  int64_t start, dur;
  int64_t ev;  /* row of its Coll/P2p/CeColl, -1 when not found */
  int64_t gev; /* its global number when read, -1 (tiles only) */
  uint64_t event_id;
  uint32_t track, file, line;
  uint32_t source; /* strings: gpu, proxy, host */
  uint32_t name;   /* strings: "AllReduce (gpu)" */
} view_timing;

typedef struct {
  int64_t ts;
  int64_t step; /* INT64_MIN when none */
  uint32_t file;
  uint32_t kind;  /* strings */
  uint32_t label; /* strings */
} view_mark;

/* The global numbers of one file's events by id, for ids below `len`. */
typedef struct {
  uint64_t *slots; /* global number + 1, 0: none */
  size_t len;
  size_t used; /* slots that are not 0 */
} view_id_dense;

typedef struct {
  timeline tl;
  intern_tab strings; /* id 0 is "" */
  int64_t base;       /* ns since the epoch of time 0 (a whole second) */
  bool have_base;
  view_event *ev;
  size_t nev, cap_ev;
  view_timing *tm;
  size_t ntm, cap_tm;
  view_mark *marks;
  size_t nmarks, cap_marks;
  uint32_t lines;       /* lines written to the extra stream */
  uint64_t extra_bytes; /* bytes written to the extra stream */
  uint64_t late_states, skipped;
  uint64_t gpu_activities; /* GPU activity records placed on GPU lanes */
  char *buf;               /* one extra line being built */
  size_t nbuf, cap_buf;
  bool oom;
  rec_scratch *sc;
  view_overview ov; /* every collective, also those beyond the detail */
  /* the detail budget: events and timing records are embedded from
   * detail_from on (ns after the first record) until their columns
   * (VIEW_COLUMN_BYTES each) and extra lines would pass detail_budget
   * bytes; from then on only the overview notes them */
  uint64_t detail_budget;
  int64_t detail_from;
  int64_t first_key; /* the first record's sort key, INT64_MIN none */
  int64_t detail_t0, detail_t1; /* ns since base: the span embedded */
  bool detail_full;             /* the budget ran out */
  uint64_t dropped_events, dropped_timing; /* in the overview only */
  /* the detail beyond the budget, in tiles next to the page (NULL: none,
   * as for a page on stdout); every event and timing record placed has a
   * global number in start order (view_tiles.h), the page's own detail
   * being the run from ev_base, tm_base */
  view_tiles *tiles;
  const ord_reader *rd;
  uint64_t ev_global, tm_global;
  uint64_t ev_base, tm_base;
  uint64_t tiled_events, tiled_timing, tiled_marks;
  /* (file, event id) -> global number + 1: ids of a file below its
   * dense.len in dense[file].slots (the plugin's ids count up from 1:
   * one array look-up), any other in global_of */
  view_id_dense *dense; /* one per file */
  size_t ndense;
  pair_map global_of;
  pair_map tags; /* (handleTag, pid or UINT64_MAX) -> file + 1 */
  bool tags_built;
} view_data;

/* What the columns of one event cost on the page, about (for the budget). */
#define VIEW_COLUMN_BYTES 64u

/* `detail_budget` bytes of detail (UINT64_MAX: all), from `detail_from`
 * ns after the first record (0: from the start). */
bool view_data_init(view_data *v, size_t nfiles, uint64_t detail_budget,
                    int64_t detail_from);
void view_data_free(view_data *v);
/* The rest of the detail goes to `tiles` (view_tiles_init'ed; owned by
 * the caller), with parents resolved across them through the files of
 * `rd`. Call before the first record. */
void view_data_use_tiles(view_data *v, view_tiles *tiles, const ord_reader *rd);
/* Take one record (in start order; `key` is its sort key); its extra line,
 * if any, goes to `extra`. False when out of memory. */
bool view_data_add(view_data *v, const rec *r, size_t file, int64_t key,
                   FILE *extra);
/* Resolve parents and timing records, then write the data object
 * (web/README.md) to `out`; `summary_json` (may be NULL) is embedded as
 * it is; `sum` (may be NULL) names the GPUs of the overview. */
void view_data_write(view_data *v, const ord_reader *rd, FILE *out,
                     const char *summary_json, size_t summary_len,
                     const summary *sum);

#endif
