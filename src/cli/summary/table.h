/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/summary/table.h — aligned text tables for human-readable output.
 *
 * Cells are formatted with printf-style calls, kept until the table is
 * printed, then every column is padded to its widest cell (numbers right-
 * aligned, text left-aligned, as declared per column).
 */
#ifndef CCLSCOPE_CLI_TABLE_H
#define CCLSCOPE_CLI_TABLE_H

#include <stddef.h>
#include <stdio.h>

#define TABLE_MAX_COLS 16

typedef struct {
  int ncols;
  const char *heads[TABLE_MAX_COLS];
  char align[TABLE_MAX_COLS]; /* 'l' or 'r' */
  char **cells;               /* row-major, nrows * ncols */
  size_t nrows;
  size_t cap_rows;
  int col; /* next cell of the row being filled */
} table;

/* `aligns` is a string of 'l'/'r', one per column; heads follow. */
void table_init(table *t, const char *aligns, ...);
void table_cell(table *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void table_print(const table *t, FILE *out, const char *indent);
void table_free(table *t);

#endif
