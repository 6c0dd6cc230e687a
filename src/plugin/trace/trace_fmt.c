/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/trace/trace_fmt.c — event and timing lines from a formatting
 * context (see trace_fmt.h; the format: docs/trace-format.md).
 *
 * Key order is fixed so that readers (src/cli) can scan lines quickly.
 * Ids, hashes and addresses are hex strings; timestamps are Unix-epoch
 * microseconds with three decimals (nanosecond resolution), except in
 * timing records, which (format version 2) carry integer nanoseconds under
 * keys ending in "Ns" and the writer's identity, so that one flat schema
 * reads them in place.
 */
#include "trace_fmt.h"

#include <stdio.h>
#include <string.h>

/* Once per event or state at least, so inlined (a call and its saved
 * registers cost about as much as the work); their rare misses are not. */
#define FMT_INLINE static inline __attribute__((always_inline))

/* Format the ,"pid":P,"tid":T} piece of `tid` into its slot. */
static __attribute__((noinline)) void tid_piece_fill(cs_fmt *f, cs_tid_piece *e,
                                                     int32_t tid) {
  memset(e->text, 0, sizeof e->text);
  int n = snprintf(e->text, sizeof e->text, ",\"pid\":%d,\"tid\":%d}",
                   (int)f->pid, (int)tid);
  e->tid = tid;
  e->len = (uint8_t)(n > 0 && n < (int)sizeof e->text ? n : 0);
}

/* ,"pid":P,"tid":T} for this thread, formatted once (fixed 48-byte slot so
 * the cursor can copy it without a call). */
FMT_INLINE const cs_tid_piece *tid_piece(cs_fmt *f, int32_t tid) {
  cs_tid_piece *e = &f->pieces.tids[(uint32_t)tid % CS_TRACE_TID_CACHE];
  if (e->tid != tid || e->len == 0)
    tid_piece_fill(f, e, tid);
  return e;
}

/* {"ts":…,"pid":P,"tid":T} of an event's start or stop, `ns` converted by
 * the caller (who needs it for the duration too). */
FMT_INLINE char *cur_endpoint(cs_fmt *f, char *p, int64_t ns, int32_t tid) {
  p = CS_CUR_LIT(p, "{\"ts\":");
  p = cs_cur_epoch_us(p, ns, &f->pieces.ts);
  const cs_tid_piece *piece = tid_piece(f, tid);
  memcpy(p, piece->text, sizeof piece->text);
  return p + piece->len;
}

/* Format the "ctx":N,"commId":"0x…" piece of context `ctx` into its slot. */
static __attribute__((noinline)) void
ctx_piece_fill(cs_ctx_piece *e, uint32_t ctx, const cs_fmt_comm *c) {
  memset(e->text, 0, sizeof e->text);
  int n = c->has_comm_info ? snprintf(e->text, sizeof e->text,
                                      "\"ctx\":%u,\"commId\":\"0x%llx\"", ctx,
                                      (unsigned long long)c->comm_id)
                           : snprintf(e->text, sizeof e->text,
                                      "\"ctx\":%u,\"commId\":null", ctx);
  e->ctx = ctx;
  e->len = (uint8_t)(n > 0 && n < (int)sizeof e->text ? n : 0);
  const char *comm_id = strstr(e->text, ",\"commId\"");
  e->comm_id_at = (uint8_t)(comm_id ? comm_id + 1 - e->text : 0);
}

/* Member `key` begins at `at` (the members a reader asked for; NULL: none,
 * and then, inlined, nothing is done). */
FMT_INLINE void member(cs_fmt_members *m, cs_fmt_key key, const char *at) {
  if (m) {
    m->key[m->n] = (uint8_t)key;
    m->at[m->n++] = (uint32_t)(at - m->line);
  }
}

/* The string member just written at [at, end) from `s` has an escape in
 * it: its text is longer than the string and its quotes. */
FMT_INLINE void string_member_escaped(cs_fmt_members *m, const char *s,
                                      const char *at, const char *end) {
  if (m && s && (size_t)(end - at) != strlen(s) + 2)
    m->escaped |= 1u << (m->n - 1);
}

/* "ctx":N,"commId":"0x…" for a context, formatted once. Serials are never
 * reused within a session, so a cached piece stays right. */
FMT_INLINE char *cur_comm(cs_fmt *f, char *p, uint32_t ctx,
                          const cs_fmt_comm *c, cs_fmt_members *m) {
  member(m, CS_FK_CTX, p);
  if (!c) {
    member(m, CS_FK_COMM_ID, p + sizeof "\"ctx\":null," - 1);
    return CS_CUR_LIT(p, "\"ctx\":null,\"commId\":null");
  }
  cs_ctx_piece *e = &f->pieces.ctxs[ctx % CS_TRACE_CTX_CACHE];
  if (e->ctx != ctx)
    ctx_piece_fill(e, ctx, c);
  member(m, CS_FK_COMM_ID, p + e->comm_id_at);
  memcpy(p, e->text, sizeof e->text);
  return p + e->len;
}

static size_t identity_max(const cs_fmt *f);
static char *cur_identity(const cs_fmt *f, char *p);

void cs_fmt_init(cs_fmt *f) {
  cs_fmt_pieces *p = &f->pieces;
  memset(p, 0, sizeof *p);
  p->ts.sec_start = -1;
  for (int e = 0; e < CS_EV_COUNT; e++) {
    int n = snprintf(p->event_head[e], sizeof p->event_head[e],
                     "{\"recordType\":\"event\",\"type\":\"%s\",\"id\":",
                     cs_etype_json_name((cs_etype)e));
    p->event_head_len[e] = (uint8_t)n;
  }
  for (int st = 0; st < 31; st++) {
    const char *name = cs_state_name(st, 6, 0);
    int n = snprintf(
        p->state_head[st], sizeof p->state_head[st],
        "{\"name\":\"%s\",\"id\":%d,\"ts\":", name ? name : "unknown", st);
    p->state_head_len[st] = (uint8_t)n;
  }
  /* The identity of timing records, when it fits the cache (an absurdly
   * long run id or host name is written on the fly). */
  if (identity_max(f) <= sizeof p->identity)
    p->identity_len = (uint16_t)(cur_identity(f, p->identity) - p->identity);
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

/* ---- details, one writer per event type (cursor style) ---- */

static char *details_coll_api(char *p, const cs_event *e) {
  const cs_p_coll_api *c = &e->p.coll_api;
  p = CS_CUR_LIT(p, "\"count\":");
  p = cs_cur_u64(p, c->count);
  p = CS_CUR_LIT(p, ",\"datatype\":");
  p = cs_cur_str(p, c->datatype);
  if (e->etype == CS_EV_COLL_API) {
    p = CS_CUR_LIT(p, ",\"root\":");
    p = cs_cur_i64(p, c->root);
  }
  p = CS_CUR_LIT(p, ",\"stream\":");
  p = cs_cur_hex(p, c->stream);
  p = CS_CUR_LIT(p, ",\"graphCaptured\":");
  p = cs_cur_bool(p, c->graph_captured);
  if (c->has_user_tag) {
    p = CS_CUR_LIT(p, ",\"userTag\":");
    p = cs_cur_hex(p, c->user_tag);
  }
  return p;
}

static char *details_coll(char *p, const cs_event *e) {
  const cs_p_coll *c = &e->p.coll;
  p = CS_CUR_LIT(p, "\"seqNumber\":");
  p = cs_cur_u64(p, c->seq);
  p = CS_CUR_LIT(p, ",\"count\":");
  p = cs_cur_u64(p, c->count);
  p = CS_CUR_LIT(p, ",\"datatype\":");
  p = cs_cur_str(p, c->datatype);
  p = CS_CUR_LIT(p, ",\"root\":");
  p = cs_cur_i64(p, c->root);
  p = CS_CUR_LIT(p, ",\"sendBuff\":");
  p = cs_cur_hex(p, c->send_buff);
  p = CS_CUR_LIT(p, ",\"recvBuff\":");
  p = cs_cur_hex(p, c->recv_buff);
  p = CS_CUR_LIT(p, ",\"nChannels\":");
  p = cs_cur_u64(p, c->n_channels);
  p = CS_CUR_LIT(p, ",\"nWarps\":");
  p = cs_cur_u64(p, c->n_warps);
  p = CS_CUR_LIT(p, ",\"algo\":");
  p = cs_cur_str(p, c->algo);
  p = CS_CUR_LIT(p, ",\"proto\":");
  p = cs_cur_str(p, c->proto);
  if (c->parent_group) {
    p = CS_CUR_LIT(p, ",\"parentGroupId\":");
    p = cs_cur_hex(p, c->parent_group);
  }
  if (c->has_kernel_variant) {
    p = CS_CUR_LIT(p, ",\"kernelVariant\":");
    p = cs_cur_str(p, c->kernel_variant);
    p = CS_CUR_LIT(p, ",\"isSymColl\":");
    p = cs_cur_bool(p, c->is_sym_coll);
  }
  if (c->has_user_tag) {
    p = CS_CUR_LIT(p, ",\"userTag\":");
    p = cs_cur_hex(p, c->user_tag);
  }
  if (c->comm_hash) {
    p = CS_CUR_LIT(p, ",\"commHash\":");
    p = cs_cur_hex(p, c->comm_hash);
  }
  if (c->traffic_bytes) {
    p = CS_CUR_LIT(p, ",\"trafficBytes\":");
    p = cs_cur_u64(p, c->traffic_bytes);
  }
  if (c->op || c->is_collnet || c->is_nvls) {
    p = CS_CUR_LIT(p, ",\"op\":");
    p = cs_cur_u64(p, c->op);
    p = CS_CUR_LIT(p, ",\"isCollnet\":");
    p = cs_cur_bool(p, c->is_collnet);
    p = CS_CUR_LIT(p, ",\"isNvls\":");
    p = cs_cur_bool(p, c->is_nvls);
  }
  return p;
}

static char *details_p2p(char *p, const cs_event *e) {
  const cs_p_p2p *c = &e->p.p2p;
  p = CS_CUR_LIT(p, "\"peer\":");
  p = cs_cur_i64(p, c->peer);
  p = CS_CUR_LIT(p, ",\"count\":");
  p = cs_cur_u64(p, c->count);
  p = CS_CUR_LIT(p, ",\"datatype\":");
  p = cs_cur_str(p, c->datatype);
  p = CS_CUR_LIT(p, ",\"buff\":");
  p = cs_cur_hex(p, c->buff);
  p = CS_CUR_LIT(p, ",\"nChannels\":");
  p = cs_cur_u64(p, c->n_channels);
  if (c->parent_group) {
    p = CS_CUR_LIT(p, ",\"parentGroupId\":");
    p = cs_cur_hex(p, c->parent_group);
  }
  if (c->has_user_tag) {
    p = CS_CUR_LIT(p, ",\"userTag\":");
    p = cs_cur_hex(p, c->user_tag);
  }
  if (c->comm_hash) {
    p = CS_CUR_LIT(p, ",\"commHash\":");
    p = cs_cur_hex(p, c->comm_hash);
  }
  return p;
}

static char *details_proxy_op(char *p, const cs_event *e) {
  const cs_p_proxy_op *c = &e->p.proxy_op;
  p = CS_CUR_LIT(p, "\"channelId\":");
  p = cs_cur_u64(p, c->channel_id);
  p = CS_CUR_LIT(p, ",\"peer\":");
  p = cs_cur_i64(p, c->peer);
  p = CS_CUR_LIT(p, ",\"nSteps\":");
  p = cs_cur_i64(p, c->n_steps);
  p = CS_CUR_LIT(p, ",\"chunkSize\":");
  p = cs_cur_i64(p, c->chunk_size);
  p = CS_CUR_LIT(p, ",\"isSend\":");
  p = cs_cur_bool(p, c->is_send != 0);
  p = CS_CUR_LIT(p, ",\"pid\":");
  p = cs_cur_i64(p, c->pid);
  if (!c->has_rccl)
    return p;
  /* RCCL's v6 proxyOp fields (include/nccl/profiler_rccl_v6.h) */
  const cs_p_rccl_proxy_op *x = &c->rccl;
  p = CS_CUR_LIT(p, ",\"commHash\":");
  p = cs_cur_hex(p, x->comm_hash);
  p = CS_CUR_LIT(p, ",\"opCount\":");
  p = cs_cur_i64(p, x->op_count);
  p = CS_CUR_LIT(p, ",\"traceFuncIdx\":");
  p = cs_cur_i64(p, x->trace_func_idx);
  p = CS_CUR_LIT(p, ",\"traceProtocol\":");
  p = cs_cur_i64(p, x->trace_protocol);
  p = CS_CUR_LIT(p, ",\"tracePattern\":");
  p = cs_cur_i64(p, x->trace_pattern);
  p = CS_CUR_LIT(p, ",\"traceTotalBytes\":");
  p = cs_cur_u64(p, x->trace_total_bytes);
  p = CS_CUR_LIT(p, ",\"proxyNbytes\":");
  p = cs_cur_u64(p, x->proxy_nbytes);
  p = CS_CUR_LIT(p, ",\"rawProxyNsteps\":");
  return cs_cur_i64(p, x->raw_proxy_nsteps);
}

static char *details_proxy_step(char *p, const cs_event *e) {
  p = CS_CUR_LIT(p, "\"step\":");
  p = cs_cur_i64(p, e->p.proxy_step.step);
  if (e->has_link) {
    p = CS_CUR_LIT(p, ",\"peer\":");
    p = cs_cur_i64(p, e->link.peer);
    p = CS_CUR_LIT(p, ",\"channelId\":");
    p = cs_cur_u64(p, e->link.channel_id);
    p = CS_CUR_LIT(p, ",\"isSend\":");
    p = cs_cur_bool(p, e->link.is_send);
  }
  return p;
}

static char *details_net(char *p, const cs_event *e) {
  const cs_p_net_plugin *c = &e->p.net_plugin;
  p = CS_CUR_LIT(p, "\"pluginId\":");
  p = cs_cur_hex(p, (uint64_t)c->plugin_id);
  if (c->net_kind == CS_NET_IB)
    p = CS_CUR_LIT(p, ",\"net\":\"ib\"");
  else if (c->net_kind == CS_NET_SOCK)
    p = CS_CUR_LIT(p, ",\"net\":\"socket\"");
  else
    p = CS_CUR_LIT(p, ",\"net\":\"other\"");
  p = CS_CUR_LIT(p, ",\"version\":");
  p = cs_cur_u64(p, (uint64_t)c->plugin_id & 0xFFFFu);
  if (!c->has_descr)
    return p;
  if (c->net_kind == CS_NET_IB) {
    p = CS_CUR_LIT(p, ",\"qp\":{\"device\":");
    p = cs_cur_i64(p, c->u.ib.device);
    p = CS_CUR_LIT(p, ",\"wrId\":");
    p = cs_cur_hex(p, c->u.ib.wr_id);
    p = CS_CUR_LIT(p, ",\"opcode\":");
    p = cs_cur_i64(p, c->u.ib.opcode);
    p = CS_CUR_LIT(p, ",\"qpNum\":");
    p = cs_cur_i64(p, c->u.ib.qp_num);
    p = CS_CUR_LIT(p, ",\"length\":");
    p = cs_cur_u64(p, c->u.ib.length);
    p = cs_cur_char(p, '}');
  } else if (c->net_kind == CS_NET_SOCK) {
    p = CS_CUR_LIT(p, ",\"sock\":{\"fd\":");
    p = cs_cur_i64(p, c->u.sock.fd);
    p = CS_CUR_LIT(p, ",\"op\":");
    p = cs_cur_i64(p, c->u.sock.op);
    p = CS_CUR_LIT(p, ",\"length\":");
    p = cs_cur_u64(p, c->u.sock.length);
    p = cs_cur_char(p, '}');
  }
  return p;
}

static char *details_ce_coll(char *p, const cs_event *e) {
  const cs_p_ce_coll *c = &e->p.ce_coll;
  p = CS_CUR_LIT(p, "\"seqNumber\":");
  p = cs_cur_u64(p, c->seq);
  p = CS_CUR_LIT(p, ",\"count\":");
  p = cs_cur_u64(p, c->count);
  p = CS_CUR_LIT(p, ",\"datatype\":");
  p = cs_cur_str(p, c->datatype);
  p = CS_CUR_LIT(p, ",\"root\":");
  p = cs_cur_i64(p, c->root);
  p = CS_CUR_LIT(p, ",\"sendBuff\":");
  p = cs_cur_hex(p, c->send_buff);
  p = CS_CUR_LIT(p, ",\"recvBuff\":");
  p = cs_cur_hex(p, c->recv_buff);
  p = CS_CUR_LIT(p, ",\"syncStrategy\":");
  p = cs_cur_str(p, c->sync_strategy);
  p = CS_CUR_LIT(p, ",\"intraBatchSync\":");
  p = cs_cur_bool(p, c->intra_batch_sync);
  p = CS_CUR_LIT(p, ",\"batchSize\":");
  p = cs_cur_u64(p, c->batch_size);
  p = CS_CUR_LIT(p, ",\"numBatches\":");
  p = cs_cur_u64(p, c->num_batches);
  p = CS_CUR_LIT(p, ",\"ceSeqNum\":");
  p = cs_cur_u64(p, c->ce_seq_num);
  p = CS_CUR_LIT(p, ",\"stream\":");
  p = cs_cur_hex(p, c->stream);
  if (c->has_user_tag) {
    p = CS_CUR_LIT(p, ",\"userTag\":");
    p = cs_cur_hex(p, c->user_tag);
  }
  return p;
}

static char *cur_details(char *p, const cs_event *e) {
  p = CS_CUR_LIT(p, "\"details\":{");
  switch (e->etype) {
  case CS_EV_GROUP_API:
    p = CS_CUR_LIT(p, "\"groupDepth\":");
    p = cs_cur_i64(p, e->p.group_api.group_depth);
    p = CS_CUR_LIT(p, ",\"graphCaptured\":");
    p = cs_cur_bool(p, e->p.group_api.graph_captured);
    break;
  case CS_EV_COLL_API:
  case CS_EV_P2P_API:
    p = details_coll_api(p, e);
    break;
  case CS_EV_KERNEL_LAUNCH:
    p = CS_CUR_LIT(p, "\"stream\":");
    p = cs_cur_hex(p, e->p.kernel_launch.stream);
    break;
  case CS_EV_COLL:
    p = details_coll(p, e);
    break;
  case CS_EV_P2P:
    p = details_p2p(p, e);
    break;
  case CS_EV_PROXY_OP:
    p = details_proxy_op(p, e);
    break;
  case CS_EV_PROXY_STEP:
    p = details_proxy_step(p, e);
    break;
  case CS_EV_KERNEL_CH:
    p = CS_CUR_LIT(p, "\"channelId\":");
    p = cs_cur_u64(p, e->p.kernel_ch.channel_id);
    if (e->p.kernel_ch.has_ptimer) {
      p = CS_CUR_LIT(p, ",\"pTimer\":");
      p = cs_cur_u64(p, e->p.kernel_ch.ptimer);
    }
    break;
  case CS_EV_NET_PLUGIN:
    p = details_net(p, e);
    break;
  case CS_EV_CE_COLL:
    p = details_ce_coll(p, e);
    break;
  case CS_EV_CE_SYNC:
    p = CS_CUR_LIT(p, "\"isComplete\":");
    p = cs_cur_bool(p, e->p.ce_sync.is_complete);
    p = CS_CUR_LIT(p, ",\"nRanks\":");
    p = cs_cur_i64(p, e->p.ce_sync.n_ranks);
    break;
  case CS_EV_CE_BATCH:
    p = CS_CUR_LIT(p, "\"numOps\":");
    p = cs_cur_i64(p, e->p.ce_batch.num_ops);
    p = CS_CUR_LIT(p, ",\"totalBytes\":");
    p = cs_cur_u64(p, e->p.ce_batch.total_bytes);
    p = CS_CUR_LIT(p, ",\"useIntraSync\":");
    p = cs_cur_bool(p, e->p.ce_batch.use_intra_sync);
    break;
  case CS_EV_KERNEL_PHASE:
    p = CS_CUR_LIT(p, "\"channelId\":");
    p = cs_cur_u64(p, e->p.kernel_phase.channel_id);
    p = CS_CUR_LIT(p, ",\"phaseId\":");
    p = cs_cur_u64(p, e->p.kernel_phase.phase_id);
    p = CS_CUR_LIT(p, ",\"phaseName\":");
    p = cs_cur_str(p, e->p.kernel_phase.phase_name);
    p = CS_CUR_LIT(p, ",\"pTimer\":");
    p = cs_cur_u64(p, e->p.kernel_phase.ptimer);
    break;
  case CS_EV_PROXY_DIAG: /* RCCL: the type value tells bit 15 from 16 */
  case CS_EV_UNKNOWN:
    p = CS_CUR_LIT(p, "\"typeValue\":");
    p = cs_cur_u64(p, e->p.unknown.raw_type);
    break;
  default:
    break; /* Group, ProxyCtrl: no fields */
  }
  return cs_cur_char(p, '}');
}

/* ---- states ---- */

FMT_INLINE char *cur_state(cs_fmt *f, char *p, const cs_state_rec *s, int abi,
                           int64_t ts_ns, int64_t last_ns) {
  if (s->state < 31) {
    memcpy(p, f->pieces.state_head[s->state], sizeof f->pieces.state_head[0]);
    p += f->pieces.state_head_len[s->state];
  } else {
    const char *name = cs_state_name((int)s->state, abi, f->rccl);
    p = CS_CUR_LIT(p, "{\"name\":");
    p = cs_cur_str(p, name ? name : "unknown");
    p = CS_CUR_LIT(p, ",\"id\":");
    p = cs_cur_u64(p, s->state);
    p = CS_CUR_LIT(p, ",\"ts\":");
  }
  p = cs_cur_epoch_us(p, ts_ns, &f->pieces.ts);
  switch (s->state) {
  case 9:  /* SendWait: bytes posted */
  case 11: /* RecvFlushWait: bytes received */
    p = CS_CUR_LIT(p, ",\"transSize\":");
    p = cs_cur_u64(p, s->arg);
    break;
  case 18: /* ProxyCtrlAppendEnd */
    p = CS_CUR_LIT(p, ",\"appendedProxyOps\":");
    p = cs_cur_i64(p, (int32_t)(uint32_t)s->arg);
    break;
  case 22: /* KernelChStop */
    p = CS_CUR_LIT(p, ",\"pTimer\":");
    p = cs_cur_u64(p, s->arg);
    break;
  case 31:             /* v7: KernelPhaseStop (RCCL's from 2.31 too) */
  case 32:             /* RCCL 2.31: ProxyDiagUpdate */
    if (s->has_diag) { /* RCCL's ProxyDiagUpdate: 31 before 2.31, then 32 */
      p = CS_CUR_LIT(p, ",\"counterKind\":");
      p = cs_cur_u64(p, s->arg & 0xFF);
      p = CS_CUR_LIT(p, ",\"flags\":");
      p = cs_cur_u64(p, (s->arg >> 16) & 0xFFFF);
      p = CS_CUR_LIT(p, ",\"value\":");
      p = cs_cur_i64(p, (int64_t)s->arg2);
      p = CS_CUR_LIT(p, ",\"value2\":");
      p = cs_cur_i64(p, (int64_t)s->arg3);
    } else if (s->state == 31 && abi >= 7) {
      p = CS_CUR_LIT(p, ",\"pTimer\":");
      p = cs_cur_u64(p, s->arg);
    }
    break;
  default:
    break;
  }
  if (s->repeat > 1) {
    p = CS_CUR_LIT(p, ",\"count\":");
    p = cs_cur_u64(p, s->repeat);
    p = CS_CUR_LIT(p, ",\"lastTs\":");
    p = cs_cur_epoch_us(p, last_ns, &f->pieces.ts);
  }
  return cs_cur_char(p, '}');
}

/* ---- parents ---- */

/* "parentStatus":…, and "parentHint" or "parentRaw" after it, of a
 * parent that is not a local event's id (the offsets: where each member
 * begins in `text`). */
FMT_INLINE char *cur_parent_status(char *p, const char *text, size_t len,
                                   size_t raw_at, cs_fmt_key raw_key,
                                   cs_fmt_members *m) {
  member(m, CS_FK_PARENT_STATUS, p);
  if (raw_at)
    member(m, raw_key, p + raw_at);
  memcpy(p, text, len);
  return p + len;
}

FMT_INLINE char *cur_parent(char *p, const cs_event *e, cs_fmt_members *m) {
  static const char unknown_hint[] =
      "\"parentStatus\":\"unknown\",\"parentHint\":";
  static const char foreign[] = "\"parentStatus\":\"foreign\",\"parentRaw\":";
  static const char unknown_raw[] =
      "\"parentStatus\":\"unknown\",\"parentRaw\":";
  static const char dropped[] = "\"parentStatus\":\"dropped\"";
  /* where the second member begins in the three texts that have one */
  const size_t raw_at = sizeof "\"parentStatus\":\"unknown\"," - 1;
  member(m, CS_FK_PARENT_ID, p);
  p = CS_CUR_LIT(p, "\"parentId\":");
  switch (e->parent_kind) {
  case CS_PARENT_LOCAL:
    if (e->parent_hint) {
      p = CS_CUR_LIT(p, "null,");
      p = cur_parent_status(p, unknown_hint, sizeof unknown_hint - 1, raw_at,
                            CS_FK_PARENT_HINT, m);
    }
    return cs_cur_hex(p, e->parent);
  case CS_PARENT_FOREIGN:
    p = CS_CUR_LIT(p, "null,");
    p = cur_parent_status(p, foreign, sizeof foreign - 1, raw_at,
                          CS_FK_PARENT_RAW, m);
    return cs_cur_hex(p, e->parent);
  case CS_PARENT_UNKNOWN:
    p = CS_CUR_LIT(p, "null,");
    p = cur_parent_status(p, unknown_raw, sizeof unknown_raw - 1, raw_at,
                          CS_FK_PARENT_RAW, m);
    return cs_cur_hex(p, e->parent);
  case CS_PARENT_DROPPED:
    p = CS_CUR_LIT(p, "null,");
    return cur_parent_status(p, dropped, sizeof dropped - 1, 0,
                             CS_FK_PARENT_STATUS, m);
  default:
    return CS_CUR_LIT(p, "null");
  }
}

/* ---- events ---- */

/* An event's line, and where its members begin when `m` is not NULL (the
 * plugin's copy, inlined with NULL, has none of that code). */
FMT_INLINE char *fmt_event(cs_fmt *f, char *p, const cs_event *e,
                           const cs_fmt_comm *comm, const cs_fmt_times *t,
                           cs_fmt_members *m) {
  /* A fixed-size copy (the slot is zero-padded; the line has room). */
  memcpy(p, f->pieces.event_head[e->etype], sizeof f->pieces.event_head[0]);
  member(m, CS_FK_RECORD_TYPE, p + 1);
  member(m, CS_FK_TYPE, p + sizeof "{\"recordType\":\"event\"," - 1);
  p += f->pieces.event_head_len[e->etype];
  member(m, CS_FK_ID, p - (sizeof "\"id\":" - 1));
  p = cs_cur_hex(p, e->id);
  p = cs_cur_char(p, ',');
  p = cur_parent(p, e, m);
  p = cs_cur_char(p, ',');
  p = cur_comm(f, p, e->ctx, comm, m);
  member(m, CS_FK_RANK, p + 1);
  p = CS_CUR_LIT(p, ",\"rank\":");
  p = cs_cur_i64(p, e->rank);
  if (e->foreign_owner) {
    member(m, CS_FK_IS_PXN, p + 1);
    member(m, CS_FK_ORIGIN_PID, p + sizeof ",\"isPxn\":true," - 1);
    p = CS_CUR_LIT(p, ",\"isPxn\":true,\"originPid\":");
    p = cs_cur_i64(p, e->origin_pid);
  }
  const char *func = event_func(e);
  if (func) {
    member(m, CS_FK_FUNC, p + 1);
    p = CS_CUR_LIT(p, ",\"func\":");
    const char *value = p;
    p = cs_cur_str(p, func);
    string_member_escaped(m, func, value, p);
  }
  member(m, CS_FK_START, p + 1);
  p = CS_CUR_LIT(p, ",\"start\":");
  p = cur_endpoint(f, p, t->start_ns, e->start_tid);
  member(m, CS_FK_STOP, p + 1);
  if (e->end == CS_END_STOPPED) {
    p = CS_CUR_LIT(p, ",\"stop\":");
    p = cur_endpoint(f, p, t->end_ns, e->stop_tid);
    member(m, CS_FK_DURATION, p + 1);
    p = CS_CUR_LIT(p, ",\"duration\":");
    p = cs_cur_ns_as_us(p, t->end_ns - t->start_ns);
    member(m, CS_FK_END, p + 1);
    p = CS_CUR_LIT(p, ",\"end\":\"stopped\"");
  } else {
    member(m, CS_FK_DURATION, p + sizeof ",\"stop\":null," - 1);
    member(m, CS_FK_END, p + sizeof ",\"stop\":null,\"duration\":null," - 1);
    p = CS_CUR_LIT(p, ",\"stop\":null,\"duration\":null,\"end\":");
    if (e->end == CS_END_RECLAIMED) {
      member(m, CS_FK_RECLAIM_REASON, p + sizeof "\"reclaimed\"," - 1);
      p = CS_CUR_LIT(p, "\"reclaimed\",\"reclaimReason\":");
      const char *value = p;
      p = cs_cur_str(p, t->reclaim);
      string_member_escaped(m, t->reclaim, value, p);
    } else {
      p = CS_CUR_LIT(p, "\"inflight\"");
    }
    member(m, CS_FK_END_TS, p + 1);
    p = CS_CUR_LIT(p, ",\"endTs\":");
    p = cs_cur_epoch_us(p, t->end_ns, &f->pieces.ts);
  }
  p = cs_cur_char(p, ',');
  member(m, CS_FK_DETAILS, p);
  p = cur_details(p, e);
  if (e->nstates) {
    member(m, CS_FK_STATES, p + 1);
    int abi = comm ? comm->abi : f->default_abi;
    p = CS_CUR_LIT(p, ",\"states\":[");
    for (uint32_t i = 0; i < e->nstates; i++) {
      if (i)
        p = cs_cur_char(p, ',');
      p = cur_state(f, p, &e->states[i], abi, t->state_ns[2 * i],
                    t->state_ns[2 * i + 1]);
    }
    p = cs_cur_char(p, ']');
  }
  return cs_cur_char(p, '}');
}

char *cs_fmt_event(cs_fmt *f, char *p, const cs_event *e,
                   const cs_fmt_comm *comm, const cs_fmt_times *t) {
  return fmt_event(f, p, e, comm, t, NULL);
}

char *cs_fmt_event_members(cs_fmt *f, char *p, const cs_event *e,
                           const cs_fmt_comm *comm, const cs_fmt_times *t,
                           cs_fmt_members *m) {
  m->line = p;
  m->n = 0;
  m->escaped = 0;
  return fmt_event(f, p, e, comm, t, m);
}

const char *cs_fmt_key_name(cs_fmt_key k) {
  static const char *const names[CS_FK_COUNT] = {
      [CS_FK_RECORD_TYPE] = "recordType",
      [CS_FK_TYPE] = "type",
      [CS_FK_ID] = "id",
      [CS_FK_PARENT_ID] = "parentId",
      [CS_FK_PARENT_STATUS] = "parentStatus",
      [CS_FK_PARENT_HINT] = "parentHint",
      [CS_FK_PARENT_RAW] = "parentRaw",
      [CS_FK_CTX] = "ctx",
      [CS_FK_COMM_ID] = "commId",
      [CS_FK_RANK] = "rank",
      [CS_FK_IS_PXN] = "isPxn",
      [CS_FK_ORIGIN_PID] = "originPid",
      [CS_FK_FUNC] = "func",
      [CS_FK_START] = "start",
      [CS_FK_STOP] = "stop",
      [CS_FK_DURATION] = "duration",
      [CS_FK_END] = "end",
      [CS_FK_RECLAIM_REASON] = "reclaimReason",
      [CS_FK_END_TS] = "endTs",
      [CS_FK_DETAILS] = "details",
      [CS_FK_STATES] = "states",
  };
  return (unsigned)k < CS_FK_COUNT ? names[k] : NULL;
}

/* ---- timing records ---- */

/* "startNs":N,"stopNs":N: a span of a timing record, integer nanoseconds
 * since the epoch (format version 2). */
static char *cur_span(char *p, int64_t start, int64_t stop) {
  p = CS_CUR_LIT(p, "\"startNs\":");
  p = cs_cur_i64(p, start);
  p = CS_CUR_LIT(p, ",\"stopNs\":");
  return cs_cur_i64(p, stop);
}

/* An integer-ns timestamp, or null for 0 (not known). */
static char *cur_ns_or_null(char *p, int64_t ns) {
  return ns ? cs_cur_i64(p, ns) : CS_CUR_LIT(p, "null");
}

/* "runId":…,"globalRank":…,"hostname":…,"pid":…: who wrote a timing record,
 * as the process record says (format version 2 repeats it on every timing
 * record so that each line stands alone). At most identity_max(t) bytes. */

/* "runId":…,"globalRank":…,"hostname":…,"pid":…: who wrote a timing record,
 * as the process record says (format version 2 repeats it on every timing
 * record so that each line stands alone). At most identity_max(f) bytes. */
static size_t identity_max(const cs_fmt *f) {
  return CS_CUR_STR_MAX(strlen(f->run_id ? f->run_id : "")) +
         CS_CUR_STR_MAX(strlen(f->hostname ? f->hostname : "")) + 96;
}

static char *cur_identity(const cs_fmt *f, char *p) {
  p = CS_CUR_LIT(p, "\"runId\":");
  p = cs_cur_str(p, f->run_id);
  p = CS_CUR_LIT(p, ",\"globalRank\":");
  p = f->global_rank >= 0 ? cs_cur_i64(p, f->global_rank)
                          : CS_CUR_LIT(p, "null");
  p = CS_CUR_LIT(p, ",\"hostname\":");
  p = cs_cur_str(p, f->hostname);
  p = CS_CUR_LIT(p, ",\"pid\":");
  return cs_cur_i64(p, f->pid);
}

/* ,"device":N: the communicator's device ordinal, as on its lifecycle
 * record (null when unknown). */
static char *cur_device(char *p, const cs_fmt_comm *c) {
  p = CS_CUR_LIT(p, ",\"device\":");
  return c && c->device >= 0 ? cs_cur_i64(p, c->device) : CS_CUR_LIT(p, "null");
}

/* ,"commName":"…": the communicator's name, "" when it has none. */
static char *cur_comm_name(char *p, const cs_fmt_comm *c) {
  p = CS_CUR_LIT(p, ",\"commName\":");
  return cs_cur_str(p, c && c->has_comm_info ? c->comm_name : "");
}

/* GB/s (10^9 bytes/s) with three decimals, or null. */
static char *cur_gbps(char *p, double bytes_per_s) {
  if (!(bytes_per_s >= 0))
    return CS_CUR_LIT(p, "null");
  uint64_t milli = (uint64_t)(bytes_per_s / 1e6 + 0.5); /* 1e-3 GB/s */
  p = cs_cur_u64(p, milli / 1000);
  *p++ = '.';
  unsigned frac = (unsigned)(milli % 1000);
  *p++ = (char)('0' + frac / 100);
  memcpy(p, cs_decimal_pairs + 2 * (frac % 100), 2);
  return p + 2;
}

size_t cs_fmt_timing_max(const cs_fmt *f, const cs_timing *r) {
  size_t strs = 0;
  const char *names[4] = {r->func, r->datatype, r->algo, r->proto};
  for (int i = 0; i < 4; i++)
    strs += names[i] ? CS_CUR_STR_MAX(strlen(names[i])) : 4;
  strs += identity_max(f) + CS_CUR_STR_MAX(CS_FMT_COMM_NAME_MAX);
  return 2560 + strs; /* 2048, plus the phases */
}

char *cs_fmt_timing(cs_fmt *f, char *p, const cs_timing *r,
                    const cs_fmt_comm *c) {
  static const char *const sources[] = {"host", "proxy", "gpu"};
  p = CS_CUR_LIT(p, "{\"recordType\":\"timing\",");
  if (f->pieces.identity_len) {
    memcpy(p, f->pieces.identity, f->pieces.identity_len);
    p += f->pieces.identity_len;
  } else {
    p = cur_identity(f, p);
  }
  p = cur_device(p, c);
  p = CS_CUR_LIT(p, ",\"eventId\":");
  p = cs_cur_hex(p, r->event_id);
  p = CS_CUR_LIT(p, ",\"type\":\"");
  const char *type = cs_etype_json_name((cs_etype)r->etype);
  p = cs_cur_lit(p, type, strlen(type));
  p = CS_CUR_LIT(p, "\",");
  p = cur_comm(f, p, r->ctx, c, NULL);
  p = cur_comm_name(p, c);
  p = CS_CUR_LIT(p, ",\"rank\":");
  p = cs_cur_i64(p, r->rank);
  p = CS_CUR_LIT(p, ",\"nranks\":");
  p = cs_cur_i64(p, r->nranks);
  p = CS_CUR_LIT(p, ",\"func\":");
  p = cs_cur_str(p, r->func);
  if (r->has_seq) {
    p = CS_CUR_LIT(p, ",\"seqNumber\":");
    p = cs_cur_u64(p, r->seq);
  }
  if (r->etype == CS_EV_P2P) {
    p = CS_CUR_LIT(p, ",\"peer\":");
    p = cs_cur_i64(p, r->peer);
  }
  if (r->etype == CS_EV_COLL) {
    p = CS_CUR_LIT(p, ",\"algo\":");
    p = cs_cur_str(p, r->algo);
    p = CS_CUR_LIT(p, ",\"proto\":");
    p = cs_cur_str(p, r->proto);
  }
  p = CS_CUR_LIT(p, ",\"count\":");
  p = cs_cur_u64(p, r->count);
  p = CS_CUR_LIT(p, ",\"datatype\":");
  p = cs_cur_str(p, r->datatype);
  p = CS_CUR_LIT(p, ",\"bytes\":");
  p = cs_cur_u64(p, r->bytes);
  p = CS_CUR_LIT(p, ",\"apiNs\":");
  p = cur_ns_or_null(p, r->api_ns);
  p = CS_CUR_LIT(p, ",\"enqueueStartNs\":");
  p = cs_cur_i64(p, r->enq_start_ns);
  p = CS_CUR_LIT(p, ",\"enqueueStopNs\":");
  p = cur_ns_or_null(p, r->enq_stop_ns);
  p = CS_CUR_LIT(p, ",\"source\":\"");
  p = cs_cur_lit(p, sources[r->source], strlen(sources[r->source]));
  p = CS_CUR_LIT(p, "\",");
  p = cur_span(p, r->start_ns, r->stop_ns);
  p = CS_CUR_LIT(p, ",\"durationNs\":");
  p = cs_cur_i64(p, r->stop_ns - r->start_ns);
  if (r->has_gpu) {
    p = CS_CUR_LIT(p, ",\"gpu\":{");
    p = cur_span(p, r->gpu_start_ns, r->gpu_stop_ns);
    p = CS_CUR_LIT(p, ",\"channels\":");
    p = cs_cur_u64(p, r->gpu_channels);
    p = CS_CUR_LIT(p, ",\"batched\":");
    p = cs_cur_bool(p, r->batched);
    if (r->gpu_rejected) {
      p = CS_CUR_LIT(p, ",\"rejected\":");
      p = cs_cur_u64(p, r->gpu_rejected);
    }
    p = cs_cur_char(p, '}');
  }
  if (r->phase_valid) {
    static const char *const phase_names[CS_TIMING_PHASES] = {
        "initial_sync", "compute", "final_sync"};
    p = CS_CUR_LIT(p, ",\"phases\":{");
    bool first = true;
    for (int ph = 0; ph < CS_TIMING_PHASES; ph++) {
      if (!(r->phase_valid & (1u << ph)))
        continue;
      if (!first)
        p = cs_cur_char(p, ',');
      first = false;
      p = cs_cur_char(p, '"');
      p = cs_cur_lit(p, phase_names[ph], strlen(phase_names[ph]));
      p = CS_CUR_LIT(p, "\":{");
      p = cur_span(p, r->phase_start_ns[ph], r->phase_stop_ns[ph]);
      p = cs_cur_char(p, '}');
    }
    p = cs_cur_char(p, '}');
  }
  if (r->has_proxy) {
    p = CS_CUR_LIT(p, ",\"proxy\":{");
    p = cur_span(p, r->proxy_start_ns, r->proxy_stop_ns);
    p = CS_CUR_LIT(p, ",\"ops\":");
    p = cs_cur_u64(p, r->proxy_ops);
    p = cs_cur_char(p, '}');
  }
  if (r->incomplete)
    p = CS_CUR_LIT(p, ",\"incomplete\":true");
  p = CS_CUR_LIT(p, ",\"algBw\":");
  p = cur_gbps(p, r->alg_bw);
  p = CS_CUR_LIT(p, ",\"busBw\":");
  p = cur_gbps(p, r->bus_bw);
  return cs_cur_char(p, '}');
}

/* ---- the pieces for the sink's rarely written records ---- */

char *cs_fmt_endpoint(cs_fmt *f, char *p, int64_t ns, int32_t tid) {
  return cur_endpoint(f, p, ns, tid);
}

char *cs_fmt_comm_piece(cs_fmt *f, char *p, uint32_t ctx,
                        const cs_fmt_comm *comm) {
  return cur_comm(f, p, ctx, comm, NULL);
}

char *cs_fmt_state(cs_fmt *f, char *p, const cs_state_rec *s, int abi,
                   int64_t ts_ns, int64_t last_ns) {
  return cur_state(f, p, s, abi, ts_ns, last_ns);
}
