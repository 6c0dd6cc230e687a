/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/util/intern.h — small string tables: each distinct string gets a
 * stable small id (function names, datatypes, algorithms, host names...).
 * Strings are copied; ids start at 1 (0 means "none").
 */
#ifndef CCLSCOPE_CLI_INTERN_H
#define CCLSCOPE_CLI_INTERN_H

#include <stddef.h>
#include <stdint.h>

#include "util/pair_map.h"

typedef struct {
  char **strs; /* strs[id - 1] */
  size_t n;
  size_t cap;
  pair_map index; /* (hash, length) -> id; collisions chained by probing b */
} intern_tab;

void intern_init(intern_tab *t);
void intern_free(intern_tab *t);
/* Id of the string (n bytes), adding it if new; 0 when out of memory. */
uint32_t intern_id(intern_tab *t, const char *s, size_t n);
const char *intern_str(const intern_tab *t, uint32_t id); /* "" for 0 */

#endif
