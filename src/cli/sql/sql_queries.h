/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/sql/sql_queries.h — the shipped ClickHouse queries
 * (the .sql files of share/clickhouse/queries/), compiled into the binary by
 * share/clickhouse/embed.cmake so that `cclscope sql` prints the
 * same text as the installed files.
 */
#ifndef CCLSCOPE_CLI_SQL_QUERIES_H
#define CCLSCOPE_CLI_SQL_QUERIES_H

typedef struct {
  const char *name; /* file name without .sql, e.g. "collectives" */
  const char *text; /* the file's text, NUL-terminated */
} sql_query;

extern const sql_query sql_queries[];
extern const unsigned sql_queries_count;
/* The timing row's columns as a ClickHouse structure ("recordType String,
 * ..."; share/clickhouse/timing_columns.txt, a trailing newline): the
 * schema of trace files read in place. */
extern const char sql_timing_columns[];

#endif
