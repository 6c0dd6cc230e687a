/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/emu/test_emu_units.c — cmocka unit tests of ncclemu's pieces:
 * loader name resolution and probe order per NCCL release, the version
 * adapters (field mapping, drops, poison, NULL pre-fill, unwritten
 * detection), v1 enum fallbacks, the nccl-behaviour §8.3 step formulas, the
 * seeded rng, option parsing and the truth normaliser.
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

#include "check/emu_truth.h"
#include "emu_options.h"
#include "nccl/emu_model.h"
#include "profiler/emu_shims.h"

/* ---------- loader ---------- */
static void test_resolve_names(void **state) {
  (void)state;
  emu_resolution r;
  emu_resolve_names(NULL, EMU_HOST_NCCL, &r);
  assert_int_equal(r.ntried, 1);
  assert_string_equal(r.tried[0], "libnccl-profiler.so");
  emu_resolve_names("", EMU_HOST_NCCL, &r);
  assert_string_equal(r.tried[0], "libnccl-profiler.so");
  emu_resolve_names("foo", EMU_HOST_NCCL, &r);
  assert_int_equal(r.ntried, 2);
  assert_string_equal(r.tried[0], "foo");
  assert_string_equal(r.tried[1], "libnccl-profiler-foo.so");
  emu_resolve_names("foo.so", EMU_HOST_NCCL, &r); /* NCCL's quirk */
  assert_string_equal(r.tried[1], "libnccl-profiler-foo.so.so");
  emu_resolve_names("libfoo.so", EMU_HOST_NCCL, &r);
  assert_int_equal(r.ntried, 1);
  emu_resolve_names("./dir/libfoo.so", EMU_HOST_NCCL, &r);
  assert_int_equal(r.ntried, 1);
  /* RCCL opens NCCL's names, not librccl-profiler-* (§12) */
  emu_resolve_names("foo", EMU_HOST_RCCL, &r);
  assert_string_equal(r.tried[1], "libnccl-profiler-foo.so");
  emu_resolve_names(NULL, EMU_HOST_RCCL, &r);
  assert_string_equal(r.tried[0], "libnccl-profiler.so");
  emu_resolve_names("STATIC_PLUGIN", EMU_HOST_NCCL, &r);
  assert_string_equal(r.tried[0], ""); /* dlopen(NULL) */
}

static void test_static_prefix(void **state) {
  (void)state;
  assert_true(emu_is_static_plugin_name("STATIC_PLUGIN"));
  assert_true(emu_is_static_plugin_name("static_plugin"));
  assert_true(emu_is_static_plugin_name("s"));
  assert_true(emu_is_static_plugin_name("Stat"));
  assert_false(emu_is_static_plugin_name("STATIC_PLUGINX"));
  assert_false(emu_is_static_plugin_name("plugin"));
  assert_false(emu_is_static_plugin_name(""));
}

static void expect_order(const char *version, const int *want, int n) {
  int v[7];
  int got =
      emu_probe_order(emu_parse_nccl_version(version), EMU_HOST_NCCL, 0, v);
  assert_int_equal(got, n);
  for (int i = 0; i < n; i++)
    assert_int_equal(v[i], want[i]);
}

static void test_probe_order(void **state) {
  (void)state;
  expect_order("2.23", (int[]){1}, 1);
  expect_order("2.24", (int[]){2, 1}, 2);
  expect_order("2.25", (int[]){2, 1}, 2);
  expect_order("2.26", (int[]){3, 2, 1}, 3);
  expect_order("2.27", (int[]){4, 3, 2, 1}, 4);
  expect_order("2.28", (int[]){5, 4, 3, 2, 1}, 5);
  expect_order("2.29", (int[]){6, 5, 4, 3, 2, 1}, 6);
  expect_order("2.30", (int[]){6, 5, 4, 3, 2, 1}, 6);
  expect_order("2.31", (int[]){7, 6, 5, 4, 3, 2, 1}, 7);
  int v[7];
  assert_int_equal(emu_probe_order(23007, EMU_HOST_NCCL, 4, v), 1);
  assert_int_equal(v[0], 4);
  /* RCCL probes v7 first from 2.31 only; before, v6 down even where its
   * tree has a v7 header (§12) */
  assert_int_equal(emu_probe_order(23102, EMU_HOST_RCCL, 0, v), 7);
  assert_int_equal(v[0], 7);
  assert_int_equal(v[6], 1);
  assert_int_equal(emu_probe_order(23007, EMU_HOST_RCCL, 0, v), 6);
  assert_int_equal(v[0], 6);
  assert_int_equal(v[5], 1);
  assert_int_equal(emu_probe_order(22804, EMU_HOST_RCCL, 0, v), 5);
  assert_int_equal(v[0], 5);
}

static void test_version_parse(void **state) {
  (void)state;
  assert_int_equal(emu_parse_nccl_version("2.30.7"), 23007);
  assert_int_equal(emu_parse_nccl_version("2.30"), 23007);
  assert_int_equal(emu_parse_nccl_version("2.26"), 22606);
  assert_int_equal(emu_parse_nccl_version("2.31"), 23102);
  assert_int_equal(emu_parse_nccl_version("3.1"), 0);
  assert_int_equal(emu_parse_nccl_version("x"), 0);
  assert_int_equal(emu_max_abi_for_version(22209), 0);
}

static void test_mask_parse(void **state) {
  (void)state;
  int m = 0;
  assert_true(emu_parse_mask("coll,proxystep", &m));
  assert_int_equal(m, ncclProfileColl | ncclProfileProxyStep);
  assert_true(emu_parse_mask("all", &m));
  assert_int_equal(m, 0xFFFF);
  assert_true(emu_parse_mask("0x20", &m));
  assert_int_equal(m, ncclProfileProxyCtrl);
  assert_false(emu_parse_mask("bogus", &m));
}

/* ---------- adapters ---------- */
static ncclProfilerEventDescr_v7_t make_coll(void) {
  ncclProfilerEventDescr_v7_t d;
  memset(&d, 0, sizeof d);
  d.type = ncclProfileColl;
  d.parentObj = (void *)0x1111;
  d.rank = 3;
  d.coll.seqNumber = 42;
  d.coll.func = "AllReduce";
  d.coll.count = 1000;
  d.coll.datatype = "ncclFloat32";
  d.coll.nChannels = 2;
  d.coll.nWarps = 16;
  d.coll.algo = "RING";
  d.coll.proto = "SIMPLE";
  d.coll.parentGroup = (void *)0x2222;
  return d;
}

static void test_convert_v4(void **state) {
  (void)state;
  ncclProfilerEventDescr_v7_t d = make_coll();
  ncclProfilerEventDescr_v4_t v4;
  assert_true(emu_convert_v4(&d, &v4));
  assert_ptr_equal(v4.parentObj, (void *)0x2222); /* parentGroup */
  assert_int_equal(v4.coll.seqNumber, 42);
  assert_int_equal(v4.coll.nChannels, 2);
  unsigned char *b = (unsigned char *)&v4;
  for (int i = 1; i < 8; i++) /* padding after the u8 type: garbage */
    assert_int_equal(b[i], EMU_POISON_BYTE);
  /* p2p.nChannels is not copied by NCCL's v4 adapter */
  d.type = ncclProfileP2p;
  d.p2p.nChannels = 4;
  d.p2p.parentGroup = (void *)0x3333;
  assert_true(emu_convert_v4(&d, &v4));
  assert_int_equal(v4.p2p.nChannels, EMU_POISON_BYTE);
  assert_ptr_equal(v4.parentObj, (void *)0x3333);
  d.type = ncclProfileGroupApi;
  assert_false(emu_convert_v4(&d, &v4));
  d.type = ncclProfileCeColl;
  assert_false(emu_convert_v4(&d, &v4));
}

static void test_convert_v5(void **state) {
  (void)state;
  ncclProfilerEventDescr_v7_t d = make_coll();
  ncclProfilerEventDescr_v5_t v5;
  assert_true(emu_convert_v5(&d, &v5));
  assert_ptr_equal(v5.parentObj, (void *)0x1111); /* CollApi stays */
  assert_ptr_equal(v5.coll.parentGroup, (void *)0x2222);
  d.type = ncclProfileProxyCtrl;
  assert_true(emu_convert_v5(&d, &v5));
  unsigned char *b = (unsigned char *)&v5;
  for (size_t i = 24; i < sizeof v5; i++)
    assert_int_equal(b[i], EMU_POISON_BYTE);
  d.type = ncclProfileKernelPhase;
  assert_false(emu_convert_v5(&d, &v5));
}

static void test_convert_v1_v3(void **state) {
  (void)state;
  ncclProfilerEventDescr_v7_t d = make_coll();
  ncclProfilerEventDescr_v3_t v3;
  assert_true(emu_convert_v3(&d, &v3));
  assert_null(v3.coll.name);
  assert_int_equal(v3.coll.commHash, 0);
  assert_int_equal(v3.coll.nMaxChannels, 2);
  assert_ptr_equal(v3.parentObj, (void *)0x2222);
  ncclProfilerEventDescr_v2_t v2;
  assert_true(emu_convert_v2(&d, &v2));
  assert_int_equal(v2.coll.trafficBytes, 0);
  d.type = ncclProfileKernelCh;
  assert_false(emu_convert_v2(&d, &v2));
  assert_true(emu_convert_v3(&d, &v3));
  d = make_coll();
  ncclProfilerEventDescr_v1_t v1;
  assert_true(emu_convert_v1(&d, &v1));
  assert_int_equal(v1.coll.func, ncclFuncAllReduce);
  assert_int_equal(v1.coll.datatype, ncclFloat32);
  assert_int_equal(v1.coll.algo, NCCL_ALGO_RING);
  assert_int_equal(v1.coll.proto, NCCL_PROTO_SIMPLE);
  assert_int_equal(v1.coll.op, 0);
}

static void test_v1_fallbacks(void **state) {
  (void)state;
  assert_int_equal(emu_v1_func("AlltoAll"), ncclFuncSend);
  assert_int_equal(emu_v1_func("Recv"), ncclFuncRecv);
  assert_int_equal(emu_v1_datatype("Unknown"), ncclFloat64);
  assert_int_equal(emu_v1_datatype("ncclBfloat16"), ncclBfloat16);
  assert_int_equal(emu_v1_algo("XYZ"), NCCL_ALGO_PAT);
  assert_int_equal(emu_v1_algo("NVLS_TREE"), NCCL_ALGO_NVLS_TREE);
  assert_int_equal(emu_v1_proto("LL128"), NCCL_PROTO_LL128);
  assert_int_equal(emu_v1_proto("other"), NCCL_PROTO_SIMPLE);
}

static void test_state_table(void **state) {
  (void)state;
  assert_false(emu_state_delivered(4, ncclProfilerGroupStartApiStop));
  assert_false(emu_state_delivered(4, ncclProfilerGroupEndApiStart));
  assert_true(emu_state_delivered(4, ncclProfilerKernelChStop));
  assert_true(emu_state_delivered(5, ncclProfilerGroupEndApiStart));
  assert_false(emu_state_delivered(5, ncclProfilerCeCollStart));
  assert_false(emu_state_delivered(3, ncclProfilerProxyOpInProgress_v4));
  assert_true(emu_state_delivered(3, ncclProfilerProxyCtrlAppendEnd));
  assert_false(emu_state_delivered(2, ncclProfilerKernelChStop));
  assert_false(emu_state_delivered(6, ncclProfilerKernelPhaseStop));
  assert_true(emu_state_delivered(7, ncclProfilerKernelPhaseStop));
}

/* A fake plugin for the shim calls. */
static int fake_mode; /* 0 write handle, 1 leave unwritten */
static void *fake_before;
static ncclProfilerEventDescr_v4_t fake_v4;
static ncclProfilerEventStateArgs_v4_t fake_args4;

static ncclResult_t fake_start_v4(void *c, void **h,
                                  ncclProfilerEventDescr_v4_t *d) {
  (void)c;
  fake_before = *h;
  fake_v4 = *d;
  if (fake_mode == 0)
    *h = (void *)0xABC0;
  return ncclSuccess;
}
static ncclResult_t fake_record_v4(void *h, ncclProfilerEventState_v4_t s,
                                   ncclProfilerEventStateArgs_v4_t *a) {
  (void)h, (void)s;
  fake_args4 = *a;
  return ncclSuccess;
}
static ncclResult_t fake_start_v1(void *c, void **h,
                                  ncclProfilerEventDescr_v1_t *d) {
  (void)c, (void)d;
  fake_before = *h;
  return ncclSuccess;
}
static ncclResult_t fake_stop(void *h) {
  (void)h;
  return ncclSuccess;
}

static void test_shim_calls(void **state) {
  (void)state;
  ncclProfiler_v4_t p4 = {"fake",    NULL,           fake_start_v4,
                          fake_stop, fake_record_v4, NULL};
  emu_plugin plugin = {0};
  plugin.abi = 4;
  plugin.symbol = &p4;
  plugin.stop = fake_stop;
  emu_shims_detect_unwritten(true);
  ncclProfilerEventDescr_v7_t d = make_coll();
  void *slot = (void *)0x5151; /* stale content of NCCL's slot */
  emu_delivery del = emu_shim_start(&plugin, NULL, &slot, &d);
  assert_int_equal(del.kind, EMU_DELIVERED);
  assert_false(del.unwritten);
  assert_ptr_equal(slot, (void *)0xABC0);
  fake_mode = 1; /* plugin does not write: the stale value comes back */
  slot = (void *)0x5151;
  del = emu_shim_start(&plugin, NULL, &slot, &d);
  assert_true(del.unwritten);
  assert_ptr_equal(slot, (void *)0x5151);
  fake_mode = 0;
  d.type = ncclProfileGroupApi; /* v4 drops it without touching the slot */
  slot = (void *)0x5151;
  del = emu_shim_start(&plugin, NULL, &slot, &d);
  assert_int_equal(del.kind, EMU_DROPPED_SHIM);
  assert_ptr_equal(slot, (void *)0x5151);
  ncclProfilerEventStateArgs_v7_t args;
  memset(&args, 0, sizeof args);
  del =
      emu_shim_record(&plugin, (void *)1, ncclProfilerGroupStartApiStop, NULL);
  assert_int_equal(del.kind, EMU_DROPPED_SHIM);
  del = emu_shim_record(&plugin, (void *)1, ncclProfilerProxyOpInProgress_v4,
                        &args);
  assert_int_equal(del.kind, EMU_DELIVERED);
  assert_int_equal(fake_args4.proxyStep.transSize, EMU_POISON_U64);

  ncclProfiler_v1_t p1 = {"fake1", NULL, fake_start_v1, fake_stop, NULL, NULL};
  plugin.abi = 1;
  plugin.symbol = &p1;
  d = make_coll();
  slot = (void *)0x5151;
  del = emu_shim_start(&plugin, NULL, &slot, &d);
  assert_ptr_equal(fake_before, NULL); /* adapter writes NULL first */
  assert_ptr_equal(slot, NULL);
  d.type = ncclProfileKernelCh; /* v1 cannot receive it: nulled */
  slot = (void *)0x5151;
  del = emu_shim_start(&plugin, NULL, &slot, &d);
  assert_int_equal(del.kind, EMU_DROPPED_NULLED);
  assert_ptr_equal(slot, NULL);
}

/* ---------- model ---------- */
static void test_step_formulas(void **state) {
  (void)state;
  /* §8.3: 32 MiB float AllReduce, 2 ranks, 2 channels, Ring/Simple */
  emu_coll_shape s;
  emu_model_coll(&s, EMU_FUNC_ALLREDUCE, 32u << 20, 2, 2);
  assert_string_equal(s.proto, "SIMPLE");
  assert_int_equal(s.nchannels, 2);
  assert_int_equal(s.step_size, 512 * 1024);
  assert_int_equal(s.chunk_size, 2u << 20);
  assert_int_equal(s.nloops, 4);
  assert_int_equal(s.nsteps, 32);
  assert_int_equal(s.profiler_steps, 16);
  assert_int_equal(s.step_bytes, 1u << 20);
  assert_int_equal(s.chunk_size * (uint64_t)s.slice_steps, 4u << 20);
  /* AllGather: (n-1) steps per loop */
  emu_model_coll(&s, EMU_FUNC_ALLGATHER, 8u << 20, 4, 2);
  assert_int_equal(s.nsteps_per_loop, 3);
  /* p2p: 128 KiB chunks, 2 channels from 1 MiB */
  emu_model_p2p(&s, 4u << 20, 2);
  assert_int_equal(s.nchannels, 2);
  assert_int_equal(s.nsteps, 16);
  assert_int_equal(s.step_bytes, 128 * 1024);
}

static void test_gpu_clock(void **state) {
  (void)state;
  emu_options o;
  emu_options_defaults(&o);
  o.gpu_clock_offset_ns = 5000000;
  o.gpu_clock_quantum_ns = 1000;
  emu_gpu_clock c;
  emu_gpu_clock_init(&c, &o, 0);
  uint64_t now = emu_realtime_ns();
  uint64_t g = emu_gpu_clock_at(&c, now);
  assert_int_equal(g % 1000, 0);
  assert_true(g >= now + 5000000 - 1000 && g <= now + 5000000 + 1000);
}

/* --slow-rank: the communicators with the slow GPU stretch by its factor,
 * the others not; parsed from the command line. */
static void test_slow_gpu_stretch(void **state) {
  (void)state;
  emu_options o;
  emu_options_defaults(&o);
  const int with[] = {0, 3, 5}, without[] = {0, 1, 2};
  assert_true(emu_model_gpu_stretch(&o, with, 3) == 1.0); /* no plant */
  char *argv[] = {"ncclemu", "--slow-rank", "3", "--slow-factor", "2.5"};
  optind = 1;
  emu_options_parse(&o, 5, argv);
  assert_int_equal(o.slow_rank, 3);
  assert_true(emu_model_gpu_stretch(&o, with, 3) == 2.5);
  assert_true(emu_model_gpu_stretch(&o, without, 3) == 1.0);
  emu_options_defaults(&o);
  assert_true(o.slow_factor == 2.0); /* the documented default */
}

static void test_check_limits_by_build(void **state) {
  (void)state;
  emu_options o;
  emu_options_defaults(&o);
  assert_true(o.max_callback_ms == 100.0);
#if CCLSCOPE_SANITIZER_BUILD
  /* the plugin's final drain runs 5-15x slower under ASan/TSan */
  assert_true(o.max_lifecycle_ms == 10000.0);
#else
  assert_true(o.max_lifecycle_ms == 2000.0);
#endif
}

static void test_rng(void **state) {
  (void)state;
  emu_rng a, b, c;
  emu_rng_seed(&a, 7, "proxy.r0");
  emu_rng_seed(&b, 7, "proxy.r0");
  emu_rng_seed(&c, 7, "proxy.r1");
  bool differs = false;
  for (int i = 0; i < 16; i++) {
    uint64_t x = emu_rng_next(&a), y = emu_rng_next(&b), z = emu_rng_next(&c);
    assert_int_equal(x, y);
    differs |= x != z;
  }
  assert_true(differs);
}

/* ---------- truth normaliser ---------- */
static void test_normalize(void **state) {
  (void)state;
  char p1[] = "/tmp/emu-norm-1-XXXXXX", p2[] = "/tmp/emu-norm-2-XXXXXX";
  int f1 = mkstemp(p1), f2 = mkstemp(p2);
  assert_true(f1 >= 0 && f2 >= 0);
  const char *a = "{\"seq\":1,\"t_ns\":5,\"pid\":10,\"tid\":11,\"thr\":\"w0/"
                  "app0\",\"call\":\"start\",\"id\":\"0x1\",\"handle\":"
                  "\"0x00007f0000001000\",\"ctx\":\"0x1\",\"step\":3}\n";
  const char *b = "{\"seq\":9,\"t_ns\":7,\"pid\":20,\"tid\":21,\"thr\":\"w0/"
                  "app0\",\"call\":\"start\",\"id\":\"0x1\",\"handle\":"
                  "\"0x00007f0000002000\",\"ctx\":\"0x2\",\"step\":3}\n";
  assert_int_equal(write(f1, a, strlen(a)), (ssize_t)strlen(a));
  assert_int_equal(write(f2, b, strlen(b)), (ssize_t)strlen(b));
  close(f1);
  close(f2);
  char o1[] = "/tmp/emu-norm-o1-XXXXXX", o2[] = "/tmp/emu-norm-o2-XXXXXX";
  int g1 = mkstemp(o1), g2 = mkstemp(o2);
  FILE *out1 = fdopen(g1, "w"), *out2 = fdopen(g2, "w");
  char *files1[] = {p1}, *files2[] = {p2};
  assert_int_equal(emu_truth_normalize(1, files1, out1), 0);
  assert_int_equal(emu_truth_normalize(1, files2, out2), 0);
  fclose(out1);
  fclose(out2);
  char buf1[512] = {0}, buf2[512] = {0};
  FILE *r1 = fopen(o1, "r"), *r2 = fopen(o2, "r");
  assert_non_null(fgets(buf1, sizeof buf1, r1));
  assert_non_null(fgets(buf2, sizeof buf2, r2));
  fclose(r1);
  fclose(r2);
  assert_string_equal(buf1, buf2);
  assert_non_null(strstr(buf1, "handle=set"));
  assert_non_null(strstr(buf1, "step=3"));
  unlink(p1);
  unlink(p2);
  unlink(o1);
  unlink(o2);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_resolve_names),
      cmocka_unit_test(test_static_prefix),
      cmocka_unit_test(test_probe_order),
      cmocka_unit_test(test_version_parse),
      cmocka_unit_test(test_mask_parse),
      cmocka_unit_test(test_convert_v4),
      cmocka_unit_test(test_convert_v5),
      cmocka_unit_test(test_convert_v1_v3),
      cmocka_unit_test(test_v1_fallbacks),
      cmocka_unit_test(test_state_table),
      cmocka_unit_test(test_shim_calls),
      cmocka_unit_test(test_step_formulas),
      cmocka_unit_test(test_gpu_clock),
      cmocka_unit_test(test_slow_gpu_stretch),
      cmocka_unit_test(test_check_limits_by_build),
      cmocka_unit_test(test_rng),
      cmocka_unit_test(test_normalize),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
