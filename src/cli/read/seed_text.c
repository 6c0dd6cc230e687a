/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/read/seed_text.c — see seed_text.h.
 */
#include "read/seed_text.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void seed_text_put(seed_text *t, const char *s, size_t n) {
  if (t->oom)
    return;
  if (t->len + n + 1 > t->cap) {
    size_t ncap = t->cap ? t->cap * 2 : 1024;
    while (ncap < t->len + n + 1)
      ncap *= 2;
    char *np = realloc(t->p, ncap);
    if (!np) {
      t->oom = true;
      return;
    }
    t->p = np;
    t->cap = ncap;
  }
  memcpy(t->p + t->len, s, n);
  t->len += n;
  t->p[t->len] = '\0';
}

void seed_text_str(seed_text *t, const char *s) {
  seed_text_put(t, s, strlen(s));
}

void seed_text_fmt(seed_text *t, const char *fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n < 0)
    return;
  if ((size_t)n < sizeof buf) {
    seed_text_put(t, buf, (size_t)n);
    return;
  }
  char *big = malloc((size_t)n + 1);
  if (!big) {
    t->oom = true;
    return;
  }
  va_start(ap, fmt);
  vsnprintf(big, (size_t)n + 1, fmt, ap);
  va_end(ap);
  seed_text_put(t, big, (size_t)n);
  free(big);
}

void seed_text_value(seed_text *t, const js_value *v) {
  if (v->type == JS_STRING) {
    seed_text_put(t, "\"", 1);
    seed_text_put(t, v->ptr, v->len);
    seed_text_put(t, "\"", 1);
  } else {
    seed_text_put(t, v->ptr, v->len);
  }
}

void seed_text_json_str(seed_text *t, const char *s) {
  seed_text_put(t, "\"", 1);
  for (; *s; s++) {
    unsigned char ch = (unsigned char)*s;
    if (ch == '"' || ch == '\\') {
      char esc[2] = {'\\', (char)ch};
      seed_text_put(t, esc, 2);
    } else if (ch < 0x20) {
      seed_text_fmt(t, "\\u%04x", ch);
    } else {
      seed_text_put(t, s, 1);
    }
  }
  seed_text_put(t, "\"", 1);
}

void seed_text_ts(seed_text *t, int64_t ns) {
  uint64_t mag = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
  char buf[32];
  size_t at = sizeof buf;
  for (int digit = 0; digit < 3 || mag > 0 || digit == 3; digit++) {
    if (digit == 3)
      buf[--at] = '.';
    buf[--at] = (char)('0' + mag % 10);
    mag /= 10;
  }
  if (ns < 0)
    buf[--at] = '-';
  seed_text_put(t, buf + at, sizeof buf - at);
}

void seed_text_point(seed_text *t, const rec_point *p) {
  seed_text_str(t, "{\"ts\":");
  seed_text_ts(t, p->ts);
  seed_text_fmt(t, ",\"pid\":%" PRId64 ",\"tid\":%" PRId64 "}", p->pid, p->tid);
}

void seed_text_span(seed_text *t, const rec_point *start,
                    const rec_point *stop) {
  seed_text_str(t, ",\"start\":");
  seed_text_point(t, start);
  seed_text_str(t, ",\"stop\":");
  seed_text_point(t, stop);
  seed_text_str(t, ",\"duration\":");
  seed_text_ts(t, stop->ts - start->ts);
}
