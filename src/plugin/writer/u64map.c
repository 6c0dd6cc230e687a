/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/writer/u64map.c — see u64map.h.
 */
#include "u64map.h"

#include <stdlib.h>

static inline size_t slot_of(const cs_u64map *m, uint64_t key) {
  return (size_t)(cs_u64_hash(key) >> m->shift);
}

static unsigned shift_for(size_t cap) {
  unsigned bits = 0;
  while (((size_t)1 << bits) < cap)
    bits++;
  return 64 - bits;
}

bool cs_u64map_init(cs_u64map *m, size_t initial_capacity) {
  size_t cap = 16;
  while (cap < initial_capacity)
    cap <<= 1;
  m->slots = calloc(cap, sizeof *m->slots);
  m->mask = cap - 1;
  m->shift = shift_for(cap);
  m->count = 0;
  return m->slots != NULL;
}

void cs_u64map_free(cs_u64map *m) {
  free(m->slots);
  m->slots = NULL;
  m->mask = 0;
  m->count = 0;
}

void *cs_u64map_get(const cs_u64map *m, uint64_t key) {
  if (!m->slots || key == 0)
    return NULL;
  for (size_t i = slot_of(m, key);; i = (i + 1) & m->mask) {
    if (m->slots[i].key == key)
      return m->slots[i].value;
    if (m->slots[i].key == 0)
      return NULL;
  }
}

static bool grow(cs_u64map *m) {
  size_t old_cap = m->mask + 1, new_cap = old_cap * 2;
  cs_u64map_slot *old = m->slots;
  cs_u64map_slot *slots = calloc(new_cap, sizeof *slots);
  if (!slots)
    return false;
  m->slots = slots;
  m->mask = new_cap - 1;
  m->shift = shift_for(new_cap);
  for (size_t j = 0; j < old_cap; j++) {
    if (!old[j].key)
      continue;
    size_t i = slot_of(m, old[j].key);
    while (slots[i].key)
      i = (i + 1) & m->mask;
    slots[i] = old[j];
  }
  free(old);
  return true;
}

bool cs_u64map_put(cs_u64map *m, uint64_t key, void *value) {
  if (key == 0 || !m->slots)
    return false;
  if ((m->count + 1) * 2 > m->mask + 1 && !grow(m))
    return false;
  size_t i = slot_of(m, key);
  while (m->slots[i].key && m->slots[i].key != key)
    i = (i + 1) & m->mask;
  if (!m->slots[i].key)
    m->count++;
  m->slots[i].key = key;
  m->slots[i].value = value;
  return true;
}

void *cs_u64map_remove(cs_u64map *m, uint64_t key) {
  if (!m->slots || key == 0)
    return NULL;
  size_t i = slot_of(m, key);
  while (m->slots[i].key != key) {
    if (m->slots[i].key == 0)
      return NULL;
    i = (i + 1) & m->mask;
  }
  void *value = m->slots[i].value;
  /* Backward-shift: move later members of the probe run into the hole. */
  size_t hole = i;
  for (size_t j = (i + 1) & m->mask; m->slots[j].key; j = (j + 1) & m->mask) {
    size_t home = slot_of(m, m->slots[j].key);
    /* Can slot j's entry move to `hole`? Only if home is not in (hole, j]. */
    bool home_in_range =
        hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
    if (!home_in_range) {
      m->slots[hole] = m->slots[j];
      hole = j;
    }
  }
  m->slots[hole].key = 0;
  m->slots[hole].value = NULL;
  m->count--;
  return value;
}
