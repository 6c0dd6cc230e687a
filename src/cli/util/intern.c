/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/util/intern.c — see intern.h.
 */
#include "util/intern.h"

#include <stdlib.h>
#include <string.h>

void intern_init(intern_tab *t) {
  memset(t, 0, sizeof *t);
  pair_map_init(&t->index);
}

void intern_free(intern_tab *t) {
  for (size_t i = 0; i < t->n; i++)
    free(t->strs[i]);
  free(t->strs);
  pair_map_free(&t->index);
  memset(t, 0, sizeof *t);
}

static uint64_t fnv1a(const char *s, size_t n) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < n; i++) {
    h ^= (unsigned char)s[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

uint32_t intern_id(intern_tab *t, const char *s, size_t n) {
  uint64_t h = fnv1a(s, n);
  /* (hash, probe) -> id; a different string with the same hash takes the
   * next probe number. */
  for (uint64_t probe = 0;; probe++) {
    uint64_t *id = pair_map_get(&t->index, h, probe);
    if (!id)
      break;
    const char *have = t->strs[*id - 1];
    if (strlen(have) == n && memcmp(have, s, n) == 0)
      return (uint32_t)*id;
  }
  if (t->n == t->cap) {
    size_t ncap = t->cap ? t->cap * 2 : 32;
    char **ns = realloc(t->strs, ncap * sizeof *ns);
    if (!ns)
      return 0;
    t->strs = ns;
    t->cap = ncap;
  }
  char *copy = malloc(n + 1);
  if (!copy)
    return 0;
  memcpy(copy, s, n);
  copy[n] = '\0';
  uint64_t probe = 0;
  while (pair_map_get(&t->index, h, probe))
    probe++;
  if (!pair_map_put(&t->index, h, probe, t->n + 1, NULL)) {
    free(copy);
    return 0;
  }
  t->strs[t->n++] = copy;
  return (uint32_t)t->n;
}

const char *intern_str(const intern_tab *t, uint32_t id) {
  return id >= 1 && id <= t->n ? t->strs[id - 1] : "";
}
