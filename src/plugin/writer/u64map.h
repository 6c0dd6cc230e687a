/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/writer/u64map.h — an open-addressing hash map from non-zero 64-bit
 * keys to pointers (Fibonacci hashing, linear probing, backward-shift
 * deletion, grows at 50 % load). Used only by the writer thread (not
 * thread-safe).
 */
#ifndef CCLSCOPE_U64MAP_H
#define CCLSCOPE_U64MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
  uint64_t key; /* 0 = empty */
  void *value;
} cs_u64map_slot;

typedef struct {
  cs_u64map_slot *slots;
  size_t mask;
  size_t count;
  unsigned shift; /* 64 - log2(capacity), for Fibonacci hashing */
} cs_u64map;

bool cs_u64map_init(cs_u64map *m, size_t initial_capacity);
void cs_u64map_free(cs_u64map *m);
void *cs_u64map_get(const cs_u64map *m, uint64_t key);
/* Insert or replace. False only when growing failed (map unchanged). */
bool cs_u64map_put(cs_u64map *m, uint64_t key, void *value);
/* Remove and return the value (NULL if absent). */
void *cs_u64map_remove(cs_u64map *m, uint64_t key);

/* Iterate: for (size_t i = 0; i < cap; i++) if slots[i].key ... */
static inline size_t cs_u64map_capacity(const cs_u64map *m) {
  return m->mask + 1;
}

#endif
