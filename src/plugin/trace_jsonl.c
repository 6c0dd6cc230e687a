/*
 * src/plugin/trace_jsonl.c — formatting trace records (docs/trace-format.md).
 *
 * Key order is fixed so that readers (src/cli) can scan lines quickly.
 * Ids, hashes and addresses are hex strings; timestamps are Unix-epoch
 * microseconds with three decimals (nanosecond resolution).
 */
#include "trace_jsonl.h"

#include <stdio.h>
#include <string.h>

#include "config.h"
#include "context.h"
#include "event_types.h"
#include "handle.h"

#define J(lit) CS_JLIT(b, lit)

static int64_t to_ns(const cs_trace_sink *t, uint64_t raw) {
  return cs_clock_to_epoch_ns(t->env.cal, raw);
}

static void put_bool(cs_jbuf *b, bool v) {
  if (v)
    J("true");
  else
    J("false");
}

static void put_endpoint(cs_trace_sink *t, cs_jbuf *b, uint64_t raw,
                         int32_t tid) {
  J("{\"ts\":");
  cs_jbuf_ns_as_us(b, to_ns(t, raw));
  J(",\"pid\":");
  cs_jbuf_i64(b, t->env.pid);
  J(",\"tid\":");
  cs_jbuf_i64(b, tid);
  cs_jbuf_putc(b, '}');
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

static int abi_of(const cs_trace_sink *t, uint32_t ctx) {
  const cs_context *c = cs_ctx_get(ctx);
  return c ? c->abi : t->default_abi;
}

static const char *event_func(const cs_event *e) {
  switch (e->etype) {
  case CS_EV_COLL_API:
  case CS_EV_P2P_API:
    return e->p.coll_api.func;
  case CS_EV_COLL:
    return e->p.coll.func;
  case CS_EV_P2P:
    return e->p.p2p.func;
  case CS_EV_CE_COLL:
    return e->p.ce_coll.func;
  default:
    return NULL;
  }
}

/* ---- details, one writer per event type ---- */

static void details_coll_api(cs_jbuf *b, const cs_event *e) {
  const cs_p_coll_api *p = &e->p.coll_api;
  J("\"count\":");
  cs_jbuf_u64(b, p->count);
  J(",\"datatype\":");
  cs_jbuf_str(b, p->datatype);
  if (e->etype == CS_EV_COLL_API) {
    J(",\"root\":");
    cs_jbuf_i64(b, p->root);
  }
  J(",\"stream\":");
  cs_jbuf_hex_str(b, p->stream);
  J(",\"graphCaptured\":");
  put_bool(b, p->graph_captured);
  if (p->has_user_tag) {
    J(",\"userTag\":");
    cs_jbuf_hex_str(b, p->user_tag);
  }
}

static void details_coll(cs_jbuf *b, const cs_event *e) {
  const cs_p_coll *p = &e->p.coll;
  J("\"seqNumber\":");
  cs_jbuf_u64(b, p->seq);
  J(",\"count\":");
  cs_jbuf_u64(b, p->count);
  J(",\"datatype\":");
  cs_jbuf_str(b, p->datatype);
  J(",\"root\":");
  cs_jbuf_i64(b, p->root);
  J(",\"sendBuff\":");
  cs_jbuf_hex_str(b, p->send_buff);
  J(",\"recvBuff\":");
  cs_jbuf_hex_str(b, p->recv_buff);
  J(",\"nChannels\":");
  cs_jbuf_u64(b, p->n_channels);
  J(",\"nWarps\":");
  cs_jbuf_u64(b, p->n_warps);
  J(",\"algo\":");
  cs_jbuf_str(b, p->algo);
  J(",\"proto\":");
  cs_jbuf_str(b, p->proto);
  if (p->parent_group) {
    J(",\"parentGroupId\":");
    cs_jbuf_hex_str(b, p->parent_group);
  }
  if (p->has_kernel_variant) {
    J(",\"kernelVariant\":");
    cs_jbuf_str(b, p->kernel_variant);
    J(",\"isSymColl\":");
    put_bool(b, p->is_sym_coll);
  }
  if (p->has_user_tag) {
    J(",\"userTag\":");
    cs_jbuf_hex_str(b, p->user_tag);
  }
  if (p->comm_hash) {
    J(",\"commHash\":");
    cs_jbuf_hex_str(b, p->comm_hash);
  }
  if (p->traffic_bytes) {
    J(",\"trafficBytes\":");
    cs_jbuf_u64(b, p->traffic_bytes);
  }
  if (p->op || p->is_collnet || p->is_nvls) {
    J(",\"op\":");
    cs_jbuf_u64(b, p->op);
    J(",\"isCollnet\":");
    put_bool(b, p->is_collnet);
    J(",\"isNvls\":");
    put_bool(b, p->is_nvls);
  }
}

static void details_p2p(cs_jbuf *b, const cs_event *e) {
  const cs_p_p2p *p = &e->p.p2p;
  J("\"peer\":");
  cs_jbuf_i64(b, p->peer);
  J(",\"count\":");
  cs_jbuf_u64(b, p->count);
  J(",\"datatype\":");
  cs_jbuf_str(b, p->datatype);
  J(",\"buff\":");
  cs_jbuf_hex_str(b, p->buff);
  J(",\"nChannels\":");
  cs_jbuf_u64(b, p->n_channels);
  if (p->parent_group) {
    J(",\"parentGroupId\":");
    cs_jbuf_hex_str(b, p->parent_group);
  }
  if (p->has_user_tag) {
    J(",\"userTag\":");
    cs_jbuf_hex_str(b, p->user_tag);
  }
  if (p->comm_hash) {
    J(",\"commHash\":");
    cs_jbuf_hex_str(b, p->comm_hash);
  }
}

static void details_proxy_op(cs_jbuf *b, const cs_event *e) {
  const cs_p_proxy_op *p = &e->p.proxy_op;
  J("\"channelId\":");
  cs_jbuf_u64(b, p->channel_id);
  J(",\"peer\":");
  cs_jbuf_i64(b, p->peer);
  J(",\"nSteps\":");
  cs_jbuf_i64(b, p->n_steps);
  J(",\"chunkSize\":");
  cs_jbuf_i64(b, p->chunk_size);
  J(",\"isSend\":");
  put_bool(b, p->is_send != 0);
  J(",\"pid\":");
  cs_jbuf_i64(b, p->pid);
}

static void details_net(cs_jbuf *b, const cs_event *e) {
  const cs_p_net_plugin *p = &e->p.net_plugin;
  J("\"pluginId\":");
  cs_jbuf_hex_str(b, (uint64_t)p->plugin_id);
  J(",\"net\":");
  if (p->net_kind == CS_NET_IB)
    J("\"ib\"");
  else if (p->net_kind == CS_NET_SOCK)
    J("\"socket\"");
  else
    J("\"other\"");
  J(",\"version\":");
  cs_jbuf_u64(b, (uint64_t)p->plugin_id & 0xFFFFu);
  if (!p->has_descr)
    return;
  if (p->net_kind == CS_NET_IB) {
    J(",\"qp\":{\"device\":");
    cs_jbuf_i64(b, p->u.ib.device);
    J(",\"wrId\":");
    cs_jbuf_hex_str(b, p->u.ib.wr_id);
    J(",\"opcode\":");
    cs_jbuf_i64(b, p->u.ib.opcode);
    J(",\"qpNum\":");
    cs_jbuf_i64(b, p->u.ib.qp_num);
    J(",\"length\":");
    cs_jbuf_u64(b, p->u.ib.length);
    cs_jbuf_putc(b, '}');
  } else if (p->net_kind == CS_NET_SOCK) {
    J(",\"sock\":{\"fd\":");
    cs_jbuf_i64(b, p->u.sock.fd);
    J(",\"op\":");
    cs_jbuf_i64(b, p->u.sock.op);
    J(",\"length\":");
    cs_jbuf_u64(b, p->u.sock.length);
    cs_jbuf_putc(b, '}');
  }
}

static void details_ce_coll(cs_jbuf *b, const cs_event *e) {
  const cs_p_ce_coll *p = &e->p.ce_coll;
  J("\"seqNumber\":");
  cs_jbuf_u64(b, p->seq);
  J(",\"count\":");
  cs_jbuf_u64(b, p->count);
  J(",\"datatype\":");
  cs_jbuf_str(b, p->datatype);
  J(",\"root\":");
  cs_jbuf_i64(b, p->root);
  J(",\"sendBuff\":");
  cs_jbuf_hex_str(b, p->send_buff);
  J(",\"recvBuff\":");
  cs_jbuf_hex_str(b, p->recv_buff);
  J(",\"syncStrategy\":");
  cs_jbuf_str(b, p->sync_strategy);
  J(",\"intraBatchSync\":");
  put_bool(b, p->intra_batch_sync);
  J(",\"batchSize\":");
  cs_jbuf_u64(b, p->batch_size);
  J(",\"numBatches\":");
  cs_jbuf_u64(b, p->num_batches);
  J(",\"ceSeqNum\":");
  cs_jbuf_u64(b, p->ce_seq_num);
  J(",\"stream\":");
  cs_jbuf_hex_str(b, p->stream);
  if (p->has_user_tag) {
    J(",\"userTag\":");
    cs_jbuf_hex_str(b, p->user_tag);
  }
}

static void put_details(cs_jbuf *b, const cs_event *e) {
  J("\"details\":{");
  switch (e->etype) {
  case CS_EV_GROUP_API:
    J("\"groupDepth\":");
    cs_jbuf_i64(b, e->p.group_api.group_depth);
    J(",\"graphCaptured\":");
    put_bool(b, e->p.group_api.graph_captured);
    break;
  case CS_EV_COLL_API:
  case CS_EV_P2P_API:
    details_coll_api(b, e);
    break;
  case CS_EV_KERNEL_LAUNCH:
    J("\"stream\":");
    cs_jbuf_hex_str(b, e->p.kernel_launch.stream);
    break;
  case CS_EV_COLL:
    details_coll(b, e);
    break;
  case CS_EV_P2P:
    details_p2p(b, e);
    break;
  case CS_EV_PROXY_OP:
    details_proxy_op(b, e);
    break;
  case CS_EV_PROXY_STEP:
    J("\"step\":");
    cs_jbuf_i64(b, e->p.proxy_step.step);
    if (e->has_link) {
      J(",\"peer\":");
      cs_jbuf_i64(b, e->link.peer);
      J(",\"channelId\":");
      cs_jbuf_u64(b, e->link.channel_id);
      J(",\"isSend\":");
      put_bool(b, e->link.is_send);
    }
    break;
  case CS_EV_KERNEL_CH:
    J("\"channelId\":");
    cs_jbuf_u64(b, e->p.kernel_ch.channel_id);
    if (e->p.kernel_ch.has_ptimer) {
      J(",\"pTimer\":");
      cs_jbuf_u64(b, e->p.kernel_ch.ptimer);
    }
    break;
  case CS_EV_NET_PLUGIN:
    details_net(b, e);
    break;
  case CS_EV_CE_COLL:
    details_ce_coll(b, e);
    break;
  case CS_EV_CE_SYNC:
    J("\"isComplete\":");
    put_bool(b, e->p.ce_sync.is_complete);
    J(",\"nRanks\":");
    cs_jbuf_i64(b, e->p.ce_sync.n_ranks);
    break;
  case CS_EV_CE_BATCH:
    J("\"numOps\":");
    cs_jbuf_i64(b, e->p.ce_batch.num_ops);
    J(",\"totalBytes\":");
    cs_jbuf_u64(b, e->p.ce_batch.total_bytes);
    J(",\"useIntraSync\":");
    put_bool(b, e->p.ce_batch.use_intra_sync);
    break;
  case CS_EV_KERNEL_PHASE:
    J("\"channelId\":");
    cs_jbuf_u64(b, e->p.kernel_phase.channel_id);
    J(",\"phaseId\":");
    cs_jbuf_u64(b, e->p.kernel_phase.phase_id);
    J(",\"phaseName\":");
    cs_jbuf_str(b, e->p.kernel_phase.phase_name);
    J(",\"pTimer\":");
    cs_jbuf_u64(b, e->p.kernel_phase.ptimer);
    break;
  case CS_EV_UNKNOWN:
    J("\"typeValue\":");
    cs_jbuf_u64(b, e->p.unknown.raw_type);
    break;
  default:
    break; /* Group, ProxyCtrl: no fields */
  }
  cs_jbuf_putc(b, '}');
}

/* ---- states ---- */

static void put_state(cs_trace_sink *t, cs_jbuf *b, const cs_state_rec *s,
                      int abi) {
  const char *name =
      cs_state_name((int)s->state, abi, t->env.host->kind == CS_HOST_RCCL);
  J("{\"name\":");
  cs_jbuf_str(b, name ? name : "unknown");
  J(",\"id\":");
  cs_jbuf_u64(b, s->state);
  J(",\"ts\":");
  cs_jbuf_ns_as_us(b, to_ns(t, s->raw_ts));
  switch (s->state) {
  case 9:  /* SendWait: bytes posted */
  case 11: /* RecvFlushWait: bytes received */
    J(",\"transSize\":");
    cs_jbuf_u64(b, s->arg);
    break;
  case 18: /* ProxyCtrlAppendEnd */
    J(",\"appendedProxyOps\":");
    cs_jbuf_i64(b, (int32_t)(uint32_t)s->arg);
    break;
  case 22: /* KernelChStop */
    J(",\"pTimer\":");
    cs_jbuf_u64(b, s->arg);
    break;
  case 31:
    if (abi >= 7 && t->env.host->kind != CS_HOST_RCCL) {
      J(",\"pTimer\":");
      cs_jbuf_u64(b, s->arg);
    }
    break;
  default:
    break;
  }
  if (s->repeat > 1) {
    J(",\"count\":");
    cs_jbuf_u64(b, s->repeat);
    J(",\"lastTs\":");
    cs_jbuf_ns_as_us(b, to_ns(t, s->last_raw_ts));
  }
  cs_jbuf_putc(b, '}');
}

/* ---- parents ---- */

static void put_parent(cs_jbuf *b, const cs_event *e) {
  J("\"parentId\":");
  switch (e->parent_kind) {
  case CS_PARENT_LOCAL:
    if (e->parent_hint) {
      J("null,\"parentStatus\":\"unknown\",\"parentHint\":");
      cs_jbuf_hex_str(b, e->parent);
    } else {
      cs_jbuf_hex_str(b, e->parent);
    }
    break;
  case CS_PARENT_FOREIGN:
    J("null,\"parentStatus\":\"foreign\",\"parentRaw\":");
    cs_jbuf_hex_str(b, e->parent);
    break;
  case CS_PARENT_UNKNOWN:
    J("null,\"parentStatus\":\"unknown\",\"parentRaw\":");
    cs_jbuf_hex_str(b, e->parent);
    break;
  default:
    J("null");
    break;
  }
}

/* ---- records ---- */

void cs_trace_event(cs_trace_sink *t, const cs_event *e) {
  cs_jbuf *b = &t->file.buf;
  int64_t now = 0;
  size_t start = cs_tf_line_begin(&t->file);
  J("{\"recordType\":\"event\",\"type\":\"");
  const char *tname = cs_etype_json_name((cs_etype)e->etype);
  cs_jbuf_put(b, tname, strlen(tname));
  J("\",\"id\":");
  cs_jbuf_hex_str(b, e->id);
  cs_jbuf_putc(b, ',');
  put_parent(b, e);
  cs_jbuf_putc(b, ',');
  put_comm(b, e->ctx);
  J(",\"rank\":");
  cs_jbuf_i64(b, e->rank);
  if (e->foreign_owner) {
    J(",\"isPxn\":true,\"originPid\":");
    cs_jbuf_i64(b, e->origin_pid);
  }
  const char *func = event_func(e);
  if (func) {
    J(",\"func\":");
    cs_jbuf_str(b, func);
  }
  J(",\"start\":");
  put_endpoint(t, b, e->start_raw, e->start_tid);
  if (e->end == CS_END_STOPPED) {
    J(",\"stop\":");
    put_endpoint(t, b, e->stop_raw, e->stop_tid);
    J(",\"duration\":");
    cs_jbuf_ns_as_us(b, to_ns(t, e->stop_raw) - to_ns(t, e->start_raw));
    J(",\"end\":\"stopped\"");
  } else {
    J(",\"stop\":null,\"duration\":null,\"end\":");
    if (e->end == CS_END_RECLAIMED) {
      J("\"reclaimed\",\"reclaimReason\":\"");
      const char *why = cs_reclaim_reason_name((cs_reclaim_reason)e->reclaim);
      cs_jbuf_put(b, why, strlen(why));
      cs_jbuf_putc(b, '"');
    } else {
      J("\"inflight\"");
    }
    J(",\"endTs\":");
    cs_jbuf_ns_as_us(b, to_ns(t, e->end_raw));
  }
  cs_jbuf_putc(b, ',');
  put_details(b, e);
  if (e->nstates) {
    int abi = abi_of(t, e->ctx);
    J(",\"states\":[");
    for (uint32_t i = 0; i < e->nstates; i++) {
      if (i)
        cs_jbuf_putc(b, ',');
      put_state(t, b, &e->states[i], abi);
    }
    cs_jbuf_putc(b, ']');
  }
  cs_jbuf_putc(b, '}');
  now = to_ns(t, e->end == CS_END_STOPPED ? e->stop_raw : e->end_raw);
  cs_tf_line_end(&t->file, start, now);
  t->events_written++;
}

void cs_trace_late_state(cs_trace_sink *t, uint64_t id,
                         const cs_state_rec *s, int32_t tid, uint8_t etype,
                         uint32_t ctx, int32_t rank) {
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
  put_state(t, b, s, abi_of(t, ctx));
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

static void put_process_fields(cs_trace_sink *t, cs_jbuf *b) {
  const cs_trace_env *env = &t->env;
  char names[256];
  J("\"plugin\":\"cclscope\",\"pluginVersion\":\"" CCLSCOPE_VERSION
    "\",\"formatVersion\":1,\"hostname\":");
  cs_jbuf_str(b, env->hostname);
  J(",\"pid\":");
  cs_jbuf_i64(b, env->pid);
  J(",\"ppid\":");
  cs_jbuf_i64(b, env->ppid);
  J(",\"runId\":");
  cs_jbuf_str(b, env->run_id);
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
  J(",\"ringBytes\":");
  cs_jbuf_u64(b, env->ring_bytes);
  if (env->forked_child)
    J(",\"forkedChild\":true");
}

bool cs_trace_open(cs_trace_sink *t, const cs_trace_env *env) {
  char stem[512];
  memset(t, 0, sizeof *t);
  t->env = *env;
  t->default_abi = 6;
  snprintf(stem, sizeof stem, "trace_%s_%s_pid%d", env->run_id, env->hostname,
           (int)env->pid);
  if (!cs_tf_open(&t->file, env->dir, stem))
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
  t->default_abi = c->abi;
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
  J(",\"liveHighWater\":");
  cs_jbuf_u64(b, a->live_high_water);
  J(",\"ringHighWaterUnits\":");
  cs_jbuf_u64(b, c->ring_high_water);
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
                   const char *label, int64_t step) {
  cs_jbuf *b = &t->file.buf;
  size_t start = cs_tf_line_begin(&t->file);
  J("{\"recordType\":\"mark\",\"ts\":");
  cs_jbuf_ns_as_us(b, to_ns(t, raw_ts));
  J(",\"pid\":");
  cs_jbuf_i64(b, t->env.pid);
  J(",\"tid\":");
  cs_jbuf_i64(b, tid);
  J(",\"label\":");
  cs_jbuf_str(b, label);
  J(",\"step\":");
  cs_jbuf_i64(b, step);
  cs_jbuf_putc(b, '}');
  cs_tf_line_end(&t->file, start, to_ns(t, raw_ts));
}

void cs_trace_process_end(cs_trace_sink *t, const char *reason,
                          const cs_trace_counters *c) {
  cs_jbuf *b = &t->file.buf;
  int64_t now = cs_clock_epoch_now(t->env.cal);
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
  J(",\"counters\":");
  put_counters(b, c);
  cs_jbuf_putc(b, '}');
  cs_tf_line_end(&t->file, start, now);
}

void cs_trace_flush(cs_trace_sink *t) {
  cs_tf_flush(&t->file, cs_clock_epoch_now(t->env.cal));
}

void cs_trace_close(cs_trace_sink *t) {
  cs_tf_close(&t->file, cs_clock_epoch_now(t->env.cal));
}
