/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/emu/test_emu_replay.c — cmocka unit tests of `ncclemu --replay`'s
 * reading side: a trace line's details back into the v7 descriptor (every
 * field, strings interned to one pointer, NetPlugin descriptors), state
 * entries (collapsed counts, arguments, GroupApi NULL args), and a small
 * trace file into a plan (threads, communicator, parents, late states,
 * calls sorted by time, what is skipped), and a file that is not a trace.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "replay/emu_replay_descr.h"
#include "replay/emu_replay_load.h"

static rec_scratch scratch;

static void decode(rec *r, const char *line) {
  rec_scratch_init(&scratch);
  assert_true(rec_decode(r, &scratch, line, strlen(line)));
}

static void test_descr_coll(void **state) {
  (void)state;
  rec r;
  decode(&r, "{\"recordType\":\"event\",\"type\":\"ncclProfileColl\",\"id\":"
             "\"0x5\",\"parentId\":\"0x2\",\"ctx\":1,\"rank\":3,\"func\":"
             "\"AllReduce\",\"start\":{\"ts\":10.000,\"pid\":1,\"tid\":1},"
             "\"details\":{\"seqNumber\":7,\"count\":1024,\"datatype\":"
             "\"ncclFloat32\",\"root\":0,\"sendBuff\":\"0x7f00\",\"recvBuff\":"
             "\"0x7f80\",\"nChannels\":2,\"nWarps\":16,\"algo\":\"RING\","
             "\"proto\":\"SIMPLE\",\"parentGroupId\":\"0x4\",\"userTag\":"
             "\"0xabc\",\"future\":[1,2]}}");
  emu_rp_event e;
  assert_true(emu_rp_descr_from_record(&e, &r));
  assert_int_equal(e.d.type, ncclProfileColl);
  assert_int_equal(e.d.rank, 3);
  assert_string_equal(e.d.coll.func, "AllReduce");
  assert_int_equal(e.d.coll.seqNumber, 7);
  assert_int_equal(e.d.coll.count, 1024);
  assert_string_equal(e.d.coll.datatype, "ncclFloat32");
  assert_ptr_equal(e.d.coll.sendBuff, (void *)0x7f00);
  assert_ptr_equal(e.d.coll.recvBuff, (void *)0x7f80);
  assert_int_equal(e.d.coll.nChannels, 2);
  assert_int_equal(e.d.coll.nWarps, 16);
  assert_string_equal(e.d.coll.algo, "RING");
  assert_string_equal(e.d.coll.proto, "SIMPLE");
  assert_int_equal(e.d.coll.userTag, 0xabc);
  assert_int_equal(e.group_id, 0x4);
  /* NCCL's strings are static: the same text is the same pointer */
  assert_ptr_equal(e.d.coll.algo, emu_rp_intern_text("RING"));
  assert_ptr_equal(e.d.coll.func, emu_rp_intern_text("AllReduce"));
}

static void test_descr_net_and_missing(void **state) {
  (void)state;
  rec r;
  decode(&r, "{\"recordType\":\"event\",\"type\":\"ncclProfileNetPlugin\","
             "\"id\":\"0x9\",\"start\":{\"ts\":1.0,\"pid\":1,\"tid\":2},"
             "\"details\":{\"pluginId\":\"0x10001\",\"net\":\"ib\","
             "\"version\":1,\"qp\":{\"device\":1,\"wrId\":\"0x55\","
             "\"opcode\":2,\"qpNum\":77,\"length\":4096}}}");
  emu_rp_event e;
  assert_true(emu_rp_descr_from_record(&e, &r));
  assert_int_equal(e.d.netPlugin.id, 0x10001);
  assert_true(e.has_net);
  assert_int_equal(e.net.ib.type, ncclProfileQp);
  assert_int_equal(e.net.ib.qp.device, 1);
  assert_int_equal(e.net.ib.qp.wr_id, 0x55);
  assert_int_equal(e.net.ib.qp.opcode, 2);
  assert_int_equal(e.net.ib.qp.qpNum, 77);
  assert_int_equal(e.net.ib.qp.length, 4096);

  decode(&r, "{\"recordType\":\"event\",\"type\":\"ncclProfileProxyStep\","
             "\"id\":\"0x9\",\"start\":{\"ts\":1.0,\"pid\":1,\"tid\":2}}");
  assert_false(emu_rp_descr_from_record(&e, &r)); /* no details */
}

static void test_state_entries(void **state) {
  (void)state;
  rec r;
  decode(&r, "{\"x\":{\"name\":\"SendPeerWait\",\"id\":20,\"ts\":1.000,"
             "\"count\":5,\"lastTs\":2.000}}");
  /* the state object is the line's only member */
  js_iter it;
  js_value k, x;
  assert_true(js_object_begin(&it, r.line, r.line + r.len, r.line));
  assert_true(js_object_next(&it, &k, &x));
  emu_rp_state_entry s;
  assert_true(emu_rp_state_from_json(&x, r.line, &s));
  assert_int_equal(s.state.id, 20);
  assert_int_equal(s.count, 5);
  assert_int_equal(s.ts, 1000);
  assert_int_equal(s.last_ts, 2000);
  assert_false(s.state.args_null);

  decode(&r, "{\"x\":{\"name\":\"SendWait\",\"id\":9,\"ts\":3.5,"
             "\"transSize\":1048576}}");
  assert_true(js_object_begin(&it, r.line, r.line + r.len, r.line));
  assert_true(js_object_next(&it, &k, &x));
  assert_true(emu_rp_state_from_json(&x, r.line, &s));
  assert_int_equal(s.state.args.proxyStep.transSize, 1048576);
  assert_int_equal(s.count, 1);
  assert_int_equal(s.last_ts, s.ts);

  decode(&r, "{\"x\":{\"name\":\"GroupEndApiStart\",\"id\":24,\"ts\":4}}");
  assert_true(js_object_begin(&it, r.line, r.line + r.len, r.line));
  assert_true(js_object_next(&it, &k, &x));
  assert_true(emu_rp_state_from_json(&x, r.line, &s));
  assert_true(s.state.args_null); /* NCCL passes NULL args (§3.4) */

  decode(&r, "{\"x\":{\"name\":\"SendWait\",\"ts\":4}}");
  assert_true(js_object_begin(&it, r.line, r.line + r.len, r.line));
  assert_true(js_object_next(&it, &k, &x));
  assert_false(emu_rp_state_from_json(&x, r.line, &s)); /* no id */
}

static char *write_file(const char *text) {
  static char path[64];
  snprintf(path, sizeof path, "/tmp/test_emu_replay_XXXXXX");
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
  close(fd);
  return path;
}

/* A process with two threads: init (tid 10), GroupApi > CollApi on tid 10
 * (CollApi listed before its parent, as the plugin writes them: at end),
 * a ProxyCtrl on tid 11 with a collapsed state (count 3) and a late state,
 * an unknown type, a mark, a finalize. */
static const char *small_trace =
    "{\"recordType\":\"process\",\"pid\":10,\"hostname\":\"h\","
    "\"handleTag\":\"0x1\",\"host\":\"nccl\",\"ncclVersionCode\":23007,"
    "\"eventMask\":65535,\"ts\":0.5}\n"
    "{\"recordType\":\"event\",\"type\":\"ProfilerLifecycle\",\"func\":"
    "\"ProfilerInit\",\"ctx\":1,\"commId\":\"0xabc\",\"commName\":\"w\","
    "\"rank\":0,\"nranks\":2,\"nNodes\":1,\"start\":{\"ts\":1.000,\"pid\":10,"
    "\"tid\":10},\"stop\":{\"ts\":1.000,\"pid\":10,\"tid\":10},\"details\":"
    "{\"abi\":6,\"eventMask\":65535}}\n"
    "{\"recordType\":\"thread\",\"pid\":10,\"tid\":11,\"name\":\"NCCL "
    "Progress  0\"}\n"
    "{\"recordType\":\"event\",\"type\":\"ncclProfileCollApi\",\"id\":\"0x2\","
    "\"parentId\":\"0x1\",\"ctx\":1,\"rank\":0,\"func\":\"AllReduce\","
    "\"start\":{\"ts\":2.002,\"pid\":10,\"tid\":10},\"stop\":{\"ts\":2.003,"
    "\"pid\":10,\"tid\":10},\"end\":\"stopped\",\"details\":{\"count\":4,"
    "\"datatype\":\"ncclInt8\",\"root\":0,\"stream\":\"0x0\","
    "\"graphCaptured\":false}}\n"
    "{\"recordType\":\"event\",\"type\":\"ncclProfileGroupApi\",\"id\":\"0x1\","
    "\"parentId\":null,\"ctx\":1,\"rank\":0,\"start\":{\"ts\":2.000,\"pid\":10,"
    "\"tid\":10},\"stop\":{\"ts\":2.010,\"pid\":10,\"tid\":10},\"end\":"
    "\"stopped\",\"details\":{\"groupDepth\":1,\"graphCaptured\":false}}\n"
    "{\"recordType\":\"event\",\"type\":\"ncclProfileProxyCtrl\",\"id\":"
    "\"0x3\",\"parentId\":null,\"ctx\":1,\"rank\":0,\"start\":{\"ts\":2.001,"
    "\"pid\":10,\"tid\":11},\"stop\":null,\"end\":\"inflight\",\"details\":{},"
    "\"states\":[{\"name\":\"ProxyCtrlSleep\",\"id\":15,\"ts\":2.004,"
    "\"count\":3,\"lastTs\":2.006}]}\n"
    "{\"recordType\":\"state\",\"eventId\":\"0x2\",\"late\":true,\"pid\":10,"
    "\"tid\":11,\"state\":{\"name\":\"x\",\"id\":19,\"ts\":2.007}}\n"
    "{\"recordType\":\"event\",\"type\":\"unknown\",\"id\":\"0x4\","
    "\"start\":{\"ts\":2.0,\"pid\":10,\"tid\":10},\"details\":{}}\n"
    "{\"recordType\":\"mark\",\"ts\":2.5,\"pid\":10,\"tid\":10,\"kind\":"
    "\"step\",\"step\":1}\n"
    "{\"recordType\":\"event\",\"type\":\"ProfilerLifecycle\",\"func\":"
    "\"ProfilerFinalize\",\"ctx\":1,\"start\":{\"ts\":3.000,\"pid\":10,"
    "\"tid\":10},\"details\":{}}\n";

static void test_plan_small_trace(void **state) {
  (void)state;
  char *path = write_file(small_trace);
  emu_rp_plan plan;
  assert_true(emu_rp_plan_load(&plan, 1, &path, 0));
  unlink(path);
  assert_int_equal(plan.nprocs, 1);
  const emu_rp_process *p = &plan.procs[0];
  assert_int_equal(p->pid, 10);
  assert_int_equal(p->abi, 6);
  assert_int_equal(p->nccl_version, 23007);
  assert_int_equal(p->nthreads, 2);
  assert_int_equal(p->ncomms, 1);
  assert_int_equal(p->comms[0].comm_id, 0xabc);
  assert_string_equal(p->comms[0].name, "w");
  assert_true(p->comms[0].has_init && p->comms[0].has_finalize);
  assert_int_equal(p->nevents, 3);
  assert_int_equal(p->skips.unknown_types, 1);
  assert_int_equal(p->skips.marks, 1);
  /* CollApi (index 0) -> GroupApi (index 1) */
  assert_int_equal(p->events[0].parent_kind, EMU_RP_PARENT_LOCAL);
  assert_int_equal(p->events[0].parent_ev, 1);
  assert_int_equal(p->events[0].depth, 1);
  assert_int_equal(p->events[1].parent_kind, EMU_RP_PARENT_NONE);
  /* 3 collapsed + 1 late state */
  assert_int_equal(p->nstates, 4);
  /* init, 3 starts, 4 states, 2 stops (the in-flight ProxyCtrl is never
   * stopped), finalize: sorted by time */
  assert_int_equal(plan.ncalls, 11);
  assert_int_equal(plan.calls[0].kind, EMU_RP_CALL_INIT);
  assert_int_equal(plan.calls[1].kind, EMU_RP_CALL_START); /* GroupApi 2.000 */
  assert_int_equal(plan.calls[1].obj, 1);
  assert_int_equal(plan.calls[2].kind, EMU_RP_CALL_START); /* ProxyCtrl 2.001 */
  assert_int_equal(plan.calls[2].thread, 1);
  assert_int_equal(plan.calls[plan.ncalls - 1].kind, EMU_RP_CALL_FINALIZE);
  size_t states = 0, stops = 0;
  for (size_t i = 1; i < plan.ncalls; i++) {
    assert_true(plan.calls[i - 1].ts <= plan.calls[i].ts);
    states += plan.calls[i].kind == EMU_RP_CALL_STATE;
    stops += plan.calls[i].kind == EMU_RP_CALL_STOP;
  }
  assert_int_equal(states, 4);
  assert_int_equal(stops, 2);
  /* the collapsed state, spread from ts to lastTs */
  int64_t first = -1, last = -1;
  for (size_t i = 0; i < plan.ncalls; i++)
    if (plan.calls[i].kind == EMU_RP_CALL_STATE && plan.calls[i].obj == 2) {
      if (first < 0)
        first = plan.calls[i].ts;
      last = plan.calls[i].ts;
    }
  assert_int_equal(first, 2004); /* ns */
  assert_int_equal(last, 2006);
  emu_rp_plan_free(&plan);
}

static void test_not_a_trace(void **state) {
  (void)state;
  char *path = write_file("{\"hello\":1}\n");
  emu_rp_plan plan;
  assert_false(emu_rp_plan_load(&plan, 1, &path, 0));
  unlink(path);
  path = write_file("not json at all\n");
  assert_false(emu_rp_plan_load(&plan, 1, &path, 0));
  unlink(path);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_descr_coll),
      cmocka_unit_test(test_descr_net_and_missing),
      cmocka_unit_test(test_state_entries),
      cmocka_unit_test(test_plan_small_trace),
      cmocka_unit_test(test_not_a_trace),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
