/*
 * src/plugin/json_writer.c — see json_writer.h.
 */
#include "json_writer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

void cs_jbuf_init(cs_jbuf *b) {
  b->data = NULL;
  b->len = 0;
  b->cap = 0;
  b->failed = false;
}

void cs_jbuf_free(cs_jbuf *b) {
  free(b->data);
  cs_jbuf_init(b);
}

bool cs_jbuf_reserve_slow(cs_jbuf *b, size_t extra) {
  if (b->failed)
    return false;
  size_t cap = b->cap ? b->cap : 4096;
  while (cap < b->len + extra)
    cap *= 2;
  char *p = realloc(b->data, cap);
  if (!p) {
    b->failed = true;
    return false;
  }
  b->data = p;
  b->cap = cap;
  return true;
}

/* Writes the decimal digits of v ending at `end`; returns the start. */
static char *digits_u64(char *end, uint64_t v) {
  static const char pairs[] =
      "00010203040506070809101112131415161718192021222324"
      "25262728293031323334353637383940414243444546474849"
      "50515253545556575859606162636465666768697071727374"
      "75767778798081828384858687888990919293949596979899";
  char *p = end;
  while (v >= 100) {
    unsigned r = (unsigned)(v % 100);
    v /= 100;
    p -= 2;
    p[0] = pairs[2 * r];
    p[1] = pairs[2 * r + 1];
  }
  if (v >= 10) {
    p -= 2;
    p[0] = pairs[2 * v];
    p[1] = pairs[2 * v + 1];
  } else {
    *--p = (char)('0' + v);
  }
  return p;
}

void cs_jbuf_u64(cs_jbuf *b, uint64_t v) {
  char tmp[24];
  char *end = tmp + sizeof tmp;
  char *p = digits_u64(end, v);
  cs_jbuf_put(b, p, (size_t)(end - p));
}

void cs_jbuf_i64(cs_jbuf *b, int64_t v) {
  if (v < 0) {
    cs_jbuf_putc(b, '-');
    cs_jbuf_u64(b, (uint64_t)0 - (uint64_t)v);
  } else {
    cs_jbuf_u64(b, (uint64_t)v);
  }
}

void cs_jbuf_hex_str(cs_jbuf *b, uint64_t v) {
  static const char hex[] = "0123456789abcdef";
  char tmp[20];
  char *end = tmp + sizeof tmp;
  char *p = end;
  *--p = '"';
  do {
    *--p = hex[v & 15];
    v >>= 4;
  } while (v);
  *--p = 'x';
  *--p = '0';
  *--p = '"';
  cs_jbuf_put(b, p, (size_t)(end - p));
}

void cs_jbuf_ns_as_us(cs_jbuf *b, int64_t ns) {
  char tmp[32];
  char *end = tmp + sizeof tmp;
  uint64_t mag = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
  unsigned frac = (unsigned)(mag % 1000);
  char *p = end;
  *--p = (char)('0' + frac % 10);
  *--p = (char)('0' + (frac / 10) % 10);
  *--p = (char)('0' + frac / 100);
  *--p = '.';
  p = digits_u64(p, mag / 1000);
  if (ns < 0)
    *--p = '-';
  cs_jbuf_put(b, p, (size_t)(end - p));
}

void cs_jbuf_str(cs_jbuf *b, const char *s) {
  static const char hex[] = "0123456789abcdef";
  if (!s) {
    CS_JLIT(b, "null");
    return;
  }
  cs_jbuf_putc(b, '"');
  const char *run = s;
  for (;; s++) {
    unsigned char c = (unsigned char)*s;
    if (c >= 0x20 && c != '"' && c != '\\')
      continue;
    cs_jbuf_put(b, run, (size_t)(s - run));
    if (c == 0)
      break;
    char esc[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
    if (c == '"' || c == '\\') {
      esc[1] = (char)c;
      cs_jbuf_put(b, esc, 2);
    } else if (c == '\n') {
      CS_JLIT(b, "\\n");
    } else if (c == '\t') {
      CS_JLIT(b, "\\t");
    } else {
      cs_jbuf_put(b, esc, 6);
    }
    run = s + 1;
  }
  cs_jbuf_putc(b, '"');
}

void cs_jbuf_double(cs_jbuf *b, double v) {
  if (!isfinite(v)) {
    CS_JLIT(b, "null");
    return;
  }
  char tmp[40];
  int n = snprintf(tmp, sizeof tmp, "%.6g", v);
  if (n > 0)
    cs_jbuf_put(b, tmp, (size_t)n);
}
