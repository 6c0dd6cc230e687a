/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/cli/test_text.c — summary's text fitted to a width: a table wider
 * than the width is printed in blocks that each begin with its key
 * columns and hold every other column once, every line within the width
 * (a column wider than it stays whole); lines longer than the width are
 * wrapped at spaces with two more spaces of indent, lines that fit are
 * left exactly as they are; no width leaves everything as it is.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "summary/table.h"
#include "summary/text_wrap.h"

/* What `print` writes, as a string (caller frees). */
static char *captured(void (*print)(FILE *, void *), void *arg) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  assert_non_null(f);
  print(f, arg);
  fclose(f);
  return buf;
}

static size_t widest_line(const char *text) {
  size_t most = 0;
  while (*text) {
    const char *nl = strchr(text, '\n');
    size_t len = nl ? (size_t)(nl - text) : strlen(text);
    size_t w = text_columns(text, len);
    if (w > most)
      most = w;
    text += len + (nl ? 1 : 0);
  }
  return most;
}

static size_t count(const char *text, const char *what) {
  size_t n = 0;
  for (const char *p = text; (p = strstr(p, what)) != NULL; p += strlen(what))
    n++;
  return n;
}

static void fill(table *t) {
  table_init(t, "lrrrrr", "name", "first column", "second column",
             "third column", "fourth column", "fifth→");
  t->keys = 1;
  for (int r = 0; r < 3; r++) {
    table_cell(t, "row%d", r);
    for (int c = 1; c < 6; c++)
      table_cell(t, "v%d.%d", r, c);
  }
}

static void print_table(FILE *out, void *arg) {
  (void)arg;
  table t;
  fill(&t);
  table_print(&t, out, "  ");
  table_free(&t);
}

static void table_in_blocks(void **state) {
  (void)state;
  table_set_width(0);
  char *whole = captured(print_table, NULL);
  assert_int_equal(count(whole, "\n"), 4); /* one block: heads + 3 rows */
  assert_true(widest_line(whole) > 40);
  table_set_width(40);
  char *fitted = captured(print_table, NULL);
  table_set_width(0);
  assert_true(widest_line(fitted) <= 40);
  size_t blocks = count(fitted, "  name  ");
  assert_true(blocks >= 2);
  assert_int_equal(count(fitted, "row1"), blocks); /* the key in each */
  static const char *const once[] = {"first column", "second column",
                                     "third column", "fourth column",
                                     "fifth→",       "v2.5"};
  for (size_t i = 0; i < sizeof once / sizeof *once; i++)
    assert_int_equal(count(fitted, once[i]), 1);
  assert_int_equal(count(fitted, "\n\n"), blocks - 1); /* blank between */
  free(whole);
  free(fitted);
}

typedef struct {
  int width;
  const char *text;
} fit_args;

static void print_fitted(FILE *out, void *arg) {
  const fit_args *a = arg;
  text_write_fitted(out, a->width, a->text, strlen(a->text));
}

static void lines_wrapped(void **state) {
  (void)state;
  fit_args a = {20, "  short  line\n  one two three four five six seven\n"};
  char *got = captured(print_fitted, &a);
  assert_string_equal(got, "  short  line\n"        /* fits: untouched */
                           "  one two three four\n" /* wrapped at 20 */
                           "    five six seven\n");
  free(got);
  a = (fit_args){10, "averyveryverylongword x\n"};
  got = captured(print_fitted, &a);
  assert_string_equal(got, "averyveryverylongword\n  x\n");
  free(got);
  a = (fit_args){0, "  one two three four five six seven"};
  got = captured(print_fitted, &a);
  assert_string_equal(got, a.text);
  free(got);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(table_in_blocks),
      cmocka_unit_test(lines_wrapped),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
