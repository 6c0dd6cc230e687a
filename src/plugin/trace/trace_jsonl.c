/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/trace/trace_jsonl.c — the trace sink: events and timing
 * records become lines (trace_fmt.c formats them) or, in a binary trace,
 * compact records (trace_compact.c); the rare records (process, thread,
 * contexts, marks, late states, the end) are formatted here
 * (docs/trace-format.md).
 */
#include "trace_jsonl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "context.h"
#include "event_types.h"
#include "handle.h"
#include "run_name.h"

#define J(lit) CS_JLIT(b, lit)

static int64_t to_ns(cs_trace_sink *t, uint64_t raw) {
  return cs_clock_to_epoch_ns_cached(t->env.cal, &t->clock_past, raw);
}

/* `raw` through an event's span (cs_clock_span_at), else as to_ns. */
static inline int64_t span_ns(cs_trace_sink *t, const cs_clock_span *sp,
                              uint64_t raw) {
  return cs_clock_span_or_cached(sp, t->env.cal, &t->clock_past, raw);
}

_Static_assert(sizeof(((cs_context *)0)->comm_name) <= CS_FMT_COMM_NAME_MAX,
               "a timing line's room (trace_fmt.h) counts on the name's size");

/* The formatter's view of context `ctx`, from the table (NULL: none):
 * filled once per serial (a context's fields are set before it is
 * published and serials are never reused), its presence checked on every
 * call (a finalized context is gone). Inline: once per event. */
static inline const cs_fmt_comm *sink_comm(cs_trace_sink *t, uint32_t ctx) {
  const cs_context *c = cs_ctx_get(ctx);
  if (!c)
    return NULL;
  cs_sink_comm *e = &t->comms[ctx % CS_TRACE_CTX_CACHE];
  if (e->serial != ctx) {
    e->serial = ctx;
    e->comm = (cs_fmt_comm){.has_comm_info = c->has_comm_info,
                            .comm_id = c->comm_id,
                            .abi = c->abi,
                            .device = c->device,
                            .comm_name = c->comm_name};
  }
  return &e->comm;
}

/* For the rarely written records that still use cs_jbuf. */
static void put_endpoint(cs_trace_sink *t, cs_jbuf *b, uint64_t raw,
                         int32_t tid) {
  if (cs_jbuf_reserve(b, 128))
    b->len = (size_t)(cs_fmt_endpoint(&t->fmt, b->data + b->len, to_ns(t, raw),
                                      tid) -
                      b->data);
}

static void put_comm(cs_jbuf *b, uint32_t ctx) {
  const cs_context *c = cs_ctx_get(ctx);
  if (!c) {
    J("\"ctx\":null,\"commId\":null");
    return;
  }
  J("\"ctx\":");
  cs_jbuf_u64(b, ctx);
  J(",\"commId\":");
  if (c->has_comm_info)
    cs_jbuf_hex_str(b, c->comm_id);
  else
    J("null");
}

static void put_state(cs_trace_sink *t, cs_jbuf *b, const cs_state_rec *s,
                      int abi) {
  if (cs_jbuf_reserve(b, CS_FMT_STATE_MAX))
    b->len =
        (size_t)(cs_fmt_state(&t->fmt, b->data + b->len, s, abi,
                              to_ns(t, s->raw_ts), to_ns(t, s->last_raw_ts)) -
                 b->data);
}

/* Room for an event's converted state stamps (t->state_ns). */
static bool state_room(cs_trace_sink *t, uint32_t nstates) {
  if (nstates <= t->state_ns_cap)
    return true;
  size_t cap = t->state_ns_cap ? t->state_ns_cap : 16;
  while (cap < nstates)
    cap *= 2;
  int64_t *p = realloc(t->state_ns, cap * 2 * sizeof *p);
  if (!p)
    return false;
  t->state_ns = p;
  t->state_ns_cap = cap;
  return true;
}

/* ---- records ---- */

void cs_trace_event(cs_trace_sink *t, const cs_event *e) {
  cs_fmt_times tm;
  if (e->nstates && !state_room(t, e->nstates)) {
    size_t start = cs_tf_line_begin(&t->file);
    cs_tf_line_end(&t->file, start, 0); /* counted as lost */
    return;
  }
  /* The stop and the states come after the start, almost always within
   * its calibration segment: converted through it. */
  cs_clock_span sp = cs_clock_span_at(t->env.cal, &t->clock_past, e->start_raw);
  tm.start_ns = span_ns(t, &sp, e->start_raw);
  tm.end_ns =
      span_ns(t, &sp, e->end == CS_END_STOPPED ? e->stop_raw : e->end_raw);
  tm.reclaim = e->end == CS_END_RECLAIMED
                   ? cs_reclaim_reason_name((cs_reclaim_reason)e->reclaim)
                   : NULL;
  /* Walked by pointer: no index arithmetic, the array's address and the
   * count loaded once (the stores below could alias them for the
   * compiler). */
  int64_t *ns = t->state_ns;
  for (const cs_state_rec *s = e->states, *end = s + e->nstates; s < end;
       s++, ns += 2) {
    ns[0] = span_ns(t, &sp, s->raw_ts);
    ns[1] = s->repeat > 1 ? span_ns(t, &sp, s->last_raw_ts) : 0;
  }
  tm.state_ns = t->state_ns;
  const cs_fmt_comm *comm = sink_comm(t, e->ctx);
  if (cs_tf_binary(&t->file)) {
    cs_tc_event(&t->compact, &t->file, &t->fmt, e, comm, &tm);
    t->events_written++;
    return;
  }
  cs_jbuf *b = &t->file.buf;
  size_t start = cs_tf_line_begin(&t->file);
  if (!cs_jbuf_reserve(b, cs_fmt_event_max(e))) {
    cs_tf_line_end(&t->file, start, 0); /* counted as lost */
    return;
  }
  b->len =
      (size_t)(cs_fmt_event(&t->fmt, b->data + b->len, e, comm, &tm) - b->data);
  cs_tf_line_end(&t->file, start, tm.end_ns);
  t->events_written++;
}

void cs_trace_timing(cs_trace_sink *t, const cs_timing *r) {
  const cs_fmt_comm *comm = sink_comm(t, r->ctx);
  if (cs_tf_binary(&t->file)) {
    cs_tc_timing(&t->compact, &t->file, &t->fmt, r, comm);
    return;
  }
  cs_jbuf *b = &t->file.buf;
  size_t start = cs_tf_line_begin(&t->file);
  if (!cs_jbuf_reserve(b, cs_fmt_timing_max(&t->fmt, r))) {
    cs_tf_line_end(&t->file, start, r->stop_ns);
    return;
  }
  b->len =
      (size_t)(cs_fmt_timing(&t->fmt, b->data + b->len, r, comm) - b->data);
  cs_tf_line_end(&t->file, start, r->stop_ns);
}

void cs_trace_late_state(cs_trace_sink *t, uint64_t id, const cs_state_rec *s,
                         int32_t tid, uint8_t etype, uint32_t ctx,
                         int32_t rank) {
  cs_jbuf *b = &t->file.buf;
  size_t start = cs_tf_line_begin(&t->file);
  J("{\"recordType\":\"state\",\"eventId\":");
  cs_jbuf_hex_str(b, id);
  J(",\"eventType\":");
  cs_jbuf_str(b, cs_etype_json_name((cs_etype)etype));
  J(",\"late\":true,");
  put_comm(b, ctx);
  J(",\"rank\":");
  cs_jbuf_i64(b, rank);
  J(",\"pid\":");
  cs_jbuf_i64(b, t->env.pid);
  J(",\"tid\":");
  cs_jbuf_i64(b, tid);
  J(",\"state\":");
  put_state(t, b, s, cs_fmt_abi(&t->fmt, sink_comm(t, ctx)));
  cs_jbuf_putc(b, '}');
  cs_tf_line_end(&t->file, start, to_ns(t, s->raw_ts));
}

void cs_trace_thread(cs_trace_sink *t, int32_t tid, const char *name,
                     uint64_t raw_ts) {
  cs_jbuf *b = &t->file.buf;
  size_t start = cs_tf_line_begin(&t->file);
  J("{\"recordType\":\"thread\",\"pid\":");
  cs_jbuf_i64(b, t->env.pid);
  J(",\"tid\":");
  cs_jbuf_i64(b, tid);
  J(",\"name\":");
  cs_jbuf_str(b, name);
  J(",\"ts\":");
  cs_jbuf_ns_as_us(b, to_ns(t, raw_ts));
  cs_jbuf_putc(b, '}');
  cs_tf_line_end(&t->file, start, to_ns(t, raw_ts));
}

/* The job rank the launcher gave this process: "globalRank" and the
 * variable it came from, "localRank", "worldSize" (each null, with a null
 * source, when no launcher variable says). */
static void put_launcher_rank(cs_jbuf *b, const cs_trace_env *env) {
  J(",\"globalRank\":");
  if (env->global_rank >= 0)
    cs_jbuf_i64(b, env->global_rank);
  else
    J("null");
  J(",\"globalRankSource\":");
  cs_jbuf_str(b, env->global_rank >= 0 ? env->global_rank_source : NULL);
  J(",\"localRank\":");
  if (env->local_rank >= 0)
    cs_jbuf_i64(b, env->local_rank);
  else
    J("null");
  J(",\"worldSize\":");
  if (env->world_size >= 0)
    cs_jbuf_i64(b, env->world_size);
  else
    J("null");
}

static void put_process_fields(cs_trace_sink *t, cs_jbuf *b) {
  const cs_trace_env *env = &t->env;
  char names[256];
  J("\"plugin\":\"cclscope\",\"pluginVersion\":\"" CCLSCOPE_VERSION
    "\",\"formatVersion\":2,\"hostname\":");
  cs_jbuf_str(b, env->hostname);
  J(",\"pid\":");
  cs_jbuf_i64(b, env->pid);
  J(",\"ppid\":");
  cs_jbuf_i64(b, env->ppid);
  J(",\"runId\":");
  cs_jbuf_str(b, env->run_id);
  J(",\"runIdSource\":");
  cs_jbuf_str(b, env->run_id_source);
  J(",\"handleTag\":");
  cs_jbuf_hex_str(b, env->handle_tag);
  J(",\"host\":\"");
  const char *host = cs_host_kind_name(env->host->kind);
  cs_jbuf_put(b, host, strlen(host));
  J("\",\"ncclVersion\":");
  cs_jbuf_str(b, env->host->version);
  J(",\"ncclVersionCode\":");
  cs_jbuf_i64(b, env->host->version_code);
  J(",\"clock\":");
  cs_jbuf_str(b, env->cal->kind == CS_CLOCK_COUNTER ? "counter" : "monotonic");
  J(",\"mode\":");
  cs_jbuf_str(b, env->mode_trace && env->mode_metrics ? "trace,metrics"
                 : env->mode_metrics                  ? "metrics"
                                                      : "trace");
  J(",\"eventMask\":");
  cs_jbuf_i64(b, env->mask);
  cs_config_mask_names(env->mask, names, sizeof names);
  J(",\"eventMaskNames\":");
  cs_jbuf_str(b, names);
  J(",\"eventMaskSource\":");
  cs_jbuf_str(b, env->mask_source);
  put_launcher_rank(b, env);
  J(",\"ringBytes\":");
  cs_jbuf_u64(b, env->ring_bytes);
  if (cs_tf_direct(&t->file))
    J(",\"directIo\":true");
  else
    J(",\"directIo\":false");
  if (cs_tf_compressed(&t->file)) {
    J(",\"compression\":\"zstd\",\"compressionLevel\":");
    cs_jbuf_i64(b, env->zstd_level);
  }
  if (cs_tf_binary(&t->file))
    J(",\"traceFormat\":\"binary\"");
  if (env->forked_child)
    J(",\"forkedChild\":true");
}

bool cs_trace_open(cs_trace_sink *t, const cs_trace_env *env) {
  char stem[512];
  memset(t, 0, sizeof *t);
  t->env = *env;
  t->last_flush_ns = (int64_t)cs_clock_monotonic_ns();
  t->fmt = (cs_fmt){
      .pid = env->pid,
      .rccl = env->host->kind == CS_HOST_RCCL,
      .default_abi = 6,
      .run_id = env->run_id,
      .hostname = env->hostname,
      .global_rank = env->global_rank,
  };
  cs_fmt_init(&t->fmt);
  cs_run_file_stem(stem, sizeof stem, "trace", env->run_id, env->file_rank,
                   env->hostname, env->pid, "");
  if (!cs_tf_open_as(&t->file, env->out_dir, stem, env->direct_io,
                     env->zstd_level, env->binary))
    return false;
  cs_jbuf *b = &t->file.buf;
  int64_t now = cs_clock_epoch_now(env->cal);
  size_t start = cs_tf_line_begin(&t->file);
  J("{\"recordType\":\"process\",");
  put_process_fields(t, b);
  J(",\"ts\":");
  cs_jbuf_ns_as_us(b, now);
  cs_jbuf_putc(b, '}');
  cs_tf_line_end(&t->file, start, now);
  /* The process record and the accounting record reach the file now. */
  if (!cs_tf_begin(&t->file, now)) { /* it said why */
    cs_tf_close(&t->file, now);
    return false;
  }
  return true;
}

static void put_lifecycle_head(cs_trace_sink *t, cs_jbuf *b, const char *func,
                               const cs_context *c, uint32_t serial,
                               uint64_t raw_ts, int32_t tid) {
  J("{\"recordType\":\"event\",\"type\":\"ProfilerLifecycle\",\"func\":");
  cs_jbuf_str(b, func);
  J(",\"ctx\":");
  cs_jbuf_u64(b, serial);
  J(",\"commId\":");
  if (c->has_comm_info)
    cs_jbuf_hex_str(b, c->comm_id);
  else
    J("null");
  J(",\"commName\":");
  cs_jbuf_str(b, c->has_comm_info ? c->comm_name : NULL);
  J(",\"rank\":");
  cs_jbuf_i64(b, c->has_comm_info ? c->rank : -1);
  J(",\"nranks\":");
  cs_jbuf_i64(b, c->has_comm_info ? c->nranks : -1);
  J(",\"nNodes\":");
  cs_jbuf_i64(b, c->has_comm_info ? c->nnodes : -1);
  J(",\"gpuUuid\":");
  cs_jbuf_str(b, c->gpu_uuid);
  J(",\"device\":");
  if (c->device >= 0)
    cs_jbuf_i64(b, c->device);
  else
    J("null");
  J(",\"start\":");
  put_endpoint(t, b, raw_ts, tid);
  J(",\"stop\":");
  put_endpoint(t, b, raw_ts, tid);
  J(",\"duration\":0.000");
}

void cs_trace_ctx_init(cs_trace_sink *t, uint32_t serial) {
  const cs_context *c = cs_ctx_get(serial);
  if (!c)
    return;
  t->fmt.default_abi = c->abi;
  cs_jbuf *b = &t->file.buf;
  char names[256];
  size_t start = cs_tf_line_begin(&t->file);
  put_lifecycle_head(t, b, "ProfilerInit", c, serial, c->init_raw_ts,
                     c->init_tid);
  J(",\"details\":{\"abi\":");
  cs_jbuf_i64(b, c->abi);
  J(",\"eventMask\":");
  cs_jbuf_i64(b, c->mask);
  cs_config_mask_names(c->mask, names, sizeof names);
  J(",\"eventMaskNames\":");
  cs_jbuf_str(b, names);
  J(",\"hostname\":");
  cs_jbuf_str(b, t->env.hostname);
  J(",\"pid\":");
  cs_jbuf_i64(b, t->env.pid);
  J(",\"ncclVersion\":");
  cs_jbuf_str(b, t->env.host->version);
  J(",\"host\":");
  cs_jbuf_str(b, cs_host_kind_name(t->env.host->kind));
  J(",\"pluginVersion\":\"" CCLSCOPE_VERSION "\"");
  if (c->inherited)
    J(",\"inheritedFromParent\":true");
  J("}}");
  cs_tf_line_end(&t->file, start, to_ns(t, c->init_raw_ts));
}

static void put_counters(cs_jbuf *b, const cs_trace_counters *c) {
  const cs_asm_counters *a = c->asm_counters;
  J("{\"eventsStarted\":");
  cs_jbuf_u64(b, a->starts + c->dropped_starts + a->live_cap_drops);
  J(",\"stopped\":");
  cs_jbuf_u64(b, a->ended[CS_END_STOPPED]);
  J(",\"reclaimed\":");
  cs_jbuf_u64(b, a->ended[CS_END_RECLAIMED]);
  J(",\"reclaimedByReason\":{");
  for (int r = 1; r < CS_RECLAIM_COUNT; r++) {
    if (r > 1)
      cs_jbuf_putc(b, ',');
    cs_jbuf_str(b, cs_reclaim_reason_name((cs_reclaim_reason)r));
    cs_jbuf_putc(b, ':');
    cs_jbuf_u64(b, a->reclaimed[r]);
  }
  J("},\"inflight\":");
  cs_jbuf_u64(b, a->ended[CS_END_INFLIGHT] + a->live_now);
  J(",\"droppedStarts\":");
  cs_jbuf_u64(b, c->dropped_starts + a->live_cap_drops);
  J(",\"droppedStates\":");
  cs_jbuf_u64(b, c->dropped_states);
  J(",\"droppedStops\":");
  cs_jbuf_u64(b, c->dropped_stops);
  J(",\"nullHandles\":");
  cs_jbuf_u64(b, c->null_handles);
  J(",\"foreignHandles\":");
  cs_jbuf_u64(b, c->foreign_handles);
  J(",\"sampledOut\":");
  cs_jbuf_u64(b, c->sampled_out);
  J(",\"tooSmall\":");
  cs_jbuf_u64(b, c->too_small);
  J(",\"doubleStops\":");
  cs_jbuf_u64(b, a->double_stops);
  J(",\"unmatchedStops\":");
  cs_jbuf_u64(b, a->unmatched_stops);
  J(",\"lateStates\":");
  cs_jbuf_u64(b, a->late_states);
  J(",\"orphanStates\":");
  cs_jbuf_u64(b, a->orphan_states);
  J(",\"parentsUnknown\":");
  cs_jbuf_u64(b, a->parents_unknown);
  J(",\"parentsDropped\":");
  cs_jbuf_u64(b, a->parents_dropped);
  J(",\"liveHighWater\":");
  cs_jbuf_u64(b, a->live_high_water);
  J(",\"ringHighWaterUnits\":");
  cs_jbuf_u64(b, c->ring_high_water);
  J(",\"ringsAllocatedInCallback\":");
  cs_jbuf_u64(b, c->ring_inline_allocs);
  J(",\"threads\":");
  cs_jbuf_u64(b, c->threads);
  cs_jbuf_putc(b, '}');
}

void cs_trace_ctx_finalize(cs_trace_sink *t, uint32_t serial, uint64_t raw_ts,
                           int32_t tid, const cs_trace_counters *c) {
  const cs_context *ctx = cs_ctx_get(serial);
  if (!ctx)
    return;
  cs_jbuf *b = &t->file.buf;
  size_t start = cs_tf_line_begin(&t->file);
  put_lifecycle_head(t, b, "ProfilerFinalize", ctx, serial, raw_ts, tid);
  J(",\"details\":{\"processCounters\":");
  put_counters(b, c);
  J("}}");
  cs_tf_line_end(&t->file, start, to_ns(t, raw_ts));
}

void cs_trace_mark(cs_trace_sink *t, uint64_t raw_ts, int32_t tid,
                   const char *kind, const char *label, int64_t step) {
  cs_jbuf *b = &t->file.buf;
  size_t start = cs_tf_line_begin(&t->file);
  J("{\"recordType\":\"mark\",\"ts\":");
  cs_jbuf_ns_as_us(b, to_ns(t, raw_ts));
  J(",\"pid\":");
  cs_jbuf_i64(b, t->env.pid);
  J(",\"tid\":");
  cs_jbuf_i64(b, tid);
  J(",\"kind\":");
  cs_jbuf_str(b, kind);
  if (label && label[0]) {
    J(",\"label\":");
    cs_jbuf_str(b, label);
  }
  if (step >= 0) {
    J(",\"step\":");
    cs_jbuf_i64(b, step);
  }
  cs_jbuf_putc(b, '}');
  cs_tf_line_end(&t->file, start, to_ns(t, raw_ts));
}

void cs_trace_process_end(cs_trace_sink *t, const char *reason,
                          const cs_trace_counters *c) {
  cs_jbuf *b = &t->file.buf;
  int64_t now = cs_clock_epoch_now(t->env.cal);
  cs_tf_sync(&t->file, now); /* every loss so far is counted below */
  size_t start = cs_tf_line_begin(&t->file);
  J("{\"recordType\":\"processEnd\",\"ts\":");
  cs_jbuf_ns_as_us(b, now);
  J(",\"pid\":");
  cs_jbuf_i64(b, t->env.pid);
  J(",\"reason\":");
  cs_jbuf_str(b, reason);
  J(",\"eventsWritten\":");
  cs_jbuf_u64(b, t->events_written);
  J(",\"linesLost\":");
  cs_jbuf_u64(b, t->file.lines_lost);
  J(",\"diskWaitMs\":");
  cs_jbuf_u64(b, t->file.disk_wait_ns / 1000000u);
  J(",\"diskWaits\":");
  cs_jbuf_u64(b, t->file.disk_waits);
  J(",\"counters\":");
  put_counters(b, c);
  cs_jbuf_putc(b, '}');
  cs_tf_line_end(&t->file, start, now);
  /* The same, for the accounting record, which a full disk cannot take
   * away with the processEnd line (written by cs_tf_close). */
  cs_acct_closing closing;
  memset(&closing, 0, sizeof closing);
  snprintf(closing.reason, sizeof closing.reason, "%s", reason);
  closing.events_written = t->events_written;
  closing.dropped_starts = c->dropped_starts + c->asm_counters->live_cap_drops;
  closing.dropped_states = c->dropped_states;
  closing.dropped_stops = c->dropped_stops;
  cs_tf_set_closing(&t->file, &closing);
}

void cs_trace_write_bulk(cs_trace_sink *t) {
  cs_tf_write_bulk(&t->file, cs_clock_epoch_now(t->env.cal));
}

void cs_trace_tick(cs_trace_sink *t, int64_t now_ns, bool force_flush) {
  int64_t flush_every_ns = (int64_t)(t->env.flush_interval_s * 1e9);
  if (force_flush ||
      (t->file.buf.len > 0 && now_ns - t->last_flush_ns >= flush_every_ns)) {
    cs_tf_flush(&t->file, cs_clock_epoch_now(t->env.cal));
    t->last_flush_ns = now_ns;
  } else if (cs_tf_bulk_due(&t->file)) {
    cs_trace_write_bulk(t);
  }
  cs_tf_account_if_due(&t->file, now_ns);
}

void cs_trace_sync(cs_trace_sink *t) {
  cs_tf_sync(&t->file, cs_clock_epoch_now(t->env.cal));
}

void cs_trace_sync_requested(cs_trace_sink *t) {
  cs_trace_sync(t);
  t->last_flush_ns = (int64_t)cs_clock_monotonic_ns();
}

void cs_trace_close(cs_trace_sink *t) {
  cs_tf_close(&t->file, cs_clock_epoch_now(t->env.cal));
  free(t->state_ns);
  t->state_ns = NULL;
  t->state_ns_cap = 0;
}

const char *cs_trace_path(const cs_trace_sink *t) {
  return t->file.path;
}

void cs_trace_atfork_prepare(cs_trace_sink *t) {
  cs_tf_atfork_prepare(&t->file);
}

void cs_trace_atfork_parent(cs_trace_sink *t) {
  cs_tf_atfork_parent(&t->file);
}

void cs_trace_abandon(cs_trace_sink *t) {
  cs_tf_abandon(&t->file);
  free(t->state_ns); /* this process's copy */
  t->state_ns = NULL;
  t->state_ns_cap = 0;
}
