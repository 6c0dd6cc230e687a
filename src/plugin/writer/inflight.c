/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/writer/inflight.c — writing the in-flight snapshot (see
 * inflight.h). The text is built in memory, written to a temporary file and
 * renamed over the previous snapshot, so a reader never sees half a file; both
 * are made in the output folder opened once by the writer (out_dir.h), so a
 * link planted at either name is never written through.
 */
#include "inflight.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "context.h"
#include "event_types.h"
#include "json_writer.h"
#include "log.h"
#include "out_dir.h"
#include "run_name.h"
#include "watchdog_verdict.h"

#define MAX_EVENTS_PER_OPERATION 64

#define J(lit) CS_JLIT(b, lit)

static void inflight_name(const cs_trace_env *env, char *out, size_t outlen) {
  cs_run_file_stem(out, outlen, "inflight", env->run_id, env->file_rank,
                   env->hostname, env->pid, ".json");
}

void cs_inflight_path(const cs_trace_env *env, char *out, size_t outlen) {
  char name[NAME_MAX + 1];
  inflight_name(env, name, sizeof name);
  snprintf(out, outlen, "%s/%s", env->dir, name);
}

static void put_comm(cs_jbuf *b, uint32_t ctx) {
  const cs_context *c = cs_ctx_get(ctx);
  J("\"ctx\":");
  if (!c) {
    J("null,\"commId\":null");
    return;
  }
  cs_jbuf_u64(b, ctx);
  J(",\"commId\":");
  if (c->has_comm_info)
    cs_jbuf_hex_str(b, c->comm_id);
  else
    J("null");
}

static void put_direction(cs_jbuf *b, bool is_send) {
  if (is_send)
    J("\"send\"");
  else
    J("\"recv\"");
}

static void put_seconds(cs_jbuf *b, int64_t ns) {
  cs_jbuf_double(b, (double)ns / 1e9);
}

static void put_communicators(cs_jbuf *b, const cs_wd_picture *pic) {
  J("\"communicators\":[");
  bool first = true;
  for (uint32_t i = 0; i < CS_MAX_CONTEXTS; i++) {
    const cs_context *c = &cs_contexts[i];
    uint32_t serial = atomic_load(&c->serial);
    if (!serial)
      continue;
    if (!first)
      cs_jbuf_putc(b, ',');
    first = false;
    cs_jbuf_putc(b, '{');
    put_comm(b, serial);
    J(",\"commName\":");
    cs_jbuf_str(b, c->comm_name);
    J(",\"rank\":");
    cs_jbuf_i64(b, c->has_comm_info ? c->rank : -1);
    J(",\"nranks\":");
    cs_jbuf_i64(b, c->has_comm_info ? c->nranks : 0);
    J(",\"finalized\":");
    if (atomic_load(&c->state) == CS_CTX_FINALIZED)
      J("true");
    else
      J("false");
    J(",\"progress\":[");
    bool pfirst = true;
    for (size_t k = 0; k < pic->nprogress; k++) {
      const cs_wd_progress *p = &pic->progress[k];
      if (p->ctx != serial)
        continue;
      if (!pfirst)
        cs_jbuf_putc(b, ',');
      pfirst = false;
      J("{\"func\":");
      cs_jbuf_str(b, p->func);
      J(",\"started\":");
      cs_jbuf_u64(b, p->started);
      J(",\"finished\":");
      cs_jbuf_u64(b, p->finished);
      if (p->has_seq) {
        J(",\"lastStartedSeq\":");
        cs_jbuf_u64(b, p->last_started_seq);
        J(",\"lastFinishedSeq\":");
        if (p->any_finished)
          cs_jbuf_u64(b, p->last_finished_seq);
        else
          J("null");
      }
      cs_jbuf_putc(b, '}');
    }
    J("]}");
  }
  cs_jbuf_putc(b, ']');
}

static void put_event(cs_jbuf *b, const cs_event *e, const cs_clock_cal *cal,
                      int64_t now_ns) {
  J("{\"id\":");
  cs_jbuf_hex_str(b, e->id);
  J(",\"type\":");
  cs_jbuf_str(b, cs_etype_json_name((cs_etype)e->etype));
  J(",\"start\":");
  cs_jbuf_ns_as_us(b, cs_clock_to_epoch_ns(cal, e->start_raw));
  J(",\"lastProgress\":");
  cs_jbuf_ns_as_us(b, cs_clock_to_epoch_ns(cal, e->activity_raw));
  J(",\"idle\":");
  put_seconds(b, now_ns - cs_clock_to_epoch_ns(cal, e->activity_raw));
  switch (e->etype) {
  case CS_EV_PROXY_STEP:
  case CS_EV_NET_PLUGIN:
    if (e->etype == CS_EV_PROXY_STEP) {
      J(",\"step\":");
      cs_jbuf_i64(b, e->p.proxy_step.step);
    }
    if (e->has_link) {
      J(",\"channel\":");
      cs_jbuf_u64(b, e->link.channel_id);
      J(",\"peer\":");
      cs_jbuf_i64(b, e->link.peer);
      J(",\"direction\":");
      put_direction(b, e->link.is_send);
    }
    break;
  case CS_EV_PROXY_OP:
    J(",\"channel\":");
    cs_jbuf_u64(b, e->p.proxy_op.channel_id);
    J(",\"peer\":");
    cs_jbuf_i64(b, e->p.proxy_op.peer);
    J(",\"direction\":");
    put_direction(b, e->p.proxy_op.is_send != 0);
    J(",\"nSteps\":");
    cs_jbuf_i64(b, e->p.proxy_op.n_steps);
    if (e->foreign_owner) {
      J(",\"originPid\":");
      cs_jbuf_i64(b, e->origin_pid);
    }
    break;
  case CS_EV_KERNEL_CH:
    J(",\"channel\":");
    cs_jbuf_u64(b, e->p.kernel_ch.channel_id);
    break;
  case CS_EV_KERNEL_PHASE:
    J(",\"channel\":");
    cs_jbuf_u64(b, e->p.kernel_phase.channel_id);
    break;
  default:
    break;
  }
  const char *state = cs_watchdog_last_state(e);
  if (state) {
    J(",\"state\":");
    cs_jbuf_str(b, state);
  }
  cs_jbuf_putc(b, '}');
}

static void put_operation(cs_jbuf *b, const cs_wd_picture *pic,
                          const cs_wd_root *r, const cs_clock_cal *cal) {
  const cs_wd_op *op = r->op;
  const cs_event *first = pic->events[r->first_event];
  J("{\"id\":");
  cs_jbuf_hex_str(b, r->root_id);
  J(",\"type\":");
  cs_jbuf_str(b, cs_etype_json_name((cs_etype)(op ? op->etype
                                                  : (r->root_id == first->id
                                                         ? first->etype
                                                         : CS_EV_PROXY_OP))));
  cs_jbuf_putc(b, ',');
  put_comm(b, op ? op->ctx : first->ctx);
  J(",\"rank\":");
  cs_jbuf_i64(b, op ? op->rank : first->rank);
  if (op) {
    J(",\"func\":");
    cs_jbuf_str(b, op->func);
    if (op->has_seq) {
      J(",\"seqNumber\":");
      cs_jbuf_u64(b, op->seq);
    }
    if (op->etype == CS_EV_P2P) {
      J(",\"peer\":");
      cs_jbuf_i64(b, op->peer);
    }
    J(",\"count\":");
    cs_jbuf_u64(b, op->count);
    J(",\"datatype\":");
    cs_jbuf_str(b, op->datatype);
    if (op->etype != CS_EV_P2P) {
      J(",\"root\":");
      cs_jbuf_i64(b, op->root);
    }
  } else if (first->foreign_owner) {
    J(",\"originPid\":");
    cs_jbuf_i64(b, first->origin_pid);
  }
  if (r->counts) {
    J(",\"start\":");
    cs_jbuf_ns_as_us(b, r->first_start_ns);
    J(",\"lastProgress\":");
    cs_jbuf_ns_as_us(b, r->last_activity_ns);
    J(",\"age\":");
    put_seconds(b, pic->now_ns - r->first_start_ns);
    J(",\"idle\":");
    put_seconds(b, pic->now_ns - r->last_activity_ns);
  }
  J(",\"hung\":");
  if (r->hung)
    J("true");
  else
    J("false");
  if (r->waiting) {
    char text[256];
    cs_watchdog_describe_wait(r->waiting, cal, pic->now_ns, text, sizeof text);
    J(",\"waiting\":");
    cs_jbuf_str(b, text);
    J(",\"waitingEvent\":");
    put_event(b, r->waiting, cal, pic->now_ns);
  }
  cs_wd_verdict verdict;
  cs_wd_verdict_of(pic, r, &verdict);
  const char *verdict_class = cs_wd_verdict_class(&verdict);
  if (r->hung && verdict_class) {
    char text[320];
    cs_wd_verdict_text(&verdict, text, sizeof text);
    J(",\"localVerdict\":{\"class\":");
    cs_jbuf_str(b, verdict_class);
    J(",\"rank\":");
    cs_jbuf_i64(b, verdict.suspect);
    J(",\"text\":");
    cs_jbuf_str(b, text);
    cs_jbuf_putc(b, '}');
  }
  J(",\"eventsInFlight\":");
  cs_jbuf_u64(b, r->nevents);
  J(",\"events\":[");
  size_t n = r->nevents < MAX_EVENTS_PER_OPERATION ? r->nevents
                                                   : MAX_EVENTS_PER_OPERATION;
  for (size_t i = 0; i < n; i++) {
    if (i)
      cs_jbuf_putc(b, ',');
    put_event(b, pic->events[r->first_event + i], cal, pic->now_ns);
  }
  J("]}");
}

bool cs_inflight_write(const cs_trace_env *env, const cs_wd_picture *pic,
                       const char *reason) {
  if (!cs_out_dir_open(env->out_dir))
    return false; /* it said why, once */
  cs_jbuf buf, *b = &buf;
  cs_jbuf_init(b);
  J("{\"recordType\":\"inflight\",\"formatVersion\":1,\"reason\":");
  cs_jbuf_str(b, reason);
  J(",\"hostname\":");
  cs_jbuf_str(b, env->hostname);
  J(",\"pid\":");
  cs_jbuf_i64(b, env->pid);
  J(",\"runId\":");
  cs_jbuf_str(b, env->run_id);
  J(",\"ts\":");
  cs_jbuf_ns_as_us(b, pic->now_ns);
  J(",\"hangTimeout\":");
  cs_jbuf_double(b, pic->timeout_s);
  cs_jbuf_putc(b, ',');
  put_communicators(b, pic);
  J(",\"operations\":[");
  for (size_t i = 0; i < pic->nroots; i++) {
    if (i)
      cs_jbuf_putc(b, ',');
    put_operation(b, pic, &pic->roots[i], env->cal);
  }
  J("]}\n");
  char name[NAME_MAX + 1];
  inflight_name(env, name, sizeof name);
  bool ok =
      !b->failed && cs_out_dir_replace(env->out_dir, name, b->data, b->len);
  if (!ok) {
    int err = errno;
    char path[PATH_MAX];
    cs_inflight_path(env, path, sizeof path);
    cs_log_warn_once(CS_ONCE_WRITE, "cannot write the snapshot '%s' (%s)", path,
                     strerror(err));
  }
  cs_jbuf_free(b);
  return ok;
}
