/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/writer/u64map.h — an open-addressing hash map from non-zero 64-bit
 * keys to pointers (a mixing hash, linear probing, backward-shift
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
  unsigned shift; /* 64 - log2(capacity): a slot is the hash's top bits */
} cs_u64map;

/* The hash of a key: every bit of the key moves about half the bits of the
 * result (xor-shift, multiply, twice), so that keys with a common stride
 * (ids 141 apart, pointers 16 or 4096 bytes apart) spread over all slots.
 * A single multiply does not: for many strides it sends the keys into a
 * few runs of neighbouring slots, and linear probing then walks those
 * runs. Take the top bits for a table of a power-of-two size. */
static inline uint64_t cs_u64_hash(uint64_t key) {
  key ^= key >> 33;
  key *= UINT64_C(0xff51afd7ed558ccd);
  key ^= key >> 33;
  key *= UINT64_C(0xc4ceb9fe1a85ec53);
  key ^= key >> 33;
  return key;
}

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
