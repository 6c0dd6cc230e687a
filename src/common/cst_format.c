/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/common/cst_format.c — the binary trace container's headers and
 * records (see cst_format.h; docs/trace-format.md "Binary traces").
 */
#include "cst_format.h"

#include <string.h>

/* PNG's trick: a high byte, a name, CR LF, ^Z, LF, so that a file mangled
 * as text (newline conversion, 7-bit transfer) is told at once. */
const unsigned char cst_magic[CST_MAGIC_LEN] = {0x89, 'C',  'S',  'T',
                                                '\r', '\n', 0x1a, '\n'};

static void put_u16(unsigned char *p, uint16_t v) {
  p[0] = (unsigned char)v;
  p[1] = (unsigned char)(v >> 8);
}

static void put_u32(unsigned char *p, uint32_t v) {
  for (int i = 0; i < 4; i++)
    p[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t get_u32(const unsigned char *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
         (uint32_t)p[3] << 24;
}

void cst_file_header(unsigned char *out, uint16_t flags) {
  memset(out, 0, CST_FILE_HEADER);
  memcpy(out, cst_magic, CST_MAGIC_LEN);
  put_u16(out + 8, CST_VERSION);
  put_u16(out + 10, flags);
}

bool cst_is_binary(const unsigned char *head, size_t n) {
  return n >= CST_MAGIC_LEN && memcmp(head, cst_magic, CST_MAGIC_LEN) == 0;
}

unsigned cst_file_version(const unsigned char *head, size_t n) {
  if (n < CST_FILE_HEADER || !cst_is_binary(head, n))
    return 0;
  return (unsigned)head[8] | (unsigned)head[9] << 8;
}

void cst_frame_header(unsigned char *out, const cst_frame_info *f) {
  memset(out, 0, CST_FRAME_HEADER);
  put_u32(out, CST_FRAME_MAGIC);
  out[4] = (unsigned char)f->codec;
  put_u32(out + 8, f->bytes);
  put_u32(out + 12, f->records);
}

bool cst_frame_parse(const unsigned char *in, cst_frame_info *f) {
  if (get_u32(in) != CST_FRAME_MAGIC || in[5] || in[6] || in[7])
    return false;
  f->codec = in[4];
  f->bytes = get_u32(in + 8);
  f->records = get_u32(in + 12);
  return (f->codec == CST_CODEC_STORED || f->codec == CST_CODEC_ZSTD ||
          f->codec == CST_CODEC_ZSTD_PREFIX) &&
         f->bytes <= CST_FRAME_MAX;
}

size_t cst_rec_head(unsigned char *out, unsigned kind, uint32_t body_len) {
  size_t n = 0;
  out[n++] = (unsigned char)kind;
  do {
    unsigned char b = body_len & 0x7f;
    body_len >>= 7;
    out[n++] = body_len ? (unsigned char)(b | 0x80) : b;
  } while (body_len);
  return n;
}

void cst_rec_head_wide(unsigned char *out, unsigned kind, uint32_t body_len) {
  out[0] = (unsigned char)kind;
  for (int i = 0; i < 4; i++)
    out[1 + i] = (unsigned char)(((body_len >> (7 * i)) & 0x7f) | 0x80);
  out[5] = (unsigned char)(body_len >> 28);
}

int cst_rec_parse(const unsigned char *in, size_t n, unsigned *kind,
                  size_t *body, uint32_t *len, size_t *next) {
  if (n < 2)
    return 0;
  *kind = in[0];
  uint64_t v = 0;
  size_t i = 1;
  for (int shift = 0;; shift += 7) {
    if (i >= n)
      return 0;
    if (shift > 28)
      return -1;
    unsigned char b = in[i++];
    v |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80))
      break;
  }
  if (v > UINT32_MAX)
    return -1;
  if (n - i < v)
    return 0;
  *body = i;
  *len = (uint32_t)v;
  *next = i + (size_t)v;
  return 1;
}

size_t cst_lines_payload_size(const char *text, size_t len, uint32_t *lines) {
  size_t size = 0;
  uint32_t count = 0;
  unsigned char head[CST_REC_HEAD_MAX];
  for (size_t at = 0; at < len;) {
    const char *nl = memchr(text + at, '\n', len - at);
    size_t end = nl ? (size_t)(nl - text) + 1 : len;
    size += cst_rec_head(head, CST_REC_LINE, (uint32_t)(end - at)) + end - at;
    count++;
    at = end;
  }
  *lines = count;
  return size;
}

size_t cst_lines_payload(const char *text, size_t len, unsigned char *out) {
  size_t n = 0;
  for (size_t at = 0; at < len;) {
    const char *nl = memchr(text + at, '\n', len - at);
    size_t end = nl ? (size_t)(nl - text) + 1 : len;
    n += cst_rec_head(out + n, CST_REC_LINE, (uint32_t)(end - at));
    memcpy(out + n, text + at, end - at);
    n += end - at;
    at = end;
  }
  return n;
}
