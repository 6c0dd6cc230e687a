/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/view/view_overview.c — see view_overview.h.
 */
#include "view/view_overview.h"

#include <stdlib.h>
#include <string.h>

#include "util/pair_map.h"

/* One GPU row of the overview. */
typedef struct {
  size_t file;
  int64_t global_rank; /* -1 unknown: the row is the process */
  int device;          /* -1 unknown */
  uint64_t count;      /* collective instances */
  int64_t late_sum, late_max;
} ov_row;

/* One cell of the bucket level. */
typedef struct {
  uint32_t count;
  int64_t busy; /* ns of collectives starting in the bucket */
  int64_t late; /* the most lateness among them */
} ov_cell;

typedef struct {
  ov_row *rows;
  size_t nrows;
  uint32_t *row_of;  /* per noted collective: its row (sorted order) */
  int64_t *late;     /* per noted collective: arrival lateness, ns */
  int64_t late_max;  /* over all instances */
  long straggler;    /* row, -1 none */
  int64_t t0, width; /* buckets: first start, ns per bucket */
  size_t nbuckets;
  ov_cell *cells; /* nrows x nbuckets */
  struct {
    size_t row;
    int64_t ctx;
  } * ctx_pairs; /* the communicator contexts of each row */
  size_t nctx_pairs;
} ov_result;

void view_ov_init(view_overview *o) {
  memset(o, 0, sizeof *o);
}

void view_ov_free(view_overview *o) {
  free(o->colls);
  memset(o, 0, sizeof *o);
}

void view_ov_note(view_overview *o, int64_t start, int64_t dur, int64_t seq,
                  int64_t ctx, uint32_t file, uint32_t func) {
  if (o->oom)
    return;
  if (o->n == o->cap) {
    size_t ncap = o->cap ? o->cap * 2 : 1024;
    view_ov_coll *nc = realloc(o->colls, ncap * sizeof *nc);
    if (!nc) {
      o->oom = true;
      return;
    }
    o->colls = nc;
    o->cap = ncap;
  }
  o->colls[o->n++] = (view_ov_coll){start, dur, seq, ctx, file, func};
}

/* ---- GPU rows ---- */

/* The GPU of (file, ctx): its global rank and device as `cclscope
 * summary` resolves them, else the process's launcher rank. */
static void gpu_of_ctx(const timeline *tl, const ord_reader *rd,
                       const summary *sum, size_t file, int64_t ctx,
                       int64_t *global_rank, int *device) {
  *global_rank = -1;
  *device = -1;
  const tl_ctx *c = tl_ctx_of(tl, file, ctx);
  if (sum && c && c->has_comm && c->rank >= 0 && c->rank <= INT32_MAX) {
    const file_health *h = gpu_of(sum, c->comm_id, (int32_t)c->rank, device);
    const char *source;
    if (h)
      *global_rank = gpu_global_rank(sum, h, c->comm_id, (int32_t)c->rank,
                                     *device, &source);
  }
  if (*global_rank < 0 && file < rd->n && rd->files[file].id.has_process)
    *global_rank = rd->files[file].id.global_rank;
}

static int cmp_rows(const void *a, const void *b) {
  const ov_row *x = a, *y = b;
  bool xu = x->global_rank < 0, yu = y->global_rank < 0;
  if (xu != yu)
    return xu ? 1 : -1;
  if (x->global_rank != y->global_rank)
    return x->global_rank < y->global_rank ? -1 : 1;
  if (x->file != y->file)
    return x->file < y->file ? -1 : 1;
  return (x->device > y->device) - (x->device < y->device);
}

/* Rows of every (file, ctx) noted, sorted by global rank; row_of filled. */
static bool build_rows(view_overview *o, const timeline *tl,
                       const ord_reader *rd, const summary *sum,
                       ov_result *res) {
  pair_map by_ctx, by_gpu;
  pair_map_init(&by_ctx);
  pair_map_init(&by_gpu);
  bool ok = true;
  res->rows = calloc(o->n + 1, sizeof *res->rows);
  res->row_of = malloc((o->n + 1) * sizeof *res->row_of);
  if (!res->rows || !res->row_of)
    ok = false;
  for (size_t i = 0; ok && i < o->n; i++) {
    const view_ov_coll *c = &o->colls[i];
    bool inserted;
    uint64_t *r =
        pair_map_put(&by_ctx, c->file, (uint64_t)(c->ctx + 1), 0, &inserted);
    if (!r) {
      ok = false;
      break;
    }
    if (inserted) {
      int64_t g;
      int device;
      gpu_of_ctx(tl, rd, sum, c->file, c->ctx, &g, &device);
      uint64_t *row =
          pair_map_put(&by_gpu, c->file, (uint64_t)(g + 1), 0, &inserted);
      if (!row) {
        ok = false;
        break;
      }
      if (inserted) {
        ov_row *nr = &res->rows[res->nrows];
        nr->file = c->file;
        nr->global_rank = g;
        nr->device = device;
        *row = ++res->nrows;
      }
      *r = *row;
    }
    res->row_of[i] = (uint32_t)(*r - 1);
  }
  if (ok) {
    /* sort, then renumber row_of through the old positions */
    size_t *rank_of = malloc((res->nrows + 1) * sizeof *rank_of);
    ov_row *sorted = malloc((res->nrows + 1) * sizeof *sorted);
    if (!rank_of || !sorted) {
      ok = false;
    } else {
      memcpy(sorted, res->rows, res->nrows * sizeof *sorted);
      qsort(sorted, res->nrows, sizeof *sorted, cmp_rows);
      for (size_t k = 0; k < res->nrows; k++)
        for (size_t j = 0; j < res->nrows; j++)
          if (cmp_rows(&sorted[j], &res->rows[k]) == 0) {
            rank_of[k] = j;
            break;
          }
      for (size_t i = 0; i < o->n; i++)
        res->row_of[i] = (uint32_t)rank_of[res->row_of[i]];
      res->ctx_pairs = malloc((by_ctx.n + 1) * sizeof *res->ctx_pairs);
      ok = res->ctx_pairs != NULL;
      for (size_t i = 0; ok && i < by_ctx.cap; i++)
        if (by_ctx.slots[i].used) {
          res->ctx_pairs[res->nctx_pairs].row =
              rank_of[by_ctx.slots[i].value - 1];
          res->ctx_pairs[res->nctx_pairs++].ctx =
              (int64_t)by_ctx.slots[i].b - 1;
        }
      memcpy(res->rows, sorted, res->nrows * sizeof *sorted);
    }
    free(rank_of);
    free(sorted);
  }
  pair_map_free(&by_ctx);
  pair_map_free(&by_gpu);
  return ok;
}

/* ---- lateness ---- */

static bool compute_lateness(view_overview *o, const timeline *tl,
                             ov_result *res) {
  pair_map first;
  pair_map_init(&first);
  res->late = calloc(o->n + 1, sizeof *res->late);
  if (!res->late)
    return false;
  /* the earliest start of each (communicator, func, seqNumber) */
  const uint64_t bias = UINT64_C(1) << 63;
  for (int pass = 0; pass < 2; pass++) {
    for (size_t i = 0; i < o->n; i++) {
      const view_ov_coll *c = &o->colls[i];
      const tl_ctx *x = tl_ctx_of(tl, c->file, c->ctx);
      if (!x || !x->has_comm)
        continue;
      uint64_t key = ((uint64_t)c->seq << 20) | (c->func & 0xfffffu);
      uint64_t start = (uint64_t)c->start + bias;
      if (pass == 0) {
        bool inserted;
        uint64_t *v = pair_map_put(&first, x->comm_id, key, start, &inserted);
        if (!v) {
          pair_map_free(&first);
          return false;
        }
        if (start < *v)
          *v = start;
      } else {
        const uint64_t *v = pair_map_get(&first, x->comm_id, key);
        res->late[i] = v ? (int64_t)(start - *v) : 0;
      }
    }
  }
  pair_map_free(&first);
  /* A communicator's first collective (seqNumber 0) is where its ranks
   * first meet: its arrival lateness is how far apart the processes were
   * launched, not a straggler. It is coloured but not counted. */
  for (size_t i = 0; i < o->n; i++) {
    ov_row *r = &res->rows[res->row_of[i]];
    r->count++;
    if (o->colls[i].seq == 0)
      continue;
    r->late_sum += res->late[i];
    if (res->late[i] > r->late_max)
      r->late_max = res->late[i];
    if (res->late[i] > res->late_max)
      res->late_max = res->late[i];
  }
  return true;
}

/* The row of the GPU the straggler verdict names (summary_verdict.c; the
 * page does not judge lateness itself), -1 when it names none: the row of
 * its process, and of its global rank when the process has several. */
static long verdict_row(const ov_result *res, const summary *sum,
                        const strag_verdict *v) {
  if (!sum || !v->stands_out || !v->gpu.health)
    return -1;
  size_t file = (size_t)(v->gpu.health - sum->health);
  long found = -1;
  int candidates = 0;
  for (size_t k = 0; k < res->nrows; k++) {
    if (res->rows[k].file != file)
      continue;
    candidates++;
    if (found < 0 || res->rows[k].global_rank == v->gpu.global_rank)
      found = (long)k;
  }
  if (candidates > 1 &&
      (found < 0 || res->rows[found].global_rank != v->gpu.global_rank))
    return -1; /* several GPUs in the process and none is the one named */
  return found;
}

static void write_verdict(const strag_verdict *v, bool have, jsonw *w) {
  jw_key(w, "verdict");
  if (!have) {
    jw_null(w); /* no analysis (--no-summary, or it failed) */
    return;
  }
  jw_obj_begin(w);
  jw_key(w, "verdict");
  jw_str(w, v->stands_out                     ? "gpu"
            : v->kind == STRAG_KIND_SLOW_LINK ? "link"
                                              : "none");
  jw_key(w, "confidence");
  jw_str(w, strag_confidence_name(v->confidence));
  jw_key(w, "reason");
  jw_str(w, v->reason);
  jw_key(w, "kind"); /* summary_kind.c */
  jw_str(w, strag_kind_name(v->kind));
  jw_key(w, "kindReason");
  if (v->kind_reason)
    jw_str(w, v->kind_reason);
  else
    jw_null(w);
  jw_key(w, "globalRank");
  if (v->stands_out && v->gpu.global_rank >= 0)
    jw_i64(w, v->gpu.global_rank);
  else
    jw_null(w);
  jw_obj_end(w);
}

/* ---- buckets ---- */

static bool fill_buckets(view_overview *o, ov_result *res) {
  int64_t t0 = INT64_MAX, t1 = INT64_MIN;
  for (size_t i = 0; i < o->n; i++) {
    if (o->colls[i].start < t0)
      t0 = o->colls[i].start;
    if (o->colls[i].start + o->colls[i].dur > t1)
      t1 = o->colls[i].start + o->colls[i].dur;
  }
  size_t k = res->nrows ? VIEW_OV_MAX_CELLS / res->nrows : 0;
  if (k > 2048)
    k = 2048;
  if (k < 16)
    k = 16;
  if (o->n == 0) {
    t0 = t1 = 0;
  }
  res->t0 = t0;
  res->nbuckets = k;
  res->width = (t1 - t0) / (int64_t)k + 1;
  res->cells = calloc(res->nrows * k + 1, sizeof *res->cells);
  if (!res->cells)
    return false;
  for (size_t i = 0; i < o->n; i++) {
    size_t b = (size_t)((o->colls[i].start - t0) / res->width);
    if (b >= k)
      b = k - 1;
    ov_cell *c = &res->cells[res->row_of[i] * k + b];
    c->count++;
    c->busy += o->colls[i].dur;
    if (res->late[i] > c->late)
      c->late = res->late[i];
  }
  return true;
}

/* ---- writing ---- */

static void write_rows(const ov_result *res, const ord_reader *rd, jsonw *w) {
  jw_key(w, "rows");
  jw_arr_begin(w);
  for (size_t k = 0; k < res->nrows; k++) {
    const ov_row *r = &res->rows[k];
    const ord_identity *id = r->file < rd->n ? &rd->files[r->file].id : NULL;
    jw_obj_begin(w);
    jw_key(w, "globalRank");
    if (r->global_rank >= 0)
      jw_i64(w, r->global_rank);
    else
      jw_null(w);
    jw_key(w, "file");
    jw_u64(w, r->file);
    jw_key(w, "host");
    jw_str(w, id && id->has_process ? id->host : "");
    jw_key(w, "pid");
    jw_i64(w, id && id->has_process ? id->pid : -1);
    jw_key(w, "device");
    if (r->device >= 0)
      jw_i64(w, r->device);
    else
      jw_null(w);
    /* the communicator contexts of this GPU (for expanding it) */
    jw_key(w, "ctxs");
    jw_arr_begin(w);
    for (size_t p = 0; p < res->nctx_pairs; p++)
      if (res->ctx_pairs[p].row == k)
        jw_i64(w, res->ctx_pairs[p].ctx);
    jw_arr_end(w);
    jw_key(w, "count");
    jw_u64(w, r->count);
    jw_key(w, "lateSum");
    jw_i64(w, r->late_sum);
    jw_key(w, "lateMax");
    jw_i64(w, r->late_max);
    jw_obj_end(w);
    jw_newline(w);
  }
  jw_arr_end(w);
}

static void write_cells(const ov_result *res, jsonw *w) {
  static const char *const keys[] = {"row", "b", "n", "busy", "late"};
  jw_key(w, "cells");
  jw_obj_begin(w);
  for (int col = 0; col < 5; col++) {
    jw_key(w, keys[col]);
    jw_arr_begin(w);
    for (size_t r = 0; r < res->nrows; r++)
      for (size_t b = 0; b < res->nbuckets; b++) {
        const ov_cell *c = &res->cells[r * res->nbuckets + b];
        if (!c->count)
          continue;
        int64_t v = col == 0   ? (int64_t)r
                    : col == 1 ? (int64_t)b
                    : col == 2 ? (int64_t)c->count
                    : col == 3 ? c->busy
                               : c->late;
        jw_i64(w, v);
      }
    jw_arr_end(w);
    jw_newline(w);
  }
  jw_obj_end(w);
}

/* Instances by row, in start order within a row (a stable counting sort
 * of the start-ordered notes). */
static void write_instances(view_overview *o, const ov_result *res, jsonw *w) {
  jw_key(w, "instances");
  size_t *order =
      o->n <= VIEW_OV_MAX_INSTANCES ? malloc((o->n + 1) * sizeof *order) : NULL;
  size_t *next = order ? calloc(res->nrows + 1, sizeof *next) : NULL;
  if (!order || !next) {
    free(order);
    jw_null(w); /* the page draws the buckets at every zoom */
    return;
  }
  for (size_t i = 0; i < o->n; i++)
    next[res->row_of[i] + 1]++;
  for (size_t r = 1; r <= res->nrows; r++)
    next[r] += next[r - 1];
  for (size_t i = 0; i < o->n; i++)
    order[next[res->row_of[i]]++] = i;
  static const char *const keys[] = {"row", "start", "dur", "late", "func"};
  jw_obj_begin(w);
  for (int col = 0; col < 5; col++) {
    jw_key(w, keys[col]);
    jw_arr_begin(w);
    for (size_t k = 0; k < o->n; k++) {
      size_t i = order[k];
      const view_ov_coll *c = &o->colls[i];
      int64_t v = col == 0   ? (int64_t)res->row_of[i]
                  : col == 1 ? c->start
                  : col == 2 ? c->dur
                  : col == 3 ? res->late[i]
                             : (int64_t)c->func;
      jw_i64(w, v);
    }
    jw_arr_end(w);
    jw_newline(w);
  }
  jw_obj_end(w);
  free(order);
  free(next);
}

void view_ov_write(view_overview *o, const timeline *tl, const ord_reader *rd,
                   const summary *sum, jsonw *w) {
  ov_result res;
  memset(&res, 0, sizeof res);
  res.straggler = -1;
  bool ok = !o->oom && build_rows(o, tl, rd, sum, &res) &&
            compute_lateness(o, tl, &res) && fill_buckets(o, &res);
  jw_key(w, "overview");
  if (!ok) {
    jw_null(w); /* out of memory: the page shows the lanes only */
  } else {
    strag_verdict v;
    memset(&v, 0, sizeof v);
    if (sum)
      strag_verdict_of(sum, &v);
    res.straggler = sum ? verdict_row(&res, sum, &v) : -1;
    jw_obj_begin(w);
    jw_key(w, "straggler");
    jw_i64(w, res.straggler);
    write_verdict(&v, sum != NULL, w);
    jw_key(w, "lateMax");
    jw_i64(w, res.late_max);
    jw_key(w, "instancesTotal");
    jw_u64(w, o->n);
    jw_key(w, "bucketT0");
    jw_i64(w, res.t0);
    jw_key(w, "bucketWidth");
    jw_i64(w, res.width);
    jw_key(w, "buckets");
    jw_u64(w, res.nbuckets);
    jw_newline(w);
    write_rows(&res, rd, w);
    write_cells(&res, w);
    write_instances(o, &res, w);
    jw_obj_end(w);
  }
  jw_newline(w);
  free(res.rows);
  free(res.row_of);
  free(res.late);
  free(res.cells);
  free(res.ctx_pairs);
}
