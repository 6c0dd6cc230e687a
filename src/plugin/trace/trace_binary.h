/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/trace/trace_binary.h — the trace written in the binary
 * container (CCLSCOPE_FORMAT=binary, `.cst`; layout: src/common/
 * cst_format.h and docs/trace-format.md "Binary traces").
 *
 * Owns: turning a chunk of whole lines into one frame (its records, stored
 * or as one zstd frame made by trace_zstd.h), and the file's head (the
 * file header, then a stored frame of the first lines and one of the
 * accounting record alone, whose text thus sits at a known offset and is
 * rewritten in place as in the other formats). A frame is written with
 * one write, so a killed process leaves whole frames, as compressed JSONL
 * does.
 *
 * Used by the I/O thread (frames) and the writer (the head, before the
 * I/O thread has any job); one context per file.
 */
#ifndef CCLSCOPE_TRACE_BINARY_H
#define CCLSCOPE_TRACE_BINARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace_zstd.h"

typedef struct cs_trace_bin cs_trace_bin;

/* A context; frames compressed with `zstd` when not NULL (the caller's,
 * freed by it). NULL when out of memory. */
cs_trace_bin *cs_tb_new(cs_trace_zstd *zstd);
void cs_tb_free(cs_trace_bin *b);

/* The writer's buffer already holds records: cs_tf_line_begin leaves
 * CST_REC_HEAD_MAX bytes before each line, and cs_tf_line_end writes the
 * line record's head there (cst_rec_head_wide), so making a frame is one
 * copy (stored) or one compression, never a pass over the lines. */

/* data[0, len) (`records` whole records) as one frame: *frame (kept in b
 * until the next call), then *body: data itself for a stored frame (no
 * copy: the caller writes both with one pwritev), NULL (0 bytes) for a
 * compressed one. False (errno: ENOMEM, or EIO when the compressor
 * failed; then *compress_failed) when it could not be made. */
bool cs_tb_frame(cs_trace_bin *b, const char *data, size_t len,
                 uint32_t records, const char **frame, size_t *frame_len,
                 const char **body, size_t *body_len, bool *compress_failed);

/* The head's size for `before_len` bytes of records before the
 * accounting record's `acct_len` bytes (its record). */
size_t cs_tb_head_size(size_t before_len, size_t acct_len);

/* The head into out (cs_tb_head_size bytes); its size. The accounting
 * record's text is the head's last bytes. */
size_t cs_tb_head(const char *before, size_t before_len,
                  uint32_t before_records, const char *acct, size_t acct_len,
                  bool compressed, char *out);

#endif
