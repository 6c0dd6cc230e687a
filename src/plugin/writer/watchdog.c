/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/writer/watchdog.c — hang detection (see watchdog.h).
 *
 * Data: `ops` maps a Coll/P2p/CeColl id to what was seen at its start (a
 * cs_wd_op from a free list); an entry leaves when its timing record says
 * it completed, or, after a timing that gave up waiting, once nothing of it
 * is in flight any more. `progress` counts per (communicator, function).
 * A scan groups the assembler's live events by operation (root) into a
 * picture: `events` sorted by root, `roots` one entry each.
 */
#include "watchdog.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "context.h"
#include "event_types.h"
#include "nccl_names.h"
#include "u64map.h"
#include "watchdog_verdict.h"

#define MAX_OPS 65536     /* operations remembered at once */
#define MAX_PROGRESS 1024 /* (communicator, function) pairs */
#define MAX_REPORTS 8     /* hang messages per scan; the rest are counted */

typedef struct {
  uint64_t root;
  const cs_event *event;
} root_pair;

typedef struct op_node {
  cs_wd_op op;
  struct op_node *next_free;
} op_node;

struct cs_watchdog {
  double timeout_s;
  const cs_clock_cal *cal;
  int64_t next_scan_ns;
  cs_u64map ops;
  op_node *free_ops;
  size_t nops;
  uint64_t ops_untracked; /* MAX_OPS reached */
  cs_wd_progress progress[MAX_PROGRESS];
  size_t nprogress;
  /* Roots reported as hung that have no cs_wd_op (PXN ProxyOps). */
  cs_u64map warned_orphans;
  uint64_t hangs_reported;
  uint64_t recoveries; /* reported operations that moved again or ended */
  /* The latest picture (scratch reused across scans). */
  cs_wd_picture pic;
  const cs_event **scratch; /* live events, then picture.events */
  root_pair *pairs;
  size_t scratch_cap;
  size_t roots_cap;
};

/* ---- lifecycle ---- */

cs_watchdog *cs_watchdog_create(double timeout_s, const cs_clock_cal *cal) {
  cs_watchdog *w = calloc(1, sizeof *w);
  if (!w)
    return NULL;
  w->timeout_s = timeout_s;
  w->cal = cal;
  if (!cs_u64map_init(&w->ops, 1024) ||
      !cs_u64map_init(&w->warned_orphans, 16)) {
    cs_watchdog_destroy(w);
    return NULL;
  }
  return w;
}

void cs_watchdog_destroy(cs_watchdog *w) {
  if (!w)
    return;
  if (w->ops.slots)
    for (size_t i = 0; i < cs_u64map_capacity(&w->ops); i++)
      if (w->ops.slots[i].key)
        free(w->ops.slots[i].value);
  for (op_node *n = w->free_ops, *next; n; n = next) {
    next = n->next_free;
    free(n);
  }
  cs_u64map_free(&w->ops);
  cs_u64map_free(&w->warned_orphans);
  free(w->pic.roots);
  free(w->scratch);
  free(w->pairs);
  free(w);
}

uint64_t cs_watchdog_hangs_reported(const cs_watchdog *w) {
  return w->hangs_reported;
}

uint64_t cs_watchdog_recoveries(const cs_watchdog *w) {
  return w->recoveries;
}

/* ---- feeding ---- */

static cs_wd_progress *progress_for(cs_watchdog *w, uint32_t ctx,
                                    const char *func) {
  if (!func)
    func = "";
  for (size_t i = 0; i < w->nprogress; i++) {
    cs_wd_progress *p = &w->progress[i];
    if (p->ctx == ctx && strncmp(p->func, func, sizeof p->func - 1) == 0)
      return p;
  }
  if (w->nprogress == MAX_PROGRESS)
    return NULL;
  cs_wd_progress *p = &w->progress[w->nprogress++];
  memset(p, 0, sizeof *p);
  p->ctx = ctx;
  snprintf(p->func, sizeof p->func, "%s", func);
  return p;
}

static bool is_operation(uint8_t etype) {
  return etype == CS_EV_COLL || etype == CS_EV_P2P || etype == CS_EV_CE_COLL;
}

void cs_watchdog_take_operation(cs_watchdog *w, const cs_event *e) {
  if (!is_operation(e->etype))
    return;
  if (w->nops >= MAX_OPS) {
    w->ops_untracked++;
    return;
  }
  op_node *n = w->free_ops;
  if (n)
    w->free_ops = n->next_free;
  else if (!(n = malloc(sizeof *n)))
    return;
  cs_wd_op *op = &n->op;
  memset(op, 0, sizeof *op);
  op->id = e->id;
  op->etype = e->etype;
  op->ctx = e->ctx;
  op->rank = e->rank;
  op->start_ns = cs_clock_to_epoch_ns(w->cal, e->start_raw);
  op->peer = -1;
  switch (e->etype) {
  case CS_EV_COLL:
    op->func = e->p.coll.func;
    op->datatype = e->p.coll.datatype;
    op->count = e->p.coll.count;
    op->root = e->p.coll.root;
    op->seq = e->p.coll.seq;
    op->has_seq = true;
    break;
  case CS_EV_CE_COLL:
    op->func = e->p.ce_coll.func;
    op->datatype = e->p.ce_coll.datatype;
    op->count = e->p.ce_coll.count;
    op->root = e->p.ce_coll.root;
    op->seq = e->p.ce_coll.seq;
    op->has_seq = true;
    break;
  default: /* P2p */
    op->func = e->p.p2p.func;
    op->datatype = e->p.p2p.datatype;
    op->count = e->p.p2p.count;
    op->peer = e->p.p2p.peer;
    break;
  }
  if (!cs_u64map_put(&w->ops, op->id, n)) {
    n->next_free = w->free_ops;
    w->free_ops = n;
    return;
  }
  w->nops++;
  cs_wd_progress *p = progress_for(w, op->ctx, op->func);
  if (p) {
    p->started++;
    if (op->has_seq && (!p->has_seq || op->seq > p->last_started_seq))
      p->last_started_seq = op->seq;
    p->has_seq |= op->has_seq;
  }
}

void cs_watchdog_take_kernel_stop(cs_watchdog *w, const cs_event *e) {
  /* only a stop says the GPU finished (a reclaimed one never stopped) */
  if (e->etype != CS_EV_KERNEL_CH || e->end != CS_END_STOPPED ||
      e->parent_kind != CS_PARENT_LOCAL || e->p.kernel_ch.channel_id >= 64)
    return;
  op_node *n = cs_u64map_get(&w->ops, e->parent);
  if (n)
    n->op.kernel_channels_done |= UINT64_C(1) << e->p.kernel_ch.channel_id;
}

static void forget_op(cs_watchdog *w, uint64_t id) {
  op_node *n = cs_u64map_remove(&w->ops, id);
  if (!n)
    return;
  n->next_free = w->free_ops;
  w->free_ops = n;
  w->nops--;
}

void cs_watchdog_timing(cs_watchdog *w, const cs_timing *t) {
  op_node *n = cs_u64map_get(&w->ops, t->event_id);
  if (!n)
    return;
  cs_wd_op *op = &n->op;
  op->timing_done = true;
  if (t->incomplete)
    return; /* gave up waiting: its events may still be in flight */
  cs_wd_progress *p = progress_for(w, op->ctx, op->func);
  if (p) {
    p->finished++;
    if (op->has_seq && (!p->any_finished || op->seq > p->last_finished_seq))
      p->last_finished_seq = op->seq;
    p->any_finished = true;
  }
  if (!op->warned_ns)
    forget_op(w, op->id); /* a reported one is forgotten by the next scan */
}

/* ---- scanning ---- */

bool cs_watchdog_due(const cs_watchdog *w, int64_t now_ns) {
  return now_ns >= w->next_scan_ns;
}

/* The operation an event belongs to, or 0 for events that belong to none
 * (API events, Group, ProxyCtrl). */
static uint64_t root_of(const cs_assembler *a, const cs_event *e) {
  const cs_event *cur = e;
  for (int depth = 0; depth < 4; depth++) {
    switch (cur->etype) {
    case CS_EV_COLL:
    case CS_EV_P2P:
    case CS_EV_CE_COLL:
      return cur->id;
    case CS_EV_PROXY_OP:
      if (cur->parent_kind != CS_PARENT_LOCAL)
        return cur->id; /* PXN: the Coll is another process's */
      return cur->parent;
    case CS_EV_KERNEL_CH:
    case CS_EV_KERNEL_PHASE:
    case CS_EV_CE_SYNC:
    case CS_EV_CE_BATCH:
      return cur->parent_kind == CS_PARENT_LOCAL ? cur->parent : 0;
    case CS_EV_PROXY_STEP:
    case CS_EV_NET_PLUGIN: {
      if (cur->parent_kind != CS_PARENT_LOCAL)
        return 0;
      const cs_event *up = cs_asm_live_get(a, cur->parent);
      if (!up)
        return cur->parent; /* its ProxyOp ended: the ProxyOp is the root */
      cur = up;
      break;
    }
    default:
      return 0;
    }
  }
  return 0;
}

/* How deep an event sits: the deepest one says what the operation waits
 * for. */
static int depth_of(uint8_t etype) {
  switch (etype) {
  case CS_EV_PROXY_STEP: /* says channel, peer, direction and state */
    return 4;
  case CS_EV_NET_PLUGIN: /* deeper, but says less */
    return 3;
  case CS_EV_PROXY_OP:
    return 2;
  case CS_EV_KERNEL_CH:
  case CS_EV_KERNEL_PHASE:
  case CS_EV_CE_SYNC:
  case CS_EV_CE_BATCH:
    return 1;
  default:
    return 0;
  }
}

/* A ProxyOp that never progressed and never got a step is one NCCL will
 * never profile (CollNet, memcpy transports): not a sign of a hang. */
static bool counts_as_in_flight(const cs_event *e) {
  return !(e->etype == CS_EV_PROXY_OP && !e->progressed && !e->has_children);
}

static bool grow_scratch(cs_watchdog *w, size_t n) {
  if (n <= w->scratch_cap)
    return true;
  size_t cap = w->scratch_cap ? w->scratch_cap : 1024;
  while (cap < n)
    cap *= 2;
  const cs_event **ev = realloc(w->scratch, cap * sizeof *ev);
  if (!ev)
    return false;
  w->scratch = ev;
  root_pair *pairs = realloc(w->pairs, cap * sizeof *pairs);
  if (!pairs)
    return false;
  w->pairs = pairs;
  w->scratch_cap = cap;
  return true;
}

static int by_root(const void *x, const void *y) {
  uint64_t a = ((const root_pair *)x)->root, b = ((const root_pair *)y)->root;
  return a < b ? -1 : a > b;
}

static void add_to_root(cs_watchdog *w, cs_wd_root *r, const cs_event *e) {
  r->nevents++;
  if (!counts_as_in_flight(e))
    return;
  r->counts = true;
  int64_t start = cs_clock_to_epoch_ns(w->cal, e->start_raw);
  int64_t act = cs_clock_to_epoch_ns(w->cal, e->activity_raw);
  if (start < r->first_start_ns)
    r->first_start_ns = start;
  if (act > r->last_activity_ns)
    r->last_activity_ns = act;
  int d = depth_of(e->etype),
      dw = r->waiting ? depth_of(r->waiting->etype) : -1;
  if (d > dw || (d == dw && e->activity_raw < r->waiting->activity_raw))
    r->waiting = e;
}

static void build_picture(cs_watchdog *w, const cs_assembler *a,
                          int64_t now_ns) {
  cs_wd_picture *pic = &w->pic;
  pic->now_ns = now_ns;
  pic->timeout_s = w->timeout_s;
  pic->nroots = 0;
  pic->nevents = 0;
  pic->progress = w->progress;
  pic->nprogress = w->nprogress;
  size_t live = cs_asm_get_counters(a)->live_now;
  if (live == 0 || !grow_scratch(w, live))
    return;
  size_t n = cs_asm_live_events(a, w->scratch, live);

  /* The events that belong to an operation, sorted by operation. */
  size_t kept = 0;
  for (size_t i = 0; i < n; i++) {
    uint64_t root = root_of(a, w->scratch[i]);
    if (root) {
      w->pairs[kept].root = root;
      w->pairs[kept].event = w->scratch[i];
      kept++;
    }
  }
  if (kept == 0)
    return;
  qsort(w->pairs, kept, sizeof *w->pairs, by_root);
  size_t nroots = 0;
  for (size_t i = 0; i < kept; i++)
    if (i == 0 || w->pairs[i].root != w->pairs[i - 1].root)
      nroots++;
  if (nroots > w->roots_cap) {
    cs_wd_root *r = realloc(pic->roots, nroots * sizeof *r);
    if (!r)
      return;
    pic->roots = r;
    w->roots_cap = nroots;
  }
  for (size_t i = 0; i < kept; i++) {
    if (i == 0 || w->pairs[i].root != w->pairs[i - 1].root) {
      cs_wd_root *r = &pic->roots[pic->nroots++];
      memset(r, 0, sizeof *r);
      r->root_id = w->pairs[i].root;
      op_node *node = cs_u64map_get(&w->ops, r->root_id);
      r->op = node ? &node->op : NULL;
      r->first_event = i;
      r->first_start_ns = INT64_MAX;
      r->last_activity_ns = INT64_MIN;
    }
    w->scratch[i] = w->pairs[i].event; /* events in root order */
    add_to_root(w, &pic->roots[pic->nroots - 1], w->pairs[i].event);
  }
  for (size_t i = 0; i < pic->nroots; i++) {
    cs_wd_root *r = &pic->roots[i];
    if (r->op && r->op->start_ns < r->first_start_ns)
      r->first_start_ns = r->op->start_ns;
    r->hung = w->timeout_s > 0 && r->counts &&
              (double)(now_ns - r->last_activity_ns) > w->timeout_s * 1e9;
  }
  pic->events = w->scratch;
  pic->nevents = kept;
}

static bool in_picture(const cs_wd_picture *pic, uint64_t root) {
  size_t lo = 0, hi = pic->nroots;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (pic->roots[mid].root_id < root)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < pic->nroots && pic->roots[lo].root_id == root;
}

const cs_wd_picture *cs_watchdog_picture(cs_watchdog *w, const cs_assembler *a,
                                         int64_t now_ns) {
  build_picture(w, a, now_ns);
  return &w->pic;
}

/* ---- messages ---- */

static const char *func_or(const char *f, const char *fallback) {
  return f && *f ? f : fallback;
}

const char *cs_watchdog_last_state(const cs_event *e) {
  if (e->nstates == 0)
    return NULL;
  const cs_context *c = cs_ctx_get(e->ctx);
  return cs_state_name((int)e->states[e->nstates - 1].state, c ? c->abi : 6, 0);
}

void cs_watchdog_describe_wait(const cs_event *e, const cs_clock_cal *cal,
                               int64_t now_ns, char *out, size_t outlen) {
  double idle =
      (double)(now_ns - cs_clock_to_epoch_ns(cal, e->activity_raw)) / 1e9;
  const char *state = cs_watchdog_last_state(e);
  switch (e->etype) {
  case CS_EV_PROXY_STEP:
  case CS_EV_NET_PLUGIN: {
    char where[96] = "";
    if (e->has_link)
      snprintf(where, sizeof where, "channel %u, ", e->link.channel_id);
    char dir[64] = "";
    if (e->has_link)
      snprintf(dir, sizeof dir, " (%s peer %d)",
               e->link.is_send ? "send to" : "recv from", e->link.peer);
    if (e->etype == CS_EV_PROXY_STEP)
      snprintf(out, outlen, "%sProxyStep %d%s %s%s for %.1f s", where,
               e->p.proxy_step.step, dir, state ? "in " : "waiting",
               state ? state : "", idle);
    else
      snprintf(out, outlen, "%snetwork event%s waiting for %.1f s", where, dir,
               idle);
    break;
  }
  case CS_EV_PROXY_OP:
    snprintf(out, outlen,
             "channel %u, ProxyOp (%s peer %d, %d steps)%s%s for %.1f s",
             e->p.proxy_op.channel_id,
             e->p.proxy_op.is_send ? "send to" : "recv from",
             e->p.proxy_op.peer, e->p.proxy_op.n_steps, state ? " in " : "",
             state ? state : " waiting", idle);
    break;
  case CS_EV_KERNEL_CH:
  case CS_EV_KERNEL_PHASE:
    snprintf(out, outlen, "channel %u, kernel running on the GPU for %.1f s",
             e->etype == CS_EV_KERNEL_CH ? e->p.kernel_ch.channel_id
                                         : e->p.kernel_phase.channel_id,
             idle);
    break;
  default:
    snprintf(out, outlen, "%s not finished for %.1f s",
             cs_etype_json_name((cs_etype)e->etype), idle);
    break;
  }
}

static void describe_root(const cs_watchdog *w, const cs_wd_root *r,
                          int64_t now_ns, bool with_verdict, char *out,
                          size_t outlen) {
  const cs_wd_op *op = r->op;
  double age = (double)(now_ns - r->first_start_ns) / 1e9;
  double idle = (double)(now_ns - r->last_activity_ns) / 1e9;
  char what[160];
  char comm[200] = "";
  uint32_t ctx = op ? op->ctx : (r->waiting ? r->waiting->ctx : 0);
  int32_t rank = op ? op->rank : (r->waiting ? r->waiting->rank : -1);
  const cs_context *c = cs_ctx_get(ctx);
  if (c && c->has_comm_info)
    snprintf(comm, sizeof comm, " (comm 0x%llx%s%s%s)",
             (unsigned long long)c->comm_id, c->comm_name[0] ? " \"" : "",
             c->comm_name, c->comm_name[0] ? "\"" : "");
  if (c && c->rank >= 0 && rank < 0)
    rank = c->rank;
  if (op && op->etype == CS_EV_P2P)
    snprintf(what, sizeof what, "%s %s peer %d",
             func_or(op->func, nccl_event_name(NCCL_EV_P2P)),
             op->func && op->func[0] == 'R' ? "from" : "to", op->peer);
  else if (op)
    snprintf(what, sizeof what, "%s seqNumber %llu",
             func_or(op->func, nccl_event_name(NCCL_EV_COLL)),
             (unsigned long long)op->seq);
  else
    snprintf(what, sizeof what, "a network operation of another process");
  char wait[256] = "";
  if (r->waiting)
    cs_watchdog_describe_wait(r->waiting, w->cal, now_ns, wait, sizeof wait);
  char because[320] = "";
  if (with_verdict) {
    cs_wd_verdict verdict;
    cs_wd_verdict_of(&w->pic, r, &verdict);
    cs_wd_verdict_text(&verdict, because, sizeof because);
  }
  snprintf(out, outlen,
           "rank %d%s: %s in flight for %.1f s, no progress for %.1f s; "
           "waiting: %s%s%s",
           rank, comm, what, age, idle, wait[0] ? wait : "(nothing recorded)",
           because[0] ? "; verdict: " : "", because);
}

static int64_t *warned_slot(cs_watchdog *w, const cs_wd_root *r) {
  if (r->op)
    return &((cs_wd_op *)r->op)->warned_ns;
  return NULL;
}

size_t cs_watchdog_scan(cs_watchdog *w, const cs_assembler *a, int64_t now_ns,
                        void (*say)(void *arg, bool warning, const char *text),
                        void *arg, const cs_wd_picture **picture) {
  double every = w->timeout_s / 4;
  if (every < 0.1)
    every = 0.1;
  if (every > 1.0)
    every = 1.0;
  w->next_scan_ns = now_ns + (int64_t)(every * 1e9);
  build_picture(w, a, now_ns);
  cs_wd_picture *pic = &w->pic;
  if (picture)
    *picture = pic;
  size_t fresh = 0, unreported = 0;
  char text[1024];
  for (size_t i = 0; i < pic->nroots; i++) {
    cs_wd_root *r = &pic->roots[i];
    int64_t *warned = warned_slot(w, r);
    bool orphan_warned =
        !warned && cs_u64map_get(&w->warned_orphans, r->root_id) != NULL;
    bool was_warned = (warned && *warned) || orphan_warned;
    if (r->hung && !was_warned) {
      fresh++;
      w->hangs_reported++;
      if (warned)
        *warned = now_ns;
      else
        cs_u64map_put(&w->warned_orphans, r->root_id, (void *)(uintptr_t)1);
      if (fresh <= MAX_REPORTS) {
        describe_root(w, r, now_ns, true, text, sizeof text);
        say(arg, true, text);
      } else {
        unreported++;
      }
    } else if (!r->hung && was_warned && r->counts) {
      double stuck = warned ? (double)(now_ns - *warned) / 1e9 : 0;
      if (warned)
        *warned = 0;
      else
        cs_u64map_remove(&w->warned_orphans, r->root_id);
      describe_root(w, r, now_ns, false, text, sizeof text);
      char moved[1200];
      snprintf(moved, sizeof moved,
               "progressing again (%.1f s after the "
               "warning): %s",
               stuck, text);
      say(arg, false, moved);
      w->recoveries++;
    }
  }
  if (unreported) {
    snprintf(text, sizeof text,
             "... and %zu more operations without progress "
             "(see the snapshot)",
             unreported);
    say(arg, true, text);
  }
  /* What is over: a reported operation with nothing in flight any more is
   * said to be over (once); an operation whose timing was emitted and that
   * has nothing in flight is forgotten. */
  size_t cap = cs_u64map_capacity(&w->ops);
  uint64_t done[256];
  size_t ndone = 0;
  for (size_t i = 0; i < cap && ndone < 256; i++) {
    if (!w->ops.slots[i].key)
      continue;
    cs_wd_op *op = &((op_node *)w->ops.slots[i].value)->op;
    if (!op->warned_ns && !op->timing_done)
      continue;
    if (in_picture(pic, op->id))
      continue;
    if (op->warned_ns) {
      snprintf(text, sizeof text,
               "rank %d: %s seqNumber %llu is no longer in flight (%.1f s "
               "after the warning)",
               op->rank, func_or(op->func, "operation"),
               (unsigned long long)op->seq,
               (double)(now_ns - op->warned_ns) / 1e9);
      say(arg, false, text);
      op->warned_ns = 0;
      w->recoveries++;
    }
    if (op->timing_done)
      done[ndone++] = op->id;
  }
  for (size_t i = 0; i < ndone; i++)
    forget_op(w, done[i]);
  return fresh;
}
