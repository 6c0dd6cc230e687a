/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/read/seed_format.h — reading traces written in the
 * `minimal_profiler` JSONL format (the format cclscope's own started from;
 * docs/trace-format.md "Reading minimal_profiler traces").
 *
 * Owns: telling such a file from one of ours by its first record, and
 * presenting it line by line as cclscope's format: a synthesized `process`
 * record first, then each `event` record with an `id` (its position among
 * the file's NCCL events), `parentObj` pointers resolved to the `id` of the
 * parent incarnation that was live at the child's start, `state` records
 * embedded in the event incarnation whose span holds them, `commId` as hex,
 * times in our exact µs, lifecycle records with a `ctx`, and a synthesized
 * `processEnd` when every communicator was finalized. trace_reader.c
 * plugs it in under tr_next, so every command (and ncclemu --replay) reads
 * these files without knowing.
 *
 * Cost: the file is read twice. The first pass keeps 32 bytes per event
 * (pointer, start, stop, position, type; 16 more per ProxyOp: what its
 * steps repeat) to resolve reused pointers; the
 * second streams, holding only the states of events whose record has not
 * come yet (states are written when they happen, events when they stop).
 */
#ifndef CCLSCOPE_CLI_SEED_FORMAT_H
#define CCLSCOPE_CLI_SEED_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tr_file_s;
typedef struct seed_conv seed_conv;

/* Whether `line` (the first non-blank line of a file) is a
 * minimal_profiler record: an `event` or `state` record with the keys only
 * that format has (`eventAddr`, `myPid`, `parentObj`). */
bool seed_line_is_seed(const char *line, size_t len);

/* A converter for one file (tr_open makes it once the first line said the
 * format). NULL when out of memory. */
seed_conv *seed_conv_new(void);
void seed_conv_free(seed_conv *c);

/* The next line in cclscope's format into f->line/line_len/line_no (the
 * line number is that of the minimal_profiler line it comes from). Returns
 * as tr_next: 1, 0 at the end, -1 on a read error (f->error). */
int seed_conv_next(seed_conv *c, struct tr_file_s *f);

#endif
