/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/trace/trace_compact.h — the writer's side of the compact
 * records of a binary trace (CCLSCOPE_FORMAT=binary; bodies:
 * trace_compact_codec.h, layout: docs/trace-format.md "Compact records").
 *
 * Owns: what a frame has told its reader so far — the writer record that
 * starts it, the contexts it described, its string table and the previous
 * values deltas are taken against — and putting an event or a timing
 * record into the file's buffer as one record instead of a line. When the
 * buffer's records start a new frame (cs_trace_file.frames moved) or a
 * record was dropped, everything is told again, so that every frame
 * decodes on its own. Writer thread only; no allocation.
 */
#ifndef CCLSCOPE_TRACE_COMPACT_H
#define CCLSCOPE_TRACE_COMPACT_H

#include <stdbool.h>
#include <stdint.h>

#include "trace_compact_codec.h"
#include "trace_file.h"
#include "trace_fmt.h"

/* Strings the writer remembers per frame (more are written out again). */
#define CS_TC_STRINGS 64
#define CS_TC_STRING_MAX 48 /* the longest one remembered, NUL included */
#define CS_TC_CONTEXTS 64

typedef struct {
  const char *ptr; /* the string's address when defined, NULL = empty */
  uint32_t index;  /* its index in the frame's table */
  char text[CS_TC_STRING_MAX]; /* its text then (the address may be reused) */
} cs_tc_string;

typedef struct {
  uint64_t frame;   /* cs_trace_file.frames the state below belongs to */
  bool started;     /* a writer record began this frame's records */
  cs_cx_prev prev;  /* what deltas are taken against */
  uint32_t strings; /* entries in the frame's string table */
  cs_tc_string str[CS_TC_STRINGS];
  uint32_t ctx_told[CS_TC_CONTEXTS]; /* serials described (by serial % N) */
  cs_trace_file *file;               /* the file of the record being made */
  size_t tail; /* ... the room its fields other than strings need */
} cs_trace_compact;

/* An event (times converted, its context `comm` looked up by the caller,
 * NULL: none) as a record into f's buffer; the record is lost (and
 * counted) like a line when the file drops it. The times are read in
 * place (not copied) and left as they are. */
void cs_tc_event(cs_trace_compact *c, cs_trace_file *f, cs_fmt *fmt,
                 const cs_event *e, const cs_fmt_comm *comm, cs_fmt_times *t);
/* A timing record (its context `comm`) as a record into f's buffer. */
void cs_tc_timing(cs_trace_compact *c, cs_trace_file *f, cs_fmt *fmt,
                  const cs_timing *r, const cs_fmt_comm *comm);

#endif
