/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/load/load_state.h — what the server already holds of one trace
 * file, so that loading it again adds exactly what is missing
 * (docs/clickhouse.md, "Loading twice, loads cut short"):
 *
 *  - its load markers (the loads table): a table whose marker is there has
 *    every row of the file; the file is not read again for it;
 *  - for a table without a marker, the line numbers of the rows already
 *    stored (a load cut short stored some): those lines are not sent again.
 *
 * Rows are keyed by (runId, file, line), the tables' sort key, so both
 * questions read a few index granules. Memory: one bit per line of the
 * file for a table that holds some of its rows.
 */
#ifndef CCLSCOPE_CLI_LOAD_STATE_H
#define CCLSCOPE_CLI_LOAD_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "load/ch_http.h"
#include "load/load_rows.h"

/* A set of line numbers, as bits. */
typedef struct {
  uint8_t *bits;
  uint64_t nbits;
  uint64_t count; /* lines in the set */
  bool failed;    /* out of memory while filling it */
} line_set;

bool line_set_has(const line_set *s, uint64_t line);

/* Where the tables are. */
typedef struct {
  const char *db;
  const char *prefix;
} load_names;

typedef struct {
  bool done[LT_COUNT];       /* its marker is there */
  line_set stored[LT_COUNT]; /* lines already stored (no marker) */
} file_state;

/* Ask the server about (run_id, file) for the tables `wanted`. False (the
 * connection's error says why) when a query failed. */
bool load_state_read(ch_conn *c, const load_names *names, const char *run_id,
                     const char *file, const bool wanted[LT_COUNT],
                     file_state *st);
void load_state_free(file_state *st);

#endif
