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

#include "read/line_members.h"
#include "read/trace_record.h"

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

/* A binary file's (TC_CST) text without a copy: the rest of the piece
 * its records were last made into (whole lines), or the next piece; *text
 * is valid until the next call. Bytes > 0, 0 at the end, -1 on an error
 * (*err), as tc_read. Not for the other kinds. */
ssize_t tc_read_piece(tc_stream *s, const char **text, int *err);

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

/* A binary file's event lines come decoded (cst_records.h): the record
 * rec_decode makes of `line`, a line of the piece tc_read_piece gave last,
 * where it starts in place (its line, len and f left unset), where its
 * members begin (line_members.h) and its length without the newline;
 * valid until the next piece. Asked in the order of the piece's lines;
 * false for any other line and any other kind of file. */
bool tc_line_decoded(tc_stream *s, const char *line, const rec **r,
                     const line_marks **marks, size_t *len);

/* Back to the start of the file (0 or an errno value). */
int tc_rewind(tc_stream *s);

void tc_close(tc_stream *s);

#endif
