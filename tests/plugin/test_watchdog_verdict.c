/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/plugin/test_watchdog_verdict.c — the watchdog's local verdict
 * (src/plugin/writer/watchdog_verdict.c): which of its pipelines' heads
 * decides, and the proxy class: a GPU that finished a channel (its KernelCh
 * ended) while that channel's ProxySteps still wait on the GPU means the
 * proxy thread stopped. First on hand-made pictures, then through the
 * assembler and the watchdog, which learn from a KernelCh's stop that its
 * channel is done (and not from one reclaimed at finalize).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <string.h>

#include "assembler.h"
#include "event_types.h"
#include "watchdog.h"
#include "watchdog_verdict.h"

/* NCCL's ProxyStep states (profiler ABI v4+ numbering). */
enum {
  SEND_GPU_WAIT = 8,
  SEND_WAIT = 9,
  RECV_WAIT = 10,
  RECV_GPU_WAIT = 12,
  SEND_PEER_WAIT = 20
};

/* ---- hand-made pictures ---- */

#define MAX_STEPS 8

typedef struct {
  cs_event ev[MAX_STEPS];
  const cs_event *evp[MAX_STEPS];
  size_t n;
  cs_wd_op op;
  cs_wd_root root;
  cs_wd_picture pic;
} picture;

static void picture_init(picture *p) {
  memset(p, 0, sizeof *p);
  p->op.etype = CS_EV_COLL;
  p->op.rank = 3;
  p->op.func = "AllReduce";
  p->op.has_seq = true;
  p->op.seq = 7;
}

/* One ProxyStep in flight, in `state`. */
static void add_step(picture *p, unsigned channel, bool is_send, int peer,
                     int step, uint32_t state) {
  cs_event *e = &p->ev[p->n];
  e->etype = CS_EV_PROXY_STEP;
  e->has_link = true;
  e->link.channel_id = (uint8_t)channel;
  e->link.is_send = is_send;
  e->link.peer = peer;
  e->p.proxy_step.step = step;
  e->states = e->inline_states;
  e->nstates = 1;
  e->inline_states[0].state = state;
  p->evp[p->n] = e;
  p->n++;
}

static void verdict(picture *p, cs_wd_verdict *v) {
  p->root.op = &p->op;
  p->root.first_event = 0;
  p->root.nevents = p->n;
  p->pic.events = p->evp;
  p->pic.nevents = p->n;
  p->pic.roots = &p->root;
  p->pic.nroots = 1;
  cs_wd_verdict_of(&p->pic, &p->root, v);
}

static void test_send_waiting_on_a_gpu_that_finished(void **st) {
  (void)st;
  picture p;
  picture_init(&p);
  add_step(&p, 1, true, 5, 4, SEND_GPU_WAIT);
  p.op.kernel_channels_done = UINT64_C(1) << 1;
  cs_wd_verdict v;
  verdict(&p, &v);
  assert_int_equal(v.kind, CS_WD_VERDICT_PROXY);
  assert_string_equal(cs_wd_verdict_class(&v), "proxy");
  assert_int_equal(v.suspect, 3); /* this rank */
  assert_int_equal(v.channel, 1);
  assert_int_equal(v.step, 4);
  char text[256];
  cs_wd_verdict_text(&v, text, sizeof text);
  assert_non_null(strstr(text, "finished its work on channel 1 (its "
                               "KernelCh ended)"));
  assert_non_null(strstr(text, "SendGPUWait on step 4"));
  assert_non_null(strstr(text, "proxy thread"));
}

static void test_receive_not_taken_on_a_gpu_that_finished(void **st) {
  (void)st;
  picture p;
  picture_init(&p);
  add_step(&p, 0, false, 2, 6, RECV_GPU_WAIT);
  p.op.kernel_channels_done = UINT64_C(1) << 0;
  cs_wd_verdict v;
  verdict(&p, &v);
  assert_int_equal(v.kind, CS_WD_VERDICT_PROXY);
  assert_int_equal(v.step, 6);
}

/* Without the KernelCh's end the same heads wait on the GPU, as before. */
static void test_gpu_waits_while_its_kernel_runs(void **st) {
  (void)st;
  picture p;
  picture_init(&p);
  add_step(&p, 1, true, 5, 4, SEND_GPU_WAIT);
  p.op.kernel_channels_done = UINT64_C(1) << 0; /* another channel ended */
  cs_wd_verdict v;
  verdict(&p, &v);
  assert_int_equal(v.kind, CS_WD_VERDICT_GPU_PRODUCE);
  assert_string_equal(cs_wd_verdict_class(&v), "gpu");

  picture_init(&p);
  add_step(&p, 0, false, 2, 0, RECV_GPU_WAIT);
  verdict(&p, &v);
  assert_int_equal(v.kind, CS_WD_VERDICT_GPU_TAKE);
}

/* Heads that wait on a peer or the network say nothing about the GPU: a
 * finished kernel does not make them the proxy's. */
static void test_peer_and_network_heads_stay(void **st) {
  (void)st;
  picture p;
  picture_init(&p);
  add_step(&p, 2, false, 4, 1, RECV_WAIT);
  add_step(&p, 2, true, 6, 3, SEND_PEER_WAIT);
  p.op.kernel_channels_done = UINT64_C(1) << 2;
  cs_wd_verdict v;
  verdict(&p, &v);
  assert_int_equal(v.kind, CS_WD_VERDICT_PEER);
  assert_int_equal(v.npeers, 2);

  picture_init(&p);
  add_step(&p, 2, true, 6, 3, SEND_WAIT);
  p.op.kernel_channels_done = UINT64_C(1) << 2;
  verdict(&p, &v);
  assert_int_equal(v.kind, CS_WD_VERDICT_NETWORK);
  assert_int_equal(v.suspect, 6);
}

/* The proxy verdict is stronger than what the other heads say: a stopped
 * proxy freezes every pipeline, whatever it waited on. */
static void test_proxy_outranks_other_heads(void **st) {
  (void)st;
  picture p;
  picture_init(&p);
  add_step(&p, 0, false, 2, 0, RECV_GPU_WAIT); /* GPU took none: strong */
  add_step(&p, 1, true, 5, 0, SEND_WAIT);
  add_step(&p, 3, true, 7, 2, SEND_GPU_WAIT);
  p.op.kernel_channels_done = UINT64_C(1) << 3;
  cs_wd_verdict v;
  verdict(&p, &v);
  assert_int_equal(v.kind, CS_WD_VERDICT_PROXY);
  assert_int_equal(v.channel, 3);
}

/* ---- through the assembler and the watchdog ---- */

typedef struct {
  cs_watchdog *w;
} feed;

static void fed_start(void *arg, const cs_event *e) {
  cs_watchdog_started(((feed *)arg)->w, e);
}

static void fed_end(void *arg, const cs_event *e) {
  cs_watchdog_ended(((feed *)arg)->w, e);
}

static void rec_start(cs_assembler *a, cs_etype type, uint64_t id, uint64_t ts,
                      uint64_t parent, unsigned channel) {
  cs_unit u[CS_START_MAX_UNITS];
  memset(u, 0, sizeof u);
  cs_rec_start *s = (cs_rec_start *)u;
  s->h.kind = CS_REC_START;
  s->h.units = CS_START_MAX_UNITS;
  s->h.etype = (uint8_t)type;
  s->h.flags = parent ? CS_PARENT_LOCAL : CS_PARENT_NONE;
  s->h.ts = ts;
  s->h.id = id;
  s->parent = parent;
  s->rank = 3;
  if (type == CS_EV_COLL) {
    s->p.coll.seq = 7;
  } else if (type == CS_EV_PROXY_OP) {
    s->p.proxy_op.peer = 5;
    s->p.proxy_op.channel_id = (uint8_t)channel;
    s->p.proxy_op.is_send = 1;
    s->p.proxy_op.pid = 1;
  } else if (type == CS_EV_PROXY_STEP) {
    s->p.proxy_step.step = 4;
  } else if (type == CS_EV_KERNEL_CH) {
    s->p.kernel_ch.channel_id = (uint8_t)channel;
  }
  if (type == CS_EV_PROXY_STEP)
    s->h.flags |= CS_CTX_INHERIT;
  cs_asm_record(a, u, 100);
}

static void rec_state(cs_assembler *a, uint64_t id, uint32_t st, uint64_t ts) {
  cs_unit u[CS_STATE_DIAG_UNITS]; /* room for the type; 1 unit used */
  memset(u, 0, sizeof u);
  cs_rec_state *r = (cs_rec_state *)u;
  r->h.kind = CS_REC_STATE;
  r->h.units = CS_STATE_UNITS;
  r->h.aux = st;
  r->h.ts = ts;
  r->h.id = id;
  cs_asm_record(a, u, 100);
}

static void rec_stop(cs_assembler *a, uint64_t id, uint64_t ts) {
  cs_unit u;
  memset(&u, 0, sizeof u);
  u.h.kind = CS_REC_STOP;
  u.h.units = 1;
  u.h.ts = ts;
  u.h.id = id;
  cs_asm_record(a, &u, 100);
}

/* A Coll whose send on `channel` waits in SendGPUWait; its KernelCh on
 * `kernel_channel` stopped (or, `finalized`, was reclaimed when its
 * communicator ended). The verdict of the hung operation. */
static cs_wd_verdict_kind
run_watchdog(unsigned channel, unsigned kernel_channel, bool finalized) {
  cs_clock_cal cal;
  memset(&cal, 0, sizeof cal);
  cal.count = 1;
  cal.ns_per_tick = 1.0;
  cal.seg[0].mult_q32 = UINT64_C(1) << 32; /* a tick is a nanosecond */
  feed f = {cs_watchdog_create(1.0, &cal)};
  assert_non_null(f.w);
  cs_asm_config cfg = {.on_start = fed_start,
                       .on_event = fed_end,
                       .arg = &f,
                       .max_live = 100,
                       .reclaim_ticks = UINT64_C(1) << 62};
  cs_assembler *a = cs_asm_create(&cfg);
  assert_non_null(a);
  rec_start(a, CS_EV_COLL, 1, 10, 0, 0);
  rec_stop(a, 1, 11);
  rec_start(a, CS_EV_PROXY_OP, 2, 12, 1, channel);
  rec_start(a, CS_EV_PROXY_STEP, 3, 13, 2, 0);
  rec_state(a, 3, SEND_GPU_WAIT, 14);
  rec_start(a, CS_EV_KERNEL_CH, 4, 15, 1, kernel_channel);
  if (finalized) { /* as the assembler hands over a reclaimed KernelCh */
    cs_event reclaimed;
    memset(&reclaimed, 0, sizeof reclaimed);
    reclaimed.id = 4;
    reclaimed.etype = CS_EV_KERNEL_CH;
    reclaimed.parent_kind = CS_PARENT_LOCAL;
    reclaimed.parent = 1;
    reclaimed.end = CS_END_RECLAIMED;
    reclaimed.reclaim = CS_RECLAIM_FINALIZE;
    reclaimed.p.kernel_ch.channel_id = (uint8_t)kernel_channel;
    cs_watchdog_ended(f.w, &reclaimed);
  } else {
    rec_stop(a, 4, 16);
  }
  const cs_wd_picture *pic = cs_watchdog_picture(f.w, a, 5000000000);
  cs_wd_verdict v = {.kind = CS_WD_VERDICT_NONE};
  for (size_t i = 0; i < pic->nroots; i++)
    if (pic->roots[i].root_id == 1 && pic->roots[i].hung)
      cs_wd_verdict_of(pic, &pic->roots[i], &v);
  cs_asm_destroy(a);
  cs_watchdog_destroy(f.w);
  return v.kind;
}

static void test_watchdog_learns_the_kernel_ended(void **st) {
  (void)st;
  assert_int_equal(run_watchdog(2, 2, false), CS_WD_VERDICT_PROXY);
  /* the kernel of another channel ended: this one's GPU may be behind */
  assert_int_equal(run_watchdog(2, 1, false), CS_WD_VERDICT_GPU_PRODUCE);
  /* reclaimed at finalize, it never ended on the GPU */
  assert_int_equal(run_watchdog(2, 2, true), CS_WD_VERDICT_GPU_PRODUCE);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_send_waiting_on_a_gpu_that_finished),
      cmocka_unit_test(test_receive_not_taken_on_a_gpu_that_finished),
      cmocka_unit_test(test_gpu_waits_while_its_kernel_runs),
      cmocka_unit_test(test_peer_and_network_heads_stay),
      cmocka_unit_test(test_proxy_outranks_other_heads),
      cmocka_unit_test(test_watchdog_learns_the_kernel_ended),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
