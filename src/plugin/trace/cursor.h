/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/trace/cursor.h — writing text through a raw cursor (char *) into
 * memory the caller has already reserved. The writer thread formats lines
 * this way: one capacity check per line instead of one per field. Every
 * function returns the advanced cursor. Nothing here checks bounds: the
 * caller reserves the worst case first (see the *_MAX constants).
 */
#ifndef CCLSCOPE_CURSOR_H
#define CCLSCOPE_CURSOR_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define CS_CUR_U64_MAX 20
#define CS_CUR_HEX_MAX 20 /* "0x" + 16 digits + 2 quotes */
#define CS_CUR_TS_MAX 28
/* A string of n bytes escapes to at most 6n + 2 bytes. */
#define CS_CUR_STR_MAX(n) (6 * (n) + 2)

extern const char cs_decimal_pairs[200]; /* "00" .. "99" */
extern const char cs_hex_pairs[512];     /* "00" .. "ff" */

static inline char *cs_cur_lit(char *p, const char *s, size_t n) {
  memcpy(p, s, n);
  return p + n;
}
/* A string literal (its length is known at compile time). */
#define CS_CUR_LIT(p, lit) cs_cur_lit((p), (lit), sizeof(lit) - 1)

static inline char *cs_cur_char(char *p, char c) {
  *p = c;
  return p + 1;
}

static inline unsigned cs_decimal_digits(uint64_t v) {
  unsigned n = 1;
  while (v >= 10000) {
    v /= 10000;
    n += 4;
  }
  if (v >= 10)
    n++;
  if (v >= 100)
    n++;
  if (v >= 1000)
    n++;
  return n;
}

static inline char *cs_cur_u64(char *p, uint64_t v) {
  unsigned n = cs_decimal_digits(v);
  char *q = p + n;
  while (v >= 100) {
    unsigned r = (unsigned)(v % 100);
    v /= 100;
    q -= 2;
    memcpy(q, cs_decimal_pairs + 2 * r, 2);
  }
  if (v >= 10) {
    q -= 2;
    memcpy(q, cs_decimal_pairs + 2 * v, 2);
  } else {
    *--q = (char)('0' + v);
  }
  return p + n;
}

static inline char *cs_cur_i64(char *p, int64_t v) {
  if (v < 0) {
    *p++ = '-';
    return cs_cur_u64(p, (uint64_t)0 - (uint64_t)v);
  }
  return cs_cur_u64(p, (uint64_t)v);
}

/* "0x1f" with quotes. */
static inline char *cs_cur_hex(char *p, uint64_t v) {
  unsigned n = v ? (unsigned)(64 - __builtin_clzll(v) + 3) / 4 : 1;
  p[0] = '"';
  p[1] = '0';
  p[2] = 'x';
  char *q = p + 3 + n;
  *q = '"';
  if (n & 1) {
    *--q = cs_hex_pairs[2 * (v & 0xf) + 1];
    v >>= 4;
  }
  while (q > p + 3) {
    q -= 2;
    memcpy(q, cs_hex_pairs + 2 * (v & 0xff), 2);
    v >>= 8;
  }
  return p + 4 + n;
}

static inline char *cs_cur_bool(char *p, bool v) {
  return v ? CS_CUR_LIT(p, "true") : CS_CUR_LIT(p, "false");
}

/* Nanoseconds as microseconds with three decimals (any sign, any size). */
char *cs_cur_ns_as_us(char *p, int64_t ns);

/* Unix-epoch nanoseconds as microseconds with three decimals, fast: the
 * digits of the current second are kept, the rest has a fixed width. */
typedef struct {
  int64_t sec_start; /* ns at the start of the cached second; -1: none */
  uint8_t len;
  char text[24];
} cs_cur_ts_cache;

char *cs_cur_epoch_us_slow(char *p, int64_t ns, cs_cur_ts_cache *c);

static inline char *cs_cur_epoch_us(char *p, int64_t ns, cs_cur_ts_cache *c) {
  uint64_t within = (uint64_t)(ns - c->sec_start);
  if (__builtin_expect(c->sec_start < 0 || within >= 1000000000u, 0))
    return cs_cur_epoch_us_slow(p, ns, c);
  unsigned rem = (unsigned)within;
  memcpy(p, c->text, 16); /* fixed size; the caller reserved enough */
  p += c->len;
  unsigned us = rem / 1000, frac = rem % 1000;
  memcpy(p, cs_decimal_pairs + 2 * (us / 10000), 2);
  memcpy(p + 2, cs_decimal_pairs + 2 * ((us / 100) % 100), 2);
  memcpy(p + 4, cs_decimal_pairs + 2 * (us % 100), 2);
  p[6] = '.';
  p[7] = (char)('0' + frac / 100);
  memcpy(p + 8, cs_decimal_pairs + 2 * (frac % 100), 2);
  return p + 10;
}

/* A JSON string (escaped), or null for NULL. At most CS_CUR_STR_MAX(len). */
static inline char *cs_cur_str(char *p, const char *s) {
  static const char hex[] = "0123456789abcdef";
  if (!s)
    return CS_CUR_LIT(p, "null");
  *p++ = '"';
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (__builtin_expect(c >= 0x20 && c != '"' && c != '\\', 1)) {
      *p++ = (char)c;
    } else if (c == '"' || c == '\\') {
      p[0] = '\\';
      p[1] = (char)c;
      p += 2;
    } else if (c == '\n') {
      p = CS_CUR_LIT(p, "\\n");
    } else if (c == '\t') {
      p = CS_CUR_LIT(p, "\\t");
    } else {
      p = CS_CUR_LIT(p, "\\u00");
      p[0] = hex[c >> 4];
      p[1] = hex[c & 15];
      p += 2;
    }
  }
  *p++ = '"';
  return p;
}

#endif
