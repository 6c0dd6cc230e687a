/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/plugin/test_abi.c — the real plugin, driven through each exported
 * ABI version with that version's own descriptor layout: what each version
 * delivers ends up in the trace, once, with the right fields and parents.
 * Also: the activation mask NCCL gets, v7's version-gated userTag, and the
 * communicator details of the lifecycle records.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plugin_driver.h"

static const cJSON *event_by_handle(const trace_t *t, void *h) {
  const cJSON *e =
      trace_find_event(t, (uint64_t)(uintptr_t)h & ((1ull << 47) - 1));
  if (!e)
    fail_msg("no event for handle %p in %s", h, t->path);
  return e;
}

static uint64_t id_of(void *h) {
  return (uint64_t)(uintptr_t)h & ((1ull << 47) - 1);
}

static void assert_parent(const trace_t *t, void *child, void *parent) {
  const cJSON *e = event_by_handle(t, child);
  assert_int_equal(json_hex(e, "parentId"), id_of(parent));
  assert_null(json_str(e, "parentStatus"));
}

static const cJSON *details(const cJSON *e) {
  return json_obj(e, "details");
}

/* ---- v1: uint8_t enums, 16-byte state args, no logger, no comm info ---- */

static void test_v1(void **state) {
  (void)state;
  driver_t d;
  driver_open(&d);
  int mask = 0;
  void *ctx = NULL, *g, *c, *po, *ps;
  assert_int_equal(d.v1->init(&ctx, &mask), ncclSuccess);
  assert_int_equal(mask, 0xFF4F);
  ncclProfilerEventDescr_v1_t e;
  memset(&e, 0, sizeof e);
  e.type = ncclProfileGroup;
  d.v1->startEvent(ctx, &g, &e);
  memset(&e, 0, sizeof e);
  e.type = ncclProfileColl;
  e.parentObj = g;
  e.rank = 2;
  e.coll.commHash = 0x1234;
  e.coll.seqNumber = 9;
  e.coll.func = ncclFuncAllReduce;
  e.coll.datatype = ncclFloat32;
  e.coll.algo = NCCL_ALGO_RING;
  e.coll.proto = NCCL_PROTO_SIMPLE;
  e.coll.count = 1024;
  e.coll.nMaxChannels = 4;
  e.coll.trafficBytes = 8192;
  d.v1->startEvent(ctx, &c, &e);
  d.v1->stopEvent(c);
  d.v1->stopEvent(g);
  memset(&e, 0, sizeof e);
  e.type = ncclProfileProxyOp;
  e.parentObj = c;
  e.rank = 2;
  e.proxyOp.pid = getpid();
  e.proxyOp.channelId = 3;
  e.proxyOp.peer = 1;
  e.proxyOp.nSteps = 8;
  e.proxyOp.isSend = 1;
  d.v1->startEvent(ctx, &po, &e);
  memset(&e, 0, sizeof e);
  e.type = ncclProfileProxyStep;
  e.parentObj = po;
  e.proxyStep.step = 0;
  d.v1->startEvent(ctx, &ps, &e);
  ncclProfilerEventStateArgs_v1_t a = {.proxyOp = {.transSize = 0, .steps = 7}};
  d.v1->recordEventState(ps, ncclProfilerProxyStepSendWait, &a);
  d.v1->stopEvent(ps);
  d.v1->stopEvent(po);
  d.v1->finalize(ctx);
  assert_true(driver_close(&d));

  trace_t t;
  driver_load_single_trace(&d, &t);
  const cJSON *coll = event_by_handle(&t, c);
  assert_string_equal(json_str(coll, "func"), "AllReduce");
  assert_string_equal(json_str(details(coll), "datatype"), "ncclFloat32");
  assert_string_equal(json_str(details(coll), "algo"), "RING");
  assert_string_equal(json_str(details(coll), "proto"), "SIMPLE");
  assert_int_equal((int)json_num(details(coll), "nChannels"), 4);
  assert_int_equal((int)json_num(details(coll), "trafficBytes"), 8192);
  assert_int_equal(json_hex(details(coll), "commHash"), 0x1234);
  assert_int_equal((int)json_num(coll, "rank"), 2);
  assert_parent(&t, c, g);
  assert_parent(&t, po, c);
  assert_parent(&t, ps, po);
  /* v1 passes no communicator details. */
  const cJSON *init = trace_find_lifecycle(&t, "ProfilerInit", -1);
  assert_non_null(init);
  assert_true(json_is_null(init, "commId"));
  assert_int_equal((int)json_num(details(init), "abi"), 1);
  assert_int_equal(trace_count_record(&t, "event"), 6); /* 4 + init/final */
  trace_free(&t);
  driver_cleanup(&d);
}

/* ---- v2: strings, trafficBytes; v5: CE types are not part of v5 ---- */

static void test_v2_and_v5(void **state) {
  (void)state;
  driver_t d;
  driver_open(&d);
  int mask = 0;
  void *ctx2 = NULL, *ctx5 = NULL, *c2, *ce5, *ca5, *c5;
  d.v2->init(&ctx2, &mask);
  ncclProfilerEventDescr_v2_t e2;
  memset(&e2, 0, sizeof e2);
  e2.type = ncclProfileColl;
  e2.coll.func = "ReduceScatter";
  e2.coll.datatype = "ncclBfloat16";
  e2.coll.trafficBytes = 4096;
  e2.coll.nMaxChannels = 2;
  d.v2->startEvent(ctx2, &c2, &e2);
  d.v2->stopEvent(c2);
  d.v5->init(&ctx5, 5, &mask, "five", 1, 2, 1, NULL);
  ncclProfilerEventDescr_v5_t e5;
  memset(&e5, 0, sizeof e5);
  e5.type = ncclProfileCeColl; /* bit 12: not a v5 type */
  d.v5->startEvent(ctx5, &ce5, &e5);
  d.v5->stopEvent(ce5);
  memset(&e5, 0, sizeof e5);
  e5.type = ncclProfileCollApi;
  e5.collApi.func = "AllReduce";
  d.v5->startEvent(ctx5, &ca5, &e5);
  d.v5->stopEvent(ca5);
  memset(&e5, 0, sizeof e5);
  e5.type = ncclProfileColl;
  e5.parentObj = ca5;
  e5.rank = 1;
  e5.coll.func = "AllReduce";
  e5.coll.nChannels = 3;
  d.v5->startEvent(ctx5, &c5, &e5);
  d.v5->stopEvent(c5);
  d.v2->finalize(ctx2);
  d.v5->finalize(ctx5);
  driver_close(&d);

  trace_t t;
  driver_load_single_trace(&d, &t);
  const cJSON *coll2 = event_by_handle(&t, c2);
  assert_string_equal(json_str(coll2, "func"), "ReduceScatter");
  assert_int_equal((int)json_num(details(coll2), "trafficBytes"), 4096);
  assert_int_equal((int)json_num(details(coll2), "nChannels"), 2);
  assert_string_equal(json_str(event_by_handle(&t, ce5), "type"), "unknown");
  assert_parent(&t, c5, ca5);
  assert_int_equal((int)json_num(details(event_by_handle(&t, c5)), "nChannels"),
                   3);
  /* Two communicators, two contexts, each with its own lifecycle. */
  assert_non_null(trace_find_lifecycle(&t, "ProfilerInit", 1));
  assert_non_null(trace_find_lifecycle(&t, "ProfilerInit", 2));
  assert_int_equal((int)json_num(event_by_handle(&t, c5), "ctx"), 2);
  trace_free(&t);
  driver_cleanup(&d);
}

/* ---- v3: KernelCh without pTimer, NetPlugin (IB and socket) ---- */

static void test_v3_kernel_and_net(void **state) {
  (void)state;
  driver_t d;
  driver_open(&d);
  int mask = 0;
  void *ctx = NULL, *c, *kc, *po, *ps, *ib, *sock;
  d.v3->init(&ctx, &mask);
  ncclProfilerEventDescr_v3_t e;
  memset(&e, 0, sizeof e);
  e.type = ncclProfileColl;
  e.coll.func = "AllGather";
  e.coll.datatype = "ncclInt8";
  e.coll.algo = "RING";
  e.coll.proto = "LL";
  d.v3->startEvent(ctx, &c, &e);
  d.v3->stopEvent(c);
  memset(&e, 0, sizeof e);
  e.type = ncclProfileKernelCh;
  e.parentObj = c;
  e.kernelCh.channelId = 1;
  d.v3->startEvent(ctx, &kc, &e);
  d.v3->stopEvent(kc);
  memset(&e, 0, sizeof e);
  e.type = ncclProfileProxyOp;
  e.parentObj = c;
  e.proxyOp.pid = getpid();
  d.v3->startEvent(ctx, &po, &e);
  memset(&e, 0, sizeof e);
  e.type = ncclProfileProxyStep;
  e.parentObj = po;
  d.v3->startEvent(ctx, &ps, &e);
  /* The IB plugin's descriptor is transient: scribble on it after start. */
  ncclProfilerNetIbDescr_v1_t qp = {.type = ncclProfileQp};
  qp.qp.device = 1;
  qp.qp.wr_id = 0xfeed;
  qp.qp.opcode = 2;
  qp.qp.qpNum = 77;
  qp.qp.length = 65536;
  memset(&e, 0, sizeof e);
  e.type = ncclProfileNetPlugin;
  e.parentObj = ps;
  e.netPlugin.id = NCCL_PROFILER_NET_TYPE_IB | NCCL_PROFILER_NET_IB_VER;
  e.netPlugin.data = &qp;
  d.v3->startEvent(ctx, &ib, &e);
  memset(&qp, 0xee, sizeof qp);
  ncclProfilerNetSockDescr_v1_t so = {.type = ncclProfileSocket};
  so.sock.fd = 12;
  so.sock.op = 1;
  so.sock.length = 4096;
  e.netPlugin.id = NCCL_PROFILER_NET_TYPE_SOCK | NCCL_PROFILER_NET_SOCKET_VER;
  e.netPlugin.data = &so;
  d.v3->startEvent(ctx, &sock, &e);
  d.v3->stopEvent(ib);
  d.v3->stopEvent(sock);
  d.v3->stopEvent(ps);
  d.v3->stopEvent(po);
  d.v3->finalize(ctx);
  driver_close(&d);

  trace_t t;
  driver_load_single_trace(&d, &t);
  const cJSON *k = event_by_handle(&t, kc);
  assert_int_equal((int)json_num(details(k), "channelId"), 1);
  assert_null(json_obj(details(k), "pTimer")); /* v3 has no GPU time */
  const cJSON *n = event_by_handle(&t, ib);
  assert_string_equal(json_str(details(n), "net"), "ib");
  const cJSON *qpj = json_obj(details(n), "qp");
  assert_non_null(qpj);
  assert_int_equal((int)json_num(qpj, "qpNum"), 77);
  assert_int_equal(json_hex(qpj, "wrId"), 0xfeed);
  assert_int_equal((int)json_num(qpj, "length"), 65536);
  assert_parent(&t, ib, ps);
  /* Socket NetPlugin parents are unreliable in NCCL: reported as a hint. */
  const cJSON *s = event_by_handle(&t, sock);
  assert_string_equal(json_str(details(s), "net"), "socket");
  assert_true(json_is_null(s, "parentId"));
  assert_string_equal(json_str(s, "parentStatus"), "unknown");
  assert_int_equal(json_hex(s, "parentHint"), id_of(ps));
  assert_int_equal((int)json_num(json_obj(details(s), "sock"), "fd"), 12);
  /* The step names its ProxyOp's peer and channel. */
  const cJSON *step = event_by_handle(&t, ps);
  assert_non_null(json_obj(details(step), "peer"));
  trace_free(&t);
  driver_cleanup(&d);
}

/* ---- v4: init argument order (mask before commHash), pTimer ---- */

static void test_v4(void **state) {
  (void)state;
  driver_t d;
  driver_open(&d);
  int mask = 0;
  void *ctx = NULL, *kc;
  d.v4->init(&ctx, &mask, "v4comm", 0xc0ffee, 2, 16, 5, NULL);
  assert_int_equal(mask, 0xFF4F);
  ncclProfilerEventDescr_v4_t e;
  memset(&e, 0, sizeof e);
  e.type = ncclProfileKernelCh;
  e.kernelCh.channelId = 2;
  e.kernelCh.pTimer = 111;
  d.v4->startEvent(ctx, &kc, &e);
  ncclProfilerEventStateArgs_v4_t a = {.kernelCh = {.pTimer = 999}};
  d.v4->recordEventState(kc, ncclProfilerKernelChStop, &a);
  d.v4->stopEvent(kc);
  d.v4->finalize(ctx);
  driver_close(&d);

  trace_t t;
  driver_load_single_trace(&d, &t);
  const cJSON *init = trace_find_lifecycle(&t, "ProfilerInit", -1);
  assert_int_equal(json_hex(init, "commId"), 0xc0ffee);
  assert_string_equal(json_str(init, "commName"), "v4comm");
  assert_int_equal((int)json_num(init, "rank"), 5);
  assert_int_equal((int)json_num(init, "nranks"), 16);
  assert_int_equal((int)json_num(init, "nNodes"), 2);
  const cJSON *k = event_by_handle(&t, kc);
  assert_int_equal((int)json_num(details(k), "pTimer"), 111);
  const cJSON *st = cJSON_GetArrayItem(json_obj(k, "states"), 0);
  assert_string_equal(json_str(st, "name"), "KernelChStop");
  assert_int_equal((int)json_num(st, "pTimer"), 999);
  /* KernelCh's descriptor rank is not set by NCCL: the comm's rank is used. */
  assert_int_equal((int)json_num(k, "rank"), 5);
  assert_int_equal(json_hex(k, "commId"), 0xc0ffee);
  trace_free(&t);
  driver_cleanup(&d);
}

/* ---- v6: the full API hierarchy, CE events, hostile handles ---- */

static void test_v6_hierarchy_and_ce(void **state) {
  (void)state;
  driver_t d;
  driver_open(&d);
  int mask = 0;
  void *ctx = NULL, *ga, *ca, *kl, *ce, *cs, *cb;
  d.v6->init(&ctx, 42, &mask, "ce", 1, 8, 3, NULL);
  ncclProfilerEventDescr_v6_t e;
  memset(&e, 0, sizeof e);
  e.type = ncclProfileGroupApi;
  e.groupApi.groupDepth = 2;
  d.v6->startEvent(ctx, &ga, &e);
  d.v6->recordEventState(ga, ncclProfilerGroupStartApiStop, NULL);
  memset(&e, 0, sizeof e);
  e.type = ncclProfileCollApi;
  e.parentObj = ga;
  e.collApi.func = "AllGather";
  e.collApi.count = 100;
  e.collApi.datatype = "ncclFloat32";
  e.collApi.graphCaptured = true;
  d.v6->startEvent(ctx, &ca, &e);
  d.v6->stopEvent(ca);
  d.v6->recordEventState(ga, ncclProfilerGroupEndApiStart, NULL);
  memset(&e, 0, sizeof e);
  e.type = ncclProfileKernelLaunch;
  e.parentObj = ga;
  e.kernelLaunch.stream = (void *)0x5000;
  d.v6->startEvent(ctx, &kl, &e);
  d.v6->stopEvent(kl);
  memset(&e, 0, sizeof e);
  e.type = ncclProfileCeColl;
  e.parentObj = ca;
  e.rank = 3;
  e.ceColl.func = "AllGather";
  e.ceColl.seqNumber = 4;
  e.ceColl.ceSeqNum = 4;
  e.ceColl.count = 400;
  e.ceColl.syncStrategy = "MC";
  d.v6->startEvent(ctx, &ce, &e);
  memset(&e, 0, sizeof e);
  e.type = ncclProfileCeSync;
  e.parentObj = ce;
  e.ceCollSync.isComplete = true;
  e.ceCollSync.nRanks = 8;
  d.v6->startEvent(ctx, &cs, &e);
  d.v6->stopEvent(cs);
  memset(&e, 0, sizeof e);
  e.type = ncclProfileCeBatch;
  e.parentObj = ce;
  e.ceCollBatch.numOps = 7;
  e.ceCollBatch.totalBytes = 2800;
  d.v6->startEvent(ctx, &cb, &e);
  d.v6->stopEvent(cb);
  d.v6->stopEvent(ce);
  d.v6->stopEvent(ga);
  d.v6->finalize(ctx);
  driver_close(&d);

  trace_t t;
  driver_load_single_trace(&d, &t);
  const cJSON *g = event_by_handle(&t, ga);
  const cJSON *states = json_obj(g, "states");
  assert_int_equal(cJSON_GetArraySize(states), 2);
  assert_string_equal(json_str(cJSON_GetArrayItem(states, 0), "name"),
                      "GroupStartApiStop");
  assert_string_equal(json_str(cJSON_GetArrayItem(states, 1), "name"),
                      "GroupEndApiStart");
  assert_true(cJSON_IsTrue(
      json_obj(details(event_by_handle(&t, ca)), "graphCaptured")));
  assert_parent(&t, ca, ga);
  assert_parent(&t, kl, ga);
  assert_parent(&t, ce, ca); /* the CollApi stopped long before */
  assert_parent(&t, cs, ce);
  assert_parent(&t, cb, ce);
  assert_string_equal(
      json_str(details(event_by_handle(&t, ce)), "syncStrategy"), "MC");
  assert_int_equal(
      (int)json_num(details(event_by_handle(&t, cb)), "totalBytes"), 2800);
  assert_int_equal(json_hex(details(event_by_handle(&t, kl)), "stream"),
                   0x5000);
  trace_free(&t);
  driver_cleanup(&d);
}

/* ---- v7: userTag only when the host is NVIDIA NCCL >= 2.31 ---- */

static void run_v7(int version_code, const char *host, bool expect_tag) {
  driver_t d;
  driver_set_nccl_version(version_code);
  if (host)
    setenv("CCLSCOPE_HOST", host, 1);
  driver_open(&d);
  int mask = 0;
  void *ctx = NULL, *c, *ph;
  d.v7->init(&ctx, 7, &mask, "v7", 1, 2, 0, NULL);
  ncclProfilerEventDescr_v7_t e;
  memset(&e, 0, sizeof e);
  e.type = ncclProfileColl;
  e.coll.func = "AllReduce";
  e.coll.kernelVariant = "sym";
  e.coll.isSymColl = true;
  e.coll.userTag = 0xabc;
  d.v7->startEvent(ctx, &c, &e);
  d.v7->stopEvent(c);
  memset(&e, 0, sizeof e);
  e.type = ncclProfileKernelPhase;
  e.parentObj = c;
  e.kernelPhase.channelId = 1;
  e.kernelPhase.phaseId = 1;
  e.kernelPhase.phaseName = "compute";
  e.kernelPhase.pTimer = 500;
  d.v7->startEvent(ctx, &ph, &e);
  ncclProfilerEventStateArgs_v7_t a = {.kernelCh = {.pTimer = 800}};
  d.v7->recordEventState(ph, ncclProfilerKernelPhaseStop, &a);
  d.v7->stopEvent(ph);
  d.v7->finalize(ctx);
  driver_close(&d);
  unsetenv("CCLSCOPE_HOST");
  driver_set_nccl_version(0);

  trace_t t;
  driver_load_single_trace(&d, &t);
  const cJSON *coll = event_by_handle(&t, c);
  assert_string_equal(json_str(details(coll), "kernelVariant"), "sym");
  if (expect_tag)
    assert_int_equal(json_hex(details(coll), "userTag"), 0xabc);
  else
    assert_null(json_obj(details(coll), "userTag"));
  const cJSON *phase = event_by_handle(&t, ph);
  /* bit 15 from a v7 host is NVIDIA's KernelPhase, even under RCCL */
  assert_string_equal(json_str(phase, "type"), "ncclProfileKernelPhase");
  assert_string_equal(json_str(details(phase), "phaseName"), "compute");
  const cJSON *st = cJSON_GetArrayItem(json_obj(phase, "states"), 0);
  assert_int_equal((int)json_num(st, "id"), 31);
  if (!host) {
    assert_string_equal(json_str(st, "name"), "KernelPhaseStop");
    assert_int_equal((int)json_num(st, "pTimer"), 800);
  }
  const cJSON *proc = trace_find_record(&t, "process");
  assert_string_equal(json_str(proc, "host"), host ? host : "nccl");
  trace_free(&t);
  driver_cleanup(&d);
}

static void test_v7_user_tag_gated_by_version(void **state) {
  (void)state;
  run_v7(23102, NULL, true);    /* NCCL 2.31.2 */
  run_v7(23007, NULL, false);   /* 2.30.7 would not have it */
  run_v7(23102, "rccl", false); /* RCCL's v7 may lack the field */
}

/* ---- RCCL's v6 (profiler_rccl_v6.h): the same ncclProfiler_v6 symbol,
 * RCCL's proxyOp extras, 24-byte args for ProxyDiagUpdate (31) and the
 * ProxyDiag type on bit 15 or 16 — read only when the host is RCCL ---- */

typedef struct {
  void *coll, *op, *diag15, *diag16;
} rccl_handles;

/* Drives the v6 entry points with RCCL's layout (the host is set by the
 * caller: CCLSCOPE_HOST). */
static void drive_rccl_v6(driver_t *d, rccl_handles *h) {
  rcclProfiler_v6_t *v6 = (rcclProfiler_v6_t *)(void *)d->v6;
  int mask = 0;
  void *ctx = NULL;
  v6->init(&ctx, 77, &mask, "rccl", 2, 2, 0, NULL);
  rcclProfilerEventDescr_v6_t e;
  memset(&e, 0, sizeof e);
  e.type = ncclProfileColl;
  e.coll.func = "AllReduce";
  v6->startEvent(ctx, &h->coll, &e);
  memset(&e, 0, sizeof e);
  e.type = ncclProfileProxyOp;
  e.parentObj = h->coll;
  e.proxyOp.pid = getpid();
  e.proxyOp.channelId = 1;
  e.proxyOp.peer = 1;
  e.proxyOp.nSteps = 4;
  e.proxyOp.chunkSize = 1 << 19;
  e.proxyOp.isSend = 1;
  e.proxyOp.commHash = 0x1234abcdULL;
  e.proxyOp.opCount = 9;
  e.proxyOp.traceFuncIdx = 4;
  e.proxyOp.traceProtocol = 2;
  e.proxyOp.tracePattern = 1;
  e.proxyOp.traceTotalBytes = 1 << 21;
  e.proxyOp.proxyNbytes = 1 << 18;
  e.proxyOp.rawProxyNsteps = 8;
  v6->startEvent(ctx, &h->op, &e);
  rcclProfilerEventStateArgs_v6_t a;
  memset(&a, 0, sizeof a);
  v6->recordEventState(h->op, ncclProfilerProxyOpInProgress_v4, &a);
  a.proxyDiag.counterKind = 2;
  a.proxyDiag.flags = RCCL_PROXY_DIAG_FLAG_TIMESTAMP;
  a.proxyDiag.value = 5;
  a.proxyDiag.value2 = -4096;
  v6->recordEventState(h->op, rcclProfilerProxyDiagUpdate, &a);
  v6->recordEventState(h->op, rcclProfilerProxyDiagUpdate, &a); /* again */
  a.proxyDiag.value = 6;
  v6->recordEventState(h->op, rcclProfilerProxyDiagUpdate, &a);
  v6->recordEventState(h->op, rcclProfilerProxyDiagUpdate, NULL);
  memset(&e, 0, sizeof e);
  e.type = rcclProfileProxyDiag_v6; /* 1 << 15 */
  e.parentObj = h->op;
  v6->startEvent(ctx, &h->diag15, &e);
  a.proxyDiag.counterKind = 1;
  a.proxyDiag.flags = 0;
  a.proxyDiag.value = 3;
  a.proxyDiag.value2 = 0;
  v6->recordEventState(h->diag15, rcclProfilerProxyDiagUpdate, &a);
  v6->stopEvent(h->diag15);
  e.type = rcclProfileProxyDiag_v7; /* 1 << 16 */
  v6->startEvent(ctx, &h->diag16, &e);
  v6->stopEvent(h->diag16);
  v6->stopEvent(h->op);
  v6->stopEvent(h->coll);
  v6->finalize(ctx);
}

static void test_v6_rccl(void **state) {
  (void)state;
  driver_t d;
  setenv("CCLSCOPE_HOST", "rccl", 1);
  driver_open(&d);
  rccl_handles h;
  drive_rccl_v6(&d, &h);
  driver_close(&d);
  unsetenv("CCLSCOPE_HOST");

  trace_t t;
  driver_load_single_trace(&d, &t);
  const cJSON *op = event_by_handle(&t, h.op);
  const cJSON *x = details(op);
  assert_int_equal((int)json_num(x, "nSteps"), 4);
  assert_int_equal(json_hex(x, "commHash"), 0x1234abcdULL);
  assert_int_equal((int)json_num(x, "opCount"), 9);
  assert_int_equal((int)json_num(x, "traceFuncIdx"), 4);
  assert_int_equal((int)json_num(x, "traceProtocol"), 2);
  assert_int_equal((int)json_num(x, "tracePattern"), 1);
  assert_int_equal((int)json_num(x, "traceTotalBytes"), 1 << 21);
  assert_int_equal((int)json_num(x, "proxyNbytes"), 1 << 18);
  assert_int_equal((int)json_num(x, "rawProxyNsteps"), 8);
  const cJSON *states = json_obj(op, "states");
  /* InProgress, 2x the same update (collapsed), another, NULL args */
  assert_int_equal(cJSON_GetArraySize(states), 4);
  const cJSON *u = cJSON_GetArrayItem(states, 1);
  assert_string_equal(json_str(u, "name"), "ProxyDiagUpdate");
  assert_int_equal((int)json_num(u, "counterKind"), 2);
  assert_int_equal((int)json_num(u, "flags"), 1);
  assert_int_equal((int)json_num(u, "value"), 5);
  assert_int_equal((int)json_num(u, "value2"), -4096);
  assert_int_equal((int)json_num(u, "count"), 2);
  assert_int_equal((int)json_num(cJSON_GetArrayItem(states, 2), "value"), 6);
  const cJSON *bare = cJSON_GetArrayItem(states, 3);
  assert_string_equal(json_str(bare, "name"), "ProxyDiagUpdate");
  assert_null(json_obj(bare, "counterKind"));
  const cJSON *d15 = event_by_handle(&t, h.diag15);
  assert_string_equal(json_str(d15, "type"), "ncclProfileProxyDiag");
  assert_int_equal((int)json_num(details(d15), "typeValue"), 1 << 15);
  assert_parent(&t, h.diag15, h.op);
  const cJSON *s15 = cJSON_GetArrayItem(json_obj(d15, "states"), 0);
  assert_int_equal((int)json_num(s15, "counterKind"), 1);
  assert_int_equal((int)json_num(s15, "value"), 3);
  const cJSON *d16 = event_by_handle(&t, h.diag16);
  assert_string_equal(json_str(d16, "type"), "ncclProfileProxyDiag");
  assert_int_equal((int)json_num(details(d16), "typeValue"), 1 << 16);
  trace_free(&t);
  driver_cleanup(&d);
}

/* `proxydiag` asks RCCL for both of its ProxyDiag bits; NVIDIA gets only
 * 1 << 16 (which it ignores), never its KernelPhase bit. */
static int mask_for(const char *host, const char *names) {
  driver_t d;
  if (host)
    setenv("CCLSCOPE_HOST", host, 1);
  setenv("CCLSCOPE_MASK", names, 1);
  driver_open(&d);
  int mask = 0;
  void *ctx = NULL;
  d.v6->init(&ctx, 5, &mask, "m", 1, 1, 0, NULL);
  d.v6->finalize(ctx);
  driver_close(&d);
  unsetenv("CCLSCOPE_MASK");
  unsetenv("CCLSCOPE_HOST");
  driver_cleanup(&d);
  return mask;
}

static void test_proxydiag_mask_by_host(void **state) {
  (void)state;
  assert_int_equal(mask_for("rccl", "proxyop,proxydiag"),
                   ncclProfileProxyOp | rcclProfileProxyDiag_v6 |
                       rcclProfileProxyDiag_v7);
  assert_int_equal(mask_for("nccl", "proxyop,proxydiag"),
                   ncclProfileProxyOp | rcclProfileProxyDiag_v7);
}

/* The same calls from NVIDIA: v6 stays NVIDIA's — no extras read, 1 << 15
 * is not a v6 type, state 31 carries nothing (and v7's bit 15 is still
 * KernelPhase: run_v7). */
static void test_v6_nvidia_ignores_rccl_fields(void **state) {
  (void)state;
  driver_t d;
  driver_set_nccl_version(23007);
  driver_open(&d);
  rccl_handles h;
  drive_rccl_v6(&d, &h);
  driver_close(&d);
  driver_set_nccl_version(0);

  trace_t t;
  driver_load_single_trace(&d, &t);
  const cJSON *op = event_by_handle(&t, h.op);
  assert_int_equal((int)json_num(details(op), "nSteps"), 4);
  assert_null(json_obj(details(op), "commHash"));
  assert_null(json_obj(details(op), "rawProxyNsteps"));
  const cJSON *u = cJSON_GetArrayItem(json_obj(op, "states"), 1);
  assert_int_equal((int)json_num(u, "id"), 31);
  assert_null(json_obj(u, "counterKind"));
  assert_null(json_obj(u, "value"));
  const cJSON *d15 = event_by_handle(&t, h.diag15);
  assert_string_equal(json_str(d15, "type"), "unknown");
  assert_int_equal((int)json_num(details(d15), "typeValue"), 1 << 15);
  const cJSON *proc = trace_find_record(&t, "process");
  assert_string_equal(json_str(proc, "host"), "nccl");
  trace_free(&t);
  driver_cleanup(&d);
}

/* ---- hostile values: NULL, stale, double-stopped, foreign, unknown ---- */

static void test_hostile_handles(void **state) {
  (void)state;
  driver_t d;
  driver_open(&d);
  int mask = 0, local = 0;
  void *ctx = NULL, *c, *u, *garbage_ctx_event, *untouched = (void *)0x1;
  d.v6->init(&ctx, 1, &mask, NULL, 1, 1, 0, NULL);
  ncclProfilerEventDescr_v6_t e;
  memset(&e, 0, sizeof e);
  e.type = ncclProfileCollApi;
  e.collApi.func = "AllReduce";
  d.v6->startEvent(ctx, &c, &e);
  d.v6->stopEvent(c);
  d.v6->stopEvent(c); /* NCCL's CollApi double stop (nccl-behaviour §10.6) */
  d.v6->recordEventState(c, ncclProfilerProxyStepSendWait, NULL); /* late */
  d.v6->stopEvent(NULL); /* NetPlugin */
  d.v6->recordEventState(NULL, ncclProfilerNetPluginUpdate, NULL);
  d.v6->stopEvent(&local);      /* a pointer that is not ours */
  d.v6->stopEvent((void *)0x1); /* garbage */
  d.v6->recordEventState((void *)0xdeadbeef, ncclProfilerKernelChStop, NULL);
  /* Unknown type: recorded generically, handle still written. */
  memset(&e, 0, sizeof e);
  e.type = 1u << 20;
  d.v6->startEvent(ctx, &u, &e);
  d.v6->stopEvent(u);
  /* A context that is not ours: the event is kept, its owner unknown. */
  memset(&e, 0, sizeof e);
  e.type = ncclProfileGroup;
  d.v6->startEvent(&local, &garbage_ctx_event, &e);
  d.v6->stopEvent(garbage_ctx_event);
  /* NULL descriptor: the handle is still written (NULL). */
  d.v6->startEvent(ctx, &untouched, NULL);
  assert_null(untouched);
  d.v6->startEvent(ctx, NULL, &e); /* NULL handle slot: nothing to write */
  d.v6->finalize(&local);          /* foreign */
  d.v6->finalize(NULL);
  d.v6->finalize(ctx);
  d.v6->finalize(ctx); /* twice */
  assert_true(driver_close(&d));

  trace_t t;
  driver_load_single_trace(&d, &t);
  const cJSON *unk = event_by_handle(&t, u);
  assert_string_equal(json_str(unk, "type"), "unknown");
  assert_int_equal((int)json_num(details(unk), "typeValue"), 1 << 20);
  assert_true(json_is_null(event_by_handle(&t, garbage_ctx_event), "ctx"));
  assert_int_equal(trace_count_record(&t, "state"), 1);
  const cJSON *end = trace_find_record(&t, "processEnd");
  const cJSON *cnt = json_obj(end, "counters");
  assert_int_equal((int)json_num(cnt, "doubleStops"), 1);
  assert_int_equal((int)json_num(cnt, "lateStates"), 1);
  assert_int_equal((int)json_num(cnt, "nullHandles"), 2);
  assert_int_equal((int)json_num(cnt, "foreignHandles"), 3);
  /* CollApi, unknown, Group: the NULL-descriptor and NULL-slot calls
   * record nothing. */
  assert_int_equal((int)json_num(cnt, "eventsStarted"), 3);
  assert_int_equal((int)json_num(cnt, "stopped"), 3);
  size_t finals = 0;
  for (size_t i = 0; i < t.count; i++) {
    const char *fn = json_str(t.lines[i], "func");
    finals += fn && strcmp(fn, "ProfilerFinalize") == 0;
  }
  assert_int_equal(finals, 1); /* repeated/foreign finalize ignored */
  trace_free(&t);
  driver_cleanup(&d);
}

/* ---- PXN: foreign pid, foreign context, local parent of steps ---- */

static void test_pxn(void **state) {
  (void)state;
  driver_t d;
  driver_open(&d);
  int mask = 0;
  void *ctx = NULL, *c, *po, *ps;
  d.v6->init(&ctx, 0xaaa, &mask, NULL, 2, 4, 1, NULL);
  ncclProfilerEventDescr_v6_t e;
  memset(&e, 0, sizeof e);
  e.type = ncclProfileColl;
  e.coll.func = "AllReduce";
  d.v6->startEvent(ctx, &c, &e);
  d.v6->stopEvent(c);
  /* Another process's ProxyOp: pid differs. Its parent value even looks
   * like one of our handles (identical binaries, same tag by chance): the
   * pid must win and nothing may be dereferenced. */
  void *foreign_ctx = (void *)0x7f00deadbeef;
  memset(&e, 0, sizeof e);
  e.type = ncclProfileProxyOp;
  e.parentObj = c;
  e.rank = 0;
  e.proxyOp.pid = getpid() + 1;
  e.proxyOp.isSend = 1;
  d.v6->startEvent(foreign_ctx, &po, &e);
  memset(&e, 0, sizeof e);
  e.type = ncclProfileProxyStep;
  e.parentObj = po;
  e.rank = 0;
  d.v6->startEvent(foreign_ctx, &ps, &e);
  d.v6->stopEvent(ps);
  d.v6->stopEvent(po);
  d.v6->finalize(ctx);
  driver_close(&d);

  trace_t t;
  driver_load_single_trace(&d, &t);
  const cJSON *op = event_by_handle(&t, po);
  assert_true(json_is_null(op, "parentId"));
  assert_string_equal(json_str(op, "parentStatus"), "foreign");
  assert_int_equal(json_hex(op, "parentRaw"), (uint64_t)(uintptr_t)c);
  assert_true(cJSON_IsTrue(json_obj(op, "isPxn")));
  assert_int_equal((int)json_num(op, "originPid"), getpid() + 1);
  assert_true(json_is_null(op, "ctx"));
  const cJSON *step = event_by_handle(&t, ps);
  assert_parent(&t, ps, po); /* steps' parents are ours */
  assert_true(cJSON_IsTrue(json_obj(step, "isPxn")));
  trace_free(&t);
  driver_cleanup(&d);
}

/* ---- configuration reaching NCCL ---- */

static void test_mask_and_mode(void **state) {
  (void)state;
  driver_t d;
  int mask = 0;
  void *ctx = NULL;

  setenv("CCLSCOPE_MASK", "coll,kernelch", 1);
  driver_open(&d);
  d.v6->init(&ctx, 1, &mask, NULL, 1, 1, 0, NULL);
  assert_int_equal(mask, 0x42);
  d.v6->finalize(ctx);
  driver_close(&d);
  driver_cleanup(&d);
  unsetenv("CCLSCOPE_MASK");

  setenv("CCLSCOPE_MODE", "off", 1);
  driver_open(&d);
  mask = -1;
  ctx = NULL;
  assert_int_equal(d.v6->init(&ctx, 1, &mask, NULL, 1, 1, 0, NULL),
                   ncclSuccess);
  assert_int_equal(mask, 0);
  assert_non_null(ctx);
  d.v6->stopEvent(NULL);
  d.v6->finalize(ctx);
  driver_close(&d);
  char paths[2][4096];
  assert_int_equal(trace_find_files(d.dir, paths, 2), 0);
  driver_cleanup(&d);
  unsetenv("CCLSCOPE_MODE");
}

static void test_unwritable_folder(void **state) {
  (void)state;
  driver_t d;
  driver_open(&d);
  /* A folder inside a regular file cannot be created. */
  char bad[4200];
  snprintf(bad, sizeof bad, "%s/file", d.dir);
  FILE *f = fopen(bad, "w");
  fclose(f);
  strcat(bad, "/sub");
  setenv("CCLSCOPE_DIR", bad, 1);
  int mask = -1;
  void *ctx = NULL, *h;
  assert_int_equal(d.v6->init(&ctx, 1, &mask, NULL, 1, 1, 0, NULL),
                   ncclSuccess);
  assert_int_equal(mask, 0); /* nothing can be written: NCCL emits nothing */
  ncclProfilerEventDescr_v6_t e = {.type = ncclProfileColl};
  d.v6->startEvent(ctx, &h, &e);
  d.v6->stopEvent(h);
  d.v6->finalize(ctx);
  driver_close(&d);
  driver_cleanup(&d);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_v1),
      cmocka_unit_test(test_v2_and_v5),
      cmocka_unit_test(test_v3_kernel_and_net),
      cmocka_unit_test(test_v4),
      cmocka_unit_test(test_v6_hierarchy_and_ce),
      cmocka_unit_test(test_v7_user_tag_gated_by_version),
      cmocka_unit_test(test_v6_rccl),
      cmocka_unit_test(test_v6_nvidia_ignores_rccl_fields),
      cmocka_unit_test(test_proxydiag_mask_by_host),
      cmocka_unit_test(test_hostile_handles),
      cmocka_unit_test(test_pxn),
      cmocka_unit_test(test_mask_and_mode),
      cmocka_unit_test(test_unwritable_folder),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
