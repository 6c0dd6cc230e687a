/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/read/line_members.h — the top-level members of an event line
 * that the plugin's formatter has just made, taken from where it says
 * they begin instead of parsing the line.
 *
 * Owns: turning a line cs_fmt_event_members wrote
 * (src/plugin/trace/trace_fmt.c: valid JSON by construction, no
 * whitespace) and where it said each member begins into the members
 * js_fields_decode would find in it: the same keys in the same order, the
 * same value spans, types and escape flags, without reading the values.
 * A binary trace's event lines come with their marks (cst_records.c), and
 * the reading threads turn them into members (read_ahead.c), so that no
 * event line of a binary trace is parsed. The marks come from the
 * formatter of the same process, so only their fit is checked: marks
 * whose members would not begin and end where their neighbours do, that
 * name a key twice or mark a non-string as escaped give no members, and
 * the line is then parsed as any other (a key swapped for another of the
 * same length is not seen).
 */
#ifndef CCLSCOPE_CLI_LINE_MEMBERS_H
#define CCLSCOPE_CLI_LINE_MEMBERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "read/jsonl_scan.h"

/* The most members an event line has: one per key the formatter writes
 * (trace_fmt.h's CS_FK_COUNT, which line_members.c checks fits). */
enum { LINE_MARKS_MAX = 24 };

/* Where each top-level member of an event line begins (trace_fmt.h's
 * cs_fmt_members, as offsets into the line): member i's key is key[i], a
 * cs_fmt_key, and its key's opening quote is at[i] bytes into the line;
 * bit i of `escaped`: its value is a string with an escape in it. */
typedef struct {
  uint32_t n;
  uint32_t escaped;
  uint8_t key[LINE_MARKS_MAX];
  uint32_t at[LINE_MARKS_MAX];
} line_marks;

/* The scanner's key for a formatter's key, a cs_fmt_key (K_UNKNOWN for
 * none). */
js_key line_members_key(unsigned fmt_key);

/* The members of event line line[0, len) (without its newline) that
 * cs_fmt_event_members wrote with `marks`, as offsets into the line, into
 * out[0, cap): their count, or -1 when the marks do not fit the line
 * (then it is to be parsed). */
int line_members_of_event(const char *line, size_t len, const line_marks *marks,
                          js_member_at *out, uint32_t cap);

#endif
