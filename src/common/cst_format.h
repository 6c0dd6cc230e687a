/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/common/cst_format.h — the binary trace container (`.cst`,
 * CCLSCOPE_FORMAT=binary; layout: docs/trace-format.md "Binary traces"),
 * spelled once for the plugin, which writes it, and the CLI, which reads
 * and writes it.
 *
 * A file is a 16-byte file header, then frames. A frame is a 16-byte frame
 * header and its payload, stored or one zstd frame; the payload, decoded,
 * is a sequence of records: a kind byte, the body's length as a LEB128
 * varint, the body. A line record holds a trace line (its JSON text and
 * newline, exactly as the JSONL format writes it); version 2 adds the
 * compact records of events, timing records and the contexts and writer
 * they name (their bodies: trace_compact_codec.h); version 3 the compact
 * accounting record and zstd frames made against a prefix text
 * (cst_prefix.h). All integers are
 * little-endian. Pure functions: no allocation, no system call.
 */
#ifndef CCLSCOPE_CST_FORMAT_H
#define CCLSCOPE_CST_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The file header: magic, version (u16), flags (u16), 4 reserved zeros. */
#define CST_FILE_HEADER 16
#define CST_MAGIC_LEN 8
extern const unsigned char cst_magic[CST_MAGIC_LEN];
#define CST_VERSION 3
#define CST_VERSION_MIN 1 /* the oldest a reader still reads (lines only) */
#define CST_FLAG_ZSTD 1u  /* the writer compressed its frames (informative) */

/* The frame header: magic "CSTF" (u32), codec (u8), 3 zero bytes, payload
 * bytes in the file (u32), records in the payload (u32). */
#define CST_FRAME_HEADER 16
#define CST_FRAME_MAGIC 0x46545343u /* "CSTF" read as a little-endian u32 */
#define CST_CODEC_STORED 0
#define CST_CODEC_ZSTD 1
/* Version 3: one zstd frame compressed against the container's prefix
 * text (cst_prefix.h), which its reader hands libzstd too. */
#define CST_CODEC_ZSTD_PREFIX 2
/* Larger is refused as corrupt by readers (the plugin's are ~1 MiB). */
#define CST_FRAME_MAX (256u << 20)

/* Record kinds. */
#define CST_REC_LINE 1 /* body: one trace line, JSON text and '\n' */
/* Version 2: compact records (bodies: src/plugin/trace/
 * trace_compact_codec.h). A writer record starts the state a reader keeps
 * (string table, previous values, contexts) afresh: every frame that has
 * compact records begins with one, so a frame decodes on its own. */
#define CST_REC_WRITER 2  /* who writes: pid, host kind, identity */
#define CST_REC_CONTEXT 3 /* a context as the formatter sees it */
#define CST_REC_EVENT 4   /* an assembled event (an event line) */
#define CST_REC_TIMING 5  /* a timing record (a timing line) */
/* Version 3: the accounting record as its numbers, a body of fixed size
 * (CS_ACCT_BODY, src/plugin/trace/trace_accounting.h) rewritten in place;
 * read back as the 512-byte accounting line. Needs no writer record. */
#define CST_REC_ACCOUNTING 6
/* The most a record's head (kind + varint of a length < 2^32) takes. */
#define CST_REC_HEAD_MAX 6

/* The file header into out[0, CST_FILE_HEADER). */
void cst_file_header(unsigned char *out, uint16_t flags);

/* Is head[0, n) (n >= CST_MAGIC_LEN) a binary trace's start? */
bool cst_is_binary(const unsigned char *head, size_t n);

/* The version in a file header, 0 when not one. */
unsigned cst_file_version(const unsigned char *head, size_t n);

typedef struct {
  unsigned codec;   /* CST_CODEC_* */
  uint32_t bytes;   /* payload bytes in the file after the header */
  uint32_t records; /* records in the payload */
} cst_frame_info;

void cst_frame_header(unsigned char *out, const cst_frame_info *f);
/* False when in[0, CST_FRAME_HEADER) is no frame header (magic, codec,
 * reserved bytes or a size over CST_FRAME_MAX). */
bool cst_frame_parse(const unsigned char *in, cst_frame_info *f);

/* A record's head (kind, varint length) into out; its size. */
size_t cst_rec_head(unsigned char *out, unsigned kind, uint32_t body_len);

/* The same at its widest, CST_REC_HEAD_MAX bytes (the varint in 5 bytes,
 * continuation bits set on the first four: valid LEB128, read like any
 * other), so that a writer can leave room for it before it knows the
 * body's length. */
void cst_rec_head_wide(unsigned char *out, unsigned kind, uint32_t body_len);

/* One record of in[0, n): 1 = *kind, the body at in[*body, *body + *len)
 * and *next after it; 0 = n is too short for it (a cut record); -1 = not
 * a record (a varint over 32 bits). */
int cst_rec_parse(const unsigned char *in, size_t n, unsigned *kind,
                  size_t *body, uint32_t *len, size_t *next);

/* ---- varints (LEB128) and zigzag, for compact record bodies ---- */

#define CST_VARINT_MAX 10
static inline unsigned char *cst_put_varint(unsigned char *p, uint64_t v) {
  while (v >= 0x80) {
    *p++ = (unsigned char)(v | 0x80);
    v >>= 7;
  }
  *p++ = (unsigned char)v;
  return p;
}

/* The varint at *p (before end) into *v, *p after it; false when it is
 * cut or longer than 64 bits. */
static inline bool cst_get_varint(const unsigned char **p,
                                  const unsigned char *end, uint64_t *v) {
  uint64_t r = 0;
  for (unsigned shift = 0; shift < 64; shift += 7) {
    if (*p >= end)
      return false;
    unsigned char b = *(*p)++;
    r |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) {
      *v = r;
      return true;
    }
  }
  return false;
}

static inline uint64_t cst_zigzag(int64_t v) {
  return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}
static inline int64_t cst_unzigzag(uint64_t v) {
  return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/* Payload bytes for text[0, len) of whole lines as line records; and the
 * number of lines (newlines; text must end with one). */
size_t cst_lines_payload_size(const char *text, size_t len, uint32_t *lines);

/* text[0, len) as line records into out (cst_lines_payload_size bytes). */
size_t cst_lines_payload(const char *text, size_t len, unsigned char *out);

#endif
