/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/cli/test_jsonw.c — the JSON writer's strings (src/cli/util/jsonw.c):
 * keys, jw_str and jw_strn write exactly what escaping one byte at a time
 * writes, for every byte value at every position of strings up to 40
 * bytes (its fast paths take eight bytes, or a whole string, at once),
 * and wherever a string falls across the writer's buffer; numbers as
 * printf writes them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <inttypes.h>

#include <cmocka.h>

#include "util/jsonw.h"

/* A JSON string of the n bytes at s, quoted, escaped one byte at a time. */
static size_t reference(const char *s, size_t n, char *out) {
  static const char hex[] = "0123456789abcdef";
  size_t k = 0;
  out[k++] = '"';
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '"' || c == '\\') {
      out[k++] = '\\';
      out[k++] = (char)c;
    } else if (c == '\n') {
      out[k++] = '\\';
      out[k++] = 'n';
    } else if (c == '\t') {
      out[k++] = '\\';
      out[k++] = 't';
    } else if (c < 0x20) {
      memcpy(out + k, "\\u00", 4);
      out[k + 4] = hex[c >> 4];
      out[k + 5] = hex[c & 15];
      k += 6;
    } else {
      out[k++] = (char)c;
    }
  }
  out[k++] = '"';
  return k;
}

typedef enum { AS_STRN, AS_STR, AS_KEY } way;

/* What the writer makes of s (n bytes; no NUL inside for AS_STR and
 * AS_KEY) after `before` bytes of other output: the string's part only. */
static char *written(way how, const char *s, size_t n, size_t before,
                     size_t *len) {
  char *buf = NULL;
  size_t size = 0;
  FILE *f = open_memstream(&buf, &size);
  assert_non_null(f);
  jsonw *w = malloc(sizeof *w);
  assert_non_null(w);
  jw_init(w, f);
  char *filler = malloc(before + 1);
  assert_non_null(filler);
  memset(filler, ' ', before);
  jw_raw(w, filler, before);
  free(filler);
  jw_arr_begin(w); /* strings and keys need a container */
  if (how == AS_KEY) {
    jw_obj_begin(w);
    jw_key(w, s);
    jw_null(w);
    jw_obj_end(w);
  } else if (how == AS_STR) {
    jw_str(w, s);
  } else {
    jw_strn(w, s, n);
  }
  jw_arr_end(w);
  jw_flush(w);
  free(w);
  fclose(f);
  /* the string without the filler and the containers around it */
  size_t skip = before + 1 + (how == AS_KEY ? 1 : 0);
  size_t tail = 1 + (how == AS_KEY ? 6 : 0); /* "]" or ":null}]" */
  assert_true(size >= skip + tail);
  *len = size - skip - tail;
  memmove(buf, buf + skip, *len);
  return buf;
}

static void expect_same(way how, const char *s, size_t n, size_t before) {
  char want[8 * 64];
  size_t want_len = reference(s, n, want);
  size_t got_len;
  char *got = written(how, s, n, before, &got_len);
  if (got_len != want_len || memcmp(got, want, want_len) != 0)
    fail_msg("way %d, %zu bytes after %zu: got %.*s, want %.*s", (int)how, n,
             before, (int)got_len, got, (int)want_len, want);
  free(got);
}

/* Every byte value (1..255 for the NUL-terminated ways) at every position
 * of plain strings of 1..40 bytes. */
static void test_every_byte_everywhere(void **state) {
  (void)state;
  char s[48];
  for (size_t n = 1; n <= 40; n++) {
    for (size_t at = 0; at < n; at++) {
      for (int c = 0; c < 256; c++) {
        memset(s, 'a', n);
        s[n] = '\0';
        s[at] = (char)c;
        expect_same(AS_STRN, s, n, 0);
        if (c == 0)
          continue;
        expect_same(AS_STR, s, n, 0);
        expect_same(AS_KEY, s, n, 0);
      }
    }
  }
}

/* Strings that end near, at and past the end of the writer's buffer. */
static void test_across_the_buffer(void **state) {
  (void)state;
  const char *plain = "ProxyStep send (in flight)";
  const char *escaped = "a\"b\\c\nd\te\x01"
                        "fghijklmnopqrstuvwxyz";
  for (size_t before = JW_BUF - 64; before <= JW_BUF + 8; before++) {
    for (way how = AS_STRN; how <= AS_KEY; how++) {
      expect_same(how, plain, strlen(plain), before);
      expect_same(how, escaped, strlen(escaped), before);
    }
  }
}

/* What jw_u64, jw_i64 and jw_ns_as_us write for v, one value of an array. */
static char *numbers_written(uint64_t v) {
  char *buf = NULL;
  size_t size = 0;
  FILE *f = open_memstream(&buf, &size);
  assert_non_null(f);
  jsonw *w = malloc(sizeof *w);
  assert_non_null(w);
  jw_init(w, f);
  jw_arr_begin(w);
  jw_u64(w, v);
  jw_i64(w, (int64_t)v);
  jw_ns_as_us(w, (int64_t)v);
  jw_arr_end(w);
  jw_flush(w);
  free(w);
  fclose(f);
  return buf;
}

/* Numbers with every count of digits, around every power of ten, the
 * extremes, negative ones: as printf writes them (ns as us: three
 * decimals, the sign before the whole part). */
static void test_numbers(void **state) {
  (void)state;
  uint64_t values[200];
  size_t n = 0;
  values[n++] = 0;
  values[n++] = UINT64_MAX;
  values[n++] = (uint64_t)INT64_MIN;
  values[n++] = (uint64_t)INT64_MAX;
  uint64_t ten = 1;
  for (int d = 0; d < 20; d++, ten *= 10) {
    values[n++] = ten;
    values[n++] = ten - 1;
    values[n++] = ten + 1;
    values[n++] = ten * 7 + 42;
    values[n++] = (uint64_t)0 - ten;     /* negative as int64 */
    values[n++] = (uint64_t)0 - ten + 1; /* -(ten - 1) */
  }
  values[n++] = UINT64_C(1795878018445286902); /* a time in ns */
  for (size_t i = 0; i < n; i++) {
    uint64_t v = values[i];
    int64_t s = (int64_t)v;
    uint64_t mag = s < 0 ? (uint64_t)0 - v : v;
    char want[128];
    snprintf(want, sizeof want, "[%" PRIu64 ",%" PRId64 ",%s%" PRIu64 ".%03u]",
             v, s, s < 0 ? "-" : "", mag / 1000, (unsigned)(mag % 1000));
    char *got = numbers_written(v);
    assert_string_equal(got, want);
    free(got);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_byte_everywhere),
      cmocka_unit_test(test_across_the_buffer),
      cmocka_unit_test(test_numbers),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
