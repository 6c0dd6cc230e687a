/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/summary/summary_collect.c — reading traces into the summary's
 * data model (summary.h): every record once (files in lock step,
 * ordered_reader.h ORD_LOCKSTEP), handed to the part of the analysis that
 * wants it (summary_colls.c, summary_network.c); the communicator table and
 * each file's health (how it ended, what was lost) are kept here. Used by
 * `summary` (cmd_summary.c) and `view` (view/cmd_view.c).
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "read/ordered_reader.h"
#include "summary/summary.h"

comm_info *summary_comm(summary *s, uint64_t comm_id) {
  bool inserted;
  uint64_t *idx = pair_map_put(&s->comm_index, comm_id, 0, 0, &inserted);
  if (!idx)
    return NULL;
  if (!inserted)
    return &s->comms[*idx - 1];
  if (s->ncomms == s->cap_comms) {
    size_t ncap = s->cap_comms ? s->cap_comms * 2 : 16;
    comm_info *nc = realloc(s->comms, ncap * sizeof *nc);
    if (!nc) {
      pair_map_remove(&s->comm_index, comm_id, 0);
      return NULL;
    }
    s->comms = nc;
    s->cap_comms = ncap;
  }
  comm_info *c = &s->comms[s->ncomms++];
  memset(c, 0, sizeof *c);
  c->comm_id = comm_id;
  *idx = s->ncomms;
  return c;
}

static void read_health_counters(file_health *h, const js_value *v,
                                 rec_scratch *sc, const char *base) {
  if (!v || v->type != JS_OBJECT ||
      !js_fields_decode(&sc->state, v->ptr, v->ptr + v->len, base, false))
    return;
  const js_fields *f = &sc->state;
  h->has_counters = true;
  js_to_u64(js_get(f, K_eventsStarted), &h->started);
  js_to_u64(js_get(f, K_droppedStarts), &h->dropped_starts);
  js_to_u64(js_get(f, K_droppedStates), &h->dropped_states);
  js_to_u64(js_get(f, K_droppedStops), &h->dropped_stops);
  js_to_u64(js_get(f, K_reclaimed), &h->reclaimed);
  js_to_u64(js_get(f, K_inflight), &h->inflight);
  const js_value *by = js_get(f, K_reclaimedByReason);
  js_iter it;
  js_value k, val;
  if (by && js_object_begin(&it, by->ptr, by->ptr + by->len, base)) {
    static const char *const reasons[4] = {"abandoned", "parent-stopped",
                                           "no-progress", "finalize"};
    while (js_object_next(&it, &k, &val))
      for (int i = 0; i < 4; i++)
        if (js_str_eq(&k, reasons[i]))
          js_to_u64(&val, &h->reclaimed_by[i]);
  }
}

/* A communicator rank's GPU: this file's process, and the device its
 * lifecycle record names; the largest communicator of the file and of the
 * device (for gpu_global_rank). */
static void note_gpu(summary *s, const rec *r, file_health *h, size_t file,
                     int64_t nranks) {
  int64_t device = -1;
  if (!js_to_i64(js_get(r->f, K_device), &device) || device < 0 ||
      device > 0x7ffffffe)
    device = -1;
  bool inserted;
  uint64_t *v =
      pair_map_put(&s->gpu_index, r->comm_id, (uint64_t)r->rank, 0, &inserted);
  if (v && inserted)
    *v = ((uint64_t)file + 1) | ((uint64_t)(device + 1) << 32);
  if (r->rank < 0 || nranks <= 0)
    return;
  if (nranks > h->largest_nranks) {
    h->largest_nranks = (int)nranks;
    h->largest_comm = r->comm_id;
    h->largest_rank = r->rank;
    h->largest_count = 1;
  } else if (r->comm_id == h->largest_comm && inserted) {
    h->largest_count++;
  }
  if (device >= 0) {
    uint64_t *d =
        pair_map_put(&s->device_index, file, (uint64_t)device, 0, &inserted);
    if (d && (uint64_t)nranks > (*d >> 32))
      *d = ((uint64_t)nranks << 32) | ((uint64_t)r->rank + 1);
  }
}

const file_health *gpu_of(const summary *s, uint64_t comm_id, int32_t rank,
                          int *device) {
  *device = -1;
  const uint64_t *v = pair_map_get(&s->gpu_index, comm_id, (uint64_t)rank);
  if (!v || (*v & 0xffffffffu) == 0 || (*v & 0xffffffffu) > s->files)
    return NULL;
  *device = (int)(*v >> 32) - 1;
  return &s->health[(*v & 0xffffffffu) - 1];
}

int64_t gpu_global_rank(const summary *s, const file_health *h, uint64_t comm,
                        int32_t rank, int device, const char **source) {
  *source = NULL;
  if (h->largest_count <= 1) { /* one GPU in the process */
    if (h->global_rank >= 0) {
      *source = h->rank_source[0] ? h->rank_source : "launcher";
      return h->global_rank;
    }
    if (h->largest_nranks > 0) {
      *source = "largest-communicator";
      return h->largest_rank;
    }
    return -1;
  }
  /* several GPUs: the launcher's rank is the process's, not a GPU's */
  if (comm == h->largest_comm) {
    *source = "largest-communicator";
    return rank;
  }
  if (device >= 0) {
    size_t file = (size_t)(h - s->health);
    const uint64_t *d = pair_map_get(&s->device_index, file, (uint64_t)device);
    if (d && (*d & 0xffffffffu) > 0) {
      *source = "largest-communicator";
      return (int64_t)(*d & 0xffffffffu) - 1;
    }
  }
  return -1;
}

static void on_lifecycle(summary *s, const rec *r, file_health *h, size_t file,
                         rec_scratch *sc) {
  const js_fields *f = r->f;
  if (js_str_eq(js_get(f, K_func), "ProfilerInit")) {
    if (!r->has_comm)
      return;
    comm_info *c = summary_comm(s, r->comm_id);
    if (!c)
      return;
    int64_t nranks;
    if (js_to_i64(js_get(f, K_nranks), &nranks) && nranks > 0)
      c->nranks = (int)nranks;
    else
      nranks = 0;
    note_gpu(s, r, h, file, nranks);
    if (!c->name[0])
      js_str_copy(js_get(f, K_commName), c->name, sizeof c->name);
  } else if (!h->has_end) {
    /* the last ProfilerFinalize stands in for a missing processEnd */
    const js_value *d = js_get(f, K_details);
    if (d && d->type == JS_OBJECT &&
        js_fields_decode(&sc->sub, d->ptr, d->ptr + d->len, r->line, false)) {
      const js_value *pc = js_get(&sc->sub, K_processCounters);
      if (pc) {
        js_value v = *pc;
        read_health_counters(h, &v, sc, r->line);
      }
    }
  }
}

/* The accounting record (docs/trace-format.md): lines lost, counted where
 * a full disk cannot take them away; once the file was closed, the
 * process-wide drops as processEnd had them (settle_accounting). */
static void on_accounting(const rec *r, file_health *h) {
  h->has_acct = true;
  rec_accounting_decode(r, &h->acct); /* what is missing reads as 0 */
}

static void on_record(summary *s, const rec *r, file_health *h, size_t file,
                      rec_scratch *sc) {
  int64_t t = rec_start_time(r);
  if (t != INT64_MIN && (s->first_ts == 0 || t < s->first_ts))
    s->first_ts = t;
  t = rec_write_time(r);
  if (t != INT64_MIN && t > s->last_ts)
    s->last_ts = t;
  switch (r->rt) {
  case RT_EVENT:
    switch (r->et) {
    case ET_LIFECYCLE:
      on_lifecycle(s, r, h, file, sc);
      break;
    case ET_COLL:
    case ET_P2P:
    case ET_CE_COLL:
      colls_add_event(s, r, sc);
      break;
    case ET_PROXY_STEP:
      net_add_step(s, r, sc, file);
      break;
    case ET_PROXY_OP: /* its steps are all in (summary_link_steps.c) */
      if (r->has_id)
        net_step_op_done(&s->net, file, r->id);
      break;
    default:
      break;
    }
    break;
  case RT_TIMING:
    colls_add_timing(s, r, sc);
    break;
  case RT_GPU_ACTIVITY:
    s->gpu_activities++;
    break;
  case RT_PROCESS:
    js_str_copy(js_get(r->f, K_hostname), h->host, sizeof h->host);
    js_to_i64(js_get(r->f, K_pid), &h->pid);
    if (!js_to_i64(js_get(r->f, K_globalRank), &h->global_rank) ||
        h->global_rank < 0)
      h->global_rank = -1;
    js_str_copy(js_get(r->f, K_globalRankSource), h->rank_source,
                sizeof h->rank_source);
    break;
  case RT_PROCESS_END:
    h->has_end = true;
    js_to_u64(js_get(r->f, K_linesLost), &h->lines_lost);
    read_health_counters(h, js_get(r->f, K_counters), sc, r->line);
    break;
  case RT_ACCOUNTING:
    on_accounting(r, h);
    break;
  default:
    break;
  }
}

/* After the file: what its accounting record adds to processEnd's
 * numbers, or says in place of a processEnd that was lost. */
static void settle_accounting(file_health *h) {
  const rec_accounting *a = &h->acct;
  if (!h->has_acct)
    return;
  if (a->lines_lost > h->lines_lost)
    h->lines_lost = a->lines_lost;
  if (a->closed && !h->has_end) { /* as processEnd had them */
    h->dropped_starts = a->dropped_starts;
    h->dropped_states = a->dropped_states;
    h->dropped_stops = a->dropped_stops;
  }
}

void summary_free(summary *s) {
  for (size_t i = 0; i < s->ncolls; i++)
    lhist_free(&s->colls[i].dur);
  free(s->colls);
  pair_map_free(&s->coll_index);
  free(s->comms);
  pair_map_free(&s->comm_index);
  pair_map_free(&s->gpu_index);
  pair_map_free(&s->device_index);
  intern_free(&s->strings);
  intern_free(&s->funcs);
  strag_finish(s);
  pair_map_free(&s->strag.index);
  free(s->strag.ranks);
  pair_map_free(&s->strag.rank_index);
  gaps_free(s);
  pair_map_free(&s->strag.history_index);
  for (size_t i = 0; i < s->net.nlinks; i++)
    lhist_free(&s->net.links[i].step_mbps);
  free(s->net.links);
  pair_map_free(&s->net.link_index);
  pair_map_free(&s->net.min_by_size);
  free(s->net.verdicts);
  free(s->net.channels);
  pair_map_free(&s->net.channel_index);
  net_step_free(&s->net);
  free(s->health);
}

int summary_collect(summary *s, const tr_inputs *in) {
  intern_init(&s->strings);
  intern_init(&s->funcs);
  s->files = in->n;
  s->bytes = in->total_bytes;
  s->health = calloc(in->n, sizeof *s->health);
  ord_reader rd;
  rec_scratch *sc = malloc(sizeof *sc);
  if (!s->health || !sc ||
      !ord_open(&rd, in, ORD_LOCKSTEP, 0, s->no_progress ? NULL : "summary")) {
    free(sc);
    return -1;
  }
  int status = EXIT_OK;
  rec_scratch_init(sc);
  for (size_t i = 0; i < in->n; i++) {
    s->health[i].path = in->paths[i];
    s->health[i].pid = -1;
    s->health[i].global_rank = -1;
    s->health[i].largest_rank = -1;
  }
  ord_where w;
  const rec *r;
  while ((r = ord_next(&rd, &w)) != NULL)
    on_record(s, r, &s->health[w.file], w.file, sc);
  for (size_t i = 0; i < in->n; i++)
    settle_accounting(&s->health[i]);
  s->records = rd.records;
  s->bytes = rd.text_bytes; /* of text: a compressed file's decompressed */
  s->invalid_lines = rd.invalid;
  if (rd.unreadable_files)
    status = EXIT_FINDINGS;
  ord_close(&rd);
  strag_finish(s);
  net_finish(s);
  free(sc);
  return status;
}
