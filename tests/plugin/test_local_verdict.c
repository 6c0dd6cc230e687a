/*
 * tests/plugin/test_local_verdict.c — the local verdict of the watchdog's
 * warning (src/plugin/writer/local_verdict.c) on hand-made operations:
 * which pipeline heads count, and what each state says.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "event_types.h"
#include "local_verdict.h"
#include "nccl_names.h"

enum {
  SEND_GPU_WAIT = NCCL_STATE_STEP_SEND_GPU_WAIT,
  SEND_WAIT = NCCL_STATE_STEP_SEND_WAIT,
  RECV_WAIT = NCCL_STATE_STEP_RECV_WAIT,
  RECV_GPU_WAIT = NCCL_STATE_STEP_RECV_GPU_WAIT,
  SEND_PEER_WAIT = NCCL_STATE_STEP_SEND_PEER_WAIT
};

#define MAX_EVENTS 8

typedef struct {
  cs_event ev[MAX_EVENTS];
  const cs_event *events[MAX_EVENTS];
  size_t n;
  cs_wd_op op;
  cs_wd_root root;
  cs_wd_picture pic;
  char text[320];
} operation;

static void init(operation *o, int32_t rank) {
  memset(o, 0, sizeof *o);
  o->op.rank = rank;
}

/* A ProxyStep of pipeline (channel, direction, peer); state < 0: none. */
static void step(operation *o, int channel, bool is_send, int peer, int step,
                 int state, uint64_t activity) {
  cs_event *e = &o->ev[o->n];
  e->etype = CS_EV_PROXY_STEP;
  e->has_link = true;
  e->link.channel_id = (uint8_t)channel;
  e->link.is_send = is_send;
  e->link.peer = peer;
  e->p.proxy_step.step = step;
  e->activity_raw = activity;
  if (state >= 0) {
    e->states = e->inline_states;
    e->nstates = 1;
    e->states[0].state = (uint32_t)state;
  }
  o->events[o->n] = e;
  o->n++;
}

static bool verdict(operation *o) {
  o->root.op = &o->op;
  o->root.first_event = 0;
  o->root.nevents = o->n;
  o->pic.events = o->events;
  o->pic.nevents = o->n;
  o->pic.roots = &o->root;
  o->pic.nroots = 1;
  return cs_local_verdict(&o->pic, &o->root, o->text, sizeof o->text);
}

/* A receive from a peer whose data has not arrived: that peer. */
static void test_waits_on_peer(void **state) {
  (void)state;
  operation o;
  init(&o, 2);
  step(&o, 0, false, 1, 0, RECV_WAIT, 100);
  step(&o, 0, true, 3, 0, SEND_GPU_WAIT, 90); /* a consequence */
  assert_true(verdict(&o));
  assert_string_equal(o.text, "this rank waits on rank 1 (RecvWait: its data "
                              "has not arrived) — likely not this rank");
  init(&o, 2);
  step(&o, 1, true, 3, 4, SEND_PEER_WAIT, 100);
  assert_true(verdict(&o));
  assert_non_null(strstr(o.text, "waits on rank 3 (SendPeerWait: it has no "
                                 "buffer free)"));
}

/* Only the lowest step of a pipeline counts: a later step in RecvWait
 * behind a first one that arrived and is not taken is not a peer wait. */
static void test_head_is_the_lowest_step(void **state) {
  (void)state;
  operation o;
  init(&o, 2);
  step(&o, 0, false, 1, 1, RECV_WAIT, 50);
  step(&o, 0, false, 1, 0, RECV_GPU_WAIT, 100);
  step(&o, 0, true, 3, 0, SEND_WAIT, 60);
  assert_true(verdict(&o));
  assert_string_equal(o.text,
                      "this rank's GPU does not take data that arrived from "
                      "rank 1 (RecvGPUWait) and it waits on no peer — likely "
                      "this GPU");
}

static void test_network_and_gpu_produce(void **state) {
  (void)state;
  operation o;
  init(&o, 0);
  step(&o, 0, true, 4, 2, SEND_WAIT, 100);
  step(&o, 0, true, 5, 0, SEND_GPU_WAIT, 10);
  assert_true(verdict(&o));
  assert_non_null(strstr(o.text, "a send to rank 4 handed to the network "
                                 "does not complete (SendWait)"));
  init(&o, 0);
  step(&o, 0, false, 7, 0, -1, 10); /* a receive not posted yet: no say */
  step(&o, 0, true, 1, 0, SEND_GPU_WAIT, 10);
  assert_true(verdict(&o));
  assert_non_null(strstr(o.text, "has not produced the data to send to rank "
                                 "1 (SendGPUWait): its kernel is behind"));
  assert_null(strstr(o.text, "likely"));
}

/* Nothing that decides: no ProxyStep, no state, or a wait on itself. */
static void test_undecided(void **state) {
  (void)state;
  operation o;
  init(&o, 0);
  assert_false(verdict(&o));
  assert_string_equal(o.text, "");
  step(&o, 0, false, 1, 0, -1, 10);
  assert_false(verdict(&o));
  init(&o, 3);
  step(&o, 0, false, 3, 0, RECV_WAIT, 10);
  assert_false(verdict(&o));
  init(&o, 0);
  o.ev[0].etype = CS_EV_KERNEL_CH;
  o.events[0] = &o.ev[0];
  o.n = 1;
  assert_false(verdict(&o));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_waits_on_peer),
      cmocka_unit_test(test_head_is_the_lowest_step),
      cmocka_unit_test(test_network_and_gpu_produce),
      cmocka_unit_test(test_undecided),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
