/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/common/test_nccl_names.c — the shared NCCL vocabulary
 * (src/common/nccl_names.h) and the programs that use it agree: every event
 * type and state name the plugin's writer puts in a trace is read back by
 * the CLI's parser as the same type or state; CCLSCOPE_MASK names round
 * trip; the plugin's and the CLI's parent rules are the same; datatype and
 * function names are NCCL's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "event_types.h" /* the plugin's writer-side names */
#include "hang/hang.h"   /* the CLI's reading of step states */
#include "nccl_names.h"
#include "read/trace_record.h" /* the CLI's parser */

static js_value string_value(const char *s) {
  js_value v = {.ptr = s, .len = strlen(s), .type = JS_STRING};
  return v;
}

static void test_every_event_type_reads_back(void **state) {
  (void)state;
  for (int t = 0; t < CS_EV_COUNT; t++) {
    const char *written = cs_etype_json_name((cs_etype)t);
    js_value v = string_value(written);
    ev_type read = ev_type_from_json(&v);
    if (t == CS_EV_UNKNOWN)
      assert_int_equal(read, ET_UNKNOWN);
    else
      assert_int_equal(read, t);
    /* the CLI names it as the plugin wrote it */
    assert_string_equal(ev_type_json_name(read), written);
  }
  assert_int_equal(CS_EV_UNKNOWN, NCCL_EVENT_TYPES);
  assert_int_equal(ET_UNKNOWN, NCCL_EVENT_TYPES);
  /* near misses are not types */
  js_value v = string_value("ncclProfileCollX");
  assert_int_equal(ev_type_from_json(&v), ET_UNKNOWN);
  v = string_value("ncclProfile");
  assert_int_equal(ev_type_from_json(&v), ET_UNKNOWN);
  assert_int_equal(nccl_event_from_json_str(NULL), -1);
}

static void test_every_state_reads_back(void **state) {
  (void)state;
  int named = 0;
  for (int abi = 1; abi <= 7; abi++)
    for (int rccl = 0; rccl <= 1; rccl++)
      for (int s = -1; s <= NCCL_STATES; s++) {
        const char *written = cs_state_name(s, abi, rccl);
        if (!written)
          continue;
        named++;
        /* 0..30 are everyone's: any numbering reads them back */
        for (int num = NCCL_NUMBERING_NVIDIA;
             s <= 30 && num <= NCCL_NUMBERING_RCCL_231; num++)
          assert_int_equal(nccl_state_from_name(written, strlen(written),
                                                (nccl_numbering)num),
                           s);
      }
  /* 31 states for each of the 14 hosts; 31 for 8 of them (v7 NCCL and
   * RCCL 2.31, RCCL up to v6); 32 for RCCL 2.31's v6 and v7 */
  assert_int_equal(named, 31 * 14 + 2 + 6 + 2);
  assert_string_equal(cs_state_name(31, 7, 0), "KernelPhaseStop");
  assert_string_equal(cs_state_name(31, 7, 1), "KernelPhaseStop");
  assert_string_equal(cs_state_name(31, 6, 1), "ProxyDiagUpdate");
  assert_string_equal(cs_state_name(32, 7, 1), "ProxyDiagUpdate");
  assert_string_equal(cs_state_name(32, 6, 1), "ProxyDiagUpdate");
  assert_null(cs_state_name(31, 6, 0));
  assert_null(cs_state_name(32, 7, 0));
  assert_null(cs_state_name(33, 7, 1));
  assert_int_equal(
      nccl_state_from_name("SendGPUWai", 10, NCCL_NUMBERING_NVIDIA), -1);
}

static int from_name(const char *name, nccl_numbering numbering) {
  return nccl_state_from_name(name, strlen(name), numbering);
}

/* 31 and 32 read back as the host that wrote them numbers them: RCCL 2.31
 * sends ProxyDiagUpdate as 32 (to v6 and v7), RCCL before 2.31 as 31, and
 * 31 is KernelPhaseStop under v7; a name a host does not have is -1. */
static void test_states_31_and_32_by_host(void **state) {
  (void)state;
  assert_int_equal(from_name("ProxyDiagUpdate", NCCL_NUMBERING_RCCL_231), 32);
  assert_int_equal(from_name("ProxyDiagUpdate", NCCL_NUMBERING_RCCL), 31);
  assert_int_equal(from_name("ProxyDiagUpdate", NCCL_NUMBERING_NVIDIA), -1);
  assert_int_equal(from_name("KernelPhaseStop", NCCL_NUMBERING_NVIDIA), 31);
  assert_int_equal(from_name("KernelPhaseStop", NCCL_NUMBERING_RCCL_231), 31);
  assert_int_equal(from_name("KernelPhaseStop", NCCL_NUMBERING_RCCL), -1);
  /* what a trace names, read back under its host's numbering, is the
   * number the host sent */
  static const struct {
    int state, abi;
    bool rccl;
    nccl_numbering numbering;
  } sent[] = {{31, 7, false, NCCL_NUMBERING_NVIDIA},
              {31, 7, true, NCCL_NUMBERING_RCCL_231},
              {31, 6, true, NCCL_NUMBERING_RCCL},
              {32, 6, true, NCCL_NUMBERING_RCCL_231},
              {32, 7, true, NCCL_NUMBERING_RCCL_231}};
  for (size_t i = 0; i < sizeof sent / sizeof *sent; i++) {
    const char *written =
        cs_state_name(sent[i].state, sent[i].abi, sent[i].rccl);
    assert_non_null(written);
    assert_int_equal(from_name(written, sent[i].numbering), sent[i].state);
  }
  assert_int_equal(nccl_state_from_any_name("ncclProfilerProxyDiagUpdate", 27,
                                            NCCL_NUMBERING_RCCL_231),
                   32);
}

/* NCCL's enum spellings (what other tracers write) read as our states. */
static void test_state_from_nccl_spellings(void **state) {
  (void)state;
  static const struct {
    const char *name;
    int state;
  } cases[] = {
      {"ncclProfilerProxyStepSendWait", NCCL_STATE_STEP_SEND_WAIT},
      {"ncclProfilerProxyStepSendGPUWait", NCCL_STATE_STEP_SEND_GPU_WAIT},
      {"ProxyStepRecvFlushWait", NCCL_STATE_STEP_RECV_FLUSH_WAIT},
      {"ncclProfilerProxyOpInProgress_v4", NCCL_STATE_OP_IN_PROGRESS},
      {"ncclProfilerProxyOpSendPosted", 0},
      {"ncclProfilerProxyCtrlIdle", 13},
      {"ncclProfilerKernelChStop", 22},
      {"SendPeerWait", NCCL_STATE_STEP_SEND_PEER_WAIT},
      {"ncclProfilerKernelPhaseStop", 31},
      {"ncclProfilerProxyStep", -1},
      {"ncclProfilerSendWaitX", -1},
      {"_v4", -1},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
    assert_int_equal(nccl_state_from_any_name(cases[i].name,
                                              strlen(cases[i].name),
                                              NCCL_NUMBERING_NVIDIA),
                     cases[i].state);
}

static void test_step_states_the_hang_reader_knows(void **state) {
  (void)state;
  /* the hang analysis reads each step state the plugin writes */
  static const struct {
    int state;
    hang_wait wait;
  } steps[] = {{NCCL_STATE_STEP_SEND_GPU_WAIT, HW_GPU_PRODUCE},
               {NCCL_STATE_STEP_SEND_WAIT, HW_NETWORK},
               {NCCL_STATE_STEP_RECV_WAIT, HW_PEER_DATA},
               {NCCL_STATE_STEP_RECV_FLUSH_WAIT, HW_GPU_FLUSH},
               {NCCL_STATE_STEP_RECV_GPU_WAIT, HW_GPU_CONSUME},
               {NCCL_STATE_STEP_SEND_PEER_WAIT, HW_PEER_BUFFER}};
  for (size_t i = 0; i < sizeof steps / sizeof *steps; i++)
    assert_int_equal(hang_wait_of_state(cs_state_name(steps[i].state, 6, 0)),
                     steps[i].wait);
  assert_int_equal(hang_wait_of_state(cs_state_name(13, 6, 0)), HW_OTHER);
  assert_int_equal(hang_wait_of_state(""), HW_NONE);
}

static void test_mask_names_round_trip(void **state) {
  (void)state;
  for (int t = 0; t < NCCL_EVENT_TYPES; t++) {
    char name[24];
    cs_etype_mask_name((cs_etype)t, name, sizeof name);
    assert_true(strlen(name) > 0);
    for (const char *p = name; *p; p++)
      assert_false(*p >= 'A' && *p <= 'Z');
    assert_int_equal(cs_etype_from_mask_name(name), t);
  }
  assert_int_equal(cs_etype_from_mask_name("PROXYSTEP"), NCCL_EV_PROXY_STEP);
  assert_int_equal(cs_etype_from_mask_name("proxy"), -1);
  char tiny[4];
  nccl_event_mask_name(NCCL_EV_PROXY_STEP, tiny, sizeof tiny);
  assert_string_equal(tiny, "pro");
}

static void test_parents_agree(void **state) {
  (void)state;
  for (int t = 0; t < NCCL_EVENT_TYPES; t++)
    assert_int_equal(ev_legal_parents((ev_type)t), nccl_event_legal_parents(t));
  assert_int_equal(ev_legal_parents(ET_LIFECYCLE), 0);
  assert_int_equal(ev_legal_parents(ET_UNKNOWN), 0xFFFFFFFFu);
  /* a few facts, so the table cannot drift unnoticed */
  assert_int_equal(nccl_event_legal_parents(NCCL_EV_PROXY_STEP),
                   1u << NCCL_EV_PROXY_OP);
  assert_int_equal(nccl_event_legal_parents(NCCL_EV_COLL),
                   (1u << NCCL_EV_COLL_API) | (1u << NCCL_EV_GROUP));
  assert_int_equal(nccl_event_legal_parents(NCCL_EV_GROUP), 0);
}

static void test_functions_and_datatypes(void **state) {
  (void)state;
  /* NCCL's ncclFunc_t and ncclDataType_t values */
  assert_string_equal(nccl_func_name(0), "Broadcast");
  assert_string_equal(nccl_func_name(4), "AllReduce");
  assert_string_equal(nccl_func_name(7), "Recv");
  assert_null(nccl_func_name(NCCL_FUNCS));
  assert_null(nccl_func_name(-1));
  assert_string_equal(nccl_datatype_name(7), "ncclFloat32");
  assert_string_equal(nccl_datatype_name(9), "ncclBfloat16");
  assert_null(nccl_datatype_name(NCCL_DATATYPES));
  for (int d = 0; d < NCCL_DATATYPES; d++)
    assert_true(nccl_datatype_size(nccl_datatype_name(d)) > 0);
  assert_int_equal(nccl_datatype_size("ncclHalf"), 2);
  assert_int_equal(nccl_datatype_size("ncclDouble"), 8);
  assert_int_equal(nccl_datatype_size("ncclFloat8e4m3"), 1);
  assert_int_equal(nccl_datatype_size("float"), 0);
  assert_int_equal(nccl_datatype_size(NULL), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_event_type_reads_back),
      cmocka_unit_test(test_every_state_reads_back),
      cmocka_unit_test(test_states_31_and_32_by_host),
      cmocka_unit_test(test_state_from_nccl_spellings),
      cmocka_unit_test(test_step_states_the_hang_reader_knows),
      cmocka_unit_test(test_mask_names_round_trip),
      cmocka_unit_test(test_parents_agree),
      cmocka_unit_test(test_functions_and_datatypes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
