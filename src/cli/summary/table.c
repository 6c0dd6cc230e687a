/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/summary/table.c — see table.h.
 */
#include "summary/table.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* The width tables fit (table_set_width; 0: no limit). */
static int fit_width;

void table_set_width(int width) {
  fit_width = width > 0 ? width : 0;
}

void table_init(table *t, const char *aligns, ...) {
  memset(t, 0, sizeof *t);
  t->keys = 1;
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

/* Print the columns cols[0, n) of every row (and the heads). */
static void print_block(const table *t, FILE *out, const char *indent,
                        const size_t *width, const int *cols, int n) {
  fputs(indent, out);
  for (int i = 0; i < n; i++) {
    int c = cols[i];
    if (i)
      fputs("  ", out);
    put_cell(out, t->heads[c], width[c], t->align[c], i == n - 1);
  }
  fputc('\n', out);
  for (size_t r = 0; r < t->nrows; r++) {
    fputs(indent, out);
    for (int i = 0; i < n; i++) {
      int c = cols[i];
      if (i)
        fputs("  ", out);
      put_cell(out, t->cells[r * (size_t)t->ncols + (size_t)c], width[c],
               t->align[c], i == n - 1);
    }
    fputc('\n', out);
  }
}

void table_print(const table *t, FILE *out, const char *indent) {
  size_t width[TABLE_MAX_COLS];
  size_t total = cell_width(indent);
  for (int c = 0; c < t->ncols; c++) {
    width[c] = cell_width(t->heads[c]);
    for (size_t r = 0; r < t->nrows; r++) {
      size_t w = cell_width(t->cells[r * (size_t)t->ncols + (size_t)c]);
      if (w > width[c])
        width[c] = w;
    }
    total += width[c] + (c ? 2 : 0);
  }
  int cols[TABLE_MAX_COLS];
  int keys = t->keys < 0 ? 0 : t->keys > t->ncols ? t->ncols : t->keys;
  if (fit_width == 0 || total <= (size_t)fit_width || keys >= t->ncols) {
    for (int c = 0; c < t->ncols; c++)
      cols[c] = c;
    print_block(t, out, indent, width, cols, t->ncols);
    return;
  }
  /* Blocks: the key columns, then as many of the rest as fit. */
  size_t keys_width = cell_width(indent);
  for (int c = 0; c < keys; c++)
    keys_width += width[c] + (c ? 2 : 0);
  int next = keys;
  bool first = true;
  while (next < t->ncols) {
    int n = 0;
    for (int c = 0; c < keys; c++)
      cols[n++] = c;
    size_t used = keys_width;
    do {
      used += width[next] + (n ? 2 : 0);
      cols[n++] = next++;
    } while (next < t->ncols && used + 2 + width[next] <= (size_t)fit_width);
    if (!first)
      fputc('\n', out);
    first = false;
    print_block(t, out, indent, width, cols, n);
  }
}

void table_free(table *t) {
  for (size_t i = 0; i < t->nrows * (size_t)t->ncols; i++)
    free(t->cells[i]);
  free(t->cells);
  memset(t, 0, sizeof *t);
}
