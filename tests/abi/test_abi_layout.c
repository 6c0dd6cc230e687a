/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/abi/test_abi_layout.c — the ABI headers' layouts, checked at run time
 * too (the _Static_asserts in include/nccl/ already pin them at compile time;
 * this test makes a layout change visible as a failing test, not only as a
 * build break, and checks the enum values that are ABI).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "nccl/profiler.h"

static void test_descriptor_sizes(void **state) {
  (void)state;
  assert_int_equal(sizeof(ncclProfilerEventDescr_v1_t), 120);
  assert_int_equal(sizeof(ncclProfilerEventDescr_v2_t), 128);
  assert_int_equal(sizeof(ncclProfilerEventDescr_v3_t), 120);
  assert_int_equal(sizeof(ncclProfilerEventDescr_v4_t), 104);
  assert_int_equal(sizeof(ncclProfilerEventDescr_v5_t), 112);
  assert_int_equal(sizeof(ncclProfilerEventDescr_v6_t), 112);
  assert_int_equal(sizeof(ncclProfilerEventDescr_v7_t), 136);
  assert_int_equal(sizeof(ncclProfilerEventStateArgs_v1_t), 16);
  assert_int_equal(sizeof(ncclProfilerEventStateArgs_v4_t), 8);
  assert_int_equal(sizeof(ncclProfilerEventStateArgs_v7_t), 8);
}

static void test_type_width_changes_at_v5(void **state) {
  (void)state;
  /* The most important cross-version difference: uint8_t vs uint64_t type. */
  ncclProfilerEventDescr_v4_t d4 = {0};
  ncclProfilerEventDescr_v5_t d5 = {0};
  assert_int_equal(sizeof(d4.type), 1);
  assert_int_equal(sizeof(d5.type), 8);
  assert_int_equal(offsetof(ncclProfilerEventDescr_v4_t, parentObj), 8);
}

static void test_enum_values(void **state) {
  (void)state;
  assert_int_equal(ncclProfileCeBatch, 0x4000);
  assert_int_equal(ncclProfileKernelPhase, 0x8000);
  assert_int_equal(ncclProfilerKernelChStop, 22);
  assert_int_equal(ncclProfilerGroupEndApiStart, 24);
  assert_int_equal(ncclProfilerKernelPhaseStop, 31);
  assert_int_equal(NCCL_PROFILER_NET_TYPE_IB, 0x10000);
  assert_int_equal(NCCL_PROFILER_NET_TYPE_SOCK, 0x20000);
  assert_int_equal(NCCL_LOG_SUBSYS_PROFILE, 0x4000);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_descriptor_sizes),
      cmocka_unit_test(test_type_width_changes_at_v5),
      cmocka_unit_test(test_enum_values),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
