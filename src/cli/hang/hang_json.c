/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/hang/hang_json.c — `cclscope hang --json`: the same conclusions as
 * the text report, as one JSON object (keys in docs/cli.md). Ids are hex
 * strings, times Unix-epoch microseconds, durations seconds.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "hang/hang_explain.h"
#include "util/jsonw.h"

#define TEXT 2048

static void put_sources(jsonw *w, const hang_db *db, bool traces) {
  jw_arr_begin(w);
  for (size_t i = 0; i < db->nsources; i++) {
    const hang_source *s = &db->sources[i];
    if (s->is_trace != traces)
      continue;
    jw_obj_begin(w);
    jw_key(w, "file");
    jw_str(w, s->path);
    jw_key(w, "hostname");
    jw_str(w, s->hostname);
    jw_key(w, "pid");
    jw_i64(w, s->pid);
    if (traces) {
      jw_key(w, "processEnd");
      jw_bool(w, s->has_end);
      jw_key(w, "lastTs");
      if (s->last_ts_ns != INT64_MIN)
        jw_ns_as_us(w, s->last_ts_ns);
      else
        jw_null(w);
      jw_key(w, "lastStepMark");
      if (s->has_step)
        jw_u64(w, s->last_step);
      else
        jw_null(w);
    } else {
      jw_key(w, "reason");
      jw_str(w, s->reason);
      jw_key(w, "ts");
      jw_ns_as_us(w, s->ts_ns);
      jw_key(w, "hangTimeout");
      jw_double(w, s->timeout_s, 3);
    }
    jw_obj_end(w);
  }
  jw_arr_end(w);
}

static void put_seq(jsonw *w, const char *key, bool has, uint64_t v) {
  jw_key(w, key);
  if (has)
    jw_u64(w, v);
  else
    jw_null(w);
}

static void put_head(jsonw *w, const hang_head *h) {
  jw_obj_begin(w);
  jw_key(w, "channel");
  jw_i64(w, h->channel);
  jw_key(w, "direction");
  jw_str(w, h->is_send ? "send" : "recv");
  jw_key(w, "peer");
  jw_i64(w, h->peer);
  jw_key(w, "step");
  jw_i64(w, h->step);
  jw_key(w, "state");
  if (h->state[0])
    jw_str(w, h->state);
  else
    jw_null(w);
  jw_key(w, "waitsOn");
  jw_str(w, hang_wait_name(h->wait));
  jw_key(w, "idle");
  jw_double(w, h->idle_s, 3);
  jw_key(w, "stepsInFlight");
  jw_i64(w, h->steps_in_flight);
  jw_obj_end(w);
}

static void put_rank(jsonw *w, const hang_group *g, const hang_rank *hr) {
  jw_obj_begin(w);
  jw_key(w, "rank");
  jw_i64(w, hr->rank);
  jw_key(w, "status");
  jw_str(w, hang_status_name(hr->status));
  jw_key(w, "source");
  jw_str(w, !hr->src ? "none" : hr->src->is_trace ? "trace" : "snapshot");
  jw_key(w, "hostname");
  if (hr->src)
    jw_str(w, hr->src->hostname);
  else
    jw_null(w);
  jw_key(w, "pid");
  if (hr->src)
    jw_i64(w, hr->src->pid);
  else
    jw_null(w);
  if (g->has_seq) {
    put_seq(w, "lastStartedSeq", hr->has_started, hr->last_started);
    put_seq(w, "lastFinishedSeq", hr->has_finished, hr->last_finished);
  }
  jw_key(w, "stuckOps");
  jw_u64(w, hr->nstuck);
  if (hr->stuck) {
    put_seq(w, "stuckSeq", hr->stuck->has_seq, hr->stuck->seq);
    jw_key(w, "idle");
    jw_double(w, hr->stuck->idle_s, 3);
    jw_key(w, "waiting");
    jw_str(w, hr->stuck->waiting);
  }
  jw_key(w, "waitsOnPeer");
  jw_bool(w, hr->waits_on_peer);
  jw_key(w, "evidence");
  jw_str(w, hang_evidence_name(hr->evidence));
  jw_key(w, "waitedOnBy");
  jw_u64(w, hr->waited_by);
  jw_key(w, "heads");
  jw_arr_begin(w);
  for (size_t i = 0; i < hr->nheads; i++)
    put_head(w, hr->heads[i]);
  jw_arr_end(w);
  jw_obj_end(w);
}

static void put_ranks_with(jsonw *w, const hang_group *g, hang_status st) {
  jw_arr_begin(w);
  for (int64_t r = 0; r < g->nranks; r++)
    if (g->ranks[r].status == st)
      jw_i64(w, r);
  jw_arr_end(w);
}

static void put_culprit(jsonw *w, const hang_db *db, const hang_group *g,
                        const hang_rank *hr, char *text) {
  jw_obj_begin(w);
  jw_key(w, "rank");
  jw_i64(w, hr->rank);
  jw_key(w, "hostname");
  if (hr->src)
    jw_str(w, hr->src->hostname);
  else
    jw_null(w);
  jw_key(w, "pid");
  if (hr->src)
    jw_i64(w, hr->src->pid);
  else
    jw_null(w);
  jw_key(w, "evidence");
  jw_str(w, hang_evidence_name(hr->evidence));
  jw_key(w, "head");
  if (hr->evidence_head)
    put_head(w, hr->evidence_head);
  else
    jw_null(w);
  jw_key(w, "linkPeer");
  if (hr->link_peer >= 0 &&
      (hr->evidence == HE_LINK || hr->evidence == HE_PROXY))
    jw_i64(w, hr->link_peer);
  else
    jw_null(w);
  jw_key(w, "waitedOnBy");
  jw_u64(w, hr->waited_by);
  jw_key(w, "reach");
  jw_u64(w, hr->reach);
  hang_why(db, g, hr, false, text, TEXT);
  jw_key(w, "why");
  jw_str(w, text);
  hang_waiters(g, hr, text, TEXT);
  jw_key(w, "waiters");
  jw_str(w, text);
  hang_advice(g, hr, text, TEXT);
  jw_key(w, "check");
  jw_str(w, text);
  jw_obj_end(w);
}

static void put_group(jsonw *w, const hang_db *db, const hang_group *g,
                      char *text) {
  jw_obj_begin(w);
  jw_key(w, "commId");
  jw_hex(w, g->comm_id);
  jw_key(w, "commName");
  jw_str(w, g->comm_name);
  jw_key(w, "nranks");
  jw_i64(w, g->nranks);
  jw_key(w, "func");
  jw_str(w, g->func);
  if (g->has_seq) {
    put_seq(w, "seqNumber", g->has_newest, g->newest);
    put_seq(w, "lastFinishedSeq", g->has_done, g->newest_done);
  }
  static const struct {
    const char *key;
    hang_status st;
  } lists[] = {{"stuck", HS_STUCK},        {"neverStarted", HS_BEHIND},
               {"noSnapshot", HS_STARTED}, {"noData", HS_NO_DATA},
               {"progressing", HS_MOVING}, {"finished", HS_DONE}};
  for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++) {
    jw_key(w, lists[i].key);
    put_ranks_with(w, g, lists[i].st);
  }
  jw_key(w, "neverFinished"); /* a collective others finished */
  jw_arr_begin(w);
  for (int64_t r = 0; g->has_done && r < g->nranks; r++) {
    const hang_rank *hr = &g->ranks[r];
    if (hr->m && (!hr->has_finished || hr->last_finished < g->newest_done))
      jw_i64(w, r);
  }
  jw_arr_end(w);
  jw_key(w, "maxIdle");
  jw_double(w, g->max_idle_s, 3);
  jw_key(w, "confidence");
  jw_str(w, hang_confidence_name(g->confidence));
  hang_confidence_why(g, text, TEXT);
  jw_key(w, "confidenceWhy");
  jw_str(w, text);
  jw_key(w, "hangClass");
  jw_str(w, hang_class_name(g->hclass));
  jw_key(w, "mismatch"); /* what each side called, when they differ */
  if (g->mismatch[0])
    jw_str(w, g->mismatch);
  else
    jw_null(w);
  jw_key(w, "culpritIsProcess"); /* the culprits: all ranks of a process */
  jw_bool(w, g->culprit_process && g->confidence != HC_NONE);
  jw_key(w, "culprits");
  jw_arr_begin(w);
  if (g->confidence != HC_NONE)
    for (size_t i = 0; i < g->nculprits; i++)
      put_culprit(w, db, g, &g->ranks[g->culprits[i]], text);
  jw_arr_end(w);
  jw_key(w, "cycle");
  jw_arr_begin(w);
  for (size_t i = 0; i < g->ncycle; i++)
    jw_i64(w, g->cycle[i]);
  jw_arr_end(w);
  jw_key(w, "ranks");
  jw_arr_begin(w);
  for (int64_t r = 0; r < g->nranks; r++)
    put_rank(w, g, &g->ranks[r]);
  jw_arr_end(w);
  jw_obj_end(w);
}

void hang_print_json(const hang_db *db, const hang_report *r) {
  char *text = malloc(TEXT);
  jsonw *w = malloc(sizeof *w);
  if (!text || !w) {
    free(text);
    free(w);
    return;
  }
  jw_init(w, stdout);
  jw_obj_begin(w);
  jw_key(w, "hang");
  jw_bool(w, r->ngroups > 0);
  jw_key(w, "hungOperations");
  jw_u64(w, db->hung_ops);
  jw_key(w, "snapshots");
  put_sources(w, db, false);
  jw_key(w, "traces");
  put_sources(w, db, true);
  jw_key(w, "groups");
  jw_arr_begin(w);
  for (size_t i = 0; i < r->ngroups; i++)
    put_group(w, db, &r->groups[i], text);
  jw_arr_end(w);
  jw_obj_end(w);
  jw_newline(w);
  jw_flush(w);
  free(text);
  free(w);
}
