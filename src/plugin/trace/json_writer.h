/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/trace/json_writer.h — appending JSON text to a byte buffer, fast:
 * integers, hex ids, Unix-epoch nanoseconds as microseconds with three
 * decimals, escaped strings. No locale, no printf on the common paths.
 * Used by the writer thread only.
 */
#ifndef CCLSCOPE_JSON_WRITER_H
#define CCLSCOPE_JSON_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct {
  char *data;
  size_t len;
  size_t cap;
  size_t align; /* 0, or the alignment of `data` (e.g. 4096 for O_DIRECT) */
  bool failed;  /* an allocation failed: contents are incomplete */
} cs_jbuf;

void cs_jbuf_init(cs_jbuf *b);
/* An empty buffer whose memory is always aligned to `align` (a power of
 * two, a multiple of sizeof(void *)); its capacity is a multiple of it. */
void cs_jbuf_init_aligned(cs_jbuf *b, size_t align);
void cs_jbuf_free(cs_jbuf *b);
/* Make room for `extra` more bytes; false (and b->failed) on failure. */
bool cs_jbuf_reserve_slow(cs_jbuf *b, size_t extra);
static inline bool cs_jbuf_reserve(cs_jbuf *b, size_t extra) {
  return b->len + extra <= b->cap || cs_jbuf_reserve_slow(b, extra);
}

static inline void cs_jbuf_put(cs_jbuf *b, const char *s, size_t n) {
  if (!cs_jbuf_reserve(b, n))
    return;
  memcpy(b->data + b->len, s, n);
  b->len += n;
}
#define CS_JLIT(b, lit) cs_jbuf_put((b), (lit), sizeof(lit) - 1)

static inline void cs_jbuf_putc(cs_jbuf *b, char c) {
  if (!cs_jbuf_reserve(b, 1))
    return;
  b->data[b->len++] = c;
}

void cs_jbuf_u64(cs_jbuf *b, uint64_t v);
void cs_jbuf_i64(cs_jbuf *b, int64_t v);
/* "0x1f" (quoted), the id/hash format of the trace. */
void cs_jbuf_hex_str(cs_jbuf *b, uint64_t v);
/* Nanoseconds as microseconds with three decimals: 1234.567 */
void cs_jbuf_ns_as_us(cs_jbuf *b, int64_t ns);
/* A JSON string with escaping; NULL becomes null. */
void cs_jbuf_str(cs_jbuf *b, const char *s);
/* A double with up to 6 significant decimals (for derived metrics). */
void cs_jbuf_double(cs_jbuf *b, double v);

#endif
