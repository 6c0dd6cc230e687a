/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/trace/trace_compact_codec.c — compact record bodies, both ways
 * (see trace_compact_codec.h; the layout: docs/trace-format.md "Compact
 * records"). Each function below is the record's layout: the order of its
 * calls is the order of the fields.
 */
#include "trace_compact_codec.h"

#include <string.h>

/* Every helper below takes the direction `rd` (reading) as an argument and
 * is inlined into the two entry points of each record, which pass a
 * constant: the writer's copy has no test of the direction left in it. */
#define CX_INLINE static inline __attribute__((always_inline))

/* ---- scalars ---- */

CX_INLINE void cx_u64(cs_cx *c, bool rd, uint64_t *v) {
  if (!rd) {
    c->out = cst_put_varint(c->out, *v);
    return;
  }
  if (!c->bad && !cst_get_varint(&c->in, c->end, v))
    c->bad = true;
  if (c->bad)
    *v = 0;
}

CX_INLINE void cx_i64(cs_cx *c, bool rd, int64_t *v) {
  uint64_t z = rd ? 0 : cst_zigzag(*v);
  cx_u64(c, rd, &z);
  if (rd)
    *v = cst_unzigzag(z);
}

CX_INLINE void cx_u8(cs_cx *c, bool rd, uint8_t *v) {
  if (!rd) {
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
CX_INLINE void cx_u32(cs_cx *c, bool rd, uint32_t *v) {
  uint64_t w = *v;
  cx_u64(c, rd, &w);
  if (rd) {
    if (w > UINT32_MAX)
      c->bad = true;
    *v = (uint32_t)w;
  }
}

CX_INLINE void cx_u16(cs_cx *c, bool rd, uint16_t *v) {
  uint64_t w = *v;
  cx_u64(c, rd, &w);
  if (rd) {
    if (w > UINT16_MAX)
      c->bad = true;
    *v = (uint16_t)w;
  }
}

CX_INLINE void cx_i32(cs_cx *c, bool rd, int32_t *v) {
  int64_t w = *v;
  cx_i64(c, rd, &w);
  if (rd) {
    if (w < INT32_MIN || w > INT32_MAX)
      c->bad = true;
    *v = (int32_t)w;
  }
}

CX_INLINE void cx_int(cs_cx *c, bool rd, int *v) {
  int32_t w = (int32_t)*v;
  cx_i32(c, rd, &w);
  *v = w;
}

/* `v` as the difference from *prev, which becomes v. */
CX_INLINE void cx_delta_u64(cs_cx *c, bool rd, uint64_t *v, uint64_t *prev) {
  int64_t d = (int64_t)(*v - *prev);
  cx_i64(c, rd, &d);
  if (rd)
    *v = *prev + (uint64_t)d;
  *prev = *v;
}

CX_INLINE void cx_delta_i64(cs_cx *c, bool rd, int64_t *v, int64_t *prev) {
  uint64_t u = (uint64_t)*v, p = (uint64_t)*prev;
  cx_delta_u64(c, rd, &u, &p);
  *v = (int64_t)u;
  *prev = (int64_t)p;
}

/* `v` as the difference from `base` (not kept). */
CX_INLINE void cx_from_i64(cs_cx *c, bool rd, int64_t *v, int64_t base) {
  int64_t d = (int64_t)((uint64_t)*v - (uint64_t)base);
  cx_i64(c, rd, &d);
  if (rd)
    *v = (int64_t)((uint64_t)base + (uint64_t)d);
}

/* A double's bits, 8 bytes little-endian (exact, whatever it holds). */
CX_INLINE void cx_f64(cs_cx *c, bool rd, double *v) {
  uint64_t bits;
  memcpy(&bits, v, sizeof bits);
  for (int i = 0; i < 8; i++) {
    uint8_t b = (uint8_t)(bits >> (8 * i));
    cx_u8(c, rd, &b);
    if (rd)
      bits = (bits & ~((uint64_t)0xff << (8 * i))) | ((uint64_t)b << (8 * i));
  }
  if (rd)
    memcpy(v, &bits, sizeof bits);
}

CX_INLINE void cx_str(cs_cx *c, bool rd, const char **s) {
  if (rd) {
    c->str(c, s);
    return;
  }
  /* The string function gets a copy, so that the writer's own cs_cx never
   * leaves its entry point (see there). */
  cs_cx shared = *c;
  shared.str(&shared, s);
  c->out = shared.out;
  c->bad = shared.bad;
}

/* A GPU timer value (%globaltimer ns): version 3, the difference from
 * the frame's previous one (kernels' timers are close together); version
 * 2, the value. */
CX_INLINE void cx_ptimer(cs_cx *c, bool rd, uint64_t *v) {
  if (c->gpu_deltas)
    cx_delta_u64(c, rd, v, &c->prev->ptimer);
  else
    cx_u64(c, rd, v);
}

/* ---- event payloads, in the order cur_details writes them ---- */

CX_INLINE void cx_coll_api(cs_cx *c, bool rd, uint8_t etype, cs_p_coll_api *p) {
  cx_str(c, rd, &p->func);
  cx_str(c, rd, &p->datatype);
  cx_u64(c, rd, &p->count);
  cx_u64(c, rd, &p->stream);
  cx_u8(c, rd, &p->graph_captured);
  cx_u8(c, rd, &p->has_user_tag);
  if (p->has_user_tag)
    cx_u64(c, rd, &p->user_tag);
  if (etype == CS_EV_COLL_API)
    cx_i32(c, rd, &p->root);
}

/* The 0/1 flags of a Coll in one byte (they are written as booleans). */
enum {
  COLL_KERNEL_VARIANT = 1,
  COLL_SYM = 2,
  COLL_USER_TAG = 4,
  COLL_COLLNET = 8,
  COLL_NVLS = 16
};

CX_INLINE void cx_coll(cs_cx *c, bool rd, cs_p_coll *p) {
  cx_u64(c, rd, &p->seq);
  cx_str(c, rd, &p->func);
  cx_str(c, rd, &p->datatype);
  cx_str(c, rd, &p->algo);
  cx_str(c, rd, &p->proto);
  cx_u64(c, rd, &p->count);
  cx_i32(c, rd, &p->root);
  cx_u64(c, rd, &p->send_buff);
  cx_u64(c, rd, &p->recv_buff);
  cx_u8(c, rd, &p->n_channels);
  cx_u8(c, rd, &p->n_warps);
  cx_u64(c, rd, &p->parent_group);
  uint8_t flags = (uint8_t)((p->has_kernel_variant ? COLL_KERNEL_VARIANT : 0) |
                            (p->is_sym_coll ? COLL_SYM : 0) |
                            (p->has_user_tag ? COLL_USER_TAG : 0) |
                            (p->is_collnet ? COLL_COLLNET : 0) |
                            (p->is_nvls ? COLL_NVLS : 0));
  cx_u8(c, rd, &flags);
  if (rd) {
    p->has_kernel_variant = (flags & COLL_KERNEL_VARIANT) != 0;
    p->is_sym_coll = (flags & COLL_SYM) != 0;
    p->has_user_tag = (flags & COLL_USER_TAG) != 0;
    p->is_collnet = (flags & COLL_COLLNET) != 0;
    p->is_nvls = (flags & COLL_NVLS) != 0;
  }
  if (p->has_kernel_variant)
    cx_str(c, rd, &p->kernel_variant);
  if (p->has_user_tag)
    cx_u64(c, rd, &p->user_tag);
  cx_u64(c, rd, &p->comm_hash);
  cx_u64(c, rd, &p->traffic_bytes);
  cx_u32(c, rd, &p->op);
}

CX_INLINE void cx_p2p(cs_cx *c, bool rd, cs_p_p2p *p) {
  cx_str(c, rd, &p->func);
  cx_str(c, rd, &p->datatype);
  cx_i32(c, rd, &p->peer);
  cx_u64(c, rd, &p->count);
  cx_u64(c, rd, &p->buff);
  cx_u8(c, rd, &p->n_channels);
  cx_u64(c, rd, &p->parent_group);
  cx_u8(c, rd, &p->has_user_tag);
  if (p->has_user_tag)
    cx_u64(c, rd, &p->user_tag);
  cx_u64(c, rd, &p->comm_hash);
}

CX_INLINE void cx_proxy_op(cs_cx *c, bool rd, cs_p_proxy_op *p) {
  cx_u8(c, rd, &p->channel_id);
  cx_i32(c, rd, &p->peer);
  cx_i32(c, rd, &p->n_steps);
  cx_i32(c, rd, &p->chunk_size);
  cx_i32(c, rd, &p->is_send);
  cx_i32(c, rd, &p->pid);
  cx_u8(c, rd, &p->has_rccl);
  if (!p->has_rccl)
    return;
  cs_p_rccl_proxy_op *x = &p->rccl;
  cx_u64(c, rd, &x->comm_hash);
  cx_i64(c, rd, &x->op_count);
  cx_i32(c, rd, &x->trace_func_idx);
  cx_i32(c, rd, &x->trace_protocol);
  cx_i32(c, rd, &x->trace_pattern);
  cx_u32(c, rd, &x->trace_total_bytes);
  cx_u32(c, rd, &x->proxy_nbytes);
  cx_i32(c, rd, &x->raw_proxy_nsteps);
}

CX_INLINE void cx_net(cs_cx *c, bool rd, cs_p_net_plugin *p) {
  cx_i64(c, rd, &p->plugin_id);
  cx_u8(c, rd, &p->net_kind);
  cx_u8(c, rd, &p->has_descr);
  if (!p->has_descr)
    return;
  if (p->net_kind == CS_NET_IB) {
    cx_i32(c, rd, &p->u.ib.device);
    cx_u64(c, rd, &p->u.ib.wr_id);
    cx_i32(c, rd, &p->u.ib.opcode);
    cx_i32(c, rd, &p->u.ib.qp_num);
    cx_u64(c, rd, &p->u.ib.length);
  } else if (p->net_kind == CS_NET_SOCK) {
    cx_i32(c, rd, &p->u.sock.fd);
    cx_i32(c, rd, &p->u.sock.op);
    cx_u64(c, rd, &p->u.sock.length);
  }
}

CX_INLINE void cx_ce_coll(cs_cx *c, bool rd, cs_p_ce_coll *p) {
  cx_u64(c, rd, &p->seq);
  cx_str(c, rd, &p->func);
  cx_str(c, rd, &p->datatype);
  cx_str(c, rd, &p->sync_strategy);
  cx_u64(c, rd, &p->send_buff);
  cx_u64(c, rd, &p->recv_buff);
  cx_u64(c, rd, &p->count);
  cx_u64(c, rd, &p->stream);
  cx_i32(c, rd, &p->root);
  cx_u32(c, rd, &p->batch_size);
  cx_u32(c, rd, &p->num_batches);
  cx_u32(c, rd, &p->ce_seq_num);
  cx_u8(c, rd, &p->intra_batch_sync);
  cx_u8(c, rd, &p->has_user_tag);
  if (p->has_user_tag)
    cx_u64(c, rd, &p->user_tag);
}

CX_INLINE void cx_payload(cs_cx *c, bool rd, cs_event *e) {
  cs_payload *p = &e->p;
  switch (e->etype) {
  case CS_EV_GROUP_API:
    cx_i32(c, rd, &p->group_api.group_depth);
    cx_u8(c, rd, &p->group_api.graph_captured);
    break;
  case CS_EV_COLL_API:
  case CS_EV_P2P_API:
    cx_coll_api(c, rd, e->etype, &p->coll_api);
    break;
  case CS_EV_KERNEL_LAUNCH:
    cx_u64(c, rd, &p->kernel_launch.stream);
    break;
  case CS_EV_COLL:
    cx_coll(c, rd, &p->coll);
    break;
  case CS_EV_P2P:
    cx_p2p(c, rd, &p->p2p);
    break;
  case CS_EV_PROXY_OP:
    cx_proxy_op(c, rd, &p->proxy_op);
    break;
  case CS_EV_PROXY_STEP:
    cx_i32(c, rd, &p->proxy_step.step);
    break;
  case CS_EV_KERNEL_CH:
    cx_u8(c, rd, &p->kernel_ch.channel_id);
    cx_u8(c, rd, &p->kernel_ch.has_ptimer);
    if (p->kernel_ch.has_ptimer)
      cx_ptimer(c, rd, &p->kernel_ch.ptimer);
    break;
  case CS_EV_NET_PLUGIN:
    cx_net(c, rd, &p->net_plugin);
    break;
  case CS_EV_CE_COLL:
    cx_ce_coll(c, rd, &p->ce_coll);
    break;
  case CS_EV_CE_SYNC:
    cx_u8(c, rd, &p->ce_sync.is_complete);
    cx_i32(c, rd, &p->ce_sync.n_ranks);
    break;
  case CS_EV_CE_BATCH:
    cx_u64(c, rd, &p->ce_batch.total_bytes);
    cx_i32(c, rd, &p->ce_batch.num_ops);
    cx_u8(c, rd, &p->ce_batch.use_intra_sync);
    break;
  case CS_EV_KERNEL_PHASE:
    cx_u8(c, rd, &p->kernel_phase.channel_id);
    cx_u8(c, rd, &p->kernel_phase.phase_id);
    cx_str(c, rd, &p->kernel_phase.phase_name);
    cx_ptimer(c, rd, &p->kernel_phase.ptimer);
    break;
  case CS_EV_PROXY_DIAG:
  case CS_EV_UNKNOWN:
    cx_u64(c, rd, &p->unknown.raw_type);
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

/* Does the line of a state read its argument (cs_fmt_state)? Only then is
 * it written. */
static inline bool state_has_arg(uint32_t state, bool diag) {
  return diag || state == 9 || state == 11 || state == 18 || state == 22 ||
         state == 31 || state == 32;
}

CX_INLINE void cx_state(cs_cx *c, bool rd, cs_state_rec *s, int64_t *ns,
                        int64_t *prev, const uint64_t *arg_base) {
  /* Its id and flags in one varint (one byte for ids under 32). */
  uint64_t head = (uint64_t)s->state << 2 | (s->repeat > 1 ? ST_REPEAT : 0) |
                  (s->has_diag ? ST_DIAG : 0);
  cx_u64(c, rd, &head);
  if (rd) {
    if (head >> 2 > UINT32_MAX)
      c->bad = true;
    s->state = (uint32_t)(head >> 2);
    s->has_diag = (head & ST_DIAG) != 0;
  }
  cx_delta_i64(c, rd, &ns[0], prev);
  if (state_has_arg(s->state, s->has_diag) && arg_base) {
    int64_t d = (int64_t)(s->arg - *arg_base); /* wraps: any value */
    cx_i64(c, rd, &d);
    if (rd)
      s->arg = *arg_base + (uint64_t)d;
  } else if (state_has_arg(s->state, s->has_diag)) {
    cx_u64(c, rd, &s->arg);
  }
  if (s->has_diag) {
    cx_u64(c, rd, &s->arg2);
    cx_u64(c, rd, &s->arg3);
  }
  if (head & ST_REPEAT) {
    cx_u32(c, rd, &s->repeat);
    cx_from_i64(c, rd, &ns[1], ns[0]);
  } else if (rd) {
    s->repeat = 1;
    ns[1] = 0;
  }
}

CX_INLINE void cx_event_impl(cs_cx *c, bool rd, cs_event *e,
                             cs_cx_event_extra *x) {
  cs_fmt_times *t = x->times;
  cx_u8(c, rd, &e->etype);
  if (rd && e->etype >= CS_EV_COUNT)
    c->bad = true;
  uint8_t kinds = (uint8_t)(e->parent_kind | e->end << 4);
  cx_u8(c, rd, &kinds);
  uint8_t flags = (uint8_t)((e->parent_hint ? EV_PARENT_HINT : 0) |
                            (e->foreign_owner ? EV_FOREIGN_OWNER : 0) |
                            (e->has_link ? EV_HAS_LINK : 0) |
                            (x->ctx_missing ? EV_CTX_MISSING : 0));
  cx_u8(c, rd, &flags);
  if (rd) {
    e->parent_kind = kinds & 0xf;
    e->end = kinds >> 4;
    if (e->end > CS_END_INFLIGHT)
      c->bad = true;
    e->parent_hint = (flags & EV_PARENT_HINT) != 0;
    e->foreign_owner = (flags & EV_FOREIGN_OWNER) != 0;
    e->has_link = (flags & EV_HAS_LINK) != 0;
    x->ctx_missing = (flags & EV_CTX_MISSING) != 0;
  }
  cx_delta_u64(c, rd, &e->id, &c->prev->event_id);
  if (e->parent_kind == CS_PARENT_LOCAL ||
      e->parent_kind == CS_PARENT_FOREIGN ||
      e->parent_kind == CS_PARENT_UNKNOWN) {
    int64_t d = (int64_t)(e->parent - e->id);
    cx_i64(c, rd, &d);
    if (rd)
      e->parent = e->id + (uint64_t)d;
  }
  cx_u32(c, rd, &e->ctx);
  cx_i32(c, rd, &e->rank);
  if (e->foreign_owner)
    cx_i32(c, rd, &e->origin_pid);
  /* Events are written as they end: their ends are close together. */
  cx_delta_i64(c, rd, &t->end_ns, &c->prev->event_end_ns);
  cx_from_i64(c, rd, &t->start_ns, t->end_ns);
  int64_t tid = e->start_tid;
  cx_delta_i64(c, rd, &tid, &c->prev->tid);
  if (rd)
    e->start_tid = (int32_t)tid;
  if (e->end == CS_END_STOPPED) {
    int64_t stop_tid = e->stop_tid;
    cx_from_i64(c, rd, &stop_tid, e->start_tid);
    if (rd)
      e->stop_tid = (int32_t)stop_tid;
  } else if (e->end == CS_END_RECLAIMED) {
    cx_str(c, rd, &t->reclaim);
  }
  cx_payload(c, rd, e);
  if (e->has_link) {
    cx_i32(c, rd, &e->link.peer);
    cx_u8(c, rd, &e->link.channel_id);
    cx_u8(c, rd, &e->link.is_send);
  }
  cx_u32(c, rd, &e->nstates);
  if (x->ctx_missing && e->nstates)
    cx_int(c, rd, &x->abi);
  if (c->bad || !e->nstates)
    return;
  int64_t *ns = (int64_t *)t->state_ns;
  if (rd && !c->states(c, e->nstates, &e->states, &ns)) {
    c->bad = true;
    return;
  }
  t->state_ns = ns;
  int64_t prev = t->start_ns;
  /* Version 3: a kernel's states' arguments (its stop's GPU timer) as
   * differences from its start's timer. */
  const uint64_t *arg_base = NULL;
  if (c->gpu_deltas && e->etype == CS_EV_KERNEL_CH && e->p.kernel_ch.has_ptimer)
    arg_base = &e->p.kernel_ch.ptimer;
  else if (c->gpu_deltas && e->etype == CS_EV_KERNEL_PHASE)
    arg_base = &e->p.kernel_phase.ptimer;
  /* Walked by pointer: no index arithmetic per state. */
  cs_state_rec *s = e->states;
  for (uint32_t i = 0; i < e->nstates && !c->bad; i++, s++, ns += 2)
    cx_state(c, rd, s, ns, &prev, arg_base);
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

size_t cs_cx_timing_max(void) {
  return 48 * CST_VARINT_MAX + 16; /* strings: as for events */
}

CX_INLINE void cx_timing_impl(cs_cx *c, bool rd, cs_timing *r,
                              bool *ctx_missing) {
  cx_delta_u64(c, rd, &r->event_id, &c->prev->timing_id);
  cx_u8(c, rd, &r->etype);
  uint8_t source = (uint8_t)r->source;
  cx_u8(c, rd, &source);
  uint64_t flags =
      (*ctx_missing ? TM_CTX_MISSING : 0) | (r->has_seq ? TM_HAS_SEQ : 0) |
      (r->has_gpu ? TM_HAS_GPU : 0) | (r->batched ? TM_BATCHED : 0) |
      (r->incomplete ? TM_INCOMPLETE : 0) | (r->has_proxy ? TM_HAS_PROXY : 0) |
      (r->api_ns ? TM_API : 0) | (r->enq_stop_ns ? TM_ENQ_STOP : 0) |
      (uint64_t)r->phase_valid << TM_PHASE_SHIFT;
  cx_u64(c, rd, &flags);
  if (rd) {
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
  cx_u32(c, rd, &r->ctx);
  cx_i32(c, rd, &r->rank);
  cx_i32(c, rd, &r->nranks);
  cx_str(c, rd, &r->func);
  if (r->has_seq)
    cx_u64(c, rd, &r->seq);
  if (r->etype == CS_EV_P2P)
    cx_i32(c, rd, &r->peer);
  if (r->etype == CS_EV_COLL) {
    cx_str(c, rd, &r->algo);
    cx_str(c, rd, &r->proto);
  }
  cx_u64(c, rd, &r->count);
  cx_str(c, rd, &r->datatype);
  cx_u64(c, rd, &r->bytes);
  cx_delta_i64(c, rd, &r->start_ns, &c->prev->timing_start_ns);
  cx_from_i64(c, rd, &r->stop_ns, r->start_ns);
  if (flags & TM_API)
    cx_from_i64(c, rd, &r->api_ns, r->start_ns);
  cx_from_i64(c, rd, &r->enq_start_ns, r->start_ns);
  if (flags & TM_ENQ_STOP)
    cx_from_i64(c, rd, &r->enq_stop_ns, r->start_ns);
  if (r->has_gpu) {
    cx_from_i64(c, rd, &r->gpu_start_ns, r->start_ns);
    cx_from_i64(c, rd, &r->gpu_stop_ns, r->gpu_start_ns);
    cx_u16(c, rd, &r->gpu_channels);
    cx_u16(c, rd, &r->gpu_rejected);
  }
  for (int ph = 0; ph < CS_TIMING_PHASES; ph++) {
    if (!(r->phase_valid & (1u << ph)))
      continue;
    cx_from_i64(c, rd, &r->phase_start_ns[ph], r->start_ns);
    cx_from_i64(c, rd, &r->phase_stop_ns[ph], r->phase_start_ns[ph]);
  }
  if (r->has_proxy) {
    cx_from_i64(c, rd, &r->proxy_start_ns, r->start_ns);
    cx_from_i64(c, rd, &r->proxy_stop_ns, r->proxy_start_ns);
    cx_u16(c, rd, &r->proxy_ops);
  }
  cx_f64(c, rd, &r->alg_bw);
  cx_f64(c, rd, &r->bus_bw);
}

/* ---- contexts and the writer ---- */

size_t cs_cx_context_max(void) {
  return 8 * CST_VARINT_MAX; /* its name: as for events */
}

CX_INLINE void cx_context_impl(cs_cx *c, bool rd, uint32_t *serial,
                               cs_fmt_comm *m) {
  cx_u32(c, rd, serial);
  uint8_t has = m->has_comm_info;
  cx_u8(c, rd, &has);
  if (rd)
    m->has_comm_info = has != 0;
  cx_u64(c, rd, &m->comm_id);
  cx_int(c, rd, &m->abi);
  cx_int(c, rd, &m->device);
  if (m->has_comm_info)
    cx_str(c, rd, &m->comm_name);
  else if (rd)
    m->comm_name = "";
}

size_t cs_cx_writer_max(void) {
  return 8 * CST_VARINT_MAX; /* its strings: as for events */
}

CX_INLINE void cx_writer_impl(cs_cx *c, bool rd, cs_fmt *f) {
  cx_i32(c, rd, &f->pid);
  uint8_t rccl = f->rccl;
  cx_u8(c, rd, &rccl);
  if (rd)
    f->rccl = rccl != 0;
  cx_int(c, rd, &f->global_rank);
  cx_str(c, rd, &f->run_id);
  cx_str(c, rd, &f->hostname);
}

/* ---- the entry points, one copy per direction ---- */

/* The writing copies work on a local cs_cx whose address no function sees
 * (cx_str hands the string function a copy): a byte stored through `out`
 * may alias any memory the compiler cannot rule out, so on the caller's
 * cs_cx `out` would be loaded and stored again around every field; on a
 * local one it stays in a register. */
void cs_cx_u64(cs_cx *c, uint64_t *v) {
  if (c->reading)
    cx_u64(c, true, v);
  else
    cx_u64(c, false, v);
}

void cs_cx_event(cs_cx *c, cs_event *e, cs_cx_event_extra *x) {
  if (c->reading) {
    cx_event_impl(c, true, e, x);
  } else {
    cs_cx w = *c;
    cx_event_impl(&w, false, e, x);
    c->out = w.out;
    c->bad = w.bad;
  }
}

unsigned char *cs_cx_event_put(unsigned char *out, cs_cx_prev *prev,
                               cs_cx_str_fn str, void *arg, const cs_event *e,
                               cs_cx_event_extra *x, bool *bad) {
  cs_cx w = {.reading = false,
             .out = out,
             .prev = prev,
             .gpu_deltas = CST_VERSION >= 3, /* the version the plugin writes */
             .str = str,
             .arg = arg};
  /* Writing reads the event's fields and leaves them as they are. */
  cx_event_impl(&w, false, (cs_event *)e, x);
  *bad = w.bad;
  return w.out;
}

void cs_cx_timing(cs_cx *c, cs_timing *r, bool *ctx_missing) {
  if (c->reading) {
    cx_timing_impl(c, true, r, ctx_missing);
  } else {
    cs_cx w = *c;
    cx_timing_impl(&w, false, r, ctx_missing);
    c->out = w.out;
    c->bad = w.bad;
  }
}

void cs_cx_context(cs_cx *c, uint32_t *serial, cs_fmt_comm *m) {
  if (c->reading) {
    cx_context_impl(c, true, serial, m);
  } else {
    cs_cx w = *c;
    cx_context_impl(&w, false, serial, m);
    c->out = w.out;
    c->bad = w.bad;
  }
}

void cs_cx_writer(cs_cx *c, cs_fmt *f) {
  if (c->reading) {
    cx_writer_impl(c, true, f);
  } else {
    cs_cx w = *c;
    cx_writer_impl(&w, false, f);
    c->out = w.out;
    c->bad = w.bad;
  }
}
