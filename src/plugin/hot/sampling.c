/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/hot/sampling.c — sampling and size filters (see sampling.h).
 *
 * The configuration is written once at session start, before NCCL can call
 * us, and only read afterwards. Point-to-point counters are one array per
 * context: [0, nranks) counts sends to each peer, [nranks, 2*nranks)
 * receives from each peer.
 */
#include "sampling.h"

#include <stdatomic.h>
#include <stdlib.h>

#include "context.h"
#include "event_types.h"
#include "nccl_names.h"
#include "ring.h"

static cs_sampling_config cfg = {1, 1, 1, 0};

typedef struct {
  _Atomic(_Atomic uint64_t *) counts;
  int nranks;
} p2p_counters;

static p2p_counters p2p[CS_MAX_CONTEXTS];

void cs_sampling_configure(const cs_sampling_config *c) {
  cfg = *c;
  if (cfg.coll_every == 0)
    cfg.coll_every = 1;
  if (cfg.p2p_every == 0)
    cfg.p2p_every = 1;
  if (cfg.step_every == 0)
    cfg.step_every = 1;
}

bool cs_sampling_active(void) {
  return cfg.coll_every > 1 || cfg.p2p_every > 1 || cfg.step_every > 1 ||
         cfg.min_bytes > 0;
}

/* splitmix64's finalizer: every input bit affects every output bit. */
static uint64_t mix(uint64_t x) {
  x ^= x >> 30;
  x *= UINT64_C(0xbf58476d1ce4e5b9);
  x ^= x >> 27;
  x *= UINT64_C(0x94d049bb133111eb);
  x ^= x >> 31;
  return x;
}

/* FNV-1a of the function name ("AllReduce"). */
static uint64_t name_hash(const char *s) {
  uint64_t h = UINT64_C(0xcbf29ce484222325);
  for (; s && *s; s++) {
    h ^= (unsigned char)*s;
    h *= UINT64_C(0x100000001b3);
  }
  return h;
}

uint64_t cs_sampling_coll_key(uint64_t comm_id, const char *func,
                              uint64_t seq) {
  return mix(comm_id ^ mix(name_hash(func) ^ mix(seq)));
}

uint64_t cs_sampling_p2p_key(uint64_t comm_id, int32_t sender, int32_t receiver,
                             uint64_t k) {
  uint64_t pair = ((uint64_t)(uint32_t)sender << 32) | (uint32_t)receiver;
  return mix(comm_id ^ mix(pair ^ mix(k)));
}

void cs_sampling_context_added(uint32_t serial, int nranks) {
  p2p_counters *p = &p2p[serial & (CS_MAX_CONTEXTS - 1)];
  _Atomic uint64_t *old = atomic_exchange(&p->counts, NULL);
  free((void *)old);
  if (cfg.p2p_every <= 1 || nranks <= 0)
    return;
  _Atomic uint64_t *counts = calloc((size_t)nranks * 2, sizeof *counts);
  p->nranks = nranks;
  atomic_store_explicit(&p->counts, counts, memory_order_release);
}

void cs_sampling_forget_contexts(void) {
  for (int i = 0; i < CS_MAX_CONTEXTS; i++) {
    _Atomic uint64_t *old = atomic_exchange(&p2p[i].counts, NULL);
    free((void *)old);
  }
}

static uint64_t comm_of(const cs_rec_start *rec, uint64_t legacy_hash) {
  const cs_context *c = cs_ctx_get(rec->h.aux);
  if (c && c->has_comm_info)
    return c->comm_id;
  return legacy_hash; /* v1..v3 descriptors carry it, else 0 */
}

static bool big_enough(const char *datatype, uint64_t count, cs_ring *ring) {
  if (cfg.min_bytes == 0)
    return true;
  unsigned size = nccl_datatype_size(datatype);
  if (size == 0 || count * size >= cfg.min_bytes)
    return true; /* unknown type: never guess small */
  cs_ring_count(&ring->too_small);
  return false;
}

static bool keep_p2p(const cs_rec_start *rec, cs_ring *ring) {
  const cs_p_p2p *p = &rec->p.p2p;
  if (!big_enough(p->datatype, p->count, ring))
    return false;
  if (cfg.p2p_every <= 1)
    return true;
  const cs_context *c = cs_ctx_get(rec->h.aux);
  p2p_counters *pc = &p2p[rec->h.aux & (CS_MAX_CONTEXTS - 1)];
  _Atomic uint64_t *counts =
      atomic_load_explicit(&pc->counts, memory_order_acquire);
  if (!c || !counts || p->peer < 0 || p->peer >= pc->nranks)
    return true; /* cannot count consistently: keep */
  bool is_recv = p->func && p->func[0] == 'R';
  int32_t self = c->rank;
  uint64_t k = atomic_fetch_add_explicit(
      &counts[(is_recv ? pc->nranks : 0) + p->peer], 1, memory_order_relaxed);
  uint64_t key = is_recv ? cs_sampling_p2p_key(c->comm_id, p->peer, self, k)
                         : cs_sampling_p2p_key(c->comm_id, self, p->peer, k);
  if (key % cfg.p2p_every == 0)
    return true;
  cs_ring_count(&ring->sampled_out);
  return false;
}

bool cs_sampling_keep(const cs_rec_start *rec, cs_ring *ring) {
  switch ((cs_etype)rec->h.etype) {
  case CS_EV_COLL: {
    const cs_p_coll *p = &rec->p.coll;
    if (!big_enough(p->datatype, p->count, ring))
      return false;
    if (cfg.coll_every <= 1 ||
        cs_sampling_coll_key(comm_of(rec, p->comm_hash), p->func, p->seq) %
                cfg.coll_every ==
            0)
      return true;
    cs_ring_count(&ring->sampled_out);
    return false;
  }
  case CS_EV_CE_COLL: {
    const cs_p_ce_coll *p = &rec->p.ce_coll;
    if (!big_enough(p->datatype, p->count, ring))
      return false;
    if (cfg.coll_every <= 1 ||
        cs_sampling_coll_key(comm_of(rec, 0), p->func, p->seq) %
                cfg.coll_every ==
            0)
      return true;
    cs_ring_count(&ring->sampled_out);
    return false;
  }
  case CS_EV_P2P:
    return keep_p2p(rec, ring);
  case CS_EV_PROXY_STEP:
    return cfg.step_every <= 1 ||
           (uint32_t)rec->p.proxy_step.step % cfg.step_every == 0;
  default:
    return true;
  }
}
