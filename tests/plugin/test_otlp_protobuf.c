/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/plugin/test_otlp_protobuf.c — the OTLP JSON -> protobuf transcoder
 * (src/plugin/metrics/otlp_protobuf.c) against bytes worked out by hand from
 * the OTLP .proto field numbers; keys outside the schema subset and
 * malformed JSON are refused. The end-to-end check with the official
 * schema is tests/metrics/otlp_e2e.sh.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "otlp_protobuf.h"

static void encodes_a_sum_point(void **state) {
  (void)state;
  const char *json =
      "{\"resourceMetrics\":[{\"resource\":{\"attributes\":[{\"key\":\"k\","
      "\"value\":{\"intValue\":\"-1\"}}]},\"scopeMetrics\":[{\"metrics\":[{"
      "\"name\":\"m\",\"sum\":{\"aggregationTemporality\":2,\"isMonotonic\":"
      "true,\"dataPoints\":[{\"timeUnixNano\":\"300\",\"asInt\":\"5\"}]}}]}]}"
      "]}";
  static const uint8_t want[] = {
      0x0a, 0x35,                   /* resourceMetrics (1), 53 bytes */
      0x0a, 0x12,                   /* resource (1), 18 bytes */
      0x0a, 0x10,                   /* attributes (1), 16 bytes */
      0x0a, 0x01, 'k',              /* key */
      0x12, 0x0b,                   /* value (2), 11 bytes */
      0x18, 0xff, 0xff, 0xff, 0xff, /* intValue (3) = -1: ten bytes */
      0xff, 0xff, 0xff, 0xff, 0xff,
      0x01, 0x12, 0x1f, /* scopeMetrics (2), 31 bytes */
      0x12, 0x1d,       /* metrics (2), 29 bytes */
      0x0a, 0x01, 'm',  /* name (1) */
      0x3a, 0x18,       /* sum (7), 24 bytes */
      0x10, 0x02,       /* aggregationTemporality (2) */
      0x18, 0x01,       /* isMonotonic (3) */
      0x0a, 0x12,       /* dataPoints (1), 18 bytes, in the JSON's order */
      0x19, 0x2c, 0x01, 0,    0,
      0,    0,    0,    0, /* timeUnixNano (3) fixed64 300 */
      0x31, 0x05, 0,    0,    0,
      0,    0,    0,    0, /* asInt (6) sfixed64 5 */
  };
  cs_bytes out = {0};
  assert_true(cs_otlp_json_to_protobuf(json, strlen(json), &out));
  assert_int_equal(out.len, sizeof want);
  assert_memory_equal(out.data, want, sizeof want);
  free(out.data);
}

static void encodes_packed_histogram_fields(void **state) {
  (void)state;
  const char *json = "{\"resourceMetrics\":[{\"scopeMetrics\":[{\"metrics\":["
                     "{\"histogram\":{\"dataPoints\":[{\"count\":\"3\","
                     "\"bucketCounts\":[\"1\",\"2\"],\"explicitBounds\":[0.5],"
                     "\"sum\":null}]}}]}]}]}";
  static const uint8_t want[] = {
      0x0a, 0x2d, /* resourceMetrics, 45 */
      0x12, 0x2b, /* scopeMetrics, 43 */
      0x12, 0x29, /* metrics, 41 */
      0x4a, 0x27, /* histogram (9), 39 */
      0x0a, 0x25, /* dataPoints, 37 (sum: null is left out) */
      0x21, 3,    0, 0, 0, 0, 0,    0,    0,       /* count (4) fixed64 */
      0x32, 0x10, 1, 0, 0, 0, 0,    0,    0,    0, /* bucketCounts (6) packed */
      2,    0,    0, 0, 0, 0, 0,    0,    0x3a, 0x08,
      0,    0,    0, 0, 0, 0, 0xe0, 0x3f, /* explicitBounds 0.5 */
  };
  cs_bytes out = {0};
  assert_true(cs_otlp_json_to_protobuf(json, strlen(json), &out));
  assert_int_equal(out.len, sizeof want);
  assert_memory_equal(out.data, want, sizeof want);
  free(out.data);
}

static void decodes_string_escapes(void **state) {
  (void)state;
  const char *json = "{\"resourceMetrics\":[{\"scopeMetrics\":[{\"metrics\":["
                     "{\"name\":\"a\\\"\\u00e9\\ud83d\\ude00\"}]}]}]}";
  static const uint8_t want[] = {0x0a, 0x0e, 0x12, 0x0c, 0x12, 0x0a,
                                 0x0a, 0x08, 'a',  '"',  0xc3, 0xa9,
                                 0xf0, 0x9f, 0x98, 0x80};
  cs_bytes out = {0};
  assert_true(cs_otlp_json_to_protobuf(json, strlen(json), &out));
  assert_int_equal(out.len, sizeof want);
  assert_memory_equal(out.data, want, sizeof want);
  free(out.data);
}

static void refuses_what_it_does_not_know(void **state) {
  (void)state;
  static const char *const bad[] = {
      "{\"resourceMetrics\":[{\"unknownField\":1}]}",
      "{\"resourceMetrics\":[{\"resource\":{}}]",
      ("{\"resourceMetrics\":[{\"scopeMetrics\":[{\"metrics\":[{\"sum\":{"
       "\"dataPoints\":[{\"asInt\":\"x\"}]}}]}]}]}"),
      "{\"resourceMetrics\":[]} trailing",
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    cs_bytes out = {0};
    assert_false(cs_otlp_json_to_protobuf(bad[i], strlen(bad[i]), &out));
    free(out.data);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(encodes_a_sum_point),
      cmocka_unit_test(encodes_packed_histogram_fields),
      cmocka_unit_test(decodes_string_escapes),
      cmocka_unit_test(refuses_what_it_does_not_know),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
