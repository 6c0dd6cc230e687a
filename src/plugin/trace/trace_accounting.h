/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/trace/trace_accounting.h — the trace file's `accounting` record
 * (docs/trace-format.md): what the file lost, kept where a full disk cannot
 * take it away.
 *
 * The record is the file's second line, written with the process record
 * when the file is created, and always exactly CS_ACCT_LINE bytes long
 * (JSON, spaces before its final '}', a newline). Because its bytes are in
 * the file from the start, it can be rewritten in place, at the same
 * offset and length, whenever lines are lost and when the file is closed:
 * rewriting bytes a file already has needs no new space, so a disk that
 * refuses every new line still takes it (copy-on-write file systems
 * excepted). In a compressed file it is a zstd frame of its own that
 * stores the line uncompressed (trace_zstd.h), so its text is at a fixed
 * place in the file there too; in a binary trace (version 3) it is a
 * compact record of fixed size (CS_ACCT_BODY) in a stored frame, which
 * the reader turns back into the same line.
 *
 * This file owns the record's fields and text; trace_io.c writes it.
 */
#ifndef CCLSCOPE_TRACE_ACCOUNTING_H
#define CCLSCOPE_TRACE_ACCOUNTING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bytes of the record's line, newline included. */
#define CS_ACCT_LINE 512

/* The fields filled in when the file is closed (processEnd's, repeated
 * here so that they survive the loss of processEnd). */
typedef struct {
  char reason[16];         /* "finalize", "exit"; "" while the file is open */
  uint64_t events_written; /* processEnd's eventsWritten */
  uint64_t dropped_starts; /* processEnd's counters.droppedStarts ... */
  uint64_t dropped_states;
  uint64_t dropped_stops;
} cs_acct_closing;

/* What the record says. */
typedef struct {
  uint64_t lines_lost;      /* every line that did not reach the file */
  uint64_t bytes_lost;      /* their text (uncompressed), newlines included */
  uint64_t write_errors;    /* writes that failed */
  int write_errno;          /* errno of the last one, 0 = none */
  uint64_t compress_errors; /* chunks the compressor failed on */
  uint64_t lines_lost_compressing; /* of lines_lost: in those chunks */
  cs_acct_closing closing;
} cs_acct;

/* The record as exactly CS_ACCT_LINE bytes (not NUL-terminated). */
void cs_acct_format(const cs_acct *a, char out[CS_ACCT_LINE]);

/* The binary container's compact accounting record (CST_REC_ACCOUNTING,
 * docs/trace-format.md "Binary traces"): the same fields in a body of
 * fixed size, so that it too is rewritten in place, read back as the
 * line cs_acct_format makes. Little-endian: lines_lost, bytes_lost,
 * write_errors, compress_errors, lines_lost_compressing, events_written,
 * dropped_starts, dropped_states, dropped_stops (u64 each), write_errno
 * (i32), the closing reason (16 bytes, NUL-padded). */
#define CS_ACCT_BODY 92

void cs_acct_pack(const cs_acct *a, unsigned char out[CS_ACCT_BODY]);
/* False when body[0, len) is not one (its size, or a reason that is not
 * NUL-terminated printable text). */
bool cs_acct_unpack(const unsigned char *body, size_t len, cs_acct *a);

#endif
