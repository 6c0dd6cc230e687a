/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/trace/trace_compact_codec.c — compact record bodies, both ways
 * (see trace_compact_codec.h; the layout: docs/trace-format.md "Compact
 * records"). Each function below is the record's layout: the order of its
 * calls is the order of the fields.
 */
#include "trace_compact_codec.h"

#include <string.h>

/* ---- scalars ---- */

void cs_cx_u64(cs_cx *c, uint64_t *v) {
  if (!c->reading) {
    c->out = cst_put_varint(c->out, *v);
    return;
  }
  if (!c->bad && !cst_get_varint(&c->in, c->end, v))
    c->bad = true;
  if (c->bad)
    *v = 0;
}

void cs_cx_i64(cs_cx *c, int64_t *v) {
  uint64_t z = c->reading ? 0 : cst_zigzag(*v);
  cs_cx_u64(c, &z);
  if (c->reading)
    *v = cst_unzigzag(z);
}

void cs_cx_u8(cs_cx *c, uint8_t *v) {
  if (!c->reading) {
    *c->out++ = *v;
    return;
  }
  if (c->bad || c->in >= c->end) {
    c->bad = true;
    *v = 0;
    return;
  }
  *v = *c->in++;
}

/* Narrower fields through the wide ones. */
static void cx_u32(cs_cx *c, uint32_t *v) {
  uint64_t w = *v;
  cs_cx_u64(c, &w);
  if (c->reading) {
    if (w > UINT32_MAX)
      c->bad = true;
    *v = (uint32_t)w;
  }
}

static void cx_u16(cs_cx *c, uint16_t *v) {
  uint64_t w = *v;
  cs_cx_u64(c, &w);
  if (c->reading) {
    if (w > UINT16_MAX)
      c->bad = true;
    *v = (uint16_t)w;
  }
}

static void cx_i32(cs_cx *c, int32_t *v) {
  int64_t w = *v;
  cs_cx_i64(c, &w);
  if (c->reading) {
    if (w < INT32_MIN || w > INT32_MAX)
      c->bad = true;
    *v = (int32_t)w;
  }
}

static void cx_int(cs_cx *c, int *v) {
  int32_t w = (int32_t)*v;
  cx_i32(c, &w);
  *v = w;
}

/* `v` as the difference from *prev, which becomes v. */
static void cx_delta_u64(cs_cx *c, uint64_t *v, uint64_t *prev) {
  int64_t d = (int64_t)(*v - *prev);
  cs_cx_i64(c, &d);
  if (c->reading)
    *v = *prev + (uint64_t)d;
  *prev = *v;
}

static void cx_delta_i64(cs_cx *c, int64_t *v, int64_t *prev) {
  uint64_t u = (uint64_t)*v, p = (uint64_t)*prev;
  cx_delta_u64(c, &u, &p);
  *v = (int64_t)u;
  *prev = (int64_t)p;
}

/* `v` as the difference from `base` (not kept). */
static void cx_from_i64(cs_cx *c, int64_t *v, int64_t base) {
  int64_t d = (int64_t)((uint64_t)*v - (uint64_t)base);
  cs_cx_i64(c, &d);
  if (c->reading)
    *v = (int64_t)((uint64_t)base + (uint64_t)d);
}

/* A double's bits, 8 bytes little-endian (exact, whatever it holds). */
static void cx_f64(cs_cx *c, double *v) {
  uint64_t bits;
  memcpy(&bits, v, sizeof bits);
  for (int i = 0; i < 8; i++) {
    uint8_t b = (uint8_t)(bits >> (8 * i));
    cs_cx_u8(c, &b);
    if (c->reading)
      bits = (bits & ~((uint64_t)0xff << (8 * i))) | ((uint64_t)b << (8 * i));
  }
  if (c->reading)
    memcpy(v, &bits, sizeof bits);
}

static void cx_str(cs_cx *c, const char **s) {
  c->str(c, s);
}

/* ---- event payloads, in the order cur_details writes them ---- */

static void cx_coll_api(cs_cx *c, uint8_t etype, cs_p_coll_api *p) {
  cx_str(c, &p->func);
  cx_str(c, &p->datatype);
  cs_cx_u64(c, &p->count);
  cs_cx_u64(c, &p->stream);
  cs_cx_u8(c, &p->graph_captured);
  cs_cx_u8(c, &p->has_user_tag);
  if (p->has_user_tag)
    cs_cx_u64(c, &p->user_tag);
  if (etype == CS_EV_COLL_API)
    cx_i32(c, &p->root);
}

/* The 0/1 flags of a Coll in one byte (they are written as booleans). */
enum {
  COLL_KERNEL_VARIANT = 1,
  COLL_SYM = 2,
  COLL_USER_TAG = 4,
  COLL_COLLNET = 8,
  COLL_NVLS = 16
};

static void cx_coll(cs_cx *c, cs_p_coll *p) {
  cs_cx_u64(c, &p->seq);
  cx_str(c, &p->func);
  cx_str(c, &p->datatype);
  cx_str(c, &p->algo);
  cx_str(c, &p->proto);
  cs_cx_u64(c, &p->count);
  cx_i32(c, &p->root);
  cs_cx_u64(c, &p->send_buff);
  cs_cx_u64(c, &p->recv_buff);
  cs_cx_u8(c, &p->n_channels);
  cs_cx_u8(c, &p->n_warps);
  cs_cx_u64(c, &p->parent_group);
  uint8_t flags = (uint8_t)((p->has_kernel_variant ? COLL_KERNEL_VARIANT : 0) |
                            (p->is_sym_coll ? COLL_SYM : 0) |
                            (p->has_user_tag ? COLL_USER_TAG : 0) |
                            (p->is_collnet ? COLL_COLLNET : 0) |
                            (p->is_nvls ? COLL_NVLS : 0));
  cs_cx_u8(c, &flags);
  if (c->reading) {
    p->has_kernel_variant = (flags & COLL_KERNEL_VARIANT) != 0;
    p->is_sym_coll = (flags & COLL_SYM) != 0;
    p->has_user_tag = (flags & COLL_USER_TAG) != 0;
    p->is_collnet = (flags & COLL_COLLNET) != 0;
    p->is_nvls = (flags & COLL_NVLS) != 0;
  }
  if (p->has_kernel_variant)
    cx_str(c, &p->kernel_variant);
  if (p->has_user_tag)
    cs_cx_u64(c, &p->user_tag);
  cs_cx_u64(c, &p->comm_hash);
  cs_cx_u64(c, &p->traffic_bytes);
  cx_u32(c, &p->op);
}

static void cx_p2p(cs_cx *c, cs_p_p2p *p) {
  cx_str(c, &p->func);
  cx_str(c, &p->datatype);
  cx_i32(c, &p->peer);
  cs_cx_u64(c, &p->count);
  cs_cx_u64(c, &p->buff);
  cs_cx_u8(c, &p->n_channels);
  cs_cx_u64(c, &p->parent_group);
  cs_cx_u8(c, &p->has_user_tag);
  if (p->has_user_tag)
    cs_cx_u64(c, &p->user_tag);
  cs_cx_u64(c, &p->comm_hash);
}

static void cx_proxy_op(cs_cx *c, cs_p_proxy_op *p) {
  cs_cx_u8(c, &p->channel_id);
  cx_i32(c, &p->peer);
  cx_i32(c, &p->n_steps);
  cx_i32(c, &p->chunk_size);
  cx_i32(c, &p->is_send);
  cx_i32(c, &p->pid);
  cs_cx_u8(c, &p->has_rccl);
  if (!p->has_rccl)
    return;
  cs_p_rccl_proxy_op *x = &p->rccl;
  cs_cx_u64(c, &x->comm_hash);
  cs_cx_i64(c, &x->op_count);
  cx_i32(c, &x->trace_func_idx);
  cx_i32(c, &x->trace_protocol);
  cx_i32(c, &x->trace_pattern);
  cx_u32(c, &x->trace_total_bytes);
  cx_u32(c, &x->proxy_nbytes);
  cx_i32(c, &x->raw_proxy_nsteps);
}

static void cx_net(cs_cx *c, cs_p_net_plugin *p) {
  cs_cx_i64(c, &p->plugin_id);
  cs_cx_u8(c, &p->net_kind);
  cs_cx_u8(c, &p->has_descr);
  if (!p->has_descr)
    return;
  if (p->net_kind == CS_NET_IB) {
    cx_i32(c, &p->u.ib.device);
    cs_cx_u64(c, &p->u.ib.wr_id);
    cx_i32(c, &p->u.ib.opcode);
    cx_i32(c, &p->u.ib.qp_num);
    cs_cx_u64(c, &p->u.ib.length);
  } else if (p->net_kind == CS_NET_SOCK) {
    cx_i32(c, &p->u.sock.fd);
    cx_i32(c, &p->u.sock.op);
    cs_cx_u64(c, &p->u.sock.length);
  }
}

static void cx_ce_coll(cs_cx *c, cs_p_ce_coll *p) {
  cs_cx_u64(c, &p->seq);
  cx_str(c, &p->func);
  cx_str(c, &p->datatype);
  cx_str(c, &p->sync_strategy);
  cs_cx_u64(c, &p->send_buff);
  cs_cx_u64(c, &p->recv_buff);
  cs_cx_u64(c, &p->count);
  cs_cx_u64(c, &p->stream);
  cx_i32(c, &p->root);
  cx_u32(c, &p->batch_size);
  cx_u32(c, &p->num_batches);
  cx_u32(c, &p->ce_seq_num);
  cs_cx_u8(c, &p->intra_batch_sync);
  cs_cx_u8(c, &p->has_user_tag);
  if (p->has_user_tag)
    cs_cx_u64(c, &p->user_tag);
}

static void cx_payload(cs_cx *c, cs_event *e) {
  cs_payload *p = &e->p;
  switch (e->etype) {
  case CS_EV_GROUP_API:
    cx_i32(c, &p->group_api.group_depth);
    cs_cx_u8(c, &p->group_api.graph_captured);
    break;
  case CS_EV_COLL_API:
  case CS_EV_P2P_API:
    cx_coll_api(c, e->etype, &p->coll_api);
    break;
  case CS_EV_KERNEL_LAUNCH:
    cs_cx_u64(c, &p->kernel_launch.stream);
    break;
  case CS_EV_COLL:
    cx_coll(c, &p->coll);
    break;
  case CS_EV_P2P:
    cx_p2p(c, &p->p2p);
    break;
  case CS_EV_PROXY_OP:
    cx_proxy_op(c, &p->proxy_op);
    break;
  case CS_EV_PROXY_STEP:
    cx_i32(c, &p->proxy_step.step);
    break;
  case CS_EV_KERNEL_CH:
    cs_cx_u8(c, &p->kernel_ch.channel_id);
    cs_cx_u8(c, &p->kernel_ch.has_ptimer);
    if (p->kernel_ch.has_ptimer)
      cs_cx_u64(c, &p->kernel_ch.ptimer);
    break;
  case CS_EV_NET_PLUGIN:
    cx_net(c, &p->net_plugin);
    break;
  case CS_EV_CE_COLL:
    cx_ce_coll(c, &p->ce_coll);
    break;
  case CS_EV_CE_SYNC:
    cs_cx_u8(c, &p->ce_sync.is_complete);
    cx_i32(c, &p->ce_sync.n_ranks);
    break;
  case CS_EV_CE_BATCH:
    cs_cx_u64(c, &p->ce_batch.total_bytes);
    cx_i32(c, &p->ce_batch.num_ops);
    cs_cx_u8(c, &p->ce_batch.use_intra_sync);
    break;
  case CS_EV_KERNEL_PHASE:
    cs_cx_u8(c, &p->kernel_phase.channel_id);
    cs_cx_u8(c, &p->kernel_phase.phase_id);
    cx_str(c, &p->kernel_phase.phase_name);
    cs_cx_u64(c, &p->kernel_phase.ptimer);
    break;
  case CS_EV_PROXY_DIAG:
  case CS_EV_UNKNOWN:
    cs_cx_u64(c, &p->unknown.raw_type);
    break;
  default:
    break; /* Group, ProxyCtrl: no fields */
  }
}

/* ---- events ---- */

/* Event flags. */
enum {
  EV_PARENT_HINT = 1,
  EV_FOREIGN_OWNER = 2,
  EV_HAS_LINK = 4,
  EV_CTX_MISSING = 8
};
/* State flags. */
enum { ST_REPEAT = 1, ST_DIAG = 2 };

/* Strings an event names (NULL where it has fewer), for the size bound. */
static size_t event_strings_len(const cs_event *e) {
  const char *s[5] = {NULL, NULL, NULL, NULL, NULL};
  const cs_payload *p = &e->p;
  switch (e->etype) {
  case CS_EV_COLL_API:
  case CS_EV_P2P_API:
    s[0] = p->coll_api.func;
    s[1] = p->coll_api.datatype;
    break;
  case CS_EV_COLL:
    s[0] = p->coll.func;
    s[1] = p->coll.datatype;
    s[2] = p->coll.algo;
    s[3] = p->coll.proto;
    s[4] = p->coll.has_kernel_variant ? p->coll.kernel_variant : NULL;
    break;
  case CS_EV_P2P:
    s[0] = p->p2p.func;
    s[1] = p->p2p.datatype;
    break;
  case CS_EV_CE_COLL:
    s[0] = p->ce_coll.func;
    s[1] = p->ce_coll.datatype;
    s[2] = p->ce_coll.sync_strategy;
    break;
  case CS_EV_KERNEL_PHASE:
    s[0] = p->kernel_phase.phase_name;
    break;
  default:
    break;
  }
  size_t n = 0;
  for (int i = 0; i < 5; i++)
    n += CS_CX_STR_MAX(s[i] ? strlen(s[i]) : 0);
  return n;
}

/* 48 varints and bytes of fixed fields; each state at most 8 fields. */
size_t cs_cx_event_max(const cs_event *e, const cs_cx_event_extra *x) {
  size_t reclaim = x->times->reclaim ? strlen(x->times->reclaim) : 0;
  return 48 * CST_VARINT_MAX + event_strings_len(e) + CS_CX_STR_MAX(reclaim) +
         (size_t)e->nstates * 8 * CST_VARINT_MAX;
}

static void cx_state(cs_cx *c, cs_state_rec *s, int64_t *ns, int64_t *prev) {
  cx_u32(c, &s->state);
  uint8_t flags =
      (uint8_t)((s->repeat > 1 ? ST_REPEAT : 0) | (s->has_diag ? ST_DIAG : 0));
  cs_cx_u8(c, &flags);
  cx_delta_i64(c, &ns[0], prev);
  cs_cx_u64(c, &s->arg);
  if (c->reading)
    s->has_diag = (flags & ST_DIAG) != 0;
  if (s->has_diag) {
    cs_cx_u64(c, &s->arg2);
    cs_cx_u64(c, &s->arg3);
  }
  if (flags & ST_REPEAT) {
    cx_u32(c, &s->repeat);
    cx_from_i64(c, &ns[1], ns[0]);
  } else if (c->reading) {
    s->repeat = 1;
    ns[1] = 0;
  }
}

void cs_cx_event(cs_cx *c, cs_event *e, cs_cx_event_extra *x) {
  cs_fmt_times *t = x->times;
  cs_cx_u8(c, &e->etype);
  if (c->reading && e->etype >= CS_EV_COUNT)
    c->bad = true;
  uint8_t kinds = (uint8_t)(e->parent_kind | e->end << 4);
  cs_cx_u8(c, &kinds);
  uint8_t flags = (uint8_t)((e->parent_hint ? EV_PARENT_HINT : 0) |
                            (e->foreign_owner ? EV_FOREIGN_OWNER : 0) |
                            (e->has_link ? EV_HAS_LINK : 0) |
                            (x->ctx_missing ? EV_CTX_MISSING : 0));
  cs_cx_u8(c, &flags);
  if (c->reading) {
    e->parent_kind = kinds & 0xf;
    e->end = kinds >> 4;
    if (e->end > CS_END_INFLIGHT)
      c->bad = true;
    e->parent_hint = (flags & EV_PARENT_HINT) != 0;
    e->foreign_owner = (flags & EV_FOREIGN_OWNER) != 0;
    e->has_link = (flags & EV_HAS_LINK) != 0;
    x->ctx_missing = (flags & EV_CTX_MISSING) != 0;
  }
  cx_delta_u64(c, &e->id, &c->prev->event_id);
  if (e->parent_kind == CS_PARENT_LOCAL ||
      e->parent_kind == CS_PARENT_FOREIGN ||
      e->parent_kind == CS_PARENT_UNKNOWN) {
    int64_t d = (int64_t)(e->parent - e->id);
    cs_cx_i64(c, &d);
    if (c->reading)
      e->parent = e->id + (uint64_t)d;
  }
  cx_u32(c, &e->ctx);
  cx_i32(c, &e->rank);
  if (e->foreign_owner)
    cx_i32(c, &e->origin_pid);
  cx_delta_i64(c, &t->start_ns, &c->prev->event_start_ns);
  int64_t tid = e->start_tid;
  cx_delta_i64(c, &tid, &c->prev->tid);
  if (c->reading)
    e->start_tid = (int32_t)tid;
  cx_from_i64(c, &t->end_ns, t->start_ns);
  if (e->end == CS_END_STOPPED) {
    int64_t stop_tid = e->stop_tid;
    cx_from_i64(c, &stop_tid, e->start_tid);
    if (c->reading)
      e->stop_tid = (int32_t)stop_tid;
  } else if (e->end == CS_END_RECLAIMED) {
    cx_str(c, &t->reclaim);
  }
  cx_payload(c, e);
  if (e->has_link) {
    cx_i32(c, &e->link.peer);
    cs_cx_u8(c, &e->link.channel_id);
    cs_cx_u8(c, &e->link.is_send);
  }
  cx_u32(c, &e->nstates);
  if (x->ctx_missing && e->nstates)
    cx_int(c, &x->abi);
  if (c->bad || !e->nstates)
    return;
  int64_t *ns = (int64_t *)t->state_ns;
  if (c->reading && !c->states(c, e->nstates, &e->states, &ns)) {
    c->bad = true;
    return;
  }
  t->state_ns = ns;
  int64_t prev = t->start_ns;
  for (uint32_t i = 0; i < e->nstates && !c->bad; i++)
    cx_state(c, &e->states[i], &ns[2 * i], &prev);
}

/* ---- timing records ---- */

enum {
  TM_CTX_MISSING = 1,
  TM_HAS_SEQ = 2,
  TM_HAS_GPU = 4,
  TM_BATCHED = 8,
  TM_INCOMPLETE = 16,
  TM_HAS_PROXY = 32,
  TM_API = 64,      /* api_ns is known (not 0) */
  TM_ENQ_STOP = 128 /* enq_stop_ns is known (not 0) */
};
#define TM_PHASE_SHIFT 8

size_t cs_cx_timing_max(const cs_timing *r) {
  const char *s[4] = {r->func, r->datatype, r->algo, r->proto};
  size_t n = 48 * CST_VARINT_MAX + 16;
  for (int i = 0; i < 4; i++)
    n += CS_CX_STR_MAX(s[i] ? strlen(s[i]) : 0);
  return n;
}

void cs_cx_timing(cs_cx *c, cs_timing *r, bool *ctx_missing) {
  cx_delta_u64(c, &r->event_id, &c->prev->timing_id);
  cs_cx_u8(c, &r->etype);
  uint8_t source = (uint8_t)r->source;
  cs_cx_u8(c, &source);
  uint64_t flags =
      (*ctx_missing ? TM_CTX_MISSING : 0) | (r->has_seq ? TM_HAS_SEQ : 0) |
      (r->has_gpu ? TM_HAS_GPU : 0) | (r->batched ? TM_BATCHED : 0) |
      (r->incomplete ? TM_INCOMPLETE : 0) | (r->has_proxy ? TM_HAS_PROXY : 0) |
      (r->api_ns ? TM_API : 0) | (r->enq_stop_ns ? TM_ENQ_STOP : 0) |
      (uint64_t)r->phase_valid << TM_PHASE_SHIFT;
  cs_cx_u64(c, &flags);
  if (c->reading) {
    if (r->etype >= CS_EV_COUNT || source > CS_TIMING_GPU)
      c->bad = true;
    r->source = (cs_timing_source)source;
    *ctx_missing = (flags & TM_CTX_MISSING) != 0;
    r->has_seq = (flags & TM_HAS_SEQ) != 0;
    r->has_gpu = (flags & TM_HAS_GPU) != 0;
    r->batched = (flags & TM_BATCHED) != 0;
    r->incomplete = (flags & TM_INCOMPLETE) != 0;
    r->has_proxy = (flags & TM_HAS_PROXY) != 0;
    r->phase_valid =
        (uint8_t)((flags >> TM_PHASE_SHIFT) & ((1u << CS_TIMING_PHASES) - 1));
  }
  cx_u32(c, &r->ctx);
  cx_i32(c, &r->rank);
  cx_i32(c, &r->nranks);
  cx_str(c, &r->func);
  if (r->has_seq)
    cs_cx_u64(c, &r->seq);
  if (r->etype == CS_EV_P2P)
    cx_i32(c, &r->peer);
  if (r->etype == CS_EV_COLL) {
    cx_str(c, &r->algo);
    cx_str(c, &r->proto);
  }
  cs_cx_u64(c, &r->count);
  cx_str(c, &r->datatype);
  cs_cx_u64(c, &r->bytes);
  cx_delta_i64(c, &r->start_ns, &c->prev->timing_start_ns);
  cx_from_i64(c, &r->stop_ns, r->start_ns);
  if (flags & TM_API)
    cx_from_i64(c, &r->api_ns, r->start_ns);
  cx_from_i64(c, &r->enq_start_ns, r->start_ns);
  if (flags & TM_ENQ_STOP)
    cx_from_i64(c, &r->enq_stop_ns, r->start_ns);
  if (r->has_gpu) {
    cx_from_i64(c, &r->gpu_start_ns, r->start_ns);
    cx_from_i64(c, &r->gpu_stop_ns, r->gpu_start_ns);
    cx_u16(c, &r->gpu_channels);
    cx_u16(c, &r->gpu_rejected);
  }
  for (int ph = 0; ph < CS_TIMING_PHASES; ph++) {
    if (!(r->phase_valid & (1u << ph)))
      continue;
    cx_from_i64(c, &r->phase_start_ns[ph], r->start_ns);
    cx_from_i64(c, &r->phase_stop_ns[ph], r->phase_start_ns[ph]);
  }
  if (r->has_proxy) {
    cx_from_i64(c, &r->proxy_start_ns, r->start_ns);
    cx_from_i64(c, &r->proxy_stop_ns, r->proxy_start_ns);
    cx_u16(c, &r->proxy_ops);
  }
  cx_f64(c, &r->alg_bw);
  cx_f64(c, &r->bus_bw);
}

/* ---- contexts and the writer ---- */

size_t cs_cx_context_max(const cs_fmt_comm *m) {
  return 8 * CST_VARINT_MAX +
         CS_CX_STR_MAX(m->comm_name ? strlen(m->comm_name) : 0);
}

void cs_cx_context(cs_cx *c, uint32_t *serial, cs_fmt_comm *m) {
  cx_u32(c, serial);
  uint8_t has = m->has_comm_info;
  cs_cx_u8(c, &has);
  if (c->reading)
    m->has_comm_info = has != 0;
  cs_cx_u64(c, &m->comm_id);
  cx_int(c, &m->abi);
  cx_int(c, &m->device);
  if (m->has_comm_info)
    cx_str(c, &m->comm_name);
  else if (c->reading)
    m->comm_name = "";
}

size_t cs_cx_writer_max(const cs_fmt *f) {
  return 8 * CST_VARINT_MAX + CS_CX_STR_MAX(f->run_id ? strlen(f->run_id) : 0) +
         CS_CX_STR_MAX(f->hostname ? strlen(f->hostname) : 0);
}

void cs_cx_writer(cs_cx *c, cs_fmt *f) {
  cx_i32(c, &f->pid);
  uint8_t rccl = f->rccl;
  cs_cx_u8(c, &rccl);
  if (c->reading)
    f->rccl = rccl != 0;
  cx_int(c, &f->global_rank);
  cx_str(c, &f->run_id);
  cx_str(c, &f->hostname);
}
