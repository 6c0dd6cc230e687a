/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/load/load_rows.h — trace records as rows of the tables of
 * share/clickhouse/schema.sql (docs/clickhouse.md), one file at a
 * time.
 *
 * A file's identity (its process record: run, global rank, host, pid) and
 * its communicators (ProfilerInit: device and name by context) are kept
 * while the file is read, so that every row carries its GPU's identity.
 * Timing rows are read from format 1 (start/stop/apiTs/enqueue in µs with
 * three decimals) and format 2 (startNs/stopNs/apiNs/enqueueStartNs... in
 * integer ns, identity on the record) alike, exactly: no timestamp goes
 * through a double.
 */
#ifndef CCLSCOPE_CLI_LOAD_ROWS_H
#define CCLSCOPE_CLI_LOAD_ROWS_H

#include <stdbool.h>
#include <stdint.h>

#include "load/row_buf.h"
#include "read/trace_record.h"

/* The tables, in the order they are loaded and named in markers. */
typedef enum {
  LT_TIMING = 0,
  LT_COMMS,
  LT_PROCESSES,
  LT_EVENTS,      /* --events */
  LT_PROXY_STEPS, /* --proxy-steps */
  LT_COUNT
} load_table;

/* "timing", "comms", ... (the table is PREFIX + this). */
const char *load_table_name(load_table t);
/* Its columns, comma-separated, in schema.sql's order: the column list of
 * the INSERT. */
const char *load_table_columns(load_table t);

/* What a communicator context of the file says about its GPU. */
typedef struct {
  bool known;
  bool has_device;
  int64_t device;
  char *comm_name; /* decoded, "" when none */
} load_ctx;

/* One trace file being read. */
typedef struct {
  const char *file; /* the `file` column: the file's name, no folders */
  /* the process record */
  char *process_line; /* a copy of it, for the processes row */
  size_t process_len;
  uint64_t process_line_no;
  char run_id[256];
  char hostname[256];
  uint64_t pid;
  bool has_global_rank;
  int64_t global_rank;
  /* how it ended */
  char *end_line; /* a copy of processEnd */
  size_t end_len;
  bool has_accounting;
  rec_accounting accounting;
  uint64_t timing_records;
  /* contexts by number */
  load_ctx *ctxs;
  size_t nctxs;
} load_file;

void load_file_begin(load_file *lf, const char *file);
void load_file_end(load_file *lf);

/* Note what the file's identity needs from a record: the process record,
 * ProfilerInit, processEnd, accounting. False when out of memory. */
bool load_file_note(load_file *lf, const rec *r);

/* Rows of one record (call load_file_note first). */
void row_timing(row_buf *b, const load_file *lf, const rec *r, uint64_t line);
void row_comm(row_buf *b, const load_file *lf, const rec *r, uint64_t line);
void row_event(row_buf *b, const load_file *lf, const rec *r, uint64_t line);
void row_proxy_step(row_buf *b, const load_file *lf, const rec *r,
                    rec_scratch *sc, uint64_t line);
/* The file's processes row, once it has been read to its end. */
void row_process(row_buf *b, const load_file *lf);

/* Which table a record gives a row to: LT_COUNT for none. A ProfilerInit
 * gives a comms row and (with --events) an events row too: *also. */
load_table load_table_of(const rec *r, load_table *also);

#endif
