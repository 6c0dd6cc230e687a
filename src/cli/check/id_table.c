/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/check/id_table.c — see id_table.h.
 */
#include "check/id_table.h"

#include <stdlib.h>
#include <string.h>

#define PAGE_BITS 12
#define PAGE_IDS (1u << PAGE_BITS)

void id_table_init(id_table *t) {
  memset(t, 0, sizeof *t);
  pair_map_init(&t->page_of);
}

void id_table_free(id_table *t) {
  for (size_t i = 0; i < t->npages; i++)
    free(t->pages[i]);
  free(t->pages);
  pair_map_free(&t->page_of);
  memset(t, 0, sizeof *t);
}

static id_entry *cached_page(const id_table *t, uint64_t id) {
  return t->last_page && t->last_page_no == id >> PAGE_BITS ? t->last_page
                                                            : NULL;
}

id_entry *id_table_slot(id_table *t, uint64_t id) {
  id_entry *page = cached_page(t, id);
  if (page)
    return &page[id & (PAGE_IDS - 1)];
  bool inserted;
  uint64_t *pi = pair_map_put(&t->page_of, id >> PAGE_BITS, 0, 0, &inserted);
  if (!pi)
    return NULL;
  if (inserted) {
    if (t->npages == t->cap) {
      size_t ncap = t->cap ? t->cap * 2 : 16;
      id_entry **np = realloc(t->pages, ncap * sizeof *np);
      if (!np) {
        pair_map_remove(&t->page_of, id >> PAGE_BITS, 0);
        return NULL;
      }
      t->pages = np;
      t->cap = ncap;
    }
    page = calloc(PAGE_IDS, sizeof *page);
    if (!page) {
      pair_map_remove(&t->page_of, id >> PAGE_BITS, 0);
      return NULL;
    }
    t->pages[t->npages++] = page;
    *pi = t->npages;
  }
  t->last_page_no = id >> PAGE_BITS;
  t->last_page = t->pages[*pi - 1];
  return &t->last_page[id & (PAGE_IDS - 1)];
}

const id_entry *id_table_find(const id_table *t, uint64_t id) {
  const id_entry *cached = cached_page(t, id);
  if (cached)
    return cached[id & (PAGE_IDS - 1)].line ? &cached[id & (PAGE_IDS - 1)]
                                            : NULL;
  const uint64_t *pi = pair_map_get(&t->page_of, id >> PAGE_BITS, 0);
  if (!pi)
    return NULL;
  const id_entry *e = &t->pages[*pi - 1][id & (PAGE_IDS - 1)];
  return e->line ? e : NULL;
}
