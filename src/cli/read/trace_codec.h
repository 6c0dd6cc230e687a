/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/read/trace_codec.h — compressed trace files, read as plain text.
 *
 * Owns: telling a file's compression from its first bytes (zstd, gzip, or
 * none) and a decompressing reader underneath trace_reader.c's buffer:
 * tc_read gives the file's text in pieces, as read(2) would for a plain
 * file, so every reader above (chunks, read-ahead threads, converters)
 * works unchanged. libzstd.so.1 and libz.so.1 are dlopen()ed the first
 * time a file needs them (declarations: src/common/zstd_abi.h and below),
 * so the CLI builds and reads plain traces without either.
 *
 * A file that ends inside a frame (zstd) or member (gzip) — a writer
 * killed in the middle of a write — is not an error: the text the library
 * could decode from that last, incomplete frame (its complete blocks) is
 * given out like the rest, and tc_torn says where that frame began, how
 * many bytes of the file it has and how much text came out of it.
 * Anything the library rejects is (TC_ERR_CORRUPT).
 */
#ifndef CCLSCOPE_CLI_TRACE_CODEC_H
#define CCLSCOPE_CLI_TRACE_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* TC_CST: the binary container (src/common/cst_format.h), whose frames
 * are stored or zstd; its text is the JSONL lines its records hold. */
typedef enum { TC_PLAIN = 0, TC_ZSTD, TC_GZIP, TC_CST } tc_kind;

/* Error codes beyond errno's (tr_strerror in trace_reader.h says them). */
enum {
  TC_ERR_NO_LIBRARY = 0x10001, /* libzstd / libz could not be loaded */
  TC_ERR_CORRUPT = 0x10002,    /* the library rejected the data */
};

/* The compression of a file that starts with head[0, n). */
tc_kind tc_sniff(const unsigned char *head, size_t n);

/* "zstd", "gzip", "binary", "plain". */
const char *tc_name(tc_kind kind);

typedef struct tc_stream tc_stream;

/* A reader of `fd` (positioned at its start; not closed by tc_close) for
 * `kind` (not TC_PLAIN). 0, or ENOMEM / TC_ERR_NO_LIBRARY. */
int tc_open(tc_stream **out, tc_kind kind, int fd);

/* Up to `len` bytes of text: > 0 bytes, 0 at the end, -1 on an error
 * (*err: an errno value or TC_ERR_CORRUPT). */
ssize_t tc_read(tc_stream *s, char *buf, size_t len, int *err);

/* Bytes read from the file so far (progress). */
uint64_t tc_file_bytes(const tc_stream *s);

/* A file's last frame / member when it has no end. */
typedef struct {
  tc_kind kind;        /* zstd: a frame; gzip: a member */
  uint64_t unit_start; /* its first byte: the end of the last complete one */
  uint64_t unit_bytes; /* its bytes in the file, from there to the end */
  uint64_t unit_text;  /* text decoded from it (its complete blocks) */
} tc_torn_info;

/* After the end: did the file end inside a frame/member (then *t says
 * what is known of it)? */
bool tc_torn(const tc_stream *s, tc_torn_info *t);

/* Back to the start of the file (0 or an errno value). */
int tc_rewind(tc_stream *s);

void tc_close(tc_stream *s);

/* ---- a binary file's frames, read whole and decoded apart ----
 *
 * read_ahead.c reads a binary file's frames as they are (tc_frame_next:
 * a copy, on the one thread that reads the file) and decodes each on
 * whichever thread is free (tc_frame_lines): a frame decodes on its own
 * (its writer record starts a fresh string table, previous values and
 * contexts; docs/trace-format.md "Binary traces"), and its text is whole
 * lines, so lines, their numbers and the file's text are those tc_read
 * gives. What crosses frames stays with the reader: the container's
 * version (tc_frame_version), where a torn last frame starts (tc_torn),
 * and the count of lines and text. */

/* A frame as read from the file. */
typedef struct {
  unsigned codec;      /* CST_CODEC_* (src/common/cst_format.h) */
  uint32_t records;    /* in its payload, as its header says */
  size_t bytes;        /* of payload read: fewer than its header says when
                          the file ends inside it */
  bool whole;          /* all of its payload was read */
  uint64_t file_bytes; /* tc_file_bytes once it was read */
} tc_frame;

/* Is `s` a binary file (TC_CST), whose frames tc_frame_next reads? */
bool tc_reads_frames(const tc_stream *s);

/* The next frame of a binary file: its payload appended to *buf (*len
 * used of *cap bytes, grown with realloc). 1 with *fr (a frame cut by the
 * file's end is the last: !fr->whole), 0 when no frame follows (tc_torn
 * then says whether the file ended inside a frame's header), -1 on an
 * error (*err). Not mixed with tc_read on the same stream (but after
 * tc_rewind). */
int tc_frame_next(tc_stream *s, tc_frame *fr, unsigned char **buf, size_t *len,
                  size_t *cap, int *err);

/* The container version of the file tc_frame_next reads (once it has
 * read a frame). */
unsigned tc_frame_version(const tc_stream *s);

typedef struct tc_frame_decoder tc_frame_decoder;

/* NULL without memory. One per thread. */
tc_frame_decoder *tc_frame_decoder_new(void);
void tc_frame_decoder_free(tc_frame_decoder *d);

/* The lines of frame `fr` (its payload at `payload`, of a file of
 * container `version`) appended to *text (*len used of *cap bytes, grown
 * with realloc; *len unchanged on an error), exactly as tc_read gives
 * them: a torn frame's whole records. 0, ENOMEM, TC_ERR_NO_LIBRARY or
 * TC_ERR_CORRUPT. */
int tc_frame_lines(tc_frame_decoder *d, unsigned version, const tc_frame *fr,
                   const unsigned char *payload, char **text, size_t *len,
                   size_t *cap);

#endif
