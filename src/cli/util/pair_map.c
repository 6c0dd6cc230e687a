/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/util/pair_map.c — see pair_map.h.
 */
#include "util/pair_map.h"

#include <stdlib.h>
#include <string.h>

static uint64_t mix(uint64_t a, uint64_t b) {
  uint64_t h = a * 0x9E3779B97F4A7C15ull ^ (b + 0x632BE59BD9B4E019ull);
  h ^= h >> 32;
  h *= 0xD6E8FEB86659FD93ull;
  h ^= h >> 32;
  return h;
}

void pair_map_init(pair_map *m) {
  memset(m, 0, sizeof *m);
}

void pair_map_free(pair_map *m) {
  free(m->slots);
  memset(m, 0, sizeof *m);
}

void pair_map_clear(pair_map *m) {
  if (m->slots)
    memset(m->slots, 0, m->cap * sizeof *m->slots);
  m->n = 0;
}

uint64_t *pair_map_get(const pair_map *m, uint64_t a, uint64_t b) {
  if (!m->cap)
    return NULL;
  size_t mask = m->cap - 1;
  for (size_t i = mix(a, b) & mask;; i = (i + 1) & mask) {
    pair_map_slot *s = &m->slots[i];
    if (!s->used)
      return NULL;
    if (s->a == a && s->b == b)
      return &s->value;
  }
}

static bool grow(pair_map *m) {
  size_t ncap = m->cap ? m->cap * 2 : 64;
  pair_map_slot *ns = calloc(ncap, sizeof *ns);
  if (!ns)
    return false;
  for (size_t i = 0; i < m->cap; i++) {
    pair_map_slot *s = &m->slots[i];
    if (!s->used)
      continue;
    size_t j = mix(s->a, s->b) & (ncap - 1);
    while (ns[j].used)
      j = (j + 1) & (ncap - 1);
    ns[j] = *s;
  }
  free(m->slots);
  m->slots = ns;
  m->cap = ncap;
  return true;
}

uint64_t *pair_map_put(pair_map *m, uint64_t a, uint64_t b, uint64_t initial,
                       bool *inserted) {
  if ((m->n + 1) * 4 > m->cap * 3 && !grow(m))
    return NULL;
  size_t mask = m->cap - 1;
  size_t i = mix(a, b) & mask;
  for (;; i = (i + 1) & mask) {
    pair_map_slot *s = &m->slots[i];
    if (!s->used)
      break;
    if (s->a == a && s->b == b) {
      if (inserted)
        *inserted = false;
      return &s->value;
    }
  }
  m->slots[i].used = true;
  m->slots[i].a = a;
  m->slots[i].b = b;
  m->slots[i].value = initial;
  m->n++;
  if (inserted)
    *inserted = true;
  return &m->slots[i].value;
}

bool pair_map_remove(pair_map *m, uint64_t a, uint64_t b) {
  if (!m->cap)
    return false;
  size_t mask = m->cap - 1;
  size_t i = mix(a, b) & mask;
  for (;; i = (i + 1) & mask) {
    if (!m->slots[i].used)
      return false;
    if (m->slots[i].a == a && m->slots[i].b == b)
      break;
  }
  /* Backward-shift deletion keeps probe chains intact without tombstones. */
  size_t hole = i;
  for (size_t j = (i + 1) & mask; m->slots[j].used; j = (j + 1) & mask) {
    size_t home = mix(m->slots[j].a, m->slots[j].b) & mask;
    bool movable =
        hole <= j ? (home <= hole || home > j) : (home <= hole && home > j);
    if (movable) {
      m->slots[hole] = m->slots[j];
      hole = j;
    }
  }
  m->slots[hole].used = false;
  m->n--;
  return true;
}
