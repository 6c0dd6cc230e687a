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
 * frame's text is whole lines, made and given out a piece at a time. The
 * event lines come decoded (their record, and where each of their
 * top-level members begins), so that readers need not parse them. One per
 * stream; not thread-safe.
 */
#ifndef CCLSCOPE_CLI_CST_RECORDS_H
#define CCLSCOPE_CLI_CST_RECORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "read/line_members.h"
#include "read/trace_record.h"

typedef struct cst_records cst_records;

/* NULL without memory. `version`: the container's (cst_format.h), which
 * says how compact records are laid out. */
cst_records *cst_records_new(unsigned version);
void cst_records_free(cst_records *r);

/* Read the frame whose payload is p[0, n) next (the caller keeps it until
 * cst_records_more has given all of it). `whole`: the frame is complete
 * and holds `records` records; otherwise (torn) its whole records are
 * read and a cut one ends it. */
void cst_records_begin(cst_records *r, const unsigned char *p, size_t n,
                       bool whole, uint32_t records);

/* The lines of the frame's next records: *text, *text_len (valid until
 * the next call), at least `want` bytes of them while the frame has more
 * (one record's text past it at most), so that a frame is never held as
 * text whole (its records are ~17 times smaller than their lines).
 * *text_len == 0: the frame is done. 0, or TC_ERR_CORRUPT, or ENOMEM: the
 * lines given before an error stay given (as a compressed JSONL file's
 * lines before a bad block), and a record count that does not match the
 * frame's header is found at its end. */
int cst_records_more(cst_records *r, size_t want, const char **text,
                     size_t *text_len);

/* An event line of the last piece that comes decoded: it starts `off`
 * bytes into the piece's text, `r` is the record rec_decode makes of it
 * (made from the compact record, not from the text; r.line, r.len and r.f
 * are left for the reader to set), and `marks` say where each of its
 * top-level members begins (line_members.h: its members are found from
 * them). */
typedef struct {
  size_t off;
  size_t len; /* without its newline */
  line_marks marks;
  rec r;
} cst_decoded_line;

/* The event lines of the text the last cst_records_more gave that come
 * decoded, in the order of the text (valid until the next call). The
 * other lines (timing, process, thread, accounting...) have to be
 * parsed. */
void cst_records_decoded(const cst_records *r, const cst_decoded_line **lines,
                         size_t *nlines);

#endif
