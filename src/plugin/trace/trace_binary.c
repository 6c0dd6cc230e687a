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
  unsigned char *records; /* compressed: the payload before compression */
  size_t records_cap;
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
  free(b->records);
  free(b);
}

/* Room for `need` bytes in *buf (capacity *cap). */
static bool grow(unsigned char **buf, size_t *cap, size_t need) {
  if (need <= *cap)
    return true;
  size_t cap2 = *cap ? *cap : 64u << 10;
  while (cap2 < need)
    cap2 *= 2;
  unsigned char *p = realloc(*buf, cap2);
  if (!p)
    return false;
  *buf = p;
  *cap = cap2;
  return true;
}

bool cs_tb_frame(cs_trace_bin *b, const char *data, size_t len,
                 const char **frame, size_t *frame_len, bool *compress_failed) {
  *compress_failed = false;
  uint32_t lines = 0;
  size_t payload = cst_lines_payload_size(data, len, &lines);
  cst_frame_info info = {CST_CODEC_STORED, 0, lines};
  if (!b->zstd) {
    if (!grow(&b->frame, &b->frame_cap, CST_FRAME_HEADER + payload)) {
      errno = ENOMEM;
      return false;
    }
    info.bytes =
        (uint32_t)cst_lines_payload(data, len, b->frame + CST_FRAME_HEADER);
  } else {
    if (!grow(&b->records, &b->records_cap, payload)) {
      errno = ENOMEM;
      return false;
    }
    cst_lines_payload(data, len, b->records);
    const char *z;
    size_t z_len;
    if (!cs_tz_frame(b->zstd, (const char *)b->records, payload, &z, &z_len)) {
      *compress_failed = errno != ENOMEM;
      return false;
    }
    if (!grow(&b->frame, &b->frame_cap, CST_FRAME_HEADER + z_len)) {
      errno = ENOMEM;
      return false;
    }
    memcpy(b->frame + CST_FRAME_HEADER, z, z_len);
    info.codec = CST_CODEC_ZSTD;
    info.bytes = (uint32_t)z_len;
  }
  cst_frame_header(b->frame, &info);
  *frame = (const char *)b->frame;
  *frame_len = CST_FRAME_HEADER + info.bytes;
  return true;
}

static size_t stored_frame_size(const char *text, size_t len) {
  uint32_t lines;
  return len ? CST_FRAME_HEADER + cst_lines_payload_size(text, len, &lines) : 0;
}

static size_t stored_frame(const char *text, size_t len, char *out) {
  if (!len)
    return 0;
  cst_frame_info info = {CST_CODEC_STORED, 0, 0};
  cst_lines_payload_size(text, len, &info.records);
  info.bytes = (uint32_t)cst_lines_payload(
      text, len, (unsigned char *)out + CST_FRAME_HEADER);
  cst_frame_header((unsigned char *)out, &info);
  return CST_FRAME_HEADER + info.bytes;
}

size_t cs_tb_head_size(const char *before, size_t before_len, size_t acct_len) {
  unsigned char head[CST_REC_HEAD_MAX];
  return CST_FILE_HEADER + stored_frame_size(before, before_len) +
         CST_FRAME_HEADER +
         cst_rec_head(head, CST_REC_LINE, (uint32_t)acct_len) + acct_len;
}

size_t cs_tb_head(const char *before, size_t before_len, const char *acct,
                  size_t acct_len, bool compressed, char *out) {
  cst_file_header((unsigned char *)out, compressed ? CST_FLAG_ZSTD : 0);
  size_t n = CST_FILE_HEADER;
  n += stored_frame(before, before_len, out + n);
  n += stored_frame(acct, acct_len, out + n); /* its text is last */
  return n;
}
