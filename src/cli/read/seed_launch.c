/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/cli/read/seed_launch.c — see seed_launch.h.
 */
#include "read/seed_launch.h"

#include <stdlib.h>
#include <string.h>

struct sl_launch {
  int64_t ext;
  uint64_t comm_id;
  int64_t rank;
  int64_t start; /* pass 2 */
  uint32_t ordinal;
  uint32_t ctx;   /* pass 2; 0 until converted */
  uint32_t group; /* pass 2: GroupApi ordinal + 1, 0 none */
};

void sl_init(seed_launches *l) {
  memset(l, 0, sizeof *l);
  pair_map_init(&l->by_ext);
  pair_map_init(&l->device_of);
  pair_map_init(&l->last_of);
  pair_map_init(&l->group_of);
}

void sl_free(seed_launches *l) {
  free(l->launches);
  pair_map_free(&l->by_ext);
  pair_map_free(&l->device_of);
  pair_map_free(&l->last_of);
  pair_map_free(&l->group_of);
  memset(l, 0, sizeof *l);
}

static void put(seed_launches *l, pair_map *m, uint64_t a, uint64_t b,
                uint64_t v) {
  uint64_t *slot = pair_map_put(m, a, b, 0, NULL);
  if (slot)
    *slot = v;
  else
    l->oom = true;
}

void sl_note_launch(seed_launches *l, int64_t ext, uint32_t ordinal,
                    uint64_t comm_id, int64_t rank) {
  bool inserted;
  uint64_t *idx = pair_map_put(&l->by_ext, (uint64_t)ext, 0, 0, &inserted);
  if (!idx) {
    l->oom = true;
    return;
  }
  if (!inserted)
    return; /* a repeated extCorrId: the first launch keeps it */
  if (l->nlaunches == l->cap_launches) {
    uint32_t ncap = l->cap_launches ? l->cap_launches * 2 : 64;
    sl_launch *nl = realloc(l->launches, ncap * sizeof *nl);
    if (!nl) {
      pair_map_remove(&l->by_ext, (uint64_t)ext, 0);
      l->oom = true;
      return;
    }
    l->launches = nl;
    l->cap_launches = ncap;
  }
  l->launches[l->nlaunches] =
      (sl_launch){ext, comm_id, rank, INT64_MIN, ordinal, 0, 0};
  *idx = ++l->nlaunches;
}

void sl_note_activity(seed_launches *l, int64_t ext, int64_t device) {
  if (device >= 0 && !pair_map_get(&l->device_of, (uint64_t)ext, 0))
    put(l, &l->device_of, (uint64_t)ext, 0, (uint64_t)device + 1);
}

void sl_end_pass1(seed_launches *l) {
  pair_map by_rank;
  pair_map_init(&by_rank);
  for (size_t i = 0; i < l->device_of.cap; i++) {
    const pair_map_slot *s = &l->device_of.slots[i];
    if (!s->used)
      continue;
    const uint64_t *idx = pair_map_get(&l->by_ext, s->a, 0);
    if (!idx)
      continue;
    const sl_launch *k = &l->launches[*idx - 1];
    put(l, &by_rank, k->comm_id, (uint64_t)(k->rank + 1), s->value);
  }
  pair_map_free(&l->device_of);
  l->device_of = by_rank;
}

bool sl_device(const seed_launches *l, uint64_t comm_id, int64_t rank,
               int64_t *device) {
  const uint64_t *v =
      pair_map_get(&l->device_of, comm_id, (uint64_t)(rank + 1));
  if (!v)
    return false;
  *device = (int64_t)*v - 1;
  return true;
}

static sl_launch *launch_at(const seed_launches *l, uint32_t ordinal) {
  /* launches were noted in ordinal order */
  uint32_t lo = 0, hi = l->nlaunches;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (l->launches[mid].ordinal < ordinal)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < l->nlaunches && l->launches[lo].ordinal == ordinal
             ? &l->launches[lo]
             : NULL;
}

void sl_launch_converted(seed_launches *l, uint32_t ordinal, uint32_t ctx,
                         uint32_t group, int64_t start) {
  sl_launch *k = launch_at(l, ordinal);
  if (!k)
    return; /* no extCorrId: nothing can name it */
  k->ctx = ctx;
  k->group = group;
  k->start = start;
  put(l, &l->last_of, ctx, 0, (uint64_t)(k - l->launches) + 1);
}

void sl_api_converted(seed_launches *l, uint32_t ordinal, uint32_t group) {
  if (group)
    put(l, &l->group_of, ordinal, 0, group);
}

bool sl_launch_of_op(seed_launches *l, uint32_t ctx, uint32_t api,
                     int64_t start, int64_t *ext) {
  const uint64_t *idx = pair_map_get(&l->last_of, ctx, 0);
  if (!idx)
    return false;
  const sl_launch *k = &l->launches[*idx - 1];
  if (k->start > start)
    return false;
  const uint64_t *group = api ? pair_map_get(&l->group_of, api - 1, 0) : NULL;
  if (group && k->group && *group != k->group)
    return false; /* another group's launch: this one has none here */
  *ext = k->ext;
  return true;
}

bool sl_launch_by_ext(const seed_launches *l, int64_t ext, uint32_t *ordinal,
                      uint64_t *comm_id, int64_t *rank, uint32_t *ctx) {
  const uint64_t *idx = pair_map_get(&l->by_ext, (uint64_t)ext, 0);
  if (!idx)
    return false;
  const sl_launch *k = &l->launches[*idx - 1];
  *ordinal = k->ordinal;
  *comm_id = k->comm_id;
  *rank = k->rank;
  *ctx = k->ctx;
  return true;
}
