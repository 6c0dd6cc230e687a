/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/read/cst_records.h — the records of a binary trace's frame back
 * into trace lines (container: src/common/cst_format.h; layout:
 * docs/trace-format.md "Binary traces").
 *
 * Owns: the reader's side of the compact records: the writer, the contexts
 * and the string table a frame tells, and the event and timing records,
 * each turned into exactly the line the JSONL writer would have written by
 * the plugin's own formatters (src/plugin/trace/trace_fmt.c). Line records
 * are copied as they are. Every record's text ends with a newline, so a
 * frame's text is whole lines. One per stream or decoding thread; not
 * thread-safe.
 */
#ifndef CCLSCOPE_CLI_CST_RECORDS_H
#define CCLSCOPE_CLI_CST_RECORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct cst_records cst_records;

/* NULL without memory. `version`: the container's (cst_format.h), which
 * says how compact records are laid out. */
cst_records *cst_records_new(unsigned version);
void cst_records_free(cst_records *r);

/* The lines of a frame's payload p[0, n) into r's text buffer: *text and
 * *text_len (valid until the next call). `whole`: the frame is complete
 * and holds `records` records; otherwise (torn) its whole records are
 * read and a cut one ends it. 0, or TC_ERR_CORRUPT, or ENOMEM. */
int cst_records_text(cst_records *r, const unsigned char *p, size_t n,
                     bool whole, uint32_t records, const char **text,
                     size_t *text_len);

/* The same, the lines appended to the caller's buffer (*buf of *cap bytes,
 * *len used; grown with realloc, *len unchanged on an error): read_ahead.c
 * decodes a frame straight into a chunk. */
int cst_records_append(cst_records *r, const unsigned char *p, size_t n,
                       bool whole, uint32_t records, char **buf, size_t *len,
                       size_t *cap);

/* The layout of the frames read next: the container version's. */
void cst_records_set_version(cst_records *r, unsigned version);

#endif
