/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/util/jsonw.c — see jsonw.h.
 */
#include "util/jsonw.h"

#include <math.h>
#include <string.h>

void jw_init(jsonw *w, FILE *out) {
  w->out = out;
  w->depth = 0;
  w->after_key = false;
  w->n = 0;
  memset(w->need_comma, 0, sizeof w->need_comma);
}

void jw_flush(jsonw *w) {
  if (w->n)
    fwrite(w->buf, 1, w->n, w->out);
  w->n = 0;
  fflush(w->out);
}

/* put() when `s` does not fit in the room left: write out the buffer, and
 * `s` directly when it is larger than the whole buffer. */
static void put_spill(jsonw *w, const char *s, size_t n) {
  fwrite(w->buf, 1, w->n, w->out);
  w->n = 0;
  if (n > JW_BUF) {
    fwrite(s, 1, n, w->out);
    return;
  }
  memcpy(w->buf, s, n);
  w->n = n;
}

static inline void put(jsonw *w, const char *s, size_t n) {
  if (n > JW_BUF - w->n) {
    put_spill(w, s, n);
    return;
  }
  memcpy(w->buf + w->n, s, n);
  w->n += n;
}

static inline void put1(jsonw *w, char c) {
  if (w->n == JW_BUF) {
    fwrite(w->buf, 1, w->n, w->out);
    w->n = 0;
  }
  w->buf[w->n++] = c;
}

static inline void before_value(jsonw *w) {
  if (w->after_key) {
    w->after_key = false;
    return;
  }
  if (w->depth > 0 && w->depth <= JW_MAX_DEPTH) {
    if (w->need_comma[w->depth - 1])
      put1(w, ',');
    w->need_comma[w->depth - 1] = true;
  }
}

static void open_(jsonw *w, char c) {
  before_value(w);
  put1(w, c);
  if (w->depth < JW_MAX_DEPTH)
    w->need_comma[w->depth] = false;
  w->depth++;
}

static void close_(jsonw *w, char c) {
  if (w->depth > 0)
    w->depth--;
  put1(w, c);
}

void jw_obj_begin(jsonw *w) {
  open_(w, '{');
}
void jw_obj_end(jsonw *w) {
  close_(w, '}');
}
void jw_arr_begin(jsonw *w) {
  open_(w, '[');
}
void jw_arr_end(jsonw *w) {
  close_(w, ']');
}

/* 1 for a byte that JSON strings must escape: below 0x20, '"' and '\\'
 * (one load a byte in the loops below instead of three comparisons). */
static const unsigned char escape_byte[256] = {
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
};

/* A byte that JSON strings must escape. */
static inline bool needs_escape(unsigned char c) {
  return escape_byte[c] != 0;
}

/* True when none of the eight bytes of `x` needs escaping: no byte below
 * 0x20, no '"', no '\\' (the usual "has a byte less than" bit tricks, exact
 * for the question asked of the whole word). */
static inline bool word_is_plain(uint64_t x) {
  const uint64_t ones = UINT64_C(0x0101010101010101);
  const uint64_t highs = UINT64_C(0x8080808080808080);
  uint64_t quote = x ^ (ones * '"');
  uint64_t backslash = x ^ (ones * '\\');
  uint64_t flagged = ((x - ones * 0x20) & ~x) | ((quote - ones) & ~quote) |
                     ((backslash - ones) & ~backslash);
  return (flagged & highs) == 0;
}

static void put_escaped(jsonw *w, const char *s, size_t n) {
  static const char hex[] = "0123456789abcdef";
  size_t run = 0, i = 0;
  while (i < n) {
    if (n - i >= 8) {
      uint64_t word;
      memcpy(&word, s + i, sizeof word);
      if (word_is_plain(word)) {
        i += 8;
        continue;
      }
    }
    unsigned char c = (unsigned char)s[i++];
    if (!needs_escape(c))
      continue;
    put(w, s + run, i - 1 - run);
    run = i;
    switch (c) {
    case '"':
      put(w, "\\\"", 2);
      break;
    case '\\':
      put(w, "\\\\", 2);
      break;
    case '\n':
      put(w, "\\n", 2);
      break;
    case '\t':
      put(w, "\\t", 2);
      break;
    default: {
      char esc[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
      put(w, esc, 6);
    }
    }
  }
  put(w, s + run, n - run);
}

/* Copy the NUL-terminated `s` into the buffer in one pass when none of its
 * bytes needs escaping and it fits in the room left (true); otherwise
 * nothing is written (false) and the caller takes the general path. */
static bool put_plain_cstr(jsonw *w, const char *s) {
  size_t room = JW_BUF - w->n;
  char *to = w->buf + w->n;
  for (size_t i = 0; i < room; i++) {
    unsigned char c = (unsigned char)s[i];
    if (needs_escape(c)) { /* the NUL at the end too: one test a byte */
      if (c != 0)
        return false;
      w->n += i;
      return true;
    }
    to[i] = (char)c;
  }
  return false;
}

/* The string `s` escaped, without its quotes. */
static void put_cstr(jsonw *w, const char *s) {
  if (!put_plain_cstr(w, s))
    put_escaped(w, s, strlen(s));
}

void jw_key(jsonw *w, const char *key) {
  before_value(w);
  put1(w, '"');
  put_cstr(w, key);
  put(w, "\":", 2);
  w->after_key = true;
}

void jw_strn(jsonw *w, const char *s, size_t n) {
  before_value(w);
  put1(w, '"');
  put_escaped(w, s, n);
  put1(w, '"');
}

void jw_str(jsonw *w, const char *s) {
  if (!s) {
    jw_null(w);
    return;
  }
  before_value(w);
  put1(w, '"');
  put_cstr(w, s);
  put1(w, '"');
}

/* Decimal digits of v, ending at `end`; returns the first. Two digits a
 * division (times are 16-digit numbers: half the divisions). */
static char *digits(char *end, uint64_t v) {
  static const char pairs[] = "00010203040506070809"
                              "10111213141516171819"
                              "20212223242526272829"
                              "30313233343536373839"
                              "40414243444546474849"
                              "50515253545556575859"
                              "60616263646566676869"
                              "70717273747576777879"
                              "80818283848586878889"
                              "90919293949596979899";
  char *p = end;
  while (v >= 100) {
    unsigned two = (unsigned)(v % 100);
    v /= 100;
    p -= 2;
    memcpy(p, pairs + 2 * two, 2);
  }
  if (v >= 10) {
    p -= 2;
    memcpy(p, pairs + 2 * v, 2);
  } else {
    *--p = (char)('0' + v);
  }
  return p;
}

static void put_u64(jsonw *w, uint64_t v) {
  char tmp[24];
  char *end = tmp + sizeof tmp;
  char *p = digits(end, v);
  put(w, p, (size_t)(end - p));
}

void jw_u64(jsonw *w, uint64_t v) {
  before_value(w);
  put_u64(w, v);
}

void jw_i64(jsonw *w, int64_t v) {
  before_value(w);
  if (v < 0) {
    put1(w, '-');
    put_u64(w, (uint64_t)0 - (uint64_t)v);
  } else {
    put_u64(w, (uint64_t)v);
  }
}

void jw_double(jsonw *w, double v, int decimals) {
  before_value(w);
  if (!isfinite(v)) {
    put(w, "null", 4);
    return;
  }
  char tmp[64];
  int n = snprintf(tmp, sizeof tmp, "%.*f", decimals, v);
  if (n > 0)
    put(w, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

void jw_bool(jsonw *w, bool v) {
  before_value(w);
  if (v)
    put(w, "true", 4);
  else
    put(w, "false", 5);
}

void jw_null(jsonw *w) {
  before_value(w);
  put(w, "null", 4);
}

void jw_hex(jsonw *w, uint64_t v) {
  static const char hex[] = "0123456789abcdef";
  char tmp[24];
  char *end = tmp + sizeof tmp, *p = end;
  *--p = '"';
  do {
    *--p = hex[v & 15];
    v >>= 4;
  } while (v);
  *--p = 'x';
  *--p = '0';
  *--p = '"';
  before_value(w);
  put(w, p, (size_t)(end - p));
}

void jw_ns_as_us(jsonw *w, int64_t ns) {
  before_value(w);
  uint64_t mag = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
  char tmp[32];
  char *end = tmp + sizeof tmp, *p = end;
  unsigned frac = (unsigned)(mag % 1000);
  *--p = (char)('0' + frac % 10);
  *--p = (char)('0' + frac / 10 % 10);
  *--p = (char)('0' + frac / 100);
  *--p = '.';
  p = digits(p, mag / 1000);
  if (ns < 0)
    *--p = '-';
  put(w, p, (size_t)(end - p));
}

void jw_raw(jsonw *w, const char *text, size_t n) {
  before_value(w);
  put(w, text, n);
}

void jw_newline(jsonw *w) {
  put1(w, '\n');
}
