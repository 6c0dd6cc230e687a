/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/check/id_table.h — what `check` remembers about each event id of the
 * file being checked: whether it was seen (duplicates), its type (parent
 * type rules), its start (children are not older than parents) and its
 * line (messages). 16 bytes per id, in pages of 4096 consecutive ids (the
 * plugin hands out ids in per-thread blocks of 4096, so pages are dense).
 */
#ifndef CCLSCOPE_CLI_ID_TABLE_H
#define CCLSCOPE_CLI_ID_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/pair_map.h"

typedef struct {
  int64_t start_ns;
  uint32_t line; /* 0: not seen */
  uint8_t type;  /* ev_type */
  uint8_t pad[3];
} id_entry;

typedef struct {
  pair_map page_of; /* id >> 12 -> page index + 1 */
  id_entry **pages;
  size_t npages;
  size_t cap;
  uint64_t count;
  /* the page last looked up (ids come in runs from one thread's block) */
  uint64_t last_page_no;
  id_entry *last_page;
} id_table;

void id_table_init(id_table *t);
void id_table_free(id_table *t);
/* Entry for `id`, created (zeroed) if absent; NULL when out of memory. */
id_entry *id_table_slot(id_table *t, uint64_t id);
/* Entry for `id` if it was seen, else NULL. */
const id_entry *id_table_find(const id_table *t, uint64_t id);

#endif
