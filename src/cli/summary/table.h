/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/summary/table.h — aligned text tables for human-readable output.
 *
 * Cells are formatted with printf-style calls, kept until the table is
 * printed, then every column is padded to its widest cell (numbers right-
 * aligned, text left-aligned, as declared per column).
 *
 * A table wider than the width set by table_set_width is printed in
 * blocks: the first `keys` columns (what names a row) in every block, the
 * other columns in order, as many per block as fit; a blank line between
 * blocks. Nothing is left out; a single column wider than the width
 * is printed whole.
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
  int col;  /* next cell of the row being filled */
  int keys; /* leading columns repeated in every block (default 1) */
} table;

/* The width every table printed from now on fits (0: no limit). */
void table_set_width(int width);

/* `aligns` is a string of 'l'/'r', one per column; heads follow. */
void table_init(table *t, const char *aligns, ...);
void table_cell(table *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void table_print(const table *t, FILE *out, const char *indent);
void table_free(table *t);

#endif
