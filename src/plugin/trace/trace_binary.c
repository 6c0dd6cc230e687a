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
#include "cst_prefix.h"

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
  /* Small frames only: see CS_TB_PREFIX_MAX. */
  bool against_prefix = len <= CS_TB_PREFIX_MAX && cs_tz_has_prefix();
  if (!cs_tz_frame_whole(b->zstd, against_prefix ? cst_prefix : NULL,
                         cst_prefix_len, data, len, &z, &z_len)) {
    *compress_failed = errno != ENOMEM;
    return false;
  }
  if (!grow(b, CST_FRAME_HEADER + z_len)) {
    errno = ENOMEM;
    return false;
  }
  memcpy(b->frame + CST_FRAME_HEADER, z, z_len);
  info.codec = against_prefix ? CST_CODEC_ZSTD_PREFIX : CST_CODEC_ZSTD;
  info.bytes = (uint32_t)z_len;
  cst_frame_header(b->frame, &info);
  *frame = (const char *)b->frame;
  *frame_len = CST_FRAME_HEADER + z_len;
  return true;
}

char *cs_tb_head(cs_trace_bin *b, const char *before, size_t before_len,
                 uint32_t before_records, const cs_acct *acct, bool compressed,
                 size_t *head_len, size_t *acct_at) {
  const char *frame = NULL, *body = NULL;
  size_t frame_len = 0, body_len = 0;
  bool compress_failed;
  if (before_len > 0 &&
      !cs_tb_frame(b, before, before_len, before_records, &frame, &frame_len,
                   &body, &body_len, &compress_failed)) {
    if (errno == ENOMEM || !b->zstd)
      return NULL;
    /* The compressor failed: the same records stored. */
    cs_trace_zstd *zstd = b->zstd;
    b->zstd = NULL;
    bool made = cs_tb_frame(b, before, before_len, before_records, &frame,
                            &frame_len, &body, &body_len, &compress_failed);
    b->zstd = zstd;
    if (!made)
      return NULL;
  }
  unsigned char acct_head[CST_REC_HEAD_MAX];
  size_t acct_head_len =
      cst_rec_head(acct_head, CST_REC_ACCOUNTING, CS_ACCT_BODY);
  size_t acct_record = acct_head_len + CS_ACCT_BODY;
  size_t len =
      CST_FILE_HEADER + frame_len + body_len + CST_FRAME_HEADER + acct_record;
  unsigned char *out = malloc(len);
  if (!out) {
    errno = ENOMEM;
    return NULL;
  }
  cst_file_header(out, compressed ? CST_FLAG_ZSTD : 0);
  size_t n = CST_FILE_HEADER;
  if (frame_len)
    memcpy(out + n, frame, frame_len);
  n += frame_len;
  if (body_len)
    memcpy(out + n, body, body_len);
  n += body_len;
  cst_frame_info info = {CST_CODEC_STORED, (uint32_t)acct_record, 1};
  cst_frame_header(out + n, &info);
  n += CST_FRAME_HEADER;
  memcpy(out + n, acct_head, acct_head_len);
  n += acct_head_len;
  *acct_at = n; /* the body is last */
  cs_acct_pack(acct, out + n);
  *head_len = n + CS_ACCT_BODY;
  return (char *)out;
}
