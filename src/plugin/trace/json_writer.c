/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/trace/json_writer.c — see json_writer.h.
 */
#include "json_writer.h"

#include "cursor.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

void cs_jbuf_init(cs_jbuf *b) {
  cs_jbuf_init_aligned(b, 0);
}

void cs_jbuf_init_aligned(cs_jbuf *b, size_t align) {
  b->data = NULL;
  b->len = 0;
  b->cap = 0;
  b->align = align;
  b->failed = false;
}

void cs_jbuf_free(cs_jbuf *b) {
  free(b->data);
  cs_jbuf_init_aligned(b, b->align);
}

/* realloc() for an aligned buffer: new memory, the contents copied. */
static char *realloc_aligned(cs_jbuf *b, size_t cap) {
  char *p = aligned_alloc(b->align, cap);
  if (!p)
    return NULL;
  if (b->len)
    memcpy(p, b->data, b->len);
  free(b->data);
  return p;
}

bool cs_jbuf_reserve_slow(cs_jbuf *b, size_t extra) {
  if (b->failed)
    return false;
  size_t cap = b->cap ? b->cap : 4096;
  while (cap < b->len + extra)
    cap *= 2;
  if (b->align > cap)
    cap = b->align;
  char *p = b->align ? realloc_aligned(b, cap) : realloc(b->data, cap);
  if (!p) {
    b->failed = true;
    return false;
  }
  b->data = p;
  b->cap = cap;
  return true;
}

void cs_jbuf_u64(cs_jbuf *b, uint64_t v) {
  if (cs_jbuf_reserve(b, CS_CUR_U64_MAX))
    b->len = (size_t)(cs_cur_u64(b->data + b->len, v) - b->data);
}

void cs_jbuf_i64(cs_jbuf *b, int64_t v) {
  if (cs_jbuf_reserve(b, CS_CUR_U64_MAX + 1))
    b->len = (size_t)(cs_cur_i64(b->data + b->len, v) - b->data);
}

void cs_jbuf_hex_str(cs_jbuf *b, uint64_t v) {
  if (cs_jbuf_reserve(b, CS_CUR_HEX_MAX))
    b->len = (size_t)(cs_cur_hex(b->data + b->len, v) - b->data);
}

void cs_jbuf_ns_as_us(cs_jbuf *b, int64_t ns) {
  if (cs_jbuf_reserve(b, CS_CUR_TS_MAX))
    b->len = (size_t)(cs_cur_ns_as_us(b->data + b->len, ns) - b->data);
}

void cs_jbuf_str(cs_jbuf *b, const char *s) {
  size_t n = s ? strlen(s) : 4;
  if (cs_jbuf_reserve(b, CS_CUR_STR_MAX(n)))
    b->len = (size_t)(cs_cur_str(b->data + b->len, s) - b->data);
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
