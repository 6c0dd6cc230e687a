/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/summary/text_wrap.h — human-readable text that fits the width
 * of where it goes: which width that is (--wide: none; else COLUMNS when
 * set; else the terminal's when stdout is one; else 100), and lines
 * longer than that wrapped at word boundaries. Tables fit the same width
 * through table.h (table_set_width).
 */
#ifndef CCLSCOPE_CLI_TEXT_WRAP_H
#define CCLSCOPE_CLI_TEXT_WRAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* The width when stdout is not a terminal and COLUMNS is not set. */
#define TEXT_DEFAULT_WIDTH 100
/* Narrower than this, text is wrapped at this width anyway. */
#define TEXT_MIN_WIDTH 40

/* The width for text on stdout: 0 (no limit) when `wide`; else COLUMNS
 * when it is a number; else the terminal's (TIOCGWINSZ) when stdout is a
 * terminal; else TEXT_DEFAULT_WIDTH. At least TEXT_MIN_WIDTH. */
int text_width_for_stdout(bool wide);

/* Write text[0, len) to `out`, each line wider than `width` columns (0:
 * none is) wrapped at spaces: the lines it is wrapped into are indented
 * two more than it. A line that fits is written as it is; a word longer
 * than the line stays whole. */
void text_write_fitted(FILE *out, int width, const char *text, size_t len);

/* Columns `s` takes on a terminal (UTF-8 code points). */
size_t text_columns(const char *s, size_t len);

#endif
