/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/summary/summary_colls.c — per-collective statistics for `summary`.
 *
 * Rows are (communicator, function, message size, timing source). Inputs:
 *   - `timing` records (docs/trace-format.md): duration and source as the
 *     plugin derived them (gpu, proxy or host), or as the read layer
 *     derived them from a minimal_profiler file (also cupti);
 *   - Coll/P2p/CeColl `event` records, always: their own span (start to
 *     stop, i.e. the host-side enqueue) under source "enqueue". When the
 *     trace has timing records these rows are not shown (the timing rows
 *     are better); without them they are the fallback and say so.
 * Message size = `bytes` of the timing record, else as the plugin computes
 * it (nccl_model.h: count x datatype size, x nranks for AllGather and the
 * like; count itself when the datatype is unknown).
 * Both inputs also feed the straggler matching (summary_stragglers.c).
 */
#include <stdlib.h>
#include <string.h>

#include "summary/nccl_model.h"
#include "summary/summary.h"

const char *dur_source_name(dur_source s) {
  static const char *const names[SRC_COUNT] = {"gpu", "cupti", "proxy", "host",
                                               "enqueue"};
  return (unsigned)s < SRC_COUNT ? names[s] : "?";
}

bool dur_source_measures_transfer(dur_source s) {
  return s == SRC_GPU || s == SRC_CUPTI || s == SRC_PROXY;
}

static uint32_t func_id(summary *s, const js_value *v) {
  if (!v || v->type != JS_STRING)
    return intern_id(&s->funcs, "?", 1);
  char buf[64];
  js_str_copy(v, buf, sizeof buf);
  return intern_id(&s->funcs, buf, strlen(buf));
}

static uint32_t string_id(summary *s, const js_value *v) {
  if (!v || v->type != JS_STRING)
    return 0;
  char buf[64];
  js_str_copy(v, buf, sizeof buf);
  return intern_id(&s->strings, buf, strlen(buf));
}

static uint64_t message_bytes(const summary *s, uint32_t func,
                              const js_value *count, const js_value *dtype,
                              int nranks) {
  uint64_t n = 0;
  if (!js_to_u64(count, &n))
    return 0;
  char name[64] = "";
  js_str_copy(dtype, name, sizeof name);
  return nccl_collective_bytes(intern_str(&s->funcs, func), n, name, nranks);
}

static coll_row *row_for(summary *s, uint64_t comm, uint32_t func,
                         uint64_t bytes, dur_source src) {
  uint64_t key =
      (bytes << 8) | ((uint64_t)(func < 32 ? func : 31) << 3) | (uint64_t)src;
  bool inserted;
  uint64_t *idx = pair_map_put(&s->coll_index, comm, key, 0, &inserted);
  if (!idx)
    return NULL;
  if (!inserted)
    return &s->colls[*idx - 1];
  if (s->ncolls == s->cap_colls) {
    size_t ncap = s->cap_colls ? s->cap_colls * 2 : 64;
    coll_row *nr = realloc(s->colls, ncap * sizeof *nr);
    if (!nr) {
      pair_map_remove(&s->coll_index, comm, key);
      return NULL;
    }
    s->colls = nr;
    s->cap_colls = ncap;
  }
  coll_row *row = &s->colls[s->ncolls++];
  memset(row, 0, sizeof *row);
  row->comm_id = comm;
  row->func = func;
  row->bytes = bytes;
  row->source = src;
  lhist_init(&row->dur);
  *idx = s->ncolls;
  const comm_info *ci = summary_comm(s, comm);
  row->nranks = ci ? ci->nranks : 0;
  return row;
}

static void note_algo(coll_row *row, uint32_t algo, uint32_t proto) {
  if (algo) {
    if (!row->algo)
      row->algo = algo;
    else if (row->algo != algo)
      row->algo_mixed = true;
  }
  if (proto) {
    if (!row->proto)
      row->proto = proto;
    else if (row->proto != proto)
      row->proto_mixed = true;
  }
}

static dur_source source_of(const js_value *v) {
  if (js_str_eq(v, "gpu"))
    return SRC_GPU;
  if (js_str_eq(v, "cupti"))
    return SRC_CUPTI;
  if (js_str_eq(v, "proxy"))
    return SRC_PROXY;
  return SRC_HOST;
}

/* The length (ns) of one phase of a decoded `phases` object (in
 * sc->sub); a phase left out had zero length (the plugin leaves those
 * out). */
static int64_t phase_ns(const rec *r, rec_scratch *sc, js_key phase) {
  const js_value *v = js_get(&sc->sub, phase);
  if (!v)
    return 0;
  int64_t start, stop;
  if (v->type != JS_OBJECT ||
      !rec_timing_span(v, &sc->state, r->line, &start, &stop) || stop < start)
    return STRAG_UNKNOWN;
  return stop - start;
}

/* KernelPhase's initial_sync, compute and final_sync lengths (ns) into
 * `who`, STRAG_UNKNOWN without phases. A record with phases but no
 * initial_sync had a zero-length one: its rank did not wait at all. */
static void phase_lengths(const rec *r, rec_scratch *sc, inst_rank *who) {
  who->gpu_wait = who->gpu_compute = who->gpu_final = STRAG_UNKNOWN;
  const js_value *p = js_get(r->f, K_phases);
  if (!p || p->type != JS_OBJECT ||
      !js_fields_decode(&sc->sub, p->ptr, p->ptr + p->len, r->line, false))
    return;
  who->gpu_wait = phase_ns(r, sc, K_initial_sync);
  who->gpu_compute = phase_ns(r, sc, K_compute);
  who->gpu_final = phase_ns(r, sc, K_final_sync);
}

void colls_add_timing(summary *s, const rec *r, rec_scratch *sc) {
  const js_fields *f = r->f;
  uint64_t comm = 0;
  js_to_hex_u64(js_get(f, K_commId), &comm);
  uint32_t func = func_id(s, js_get(f, K_func));
  int64_t nranks = 0;
  js_to_i64(js_get(f, K_nranks), &nranks);
  uint64_t bytes;
  if (!js_to_u64(js_get(f, K_bytes), &bytes))
    bytes = message_bytes(s, func, js_get(f, K_count), js_get(f, K_datatype),
                          (int)nranks);
  dur_source src = source_of(js_get(f, K_source));
  rec_timing times;
  rec_timing_decode(r, &sc->sub, &times);
  int64_t start = times.start;
  int64_t stop = times.stop;
  int64_t dur = times.duration;
  if (dur == INT64_MIN)
    dur = start != INT64_MIN && stop != INT64_MIN ? stop - start : -1;
  s->timing_records++;
  if (nranks > 0) {
    comm_info *ci = summary_comm(s, comm);
    if (ci && ci->nranks <= 0)
      ci->nranks = (int)nranks;
  }
  if (dur >= 0) {
    coll_row *row = row_for(s, comm, func, bytes, src);
    if (row) {
      if (row->nranks <= 0 && nranks > 0)
        row->nranks = (int)nranks;
      note_algo(row, string_id(s, js_get(f, K_algo)),
                string_id(s, js_get(f, K_proto)));
      lhist_add(&row->dur, dur);
    }
  }
  int64_t arrival = times.api != INT64_MIN ? times.api : times.enq_start;
  if (arrival == INT64_MIN)
    arrival = start;
  int64_t rank;
  if (arrival == INT64_MIN || stop == INT64_MIN ||
      !js_to_i64(js_get(f, K_rank), &rank))
    return;
  gap_report rep = {comm,
                    0,
                    bytes,
                    func,
                    (int)nranks,
                    false,
                    {arrival, stop, STRAG_UNKNOWN, STRAG_UNKNOWN, (int32_t)rank,
                     STRAG_UNKNOWN, STRAG_UNKNOWN},
                    0};
  phase_lengths(r, sc, &rep.who);
  /* Only collectives are matched across ranks: a P2p's seqNumber does not
   * name the same operation on another rank. P2P operations still count
   * for the gap of the next operation on the GPU. */
  rep.matched = ev_type_from_json(js_get(f, K_type)) != ET_P2P &&
                js_to_u64(js_get(f, K_seqNumber), &rep.seq);
  gaps_add(s, &rep);
}

void colls_add_event(summary *s, const rec *r, rec_scratch *sc) {
  if (r->end != END_STOPPED || !r->start.present || !r->stop.present)
    return;
  s->coll_events++;
  const js_value *d = js_get(r->f, K_details);
  if (!d || d->type != JS_OBJECT ||
      !js_fields_decode(&sc->sub, d->ptr, d->ptr + d->len, r->line, false))
    return;
  const js_fields *df = &sc->sub;
  uint64_t comm = r->has_comm ? r->comm_id : 0;
  uint32_t func = func_id(s, js_get(r->f, K_func));
  const comm_info *ci = summary_comm(s, comm);
  int nranks = ci ? ci->nranks : 0;
  uint64_t bytes = message_bytes(s, func, js_get(df, K_count),
                                 js_get(df, K_datatype), nranks);
  coll_row *row = row_for(s, comm, func, bytes, SRC_ENQUEUE);
  if (row) {
    note_algo(row, string_id(s, js_get(df, K_algo)),
              string_id(s, js_get(df, K_proto)));
    lhist_add(&row->dur, r->stop.ts - r->start.ts);
  }
  uint64_t seq;
  if (r->et == ET_P2P || !js_to_u64(js_get(df, K_seqNumber), &seq) ||
      r->rank < 0)
    return;
  inst_rank who = {r->start.ts,   r->stop.ts,       STRAG_UNKNOWN,
                   STRAG_UNKNOWN, (int32_t)r->rank, STRAG_UNKNOWN,
                   STRAG_UNKNOWN};
  strag_add(s, comm, func, seq, bytes, false, nranks, &who);
}

bool colls_use_timing(const summary *s) {
  return s->timing_records > 0;
}
