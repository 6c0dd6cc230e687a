/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/trace/trace_compact.c — events and timing records as compact
 * records of a binary trace (see trace_compact.h, which holds the event's
 * path inline; its rare branches and the other records are here).
 */
#include "trace_compact.h"

#include <string.h>

/* ---- the frame's string table ---- */

/* A string: 0 for NULL, (index + 1) << 1 for one the frame has, else
 * its length << 1 | 1 and its bytes (which define the next index). */
void cs_tc_put_str(cs_cx *cx, const char **s) {
  cs_trace_compact *c = cx->arg;
  const char *v = *s;
  if (!v) {
    *cx->out++ = 0;
    return;
  }
  cs_tc_string *slot = &c->str[((uintptr_t)v >> 3) % CS_TC_STRINGS];
  if (slot->ptr == v && strcmp(v, slot->text) == 0) {
    cx->out = cst_put_varint(cx->out, (uint64_t)(slot->index + 1) << 1);
    return;
  }
  size_t len = strlen(v);
  /* Room for it and for what the record still needs besides. */
  cs_trace_file *f = c->file;
  /* The body so far counts as the buffer's (a buffer that grows keeps
   * only that); rec_close sets the length again at the record's end. */
  f->buf.len = (size_t)((char *)cx->out - f->buf.data);
  if (!cs_jbuf_reserve(&f->buf, CS_CX_STR_MAX(len) + c->tail)) {
    cx->bad = true; /* the record is dropped (rec_close) */
    *cx->out++ = 0;
    return;
  }
  cx->out = (unsigned char *)f->buf.data + f->buf.len;
  cx->out = cst_put_varint(cx->out, (uint64_t)len << 1 | 1);
  memcpy(cx->out, v, len);
  cx->out += len;
  uint32_t index = c->strings++;
  if (len < CS_TC_STRING_MAX) {
    slot->ptr = v;
    slot->index = index;
    memcpy(slot->text, v, len + 1);
  }
}

/* ---- records ---- */

/* cs_tc_rec_begin, and *cx to write the body with. */
static inline bool rec_open(cs_trace_compact *c, cs_trace_file *f, size_t max,
                            size_t *start, cs_cx *cx, int64_t now_ns) {
  if (!cs_tc_rec_begin(c, f, max, start, now_ns))
    return false;
  *cx = (cs_cx){.reading = false,
                .out = (unsigned char *)f->buf.data + f->buf.len,
                .prev = &c->prev,
                .gpu_deltas = true, /* container version 3 */
                .str = cs_tc_put_str,
                .arg = c};
  return true;
}

/* cs_tc_rec_end of the body *cx wrote. */
static inline bool rec_close(cs_trace_compact *c, cs_trace_file *f,
                             size_t start, const cs_cx *cx, unsigned kind,
                             int64_t now_ns) {
  return cs_tc_rec_end(c, f, start, cx->out, cx->bad, kind, now_ns);
}

/* The frame's state afresh and its writer record; false when dropped. */
bool cs_tc_start_frame_slow(cs_trace_compact *c, cs_trace_file *f, cs_fmt *fmt,
                            int64_t now_ns) {
  memset(&c->prev, 0, sizeof c->prev);
  memset(c->str, 0, sizeof c->str);
  memset(c->ctx_told, 0, sizeof c->ctx_told);
  c->strings = 0;
  c->frame = f->frames;
  c->started = true; /* rec_close says otherwise if it is dropped */
  size_t start;
  cs_cx cx;
  if (!rec_open(c, f, cs_cx_writer_max(), &start, &cx, now_ns))
    return false;
  cs_cx_writer(&cx, fmt);
  return rec_close(c, f, start, &cx, CST_REC_WRITER, now_ns);
}

/* Describe context `ctx` (`m`) in this frame; false when the description
 * was dropped. */
bool cs_tc_tell_context_slow(cs_trace_compact *c, cs_trace_file *f,
                             uint32_t ctx, const cs_fmt_comm *m,
                             int64_t now_ns) {
  cs_fmt_comm copy = *m;
  size_t start;
  cs_cx cx;
  if (!rec_open(c, f, cs_cx_context_max(), &start, &cx, now_ns))
    return false;
  cs_cx_context(&cx, &ctx, &copy);
  if (!rec_close(c, f, start, &cx, CST_REC_CONTEXT, now_ns))
    return false;
  c->ctx_told[ctx % CS_TC_CONTEXTS] = ctx;
  return true;
}

void cs_tc_timing(cs_trace_compact *c, cs_trace_file *f, cs_fmt *fmt,
                  const cs_timing *r, const cs_fmt_comm *comm) {
  int64_t now_ns = r->stop_ns;
  bool missing;
  if (!cs_tc_start_frame(c, f, fmt, now_ns) ||
      !cs_tc_tell_context(c, f, r->ctx, comm, &missing, now_ns)) {
    cs_tf_count_lost(f, 1);
    return;
  }
  size_t start;
  cs_cx cx;
  if (!rec_open(c, f, cs_cx_timing_max(), &start, &cx, now_ns))
    return;
  cs_cx_timing(&cx, (cs_timing *)r, &missing);
  rec_close(c, f, start, &cx, CST_REC_TIMING, now_ns);
}
