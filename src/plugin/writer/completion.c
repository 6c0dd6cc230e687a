/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/writer/completion.c — completion tracking (see completion.h).
 *
 * Data: `trackers` maps a Coll/P2p/CeColl id to its tracker. A child may
 * start before its parent's start record is processed (different threads'
 * rings), so a tracker can exist as a placeholder, filled in when the parent
 * shows up. `api` remembers the start times of the latest API_CACHE
 * CollApi/P2pApi events of all threads, oldest replaced first, found by
 * their full id through `api_by_id` (a Coll names its CollApi as parent,
 * possibly after its call returned: grouped calls start their Colls at the
 * group's end). Not by the id's low bits: each thread draws ids from a
 * block of its own, and calls of different threads would evict each
 * other. `clocks` holds one GPU
 * clock calibration per GPU (by UUID, else per context). `batches`
 * remembers recent KernelCh stamp pairs by (context, channel) to find
 * collectives that shared a work batch. `channels` maps recent KernelCh ids
 * to their operation: a KernelPhase (NCCL 2.31) names its KernelCh as
 * parent, and its stamps belong to that channel's operation. It is indexed
 * by a hash of the id (channel_slot), not its low bits: each thread draws
 * ids from a block of its own (hot/ring.c), so the profiler threads of a
 * process's GPUs, which start their KernelChs in step, would otherwise
 * land on the same slots and lose each other's phases.
 */
#include "completion.h"

#include <stdlib.h>
#include <string.h>

#include "context.h"
#include "event_types.h"
#include "gpu_clock.h"
#include "nccl_names.h"
#include "u64map.h"

#define API_CACHE 4096   /* CollApi/P2pApi starts remembered */
#define BATCH_TABLE 4096 /* power of two */
#define CHANNEL_CACHE_BITS 12
#define CHANNEL_CACHE (1u << CHANNEL_CACHE_BITS)
#define MAX_GPUS 64
/* A stamp can precede its collective's enqueue (the kernel is launched
 * before NCCL's Group/Coll callbacks) and follow its own callback only by
 * clock error: tolerances for the consistency checks. */
#define STAMP_EARLY_NS INT64_C(50000000)
#define STAMP_LATE_NS INT64_C(1000000)

typedef struct {
  uint64_t id;
  bool have_event; /* the Coll/P2p/CeColl itself has started */
  bool ended;      /* ... and ended (stopped, reclaimed or in flight) */
  uint8_t etype;
  uint32_t ctx;
  int32_t rank;
  const char *func, *datatype, *algo, *proto;
  uint64_t count, seq;
  bool has_seq;
  int32_t peer;
  uint8_t nchannels;
  int64_t api_ns;
  int64_t enq_start_ns, enq_stop_ns;
  uint16_t kc_started, kc_ended, kc_valid, kc_rejected;
  /* GPU stamps kept raw (GPU clock) and converted once, at emission, with
   * the best calibration by then: channels then share one offset and the
   * span's duration is exact in GPU time. */
  uint64_t gpu_start_ptimer, gpu_stop_ptimer;
  uint32_t gpu_ctx;
  uint16_t po_started, po_ended;
  uint16_t aborted_children; /* ended by reclaim at finalize/exit, or a
                                kernel channel that never stopped */
  int64_t proxy_start, proxy_stop;
  /* KernelPhase stamps (GPU clock), per phase: earliest start, latest end
   * over the operation's channels; bit p of phase_valid says phase p. */
  uint64_t phase_start_ptimer[CS_TIMING_PHASES];
  uint64_t phase_stop_ptimer[CS_TIMING_PHASES];
  uint8_t phase_valid;
  bool batched;
  int64_t created_ns;
  int64_t last_activity_ns;
} tracker;

typedef struct {
  uint64_t key; /* 0 = empty */
  cs_gpu_clock clock;
} gpu_slot;

typedef struct {
  uint32_t ctx;
  uint8_t channel;
  uint64_t start, stop;
  uint64_t coll;
} batch_entry;

typedef struct {
  uint64_t id;
  int64_t start_ns;
  bool graph_captured; /* its Colls are graph replays, not this call */
} api_entry;

typedef struct {
  uint64_t kernel_ch; /* KernelCh id */
  uint64_t op;        /* its tracked operation's id */
} channel_entry;

struct cs_completion {
  cs_completion_config cfg;
  cs_u64map trackers;
  api_entry api[API_CACHE]; /* a ring: api_next is the oldest (id 0: free) */
  size_t api_next;
  cs_u64map api_by_id; /* CollApi/P2pApi id -> its entry in `api` */
  gpu_slot gpus[MAX_GPUS];
  batch_entry batches[BATCH_TABLE];
  channel_entry channels[CHANNEL_CACHE];
  int64_t now_ns;                 /* the writer's latest notion of "now" */
  cs_clock_past_cache clock_past; /* the segment of the last older stamp */
  cs_completion_counters c;
};

/* ---- bytes and bandwidth (docs/metrics.md has the table) ---- */

static bool is(const char *func, const char *name) {
  return func && strcmp(func, name) == 0;
}

uint64_t cs_collective_bytes(const char *func, uint64_t count,
                             const char *datatype, int nranks) {
  uint64_t size = count * nccl_datatype_size(datatype);
  uint64_t n = nranks > 0 ? (uint64_t)nranks : 1;
  /* nccl-tests report the whole buffer for these; NCCL's count is one
   * rank's part (AllGather counts bytes already, as ncclInt8). */
  if (is(func, "AllGather") || is(func, "ReduceScatter") ||
      is(func, "AlltoAll") || is(func, "Gather") || is(func, "Scatter"))
    return size * n;
  return size;
}

double cs_bus_bw_factor(const char *func, int nranks) {
  double n = nranks > 0 ? nranks : 1;
  if (is(func, "AllReduce"))
    return 2.0 * (n - 1) / n;
  if (is(func, "AllGather") || is(func, "ReduceScatter") ||
      is(func, "AlltoAll") || is(func, "Gather") || is(func, "Scatter"))
    return (n - 1) / n;
  return 1.0; /* Broadcast, Reduce, Send, Recv, SendRecv */
}

/* ---- lifecycle ---- */

cs_completion *cs_completion_create(const cs_completion_config *cfg) {
  cs_completion *c = calloc(1, sizeof *c);
  if (!c)
    return NULL;
  c->cfg = *cfg;
  if (!cs_u64map_init(&c->trackers, 1024)) {
    free(c);
    return NULL;
  }
  /* twice the ring: the map stays under half full and never grows */
  if (!cs_u64map_init(&c->api_by_id, 2 * API_CACHE)) {
    cs_u64map_free(&c->trackers);
    free(c);
    return NULL;
  }
  return c;
}

void cs_completion_destroy(cs_completion *c) {
  if (!c)
    return;
  size_t cap = cs_u64map_capacity(&c->trackers);
  for (size_t i = 0; i < cap; i++)
    if (c->trackers.slots[i].key)
      free(c->trackers.slots[i].value);
  cs_u64map_free(&c->trackers);
  cs_u64map_free(&c->api_by_id);
  free(c);
}

const cs_completion_counters *
cs_completion_get_counters(const cs_completion *c) {
  return &c->c;
}

static int64_t ns_of(cs_completion *c, uint64_t raw) {
  return cs_clock_to_epoch_ns_cached(c->cfg.cal, &c->clock_past, raw);
}

static tracker *tracker_for(cs_completion *c, uint64_t id, bool create) {
  tracker *t = cs_u64map_get(&c->trackers, id);
  if (t || !create)
    return t;
  t = calloc(1, sizeof *t);
  if (!t || !cs_u64map_put(&c->trackers, id, t)) {
    free(t);
    return NULL;
  }
  t->id = id;
  t->created_ns = c->now_ns;
  t->last_activity_ns = c->now_ns;
  c->c.pending++;
  return t;
}

static cs_gpu_clock *clock_for(cs_completion *c, uint32_t ctx) {
  const cs_context *cx = cs_ctx_get(ctx);
  uint64_t key = 0;
  if (cx && cx->gpu_uuid[0]) {
    for (const char *s = cx->gpu_uuid; *s; s++) /* FNV-1a */
      key = (key ^ (unsigned char)*s) * UINT64_C(0x100000001b3);
  } else {
    key = UINT64_C(0x8000000000000000) | ctx;
  }
  if (!key)
    key = 1;
  for (int i = 0; i < MAX_GPUS; i++) {
    if (c->gpus[i].key == key)
      return &c->gpus[i].clock;
    if (!c->gpus[i].key) {
      c->gpus[i].key = key;
      cs_gpu_clock_init(&c->gpus[i].clock);
      return &c->gpus[i].clock;
    }
  }
  return &c->gpus[ctx % MAX_GPUS].clock; /* more GPUs than slots: share */
}

static bool is_tracked_type(uint8_t etype) {
  return etype == CS_EV_COLL || etype == CS_EV_P2P || etype == CS_EV_CE_COLL;
}

/* A child of a tracked operation: its id, or 0. */
static uint64_t tracked_parent(const cs_event *e) {
  return e->parent_kind == CS_PARENT_LOCAL ? e->parent : 0;
}

/* The `channels` slot of a KernelCh id: Fibonacci hashing, so that ids
 * at the same offset of different threads' blocks spread out. */
static size_t channel_slot(uint64_t kernel_ch) {
  return (size_t)((kernel_ch * UINT64_C(0x9E3779B97F4A7C15)) >>
                  (64 - CHANNEL_CACHE_BITS));
}

/* The operation a KernelPhase belongs to (through its KernelCh), if
 * known. */
static tracker *phase_op(cs_completion *c, const cs_event *e) {
  uint64_t kc = tracked_parent(e);
  if (!kc)
    return NULL;
  const channel_entry *ch = &c->channels[channel_slot(kc)];
  if (ch->kernel_ch != kc)
    return NULL;
  return tracker_for(c, ch->op, false);
}

/* ---- starts ---- */

static void fill_from_event(cs_completion *c, tracker *t, const cs_event *e) {
  t->have_event = true;
  t->etype = e->etype;
  t->ctx = e->ctx;
  t->rank = e->rank;
  t->enq_start_ns = ns_of(c, e->start_raw);
  if (e->etype == CS_EV_COLL) {
    t->func = e->p.coll.func;
    t->datatype = e->p.coll.datatype;
    t->algo = e->p.coll.algo;
    t->proto = e->p.coll.proto;
    t->count = e->p.coll.count;
    t->seq = e->p.coll.seq;
    t->has_seq = true;
    t->nchannels = e->p.coll.n_channels;
  } else if (e->etype == CS_EV_P2P) {
    t->func = e->p.p2p.func;
    t->datatype = e->p.p2p.datatype;
    t->count = e->p.p2p.count;
    t->peer = e->p.p2p.peer;
    t->nchannels = e->p.p2p.n_channels;
  } else {
    t->func = e->p.ce_coll.func;
    t->datatype = e->p.ce_coll.datatype;
    t->count = e->p.ce_coll.count;
    t->seq = e->p.ce_coll.seq;
    t->has_seq = true;
  }
  if (e->parent_kind == CS_PARENT_LOCAL) {
    /* A replay of a captured CUDA graph names the capture-time CollApi
     * as parent: that call is not this operation's arrival (apiTs null,
     * readers then use the enqueue start, the replay's host callback). */
    const api_entry *a = cs_u64map_get(&c->api_by_id, e->parent);
    if (a && !a->graph_captured)
      t->api_ns = a->start_ns;
  }
}

/* Remember a CollApi/P2pApi start in place of the oldest one. */
static void api_started(cs_completion *c, const cs_event *e) {
  if (!e->id)
    return; /* 0 is no id (the map's empty key) */
  api_entry *a = &c->api[c->api_next];
  c->api_next = (c->api_next + 1) % API_CACHE;
  if (a->id && cs_u64map_get(&c->api_by_id, a->id) == a)
    cs_u64map_remove(&c->api_by_id, a->id);
  a->id = e->id;
  a->start_ns = ns_of(c, e->start_raw);
  a->graph_captured = e->p.coll_api.graph_captured != 0;
  if (!cs_u64map_put(&c->api_by_id, e->id, a))
    a->id = 0; /* cannot happen (the map never grows); forget it */
}

void cs_completion_started(cs_completion *c, const cs_event *e) {
  if (e->etype == CS_EV_COLL_API || e->etype == CS_EV_P2P_API) {
    api_started(c, e);
    return;
  }
  if (is_tracked_type(e->etype)) {
    tracker *t = tracker_for(c, e->id, true);
    if (t)
      fill_from_event(c, t, e);
    return;
  }
  if (e->etype == CS_EV_KERNEL_PHASE) {
    tracker *t = phase_op(c, e);
    if (t)
      t->last_activity_ns = c->now_ns;
    return; /* its channel's KernelCh stops after it: nothing to wait for */
  }
  if (e->etype != CS_EV_KERNEL_CH && e->etype != CS_EV_PROXY_OP)
    return;
  uint64_t parent = tracked_parent(e);
  if (!parent)
    return;
  tracker *t = tracker_for(c, parent, true);
  if (!t)
    return;
  if (e->etype == CS_EV_KERNEL_CH) {
    channel_entry *ch = &c->channels[channel_slot(e->id)];
    ch->kernel_ch = e->id;
    ch->op = parent;
  }
  if (e->etype == CS_EV_PROXY_OP)
    t->po_started++;
  else
    t->kc_started++;
  t->last_activity_ns = c->now_ns;
}

/* ---- ends ---- */

static bool stop_stamp(const cs_event *e, uint32_t state, uint64_t *ptimer,
                       uint64_t *raw_ts) {
  for (uint32_t i = 0; i < e->nstates; i++) {
    if (e->states[i].state == state) {
      *ptimer = e->states[i].arg;
      *raw_ts = e->states[i].raw_ts;
      return true;
    }
  }
  return false;
}

static void note_batch(cs_completion *c, tracker *t, uint32_t ctx,
                       uint8_t channel, uint64_t start, uint64_t stop) {
  uint64_t h = (start ^ (stop * UINT64_C(0x9E3779B97F4A7C15)) ^
                ((uint64_t)ctx << 8) ^ channel) *
               UINT64_C(0xff51afd7ed558ccd);
  batch_entry *b = &c->batches[(h >> 40) & (BATCH_TABLE - 1)];
  if (b->ctx == ctx && b->channel == channel && b->start == start &&
      b->stop == stop && b->coll != t->id && b->coll) {
    /* Same work batch as another collective: both share these stamps. */
    if (!t->batched)
      c->c.batched++;
    t->batched = true;
    tracker *other = cs_u64map_get(&c->trackers, b->coll);
    if (other && !other->batched) {
      other->batched = true;
      c->c.batched++;
    }
  }
  b->ctx = ctx;
  b->channel = channel;
  b->start = start;
  b->stop = stop;
  b->coll = t->id;
}

/* A KernelPhase ended: its stamps calibrate the GPU clock like a
 * KernelCh's (each callback follows the GPU's stamp) and, when they are
 * consistent, widen the operation's span of that phase. */
static void phase_ended(cs_completion *c, tracker *t, const cs_event *e) {
  uint64_t start_ptimer = e->p.kernel_phase.ptimer, stop_ptimer = 0;
  uint64_t stop_raw = 0;
  uint8_t phase = e->p.kernel_phase.phase_id;
  cs_gpu_clock *g = clock_for(c, e->ctx);
  cs_gpu_clock_sample(g, ns_of(c, e->start_raw), start_ptimer);
  if (!stop_stamp(e, 31, &stop_ptimer, &stop_raw))
    return;
  int64_t seen_stop = ns_of(c, stop_raw);
  cs_gpu_clock_sample(g, seen_stop, stop_ptimer);
  if (phase >= CS_TIMING_PHASES || stop_ptimer < start_ptimer)
    return;
  int64_t ge;
  if (cs_gpu_clock_to_host(g, stop_ptimer, &ge) &&
      ge > seen_stop + STAMP_LATE_NS)
    return; /* not this operation's stamps */
  uint8_t bit = (uint8_t)(1u << phase);
  if (!(t->phase_valid & bit) || start_ptimer < t->phase_start_ptimer[phase])
    t->phase_start_ptimer[phase] = start_ptimer;
  if (!(t->phase_valid & bit) || stop_ptimer > t->phase_stop_ptimer[phase])
    t->phase_stop_ptimer[phase] = stop_ptimer;
  t->phase_valid |= bit;
  t->gpu_ctx = e->ctx;
}

static void kernel_ended(cs_completion *c, tracker *t, const cs_event *e) {
  uint64_t start_ptimer, stop_ptimer = 0, stop_raw = 0;
  uint8_t channel;
  bool ok;
  t->kc_ended++;
  if (!e->p.kernel_ch.has_ptimer)
    return; /* ABI v3: no GPU stamps */
  start_ptimer = e->p.kernel_ch.ptimer;
  channel = e->p.kernel_ch.channel_id;
  ok = stop_stamp(e, 22, &stop_ptimer, &stop_raw);
  cs_gpu_clock *g = clock_for(c, e->ctx);
  int64_t seen_start = ns_of(c, e->start_raw);
  cs_gpu_clock_sample(g, seen_start, start_ptimer);
  if (!ok)
    return; /* never got its stop stamp (reclaimed, in flight) */
  int64_t seen_stop = ns_of(c, stop_raw);
  cs_gpu_clock_sample(g, seen_stop, stop_ptimer);
  int64_t gs, ge;
  if (!cs_gpu_clock_to_host(g, start_ptimer, &gs) ||
      !cs_gpu_clock_to_host(g, stop_ptimer, &ge))
    return;
  /* Consistency (nccl-behaviour §6.11, §9): a ring-overwrite anomaly gives
   * stamps of another work. Reject pairs that cannot be this operation's. */
  bool bad = stop_ptimer < start_ptimer || ge > seen_stop + STAMP_LATE_NS ||
             (t->have_event && gs < t->enq_start_ns - STAMP_EARLY_NS);
  if (bad) {
    t->kc_rejected++;
    c->c.gpu_rejected++;
    return;
  }
  if (!t->kc_valid || start_ptimer < t->gpu_start_ptimer)
    t->gpu_start_ptimer = start_ptimer;
  if (!t->kc_valid || stop_ptimer > t->gpu_stop_ptimer)
    t->gpu_stop_ptimer = stop_ptimer;
  t->gpu_ctx = e->ctx;
  t->kc_valid++;
  note_batch(c, t, e->ctx, channel, start_ptimer, stop_ptimer);
}

void cs_completion_ended(cs_completion *c, const cs_event *e) {
  if (is_tracked_type(e->etype)) {
    tracker *t = tracker_for(c, e->id, false);
    if (!t)
      return;
    t->ended = true;
    t->enq_stop_ns = e->end == CS_END_STOPPED ? ns_of(c, e->stop_raw) : 0;
    t->last_activity_ns = c->now_ns;
    return;
  }
  if (e->etype == CS_EV_KERNEL_PHASE) {
    tracker *t = phase_op(c, e);
    if (t) {
      t->last_activity_ns = c->now_ns;
      if (e->end == CS_END_STOPPED)
        phase_ended(c, t, e);
    }
    return;
  }
  if (e->etype != CS_EV_KERNEL_CH && e->etype != CS_EV_PROXY_OP)
    return;
  uint64_t parent = tracked_parent(e);
  tracker *t = parent ? tracker_for(c, parent, false) : NULL;
  if (!t)
    return;
  /* A kernel channel that never stopped, or any child given up because
   * its communicator ended or the process exited: the operation did not
   * complete (e.g. aborted during a hang), whatever spans were seen. */
  if (e->end == CS_END_INFLIGHT ||
      (e->end == CS_END_RECLAIMED &&
       (e->reclaim == CS_RECLAIM_FINALIZE || e->etype != CS_EV_PROXY_OP)))
    t->aborted_children++;
  t->last_activity_ns = c->now_ns;
  if (e->etype == CS_EV_PROXY_OP) {
    t->po_ended++;
    if (e->end != CS_END_STOPPED)
      return; /* reclaimed: no stop time */
    int64_t s = ns_of(c, e->start_raw), p = ns_of(c, e->stop_raw);
    if (!t->proxy_start || s < t->proxy_start)
      t->proxy_start = s;
    if (p > t->proxy_stop)
      t->proxy_stop = p;
    return;
  }
  kernel_ended(c, t, e);
}

/* ---- emitting ---- */

static bool ready(const cs_completion *c, const tracker *t);

static void emit(cs_completion *c, tracker *t, bool timed_out) {
  cs_timing r;
  memset(&r, 0, sizeof r);
  const cs_context *cx = cs_ctx_get(t->ctx);
  r.event_id = t->id;
  r.etype = t->etype;
  r.ctx = t->ctx;
  r.rank = t->rank;
  r.nranks = cx && cx->has_comm_info ? cx->nranks : 0;
  r.func = t->func;
  r.datatype = t->datatype;
  r.algo = t->algo;
  r.proto = t->proto;
  r.count = t->count;
  r.seq = t->seq;
  r.has_seq = t->has_seq;
  r.peer = t->peer;
  r.bytes = cs_collective_bytes(t->func, t->count, t->datatype, r.nranks);
  r.api_ns = t->api_ns;
  r.enq_start_ns = t->enq_start_ns;
  r.enq_stop_ns = t->enq_stop_ns;
  r.gpu_rejected = t->kc_rejected;
  r.batched = t->batched;
  r.incomplete = t->kc_ended < t->kc_started || t->po_ended < t->po_started ||
                 t->aborted_children > 0;
  int64_t gpu_start;
  if (t->kc_valid && cs_gpu_clock_to_host(clock_for(c, t->gpu_ctx),
                                          t->gpu_start_ptimer, &gpu_start)) {
    r.has_gpu = true;
    r.gpu_start_ns = gpu_start;
    r.gpu_stop_ns =
        gpu_start + (int64_t)(t->gpu_stop_ptimer - t->gpu_start_ptimer);
    r.gpu_channels = t->kc_valid;
  }
  cs_gpu_clock *phase_clock = clock_for(c, t->gpu_ctx);
  for (int ph = 0; ph < CS_TIMING_PHASES; ph++) {
    int64_t ps;
    if (!(t->phase_valid & (1u << ph)) ||
        !cs_gpu_clock_to_host(phase_clock, t->phase_start_ptimer[ph], &ps))
      continue;
    r.phase_valid |= (uint8_t)(1u << ph);
    r.phase_start_ns[ph] = ps;
    r.phase_stop_ns[ph] =
        ps + (int64_t)(t->phase_stop_ptimer[ph] - t->phase_start_ptimer[ph]);
  }
  if (t->proxy_stop) {
    r.has_proxy = true;
    r.proxy_start_ns = t->proxy_start;
    r.proxy_stop_ns = t->proxy_stop;
    r.proxy_ops = t->po_ended;
  }
  if (r.has_gpu) {
    r.source = CS_TIMING_GPU;
    r.start_ns = r.gpu_start_ns;
    r.stop_ns = r.gpu_stop_ns;
  } else if (r.has_proxy) {
    r.source = CS_TIMING_PROXY;
    r.start_ns = r.proxy_start_ns;
    r.stop_ns = r.proxy_stop_ns;
  } else {
    r.source = CS_TIMING_HOST;
    r.start_ns = t->enq_start_ns;
    r.stop_ns = t->enq_stop_ns ? t->enq_stop_ns : t->enq_start_ns;
  }
  double secs = (double)(r.stop_ns - r.start_ns) / 1e9;
  if (r.source != CS_TIMING_HOST && secs > 0 && r.bytes > 0) {
    r.alg_bw = (double)r.bytes / secs;
    r.bus_bw = r.alg_bw * cs_bus_bw_factor(r.func, r.nranks);
  } else {
    r.alg_bw = -1;
    r.bus_bw = -1;
  }
  if (!t->have_event)
    return; /* children of an operation we never saw (not recorded) */
  c->c.emitted[r.source]++;
  if (timed_out)
    c->c.timed_out++;
  if (c->cfg.on_timing)
    c->cfg.on_timing(c->cfg.arg, &r);
}

static bool ready(const cs_completion *c, const tracker *t) {
  if (!t->have_event || !t->ended)
    return false;
  if (t->kc_ended < t->kc_started || t->po_ended < t->po_started)
    return false;
  if (c->now_ns - t->last_activity_ns < c->cfg.grace_ns)
    return false;
  /* With KernelCh on, wait for one per channel (they may come late). */
  const cs_context *cx = cs_ctx_get(t->ctx);
  bool expect_kernel = cx && (cx->mask & (1 << CS_EV_KERNEL_CH)) &&
                       cx->abi >= 4 && t->etype != CS_EV_CE_COLL;
  if (expect_kernel && t->kc_ended < t->nchannels)
    return false;
  return true;
}

/* Collect first: emitting removes from the map. */
static void emit_matching(cs_completion *c, uint32_t only_ctx, bool all) {
  size_t cap = cs_u64map_capacity(&c->trackers);
  size_t n = 0, max = c->trackers.count;
  if (max == 0)
    return;
  tracker **done = malloc(max * sizeof *done);
  bool *timed = malloc(max * sizeof *timed);
  if (!done || !timed) {
    free(done);
    free(timed);
    return;
  }
  for (size_t i = 0; i < cap && n < max; i++) {
    if (!c->trackers.slots[i].key)
      continue;
    tracker *t = c->trackers.slots[i].value;
    bool timed_out = c->now_ns - t->created_ns > c->cfg.timeout_ns;
    bool flush = all && (only_ctx == 0 || t->ctx == only_ctx);
    if (flush || timed_out || ready(c, t)) {
      done[n] = t;
      timed[n] = timed_out && !flush && !ready(c, t);
      n++;
    }
  }
  for (size_t i = 0; i < n; i++) {
    emit(c, done[i], timed[i]);
    cs_u64map_remove(&c->trackers, done[i]->id);
    free(done[i]);
    c->c.pending--;
  }
  free(done);
  free(timed);
}

void cs_completion_set_now(cs_completion *c, int64_t now_ns) {
  c->now_ns = now_ns;
}

void cs_completion_tick(cs_completion *c) {
  emit_matching(c, 0, false);
}

void cs_completion_flush(cs_completion *c, uint32_t ctx) {
  emit_matching(c, ctx, true);
}
