/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/trace/trace_binary.c — frames of the binary trace container
 * (see trace_binary.h).
 */
#include "trace_binary.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cst_format.h"

struct cs_trace_bin {
  cs_trace_zstd *zstd;  /* compress payloads, or NULL */
  unsigned char *frame; /* the frame being made (header + payload) */
  size_t frame_cap;
};

cs_trace_bin *cs_tb_new(cs_trace_zstd *zstd) {
  cs_trace_bin *b = calloc(1, sizeof *b);
  if (b)
    b->zstd = zstd;
  return b;
}

void cs_tb_free(cs_trace_bin *b) {
  if (!b)
    return;
  free(b->frame);
  free(b);
}

/* Room for `need` bytes in the frame buffer. */
static bool grow(cs_trace_bin *b, size_t need) {
  if (need <= b->frame_cap)
    return true;
  size_t cap = b->frame_cap ? b->frame_cap : 64u << 10;
  while (cap < need)
    cap *= 2;
  unsigned char *p = realloc(b->frame, cap);
  if (!p)
    return false;
  b->frame = p;
  b->frame_cap = cap;
  return true;
}

bool cs_tb_frame(cs_trace_bin *b, const char *data, size_t len,
                 uint32_t records, const char **frame, size_t *frame_len,
                 const char **body, size_t *body_len, bool *compress_failed) {
  *compress_failed = false;
  *body = NULL;
  *body_len = 0;
  cst_frame_info info = {CST_CODEC_STORED, (uint32_t)len, records};
  if (!b->zstd) { /* stored: the header here, the records where they are */
    if (!grow(b, CST_FRAME_HEADER)) {
      errno = ENOMEM;
      return false;
    }
    cst_frame_header(b->frame, &info);
    *frame = (const char *)b->frame;
    *frame_len = CST_FRAME_HEADER;
    *body = data;
    *body_len = len;
    return true;
  }
  const char *z;
  size_t z_len;
  if (!cs_tz_frame_whole(b->zstd, data, len, &z, &z_len)) {
    *compress_failed = errno != ENOMEM;
    return false;
  }
  if (!grow(b, CST_FRAME_HEADER + z_len)) {
    errno = ENOMEM;
    return false;
  }
  memcpy(b->frame + CST_FRAME_HEADER, z, z_len);
  info.codec = CST_CODEC_ZSTD;
  info.bytes = (uint32_t)z_len;
  cst_frame_header(b->frame, &info);
  *frame = (const char *)b->frame;
  *frame_len = CST_FRAME_HEADER + z_len;
  return true;
}

/* records[0, len) as a stored frame into out; its size (0 for none). */
static size_t stored_frame(const char *records, size_t len, uint32_t count,
                           char *out) {
  if (!len)
    return 0;
  cst_frame_info info = {CST_CODEC_STORED, (uint32_t)len, count};
  cst_frame_header((unsigned char *)out, &info);
  memcpy(out + CST_FRAME_HEADER, records, len);
  return CST_FRAME_HEADER + len;
}

size_t cs_tb_head_size(size_t before_len, size_t acct_len) {
  return CST_FILE_HEADER + (before_len ? CST_FRAME_HEADER + before_len : 0) +
         CST_FRAME_HEADER + acct_len;
}

size_t cs_tb_head(const char *before, size_t before_len,
                  uint32_t before_records, const char *acct, size_t acct_len,
                  bool compressed, char *out) {
  cst_file_header((unsigned char *)out, compressed ? CST_FLAG_ZSTD : 0);
  size_t n = CST_FILE_HEADER;
  n += stored_frame(before, before_len, before_records, out + n);
  n += stored_frame(acct, acct_len, 1, out + n); /* its text is last */
  return n;
}
