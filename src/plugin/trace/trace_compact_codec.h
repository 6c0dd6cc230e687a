/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/trace/trace_compact_codec.h — the bodies of the compact
 * records of a binary trace (container: src/common/cst_format.h; layout:
 * docs/trace-format.md "Compact records"), each spelled once for both
 * directions: the same function writes a record's fields (the plugin,
 * trace_compact.c) and reads them back (the CLI, src/cli/read/
 * cst_records.c), so the two cannot drift apart.
 *
 * Fields are LEB128 varints (signed ones zigzag), single bytes for flags
 * and kinds, and strings through the frame's string table; ids and times
 * are differences from the previous record of the same kind in the frame
 * (cs_cx_prev). A reader starts a fresh table and fresh previous values at
 * each writer record (CST_REC_WRITER).
 */
#ifndef CCLSCOPE_TRACE_COMPACT_CODEC_H
#define CCLSCOPE_TRACE_COMPACT_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cst_format.h"
#include "trace_fmt.h"

/* The previous values deltas are taken against, per frame. */
typedef struct {
  uint64_t event_id;
  int64_t event_end_ns;
  int64_t tid;
  uint64_t timing_id;
  int64_t timing_start_ns;
  uint64_t ptimer; /* version 3: the last GPU timer value (KernelCh/Phase) */
} cs_cx_prev;

typedef struct cs_cx cs_cx;

/* A string's reference (writing) or its text (reading): the direction's
 * own table (trace_compact.c, cst_records.c). */
typedef void (*cs_cx_str_fn)(cs_cx *c, const char **s);
/* Reading: room for `n` states in *states and 2n stamps in *state_ns;
 * false without memory. */
typedef bool (*cs_cx_states_fn)(cs_cx *c, uint32_t n, cs_state_rec **states,
                                int64_t **state_ns);

struct cs_cx {
  bool reading;
  bool bad; /* reading: cut or malformed; writing: no room for a string */
  unsigned char *out;       /* writing: the next byte (room is the caller's) */
  const unsigned char *in;  /* reading: the next byte */
  const unsigned char *end; /* ... and the end of the body */
  cs_cx_prev *prev;
  /* Container version 3 (the plugin writes it; a reader sets it from the
   * file's version): the GPU timer values of KernelCh and KernelPhase
   * events as differences (the start from the frame's previous one, the
   * states' from the event's), not as 9-byte absolute varints. */
  bool gpu_deltas;
  cs_cx_str_fn str;
  cs_cx_states_fn states;
  void *arg; /* the direction's */
};

/* A varint, both ways (the string functions read their references). */
void cs_cx_u64(cs_cx *c, uint64_t *v);

/* Bytes a string reference can take when new (its varint and its text):
 * the writer's string function makes that room itself, so the bounds
 * below leave strings out. */
#define CS_CX_STR_MAX(len) (CST_VARINT_MAX + (len))

/* What an event record carries beside the event. */
typedef struct {
  cs_fmt_times *times;
  bool ctx_missing; /* no context had its serial when it was written */
  int abi;          /* ... then the default ABI (states' names) */
} cs_cx_event_extra;

/* The most an event record's body takes, its strings left out: 48 varints
 * and bytes of fixed fields, each state at most 8 fields. The strings are
 * not counted: the writer's string function makes room for a new one
 * itself (cs_cx.str). Inline: asked once per event. */
static inline size_t cs_cx_event_max(const cs_event *e) {
  return 48 * CST_VARINT_MAX + (size_t)e->nstates * 8 * CST_VARINT_MAX;
}

/* An event record's body. Reading fills *e (its states through c->states)
 * and *x; the caller checks c->bad and that the body is used up. */
void cs_cx_event(cs_cx *c, cs_event *e, cs_cx_event_extra *x);

/* The same body written from `out` on (room is the caller's), what a
 * writing cs_cx would hold passed as they are, so that the writer fills
 * no cs_cx per event: `prev`, the string function `str` and its `arg`; in
 * the layout of the container version the plugin writes (CST_VERSION).
 * Returns the body's end; *bad as cs_cx.bad. */
unsigned char *cs_cx_event_put(unsigned char *out, cs_cx_prev *prev,
                               cs_cx_str_fn str, void *arg, const cs_event *e,
                               cs_cx_event_extra *x, bool *bad);

/* A timing record's body; ctx_missing as for events. */
size_t cs_cx_timing_max(void);
void cs_cx_timing(cs_cx *c, cs_timing *r, bool *ctx_missing);

/* A context record's body: the serial and what the formatter reads. */
size_t cs_cx_context_max(void);
void cs_cx_context(cs_cx *c, uint32_t *serial, cs_fmt_comm *m);

/* A writer record's body: pid, host kind and the timing identity. */
size_t cs_cx_writer_max(void);
void cs_cx_writer(cs_cx *c, cs_fmt *f);

#endif
