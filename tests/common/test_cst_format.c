/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/common/test_cst_format.c — the binary trace container's pieces
 * (src/common/cst_format.c): record lengths at every varint width, records
 * cut anywhere, headers that are not ours refused, and lines turned into
 * records and back unchanged.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cst_format.h"

/* A record head of every varint width parses back, and any prefix of a
 * record is "cut" (0), never a record or an error. */
static void record_heads_round_trip(void **state) {
  (void)state;
  const uint32_t lengths[] = {0,     1,       127,     128,      16383,
                              16384, 2097151, 2097152, 1u << 28, UINT32_MAX};
  const size_t widths[] = {2, 2, 2, 3, 3, 4, 4, 5, 6, 6};
  static unsigned char buf[CST_REC_HEAD_MAX + 64];
  for (size_t i = 0; i < sizeof lengths / sizeof lengths[0]; i++) {
    size_t n = cst_rec_head(buf, CST_REC_LINE, lengths[i]);
    assert_int_equal(n, widths[i]);
    unsigned kind;
    size_t body, next;
    uint32_t len;
    if (lengths[i] <= 64) { /* the whole record fits in buf */
      assert_int_equal(
          cst_rec_parse(buf, n + lengths[i], &kind, &body, &len, &next), 1);
      assert_int_equal(kind, CST_REC_LINE);
      assert_int_equal(body, n);
      assert_int_equal(len, lengths[i]);
      assert_int_equal(next, n + lengths[i]);
    }
    for (size_t cut = 0; cut < n + (lengths[i] <= 64 ? lengths[i] : 0); cut++)
      assert_int_equal(cst_rec_parse(buf, cut, &kind, &body, &len, &next), 0);
  }
}

/* The wide head (what the plugin writes before it knows a line's length)
 * parses as the same length at every width of the value. */
static void wide_heads_parse(void **state) {
  (void)state;
  const uint32_t lengths[] = {0, 1, 127, 128, 16384, 1u << 28, UINT32_MAX};
  for (size_t i = 0; i < sizeof lengths / sizeof lengths[0]; i++) {
    unsigned char buf[CST_REC_HEAD_MAX + 8] = {0};
    cst_rec_head_wide(buf, CST_REC_LINE, lengths[i]);
    unsigned kind;
    size_t body, next;
    uint32_t len;
    int r = cst_rec_parse(buf, sizeof buf, &kind, &body, &len, &next);
    if (lengths[i] <= 8) {
      assert_int_equal(r, 1);
      assert_int_equal(body, CST_REC_HEAD_MAX);
      assert_int_equal(len, lengths[i]);
    } else {
      assert_int_equal(r, 0); /* the body is not all there: cut */
    }
  }
}

/* A varint longer than 32 bits is not a record. */
static void long_varint_refused(void **state) {
  (void)state;
  const unsigned char bad[] = {CST_REC_LINE, 0xff, 0xff, 0xff, 0xff, 0x7f, 0};
  unsigned kind;
  size_t body, next;
  uint32_t len;
  assert_int_equal(cst_rec_parse(bad, sizeof bad, &kind, &body, &len, &next),
                   -1);
}

static void headers(void **state) {
  (void)state;
  unsigned char h[CST_FILE_HEADER];
  cst_file_header(h, CST_FLAG_ZSTD);
  assert_true(cst_is_binary(h, sizeof h));
  assert_int_equal(cst_file_version(h, sizeof h), CST_VERSION);
  assert_int_equal(cst_file_version(h, sizeof h - 1), 0);
  h[3] = 'X';
  assert_false(cst_is_binary(h, sizeof h));
  assert_false(cst_is_binary((const unsigned char *)"{\"recordType\"", 13));

  unsigned char f[CST_FRAME_HEADER];
  cst_frame_info in = {CST_CODEC_ZSTD, 12345, 67}, out;
  cst_frame_header(f, &in);
  assert_true(cst_frame_parse(f, &out));
  assert_int_equal(out.codec, CST_CODEC_ZSTD);
  assert_int_equal(out.bytes, 12345);
  assert_int_equal(out.records, 67);
  f[4] = CST_CODEC_ZSTD_PREFIX; /* version 3's zstd against the prefix */
  assert_true(cst_frame_parse(f, &out));
  assert_int_equal(out.codec, CST_CODEC_ZSTD_PREFIX);
  f[4] = 3; /* no such codec */
  assert_false(cst_frame_parse(f, &out));
  f[4] = 7;
  assert_false(cst_frame_parse(f, &out));
  cst_frame_header(f, &in);
  f[6] = 1; /* reserved */
  assert_false(cst_frame_parse(f, &out));
  in.bytes = CST_FRAME_MAX + 1;
  cst_frame_header(f, &in);
  assert_false(cst_frame_parse(f, &out));
}

/* Lines (one of 200 bytes: a two-byte length) become records whose bodies
 * are the lines, newline included, in order. */
static void lines_as_records(void **state) {
  (void)state;
  char text[400];
  int n = snprintf(text, sizeof text, "{\"a\":1}\n{\"b\":\"%0190d\"}\n\n", 7);
  size_t len = (size_t)n;
  uint32_t lines;
  size_t size = cst_lines_payload_size(text, len, &lines);
  assert_int_equal(lines, 3);
  static unsigned char payload[512];
  assert_int_equal(cst_lines_payload(text, len, payload), size);
  size_t at = 0, text_at = 0;
  for (uint32_t i = 0; i < lines; i++) {
    unsigned kind;
    size_t body, next;
    uint32_t body_len;
    assert_int_equal(
        cst_rec_parse(payload + at, size - at, &kind, &body, &body_len, &next),
        1);
    assert_int_equal(kind, CST_REC_LINE);
    assert_memory_equal(payload + at + body, text + text_at, body_len);
    assert_int_equal(payload[at + body + body_len - 1], '\n');
    text_at += body_len;
    at += next;
  }
  assert_int_equal(at, size);
  assert_int_equal(text_at, len);
}

/* Compact records' varints and zigzag: every width, the extremes, a cut
 * or overlong varint refused. */
static void varints_and_zigzag(void **state) {
  (void)state;
  static const uint64_t values[] = {0,         1,          127,
                                    128,       16383,      16384,
                                    1u << 31,  UINT32_MAX, (uint64_t)1 << 63,
                                    UINT64_MAX};
  for (size_t i = 0; i < sizeof values / sizeof *values; i++) {
    unsigned char buf[CST_VARINT_MAX];
    unsigned char *end = cst_put_varint(buf, values[i]);
    const unsigned char *p = buf;
    uint64_t v = 0;
    assert_true(cst_get_varint(&p, end, &v));
    assert_true(p == end);
    assert_true(v == values[i]);
    p = buf; /* one byte short: cut */
    assert_false(cst_get_varint(&p, end - 1, &v));
    int64_t sv = (int64_t)values[i];
    assert_true(cst_unzigzag(cst_zigzag(sv)) == sv);
    if (sv != INT64_MIN)
      assert_true(cst_unzigzag(cst_zigzag(-sv)) == -sv);
  }
  assert_true(cst_zigzag(0) == 0 && cst_zigzag(-1) == 1 && cst_zigzag(1) == 2);
  assert_true(cst_zigzag(INT64_MIN) == UINT64_MAX);
  unsigned char longer[11];
  memset(longer, 0x80, sizeof longer); /* eleven continuation bytes */
  const unsigned char *p = longer;
  uint64_t v;
  assert_false(cst_get_varint(&p, longer + sizeof longer, &v));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(record_heads_round_trip),
      cmocka_unit_test(wide_heads_parse),
      cmocka_unit_test(long_varint_refused),
      cmocka_unit_test(headers),
      cmocka_unit_test(lines_as_records),
      cmocka_unit_test(varints_and_zigzag),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
