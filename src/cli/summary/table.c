/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/summary/table.c — see table.h.
 */
#include "summary/table.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

void table_init(table *t, const char *aligns, ...) {
  memset(t, 0, sizeof *t);
  size_t ncols = strnlen(aligns, TABLE_MAX_COLS);
  t->ncols = (int)ncols;
  memcpy(t->align, aligns, ncols);
  va_list ap;
  va_start(ap, aligns);
  for (size_t c = 0; c < ncols; c++)
    t->heads[c] = va_arg(ap, const char *);
  va_end(ap);
}

void table_cell(table *t, const char *fmt, ...) {
  if (t->col == 0) {
    if (t->nrows == t->cap_rows) {
      size_t ncap = t->cap_rows ? t->cap_rows * 2 : 16;
      char **nc = realloc(t->cells, ncap * (size_t)t->ncols * sizeof *nc);
      if (!nc)
        return;
      t->cells = nc;
      t->cap_rows = ncap;
    }
    memset(t->cells + t->nrows * (size_t)t->ncols, 0,
           (size_t)t->ncols * sizeof *t->cells);
    t->nrows++;
  }
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  t->cells[(t->nrows - 1) * (size_t)t->ncols + (size_t)t->col] = strdup(buf);
  t->col = (t->col + 1) % t->ncols;
}

static size_t cell_width(const char *s) {
  /* Count UTF-8 code points, not bytes, so arrows line up. */
  size_t w = 0;
  for (; s && *s; s++)
    if (((unsigned char)*s & 0xC0) != 0x80)
      w++;
  return w;
}

static void put_cell(FILE *out, const char *s, size_t width, char align,
                     bool last) {
  size_t w = cell_width(s);
  size_t pad = width > w ? width - w : 0;
  if (align == 'r')
    fprintf(out, "%*s", (int)pad, "");
  fputs(s ? s : "", out);
  if (align != 'r' && !last)
    fprintf(out, "%*s", (int)pad, "");
}

void table_print(const table *t, FILE *out, const char *indent) {
  size_t width[TABLE_MAX_COLS];
  for (int c = 0; c < t->ncols; c++) {
    width[c] = cell_width(t->heads[c]);
    for (size_t r = 0; r < t->nrows; r++) {
      size_t w = cell_width(t->cells[r * (size_t)t->ncols + (size_t)c]);
      if (w > width[c])
        width[c] = w;
    }
  }
  fputs(indent, out);
  for (int c = 0; c < t->ncols; c++) {
    if (c)
      fputs("  ", out);
    put_cell(out, t->heads[c], width[c], t->align[c], c == t->ncols - 1);
  }
  fputc('\n', out);
  for (size_t r = 0; r < t->nrows; r++) {
    fputs(indent, out);
    for (int c = 0; c < t->ncols; c++) {
      if (c)
        fputs("  ", out);
      put_cell(out, t->cells[r * (size_t)t->ncols + (size_t)c], width[c],
               t->align[c], c == t->ncols - 1);
    }
    fputc('\n', out);
  }
}

void table_free(table *t) {
  for (size_t i = 0; i < t->nrows * (size_t)t->ncols; i++)
    free(t->cells[i]);
  free(t->cells);
  memset(t, 0, sizeof *t);
}
