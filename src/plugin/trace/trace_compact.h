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

/* The writer's string function (cs_cx.str; its arg: the cs_trace_compact):
 * a reference to a string this frame has, else the string. */
void cs_tc_put_str(cs_cx *cx, const char **s);

/* ---- the pieces of every record, inline: the event's path is inlined
 * into its caller (trace_jsonl.c), one call less per event ---- */

/* The frame's state afresh and its writer record; false when dropped. */
bool cs_tc_start_frame_slow(cs_trace_compact *c, cs_trace_file *f, cs_fmt *fmt,
                            int64_t now_ns);

static inline bool cs_tc_start_frame(cs_trace_compact *c, cs_trace_file *f,
                                     cs_fmt *fmt, int64_t now_ns) {
  return (c->started && c->frame == f->frames) ||
         cs_tc_start_frame_slow(c, f, fmt, now_ns);
}

/* Describe context `ctx` (`m`) in this frame; false when the description
 * was dropped. */
bool cs_tc_tell_context_slow(cs_trace_compact *c, cs_trace_file *f,
                             uint32_t ctx, const cs_fmt_comm *m,
                             int64_t now_ns);

/* Describe context `ctx` (`m`, NULL when no context has the serial) in
 * this frame if it is not yet; *missing when there is none. False when the
 * description was dropped. Almost always told already. */
static inline bool cs_tc_tell_context(cs_trace_compact *c, cs_trace_file *f,
                                      uint32_t ctx, const cs_fmt_comm *m,
                                      bool *missing, int64_t now_ns) {
  *missing = m == NULL;
  if (!m || c->ctx_told[ctx % CS_TC_CONTEXTS] == ctx)
    return true;
  return cs_tc_tell_context_slow(c, f, ctx, m, now_ns);
}

/* Start a record in f's buffer with room for `max` body bytes, its body
 * to be written at f->buf.data + f->buf.len. False (the record already
 * counted as lost) without memory. */
static inline bool cs_tc_rec_begin(cs_trace_compact *c, cs_trace_file *f,
                                   size_t max, size_t *start, int64_t now_ns) {
  *start = cs_tf_rec_begin(f, max);
  if (f->buf.failed) {
    cs_tf_rec_end(f, *start, 0, now_ns); /* counted as lost */
    c->started = false;
    return false;
  }
  c->file = f;
  c->tail = max;
  return true;
}

/* End it, its body ending at `out` (`bad`: a string had no room); false
 * when the file dropped it (then the frame is told again from its start:
 * the reader never saw what the record defined). */
static inline bool cs_tc_rec_end(cs_trace_compact *c, cs_trace_file *f,
                                 size_t start, const unsigned char *out,
                                 bool bad, unsigned kind, int64_t now_ns) {
  f->buf.len = (size_t)((const char *)out - f->buf.data);
  if (bad)
    f->buf.failed = true; /* no memory for a string: dropped, counted */
  if (cs_tf_rec_end(f, start, kind, now_ns))
    return true;
  c->started = false;
  return false;
}

/* An event (times converted, its context `comm` looked up by the caller,
 * NULL: none) as a record into f's buffer; the record is lost (and
 * counted) like a line when the file drops it. The times are read in
 * place (not copied) and left as they are. */
static inline void cs_tc_event(cs_trace_compact *c, cs_trace_file *f,
                               cs_fmt *fmt, const cs_event *e,
                               const cs_fmt_comm *comm, cs_fmt_times *t) {
  int64_t now_ns = t->end_ns;
  cs_cx_event_extra x = {.times = t, .abi = fmt->default_abi};
  if (!cs_tc_start_frame(c, f, fmt, now_ns) ||
      !cs_tc_tell_context(c, f, e->ctx, comm, &x.ctx_missing, now_ns)) {
    cs_tf_count_lost(f, 1);
    return;
  }
  size_t start;
  if (!cs_tc_rec_begin(c, f, cs_cx_event_max(e), &start, now_ns))
    return;
  /* The writer's own entry: no cs_cx filled here to be copied there. */
  bool bad = false;
  unsigned char *out =
      cs_cx_event_put((unsigned char *)f->buf.data + f->buf.len, &c->prev,
                      cs_tc_put_str, c, e, &x, &bad);
  cs_tc_rec_end(c, f, start, out, bad, CST_REC_EVENT, now_ns);
}

/* A timing record (its context `comm`) as a record into f's buffer. */
void cs_tc_timing(cs_trace_compact *c, cs_trace_file *f, cs_fmt *fmt,
                  const cs_timing *r, const cs_fmt_comm *comm);

#endif
