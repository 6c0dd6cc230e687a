/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/convert/compact_out.h — the lines of a trace as the records of a
 * binary trace's frames (`cclscope convert --to binary`; container:
 * src/common/cst_format.h, layout: docs/trace-format.md "Binary traces").
 *
 * Owns: choosing, line by line, between a compact record and a line
 * record, and the frames they go in. An event or timing line becomes a
 * compact record (src/plugin/trace/trace_compact_codec.h, the plugin's own
 * encoder) only when the plugin's formatter, given what the line was read
 * back into (line_inputs.h) and the context and writer the frame tells,
 * writes that very line again, byte for byte; any other line (the rare
 * records, another writer's lines, an edited line) is a line record. So
 * reading the file back gives the input exactly. Frames are stored (not
 * compressed), of about 1 MiB, and each decodes on its own, as the
 * plugin's do: every frame that has compact records starts with a writer
 * record and tells its contexts and strings again. One per output file.
 */
#ifndef CCLSCOPE_CLI_COMPACT_OUT_H
#define CCLSCOPE_CLI_COMPACT_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct co_out co_out;

typedef struct {
  uint64_t compact;   /* lines written as compact records */
  uint64_t as_lines;  /* lines written as line records */
  uint64_t fallbacks; /* ... of them, event and timing lines that a compact
                         record would not have given back exactly */
} co_counts;

/* Records for `out`, which already has its file header. NULL without
 * memory. */
co_out *co_new(FILE *out);
void co_free(co_out *o);

/* One line (without its newline). False without memory or when a frame
 * could not be written (ferror(out) tells). */
bool co_line(co_out *o, const char *line, size_t len);

/* The last frame out; false as co_line. */
bool co_finish(co_out *o);

co_counts co_get_counts(const co_out *o);

#endif
