/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/read/line_members.h — the top-level members of an event line
 * that the plugin's formatter has just made, found without parsing it.
 *
 * Owns: turning a line cs_fmt_event wrote (src/plugin/trace/trace_fmt.c:
 * valid JSON by construction, no whitespace) and the marks it left (where
 * "start", "stop", "duration", "details" and "states" begin) into the
 * members js_fields_decode would find in it: the same keys in the same
 * order, the same value spans, types and escape flags. The nested values
 * are taken whole between two marks and never scanned; the scalars
 * between marks are split by a short scan that only has to know strings.
 * A binary trace's event lines come with their marks (cst_records.c), and
 * the reading threads split them (read_ahead.c), so that no event line of
 * a binary trace is parsed. Anything unexpected gives no members, and the
 * line is then parsed as any other.
 */
#ifndef CCLSCOPE_CLI_LINE_MEMBERS_H
#define CCLSCOPE_CLI_LINE_MEMBERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "read/jsonl_scan.h"

/* Where an event line's nested members begin, as offsets into the line
 * (trace_fmt.h's cs_fmt_marks): the comma before the key of "start",
 * "stop", "duration" (after stop's value), "details" and "states" (0: the
 * line has no states). */
typedef struct {
  uint32_t start, stop, duration, details, states;
} line_marks;

/* The key that followed each key last time (the formatter writes the keys
 * of a type in one order): most keys are then known by one comparison.
 * Zeroed to start. */
typedef struct {
  js_key prev_next[K_KEY_COUNT];
  /* each key's name: its length, and its first 8 bytes as a number with
   * the mask of those that are the name's (filled on first use) */
  bool ready;
  uint8_t len[K_KEY_COUNT];
  uint64_t head[K_KEY_COUNT], head_mask[K_KEY_COUNT];
} line_members_keys;

/* The members of event line line[0, len) (without its newline) that
 * cs_fmt_event wrote with `marks`, as offsets into the line, into out[0,
 * cap): their count, or -1 when the line is not as expected (then it is
 * to be parsed). */
int line_members_of_event(line_members_keys *keys, const char *line, size_t len,
                          const line_marks *marks, js_member_at *out,
                          uint32_t cap);

#endif
