/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/plugin/test_trace_lines.c — the event lines the writer formats
 * (src/plugin/trace/trace_jsonl.c), byte for byte: a stopped ProxyStep
 * with repeated states, an IB NetPlugin event, a Coll with its strings and
 * a reclaimed ProxyStep, their stamps converted through a calibration of
 * two segments (one event and a state in the older one, where the cached
 * conversion of hot/clock.h answers). Speed-ups of the writer must leave
 * these lines as they are.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host_info.h"
#include "out_dir.h"
#include "trace_jsonl.h"
#include "trace_read.h"

/* 3 ticks per ns from tick 3e9 (= 1 s), a slightly slower second segment
 * from tick 6e9 on; the epoch offset is fixed. */
static cs_clock_cal *fixed_cal(void) {
  cs_clock_cal *cal = calloc(1, sizeof *cal);
  assert_non_null(cal);
  cs_clock_cal_start(cal, CS_CLOCK_COUNTER);
  cal->epoch_offset = INT64_C(1700000000000000000);
  cal->count = 2;
  cal->newest = 1;
  cal->seg[0] = (cs_clock_segment){.raw = 3000000000u,
                                   .mono = 1000000000,
                                   .mult_q32 = 1431655765u}; /* 1/3 */
  cal->seg[1] =
      (cs_clock_segment){.raw = 6000000000u,
                         .mono = cs_clock_segment_ns(&cal->seg[0], 6000000000u),
                         .mult_q32 = 1431699000u};
  return cal;
}

static cs_state_rec state(uint32_t id, uint64_t raw, uint64_t last_raw,
                          uint32_t repeat, uint64_t arg) {
  return (cs_state_rec){.state = id,
                        .repeat = repeat,
                        .raw_ts = raw,
                        .last_raw_ts = last_raw,
                        .arg = arg};
}

static void base_event(cs_event *e, uint8_t etype, uint64_t id, uint64_t start,
                       uint64_t stop) {
  memset(e, 0, sizeof *e);
  e->etype = etype;
  e->id = id;
  e->parent_kind = CS_PARENT_LOCAL;
  e->parent = id - 1;
  e->start_raw = start;
  e->stop_raw = stop;
  e->activity_raw = start;
  e->rank = 1;
  e->start_tid = 101;
  e->stop_tid = 102;
  e->end = CS_END_STOPPED;
  e->states = e->inline_states;
  e->cap_states = CS_INLINE_STATES;
}

static const char *const expected[] = {
    "{\"recordType\":\"event\",\"type\":\"ncclProfileProxyStep\",\"id\""
    ":\"0x1001\",\"parentId\":\"0x1000\",\"ctx\":null,\"commId\":null,"
    "\"rank\":1,\"start\":{\"ts\":1700000001999996.666,\"pid\":4242,\"t"
    "id\":101},\"stop\":{\"ts\":1700000002000004.115,\"pid\":4242,\"tid"
    "\":102},\"duration\":7.449,\"end\":\"stopped\",\"details\":{\"step"
    "\":5,\"peer\":3,\"channelId\":1,\"isSend\":true},\"states\":[{\"na"
    "me\":\"ProxyOpRecvDone\",\"id\":7,\"ts\":1700000001999998.333},{\""
    "name\":\"SendWait\",\"id\":9,\"ts\":1700000002000000.333,\"transSi"
    "ze\":1048576},{\"name\":\"SendGPUWait\",\"id\":8,\"ts\":1700000002"
    "000000.667,\"count\":4,\"lastTs\":1700000002000003.333}]}",
    "{\"recordType\":\"event\",\"type\":\"ncclProfileNetPlugin\",\"id\""
    ":\"0x1002\",\"parentId\":\"0x1001\",\"ctx\":null,\"commId\":null,"
    "\"rank\":1,\"start\":{\"ts\":1700000002000001.000,\"pid\":4242,\"t"
    "id\":101},\"stop\":{\"ts\":1700000002000001.333,\"pid\":4242,\"tid"
    "\":102},\"duration\":0.333,\"end\":\"stopped\",\"details\":{\"plug"
    "inId\":\"0x10003\",\"net\":\"ib\",\"version\":3,\"qp\":{\"device\""
    ":0,\"wrId\":\"0xabc\",\"opcode\":2,\"qpNum\":77,\"length\":524288}"
    "}}",
    "{\"recordType\":\"event\",\"type\":\"ncclProfileColl\",\"id\":\"0x"
    "2000\",\"parentId\":null,\"ctx\":null,\"commId\":null,\"rank\":1,"
    "\"func\":\"AllReduce\",\"start\":{\"ts\":1700000002000000.033,\"pi"
    "d\":4242,\"tid\":101},\"stop\":{\"ts\":1700000002100003.020,\"pid"
    "\":4242,\"tid\":102},\"duration\":100002.987,\"end\":\"stopped\","
    "\"details\":{\"seqNumber\":12,\"count\":8388608,\"datatype\":\"ncc"
    "lFloat32\",\"root\":0,\"sendBuff\":\"0x7f0000001000\",\"recvBuff\""
    ":\"0x7f0000002000\",\"nChannels\":2,\"nWarps\":16,\"algo\":\"RING"
    "\",\"proto\":\"SIMPLE\"}}",
    "{\"recordType\":\"event\",\"type\":\"ncclProfileProxyStep\",\"id\""
    ":\"0x1003\",\"parentId\":\"0x1002\",\"ctx\":null,\"commId\":null,"
    "\"rank\":1,\"start\":{\"ts\":1700000001999666.666,\"pid\":4242,\"t"
    "id\":101},\"stop\":null,\"duration\":null,\"end\":\"reclaimed\",\""
    "reclaimReason\":\"parent-stopped\",\"endTs\":1700000001999999.999,"
    "\"details\":{\"step\":13}}",
};

static void test_event_lines_byte_for_byte(void **state_) {
  (void)state_;
  char dir[4096];
  test_make_tmpdir(dir, sizeof dir);
  cs_out_dir folder;
  cs_out_dir_init(&folder, dir, "the test folder");
  cs_clock_cal *cal = fixed_cal();
  cs_host_info host = {.kind = CS_HOST_NCCL, .version = "2.27.0"};
  cs_trace_env env = {.pid = 4242,
                      .hostname = "node1",
                      .run_id = "run",
                      .run_id_source = "test",
                      .file_rank = -1,
                      .dir = dir,
                      .out_dir = &folder,
                      .host = &host,
                      .global_rank = -1,
                      .local_rank = -1,
                      .world_size = -1,
                      .cal = cal,
                      .mode_trace = true,
                      .direct_io = CS_TF_DIRECT_OFF};
  cs_trace_sink *t = calloc(1, sizeof *t);
  assert_true(cs_trace_open(t, &env));

  cs_event *e = calloc(1, sizeof *e);
  /* A send step: started in the older segment, stopped in the newest. */
  base_event(e, CS_EV_PROXY_STEP, 0x1001, 5999990000u, 6000012345u);
  e->p.proxy_step.step = 5;
  e->has_link = true;
  e->link.peer = 3;
  e->link.channel_id = 1;
  e->link.is_send = 1;
  e->states[0] = state(7, 5999995000u, 5999995000u, 1, 0);
  e->states[1] = state(9, 6000001000u, 6000001000u, 1, 1048576);
  e->states[2] = state(8, 6000002000u, 6000009999u, 4, 0);
  e->nstates = 3;
  cs_trace_event(t, e);

  base_event(e, CS_EV_NET_PLUGIN, 0x1002, 6000003000u, 6000004000u);
  e->p.net_plugin.plugin_id = 0x10003;
  e->p.net_plugin.net_kind = CS_NET_IB;
  e->p.net_plugin.has_descr = 1;
  e->p.net_plugin.u.ib.wr_id = 0xabc;
  e->p.net_plugin.u.ib.length = 524288;
  e->p.net_plugin.u.ib.device = 0;
  e->p.net_plugin.u.ib.opcode = 2;
  e->p.net_plugin.u.ib.qp_num = 77;
  cs_trace_event(t, e);

  base_event(e, CS_EV_COLL, 0x2000, 6000000100u, 6300000000u);
  e->parent_kind = CS_PARENT_NONE;
  e->parent = 0;
  e->p.coll.seq = 12;
  e->p.coll.func = "AllReduce";
  e->p.coll.datatype = "ncclFloat32";
  e->p.coll.algo = "RING";
  e->p.coll.proto = "SIMPLE";
  e->p.coll.count = 8388608;
  e->p.coll.send_buff = 0x7f0000001000;
  e->p.coll.recv_buff = 0x7f0000002000;
  e->p.coll.n_channels = 2;
  e->p.coll.n_warps = 16;
  cs_trace_event(t, e);

  base_event(e, CS_EV_PROXY_STEP, 0x1003, 5999000000u, 0);
  e->end = CS_END_RECLAIMED;
  e->reclaim = CS_RECLAIM_PARENT_STOPPED;
  e->end_raw = 5999999999u;
  e->p.proxy_step.step = 13;
  cs_trace_event(t, e);
  cs_trace_close(t);
  cs_out_dir_close(&folder);

  /* The event lines, in order, after the process and accounting ones. */
  char path[4200];
  snprintf(path, sizeof path, "%s/trace_run_node1_pid4242.jsonl", dir);
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  char line[8192];
  size_t n = 0;
  while (fgets(line, sizeof line, f)) {
    if (!strstr(line, "\"recordType\":\"event\""))
      continue;
    line[strcspn(line, "\n")] = '\0';
    assert_true(n < sizeof expected / sizeof *expected);
    if (strcmp(line, expected[n]) != 0)
      fail_msg("event line %zu:\n  got      %s\n  expected %s", n, line,
               expected[n]);
    n++;
  }
  fclose(f);
  assert_int_equal(n, sizeof expected / sizeof *expected);
  free(e);
  free(t);
  free(cal);
  test_remove_tree(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_event_lines_byte_for_byte),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
