/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/plugin/test_assembler.c — the writer's event model, fed with
 * synthetic ring records: exact or downgraded parents, owners inherited
 * through the parent chain (PXN), restarted recv steps, never-stopped
 * ProxyOps, stops before starts, double stops, late states, finalize and
 * exit, the in-flight cap, the accounting identity, and reused events
 * that keep nothing of their earlier life.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <string.h>

#include "assembler.h"
#include "context.h"
#include "event_types.h"

#define MAX_ENDED 64

typedef struct {
  cs_event ended[MAX_ENDED]; /* shallow copies (states not kept) */
  size_t n;
  size_t late;
  uint64_t late_id;
} sink_t;

static void on_event(void *arg, const cs_event *e) {
  sink_t *s = arg;
  if (s->n < MAX_ENDED) {
    s->ended[s->n] = *e;
    s->ended[s->n].states = NULL;
    s->ended[s->n].nstates = e->nstates;
    if (e->nstates)
      s->ended[s->n].inline_states[0] = e->states[0];
  }
  s->n++;
}

static void on_late(void *arg, uint64_t id, const cs_state_rec *st, int32_t tid,
                    uint8_t etype) {
  (void)st;
  (void)tid;
  (void)etype;
  sink_t *s = arg;
  s->late++;
  s->late_id = id;
}

static cs_assembler *make(sink_t *s, unsigned max_live) {
  memset(s, 0, sizeof *s);
  cs_asm_config cfg = {.on_event = on_event,
                       .on_late_state = on_late,
                       .arg = s,
                       .max_live = max_live,
                       .reclaim_ticks = 1000};
  cs_assembler *a = cs_asm_create(&cfg);
  assert_non_null(a);
  return a;
}

static const cs_event *find(const sink_t *s, uint64_t id) {
  for (size_t i = 0; i < s->n && i < MAX_ENDED; i++)
    if (s->ended[i].id == id)
      return &s->ended[i];
  return NULL;
}

/* ---- record builders ---- */

static void start(cs_assembler *a, cs_etype type, uint64_t id, uint64_t ts,
                  uint8_t parent_kind, uint64_t parent, uint32_t ctx,
                  uint8_t extra_flags, int step) {
  cs_unit u[CS_START_MAX_UNITS];
  memset(u, 0, sizeof u);
  cs_rec_start *s = (cs_rec_start *)u;
  s->h.kind = CS_REC_START;
  s->h.units = CS_START_MAX_UNITS;
  s->h.etype = (uint8_t)type;
  s->h.flags = parent_kind | extra_flags;
  s->h.aux = ctx;
  s->h.ts = ts;
  s->h.id = id;
  s->parent = parent;
  s->rank = 3;
  if (type == CS_EV_PROXY_STEP)
    s->p.proxy_step.step = step;
  if (type == CS_EV_PROXY_OP) {
    s->p.proxy_op.peer = 5;
    s->p.proxy_op.channel_id = 2;
    s->p.proxy_op.is_send = 1;
    s->p.proxy_op.pid = 999;
  }
  cs_asm_record(a, u, 100);
}

static void stop(cs_assembler *a, uint64_t id, uint64_t ts, int32_t tid) {
  cs_unit u;
  memset(&u, 0, sizeof u);
  u.h.kind = CS_REC_STOP;
  u.h.units = 1;
  u.h.ts = ts;
  u.h.id = id;
  cs_asm_record(a, &u, tid);
}

static void state(cs_assembler *a, uint64_t id, uint32_t st, uint64_t ts,
                  uint64_t arg) {
  cs_unit u[CS_STATE_DIAG_UNITS]; /* room for the type; 1 unit used */
  memset(u, 0, sizeof u);
  cs_rec_state *r = (cs_rec_state *)u;
  r->h.kind = CS_REC_STATE;
  r->h.units = CS_STATE_UNITS;
  r->h.aux = st;
  r->h.ts = ts;
  r->h.id = id;
  r->arg = arg;
  cs_asm_record(a, u, 100);
}

static void assert_identity(const cs_assembler *a) {
  const cs_asm_counters *c = cs_asm_get_counters(a);
  assert_int_equal(c->starts, c->ended[CS_END_STOPPED] +
                                  c->ended[CS_END_RECLAIMED] +
                                  c->ended[CS_END_INFLIGHT] + c->live_now);
}

/* ---- tests ---- */

static void test_exact_parents_and_order(void **st) {
  (void)st;
  sink_t s;
  cs_assembler *a = make(&s, 1000);
  start(a, CS_EV_GROUP_API, 1, 10, CS_PARENT_NONE, 0, 0, 0, 0);
  start(a, CS_EV_COLL_API, 2, 11, CS_PARENT_LOCAL, 1, 0, 0, 0);
  stop(a, 2, 12, 100);
  start(a, CS_EV_COLL, 3, 13, CS_PARENT_LOCAL, 2, 0, 0, 0);
  stop(a, 3, 14, 100);
  stop(a, 1, 15, 100);
  /* The Coll's children arrive after it stopped: still exact. */
  start(a, CS_EV_KERNEL_CH, 4, 16, CS_PARENT_LOCAL, 3, 0, 0, 0);
  state(a, 4, 22, 17, 5000);
  stop(a, 4, 18, 101);
  assert_int_equal(s.n, 4);
  assert_int_equal(find(&s, 3)->parent_kind, CS_PARENT_LOCAL);
  assert_int_equal(find(&s, 3)->parent, 2);
  assert_int_equal(find(&s, 4)->parent, 3);
  assert_int_equal(find(&s, 4)->stop_tid, 101);
  assert_int_equal(find(&s, 4)->nstates, 1);
  assert_int_equal(find(&s, 4)->inline_states[0].arg, 5000);
  assert_int_equal(cs_asm_get_counters(a)->parents_unknown, 0);
  assert_identity(a);
  cs_asm_destroy(a);
}

static void test_impossible_parent_becomes_unknown(void **st) {
  (void)st;
  sink_t s;
  cs_assembler *a = make(&s, 1000);
  start(a, CS_EV_COLL, 1, 10, CS_PARENT_NONE, 0, 0, 0, 0);
  /* A ProxyStep whose "parent" is a Coll: NCCL reused a stale handle. */
  start(a, CS_EV_PROXY_STEP, 2, 11, CS_PARENT_LOCAL, 1, 0, CS_CTX_INHERIT, 0);
  stop(a, 2, 12, 100);
  /* A parent never seen (its start was dropped) keeps the exact id. */
  start(a, CS_EV_PROXY_OP, 3, 13, CS_PARENT_LOCAL, 77, 0, 0, 0);
  stop(a, 3, 14, 100);
  assert_int_equal(find(&s, 2)->parent_kind, CS_PARENT_UNKNOWN);
  assert_int_equal(find(&s, 3)->parent_kind, CS_PARENT_LOCAL);
  assert_int_equal(find(&s, 3)->parent, 77);
  assert_int_equal(cs_asm_get_counters(a)->parents_unknown, 1);
  cs_asm_destroy(a);
}

static void test_steps_inherit_owner_and_link(void **st) {
  (void)st;
  sink_t s;
  cs_assembler *a = make(&s, 1000);
  /* PXN: the ProxyOp's context is foreign; its step's context is foreign
   * too but its parent (the ProxyOp) is ours: ownership follows it. */
  start(a, CS_EV_PROXY_OP, 1, 10, CS_PARENT_FOREIGN, 0xabcd000000000007ull, 0,
        CS_CTX_FOREIGN, 0);
  start(a, CS_EV_PROXY_STEP, 2, 11, CS_PARENT_LOCAL, 1, 0, CS_CTX_INHERIT, 0);
  stop(a, 2, 12, 100);
  stop(a, 1, 13, 100);
  const cs_event *op = find(&s, 1), *step = find(&s, 2);
  assert_true(op->foreign_owner);
  assert_int_equal(op->origin_pid, 999);
  assert_int_equal(op->parent_kind, CS_PARENT_FOREIGN);
  assert_int_equal(op->parent, 0xabcd000000000007ull);
  assert_true(step->foreign_owner);
  assert_int_equal(step->origin_pid, 999);
  assert_true(step->has_link);
  assert_int_equal(step->link.peer, 5);
  assert_int_equal(step->link.channel_id, 2);
  assert_int_equal(step->link.is_send, 1);
  cs_asm_destroy(a);
}

static void test_restarted_recv_step_is_reclaimed(void **st) {
  (void)st;
  sink_t s;
  cs_assembler *a = make(&s, 1000);
  start(a, CS_EV_PROXY_OP, 1, 10, CS_PARENT_NONE, 0, 0, 0, 0);
  start(a, CS_EV_PROXY_STEP, 2, 11, CS_PARENT_LOCAL, 1, 0, CS_CTX_INHERIT, 3);
  /* irecv returned NULL: NCCL starts step 3 again, overwriting the handle. */
  start(a, CS_EV_PROXY_STEP, 3, 12, CS_PARENT_LOCAL, 1, 0, CS_CTX_INHERIT, 3);
  assert_int_equal(s.n, 1);
  assert_int_equal(find(&s, 2)->end, CS_END_RECLAIMED);
  assert_int_equal(find(&s, 2)->reclaim, CS_RECLAIM_ABANDONED);
  assert_int_equal(find(&s, 2)->end_raw, 12);
  stop(a, 3, 13, 100);
  assert_int_equal(find(&s, 3)->end, CS_END_STOPPED);
  /* A step still open when its ProxyOp stops can never stop. */
  start(a, CS_EV_PROXY_STEP, 4, 14, CS_PARENT_LOCAL, 1, 0, CS_CTX_INHERIT, 4);
  stop(a, 1, 15, 100);
  assert_int_equal(find(&s, 4)->reclaim, CS_RECLAIM_PARENT_STOPPED);
  assert_int_equal(cs_asm_get_counters(a)->reclaimed[CS_RECLAIM_ABANDONED], 1);
  assert_identity(a);
  cs_asm_destroy(a);
}

static void test_stop_before_start_and_bad_stops(void **st) {
  (void)st;
  sink_t s;
  cs_assembler *a = make(&s, 1000);
  /* Socket NetPlugin: the stop (another thread) drained before the start. */
  stop(a, 9, 50, 200);
  assert_int_equal(s.n, 0);
  start(a, CS_EV_NET_PLUGIN, 9, 40, CS_PARENT_NONE, 0, 0, CS_CTX_INHERIT, 0);
  assert_int_equal(s.n, 1);
  assert_int_equal(find(&s, 9)->stop_raw, 50);
  assert_int_equal(find(&s, 9)->stop_tid, 200);
  /* Double stop. */
  stop(a, 9, 60, 200);
  assert_int_equal(cs_asm_get_counters(a)->double_stops, 1);
  /* A stop of an id never started expires after a few ticks. */
  stop(a, 1234, 70, 200);
  for (int i = 0; i < 10; i++)
    cs_asm_tick(a, 80);
  assert_int_equal(cs_asm_get_counters(a)->unmatched_stops, 1);
  assert_int_equal(s.n, 1);
  cs_asm_destroy(a);
}

static void test_states_collapse_late_and_orphan(void **st) {
  (void)st;
  sink_t s;
  cs_assembler *a = make(&s, 1000);
  start(a, CS_EV_PROXY_STEP, 1, 10, CS_PARENT_NONE, 0, 0, CS_CTX_INHERIT, 0);
  state(a, 1, 8, 11, 0);
  for (int i = 0; i < 50; i++)
    state(a, 1, 20, 12 + (uint64_t)i, 0); /* SendPeerWait, repeated */
  state(a, 1, 9, 70, 4096);
  stop(a, 1, 71, 100);
  const cs_event *e = find(&s, 1);
  assert_int_equal(e->nstates, 3);
  state(a, 1, 9, 72, 1); /* after the stop */
  assert_int_equal(s.late, 1);
  assert_int_equal(s.late_id, 1);
  assert_int_equal(cs_asm_get_counters(a)->late_states, 1);
  state(a, 555, 9, 73, 1);
  assert_int_equal(cs_asm_get_counters(a)->orphan_states, 1);
  cs_asm_destroy(a);
}

typedef struct {
  uint32_t n;
  cs_state_rec st[8];
} captured_states;

static void capture_states(void *arg, const cs_event *e) {
  captured_states *got = arg;
  got->n = e->nstates;
  for (uint32_t i = 0; i < e->nstates && i < 8; i++)
    got->st[i] = e->states[i];
}

static void test_states_keep_repeat_count(void **st) {
  (void)st;
  captured_states got = {0};
  cs_asm_config cfg = {.on_event = capture_states,
                       .arg = &got,
                       .max_live = 100,
                       .reclaim_ticks = 1000};
  cs_assembler *a = cs_asm_create(&cfg);
  start(a, CS_EV_PROXY_STEP, 1, 10, CS_PARENT_NONE, 0, 0, CS_CTX_INHERIT, 0);
  state(a, 1, 8, 11, 0);
  for (int i = 0; i < 7; i++)
    state(a, 1, 20, 12 + (uint64_t)i, 0);
  state(a, 1, 9, 30, 4096);
  state(a, 1, 9, 31, 8192); /* different size: not a repeat */
  stop(a, 1, 40, 100);
  assert_int_equal(got.n, 4);
  assert_int_equal(got.st[1].state, 20);
  assert_int_equal(got.st[1].repeat, 7);
  assert_int_equal(got.st[1].raw_ts, 12);
  assert_int_equal(got.st[1].last_raw_ts, 18);
  assert_int_equal(got.st[3].arg, 8192);
  cs_asm_destroy(a);
}

static void test_never_stopped_proxy_op_is_reclaimed(void **st) {
  (void)st;
  sink_t s;
  cs_assembler *a = make(&s, 1000); /* reclaim after 1000 ticks */
  start(a, CS_EV_COLL, 1, 10, CS_PARENT_NONE, 0, 0, 0, 0);
  stop(a, 1, 11, 100);
  start(a, CS_EV_PROXY_OP, 2, 12, CS_PARENT_LOCAL, 1, 0, 0, 0); /* CollNet */
  start(a, CS_EV_PROXY_OP, 3, 12, CS_PARENT_LOCAL, 1, 0, 0, 0);
  state(a, 3, 19, 13, 0); /* InProgress: a real op, maybe slow */
  start(a, CS_EV_PROXY_OP, 4, 12, CS_PARENT_LOCAL, 1, 0, 0, 0);
  start(a, CS_EV_PROXY_STEP, 5, 14, CS_PARENT_LOCAL, 4, 0, CS_CTX_INHERIT, 0);
  cs_asm_tick(a, 500); /* too early */
  assert_int_equal(s.n, 1);
  cs_asm_tick(a, 5000);
  assert_int_equal(s.n, 2);
  assert_int_equal(find(&s, 2)->reclaim, CS_RECLAIM_NO_PROGRESS);
  assert_null(find(&s, 3)); /* progressing: never reclaimed by timeout */
  assert_null(find(&s, 4)); /* has a step: progressing */
  assert_identity(a);
  cs_asm_destroy(a);
}

static void test_finalize_and_exit(void **st) {
  (void)st;
  sink_t s;
  cs_assembler *a = make(&s, 1000);
  cs_ctx_clear_all();
  uint32_t c1 = cs_ctx_reserve();
  cs_ctx_publish(c1);
  uint32_t c2 = cs_ctx_reserve();
  cs_ctx_publish(c2);
  start(a, CS_EV_PROXY_OP, 1, 10, CS_PARENT_NONE, 0, c1, 0, 0);
  start(a, CS_EV_PROXY_CTRL, 2, 11, CS_PARENT_NONE, 0, c1, 0, 0);
  start(a, CS_EV_PROXY_OP, 3, 12, CS_PARENT_NONE, 0, c2, 0, 0);
  cs_asm_context_finalized(a, c1, 20);
  /* c1's ProxyOp is reclaimed; its ProxyCtrl is not: a shared proxy
   * thread keeps using a finalized communicator's context
   * (nccl-behaviour §2). */
  assert_int_equal(s.n, 1);
  assert_int_equal(find(&s, 1)->reclaim, CS_RECLAIM_FINALIZE);
  stop(a, 2, 25, 100);
  assert_int_equal(find(&s, 2)->end, CS_END_STOPPED);
  cs_asm_end_all(a, CS_END_INFLIGHT, CS_RECLAIM_NONE, 30);
  assert_int_equal(find(&s, 3)->end, CS_END_INFLIGHT);
  assert_int_equal(find(&s, 3)->end_raw, 30);
  assert_int_equal(cs_asm_get_counters(a)->live_now, 0);
  assert_identity(a);
  cs_ctx_clear_all();
  cs_asm_destroy(a);
}

static void test_live_cap(void **st) {
  (void)st;
  sink_t s;
  cs_assembler *a = make(&s, 2);
  start(a, CS_EV_COLL, 1, 10, CS_PARENT_NONE, 0, 0, 0, 0);
  start(a, CS_EV_COLL, 2, 10, CS_PARENT_NONE, 0, 0, 0, 0);
  start(a, CS_EV_COLL, 3, 10, CS_PARENT_NONE, 0, 0, 0, 0);
  assert_int_equal(cs_asm_get_counters(a)->live_cap_drops, 1);
  assert_int_equal(cs_asm_get_counters(a)->live_now, 2);
  stop(a, 1, 11, 100);
  start(a, CS_EV_COLL, 4, 12, CS_PARENT_NONE, 0, 0, 0, 0);
  assert_int_equal(cs_asm_get_counters(a)->live_now, 2);
  assert_identity(a);
  cs_asm_destroy(a);
}

/* Ids 65536 apart share a slot of the live table: a long-lived event
 * moves aside for the newer one, and both are still found by their stops,
 * states and children. */
static void test_live_events_sharing_a_slot(void **st) {
  (void)st;
  sink_t s;
  cs_assembler *a = make(&s, 100000);
  const uint64_t old_id = 7, new_id = 7 + 65536, newer_id = 7 + 2 * 65536;
  start(a, CS_EV_COLL, old_id, 10, CS_PARENT_NONE, 0, 0, 0, 0);
  start(a, CS_EV_COLL, new_id, 20, CS_PARENT_NONE, 0, 0, 0, 0);
  start(a, CS_EV_COLL, newer_id, 25, CS_PARENT_NONE, 0, 0, 0, 0);
  assert_non_null(cs_asm_live_get(a, old_id));
  assert_non_null(cs_asm_live_get(a, new_id));
  assert_non_null(cs_asm_live_get(a, newer_id));
  assert_int_equal(cs_asm_live_get(a, old_id)->start_raw, 10);
  assert_int_equal(cs_asm_live_get(a, new_id)->start_raw, 20);
  /* A duplicate start of the newest is ignored (ids are never reused). */
  start(a, CS_EV_COLL, newer_id, 26, CS_PARENT_NONE, 0, 0, 0, 0);
  assert_int_equal(cs_asm_get_counters(a)->live_now, 3);
  /* Children of the ones that moved aside get exact parents. */
  start(a, CS_EV_KERNEL_CH, 100, 30, CS_PARENT_LOCAL, old_id, 0, 0, 0);
  start(a, CS_EV_KERNEL_CH, 101, 31, CS_PARENT_LOCAL, new_id, 0, 0, 0);
  state(a, old_id, 22, 32, 4242);
  stop(a, 100, 33, 100);
  stop(a, 101, 34, 100);
  stop(a, old_id, 40, 100);
  stop(a, new_id, 41, 100);
  stop(a, newer_id, 42, 100);
  assert_int_equal(s.n, 5);
  assert_int_equal(find(&s, 100)->parent_kind, CS_PARENT_LOCAL);
  assert_int_equal(find(&s, 100)->parent, old_id);
  assert_int_equal(find(&s, 101)->parent, new_id);
  assert_int_equal(find(&s, old_id)->stop_raw, 40);
  assert_int_equal(find(&s, old_id)->start_raw, 10);
  assert_int_equal(find(&s, old_id)->nstates, 1);
  assert_int_equal(find(&s, new_id)->stop_raw, 41);
  assert_int_equal(find(&s, newer_id)->start_raw, 25);
  assert_int_equal(cs_asm_get_counters(a)->live_now, 0);
  assert_int_equal(cs_asm_get_counters(a)->parents_unknown, 0);
  assert_null(cs_asm_live_get(a, old_id));
  assert_identity(a);
  cs_asm_destroy(a);
}

/* Ids come in per-thread blocks of 4096: with 30 threads, ids 65536 apart
 * end at the same moment on different threads. An event that ended must
 * stay findable (late state, double stop) while thousands of such events
 * end after it; the old cache, indexed by the id's low bits, lost it to the
 * first same-low-bits id from another thread's block. */
static void test_ended_events_survive_colliding_blocks(void **st) {
  (void)st;
  sink_t s;
  cs_assembler *a = make(&s, 100000);
  const uint64_t first = 5; /* thread 0's block starts at id 1 */
  start(a, CS_EV_NET_PLUGIN, first, 10, CS_PARENT_NONE, 0, 0, 0, 0);
  stop(a, first, 11, 100);
  /* 30 threads x 100 events each, ids k*4096 + i: every block 16 apart
   * shares low 16 bits with `first`'s block. */
  uint64_t ts = 20;
  for (uint64_t i = 1; i <= 100; i++)
    for (uint64_t k = 1; k < 30; k++) {
      uint64_t id = k * 4096 + i;
      start(a, CS_EV_NET_PLUGIN, id, ts, CS_PARENT_NONE, 0, 0, 0, 0);
      stop(a, id, ts + 1, 100);
      ts += 2;
    }
  state(a, first, 21, ts, 0);  /* a late NetPlugin update (§10.7) */
  stop(a, first, ts + 1, 100); /* a stale stop */
  const cs_asm_counters *c = cs_asm_get_counters(a);
  assert_int_equal(c->late_states, 1);
  assert_int_equal(s.late_id, first);
  assert_int_equal(c->orphan_states, 0);
  assert_int_equal(c->double_stops, 1);
  assert_int_equal(c->unmatched_stops, 0);
  assert_identity(a);
  cs_asm_destroy(a);
}

/* The steps of a ProxyOp reclaimed at its communicator's finalize are
 * that communicator's leftovers too ("finalize"), whatever order the
 * reclaim visits them in; a stopped op's open steps are "parent-stopped";
 * at exit an op in flight leaves its steps in flight. */
static void test_open_steps_share_their_ops_end(void **st) {
  (void)st;
  sink_t s;
  cs_assembler *a = make(&s, 1000);
  cs_ctx_clear_all();
  uint32_t c1 = cs_ctx_reserve();
  cs_ctx_publish(c1);
  start(a, CS_EV_PROXY_OP, 1, 10, CS_PARENT_NONE, 0, c1, 0, 0);
  start(a, CS_EV_PROXY_STEP, 2, 11, CS_PARENT_LOCAL, 1, 0, CS_CTX_INHERIT, 0);
  start(a, CS_EV_PROXY_STEP, 3, 12, CS_PARENT_LOCAL, 1, 0, CS_CTX_INHERIT, 1);
  cs_asm_context_finalized(a, c1, 20);
  assert_int_equal(find(&s, 1)->reclaim, CS_RECLAIM_FINALIZE);
  assert_int_equal(find(&s, 2)->reclaim, CS_RECLAIM_FINALIZE);
  assert_int_equal(find(&s, 3)->reclaim, CS_RECLAIM_FINALIZE);

  start(a, CS_EV_PROXY_OP, 4, 30, CS_PARENT_NONE, 0, c1, 0, 0);
  start(a, CS_EV_PROXY_STEP, 5, 31, CS_PARENT_LOCAL, 4, 0, CS_CTX_INHERIT, 0);
  stop(a, 4, 32, 100);
  assert_int_equal(find(&s, 5)->end, CS_END_RECLAIMED);
  assert_int_equal(find(&s, 5)->reclaim, CS_RECLAIM_PARENT_STOPPED);

  start(a, CS_EV_PROXY_OP, 6, 40, CS_PARENT_NONE, 0, c1, 0, 0);
  start(a, CS_EV_PROXY_STEP, 7, 41, CS_PARENT_LOCAL, 6, 0, CS_CTX_INHERIT, 0);
  cs_asm_end_all(a, CS_END_INFLIGHT, CS_RECLAIM_NONE, 50);
  assert_int_equal(find(&s, 6)->end, CS_END_INFLIGHT);
  assert_int_equal(find(&s, 7)->end, CS_END_INFLIGHT);
  assert_int_equal(find(&s, 7)->reclaim, CS_RECLAIM_NONE);
  assert_identity(a);
  cs_ctx_clear_all();
  cs_asm_destroy(a);
}

/* A stopped step tells its ProxyOp: the op's slot for it is free again
 * (a later step there reclaims nothing) and its activity moves to the
 * stop; so does a step whose start came before its op's (another thread's
 * ring drained first), which is not linked to it. A step ended with its
 * op does not touch it. */
static void test_step_stop_reaches_its_op(void **st) {
  (void)st;
  sink_t s;
  cs_assembler *a = make(&s, 1000);
  start(a, CS_EV_PROXY_OP, 1, 10, CS_PARENT_NONE, 0, 0, 0, 0);
  start(a, CS_EV_PROXY_STEP, 2, 11, CS_PARENT_LOCAL, 1, 0, CS_CTX_INHERIT, 0);
  stop(a, 2, 20, 100);
  assert_int_equal(cs_asm_live_get(a, 1)->activity_raw, 20);
  start(a, CS_EV_PROXY_STEP, 3, 21, CS_PARENT_LOCAL, 1, 0, CS_CTX_INHERIT, 8);
  assert_int_equal(cs_asm_get_counters(a)->reclaimed[CS_RECLAIM_ABANDONED], 0);
  assert_int_equal(cs_asm_live_get(a, 1)->activity_raw, 21);
  stop(a, 3, 25, 100);
  assert_int_equal(cs_asm_live_get(a, 1)->activity_raw, 25);

  start(a, CS_EV_PROXY_STEP, 5, 30, CS_PARENT_LOCAL, 4, 0, CS_CTX_INHERIT, 0);
  start(a, CS_EV_PROXY_OP, 4, 29, CS_PARENT_NONE, 0, 0, 0, 0);
  stop(a, 5, 40, 100);
  assert_false(find(&s, 5)->has_link);
  assert_int_equal(cs_asm_live_get(a, 4)->activity_raw, 40);

  start(a, CS_EV_PROXY_STEP, 6, 41, CS_PARENT_LOCAL, 1, 0, CS_CTX_INHERIT, 1);
  stop(a, 1, 50, 100);
  assert_int_equal(find(&s, 6)->reclaim, CS_RECLAIM_PARENT_STOPPED);
  assert_int_equal(find(&s, 1)->end, CS_END_STOPPED);
  assert_identity(a);
  cs_asm_destroy(a);
}

/* RCCL's diagnostic words decide a repeat only for states that carry them:
 * a plain state's record leaves them unwritten (whatever the ring held),
 * and the state keeps them 0. More states than fit inline grow the array. */
static void test_diag_words_decide_repeats(void **st) {
  (void)st;
  captured_states got = {0};
  cs_asm_config cfg = {.on_event = capture_states,
                       .arg = &got,
                       .max_live = 100,
                       .reclaim_ticks = 1000};
  cs_assembler *a = cs_asm_create(&cfg);
  start(a, CS_EV_PROXY_STEP, 1, 10, CS_PARENT_NONE, 0, 0, CS_CTX_INHERIT, 0);
  const struct {
    uint32_t state;
    bool diag;
    uint64_t arg2, arg3;
  } in[] = {{40, false, 0xdead, 0xbeef}, /* stale words: not read */
            {40, false, 0x1234, 0x5678}, /* a repeat of the first */
            {40, true, 5, 6},            /* has its words: new */
            {40, true, 5, 6},            /* a repeat */
            {40, true, 5, 7},            /* another value: new */
            {41, false, 0, 0}};          /* the fourth state: grown */
  for (size_t i = 0; i < sizeof in / sizeof in[0]; i++) {
    /* A state without RCCL's words takes one unit: they lie past it. */
    cs_unit u[CS_STATE_DIAG_UNITS];
    memset(u, 0, sizeof u);
    cs_rec_state *r = (cs_rec_state *)u;
    r->h.kind = CS_REC_STATE;
    r->h.units = in[i].diag ? CS_STATE_DIAG_UNITS : CS_STATE_UNITS;
    r->h.flags = in[i].diag ? CS_STATE_HAS_DIAG : 0;
    r->h.aux = in[i].state;
    r->h.ts = 11 + i;
    r->h.id = 1;
    r->arg = 7;
    r->arg2 = in[i].arg2;
    r->arg3 = in[i].arg3;
    cs_asm_record(a, u, 100);
  }
  stop(a, 1, 40, 100);
  assert_int_equal(got.n, 4);
  assert_false(got.st[0].has_diag);
  assert_int_equal(got.st[0].repeat, 2);
  assert_int_equal(got.st[0].arg2, 0);
  assert_int_equal(got.st[0].arg3, 0);
  assert_int_equal(got.st[0].last_raw_ts, 12);
  assert_true(got.st[1].has_diag);
  assert_int_equal(got.st[1].repeat, 2);
  assert_int_equal(got.st[1].arg2, 5);
  assert_int_equal(got.st[1].arg3, 6);
  assert_int_equal(got.st[2].repeat, 1);
  assert_int_equal(got.st[2].arg3, 7);
  assert_int_equal(got.st[3].state, 41);
  assert_int_equal(got.st[3].raw_ts, 16);
  cs_asm_destroy(a);
}

/* A parent that never reaches the output says so: a start dropped on
 * NCCL's thread arrives as a "dropped" link; one the assembler had to drop
 * (in-flight cap) turns its children's links into "dropped" too, and its
 * own stop and states are not taken for a double stop or a late state
 * (which would name an event the output does not have). */
static void test_children_of_dropped_parents_say_so(void **st) {
  (void)st;
  sink_t s;
  cs_assembler *a = make(&s, 2);
  start(a, CS_EV_KERNEL_CH, 10, 5, CS_PARENT_DROPPED, 0, 0, 0, 0);
  start(a, CS_EV_COLL, 1, 10, CS_PARENT_NONE, 0, 0, 0, 0);
  start(a, CS_EV_COLL, 2, 11, CS_PARENT_NONE, 0, 0, 0, 0); /* cap: dropped */
  assert_int_equal(cs_asm_get_counters(a)->live_cap_drops, 1);
  stop(a, 1, 12, 100);
  stop(a, 10, 12, 100);
  stop(a, 2, 13, 100);
  state(a, 2, 22, 14, 0);
  start(a, CS_EV_PROXY_OP, 3, 15, CS_PARENT_LOCAL, 2, 0, 0, 0);
  start(a, CS_EV_PROXY_STEP, 4, 16, CS_PARENT_LOCAL, 3, 0, CS_CTX_INHERIT, 0);
  stop(a, 4, 18, 100);
  stop(a, 3, 19, 100);
  const cs_asm_counters *c = cs_asm_get_counters(a);
  assert_int_equal(find(&s, 10)->parent_kind, CS_PARENT_DROPPED);
  assert_int_equal(find(&s, 3)->parent_kind, CS_PARENT_DROPPED);
  assert_int_equal(find(&s, 3)->parent, 0);
  assert_int_equal(find(&s, 4)->parent_kind, CS_PARENT_LOCAL); /* 3 is kept */
  assert_null(find(&s, 2));
  assert_int_equal(c->parents_dropped, 2);
  assert_int_equal(c->double_stops, 0);
  assert_int_equal(c->unmatched_stops, 1);
  assert_int_equal(c->late_states, 0);
  assert_int_equal(c->orphan_states, 1);
  assert_int_equal(s.late, 0);
  assert_identity(a);
  cs_asm_destroy(a);
}

/* An event's memory is reused for the next start (the free list hands
 * back the last freed first), and the writer sets each field of a reused
 * one from its record instead of clearing the whole event first: nothing
 * of the earlier event may show. The first here leaves every field set
 * (a PXN ProxyOp: foreign owner and pid, progressed, a step under it,
 * more states than fit inline; its step: the link, reclaimed with an end
 * time); the events started after them must look new. Also: a 2-unit
 * START (RCCL's ProxyOp) brings all of its payload. */
static void test_reused_event_starts_fresh(void **st) {
  (void)st;
  sink_t s;
  cs_assembler *a = make(&s, 1000);
  start(a, CS_EV_PROXY_OP, 1, 10, CS_PARENT_NONE, 0, 0, CS_CTX_FOREIGN, 0);
  for (uint32_t i = 0; i < 5; i++)
    state(a, 1, i == 2 ? 19 : 17 + i, 11 + i, i);
  start(a, CS_EV_PROXY_STEP, 2, 20, CS_PARENT_LOCAL, 1, 0, CS_CTX_INHERIT, 3);
  stop(a, 1, 30, 7); /* ends the op, then reclaims its step */
  const cs_event *op = find(&s, 1), *step = find(&s, 2);
  assert_non_null(op);
  assert_non_null(step);
  assert_true(op->foreign_owner && op->progressed && op->has_children);
  assert_int_equal(op->origin_pid, 999);
  assert_int_equal(op->nstates, 5);
  assert_true(op->cap_states > CS_INLINE_STATES);
  assert_true(step->has_link && step->foreign_owner);
  assert_int_equal(step->end, CS_END_RECLAIMED);
  assert_int_equal(step->end_raw, 30);

  /* Both events' memory is taken again: a stopped Coll, a reclaimed one. */
  start(a, CS_EV_COLL, 3, 40, CS_PARENT_NONE, 0, 0, 0, 0);
  start(a, CS_EV_COLL, 4, 41, CS_PARENT_NONE, 0, 0, 0, 0);
  state(a, 3, 22, 42, 77);
  stop(a, 3, 50, 9);
  cs_asm_end_all(a, CS_END_RECLAIMED, CS_RECLAIM_FINALIZE, 60);
  const cs_event *fresh[2] = {find(&s, 3), find(&s, 4)};
  for (int i = 0; i < 2; i++) {
    const cs_event *e = fresh[i];
    assert_non_null(e);
    assert_int_equal(e->etype, CS_EV_COLL);
    assert_int_equal(e->parent_kind, CS_PARENT_NONE);
    assert_int_equal(e->parent, 0);
    assert_int_equal(e->ctx, 0);
    assert_false(e->foreign_owner);
    assert_int_equal(e->origin_pid, 0);
    assert_false(e->parent_hint);
    assert_false(e->has_children);
    assert_false(e->progressed);
    assert_false(e->has_link);
    assert_int_equal(e->link.peer, 0);
    assert_int_equal(e->link.channel_id, 0);
    assert_int_equal(e->link.is_send, 0);
    assert_int_equal(e->cap_states, CS_INLINE_STATES);
    assert_int_equal(e->start_tid, 100);
  }
  assert_int_equal(fresh[0]->end, CS_END_STOPPED);
  assert_int_equal(fresh[0]->reclaim, CS_RECLAIM_NONE);
  assert_int_equal(fresh[0]->stop_raw, 50);
  assert_int_equal(fresh[0]->stop_tid, 9);
  assert_int_equal(fresh[0]->end_raw, 0);
  assert_int_equal(fresh[0]->activity_raw, 42);
  assert_int_equal(fresh[0]->nstates, 1);
  assert_int_equal(fresh[0]->inline_states[0].state, 22);
  assert_int_equal(fresh[0]->inline_states[0].repeat, 1);
  assert_int_equal(fresh[0]->inline_states[0].arg, 77);
  assert_int_equal(fresh[1]->end, CS_END_RECLAIMED);
  assert_int_equal(fresh[1]->stop_raw, 0);
  assert_int_equal(fresh[1]->stop_tid, 0);
  assert_int_equal(fresh[1]->end_raw, 60);
  assert_int_equal(fresh[1]->nstates, 0);

  /* RCCL's ProxyOp: its eight extra fields at the end, in the units its
   * whole payload needs (the buffer has room for the largest record). */
  cs_unit u[CS_START_MAX_UNITS];
  memset(u, 0, sizeof u);
  cs_rec_start *r = (cs_rec_start *)u;
  r->h.kind = CS_REC_START;
  r->h.units = (uint8_t)CS_START_UNITS(sizeof(cs_p_proxy_op));
  r->h.etype = CS_EV_PROXY_OP;
  r->h.ts = 70;
  r->h.id = 5;
  r->p.proxy_op.has_rccl = 1;
  r->p.proxy_op.rccl.comm_hash = 0x1234;
  r->p.proxy_op.rccl.raw_proxy_nsteps = 42;
  cs_asm_record(a, u, 100);
  stop(a, 5, 71, 100);
  const cs_event *rccl = find(&s, 5);
  assert_non_null(rccl);
  assert_int_equal(rccl->p.proxy_op.has_rccl, 1);
  assert_int_equal(rccl->p.proxy_op.rccl.comm_hash, 0x1234);
  assert_int_equal(rccl->p.proxy_op.rccl.raw_proxy_nsteps, 42);
  assert_identity(a);
  cs_asm_destroy(a);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_exact_parents_and_order),
      cmocka_unit_test(test_impossible_parent_becomes_unknown),
      cmocka_unit_test(test_steps_inherit_owner_and_link),
      cmocka_unit_test(test_restarted_recv_step_is_reclaimed),
      cmocka_unit_test(test_stop_before_start_and_bad_stops),
      cmocka_unit_test(test_states_collapse_late_and_orphan),
      cmocka_unit_test(test_states_keep_repeat_count),
      cmocka_unit_test(test_never_stopped_proxy_op_is_reclaimed),
      cmocka_unit_test(test_finalize_and_exit),
      cmocka_unit_test(test_live_cap),
      cmocka_unit_test(test_live_events_sharing_a_slot),
      cmocka_unit_test(test_ended_events_survive_colliding_blocks),
      cmocka_unit_test(test_open_steps_share_their_ops_end),
      cmocka_unit_test(test_children_of_dropped_parents_say_so),
      cmocka_unit_test(test_reused_event_starts_fresh),
      cmocka_unit_test(test_step_stop_reaches_its_op),
      cmocka_unit_test(test_diag_words_decide_repeats),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
