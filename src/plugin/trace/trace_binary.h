/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/trace/trace_binary.h — the trace written in the binary
 * container (CCLSCOPE_FORMAT=binary, `.cst`; layout: src/common/
 * cst_format.h and docs/trace-format.md "Binary traces").
 *
 * Owns: turning a chunk of whole lines into one frame (its records, stored
 * or as one zstd frame made by trace_zstd.h, against the container's
 * prefix text, cst_prefix.h, when it is small), and the file's head (the file
 * header, then a frame of the first lines and a stored one of the compact
 * accounting record alone, whose body thus sits at a known offset and is
 * rewritten in place as the other formats' line is). A frame is written with
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

#include "trace_accounting.h"
#include "trace_zstd.h"

typedef struct cs_trace_bin cs_trace_bin;

/* A context; frames compressed with `zstd` when not NULL (the caller's,
 * freed by it). NULL when out of memory. */
cs_trace_bin *cs_tb_new(cs_trace_zstd *zstd);
void cs_tb_free(cs_trace_bin *b);

/* Frames of at most this many bytes of records are compressed against
 * the container's prefix text (codec 2); larger ones alone (codec 1).
 * The prefix saves a few hundred bytes per frame (the rare lines' keys):
 * much for the small frames of a short run or a periodic flush, nothing
 * worth having in a 1 MiB frame, where libzstd, working across two
 * segments (the prefix and the records), spends ~16 % more instructions
 * (docs/benchmarks.md "Binary traces, version 3"). */
#define CS_TB_PREFIX_MAX ((size_t)64 << 10)

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

/* The file's head, malloc'd (*head_len bytes; the caller frees it): the
 * file header; a frame of the `before_records` records before[0,
 * before_len) (the process record), compressed against the container's
 * prefix when b has a compressor (stored if the compressor fails), so the
 * file is readable however soon the process dies; then a stored frame of
 * the compact accounting record `acct` alone, whose body is the head's
 * last CS_ACCT_BODY bytes, at *acct_at, rewritten in place there. NULL
 * (errno ENOMEM) without memory. */
char *cs_tb_head(cs_trace_bin *b, const char *before, size_t before_len,
                 uint32_t before_records, const cs_acct *acct, bool compressed,
                 size_t *head_len, size_t *acct_at);

#endif
