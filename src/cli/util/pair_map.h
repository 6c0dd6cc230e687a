/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/util/pair_map.h — a hash map from a pair of 64-bit keys to a 64-bit
 * value (open addressing, linear probing, backward-shift deletion).
 *
 * Owns nothing else. Used for (file, event id) lookups, collective
 * instances (comm, func+seq), rank pairs, interned indexes. Values are
 * usually indexes into the caller's own arrays.
 */
#ifndef CCLSCOPE_CLI_PAIR_MAP_H
#define CCLSCOPE_CLI_PAIR_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
  uint64_t a, b;
  uint64_t value;
  bool used;
} pair_map_slot;

typedef struct {
  pair_map_slot *slots;
  size_t cap; /* power of two */
  size_t n;
} pair_map;

void pair_map_init(pair_map *m);
void pair_map_free(pair_map *m);
void pair_map_clear(pair_map *m);
/* Pointer to the value, or NULL. Valid until the next insertion/removal. */
uint64_t *pair_map_get(const pair_map *m, uint64_t a, uint64_t b);
/* Pointer to the value, inserting `initial` if absent (*inserted tells).
 * NULL only when out of memory. */
uint64_t *pair_map_put(pair_map *m, uint64_t a, uint64_t b, uint64_t initial,
                       bool *inserted);
bool pair_map_remove(pair_map *m, uint64_t a, uint64_t b);

/* Iteration: for (size_t i = 0; i < m->cap; i++) if (m->slots[i].used) */

#endif
