/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/convert/line_inputs.h — an event line or a timing line of a
 * trace read back into what the plugin's formatters made it from
 * (src/plugin/trace/trace_fmt.h: an assembled event and its times, a
 * timing record, the context and the writer they name).
 *
 * Owns: reading a line in exactly the order and spelling trace_fmt.c
 * writes it, field by field; any other text (another key, another order,
 * another writer's line) is refused. What a line leaves out (a context's
 * ABI, its device on an event line) is not guessed here: the caller
 * (compact_out.c) formats what it got and keeps the record only when the
 * text is the line's, byte for byte. Strings and states point into a
 * scratch area that the next line reuses.
 */
#ifndef CCLSCOPE_CLI_LINE_INPUTS_H
#define CCLSCOPE_CLI_LINE_INPUTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace_fmt.h"

/* Where a line's strings (unescaped) and an event's states go. */
typedef struct {
  char *strings;
  size_t strings_used, strings_cap;
  cs_state_rec *states;
  int64_t *state_ns; /* 2 per state (trace_fmt.h cs_fmt_times) */
  uint32_t states_cap;
} li_scratch;

void li_scratch_free(li_scratch *s);

/* What a line says of its context. */
typedef struct {
  bool present;       /* "ctx":N (false: "ctx":null, no context) */
  uint32_t serial;    /* N */
  bool has_comm_info; /* "commId":"0x…" (false: null) */
  uint64_t comm_id;
  /* Timing lines only: */
  int device;            /* -1 for null */
  const char *comm_name; /* "" when none */
} li_comm;

/* Who wrote a line: the pid of an event's endpoints; a timing line's
 * identity too. */
typedef struct {
  int32_t pid;
  bool has_identity; /* the fields below were on the line (timing) */
  const char *run_id;
  const char *hostname;
  int global_rank; /* -1 for null */
} li_writer;

/* An event line into *e and *t (its states and times in s), its context
 * and writer. False when the line is not one the formatter writes (or s
 * has no memory: *oom). */
bool li_event(li_scratch *s, const char *line, size_t len, cs_event *e,
              cs_fmt_times *t, li_comm *comm, li_writer *w, bool *oom);

/* A timing line into *r, its context and writer; as li_event. */
bool li_timing(li_scratch *s, const char *line, size_t len, cs_timing *r,
               li_comm *comm, li_writer *w, bool *oom);

#endif
